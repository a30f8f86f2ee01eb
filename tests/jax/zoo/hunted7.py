"""Zoo: programs from the seventh bug hunt: whole models and training
steps written without libraries, control flow and autodiff in unusual
nesting, and the numeric API surfaces earlier hunts left out. A
bidirectional LSTM and a bf16 GRU under lax.scan with reverse=True and
unroll leaving a remainder (checkpointed cells); CTC's alpha and beta
recurrences in log space; causal sliding-window attention with masks
from iota (finfo.min, -inf with fully masked rows, f16 bias, and
dot_product_attention's local_window_size); top-k MoE routing through
one_hot and segment_sum; RoPE in f16 and bf16; a ViT step with patchify,
label smoothing and a focal term. fori_loops with dynamic bounds inside
cond inside scan (vmapped), a while loop carrying s32/f16/bool/f64/s8/u16
values and a typed PRNG key, an eight-branch switch under vmap and grad,
zero-trip and one-trip loops, lax.map with batch_size; every remat
policy, custom_vjp with nondiff_argnums and integer residuals, custom_jvp
under jacfwd, hessians, linearize; vmap with in_axes/out_axes other than
0 and the named-axis collectives it batches. segment_max/min/prod/sum
with num_segments, indices_are_sorted and bucket_size; einsum with
broadcast ellipses and repeated subscripts; dot_general with batch
dimensions in the middle and mixed preferred types; rank-8 transposes
and reductions; variadic reduce and reduce_window (argmax pairs). JAX's
promotion corners (s8 with u8, f16 with s32, weak scalars); sub-byte
integers and the MX floats as conversions; captured NumPy constants of
every type; outputs and loop carries that share buffers; bf16 and
complex denormal inputs. complex64 end to end; every FFT with each norm
and n/s padding or truncation, tiny sizes and gradients; jnp.linalg and
jax.scipy.linalg compared by what is unique (reconstructions, projectors,
eigen- and singular values, |R|), batched solvers, their gradients;
jax.scipy.special's iterative functions, scipy.signal's STFT, welch,
fftconvolve and DCTs, spatial rotations and Slerp, RegularGridInterpolator,
BFGS; lax.composite, platform_dependent, ufunc methods; gathers and
scatters whose windows are partly out of bounds; convolutions with
negative padding. The big_* programs repeat the surfaces past the CPU
backend's parallel split (32768 elements).

Two bugs found, both where the evaluator left XLA:CPU's semantics:
hlo-run flushed only f32/f64 denormals in the evaluator's inputs, so a
bf16 denormal widened to an f32 denormal that libm's logf classified by
its bits under DAZ (log of a bf16 1e-40 was -104 where XLA:CPU gives
-inf) and so did clogf for a complex part (runtime/denormals.cc now
flushes bf16 values and complex parts: bf16_complex_denormal_inputs;
test runtime/denormals_test.cc). And the evaluator computed complex
expm1 in a wider type, where e^a does not overflow: expm1(89 + 1e-30i)
was (inf, 4.5e8), XLA:CPU and the code generators give (inf, inf)
(hlo/evaluator/kernels_unary.cc; complex64_end_to_end's expm1(z + 88.5);
test hlo/evaluator/elementwise_test.cc).

Known, by design (known_failures.py): the evaluator has no eigen-,
singular or Schur vectors (linalg_spectral_sign_free); the AArch64 target
has no LAPACK. int4/uint4/int2, f4e2m1fn and f8e8m0fnu compute end to end
since (narrow_types_int4_fp4_e8m0; README, "Numerics as in XLA"); XLA:CPU
itself computes int4 arithmetic in 8 bits without wrapping, so the
program keeps to conversions.

XLA:CPU's own results left out: a convolution with negative low and
positive high padding in one spatial dimension and three or more input
channels (XLA:CPU's result differs from the definition, hloc's and the
evaluator's match it; conv_negative_padding pads otherwise); the f32 log
of a denormal, -inf in XLA:CPU's 8-wide loop body and libm's -103.97 in
some remainders; bf16 denormals compared with zero (XLA:CPU's LLVM folds
x == 0 of a widened bf16 into an integer test, so 1e-40 != 0 there,
while x > 0 and x == y compare under DAZ). And, as earlier hunts: pow of
a negative denormal (the evaluator's inputs are flushed, XLA:CPU's libm
reads the bits), complex rsqrt on the negative real axis (XLA's polar
form leaves cos(pi/2) = -4e-8 times a huge modulus in the real part),
and complex products and powers whose parts cancel (multiply-add
contraction, which the evaluator does not do).
"""

import functools

import jax
import jax.numpy as jnp
import jax.scipy as jsp
import jax.scipy.optimize
import numpy as np
from jax import lax

from jax_harness import complexes, floats, ints, prng_key


def _w(r, *shape, scale=1.0):
    return (floats(r, shape) * scale / np.sqrt(shape[0])).astype(np.float32)


# --- recurrent models: reversed and unrolled scans, CTC ----------------

def _lstm_cell(p, carry, x):
    h, c = carry
    z = x @ p["wx"] + h @ p["wh"] + p["b"]
    i, f, g, o = jnp.split(z, 4, axis=-1)
    c = jax.nn.sigmoid(f + 1.0) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    h = jax.nn.sigmoid(o) * jnp.tanh(c)
    return (h, c), h


def bidir_lstm_reverse_unroll_grad(pf, pb, head, xs, mask):
    # A bidirectional LSTM tagger: the backward direction is the same scan
    # with reverse=True and unroll=2 (a remainder on 5 steps); padded steps
    # keep the carry.
    def loss(pf, pb, head):
        b, hid = xs.shape[1], pf["wh"].shape[0]
        init = (jnp.zeros((b, hid)), jnp.zeros((b, hid)))

        def step(p):
            def f(carry, inp):
                x, m = inp
                new, h = _lstm_cell(p, carry, x)
                new = jax.tree.map(lambda n, o: jnp.where(m[:, None], n, o),
                                   new, carry)
                return new, h * m[:, None]
            return f
        (hT, _), hf = lax.scan(step(pf), init, (xs, mask))
        (h0, _), hb = lax.scan(step(pb), init, (xs, mask), reverse=True,
                               unroll=2)
        feats = jnp.concatenate([hf, hb], -1)
        pooled = feats.sum(0) / jnp.maximum(mask.sum(0), 1.0)[:, None]
        logits = jnp.concatenate([pooled, hT, h0], -1) @ head
        nll = jax.nn.logsumexp(logits, -1) - logits[:, 0]
        return nll.mean(), (hf, hb)
    (l, aux), g = jax.value_and_grad(loss, argnums=(0, 1, 2),
                                     has_aux=True)(pf, pb, head)
    return l, aux, g


def _lstm_inputs(r):
    t, b, d, h = 5, 3, 5, 6

    def params():
        return {"wx": _w(r, d, 4 * h), "wh": _w(r, h, 4 * h),
                "b": floats(r, (4 * h,)) * 0.1}
    lengths = np.array([5, 3, 1])
    mask = (np.arange(t)[:, None] < lengths[None, :]).astype(np.float32)
    return [params(), params(), _w(r, 4 * h, 5), floats(r, (t, b, d)), mask]


def gru_bf16_reverse_remat_grad(p, xs, h0):
    # A GRU over bf16 inputs with f32 parameters, the cell under
    # jax.checkpoint, scanned in reverse with unroll=3 over 7 steps.
    @jax.checkpoint
    def cell(p, h, x):
        x = x.astype(jnp.float32)
        r = jax.nn.sigmoid(x @ p["wr"] + h @ p["ur"])
        z = jax.nn.sigmoid(x @ p["wz"] + h @ p["uz"])
        n = jnp.tanh(x @ p["wn"] + (r * h) @ p["un"] + p["bn"])
        return (1 - z) * n + z * h

    def loss(p, h0):
        def step(h, x):
            h = cell(p, h, x)
            return h, h.astype(jnp.bfloat16)
        hT, hs = lax.scan(step, h0, xs, reverse=True, unroll=3)
        return jnp.mean(jnp.square(hT)) + jnp.mean(hs.astype(jnp.float32)
                                                   [::2]), hs
    (l, hs), g = jax.value_and_grad(loss, (0, 1), has_aux=True)(p, h0)
    return l, hs, g


def _gru_inputs(r):
    t, b, d, h = 7, 2, 4, 5
    p = {k: _w(r, d if k[0] == "w" else h, h) for k in
         ("wr", "ur", "wz", "uz", "wn", "un")}
    p["bn"] = floats(r, (h,)) * 0.1
    return [p, floats(r, (t, b, d)).astype(jnp.bfloat16),
            floats(r, (b, h)) * 0.5]


def ctc_alpha_beta(logits, labels, in_len, lab_len):
    # CTC's alpha (forward scan) and beta (reverse=True scan) in log space
    # over the blank-extended labels, batch entries of different input and
    # label lengths; both give the same log-likelihood; and its gradient.
    t_max, b, _ = logits.shape
    s = 2 * labels.shape[1] + 1
    ext = jnp.zeros((b, s), jnp.int32).at[:, 1::2].set(labels)
    ext_prev2 = jnp.pad(ext, ((0, 0), (2, 0)), constant_values=-1)[:, :s]
    skip = (ext != 0) & (ext != ext_prev2)
    ext_next2 = jnp.pad(ext, ((0, 0), (0, 2)), constant_values=-1)[:, 2:]
    skip_b = (ext != 0) & (ext != ext_next2)
    pos = jnp.arange(s)
    valid_s = pos[None, :] < 2 * lab_len[:, None] + 1
    ninf = -jnp.inf

    def emit(lp):
        return jnp.take_along_axis(lp, ext, axis=1)

    def shift(a, k):
        return jnp.pad(a, ((0, 0), (k, 0)), constant_values=ninf)[:, :s]

    def alpha(logits):
        lp = jax.nn.log_softmax(logits, -1)
        a0 = jnp.where(pos[None, :] < 2, emit(lp[0]), ninf)
        a0 = jnp.where(valid_s, a0, ninf)

        def step(a, inp):
            lpt, t = inp
            new = jnp.logaddexp(a, shift(a, 1))
            new = jnp.where(skip, jnp.logaddexp(new, shift(a, 2)), new)
            new = jnp.where(valid_s, new + emit(lpt), ninf)
            new = jnp.where((t < in_len)[:, None], new, a)
            return new, None
        a, _ = lax.scan(step, a0, (lp[1:], jnp.arange(1, t_max)))
        last = 2 * lab_len
        end = jnp.logaddexp(jnp.take_along_axis(a, last[:, None], 1)[:, 0],
                            jnp.take_along_axis(a, (last - 1)[:, None],
                                                1)[:, 0])
        return end

    def beta(logits):
        lp = jax.nn.log_softmax(logits, -1)
        last = 2 * lab_len
        init = jnp.where((pos[None, :] == last[:, None])
                         | (pos[None, :] == last[:, None] - 1), 0.0, ninf)

        def unshift(a, k):
            return jnp.pad(a, ((0, 0), (0, k)), constant_values=ninf)[:, k:]

        def step(bt, inp):
            lpt, t = inp
            # beta_t(s) = lp_t(s) + logsumexp(beta_{t+1}(s, s+1, s+2)),
            # where steps at or past a sequence's end leave it as it is.
            at_end = (t == in_len - 1)[:, None]
            cur = jnp.logaddexp(bt, unshift(bt, 1))
            cur = jnp.where(skip_b, jnp.logaddexp(cur, unshift(bt, 2)), cur)
            cur = jnp.where(at_end, bt, cur)
            cur = jnp.where(valid_s, cur + emit(lpt), ninf)
            cur = jnp.where((t < in_len)[:, None], cur, bt)
            return cur, None
        bt, _ = lax.scan(step, init, (lp, jnp.arange(t_max)), reverse=True)
        return jnp.logaddexp(bt[:, 0], bt[:, 1])

    la = alpha(logits)
    lb = beta(logits)
    g = jax.grad(lambda z: -alpha(z).sum())(logits)
    return la, lb, g


def _ctc_inputs(r):
    t, b, v = 8, 3, 5
    labels = np.array([[1, 2, 2], [3, 1, 0], [4, 0, 0]], np.int32)
    return [floats(r, (t, b, v)), labels, np.array([8, 6, 3], np.int32),
            np.array([3, 2, 1], np.int32)]


# --- attention masks from iota, MoE routing, RoPE, a ViT step ----------

def _window_mask(t, window):
    q = lax.broadcasted_iota(jnp.int32, (t, t), 0)
    k = lax.broadcasted_iota(jnp.int32, (t, t), 1)
    return (k <= q) & (q - k < window)


def _sliding_window_attention_grad(q, k, v, lengths):
    # Causal sliding-window attention as written by hand: the mask from
    # iota, finfo.min for masked scores (f32) or -inf with a guard for rows
    # that padding masks entirely; against jax.nn.dot_product_attention's
    # local_window_size; value and gradient.
    t = q.shape[1]
    scale = q.shape[-1] ** -0.5
    keep = _window_mask(t, 4)
    pad = jnp.arange(t)[None, :] < lengths[:, None]          # [B, T] keys

    def attn_min(q, k, v):
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) * scale
        s = jnp.where(keep, s, jnp.finfo(s.dtype).min)
        return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v)

    def attn_inf(q, k, v):
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) * scale
        m = keep[None, None] & pad[:, None, None, :]
        s = jnp.where(m, s, -jnp.inf)
        mx = jnp.max(s, -1, keepdims=True)
        e = jnp.exp(s - jnp.where(jnp.isfinite(mx), mx, 0.0))
        den = e.sum(-1, keepdims=True)
        w = jnp.where(den > 0, e / jnp.where(den > 0, den, 1.0), 0.0)
        return jnp.einsum("bhqk,bkhd->bqhd", w, v)

    def api(q, k, v):
        return jax.nn.dot_product_attention(q, k, v, is_causal=True,
                                            local_window_size=(3, 0))

    def loss(q, k, v):
        a, b, c = attn_min(q, k, v), attn_inf(q, k, v), api(q, k, v)
        return jnp.sum(a * b) + jnp.sum(jnp.tanh(c)), (a, b, c)
    (l, outs), g = jax.value_and_grad(loss, (0, 1, 2), has_aux=True)(q, k, v)
    return l, outs, g


def _f16_window_attention(q, k, v):
    # The same mask in f16 end to end with finfo(f16).min (-65504) added
    # as a bias, the way a half-precision inference path writes it.
    t = q.shape[1]
    bias = jnp.where(_window_mask(t, 3), jnp.float16(0),
                     jnp.finfo(jnp.float16).min)
    s = jnp.einsum("bqd,bkd->bqk", q, k) / jnp.float16(np.sqrt(q.shape[-1]))
    s = s + bias
    p = jax.nn.softmax(s, -1)
    return p, jnp.einsum("bqk,bkd->bqd", p, v), s.max(-1)


def sliding_window_attention(q, k, v, lengths, q16, k16, v16):
    return (_sliding_window_attention_grad(q, k, v, lengths),
            _f16_window_attention(q16, k16, v16))


def _attn_inputs(r, b=2, t=9, h=2, d=8):
    return [floats(r, (b, t, h, d)), floats(r, (b, t, h, d)),
            floats(r, (b, t, h, d)), np.array([t, 3], np.int32)[:b]]


def moe_topk_segment_sum_grad(x, wg, w1, w2):
    # Token-choice top-2 routing without capacity: the (token, expert)
    # pairs are flattened, expert weights gathered per pair, and the
    # weighted outputs summed back per token with segment_sum over sorted
    # token ids; a load-balancing loss from one_hot counts.
    n, e = x.shape[0], wg.shape[1]

    def loss(x, wg, w1, w2):
        probs = jax.nn.softmax(x @ wg, -1)
        gv, gi = lax.top_k(probs, 2)
        gv = gv / gv.sum(-1, keepdims=True)
        tok = jnp.repeat(jnp.arange(n), 2)
        exp_id = gi.reshape(-1)
        h = jax.nn.silu(jnp.einsum("pd,pdh->ph", x[tok], w1[exp_id]))
        y = jnp.einsum("ph,phd->pd", h, w2[exp_id]) * gv.reshape(-1, 1)
        out = jax.ops.segment_sum(y, tok, num_segments=n,
                                  indices_are_sorted=True)
        load = jax.nn.one_hot(exp_id, e).sum(0) / (2 * n)
        aux = e * jnp.sum(load * probs.mean(0))
        counts = jnp.bincount(exp_id, length=e)
        return jnp.mean((out - x) ** 2) + 0.01 * aux, (out, counts)
    (l, aux), g = jax.value_and_grad(loss, (0, 1, 2, 3), has_aux=True)(
        x, wg, w1, w2)
    return l, aux, g


def _moe_inputs(r, n=12, d=6, e=4, h=8):
    return [floats(r, (n, d)), _w(r, d, e, scale=3.0),
            floats(r, (e, d, h)) / 3, floats(r, (e, h, d)) / 3]


def rope_half_precision(x16, xb, pos):
    # RoPE as LLaMA (rotate_half) and GPT-J (interleaved) write it, angles
    # in f32 from integer positions up to 4000, cos/sin cast to the
    # activations' f16/bf16, then attention scores in that type.
    d = x16.shape[-1]
    inv = 1.0 / (10000.0 ** (jnp.arange(0, d, 2, dtype=jnp.float32) / d))
    ang = (pos[:, None].astype(jnp.float32) * inv)[:, None]    # [T, 1, d/2]

    def rotate_half(x):
        cos = jnp.concatenate([jnp.cos(ang)] * 2, -1).astype(x.dtype)
        sin = jnp.concatenate([jnp.sin(ang)] * 2, -1).astype(x.dtype)
        x1, x2 = jnp.split(x, 2, -1)
        return x * cos + jnp.concatenate([-x2, x1], -1) * sin

    def interleaved(x):
        cos = jnp.cos(ang).astype(x.dtype)
        sin = jnp.sin(ang).astype(x.dtype)
        x1, x2 = x[..., ::2], x[..., 1::2]
        out = jnp.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1)
        return out.reshape(x.shape)

    out = []
    for x in (x16, xb):
        a, b = rotate_half(x), interleaved(x)
        scores = jnp.einsum("thd,shd->hts", a, b,
                            preferred_element_type=jnp.float32)
        out += [a, b, scores, jnp.einsum("thd,shd->hts", a, a)]
    return out


def _rope_inputs(r):
    pos = np.concatenate([np.arange(6), [100, 999, 4000, 4001]]).astype(
        np.int32)
    return [floats(r, (10, 2, 8)).astype(np.float16),
            floats(r, (10, 2, 8)).astype(jnp.bfloat16), pos]


def vit_train_step_smoothing_focal(params, images, labels):
    # Patchify by reshape/transpose, a class token and position embedding,
    # one pre-norm attention block, a head trained with label-smoothed
    # cross-entropy plus a focal term; an SGD step with weight decay.
    def forward(p, img):
        b, hh, ww, c = img.shape
        ps = 4
        x = img.reshape(b, hh // ps, ps, ww // ps, ps, c)
        x = x.transpose(0, 1, 3, 2, 4, 5).reshape(b, -1, ps * ps * c)
        x = x @ p["embed"]
        cls = jnp.broadcast_to(p["cls"], (b, 1, x.shape[-1]))
        x = jnp.concatenate([cls, x], 1) + p["pos"]
        mu = x.mean(-1, keepdims=True)
        hn = (x - mu) * lax.rsqrt(x.var(-1, keepdims=True) + 1e-6)
        qkv = hn @ p["qkv"]
        q, k, v = jnp.split(qkv, 3, -1)
        a = jax.nn.softmax(q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1]))
        x = x + (a @ v) @ p["proj"]
        return x[:, 0] @ p["head"]

    def loss(p):
        logits = forward(p, images)
        n_cls = logits.shape[-1]
        target = jax.nn.one_hot(labels, n_cls) * 0.9 + 0.1 / n_cls
        logp = jax.nn.log_softmax(logits)
        ce = -(target * logp).sum(-1)
        pt = jnp.exp(logp[jnp.arange(labels.shape[0]), labels])
        focal = -((1 - pt) ** 2) * jnp.log(jnp.clip(pt, 1e-7, 1.0))
        return jnp.mean(ce + 0.5 * focal)
    l, g = jax.value_and_grad(loss)(params)
    new = jax.tree.map(lambda w, gw: w - 0.1 * (gw + 1e-4 * w), params, g)
    return l, new


def _vit_inputs(r):
    d = 12
    p = {"embed": _w(r, 48, d), "cls": floats(r, (1, 1, d)) * 0.02,
         "pos": floats(r, (17, d)) * 0.02, "qkv": _w(r, d, 3 * d),
         "proj": _w(r, d, d), "head": _w(r, d, 5)}
    return [p, r.random((3, 16, 16, 3)).astype(np.float32),
            np.array([0, 4, 2], np.int32)]


# --- control flow in unusual nesting -----------------------------------

def fori_in_cond_in_scan(xs, ns, c0):
    # A scan whose step picks, by cond on the step's integer, between two
    # fori_loops with bounds read from that integer (while loops), one of
    # them nesting another fori_loop; then the whole thing vmapped over a
    # batch with different bounds per example.
    def run(xs, ns, c0):
        def step(c, inp):
            x, n = inp

            def even(c):
                def body(i, acc):
                    return acc * 0.9 + jnp.sin(x * i.astype(x.dtype))
                return lax.fori_loop(0, n, body, c)

            def odd(c):
                def body(i, acc):
                    inner = lax.fori_loop(
                        i, n + 1,
                        lambda j, a: a + 0.01 * j.astype(a.dtype), acc)
                    return jnp.tanh(inner) + x
                return lax.fori_loop(n // 2, n, body, c)
            c = lax.cond(n % 2 == 0, even, odd, c)
            return c, c.sum() + n.astype(c.dtype)
        return lax.scan(step, c0, (xs, ns))
    single = run(xs[0], ns[0], c0[0])
    batched = jax.vmap(run)(xs, ns, c0)
    return single, batched


def _fori_cond_inputs(r):
    return [floats(r, (3, 5, 4)), ints(r, (3, 5), 0, 7),
            floats(r, (3, 4))]


def while_mixed_carry_key(raw_key, x, counts):
    # A while loop whose carry mixes every kind of value: an s32 counter,
    # an f16 accumulator, a bool flag, a typed PRNG key split every
    # iteration, an f64 total, s8 counts and a nested (f32, u16) pair;
    # stops on the flag or the count; vmapped over three keys as well.
    def run(raw_key, x, counts):
        key = jax.random.wrap_key_data(raw_key)

        def cond(c):
            i, _, done, _, _, _, _ = c
            return (i < 40) & ~done

        def body(c):
            i, acc, done, key, total, cnt, (m, u) = c
            key, sub = jax.random.split(key)
            u01 = jax.random.uniform(sub, x.shape, jnp.float32)
            acc = acc + (u01 * x).astype(jnp.float16)
            total = total + jnp.sum(u01).astype(jnp.float64)
            cnt = cnt + (u01 > 0.5).astype(jnp.int8)
            m = jnp.maximum(m, u01.max())
            u = u + jnp.uint16(3)
            done = total > 30.0
            return i + 1, acc, done, key, total, cnt, (m, u)
        init = (jnp.int32(0), jnp.zeros(x.shape, jnp.float16),
                jnp.bool_(False), key, jnp.float64(0), counts,
                (jnp.float32(-1), jnp.uint16(65530)))
        i, acc, done, key, total, cnt, mu = lax.while_loop(cond, body, init)
        return i, acc, done, jax.random.key_data(key), total, cnt, mu
    keys = jnp.stack([raw_key, raw_key + 1, raw_key ^ 7])
    return run(raw_key, x, counts), jax.vmap(run, (0, None, None))(
        keys, x, counts)


def vmap_switch_eight_branches(idx, x, w):
    # lax.switch over eight branches of different kinds (sort, cumsum,
    # matmul, integer round trip, reverse, top-k scatter, where, a scan),
    # vmapped over a batch of indices (out-of-range ones clamp) and
    # differentiated through.
    def b_sort(x, w):
        return jnp.sort(x) * w[0, 0]

    def b_cumsum(x, w):
        return jnp.cumsum(x[::-1])[::-1]

    def b_matmul(x, w):
        return jnp.tanh(x @ w)

    def b_int(x, w):
        return (x * 4).astype(jnp.int32).astype(x.dtype) * 0.25 + x

    def b_rev(x, w):
        return x[::-1] * jnp.arange(x.shape[0], dtype=x.dtype)

    def b_topk(x, w):
        v, i = lax.top_k(x, 2)
        return jnp.zeros_like(x).at[i].set(v)

    def b_where(x, w):
        return jnp.where(x > 0, x ** 2, jnp.exp(x) - 1)

    def b_scan(x, w):
        return lax.scan(lambda c, v: (c * 0.5 + v, c), 0.0, x)[1]
    branches = [b_sort, b_cumsum, b_matmul, b_int, b_rev, b_topk, b_where,
                b_scan]

    def one(i, x):
        return lax.switch(i, branches, x, w)
    out = jax.vmap(one)(idx, x)
    g = jax.grad(lambda x, w: jnp.sum(jnp.sin(jax.vmap(
        lambda i, v: lax.switch(i, branches, v, w))(idx, x))), (0, 1))(x, w)
    return out, g


def _switch_inputs(r):
    return [np.array([0, 1, 2, 3, 4, 5, 6, 7, -3, 11, 5, 2], np.int32),
            floats(r, (12, 6)), _w(r, 6, 6)]


def scan_cond_scan_remat_grad(xs, w, flags):
    # Reverse-mode through a scan whose step conds between an inner scan
    # under jax.checkpoint and a plain update; the outer scan unrolled 2.
    @jax.checkpoint
    def inner(h, x):
        def f(c, k):
            c = jnp.tanh(c @ w + x * k)
            return c, c.sum()
        return lax.scan(f, h, jnp.arange(3, dtype=h.dtype))

    def loss(xs, w0):
        def step(h, inp):
            x, flag = inp
            h, s = lax.cond(flag, lambda h: inner(h, x),
                            lambda h: (h * 0.5 + x, jnp.zeros(3, h.dtype)),
                            h)
            return h, s
        h, ss = lax.scan(step, w0[0], (xs, flags), unroll=2)
        return jnp.sum(h ** 2) + ss.sum() * 0.1
    return jax.value_and_grad(loss, (0, 1))(xs, w)


def _zero_trip_loops(x, n):
    # Loops that run zero times or once: a scan over zero steps (empty ys),
    # fori_loop with upper < lower (static and dynamic), a while loop whose
    # condition is false at once, a length-1 reversed scan, a fully
    # unrolled scan, a cond on a constant predicate and a one-branch
    # switch.
    c0, ys0 = lax.scan(lambda c, v: (c + v, c * v), x[0], x[:0])
    f_static = lax.fori_loop(5, 2, lambda i, c: c * 2.0 + i, x[1])
    f_dyn = lax.fori_loop(n, n - 3, lambda i, c: c * 2.0 + i, x[1])
    f_dyn_ok = lax.fori_loop(n - 3, n, lambda i, c: c * 2.0 + i, x[1])
    w = lax.while_loop(lambda c: c[0] > 100.0, lambda c: (c[0] + 1.0, c[1]),
                       (x[2].sum(), n))
    c1, ys1 = lax.scan(lambda c, v: (c * v, c + v), x[0], x[:1],
                       reverse=True)
    cu, ysu = lax.scan(lambda c, v: (jnp.sin(c + v), c), x[0], x,
                       unroll=True)
    k = lax.cond(True, lambda v: v + 1.0, lambda v: v - 1.0, x[0])
    sw = lax.switch(n, [lambda v: v * 5.0], x[1])
    e = lax.map(jnp.sin, x[:0])
    return (c0, ys0, f_static, f_dyn, f_dyn_ok, w, c1, ys1, cu, ysu, k, sw,
            e, jax.vmap(lambda v: v * 2)(x[:0]),
            lax.fori_loop(0, 0, lambda i, c: c + 1, n))


def _lax_map_batch_size(xs, ys):
    # lax.map with batch_size (a scan over vmapped chunks plus the
    # remainder), over a function with a while loop and a sort.
    def f(args):
        x, y = args
        n = lax.while_loop(lambda c: c[1] < 10.0,
                           lambda c: (c[0] + 1, c[1] * 2 + jnp.abs(y)),
                           (jnp.int32(0), jnp.abs(x).sum() + 0.1))[0]
        return jnp.sort(x)[::-1] * n, n
    return (lax.map(f, (xs, ys), batch_size=3),
            lax.map(f, (xs, ys), batch_size=4),
            lax.map(f, (xs, ys)))


def loops_zero_trip_and_batched(x, n, xs, ys):
    return _zero_trip_loops(x, n), _lax_map_batch_size(xs, ys)


# --- autodiff: checkpoint policies, custom rules, higher order ---------

def checkpoint_policies_grad(p, x):
    # The same MLP gradient under every common remat policy: names saved
    # through checkpoint_name, dots saved, nothing saved, everything saved,
    # and nested checkpoints with prevent_cse=False.
    from jax.ad_checkpoint import checkpoint_name

    def mlp(p, x):
        h1 = checkpoint_name(jnp.tanh(x @ p["w1"] + p["b1"]), "h1")
        h2 = checkpoint_name(jax.nn.gelu(h1 @ p["w2"]), "h2")
        return jnp.sum(jnp.sin(h2 @ p["w3"]) ** 2)
    pol = jax.checkpoint_policies
    policies = [None, pol.save_only_these_names("h1"),
                pol.save_any_names_but_these("h2"), pol.dots_saveable,
                pol.dots_with_no_batch_dims_saveable, pol.nothing_saveable,
                pol.everything_saveable]
    grads = [jax.grad(jax.checkpoint(mlp, policy=pl))(p, x)
             for pl in policies]
    nested = jax.grad(jax.checkpoint(
        lambda p, x: mlp(p, jax.checkpoint(jnp.sin, prevent_cse=False)(x)),
        prevent_cse=False))(p, x)
    return grads, nested


def _ckpt_inputs(r):
    return [{"w1": _w(r, 5, 8), "b1": floats(r, (8,)) * 0.1,
             "w2": _w(r, 8, 8), "w3": _w(r, 8, 3)}, floats(r, (4, 5))]


@functools.partial(jax.custom_vjp, nondiff_argnums=(0, 1))
def _clip_gradient(lo, hi, x):
    return x


def _clip_fwd(lo, hi, x):
    return x, None


def _clip_bwd(lo, hi, _, g):
    return (jnp.clip(g, lo, hi),)


_clip_gradient.defvjp(_clip_fwd, _clip_bwd)


@jax.custom_jvp
def _log1pexp(x):
    return jnp.log1p(jnp.exp(x))


@_log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    x, = primals
    t, = tangents
    return _log1pexp(x), t * jax.nn.sigmoid(x)


@jax.custom_vjp
def _sorted_gather(x, i):
    return jnp.sort(x)[i]


def _sg_fwd(x, i):
    order = jnp.argsort(x)
    return x[order][i], (order, i, x.shape[0])


def _sg_bwd(res, g):
    order, i, _ = res
    return jnp.zeros(order.shape, g.dtype).at[order[i]].add(g), None


_sorted_gather.defvjp(_sg_fwd, _sg_bwd)


def custom_rules_in_transforms(x, y, idx):
    # custom_vjp with nondiff_argnums and integer residuals, custom_jvp,
    # under grad, vmap, scan, jacfwd (custom_jvp) and jacrev (custom_vjp).
    def f(x):
        z = _clip_gradient(-0.1, 0.1, x * 3.0)
        return jnp.sum(_log1pexp(z * 10.0)) + jnp.sum(
            _sorted_gather(x, idx) ** 2)
    g = jax.grad(f)(x)
    gv = jax.vmap(jax.grad(f))(y)

    def scanned(x):
        return lax.scan(lambda c, v: (c + f(v * c), None), 1.0, y)[0] + x[0]
    gs = jax.grad(scanned)(x)
    jf = jax.jacfwd(lambda v: _log1pexp(v * 30.0))(x)
    jr = jax.jacrev(lambda v: _sorted_gather(v, idx))(x)
    return g, gv, gs, jf, jr, _log1pexp(jnp.array([-100.0, 0.0, 100.0]))


def higher_order_derivatives(x, a, d):
    # jax.hessian of Rosenbrock and of a logsumexp, jacfwd(jacrev) of a
    # matrix function, jacrev of softmax, jacfwd through a while loop,
    # linearize and a vmapped jvp, a hessian over a dict.
    def rosen(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)

    def mat(m):
        return jnp.tanh(m @ a) @ m.T

    def newton_sqrt(v):
        def body(c):
            i, y = c
            return i + 1, 0.5 * (y + v / y)
        return lax.while_loop(lambda c: c[0] < 6, body, (0, v + 1.0))[1]
    y, lin = jax.linearize(lambda v: jnp.sin(v) * v ** 2, x)
    jv = jax.vmap(lambda t: jax.jvp(rosen, (x,), (t,))[1])(
        jnp.eye(x.shape[0], dtype=x.dtype))
    hd = jax.hessian(lambda p: jnp.sum(p["u"] ** 3 * p["v"]))(d)
    return (jax.hessian(rosen)(x), jax.hessian(jax.nn.logsumexp)(x),
            jax.jacfwd(jax.jacrev(lambda m: jnp.sum(mat(m) ** 2)))(a),
            jax.jacrev(jax.nn.softmax)(x),
            jax.jacfwd(newton_sqrt)(jnp.abs(x) + 0.5),
            y, lin(jnp.ones_like(x)), jv, hd)


def _hessian_inputs(r):
    return [floats(r, (5,)) * 0.5, floats(r, (3, 3)) * 0.5,
            {"u": floats(r, (3,)), "v": floats(r, (3,))}]


def vmap_axes_and_collectives(x, y, d):
    # vmap with in_axes/out_axes other than 0 (negative ones too), over
    # dicts with per-leaf axes, nested vmaps, and the named-axis
    # collectives vmap batches (psum, pmax, axis_index, all_gather,
    # pmean), as per-example normalisation code uses them.
    def f(a, b):
        return jnp.tanh(a @ b), a.sum()
    r1 = jax.vmap(f, in_axes=(1, None), out_axes=(1, 0))(x, y)
    r2 = jax.vmap(lambda a, b: f(a.T, b), in_axes=(2, 0), out_axes=(-1, 0))(
        jnp.broadcast_to(x[..., None], x.shape + (3,)), y[None].repeat(3, 0))
    r3 = jax.vmap(jax.vmap(lambda u, v: u * v, in_axes=(0, None)),
                  in_axes=(None, 1), out_axes=2)(x[:, 0], y)
    r4 = jax.vmap(lambda p: p["a"] * p["b"].sum(),
                  in_axes=({"a": 1, "b": None},))(d)

    def norm(v):
        s = lax.psum(v, "batch")
        m = lax.pmax(jnp.abs(v).max(), "batch")
        i = lax.axis_index("batch")
        g = lax.all_gather(v.sum(), "batch")
        return (v - s / lax.psum(1, "batch")) / m + i, g, lax.pmean(v, "batch")
    r5 = jax.vmap(norm, axis_name="batch")(x)
    r6 = jax.vmap(norm, in_axes=1, out_axes=1, axis_name="batch")(x)
    return r1, r2, r3, r4, r5, r6


def _vmap_inputs(r):
    return [floats(r, (4, 5)), floats(r, (4, 3)),
            {"a": floats(r, (2, 6)), "b": floats(r, (4,))}]


# --- segments, einsum, dot_general, reductions -------------------------

def segment_reductions_sorted(data, seg, data_i, data_h, rows):
    # jax.ops.segment_{max,min,prod,sum} with more segments than ids (empty
    # segments give the identities: -inf/inf, INT_MIN/INT_MAX, 1, 0),
    # indices_are_sorted with out-of-range ids at the end (dropped),
    # unique_indices, bucket_size, s32 and f16 data and 2-D rows.
    n = 9
    out = []
    for kw in ({}, {"indices_are_sorted": True}):
        out += [jax.ops.segment_max(data, seg, n, **kw),
                jax.ops.segment_min(data, seg, n, **kw),
                jax.ops.segment_prod(data * 0.5 + 1.0, seg, n, **kw),
                jax.ops.segment_sum(data, seg, n, **kw),
                jax.ops.segment_max(data_i, seg, n, **kw),
                jax.ops.segment_min(data_i, seg, n, **kw),
                jax.ops.segment_prod(data_i % 3 + 1, seg, n, **kw),
                jax.ops.segment_max(data_h, seg, n, **kw),
                jax.ops.segment_sum(data_h, seg, n, **kw),
                jax.ops.segment_max(rows, seg, n, **kw),
                jax.ops.segment_min(rows, seg, n, **kw)]
    out += [jax.ops.segment_sum(data, seg, n, bucket_size=4),
            jax.ops.segment_max(data, seg, n, bucket_size=5),
            jax.ops.segment_sum(data[:9], jnp.arange(9) * 2 % 9, n,
                                unique_indices=True),
            jax.grad(lambda d: jax.ops.segment_max(
                d, seg, n, indices_are_sorted=True).clip(-9, 9).sum())(data),
            jax.grad(lambda d: jax.ops.segment_min(d, seg, n).clip(-9, 9)
                     .sum())(data)]
    return out


def _segment_inputs(r):
    seg = np.sort(np.concatenate([ints(r, (17,), 0, 7), [7, 7, 9, 12]]))
    return [floats(r, (21,)), seg.astype(np.int32),
            ints(r, (21,), -50, 50), floats(r, (21,)).astype(np.float16),
            floats(r, (21, 3))]


def einsum_ellipsis_repeated(a, b, c, d, i8, u8):
    # Ellipses that broadcast (a batch of 1 against 5), on either side and
    # in the middle, repeated subscripts (diagonals, in one operand and
    # across three), every contraction path, and integer operands.
    return (jnp.einsum("...ij,...jk->...ik", a, b),
            jnp.einsum("...ii->...i", c), jnp.einsum("ii...->i...", d),
            jnp.einsum("i...,i...->...", a[:, 0], a[:, 0]),
            jnp.einsum("bij,b...j->b...i", c[:, 0],
                       a[:, 0].transpose(0, 2, 1)),
            jnp.einsum("iij->ij", d),
            jnp.einsum("iji->j", d.transpose(0, 2, 1)),
            jnp.einsum("ij,ij,ij->i", c[0, 0], c[1, 0], c[0, 0]),
            jnp.einsum("...,...->...", a, jnp.float32(2.0)),
            jnp.einsum("ab...,b...->a...", a[0], a[1, 0]),
            jnp.einsum("...ij,...jk->...ik", a, b, optimize=False),
            jnp.einsum("bij,bjk,bkl->bil", c[:, 0], c[:, 0], c[:, 0],
                       optimize="greedy"),
            jnp.einsum("ii->", d[:, :, 0]), jnp.einsum("i...i->...",
                                                       d.transpose(0, 2, 1)),
            jnp.einsum("...ij,jk->...ik", i8, u8),
            jnp.einsum("ij,jk->ik", i8[0], u8,
                       preferred_element_type=jnp.int16),
            jnp.einsum("...i,...i->...", c.astype(jnp.bfloat16),
                       c.astype(jnp.bfloat16),
                       preferred_element_type=jnp.float32))


def _einsum_inputs(r):
    return [floats(r, (2, 1, 3, 4)), floats(r, (5, 4, 2)),
            floats(r, (2, 1, 3, 3)), floats(r, (3, 3, 2)),
            ints(r, (2, 3, 4), -128, 128, np.int8),
            ints(r, (4, 5), 0, 256, np.uint8)]


def odd_dot_general(a, b, c, i8a, i8b, h, z):
    # dot_general with batch dimensions in the middle and at the end,
    # several contracting dimensions, size-1 and K=1 contractions,
    # s8 x s8 -> s32 with a long K (products past s16), u8 x s8, f16 with
    # an f32 result, f64 and complex128 results from f32/c64 inputs
    # (preferred_element_type).
    return (lax.dot_general(a, b, (((2,), (0,)), ((1,), (2,)))),
            lax.dot_general(a, a, (((0, 2), (0, 2)), ((), ()))),
            lax.dot_general(c, c, (((3,), (3,)), ((1, 2), (1, 2)))),
            lax.dot_general(a[:, :, :1], b[:1], (((2,), (0,)), ((), ()))),
            jnp.einsum("i,j->ij", a[0, 0], b[0, 0]),
            lax.dot_general(i8a, i8b, (((1,), (0,)), ((), ())),
                            preferred_element_type=jnp.int32),
            lax.dot_general(i8a.astype(jnp.uint8), i8b,
                            (((1,), (0,)), ((), ())),
                            preferred_element_type=jnp.int32),
            lax.dot_general(h, h, (((1,), (1,)), ((), ())),
                            preferred_element_type=jnp.float32),
            lax.dot_general(a, b, (((2,), (0,)), ((1,), (2,))),
                            preferred_element_type=jnp.float64),
            lax.dot_general(z, z, (((1,), (0,)), ((), ())),
                            preferred_element_type=jnp.complex128),
            a[0] @ b[:, 0, :], jnp.matmul(c[0, 0], c[1, 1].T))


def _dot_inputs(r):
    return [floats(r, (3, 4, 5)), floats(r, (5, 3, 4)),
            floats(r, (2, 3, 4, 6)), ints(r, (5, 700), -128, 128, np.int8),
            ints(r, (700, 3), -128, 128, np.int8),
            floats(r, (6, 9)).astype(np.float16), complexes(r, (4, 4))]


def high_rank_transpose_reduce(x, y):
    # Rank-8 arrays: transposes with a scrambled permutation, reductions
    # over non-adjacent axes, broadcasts into the middle, reverse and
    # slices; at 2^8 and past the split (3 x 2^14 elements).
    def prog(v):
        t = v.transpose(3, 7, 0, 5, 1, 6, 2, 4)
        r1 = t.sum(axis=(1, 4, 6))
        r2 = jnp.max(v, axis=(0, 2, 5, 7))
        b = v + v.mean(axis=(1, 3, 5), keepdims=True)
        rev = lax.rev(v, (0, 3, 6))[:, 1:, ..., ::2]
        return r1, r2, b.transpose(7, 6, 5, 4, 3, 2, 1, 0), rev, \
            jnp.argmax(t.reshape(t.shape[0], -1), axis=1)
    return prog(x), prog(y)


def _variadic_reduce_argmax(x, i):
    # lax.reduce over (value, index) pairs with a comparator of one's own
    # (first maximum, NaN wins), against jnp.argmax/argmin with keepdims,
    # and lax.argmax with narrow index types.
    def cmp(a, b):
        av, ai = a
        bv, bi = b
        pick_a = (av > bv) | jnp.isnan(av) | ((av == bv) & (ai < bi))
        return jnp.where(pick_a, av, bv), jnp.where(pick_a, ai, bi)
    idx = lax.broadcasted_iota(jnp.int32, x.shape, 1)
    v, a = lax.reduce((x, idx), (jnp.float32(-jnp.inf), jnp.int32(0)), cmp,
                      (1,))
    vi, ai = lax.reduce((i, idx), (jnp.int32(-2**31), jnp.int32(0)),
                        lambda p, q: (jnp.maximum(p[0], q[0]),
                                      jnp.where(p[0] >= q[0], p[1], q[1])),
                        (1,))
    return (v, a, vi, ai, jnp.argmax(x, 1, keepdims=True),
            jnp.argmin(x, 0, keepdims=True),
            lax.argmax(x, 1, jnp.int8), lax.argmin(i, 0, jnp.uint8),
            jnp.nanargmax(x, 1), jnp.argmax(i, axis=None))


def _argmax_inputs(r):
    x = np.round(floats(r, (6, 9)) * 2) / 2
    x[1, 3] = np.nan
    x[4] = 1.0
    return [x.astype(np.float32), ints(r, (6, 9), -3, 3)]


def _variadic_reduce_window_argmax(x):
    # reduce_window over a (value, index) pair: a windowed argmax with
    # stride and padding as max-pooling-with-indices is written.
    idx = lax.broadcasted_iota(jnp.int32, x.shape, 1) * x.shape[2] + \
        lax.broadcasted_iota(jnp.int32, x.shape, 2)

    def comp(a, b):
        av, ai = a
        bv, bi = b
        pick = (av > bv) | ((av == bv) & (ai < bi))
        return jnp.where(pick, av, bv), jnp.where(pick, ai, bi)
    vals, inds = lax.reduce_window(
        (x, idx), (jnp.float32(-jnp.inf), jnp.int32(-1)), comp,
        window_dimensions=(1, 3, 3), window_strides=(1, 2, 2),
        padding=((0, 0), (1, 1), (1, 1)))
    v2, i2 = lax.reduce_window(
        (x, idx), (jnp.float32(-jnp.inf), jnp.int32(-1)), comp,
        window_dimensions=(1, 2, 2), window_strides=(1, 2, 2),
        padding="VALID")
    return vals, inds, v2, i2


def variadic_reductions(x, i, w):
    return _variadic_reduce_argmax(x, i), _variadic_reduce_window_argmax(w)


# --- element types: promotion, sub-byte and MX types, constants --------

def dtype_promotion_corners(i8, u8, f16, i32, bf16, u32, b):
    # JAX's promotion lattice where numpy's differs: s8 with u8 is s16,
    # f16 with s32 stays f16 (65504 + 100 overflows to inf), bf16 with f16
    # is f32, u32 with s32 is s64, bool with ints; weak Python scalars keep
    # the array's type (uint8 200 + 100 wraps); reductions' default types.
    return (i8 + u8, i8 * u8, u8 - i8, i8 // jnp.maximum(u8, 1), f16 + i32,
            f16 * 3, f16 + 65504, i32 * 2.5, bf16 + f16, u32 + i32,
            u32 * 3, u8 + 100, u8 * 2, i8 - 1, b + b, b * i8, b + f16,
            jnp.true_divide(i8, jnp.maximum(u8, 1)), i8 ** 2,
            jnp.sum(u8), jnp.sum(i8), jnp.mean(i8), jnp.cumsum(i8),
            jnp.prod(i8[:4]), jnp.abs(i8), -i8, jnp.square(u8),
            i8.astype(jnp.uint8), u8.astype(jnp.int8), f16.astype(jnp.int8),
            bf16.astype(jnp.uint8), jnp.maximum(i8, u8), jnp.where(b, i8, u8),
            jnp.where(b, f16, 1), jnp.where(b, bf16, f16),
            jnp.float16(1) + jnp.int32(70000), jnp.uint8(255) + jnp.int8(1),
            lax.add(f16, jnp.float16(2)), jnp.array(3) + f16,
            jnp.clip(u8, -5, 300), jnp.floor_divide(i32, -3.0))


def _promotion_inputs(r):
    return [np.array([-128, -1, 0, 1, 127, -7, 100, -100], np.int8),
            np.array([0, 255, 128, 1, 200, 3, 7, 9], np.uint8),
            np.array([65504, -1.5, 0.1, 2048, -65504, 3.0, 1e-4, 7.5],
                     np.float16),
            np.array([100, -2**31, 2**31 - 1, 7, -3, 0, 65536, 5], np.int32),
            floats(r, (8,)).astype(jnp.bfloat16) * 100,
            np.array([0, 2**32 - 1, 2**31, 7, 1, 3, 9, 2**16], np.uint32),
            np.array([True, False, True, True, False, False, True, False])]


def narrow_types_int4_fp4_e8m0(x, i8, s, w):
    # The sub-byte integers and microscaling floats as quantized weights
    # use them: conversions only (s8 -> s4/u4/s2 wrap, f32 -> s4/u4
    # saturates), comparisons and selects in range, an int4 weight
    # dequantized into a bf16 matmul; f4e2m1fn (no inf or NaN: saturates)
    # and f8e8m0fnu (powers of two) conversions, and an MX block
    # quantization with one e8m0 scale per 8 values. (Not int4 arithmetic
    # that leaves the range: XLA:CPU computes it in 8 bits without
    # wrapping, int4(7) + int4(5) is 12; nor the f6 types, which XLA:CPU
    # cannot compile.)
    i4 = i8.astype(jnp.int4)
    u4 = i8.astype(jnp.uint4)
    i2 = i8.astype(jnp.int2)
    out = [i4.astype(jnp.int8), u4.astype(jnp.int8), i2.astype(jnp.int8),
           i4.astype(jnp.float32), u4.astype(jnp.bfloat16),
           x.astype(jnp.int4).astype(jnp.int8),
           x.astype(jnp.uint4).astype(jnp.int32),
           jnp.maximum(i4, jnp.int4(-3)).astype(jnp.int8), i4 < jnp.int4(2),
           jnp.where(u4 > jnp.uint4(9), u4, jnp.uint4(1)).astype(jnp.uint8),
           jnp.sort(i4).astype(jnp.int8), (i4 >> 1).astype(jnp.int8),
           jnp.sum(i4.astype(jnp.int32))]
    wq = w.astype(jnp.int4)
    out.append(s.astype(jnp.bfloat16) @ (wq.astype(jnp.bfloat16) * 0.125))
    for t in (jnp.float4_e2m1fn, jnp.float8_e8m0fnu):
        out.append(x.astype(t).astype(jnp.float32))
        out.append(x.astype(jnp.bfloat16).astype(t).astype(jnp.float32))
    blocks = s.reshape(-1, 8)
    amax = jnp.max(jnp.abs(blocks), -1, keepdims=True)
    scale = jnp.exp2(jnp.floor(jnp.log2(amax)) - 2).astype(
        jnp.float8_e8m0fnu)
    q = (blocks / scale.astype(jnp.float32)).astype(jnp.float4_e2m1fn)
    deq = q.astype(jnp.float32) * scale.astype(jnp.float32)
    return out, scale.astype(jnp.float32), deq


def _narrow_inputs(r):
    x = np.array([0.1, 0.25, 0.3, 0.75, 1.25, 1.5, 2.5, 3.5, 5.0, 5.9, 6.1,
                  100.0, -3.2, -0.0, 0.0, 3.0, -7.5, 1e30, 7.0, 8.0, -9.0,
                  0.0625, 28.0, 30.0], np.float32)
    return [x, ints(r, (24,), -128, 128, np.int8),
            floats(r, (4, 8)) * np.array([[1.0], [10.0], [0.01], [300.0]],
                                         np.float32),
            ints(r, (8, 5), -8, 8, np.int8)]


_CONST_RNG = np.random.default_rng(7)
_CONSTANTS = {
    "f32": np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 3.4e38,
                     -1.5, 1 / 3], np.float32),
    "f16": np.array([0.0, -0.0, np.inf, np.nan, 6e-8, 65504, -2.5, 1 / 3,
                     1e-5], np.float16),
    "bf16": np.array([0.0, -0.0, np.inf, np.nan, 1e-40, 3e38, -2.5, 1 / 3,
                      7.0], jnp.bfloat16),
    "f64": np.array([1e-310, -0.0, np.inf, np.nan, 1e308, 0.1, -1 / 3, 2.0,
                     5e-324]),
    "s8": np.array([-128, 127, 0, -1, 1, 5, -7, 100, 3], np.int8),
    "u8": np.array([0, 255, 128, 1, 7, 200, 3, 4, 5], np.uint8),
    "s16": np.array([-32768, 32767, 0, -1, 1, 300, -7, 9, 3], np.int16),
    "u16": np.array([0, 65535, 32768, 1, 7, 200, 3, 4, 5], np.uint16),
    "s64": np.array([-2**63, 2**63 - 1, 0, -1, 2**40, 5, -7, 9, 3],
                    np.int64),
    "u64": np.array([0, 2**64 - 1, 2**63, 1, 2**40, 5, 7, 9, 3], np.uint64),
    "pred": np.array([True, False, True, True, False, False, True, False,
                      True]),
    "c64": (np.arange(9) * (0.5 - 1.5j)).astype(np.complex64),
    "c128": (np.arange(9) * (1e-300 + 2j)).astype(np.complex128),
    "f8": np.array([0.5, -448, 1.0, 0.0, -0.0, 2.0, 3.0, 0.125, 240],
                   jnp.float8_e4m3fn),
    "table": _CONST_RNG.standard_normal((200, 210)).astype(np.float32),
}


def _captured_constants(x, y, unused):
    # NumPy arrays captured by the function become literals of every type
    # in the module's proto (f16/bf16/s8/u16/pred/complex/f8 fields, NaN,
    # -0, denormals, a 42000-value table past the split); outputs that are
    # the same array twice, a parameter unchanged, constants, broadcasts and
    # a reshape of a parameter; an unused parameter.
    c = _CONSTANTS
    out = [x, x, y, x + 1.0, x.T, x.reshape(-1), jnp.zeros(3), jnp.float32(5),
           jnp.full((2, 3), 7, jnp.int8), (x, (y, x))]
    for name, v in c.items():
        if name == "table":
            continue
        out.append(v)
        out.append(jnp.asarray(v)[::-1])
    out += [c["f32"] + x[0, 0], c["f16"] * 2, c["bf16"] + 1,
            c["s8"] + c["u8"], c["u64"] // 3, c["s64"] >> 1,
            c["c64"] * x[0, 0], c["f8"].astype(jnp.float32) * x[0, 1],
            c["table"] @ y, c["table"] * x[0, 0]]
    return out


def _buffer_aliasing_hazards(x, idx, m):
    # Values that share a buffer while one of them is updated in place: a
    # loop carry holding the same array three times (one slot updated by
    # dynamic-update-slice each step, another scatter-added, the third
    # read), a scan whose ys are its carry before an in-place update, a
    # parameter returned both unchanged and updated, a cond whose branches
    # return the operand itself or an update of it, and a while loop whose
    # carry swaps two slots every step.
    n = x.shape[0]

    def body(i, c):
        a, b, r = c
        a = lax.dynamic_update_slice(a, (a[i] * 2.0 + b[i] + r[i])[None], (i,))
        b = b.at[(i + 1) % n].add(1.0)
        return a, b, r
    loop = lax.fori_loop(0, n, body, (x, x, x))

    def step(c, i):
        return c.at[i].multiply(-3.0), c
    scanned = lax.scan(step, x, idx)
    updated = x.at[idx[0]].set(100.0)
    branch = lax.cond(m.sum() > 0, lambda v: v, lambda v: v.at[0].set(-1.0), m)
    swapped = lax.fori_loop(0, 5, lambda i, c: (c[1] * 2.0, c[0] + 1.0),
                            (x, x))
    return loop, scanned, x, updated, branch, m, swapped


def constants_and_aliasing(x, y, unused, xa, idx, m):
    return (_captured_constants(x, y, unused),
            _buffer_aliasing_hazards(xa, idx, m))


def bf16_complex_denormal_inputs(b, z, f):
    # Denormal bf16 inputs and complex inputs with a denormal part, read as
    # zeros as XLA's runtimes read them once widened to f32 (log of a bf16
    # 1e-40 is -inf, as is log|z| of -1e-40 + 0j); f32 beside them. (Not
    # the f32 log of a denormal: XLA:CPU's is -inf in its 8-wide loop body
    # and -103.97 in some remainders, libm's logf.)
    return (jnp.log(b), jnp.sqrt(b), lax.rsqrt(b), b * 1e30, jnp.exp(b),
            jnp.log(z), jnp.sqrt(z), jnp.abs(z), z * 1e30, jnp.exp(z),
            jnp.sqrt(f), f * 1e30, jnp.log(b.astype(jnp.float32)))


# --- complex64 and FFTs ------------------------------------------------

def complex64_end_to_end(z, w, big, re):
    # complex64 programs' edge values: sqrt and log of negative reals on
    # either side of the branch cut (signed zero imaginary parts), abs of
    # huge and tiny components (no overflow or underflow), angle, exp of a
    # large imaginary part, expm1 past exp's range (both parts infinite),
    # reciprocal, sign, complex matmul and einsum,
    # the gradient of a real loss of complex parameters, and a holomorphic
    # gradient.
    neg = lax.complex(re, jnp.zeros_like(re))
    negm = lax.complex(re, -jnp.zeros_like(re))
    return (jnp.sqrt(neg), jnp.sqrt(negm), jnp.log(neg), jnp.log(negm),
            jnp.abs(big), jnp.abs(big * 1e-30), jnp.angle(big),
            jnp.angle(neg), jnp.angle(negm), jnp.exp(z * 1j * 50.0),
            1.0 / z, jnp.sign(z), z ** 2.5, z ** 3, jnp.log10(z),
            jnp.sqrt(z * z), z @ w, jnp.einsum("ij,kj->ik", z, jnp.conj(w.T)),
            jnp.conj(z).T @ z, jnp.real(z @ jnp.conj(z.T)),
            jax.grad(lambda a: jnp.sum(jnp.abs(a @ w) ** 2))(z),
            jax.grad(lambda a: jnp.sum(a ** 3 + jnp.sin(a)).real)(z),
            jax.grad(lambda a: jnp.sum(a ** 3), holomorphic=True)(z),
            jnp.expm1(z * 1e-4), jnp.expm1(z + 88.5), jnp.log1p(z * 1e-4),
            jnp.arctan(z * 0.5), jnp.arcsinh(z), jnp.cosh(z))


def _complex_inputs(r):
    big = np.array([1e30 + 1e30j, -3e38 + 1j, 1e-30 - 2e-30j, 0j,
                    -1e20 - 1e20j, 3 - 4j], np.complex64)
    re = np.array([-4.0, -1.0, -0.25, 0.0, 2.0, -1e-20], np.float32)
    return [complexes(r, (4, 4)), complexes(r, (4, 3)), big, re]


def _fft_norms_lengths(x, z):
    # Every transform with each norm and an n/s that truncates or pads
    # (odd and even), over chosen axes; irfft's n picks the output length
    # and so whether the Nyquist term is used.
    out = []
    for norm in (None, "ortho", "forward"):
        out += [jnp.fft.fft(z, n=6, norm=norm), jnp.fft.fft(z, n=16,
                                                             norm=norm),
                jnp.fft.ifft(z, n=7, axis=0, norm=norm),
                jnp.fft.rfft(x, n=9, norm=norm),
                jnp.fft.rfft(x, n=20, axis=0, norm=norm),
                jnp.fft.irfft(z, n=11, norm=norm),
                jnp.fft.irfft(z, n=4, norm=norm),
                jnp.fft.fft2(z, s=(2, 12), norm=norm),
                jnp.fft.ifft2(z, s=(5, 5), norm=norm),
                jnp.fft.fftn(x[None].astype(jnp.complex64), axes=(0, 2),
                             norm=norm),
                jnp.fft.ifftn(z, s=(4, 8), axes=(1, 0), norm=norm),
                jnp.fft.rfftn(x, s=(3, 10), norm=norm),
                jnp.fft.irfftn(z, s=(3, 10), norm=norm),
                jnp.fft.hfft(z[0], n=9, norm=norm),
                jnp.fft.ihfft(x[0], n=7, norm=norm)]
    out += [jnp.fft.fftfreq(9, 0.1), jnp.fft.rfftfreq(10, 0.5),
            jnp.fft.ifftshift(jnp.fft.fftshift(z, axes=1)),
            jnp.fft.rfft(x.astype(jnp.float64), n=13),
            jnp.fft.ifft(z.astype(jnp.complex128), n=5, norm="ortho")]
    return out


def _fft_inputs(r):
    return [floats(r, (4, 12)), complexes(r, (3, 10))]


def _fft_spectral_grad(x, k, z):
    # Circular convolution through rfft/irfft with the ortho norm and its
    # gradient, a spectral low-pass through fft/ifft of a complex signal,
    # and the gradient of a power spectrum.
    def conv(x, k):
        n = x.shape[-1]
        return jnp.fft.irfft(jnp.fft.rfft(x, norm="ortho")
                             * jnp.fft.rfft(k, n=n), n=n, norm="ortho")

    def lowpass(z):
        f = jnp.fft.fft(z, axis=-1)
        keep = jnp.abs(jnp.fft.fftfreq(z.shape[-1])) < 0.25
        return jnp.fft.ifft(f * keep, axis=-1)

    def power(x):
        return jnp.sum(jnp.abs(jnp.fft.rfft2(x, norm="forward")) ** 2
                       * jnp.arange(x.shape[-1] // 2 + 1))
    return (conv(x, k), jax.grad(lambda x, k: jnp.sum(conv(x, k) ** 2),
                                 (0, 1))(x, k),
            lowpass(z), jax.grad(lambda z: jnp.sum(jnp.abs(lowpass(z))
                                                   ** 2))(z),
            jax.grad(power)(x))


def _fft_tiny_sizes(x1, z1, x2, z0):
    # Transforms of length 1 and 2 and along size-1 axes, rfft of length 1,
    # irfft to n=1 and n=2, fft2 over 1 x N, and zero-padding a length-1
    # signal.
    return (jnp.fft.fft(z1), jnp.fft.ifft(z1), jnp.fft.rfft(x1),
            jnp.fft.irfft(z1, n=1), jnp.fft.irfft(z1, n=2),
            jnp.fft.fft(x2), jnp.fft.rfft(x2), jnp.fft.irfft(x2.astype(
                jnp.complex64)), jnp.fft.fft(z0, axis=0), jnp.fft.fft2(z0),
            jnp.fft.rfftn(x2[None, None]), jnp.fft.fft(z1, n=4),
            jnp.fft.fft(z1, n=1, norm="ortho"), jnp.fft.ihfft(x1),
            jnp.fft.hfft(z1, n=1))


def fft_norms_lengths_grads(x, z, xs, k, zs, x1, z1, x2, z0):
    return (_fft_norms_lengths(x, z), _fft_spectral_grad(xs, k, zs),
            _fft_tiny_sizes(x1, z1, x2, z0))


# --- linear algebra: what is unique, compared --------------------------

def linalg_spectral_sign_free(a, s, b, y, h, g):
    # Decompositions whose factors are unique only up to signs or phases,
    # compared by what is unique: reconstructions, projectors, eigen- and
    # singular values; eigh reading one triangle only; lstsq and pinv of a
    # full-rank tall matrix; a Hermitian (complex) eigh; eig of a real
    # non-symmetric matrix through its sorted eigenvalues and |A v - v w|;
    # sqrtm (Schur); gradients through eigvalsh and singular values, and
    # polar by SVD.
    spd = s @ s.T + 4 * jnp.eye(s.shape[0], dtype=s.dtype)
    w, v = jnp.linalg.eigh(spd)
    wu, vu = jnp.linalg.eigh(spd + jnp.triu(a, 1), UPLO="U",
                             symmetrize_input=False)
    u, sv, vt = jnp.linalg.svd(b, full_matrices=False)
    uf, svf, vtf = jnp.linalg.svd(b, full_matrices=True)
    sol, res, rank, sing = jnp.linalg.lstsq(b, y)
    hh = h @ jnp.conj(h.T) + 3 * jnp.eye(h.shape[0], dtype=h.dtype)
    wh, vh = jnp.linalg.eigh(hh)
    we, ve = jnp.linalg.eig(g)
    return (w, (v * w) @ v.T, jnp.abs(v @ v.T), wu, (vu * wu) @ vu.T,
            jnp.linalg.eigvalsh(spd), (u * sv) @ vt, sv, svf,
            uf @ uf.T, vtf.T @ vtf, u @ u.T,
            sol, res, rank, sing, jnp.linalg.pinv(b) @ y,
            wh, (vh * wh) @ jnp.conj(vh.T),
            jnp.sort_complex(we), jnp.abs(g.astype(ve.dtype) @ ve - ve * we),
            jnp.sort_complex(jnp.linalg.eigvals(g)),
            jsp.linalg.sqrtm(spd),
            jax.grad(lambda m: jnp.sum(jnp.linalg.eigvalsh(
                m @ m.T + jnp.eye(4)) ** 2))(s),
            jsp.linalg.polar(a, method="svd")[1],
            jax.grad(lambda m: jnp.sum(jnp.linalg.svd(
                m, compute_uv=False) ** 3))(a))


def _spectral_inputs(r):
    a = floats(r, (4, 4)) + 4 * np.eye(4, dtype=np.float32)
    g = np.diag(np.array([1.0, 3.0, -2.0, 5.0], np.float32)) + 0.3 * floats(
        r, (4, 4))
    g[0, 1], g[1, 0] = 2.0, -2.0  # a complex pair
    return [a, floats(r, (4, 4)), floats(r, (6, 4)) + np.eye(6, 4,
                                                              dtype=np.float32)
            * 3, floats(r, (6, 2)), complexes(r, (3, 3)), g]


def linalg_reconstructions(a, b, zc, bc):
    # QR in every mode compared through Q R, Q^T Q and |R| (R's rows are
    # unique up to sign), condition numbers and ranks from singular
    # values alone, and complex64 solve, inv, det, slogdet, cholesky and
    # QR.
    q, r = jnp.linalg.qr(b)
    qc, rc = jnp.linalg.qr(b, mode="complete")
    hpd = zc @ jnp.conj(zc.T) + 3 * jnp.eye(3, dtype=zc.dtype)
    qz, rz = jnp.linalg.qr(zc)
    return (q @ r, jnp.abs(r), q @ q.T, qc @ rc, qc.T @ qc,
            jnp.abs(jnp.linalg.qr(b, mode="r")), jnp.linalg.cond(a),
            jnp.linalg.matrix_rank(b), jnp.linalg.matrix_rank(b[:, :1] *
                                                              b[0]),
            jnp.linalg.svd(b, compute_uv=False),
            jnp.linalg.solve(zc, bc), jnp.linalg.inv(zc), jnp.linalg.det(zc),
            jnp.linalg.slogdet(zc), jnp.linalg.cholesky(hpd), qz @ rz,
            jnp.abs(jnp.conj(qz.T) @ qz))


def _linalg_inputs(r):
    return [floats(r, (4, 4)) + 4 * np.eye(4, dtype=np.float32),
            floats(r, (6, 4)) + np.eye(6, 4, dtype=np.float32) * 3,
            complexes(r, (3, 3)) + 2 * np.eye(3, dtype=np.complex64),
            complexes(r, (3, 2))]


def linalg_solvers_batched(a, b, s, m, t):
    # Batched solvers and the scipy wrappers: solve/inv/det/slogdet over a
    # batch (one negative determinant), cholesky, cho_solve, lu_factor and
    # lu_solve (every trans), solve_triangular (trans, unit_diagonal),
    # matrix_power with a negative exponent, multi_dot, tensorsolve, expm,
    # and eigh_tridiagonal (bisection, no LAPACK).
    spd = s @ jnp.swapaxes(s, -1, -2) + 3 * jnp.eye(s.shape[-1])
    c = jnp.linalg.cholesky(spd)
    cf = jsp.linalg.cho_factor(spd[0], lower=True)
    lu = jsp.linalg.lu_factor(a[0])
    sign, logdet = jnp.linalg.slogdet(a)
    p, l, u = jsp.linalg.lu(a[1])
    return (jnp.linalg.solve(a, b), jnp.linalg.inv(a), jnp.linalg.det(a),
            sign, logdet, c, jnp.linalg.cholesky(spd, upper=True),
            jsp.linalg.cho_solve(cf, b[0]),
            [jsp.linalg.lu_solve(lu, b[0], trans=k) for k in (0, 1, 2)],
            p @ l @ u, l, u,
            jsp.linalg.solve_triangular(c[0], b[0], lower=True, trans=1),
            jsp.linalg.solve_triangular(c[1], b[1], lower=True,
                                        unit_diagonal=True),
            jsp.linalg.solve_triangular(jnp.swapaxes(c, -1, -2), b,
                                        lower=False),
            jnp.linalg.matrix_power(a[0], -2),
            jnp.linalg.multi_dot([a[0], a[1], b[0], b[1].T]),
            jnp.linalg.tensorsolve(m, b[0].reshape(-1)[:6]),
            jsp.linalg.expm(a[0] * 0.3),
            jsp.linalg.eigh_tridiagonal(t[0], t[1, :-1], eigvals_only=True))


def _solver_inputs(r):
    a = floats(r, (3, 3, 3)) + 3 * np.eye(3, dtype=np.float32)
    a[2] = a[2][[1, 0, 2]]  # an odd permutation: det < 0
    m = floats(r, (6, 6)) + 4 * np.eye(6, dtype=np.float32)
    return [a, floats(r, (3, 3, 2)), floats(r, (3, 3, 3)),
            m.reshape(6, 2, 3), np.stack([np.arange(5.0) * 2,
                                          [1, 0.5, 0.3, 0.2, 0]]).astype(
                                              np.float32)]


def linalg_gradients(a, s, b):
    # Gradients through the factorizations: det, slogdet, inv, solve,
    # cholesky, QR's R (|R| sign-free), and polar by QDWH's while loop of
    # QR and Cholesky steps.
    spd = s @ s.T + 3 * jnp.eye(3, dtype=s.dtype)
    return (jax.grad(lambda m: jnp.linalg.det(m))(a),
            jax.grad(lambda m: jnp.linalg.slogdet(m)[1])(a),
            jax.grad(lambda m: jnp.trace(jnp.linalg.inv(m) @ m.T))(a),
            jax.grad(lambda m, v: jnp.sum(jnp.linalg.solve(m, v) ** 2),
                     (0, 1))(a, b),
            jax.grad(lambda m: jnp.sum(jnp.linalg.cholesky(
                m @ m.T + 3 * jnp.eye(3)) * jnp.arange(9.0).reshape(3, 3)))(s),
            jax.grad(lambda m: jnp.sum(jnp.abs(jnp.linalg.qr(m)[1])))(a),
            jsp.linalg.polar(a, method="qdwh")[1], spd)


def _linalg_grad_inputs(r):
    return [floats(r, (3, 3)) + 3 * np.eye(3, dtype=np.float32),
            floats(r, (3, 3)), floats(r, (3, 2))]


# --- jax.scipy and lax beyond what earlier hunts called ----------------

def special_functions_iterative(x, a, b, n, z):
    # jax.scipy.special functions JAX writes as series, continued fractions
    # and while loops: the incomplete gamma and beta functions, hyp1f1,
    # Owen's T, sici, fresnel, dawsn, erfcx, bessel_jn, polygamma, poch,
    # loggamma/gammasgn of negatives, i0/i1, boxcox, factorial/comb, wofz
    # on complex64.
    sp = jsp.special
    return (sp.gammainc(a, x), sp.gammaincc(a, x), sp.betainc(a, b, x / 8.0),
            sp.hyp1f1(a, b, x * 0.5),
            sp.owens_t(x - 2.0, a), sp.sici(x * 3.0), sp.fresnel(x - 2.0),
            sp.dawsn(x * 2.0 - 4.0), sp.erfcx(x * 3.0 - 2.0),
            sp.bessel_jn(x * 2.0, v=3), sp.polygamma(n, a), sp.poch(a, b),
            sp.loggamma(-a - 0.5), sp.gammasgn(-a - 0.5), sp.i0(x), sp.i1(x),
            sp.boxcox(a, x - 2.0), sp.boxcox1p(x, b - 1.0),
            sp.factorial(n.astype(jnp.float32)), sp.comb(n + 5.0, n),
            sp.wofz(z),
            sp.multigammaln(a + 2.0, 3), sp.ndtri(x / 9.0),
            jax.grad(lambda v: jnp.sum(sp.gammainc(a, v)))(x + 0.1))


def _special_inputs(r):
    x = np.linspace(0.05, 7.5, 12).astype(np.float32)
    return [x, r.uniform(0.3, 4.0, 12).astype(np.float32),
            r.uniform(0.5, 3.0, 12).astype(np.float32),
            ints(r, (12,), 0, 4), complexes(r, (12,)) * 2]


def scipy_signal_spectral(x, y, im):
    # jax.scipy.signal's FFT-based tools (stft with its windows, an istft
    # round trip, welch and csd, fftconvolve in every mode and along axes,
    # constant detrend (the linear one is an SVD)) and jax.scipy.fft's
    # dct/idct (type 2, the one JAX has; each norm, n= padding and
    # truncation), dctn/idctn.
    sig = jsp.signal
    f, t, zxx = sig.stft(x, nperseg=16, noverlap=8)
    _, xr = sig.istft(zxx, nperseg=16, noverlap=8)
    _, z2 = sig.stft(x, window="hamming", nperseg=12, noverlap=6,
                     boundary=None, padded=False)[1:]
    fw, pw = sig.welch(x, nperseg=16)
    fc, pc = sig.csd(x, y, nperseg=16, detrend="constant")
    out = [f, t, zxx, xr[..., :x.shape[-1]], z2, fw, pw, fc, pc,
           sig.detrend(x, type="constant"), sig.detrend(x.T, 0, "constant")]
    for mode in ("full", "same", "valid"):
        out += [sig.fftconvolve(x, y[..., :9], mode=mode),
                sig.fftconvolve(im, im[:3, :4], mode=mode),
                sig.fftconvolve(x, y, mode=mode, axes=1)]
    fft = jsp.fft
    out += [fft.dct(x, norm="ortho"), fft.idct(fft.dct(x)),
            fft.idct(fft.dct(x, norm="ortho"), norm="ortho"),
            fft.dct(x, n=20), fft.dct(x, n=11, axis=-1), fft.dct(x, axis=0),
fft.dctn(im, norm="ortho"), fft.idctn(fft.dctn(im), axes=(0,)),
            sig.convolve(x[0], y[0, :7], method="fft"),
            sig.correlate(x[0], y[0, :7], mode="same", method="fft")]
    return out


def _rotations(q, e, v, m):
    # jax.scipy.spatial.transform.Rotation: from quaternions (normalized,
    # sign-canonical), Euler angles (intrinsic in, extrinsic out),
    # rotation vectors, matrices and MRPs, composition,
    # inverse, apply, magnitude, and Slerp between key rotations (not
    # mean: an eigh, see linalg_spectral_sign_free).
    from jax.scipy.spatial.transform import Rotation, Slerp
    r = Rotation.from_quat(q)
    out = [r.as_matrix(), r.as_rotvec(), r.as_mrp(), r.magnitude(),
           r.apply(v), r.inv().apply(v), (r * r.inv()).magnitude(),
           Rotation.from_euler("ZYX", e, degrees=True).as_quat(
               canonical=True),
           Rotation.from_rotvec(e).as_euler("xyz"),
           Rotation.from_matrix(m).as_quat(canonical=True),
           Rotation.from_mrp(e * 0.3).as_matrix()]
    key = Rotation.from_quat(q[:3])
    slerp = Slerp.init(jnp.array([0.0, 1.0, 3.0]), key)
    out.append(slerp(jnp.array([0.0, 0.25, 0.5, 2.0, 3.0])).as_matrix())
    return out


def _rotation_inputs(r):
    q = floats(r, (5, 4))
    # Rotation matrices by Gram-Schmidt-free construction: a rotation by
    # known angles, so from_matrix sees proper orthogonal input.
    ang = r.uniform(-1.0, 1.0, (3, 3))
    ms = []
    for a, b, c in ang:
        rz = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0],
                       [0, 0, 1]])
        ry = np.array([[np.cos(b), 0, np.sin(b)], [0, 1, 0],
                       [-np.sin(b), 0, np.cos(b)]])
        rx = np.array([[1, 0, 0], [0, np.cos(c), -np.sin(c)],
                       [0, np.sin(c), np.cos(c)]])
        ms.append(rz @ ry @ rx)
    return [q, r.uniform(-1.2, 1.2, (5, 3)).astype(np.float32),
            floats(r, (5, 3)), np.array(ms, np.float32)]


def _regular_grid_interpolation(v, pts, xs, ys):
    # jax.scipy.interpolate.RegularGridInterpolator (linear and nearest,
    # points out of range filled or extrapolated) on a non-uniform grid.
    from jax.scipy.interpolate import RegularGridInterpolator as RGI
    grid = (xs, ys)
    return (RGI(grid, v)(pts), RGI(grid, v, method="nearest")(pts),
            RGI(grid, v, bounds_error=False, fill_value=None)(pts * 1.5),
            RGI(grid, v, bounds_error=False, fill_value=-7.0)(pts * 1.5),
            jax.grad(lambda w: RGI(grid, w)(pts).sum())(v))


def scipy_spatial_interpolate(q, e, v, m, g, pts, gx, gy):
    return _rotations(q, e, v, m), _regular_grid_interpolation(g, pts, gx, gy)


def bfgs_minimize_f64(x0, a, b):
    # jax.scipy.optimize.minimize (BFGS: a while loop around a zoom line
    # search) on a convex f64 problem with a unique minimum; the minimizer
    # and the value there (iteration counts are not compared).
    def f(x):
        r = a @ x - b
        return jnp.sum(r * r) + 0.1 * jnp.sum(jnp.log(jnp.cosh(x)))
    res = jsp.optimize.minimize(f, x0, method="BFGS", tol=1e-10)
    return res.x, res.fun, res.success


def _composite_barrier_named(x, y):
    # lax.composite (a call with a name and attributes), jax.named_call,
    # named_scope, optimization_barrier between two uses, and
    # lax.platform_dependent (a conditional on the platform index).
    @functools.partial(lax.composite, name="my.gelu")
    def gelu(v, approximate=True):
        return jax.nn.gelu(v, approximate=approximate)

    @jax.named_call
    def block(v):
        with jax.named_scope("inner"):
            return jnp.tanh(v @ y) + v.sum()
    a, b = lax.optimization_barrier((x * 2.0, gelu(x)))
    pd = lax.platform_dependent(x, cpu=lambda v: v * 3.0,
                                default=lambda v: v - 1.0)
    return (a + b, block(x), pd, gelu(x, approximate=False),
            jax.grad(lambda v: jnp.sum(v * block(v)))(x))


def _ufunc_methods(x, i, idx):
    # jnp ufunc methods: reduce over several axes, accumulate,
    # at (unbuffered, duplicate indices), outer, reduceat, and a
    # frompyfunc ufunc.
    clipadd = jnp.frompyfunc(lambda a, b: jnp.clip(a + b, -2.0, 2.0), 2, 1,
                             identity=0.0)
    return (jnp.add.reduce(x, axis=(0, 2)),
            jnp.multiply.reduce(x[0] * 0.5 + 1),
            jnp.maximum.reduce(i, axis=1), jnp.minimum.accumulate(x, axis=2),
            jnp.add.accumulate(i, axis=0), jnp.multiply.accumulate(x[1, 0]),
            jnp.add.at(x[0, 0], idx, 1.0, inplace=False),
            jnp.maximum.at(i[0], idx % 5, 7, inplace=False),
            jnp.subtract.outer(x[0, 0], x[1, 1]), jnp.bitwise_xor.outer(
                i[0], i[1]),
            jnp.add.reduceat(x[0, 0], jnp.array([0, 2, 2, 5])),
            jnp.maximum.reduceat(i[1], jnp.array([1, 3, 0])),
            clipadd.reduce(x[1, 0]), clipadd.accumulate(x[0, 1]),
            clipadd.outer(x[0, 0, :3], x[1, 0, :3]),
            jnp.logical_and.reduce(i > -3, axis=0),
            jnp.bitwise_or.reduce(i, axis=1))


def composite_ufunc_named(x, y, u, i, idx):
    return _composite_barrier_named(x, y), _ufunc_methods(u, i, idx)


def lax_windows_partly_out(x, idx, upd):
    # lax.gather and lax.scatter with windows wider than one element whose
    # start indices put the window partly out of bounds: gather clamps the
    # start (the window stays whole), scatter skips such a window entirely
    # (FILL_OR_DROP) or clamps it (CLIP), and JAX's gather fill mode fills
    # a partly out-of-bounds window.
    dn = lax.GatherDimensionNumbers(offset_dims=(1, 2),
                                    collapsed_slice_dims=(),
                                    start_index_map=(0, 1))
    out = []
    for mode in (lax.GatherScatterMode.CLIP,
                 lax.GatherScatterMode.FILL_OR_DROP,
                 lax.GatherScatterMode.PROMISE_IN_BOUNDS):
        safe = idx if mode != lax.GatherScatterMode.PROMISE_IN_BOUNDS else \
            jnp.clip(idx, 0, 3)
        out.append(lax.gather(x, safe, dn, slice_sizes=(3, 2), mode=mode,
                              fill_value=-1.0))
    sdn = lax.ScatterDimensionNumbers(update_window_dims=(1, 2),
                                      inserted_window_dims=(),
                                      scatter_dims_to_operand_dims=(0, 1))
    for mode in (lax.GatherScatterMode.CLIP,
                 lax.GatherScatterMode.FILL_OR_DROP):
        out += [lax.scatter_add(x, idx, upd, sdn, mode=mode),
                lax.scatter(x, idx, upd, sdn, mode=mode),
                lax.scatter_max(x, idx, upd, sdn, mode=mode),
                lax.scatter_mul(x, idx, upd, sdn, mode=mode)]
    return out


def conv_negative_padding(x, w):
    # Convolutions with negative padding (cropping) on one or both sides,
    # with lhs and rhs dilation, and their gradients.
    def conv(x, w):
        a = lax.conv_general_dilated(x, w, (1, 1), ((1, -1), (0, -2)))
        b = lax.conv_general_dilated(x, w, (2, 1), ((-2, -1), (1, -1)),
                                     rhs_dilation=(1, 2))
        c = lax.conv_general_dilated(x, w, (1, 1), ((-1, 0), (-1, 2)),
                                     lhs_dilation=(2, 1))
        return a, b, c
    g = jax.grad(lambda x, w: sum(jnp.sum(jnp.sin(o)) for o in conv(x, w)),
                 (0, 1))(x, w)
    return conv(x, w), g


# --- past the CPU backend's parallel split (32768 elements) ------------

def _big_attention_grad(q, k, v):
    # 2 x 4 heads x 128 x 128 scores: the mask, softmax and both einsums
    # past the split, and the gradient.
    t = q.shape[1]
    keep = _window_mask(t, 32)

    def attn(q, k, v):
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(q.shape[-1])
        s = jnp.where(keep, s, jnp.finfo(jnp.float32).min)
        return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v)
    out = attn(q, k, v)
    g = jax.grad(lambda q, k, v: jnp.sum(attn(q, k, v) ** 2), (0, 1, 2))(
        q, k, v)
    return out, g


def _big_kv_cache_decode(q, k_new, v_new, cache_k, cache_v):
    # A decode loop writing one position per step into a [2, 160, 4, 64]
    # cache with dynamic_update_slice inside a scan, attending over the
    # filled prefix with a length mask.
    t0 = 100

    def step(carry, inp):
        ck, cv, t = carry
        qt, kt, vt = inp
        z = jnp.int32(0)
        ck = lax.dynamic_update_slice(ck, kt[:, None], (z, t, z, z))
        cv = lax.dynamic_update_slice(cv, vt[:, None], (z, t, z, z))
        s = jnp.einsum("bhd,bthd->bht", qt, ck) / 8.0
        s = jnp.where(jnp.arange(ck.shape[1]) <= t, s, -jnp.inf)
        o = jnp.einsum("bht,bthd->bhd", jax.nn.softmax(s, -1), cv)
        return (ck, cv, t + 1), o
    (ck, cv, t), outs = lax.scan(step, (cache_k, cache_v, jnp.int32(t0)),
                                 (q, k_new, v_new))
    return ck, cv, t, outs


def big_attention_kv_cache(q, k, v, qd, kd, vd, cache_k, cache_v):
    return (_big_attention_grad(q, k, v),
            _big_kv_cache_decode(qd, kd, vd, cache_k, cache_v))


def _big_segment_sorted(data, seg, di):
    # 60000 values into 700 sorted segments (some empty, some ids past the
    # end): max, min, prod, sum in f32 and s32.
    n = 700
    kw = {"num_segments": n, "indices_are_sorted": True}
    return (jax.ops.segment_max(data, seg, **kw),
            jax.ops.segment_min(data, seg, **kw),
            jax.ops.segment_prod(1.0 + data * 1e-3, seg, **kw),
            jax.ops.segment_sum(data, seg, **kw),
            jax.ops.segment_max(di, seg, **kw),
            jax.ops.segment_min(di, seg, n),
            jax.ops.segment_sum(di, seg, n))


def _big_segment_inputs(r):
    seg = np.sort(np.concatenate([ints(r, (59990,), 0, 690),
                                  ints(r, (10,), 700, 720)]))
    return [floats(r, (60000,)), seg.astype(np.int32),
            ints(r, (60000,), -1000, 1000)]


def _big_argmax_ties_nan(x, xi, xn):
    # argmax/argmin over 100000 values with ties (the first index must
    # win across the parallel chunks) and with NaN; along rows and
    # columns of a 200 x 500 view; a variadic reduce of (value, index).
    m = x.reshape(200, 500)
    return (jnp.argmax(x), jnp.argmin(x), jnp.argmax(xi), jnp.argmin(xi),
            jnp.argmax(xn), jnp.argmin(xn), jnp.argmax(m, 0),
            jnp.argmin(m, 1), jnp.argmax(xi.reshape(500, 200), 0),
            jnp.max(xn), jnp.min(x), jnp.nanargmax(xn), jnp.nanargmin(xn))


def _big_argmax_inputs(r):
    x = np.round(floats(r, (100000,)) * 2) / 2
    x[[17, 40000, 99999]] = 9.0  # ties for the maximum
    x[[5, 70001]] = -9.0
    xn = x.copy()
    xn[[60000, 80000]] = np.nan
    return [x.astype(np.float32), ints(r, (100000,), -50, 50),
            xn.astype(np.float32)]


def big_segments_argmax(data, seg, di, x, xi, xn):
    return _big_segment_sorted(data, seg, di), _big_argmax_ties_nan(x, xi, xn)


def _big_fft2(z, x):
    # A 192 x 192 complex64 fft2 round trip with each norm, and a 2-D
    # rfft of 200 x 210 values padded to 256 x 240 and back.
    out = []
    for norm in ("backward", "ortho", "forward"):
        f = jnp.fft.fft2(z, norm=norm)
        out += [f, jnp.fft.ifft2(f, norm=norm)]
    rf = jnp.fft.rfft2(x, s=(256, 240))
    return out, rf, jnp.fft.irfft2(rf, s=(256, 240))[:200, :210]


def _big_complex_elementwise(z, w):
    # 40000 complex64 values through abs, angle, exp, log, sqrt, division
    # and a complex reduction.
    return (jnp.abs(z), jnp.angle(z), jnp.exp(z), jnp.log(z), jnp.sqrt(z),
            z / w, (z * jnp.conj(w)).sum(), jnp.abs(z * 1e20) * 1e-20,
            jnp.sqrt(-jnp.abs(z.real).astype(jnp.complex64)))


def big_complex_fft(z, x, zc, wc):
    return _big_fft2(z, x), _big_complex_elementwise(zc, wc)


def _big_promotion_reductions(i8, u8, f16, b):
    # 50000-element mixed-type arithmetic and its reductions.
    s = i8 + u8
    return (s, jnp.sum(s), jnp.sum(i8 * u8), jnp.max(u8 - i8), f16 + i8,
            jnp.sum(f16, dtype=jnp.float32), jnp.mean(u8), b.sum(),
            jnp.sum(b * i8), jnp.cumsum(i8[:3000])[::97], jnp.prod(
                (u8 % 2 + 1).astype(jnp.int32)[:30]))


def _big_einsum_ellipsis(a, b, i8, u8):
    # Ellipsis einsums with broadcast batches past the split, and an
    # integer one.
    return (jnp.einsum("...ij,...jk->...ik", a, b),
            jnp.einsum("b...d,bd->b...", a,
                       b.reshape(-1)[:128].reshape(8, 16)),
            jnp.einsum("...ij,...ij->...", a, a),
            jnp.einsum("...ij,jk->...ik", i8, u8,
                       preferred_element_type=jnp.int32))


def big_promotion_einsum(i8, u8, f16, b, a, bb, i8e, u8e):
    return (_big_promotion_reductions(i8, u8, f16, b),
            _big_einsum_ellipsis(a, bb, i8e, u8e))


def _big_vmap_out_axes_scan(xs, w):
    # A scan vmapped over axis 1 of [T, 512, 64] with out_axes=1 and 2,
    # carrying a running max and a running sum of squares.
    def run(x):
        def step(c, v):
            m, s = c
            h = jnp.tanh(v @ w)
            return (jnp.maximum(m, h), s + h * h), h.sum()
        (m, s), hs = lax.scan(step, (jnp.full(w.shape[1], -jnp.inf),
                                     jnp.zeros(w.shape[1])), x)
        return m, s, hs
    return jax.vmap(run, in_axes=1, out_axes=(1, 0, 1))(xs)


def _big_bidir_gru(p, xs):
    # A GRU over [11, 64, 32] in both directions, reverse=True and unroll=2.
    def cell(h, x):
        r = jax.nn.sigmoid(x @ p["wr"] + h @ p["ur"])
        z = jax.nn.sigmoid(x @ p["wz"] + h @ p["uz"])
        n = jnp.tanh(x @ p["wn"] + (r * h) @ p["un"])
        h = (1 - z) * n + z * h
        return h, h
    h0 = jnp.zeros((xs.shape[1], p["ur"].shape[0]))
    hf, ys_f = lax.scan(cell, h0, xs, unroll=2)
    hb, ys_b = lax.scan(cell, h0, xs, reverse=True, unroll=2)
    return hf, hb, jnp.concatenate([ys_f, ys_b], -1).mean(0)


def _big_gru_inputs(r):
    d = h = 32
    p = {k: _w(r, d if k[0] == "w" else h, h) for k in
         ("wr", "ur", "wz", "uz", "wn", "un")}
    return [p, floats(r, (11, 64, d))]


def big_recurrent_vmap(xs, w, p, xg):
    return _big_vmap_out_axes_scan(xs, w), _big_bidir_gru(p, xg)


def big_linalg(a, s, b):
    # 192 x 192 problems: solve, inv, slogdet, cholesky, cho_solve and
    # QR's reconstruction; the elementwise work around them past the
    # split.
    spd = s @ s.T / s.shape[0] + jnp.eye(s.shape[0])
    q, r = jnp.linalg.qr(a)
    c = jnp.linalg.cholesky(spd)
    return (jnp.linalg.solve(a, b), jnp.linalg.inv(a),
            jnp.linalg.slogdet(a), c, q @ r, jnp.abs(r),
            jsp.linalg.cho_solve((c, True), b))


def _big_maxpool_grad_ties(x):
    # Max pooling over [4, 64, 64, 8] with overlapping 3x3 windows (stride
    # 2, SAME) on values with many ties, and its select-and-scatter
    # gradient; average pooling and its gradient beside it.
    def maxpool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1),
                                 (1, 2, 2, 1), "SAME")

    def avgpool(x):
        return lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1),
                                 (1, 2, 2, 1), "SAME") / 9.0
    gm = jax.grad(lambda v: jnp.sum(maxpool(v) * jnp.cos(maxpool(v))))(x)
    ga = jax.grad(lambda v: jnp.sum(avgpool(v) ** 2))(x)
    return maxpool(x), gm, ga


def _big_row_column_stats(x, y):
    # Row and column statistics of one [1024, 96] array together (layer
    # norm beside batch norm), softmax along rows and log-softmax along
    # columns, middle-axis reductions of [64, 48, 32], and scalars.
    mu0, sd0 = x.mean(0), x.std(0)
    mu1 = x.mean(1, keepdims=True)
    var1 = jnp.mean((x - mu1) ** 2, 1, keepdims=True)
    ln = (x - mu1) * lax.rsqrt(var1 + 1e-5)
    bn = (x - mu0) / (sd0 + 1e-5)
    return (ln, bn, jax.nn.softmax(x, 1), jax.nn.log_softmax(x, 0),
            x.max(0), x.min(1), y.sum(1), y.max(1), jnp.abs(y).mean((0, 2)),
            x.sum(), jnp.max(jnp.abs(x)), (x * x).sum(0))


def big_pooling_and_statistics(x, y, z):
    return _big_maxpool_grad_ties(x), _big_row_column_stats(y, z)


def big_random_samplers(raw_key, logits):
    # jax.random past the split: 100000 normals, uniforms, bernoullis,
    # truncated normals, gumbels, categorical over 4096 rows, raw bits and
    # randint from split and fold_in keys.
    key = jax.random.wrap_key_data(raw_key)
    k = jax.random.split(key, 8)
    return (jax.random.normal(k[0], (100000,)),
            jax.random.uniform(k[1], (300, 400), minval=-2.0, maxval=3.0),
            jax.random.bernoulli(k[2], 0.3, (100000,)),
            jax.random.truncated_normal(k[3], -1.0, 2.0, (50000,)),
            jax.random.gumbel(k[4], (40000,)),
            jax.random.categorical(k[6], logits, axis=-1),
            jax.random.bits(jax.random.fold_in(key, 3), (40000,), jnp.uint32),
            jax.random.randint(k[0], (40000,), -5, 1000, jnp.int16))


def _sliding_inputs(r):
    return _attn_inputs(r) + [
        floats(r, (2, 7, 8)).astype(np.float16) * 3,
        floats(r, (2, 7, 8)).astype(np.float16) * 3,
        floats(r, (2, 7, 8)).astype(np.float16)]


def _fft_all_inputs(r):
    return _fft_inputs(r) + [
        floats(r, (3, 16)), floats(r, (5,)), complexes(r, (2, 12)),
        floats(r, (3, 1)), complexes(r, (3, 1)), floats(r, (2, 2)),
        complexes(r, (1, 5))]


PROGRAMS = {
    "bidir_lstm_reverse_unroll_grad": (bidir_lstm_reverse_unroll_grad,
                                       _lstm_inputs),
    "gru_bf16_reverse_remat_grad": (gru_bf16_reverse_remat_grad,
                                    _gru_inputs),
    "ctc_alpha_beta": (ctc_alpha_beta, _ctc_inputs),
    "sliding_window_attention": (sliding_window_attention, _sliding_inputs),
    "moe_topk_segment_sum_grad": (moe_topk_segment_sum_grad, _moe_inputs),
    "rope_half_precision": (rope_half_precision, _rope_inputs),
    "vit_train_step_smoothing_focal": (vit_train_step_smoothing_focal,
                                       _vit_inputs),
    "fori_in_cond_in_scan": (fori_in_cond_in_scan, _fori_cond_inputs),
    "while_mixed_carry_key": (while_mixed_carry_key, lambda r: [
        prng_key(r), floats(r, (3, 4)), ints(r, (3, 4), -100, 100,
                                             np.int8)]),
    "vmap_switch_eight_branches": (vmap_switch_eight_branches,
                                   _switch_inputs),
    "scan_cond_scan_remat_grad": (scan_cond_scan_remat_grad, lambda r: [
        floats(r, (5, 3)), _w(r, 3, 3),
        np.array([True, False, True, True, False])]),
    "loops_zero_trip_and_batched": (loops_zero_trip_and_batched, lambda r: [
        floats(r, (4, 3)), np.int32(4), floats(r, (7, 5)), floats(r, (7,))]),
    "checkpoint_policies_grad": (checkpoint_policies_grad, _ckpt_inputs),
    "custom_rules_in_transforms": (custom_rules_in_transforms, lambda r: [
        floats(r, (6,)) * 0.2, floats(r, (3, 6)) * 0.2,
        np.array([0, 5, 2, 2], np.int32)]),
    "higher_order_derivatives": (higher_order_derivatives, _hessian_inputs),
    "vmap_axes_and_collectives": (vmap_axes_and_collectives, _vmap_inputs),
    "segment_reductions_sorted": (segment_reductions_sorted,
                                  _segment_inputs),
    "einsum_ellipsis_repeated": (einsum_ellipsis_repeated, _einsum_inputs),
    "odd_dot_general": (odd_dot_general, _dot_inputs),
    "high_rank_transpose_reduce": (high_rank_transpose_reduce, lambda r: [
        floats(r, (2,) * 8), floats(r, (3, 4, 2, 4, 4, 2, 4, 4))]),
    "variadic_reductions": (variadic_reductions, lambda r: _argmax_inputs(r)
                            + [np.round(floats(r, (2, 7, 8)) * 2) / 2]),
    "dtype_promotion_corners": (dtype_promotion_corners, _promotion_inputs),
    "narrow_types_int4_fp4_e8m0": (narrow_types_int4_fp4_e8m0,
                                   _narrow_inputs),
    "constants_and_aliasing": (constants_and_aliasing, lambda r: [
        floats(r, (2, 3)), floats(r, (210, 2)), floats(r, (4,)),
        floats(r, (7,)), np.array([3, 0, 6, 3, 1], np.int32),
        floats(r, (4, 3))]),
    "bf16_complex_denormal_inputs": (bf16_complex_denormal_inputs,
                                     lambda r: [
        np.array([1e-40, -1e-40, 1e-39, 0.0, -0.0, 2.0, 1.2e-38, -3.0],
                 jnp.bfloat16),
        np.array([-1e-40 + 0j, 1e-40 + 2j, 3 - 1e-39j, 2e-39 - 1j, 3 + 4j,
                  -1.0 + 1e-40j], np.complex64),
        np.array([1e-40, -1e-40, 1e-39, 0.0, 2.0, 1.2e-38], np.float32)]),
    "complex64_end_to_end": (complex64_end_to_end, _complex_inputs),
    "fft_norms_lengths_grads": (fft_norms_lengths_grads, _fft_all_inputs),
    "linalg_spectral_sign_free": (linalg_spectral_sign_free,
                                  _spectral_inputs),
    "linalg_reconstructions": (linalg_reconstructions, _linalg_inputs),
    "linalg_solvers_batched": (linalg_solvers_batched, _solver_inputs),
    "linalg_gradients": (linalg_gradients, _linalg_grad_inputs),
    "special_functions_iterative": (special_functions_iterative,
                                    _special_inputs),
    "scipy_signal_spectral": (scipy_signal_spectral, lambda r: [
        floats(r, (2, 64)), floats(r, (2, 64)), floats(r, (6, 8))]),
    "scipy_spatial_interpolate": (scipy_spatial_interpolate, lambda r:
                                  _rotation_inputs(r) + [
        floats(r, (5, 4)), r.uniform(0.0, 3.0, (9, 2)).astype(np.float32),
        np.array([0.0, 0.5, 1.0, 2.0, 3.0], np.float32),
        np.array([0.0, 1.0, 1.5, 3.0], np.float32)]),
    "bfgs_minimize_f64": (bfgs_minimize_f64, lambda r: [
        floats(r, (4,), np.float64), floats(r, (6, 4), np.float64),
        floats(r, (6,), np.float64)]),
    "composite_ufunc_named": (composite_ufunc_named, lambda r: [
        floats(r, (3, 4)), _w(r, 4, 4), floats(r, (2, 3, 6)),
        ints(r, (4, 5), -9, 9), np.array([0, 3, 3, 5, 0, 3], np.int32)]),
    "lax_windows_partly_out": (lax_windows_partly_out, lambda r: [
        floats(r, (6, 5)), np.array([[0, 0], [4, 1], [5, 4], [-1, 2],
                                     [2, 3], [3, 0]], np.int32),
        floats(r, (6, 3, 2))]),
    "conv_negative_padding": (conv_negative_padding, lambda r: [
        floats(r, (2, 3, 9, 8)), floats(r, (4, 3, 3, 2))]),
    "big_attention_kv_cache": (big_attention_kv_cache, lambda r: [
        floats(r, (2, 128, 4, 16)), floats(r, (2, 128, 4, 16)),
        floats(r, (2, 128, 4, 16)), floats(r, (6, 2, 4, 64)),
        floats(r, (6, 2, 4, 64)), floats(r, (6, 2, 4, 64)),
        floats(r, (2, 160, 4, 64)), floats(r, (2, 160, 4, 64))]),
    "big_segments_argmax": (big_segments_argmax, lambda r:
                            _big_segment_inputs(r) + _big_argmax_inputs(r)),
    "big_complex_fft": (big_complex_fft, lambda r: [
        complexes(r, (192, 192)), floats(r, (200, 210)),
        complexes(r, (40000,)), complexes(r, (40000,))]),
    "big_promotion_einsum": (big_promotion_einsum, lambda r: [
        ints(r, (50000,), -128, 128, np.int8),
        ints(r, (50000,), 0, 256, np.uint8),
        floats(r, (50000,)).astype(np.float16),
        ints(r, (50000,), 0, 2).astype(bool),
        floats(r, (8, 1, 32, 16)), floats(r, (4, 16, 32)),
        ints(r, (6, 90, 64), -128, 128, np.int8),
        ints(r, (64, 70), 0, 256, np.uint8)]),
    "big_recurrent_vmap": (big_recurrent_vmap, lambda r: [
        floats(r, (12, 512, 64)), _w(r, 64, 64)] + _big_gru_inputs(r)),
    "big_linalg": (big_linalg, lambda r: [
        floats(r, (192, 192)) + 8 * np.eye(192, dtype=np.float32),
        floats(r, (192, 192)), floats(r, (192, 3))]),
    "big_pooling_and_statistics": (big_pooling_and_statistics, lambda r: [
        np.round(floats(r, (4, 64, 64, 8))), floats(r, (1024, 96)),
        floats(r, (64, 48, 32))]),
    "big_random_samplers": (big_random_samplers, lambda r: [
        prng_key(r), floats(r, (4096, 12))]),
}
