"""Zoo: programs from the fifth bug hunt outside the corpus and the other
themes: whole programs as people write them, at small sizes, where the
passes and fusion meet many ops at once. A GPT-2 training step (token and
position embeddings, causal attention, layer norm, GELU MLP, tied head,
label-smoothed cross-entropy, AdamW with a decay mask, global-norm
clipping, a warmup-cosine schedule read from the step counter) in f32 and
with bf16 activations over f32 master weights; a conv net step with
batch norm in training mode, running statistics, max and average pooling
and dropout; LSTM and GRU over lax.scan with length masks and their
gradients; a seq2seq greedy decode in a while_loop with a KV cache;
mixture-of-experts routing with capacity; GNN message passing; k-means;
an RK4 neural ODE; an n-body step; escape counts in a while loop; a
Gaussian-process posterior and its log-likelihood gradient; HMC and
Langevin steps; a VAE step; remat, custom_vjp and custom_jvp; Hessian-
vector products; per-example gradients (DP-SGD); blockwise (flash)
attention in a scan; a Fourier neural operator layer; sparse BCOO layers;
int8 weight-only generation; PPO with GAE; a vmapped ensemble; gradient
accumulation under remat; PCA by eigh and QR; Dirichlet VI through
digamma; per-example augmentation; beam search; Welford statistics; the
rbg generators; and x64 programs (f64 Newton steps, s64/u64 hashing).

One bug found: hloc's CPU code rounded every product on its own where
XLA:CPU contracts multiply-adds into fused multiply-adds (cd3989c), so
escape_counts on a 160x120 grid had escape counts one or two off
XLA:CPU's. The program here keeps a 13x9 grid, on which the evaluator
(which rounds every operation, as XLA's HloEvaluator) agrees with XLA:CPU
too; the larger grid's check is backends/cpu's (fma_contraction.hlo,
CpuFmaTest). Left out as order-dependent: a plain sum of values that
cancel (1e16 + 1 - 1e16: x64_integer_pipeline sums only the
well-conditioned tail), which any summation order may round differently.
On the GPU targets every program compiles for cuda; for rocm the
hipsolver calls (cholesky, eigh, QR, LU) have no implementation yet, and
the rest ran against XLA:CPU on the host SIMT simulator (gfx942, gfx1100)
except the FFT one (no FFT library on rocm)."""

import functools

import jax
import jax.flatten_util
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import floats, ints, prng_key


def _w(r, *shape, scale=1.0):
    return (floats(r, shape) * scale / np.sqrt(shape[0])).astype(np.float32)


# --- GPT-2 training step -------------------------------------------------

_VOCAB, _D, _HEADS, _T = 48, 16, 2, 10


def _layer_norm(x, g, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mu), -1, keepdims=True)
    return (x - mu) * lax.rsqrt(var + eps) * g + b


def _gpt2_logits(p, tok, act_dtype):
    b, t = tok.shape
    x = (p["wte"][tok] + p["wpe"][:t]).astype(act_dtype)
    mask = jnp.tril(jnp.ones((t, t), bool))
    hd = _D // _HEADS
    for blk in p["blocks"]:
        c = lambda w: w.astype(act_dtype)  # noqa: E731
        h = _layer_norm(x, c(blk["ln1_g"]), c(blk["ln1_b"]))
        qkv = h @ c(blk["attn_w"]) + c(blk["attn_b"])
        q, k, v = jnp.split(qkv, 3, axis=-1)
        q = q.reshape(b, t, _HEADS, hd)
        k = k.reshape(b, t, _HEADS, hd)
        v = v.reshape(b, t, _HEADS, hd)
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / float(np.sqrt(hd))
        s = jnp.where(mask, s, jnp.finfo(act_dtype).min)
        a = jax.nn.softmax(s.astype(jnp.float32), axis=-1).astype(act_dtype)
        o = jnp.einsum("bhqk,bkhd->bqhd", a, v).reshape(b, t, _D)
        x = x + o @ c(blk["proj_w"]) + c(blk["proj_b"])
        h = _layer_norm(x, c(blk["ln2_g"]), c(blk["ln2_b"]))
        h = jax.nn.gelu(h @ c(blk["fc_w"]) + c(blk["fc_b"]), approximate=True)
        x = x + h @ c(blk["fc2_w"]) + c(blk["fc2_b"])
    x = _layer_norm(x, p["lnf_g"].astype(act_dtype),
                    p["lnf_b"].astype(act_dtype))
    return (x @ p["wte"].T.astype(act_dtype)).astype(jnp.float32)


def _gpt2_loss(p, tok, act_dtype, smoothing=0.1):
    logits = _gpt2_logits(p, tok[:, :-1], act_dtype)
    labels = jax.nn.one_hot(tok[:, 1:], _VOCAB, dtype=jnp.float32)
    labels = labels * (1 - smoothing) + smoothing / _VOCAB
    logp = jax.nn.log_softmax(logits)
    valid = (tok[:, 1:] != 0).astype(jnp.float32)  # token 0 is padding
    nll = -(labels * logp).sum(-1)
    return (nll * valid).sum() / jnp.maximum(valid.sum(), 1.0)


def _schedule(step, peak=3e-3, warmup=5, total=50):
    step = step.astype(jnp.float32)
    warm = peak * step / warmup
    frac = jnp.clip((step - warmup) / (total - warmup), 0.0, 1.0)
    cos = 0.5 * peak * (1 + jnp.cos(jnp.pi * frac))
    return jnp.where(step < warmup, warm, cos)


def _adamw(p, g, m, v, step, b1=0.9, b2=0.95, eps=1e-6, wd=0.1,
           max_norm=1.0):
    gnorm = jnp.sqrt(sum(jnp.sum(x * x) for x in jax.tree.leaves(g)))
    scale = jnp.minimum(1.0, max_norm / (gnorm + 1e-6))
    g = jax.tree.map(lambda x: x * scale, g)
    t = step + 1
    lr = _schedule(step)
    m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, m, g)
    v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, v, g)
    bc1 = 1 - b1 ** t.astype(jnp.float32)
    bc2 = 1 - b2 ** t.astype(jnp.float32)

    def upd(path, p, m, v):
        # No decay on biases, gains and embeddings' positions: a mask by
        # name, as optax.masked users write it.
        name = jax.tree_util.keystr(path)
        decay = wd if ("_w" in name or "wte" in name) else 0.0
        return p - lr * (m / bc1 / (jnp.sqrt(v / bc2) + eps) + decay * p)
    p = jax.tree_util.tree_map_with_path(upd, p, m, v)
    return p, m, v, gnorm, lr


def _gpt2_step(act_dtype, p, m, v, step, tok):
    loss, g = jax.value_and_grad(_gpt2_loss)(p, tok, act_dtype)
    p, m, v, gnorm, lr = _adamw(p, g, m, v, step)
    return loss, gnorm, lr, p, m, v, step + 1


gpt2_train_step_f32 = functools.partial(_gpt2_step, jnp.float32)
gpt2_train_step_bf16 = functools.partial(_gpt2_step, jnp.bfloat16)


def _gpt2_inputs(r, step):
    d = _D

    def blk():
        return {"ln1_g": 1 + 0.1 * floats(r, (d,)), "ln1_b": 0.1 * floats(
                    r, (d,)),
                "attn_w": _w(r, d, 3 * d), "attn_b": 0.02 * floats(
                    r, (3 * d,)),
                "proj_w": _w(r, d, d), "proj_b": np.zeros(d, np.float32),
                "ln2_g": np.ones(d, np.float32), "ln2_b": np.zeros(
                    d, np.float32),
                "fc_w": _w(r, d, 4 * d), "fc_b": 0.02 * floats(r, (4 * d,)),
                "fc2_w": _w(r, 4 * d, d), "fc2_b": np.zeros(d, np.float32)}
    p = {"wte": _w(r, _VOCAB, d, scale=2.0), "wpe": 0.1 * floats(r, (_T, d)),
         "blocks": [blk(), blk()], "lnf_g": np.ones(d, np.float32),
         "lnf_b": np.zeros(d, np.float32)}
    p = jax.tree.map(lambda x: np.asarray(x, np.float32), p)
    m = jax.tree.map(lambda x: 0.01 * floats(r, x.shape), p)
    v = jax.tree.map(lambda x: 1e-3 + 1e-3 * np.abs(floats(r, x.shape)), p)
    tok = ints(r, (3, _T + 1), 1, _VOCAB)
    tok[2, 7:] = 0  # a padded row
    return [p, m, v, np.int32(step), tok]


# --- conv net step with batch norm, pooling and dropout ------------------

def _bn_train(x, g, b, mean, var, momentum=0.9, eps=1e-5):
    mu = x.mean((0, 1, 2))
    var_b = x.var((0, 1, 2))
    y = (x - mu) * lax.rsqrt(var_b + eps) * g + b
    n = x.shape[0] * x.shape[1] * x.shape[2]
    new_mean = momentum * mean + (1 - momentum) * mu
    new_var = momentum * var + (1 - momentum) * var_b * n / (n - 1)
    return y, new_mean, new_var


def _conv(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))


def convnet_bn_train_step(p, stats, vel, x, y, key):
    def loss(p):
        h = _conv(x, p["c1"])
        h, m1, v1 = _bn_train(h, p["g1"], p["b1"], stats["m1"], stats["v1"])
        h = jax.nn.relu(h)
        h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1),
                              (1, 2, 2, 1), "VALID")
        h = _conv(h, p["c2"])
        h, m2, v2 = _bn_train(h, p["g2"], p["b2"], stats["m2"], stats["v2"])
        h = jax.nn.relu(h)
        h = lax.reduce_window(h, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1),
                              "SAME") / 9.0
        h = h.mean((1, 2))
        keep = jax.random.bernoulli(key, 0.8, h.shape)
        h = jnp.where(keep, h / 0.8, 0.0)
        logits = h @ p["fc"] + p["fcb"]
        l = -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) *
                              jax.nn.one_hot(y, 5, dtype=h.dtype), -1))
        return l, {"m1": m1, "v1": v1, "m2": m2, "v2": v2}
    (l, new_stats), g = jax.value_and_grad(loss, has_aux=True)(p)
    vel = jax.tree.map(lambda v, g: 0.9 * v + g, vel, g)
    p = jax.tree.map(lambda p, v: p - 0.05 * v, p, vel)
    return l, p, new_stats, vel


def _convnet_inputs(r):
    p = {"c1": _w(r, 3, 3, 3, 6), "g1": np.ones(6, np.float32),
         "b1": np.zeros(6, np.float32), "c2": _w(r, 3, 3, 6, 8),
         "g2": 1 + 0.1 * floats(r, (8,)), "b2": 0.1 * floats(r, (8,)),
         "fc": _w(r, 8, 5), "fcb": np.zeros(5, np.float32)}
    stats = {"m1": np.zeros(6, np.float32), "v1": np.ones(6, np.float32),
             "m2": np.zeros(8, np.float32), "v2": np.ones(8, np.float32)}
    vel = jax.tree.map(lambda x: 0.01 * floats(r, x.shape), p)
    return [p, stats, vel, floats(r, (4, 8, 8, 3)), ints(r, (4,), 0, 5),
            prng_key(r)]


# --- recurrent nets ------------------------------------------------------

def _lstm_cell(p, carry, x):
    h, c = carry
    z = x @ p["wx"] + h @ p["wh"] + p["b"]
    i, f, g, o = jnp.split(z, 4, axis=-1)
    c = jax.nn.sigmoid(f + 1.0) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    h = jax.nn.sigmoid(o) * jnp.tanh(c)
    return h, c


def _gru_cell(p, h, x):
    zr = jax.nn.sigmoid(x @ p["wxzr"] + h @ p["whzr"] + p["bzr"])
    z, r = jnp.split(zr, 2, axis=-1)
    n = jnp.tanh(x @ p["wxn"] + (r * h) @ p["whn"] + p["bn"])
    return (1 - z) * n + z * h


def lstm_gru_masked_grad(pl, pg, head, xs, lengths, y):
    # Time-major xs [T, B, F]; each row stops at its length (the carry is
    # frozen past it); a bidirectional LSTM feeds a GRU, the GRU's last
    # valid state feeds a regression head.
    t_steps, b, _ = xs.shape
    hid = pl["wh"].shape[0]
    mask = (jnp.arange(t_steps)[:, None] < lengths[None, :])[..., None]

    def loss(pl, pg, head):
        def lstm_step(carry, inp):
            x, m = inp
            h, c = _lstm_cell(pl, carry, x)
            h = jnp.where(m, h, carry[0])
            c = jnp.where(m, c, carry[1])
            return (h, c), h
        zeros = jnp.zeros((b, hid), xs.dtype)
        _, fw = lax.scan(lstm_step, (zeros, zeros), (xs, mask))
        _, bw = lax.scan(lstm_step, (zeros, zeros), (xs, mask), reverse=True)
        seq = jnp.concatenate([fw, bw], -1)

        def gru_step(h, inp):
            x, m = inp
            return jnp.where(m, _gru_cell(pg, h, x), h), None
        h, _ = lax.scan(gru_step, jnp.zeros((b, pg["whn"].shape[0]), xs.dtype),
                        (seq, mask), unroll=2)
        pred = h @ head
        return jnp.mean((pred - y) ** 2)
    return jax.value_and_grad(loss, argnums=(0, 1, 2))(pl, pg, head)


def _rnn_inputs(r):
    f, hid, hg, t, b = 3, 5, 4, 7, 4
    pl = {"wx": _w(r, f, 4 * hid), "wh": _w(r, hid, 4 * hid),
          "b": 0.1 * floats(r, (4 * hid,))}
    pg = {"wxzr": _w(r, 2 * hid, 2 * hg), "whzr": _w(r, hg, 2 * hg),
          "bzr": 0.1 * floats(r, (2 * hg,)), "wxn": _w(r, 2 * hid, hg),
          "whn": _w(r, hg, hg), "bn": 0.1 * floats(r, (hg,))}
    return [pl, pg, _w(r, hg, 2), floats(r, (t, b, f)),
            np.array([7, 3, 1, 5], np.int32), floats(r, (b, 2))]


def seq2seq_greedy_kv(p, src):
    # Encoder: one attention layer over the source. Decoder: greedy, one
    # token a step in a while_loop, self-attention through a KV cache of
    # max_len slots and cross-attention to the encoder; stops when every
    # row has emitted EOS (1) or at max_len.
    max_len, d = 9, p["emb"].shape[1]
    b = src.shape[0]
    e = p["emb"][src]
    att = jax.nn.softmax(e @ e.transpose(0, 2, 1) / float(np.sqrt(d)), -1)
    enc = jnp.tanh((att @ e) @ p["enc"])

    def cond(s):
        i, _, _, _, done, _ = s
        return (i < max_len) & ~jnp.all(done)

    def body(s):
        i, tok, kc, vc, done, out = s
        x = p["emb"][tok]                                  # [B, D]
        zero = jnp.int32(0)
        kc = lax.dynamic_update_slice(kc, (x @ p["wk"])[:, None],
                                      (zero, i, zero))
        vc = lax.dynamic_update_slice(vc, (x @ p["wv"])[:, None],
                                      (zero, i, zero))
        q = x @ p["wq"]
        sc = jnp.einsum("bd,btd->bt", q, kc) / float(np.sqrt(d))
        sc = jnp.where(jnp.arange(max_len)[None] <= i, sc, -jnp.inf)
        h = jnp.einsum("bt,btd->bd", jax.nn.softmax(sc, -1), vc) + x
        cs = jax.nn.softmax(jnp.einsum("bd,bsd->bs", h, enc), -1)
        h = h + jnp.einsum("bs,bsd->bd", cs, enc)
        logits = h @ p["emb"].T
        nxt = jnp.argmax(logits, -1).astype(jnp.int32)
        nxt = jnp.where(done, 0, nxt)
        out = out.at[:, i].set(nxt)
        return i + 1, nxt, kc, vc, done | (nxt == 1), out
    init = (jnp.int32(0), jnp.full((b,), 2, jnp.int32),
            jnp.zeros((b, max_len, d), jnp.float32),
            jnp.zeros((b, max_len, d), jnp.float32),
            jnp.zeros((b,), bool), jnp.zeros((b, max_len), jnp.int32))
    i, _, kc, _, done, out = lax.while_loop(cond, body, init)
    return i, out, done, kc


def _seq2seq_inputs(r):
    v, d = 12, 8
    emb = floats(r, (v, d))
    emb[1] *= 0.2
    return [{"emb": emb, "enc": _w(r, d, d), "wq": _w(r, d, d),
             "wk": _w(r, d, d), "wv": _w(r, d, d)}, ints(r, (3, 6), 2, v)]


# --- mixture of experts --------------------------------------------------

def moe_capacity_routing(x, wg, w1, w2):
    # Switch/GShard-style top-2 routing with a capacity per expert: one_hot
    # dispatch, positions by cumsum, tokens past capacity dropped, a
    # load-balancing loss; value and gradient.
    n_exp, cap = wg.shape[1], 3

    def loss(x, wg, w1, w2):
        logits = x @ wg
        probs = jax.nn.softmax(logits, -1)
        gate_v, gate_i = lax.top_k(probs, 2)
        gate_v = gate_v / gate_v.sum(-1, keepdims=True)
        onehot = jax.nn.one_hot(gate_i, n_exp, dtype=x.dtype)  # [N, 2, E]
        # Slot order: every token's first choice before any second choice.
        flat = onehot.transpose(1, 0, 2).reshape(-1, n_exp)
        pos = (jnp.cumsum(flat, 0) - 1) * flat
        pos = pos.reshape(2, -1, n_exp).transpose(1, 0, 2)
        keep = (pos < cap) * onehot
        slot = jax.nn.one_hot(pos.sum(-1).astype(jnp.int32), cap,
                              dtype=x.dtype) * \
            keep.sum(-1, keepdims=True)                  # [N, 2, C]
        dispatch = jnp.einsum("nke,nkc->nec", keep, slot)
        combine = jnp.einsum("nk,nke,nkc->nec", gate_v, keep, slot)
        xin = jnp.einsum("nec,nd->ecd", dispatch, x)
        h = jax.nn.gelu(jnp.einsum("ecd,edh->ech", xin, w1))
        out = jnp.einsum("ech,ehd->ecd", h, w2)
        y = jnp.einsum("nec,ecd->nd", combine, out)
        frac = onehot[:, 0].mean(0)
        aux = n_exp * jnp.sum(frac * probs.mean(0))
        dropped = 1.0 - keep.sum() / (2 * x.shape[0])
        return jnp.mean(y ** 2) + 0.01 * aux, (aux, dropped, y)
    (l, aux), g = jax.value_and_grad(loss, argnums=(0, 1, 2, 3),
                                     has_aux=True)(x, wg, w1, w2)
    return l, aux, g


def _moe_inputs(r):
    n, d, e, h = 10, 6, 4, 8
    return [floats(r, (n, d)), _w(r, d, e, scale=3.0),
            floats(r, (e, d, h)) / 3, floats(r, (e, h, d)) / 3]


# --- graphs and clustering ----------------------------------------------

def gnn_message_passing_grad(p, feats, src, dst, ew):
    n = feats.shape[0]

    def layer(w, h):
        msg = (h[src] @ w) * ew[:, None]
        agg_sum = jax.ops.segment_sum(msg, dst, num_segments=n)
        agg_max = jax.ops.segment_max(msg, dst, num_segments=n)
        agg_max = jnp.where(jnp.isfinite(agg_max), agg_max, 0.0)
        deg = jax.ops.segment_sum(jnp.ones_like(ew), dst, num_segments=n)
        return jax.nn.relu(h + agg_sum / jnp.maximum(deg, 1.0)[:, None]
                           + agg_max)

    def loss(p):
        h = layer(p["w1"], feats)
        h = layer(p["w2"], h)
        # Graph readout by segment over two graphs (nodes 0..5, 6..n).
        gid = (jnp.arange(n) >= 6).astype(jnp.int32)
        pooled = jax.ops.segment_sum(h, gid, num_segments=2)
        return jnp.sum(jnp.tanh(pooled @ p["out"]))
    return jax.value_and_grad(loss)(p)


def _gnn_inputs(r):
    n, f, e = 11, 4, 24
    src = ints(r, (e,), 0, n)
    dst = ints(r, (e,), 0, n - 1)  # node n-1 receives nothing
    return [{"w1": _w(r, f, f), "w2": _w(r, f, f), "out": _w(r, f, 3)},
            floats(r, (n, f)), src, dst, r.uniform(0.5, 1.5, e).astype(
                np.float32)]


def kmeans_fori(x, c0):
    k = c0.shape[0]

    def step(_, c):
        d2 = ((x[:, None] - c[None]) ** 2).sum(-1)
        a = jnp.argmin(d2, -1)
        s = jax.ops.segment_sum(x, a, num_segments=k)
        cnt = jax.ops.segment_sum(jnp.ones(x.shape[0], x.dtype), a,
                                  num_segments=k)
        # An empty cluster keeps its centre.
        return jnp.where(cnt[:, None] > 0, s / jnp.maximum(cnt, 1)[:, None],
                         c)
    c = lax.fori_loop(0, 6, step, c0)
    d2 = ((x[:, None] - c[None]) ** 2).sum(-1)
    return c, jnp.argmin(d2, -1), d2.min(-1).sum()


def _kmeans_inputs(r):
    centres = np.array([[0, 0], [4, 4], [-4, 3]], np.float32)
    x = (centres[ints(r, (40,), 0, 3)] + 0.5 * floats(r, (40, 2))).astype(
        np.float32)
    c0 = np.array([[0.1, 0.2], [3.0, 3.5], [-3.0, 2.0], [50.0, 50.0]],
                  np.float32)  # the last starts empty
    return [x, c0]


# --- ODEs and physics ----------------------------------------------------

def neural_ode_rk4_grad(p, y0, target):
    def f(p, y, t):
        h = jnp.tanh(y @ p["w1"] + t * p["tw"] + p["b1"])
        return h @ p["w2"]

    def loss(p):
        def rk4(i, y):
            dt = 0.1
            t = i * dt
            k1 = f(p, y, t)
            k2 = f(p, y + 0.5 * dt * k1, t + 0.5 * dt)
            k3 = f(p, y + 0.5 * dt * k2, t + 0.5 * dt)
            k4 = f(p, y + dt * k3, t + dt)
            return y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        y = lax.fori_loop(0, 10, rk4, y0)
        return jnp.mean((y - target) ** 2), y
    (l, y), g = jax.value_and_grad(loss, has_aux=True)(p)
    return l, y, g


def _ode_inputs(r):
    return [{"w1": _w(r, 3, 8), "tw": 0.1 * floats(r, (8,)),
             "b1": 0.1 * floats(r, (8,)), "w2": _w(r, 8, 3)},
            floats(r, (5, 3)), floats(r, (5, 3))]


def nbody_step_f64(pos, vel, mass):
    # Velocity Verlet in f64 with softened gravity, energy before/after.
    def acc(x):
        d = x[None, :, :] - x[:, None, :]
        r2 = (d ** 2).sum(-1) + 1e-2
        inv = mass[None, :] * r2 ** -1.5
        inv = inv * (1 - jnp.eye(x.shape[0]))
        return (d * inv[..., None]).sum(1)

    def energy(x, v):
        d = x[None] - x[:, None]
        r = jnp.sqrt((d ** 2).sum(-1) + 1e-2)
        pot = -0.5 * jnp.sum(jnp.triu(mass[:, None] * mass[None] / r, 1)) * 2
        return 0.5 * jnp.sum(mass * (v ** 2).sum(-1)) + pot

    def step(_, s):
        x, v, a = s
        x = x + 0.01 * v + 0.5e-4 * a
        a2 = acc(x)
        v = v + 0.005 * (a + a2)
        return x, v, a2
    e0 = energy(pos, vel)
    x, v, _ = lax.fori_loop(0, 20, step, (pos, vel, acc(pos)))
    return x, v, e0, energy(x, v), (mass[:, None] * v).sum(0)


def escape_counts(c_re, c_im, max_iter):
    # Mandelbrot and a Julia set from one loop over a complex64 grid, the
    # iteration limit a runtime scalar; smooth colouring of escaped points.
    c = lax.complex(c_re, c_im)

    def run(z0, cc):
        def cond(s):
            i, z, n, _ = s
            return (i < max_iter) & jnp.any(jnp.abs(z) <= 2.0)

        def body(s):
            i, z, n, zlast = s
            inside = jnp.abs(z) <= 2.0
            z2 = jnp.where(inside, z * z + cc, z)
            return i + 1, z2, n + inside.astype(jnp.int32), \
                jnp.where(inside, z2, zlast)
        return lax.while_loop(cond, body, (jnp.int32(0), z0,
                                           jnp.zeros(c.shape, jnp.int32),
                                           z0))
    i1, _, n_mandel, zl = run(jnp.zeros_like(c), c)
    i2, _, n_julia, _ = run(c, jnp.complex64(-0.8 + 0.156j))
    mag = jnp.maximum(jnp.abs(zl), 2.0)
    smooth = n_mandel + 1 - jnp.log2(jnp.log(mag))
    return i1, n_mandel, i2, n_julia, jnp.where(n_mandel < max_iter,
                                                 smooth, 0.0)


def _escape_inputs(_):
    re, im = np.meshgrid(np.linspace(-2.1, 0.7, 13), np.linspace(-1.2, 1.2,
                                                                   9))
    return [re.astype(np.float32), im.astype(np.float32), np.int32(40)]


# --- probabilistic programs ---------------------------------------------

def gp_posterior_loglik_grad(log_params, x, y, xs):
    def kernel(a, b, ls, sf):
        d2 = ((a[:, None] - b[None]) ** 2).sum(-1)
        return sf * jnp.exp(-0.5 * d2 / ls ** 2)

    def nll(lp):
        ls, sf, sn = jnp.exp(lp)
        k = kernel(x, x, ls, sf) + (sn + 1e-6) * jnp.eye(x.shape[0])
        l = jnp.linalg.cholesky(k)
        alpha = jax.scipy.linalg.cho_solve((l, True), y)
        return (0.5 * y @ alpha + jnp.sum(jnp.log(jnp.diag(l)))
                + 0.5 * x.shape[0] * jnp.log(2 * jnp.pi))
    value, g = jax.value_and_grad(nll)(log_params)
    ls, sf, sn = jnp.exp(log_params)
    k = kernel(x, x, ls, sf) + sn * jnp.eye(x.shape[0])
    l = jnp.linalg.cholesky(k)
    ks = kernel(x, xs, ls, sf)
    v = jax.scipy.linalg.solve_triangular(l, ks, lower=True)
    alpha = jax.scipy.linalg.solve_triangular(
        l.T, jax.scipy.linalg.solve_triangular(l, y, lower=True), lower=False)
    mean = ks.T @ alpha
    var = sf - (v ** 2).sum(0)
    return value, g, mean, var


def _gp_inputs(r):
    x = r.uniform(-3, 3, (9, 2))
    y = np.sin(x[:, 0]) + 0.1 * r.standard_normal(9)
    return [np.log(np.array([1.2, 0.8, 0.05])), x, y,
            r.uniform(-3, 3, (5, 2))]  # f64 throughout


def hmc_langevin(q0, key, data):
    # Bayesian logistic regression: three HMC transitions (leapfrog of 5
    # steps, Metropolis accept) in a scan, then two MALA/Langevin steps.
    xs, ys = data[:, :-1], data[:, -1]

    def logp(q):
        z = xs @ q
        return jnp.sum(ys * z - jax.nn.softplus(z)) - 0.5 * jnp.sum(q ** 2)
    grad = jax.grad(logp)

    def hmc(state, k):
        q, acc = state
        k1, k2 = jax.random.split(k)
        p0 = jax.random.normal(k1, q.shape, q.dtype)
        eps = 0.05

        def leap(_, s):
            qq, pp = s
            pp = pp + 0.5 * eps * grad(qq)
            qq = qq + eps * pp
            pp = pp + 0.5 * eps * grad(qq)
            return qq, pp
        q1, p1 = lax.fori_loop(0, 5, leap, (q, p0))
        log_ratio = (logp(q1) - 0.5 * p1 @ p1) - (logp(q) - 0.5 * p0 @ p0)
        accept = jnp.log(jax.random.uniform(k2)) < log_ratio
        return (jnp.where(accept, q1, q), acc + accept), log_ratio
    keys = jax.random.split(key, 5)
    (q, acc), ratios = lax.scan(hmc, (q0, jnp.int32(0)), keys[:3])
    for k in keys[3:]:
        tau = 0.01
        noise = jax.random.normal(k, q.shape, q.dtype)
        q = q + tau * grad(q) + jnp.sqrt(2 * tau) * noise
    return q, acc, ratios


def _hmc_inputs(r):
    xs = floats(r, (20, 3))
    ys = (xs @ np.array([1.0, -2.0, 0.5]) + floats(r, (20,)) > 0)
    return [0.1 * floats(r, (3,)), prng_key(r),
            np.concatenate([xs, ys[:, None].astype(np.float32)], 1)]


def vae_adam_step(p, m, v, x, key):
    # A conv encoder, Bernoulli decoder, beta-weighted KL, two samples of
    # the reparameterised z, one Adam step.
    def loss(p):
        h = jax.nn.leaky_relu(lax.conv_general_dilated(
            x, p["conv"], (2, 2), "SAME",
            dimension_numbers=("NHWC", "HWIO", "NHWC")), 0.2)
        h = h.reshape(x.shape[0], -1)
        stats = h @ p["enc"] + p["enc_b"]
        mu, logvar = jnp.split(stats, 2, -1)
        eps = jax.random.normal(key, (2,) + mu.shape, mu.dtype)
        z = mu + jnp.exp(0.5 * logvar) * eps
        logits = jax.nn.softplus(z @ p["dec1"]) @ p["dec2"]
        xt = x.reshape(x.shape[0], -1)
        rec = jnp.sum(jax.nn.softplus(logits) - xt * logits, -1).mean()
        kl = -0.5 * jnp.sum(1 + logvar - mu ** 2 - jnp.exp(logvar), -1)
        return rec + 0.5 * kl.mean()
    l, g = jax.value_and_grad(loss)(p)
    m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
    v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
    p = jax.tree.map(lambda p, m, v: p - 1e-3 * (m / 0.1) /
                     (jnp.sqrt(v / 0.001) + 1e-5), p, m, v)
    return l, p, m, v


def _vae_inputs(r):
    p = {"conv": _w(r, 3, 3, 1, 4), "enc": _w(r, 64, 6),
         "enc_b": np.zeros(6, np.float32), "dec1": _w(r, 3, 16),
         "dec2": _w(r, 16, 64)}
    m = jax.tree.map(lambda x: np.zeros_like(x), p)
    v = jax.tree.map(lambda x: np.zeros_like(x), p)
    x = (r.random((3, 8, 8, 1)) > 0.5).astype(np.float32)
    return [p, m, v, x, prng_key(r)]


# --- autodiff machinery --------------------------------------------------

@jax.custom_vjp
def _clip_grad(x):
    return x


def _clip_fwd(x):
    return x, None


def _clip_bwd(_, g):
    return (jnp.clip(g, -0.05, 0.05),)


_clip_grad.defvjp(_clip_fwd, _clip_bwd)


@jax.custom_jvp
def _log1pexp(x):
    return jnp.log1p(jnp.exp(x))


@_log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _log1pexp(x), t * jax.nn.sigmoid(x)


def remat_custom_rules(ws, x):
    # A residual stack under jax.checkpoint (one block saving nothing, one
    # saving dots), activations through a custom_jvp softplus, gradients
    # clipped inside the backward pass by a custom_vjp.
    def block(w, h):
        return h + _log1pexp(_clip_grad(h @ w)) - 0.5

    def loss(ws):
        h = x
        h = jax.checkpoint(block)(ws[0], h)
        h = jax.checkpoint(
            block, policy=jax.checkpoint_policies.dots_saveable)(ws[1], h)
        h = jax.checkpoint(lambda w, h: block(w, block(w, h)),
                           prevent_cse=False)(ws[2], h)
        return jnp.sum(h ** 2) / h.size
    g = jax.grad(loss)(ws)
    # The custom_jvp through forward mode too.
    tangent = jax.jvp(lambda x: _log1pexp(x @ ws[0]), (x,),
                      (jnp.ones_like(x),))[1]
    return loss(ws), g, tangent


def hvp_grad_of_grad(p, x, y, vec):
    def loss(p):
        h = jnp.tanh(x @ p["w1"] + p["b1"])
        return jnp.mean(jax.nn.softplus(-(h @ p["w2"])[:, 0] * y))
    # Forward-over-reverse, reverse-over-reverse, and a Gauss-Newton-free
    # Newton direction by a few CG steps on the HVP.
    fwd = jax.jvp(jax.grad(loss), (p,), (vec,))[1]
    rev = jax.grad(lambda p: jax.tree_util.tree_reduce(
        jnp.add, jax.tree.map(lambda a, b: jnp.vdot(a, b),
                              jax.grad(loss)(p), vec)))(p)
    flat, unravel = jax.flatten_util.ravel_pytree(p)

    def hvp(v):
        return jax.flatten_util.ravel_pytree(
            jax.jvp(jax.grad(loss), (p,), (unravel(v),))[1])[0] + 0.1 * v
    g = jax.flatten_util.ravel_pytree(jax.grad(loss)(p))[0]

    def cg(_, s):
        xk, r, d = s
        hd = hvp(d)
        a = (r @ r) / (d @ hd)
        x2 = xk + a * d
        r2 = r - a * hd
        return x2, r2, r2 + (r2 @ r2) / (r @ r) * d
    newton = lax.fori_loop(0, 4, cg, (jnp.zeros_like(flat), g, g))[0]
    return fwd, rev, newton


def _hvp_inputs(r):
    p = {"w1": _w(r, 3, 6), "b1": 0.1 * floats(r, (6,)), "w2": _w(r, 6, 1)}
    vec = jax.tree.map(lambda a: floats(r, a.shape), p)
    return [p, floats(r, (12, 3)), np.sign(floats(r, (12,))), vec]


def dp_sgd_per_example(p, x, y, key):
    # DP-SGD: vmap of per-example gradients, each clipped to norm 1,
    # summed, Gaussian noise added, averaged.
    def loss(p, xi, yi):
        h = jax.nn.relu(xi @ p["w1"] + p["b1"])
        logits = h @ p["w2"]
        return -jax.nn.log_softmax(logits)[yi]
    grads = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(p, x, y)
    norms = jnp.sqrt(sum(jnp.sum(g.reshape(g.shape[0], -1) ** 2, -1)
                         for g in jax.tree.leaves(grads)))
    factor = jnp.minimum(1.0, 1.0 / (norms + 1e-6))
    clipped = jax.tree.map(
        lambda g: (g * factor.reshape((-1,) + (1,) * (g.ndim - 1))).sum(0),
        grads)
    keys = jax.random.split(key, len(jax.tree.leaves(p)))
    noisy = jax.tree.unflatten(jax.tree.structure(p), [
        g + 0.5 * jax.random.normal(k, g.shape, g.dtype)
        for g, k in zip(jax.tree.leaves(clipped), keys)])
    return norms, jax.tree.map(lambda p, g: p - 0.1 * g / x.shape[0], p,
                               noisy)


def _dp_inputs(r):
    return [{"w1": _w(r, 4, 8), "b1": np.zeros(8, np.float32),
             "w2": _w(r, 8, 3)}, floats(r, (6, 4)), ints(r, (6,), 0, 3),
            prng_key(r)]


# --- x64 ---------------------------------------------------------------

def x64_newton_logistic(x, y, ids, counts):
    # f64 logistic regression by Newton's method (solve with the Hessian),
    # s64 bookkeeping: cumulative ids, a hash, segment counts by s64 keys.
    def body(_, w):
        z = x @ w
        pr = jax.nn.sigmoid(z)
        g = x.T @ (pr - y) + 1e-3 * w
        h = (x.T * (pr * (1 - pr))) @ x + 1e-3 * jnp.eye(x.shape[1])
        return w - jnp.linalg.solve(h, g)
    w = lax.fori_loop(0, 5, body, jnp.zeros(x.shape[1], jnp.float64))
    hashed = (ids * jnp.int64(6364136223846793005) +
              jnp.int64(1442695040888963407)) >> 17
    big = jnp.cumsum(counts) * jnp.int64(2**33)
    seg = jax.ops.segment_sum(counts, (ids % 5).astype(jnp.int64),
                              num_segments=5)
    return w, hashed, big, seg, (x @ w).astype(jnp.float32)


def _x64_inputs(r):
    x = np.concatenate([r.standard_normal((30, 3)), np.ones((30, 1))], 1)
    y = (x @ np.array([1.0, -0.5, 2.0, 0.3]) + r.standard_normal(30) >
         0).astype(np.float64)
    return [x, y, ints(r, (30,), -2**40, 2**40, np.int64),
            ints(r, (30,), 0, 2**20, np.int64)]


# --- more whole programs -------------------------------------------------

def flash_attention_scan_grad(q, k, v):
    # Blockwise causal attention with an online softmax over key blocks in
    # lax.scan (as memory-efficient attention is written), against the
    # plain softmax, and the gradient through the scan.
    blk = 4
    t, d = q.shape[1], q.shape[2]
    nb = t // blk

    def flash(q, k, v):
        kb = k.reshape(k.shape[0], nb, blk, d).transpose(1, 0, 2, 3)
        vb = v.reshape(v.shape[0], nb, blk, d).transpose(1, 0, 2, 3)
        qpos = jnp.arange(t)[:, None]

        def step(carry, inp):
            m, l, acc = carry
            j, kj, vj = inp
            s = jnp.einsum("bqd,bkd->bqk", q, kj) / float(np.sqrt(d))
            kpos = j * blk + jnp.arange(blk)[None, :]
            s = jnp.where(kpos <= qpos, s, -jnp.inf)
            m2 = jnp.maximum(m, s.max(-1))
            safe = jnp.where(jnp.isfinite(m2), m2, 0.0)
            p = jnp.exp(s - safe[..., None])
            corr = jnp.exp(m - safe)
            l2 = l * corr + p.sum(-1)
            acc = acc * corr[..., None] + jnp.einsum("bqk,bkd->bqd", p, vj)
            return (m2, l2, acc), None
        init = (jnp.full(q.shape[:2], -jnp.inf, q.dtype),
                jnp.zeros(q.shape[:2], q.dtype), jnp.zeros_like(q))
        (m, l, acc), _ = lax.scan(step, init,
                                  (jnp.arange(nb, dtype=jnp.int32), kb, vb))
        return acc / l[..., None]

    def plain(q, k, v):
        s = jnp.einsum("bqd,bkd->bqk", q, k) / float(np.sqrt(d))
        s = jnp.where(jnp.tril(jnp.ones((t, t), bool)), s, -jnp.inf)
        return jax.nn.softmax(s, -1) @ v
    out = flash(q, k, v)
    g = jax.grad(lambda q, k, v: jnp.sum(jnp.sin(flash(q, k, v))),
                 argnums=(0, 1, 2))(q, k, v)
    return out, out - plain(q, k, v), g


def fno_spectral_conv_grad(w_re, w_im, x, y):
    # A Fourier neural operator layer: rfft2, the lowest modes multiplied
    # by complex weights per channel pair, irfft2, a pointwise path; the
    # loss gradient with respect to the spectral weights.
    modes = 3

    def layer(w_re, w_im, x):
        xf = jnp.fft.rfft2(x, axes=(1, 2))             # [B, H, W//2+1, C]
        w = lax.complex(w_re, w_im)                    # [M, M, C, C]
        low = jnp.einsum("bxyi,xyio->bxyo", xf[:, :modes, :modes], w)
        outf = jnp.zeros(xf.shape[:3] + (w.shape[-1],), xf.dtype)
        outf = outf.at[:, :modes, :modes].set(low)
        out = jnp.fft.irfft2(outf, s=x.shape[1:3], axes=(1, 2))
        eye = jnp.eye(x.shape[-1], w.shape[-1], dtype=x.dtype)
        return jax.nn.gelu(out + x @ eye)

    def loss(w_re, w_im):
        return jnp.mean((layer(w_re, w_im, x) - y) ** 2)
    return jax.value_and_grad(loss, argnums=(0, 1))(w_re, w_im)


def bcoo_sparse_layer_grad(data, indices, w, x):
    # jax.experimental.sparse: a BCOO adjacency times dense features, its
    # transpose product, and the gradient with respect to the nonzeros
    # and the dense weight.
    from jax.experimental import sparse
    n = x.shape[0]

    def loss(data, w):
        a = sparse.BCOO((data, indices), shape=(n, n))
        h = jax.nn.relu(a @ (x @ w))
        h2 = a.T @ h
        return jnp.sum(h2 ** 2) / n + jnp.sum(sparse.todense(a) ** 2)
    dense = sparse.todense(sparse.BCOO((data, indices), shape=(n, n)))
    return dense, jax.value_and_grad(loss, argnums=(0, 1))(data, w)


def _bcoo_inputs(r):
    n, nnz = 9, 20
    idx = np.stack([ints(r, (nnz,), 0, n), ints(r, (nnz,), 0, n)], 1)
    idx[3] = idx[5]  # a duplicate coordinate: summed
    return [floats(r, (nnz,)), idx.astype(np.int32), _w(r, 4, 5),
            floats(r, (n, 4))]


def int8_gpt_generate(wq, scale, emb, prompt, key):
    # Weight-only int8 inference: per-output-channel scales, s8 x s8 -> s32
    # dots on activations quantised per row, then sampling with top-k
    # filtering and temperature, a token at a time in a fori_loop.
    max_new, vocab = 6, emb.shape[0]
    b, t0 = prompt.shape
    total = t0 + max_new

    def qdot(x, wq, scale):
        xs = jnp.max(jnp.abs(x), -1, keepdims=True) / 127.0 + 1e-8
        xq = jnp.clip(jnp.round(x / xs), -127, 127).astype(jnp.int8)
        acc = lax.dot_general(xq, wq, (((1,), (0,)), ((), ())),
                              preferred_element_type=jnp.int32)
        return acc.astype(jnp.float32) * xs * scale

    def body(i, s):
        toks, key = s
        x = emb[toks].mean(1)                          # a bag of tokens
        h = jax.nn.relu(qdot(x, wq[0], scale[0]))
        logits = qdot(h, wq[1], scale[1]) / 0.7
        kth = lax.top_k(logits, 4)[0][:, -1:]
        logits = jnp.where(logits < kth, -jnp.inf, logits)
        key, sub = jax.random.split(key)
        nxt = jax.random.categorical(sub, logits).astype(jnp.int32)
        pos = jnp.minimum(t0 + i, total - 1).astype(jnp.int32)
        toks = lax.dynamic_update_slice(toks, nxt[:, None],
                                        (jnp.int32(0), pos))
        return toks, key
    toks = jnp.concatenate([prompt, jnp.zeros((b, max_new), jnp.int32)], 1)
    toks, _ = lax.fori_loop(0, max_new, body, (toks, key))
    return toks


def _int8_inputs(r):
    d, vocab = 16, 20
    w = [floats(r, (d, d)), floats(r, (d, vocab))]
    scale = [np.abs(x).max(0, keepdims=True) / 127 for x in w]
    wq = [np.clip(np.round(x / s), -127, 127).astype(np.int8)
          for x, s in zip(w, scale)]
    return [wq, [s.astype(np.float32) for s in scale], floats(r, (vocab, d)),
            ints(r, (3, 4), 0, vocab), prng_key(r)]


def ppo_gae_loss_grad(p, obs, actions, rewards, dones, old_logp, old_v):
    # PPO: GAE by a reverse scan, normalised advantages, clipped ratio and
    # clipped value losses, entropy bonus; value and gradient.
    gamma, lam, clip = 0.99, 0.95, 0.2

    def net(p, o):
        h = jnp.tanh(o @ p["w"] + p["b"])
        return h @ p["pi"], (h @ p["v"])[..., 0]

    logits, values = net(p, obs)
    next_v = jnp.concatenate([values[1:], jnp.zeros_like(values[:1])])

    def gae(carry, inp):
        r, d, v, nv = inp
        delta = r + gamma * nv * (1 - d) - v
        carry = delta + gamma * lam * (1 - d) * carry
        return carry, carry
    _, adv = lax.scan(gae, jnp.zeros_like(values[0]),
                      (rewards, dones, values, next_v), reverse=True)
    adv = lax.stop_gradient(adv)
    returns = adv + lax.stop_gradient(values)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)

    def loss(p):
        logits, v = net(p, obs)
        logp_all = jax.nn.log_softmax(logits)
        logp = jnp.take_along_axis(logp_all, actions[..., None], -1)[..., 0]
        ratio = jnp.exp(logp - old_logp)
        pg = -jnp.minimum(ratio * adv,
                          jnp.clip(ratio, 1 - clip, 1 + clip) * adv).mean()
        v_clip = old_v + jnp.clip(v - old_v, -clip, clip)
        vl = 0.5 * jnp.maximum((v - returns) ** 2,
                               (v_clip - returns) ** 2).mean()
        ent = -(jnp.exp(logp_all) * logp_all).sum(-1).mean()
        frac = (jnp.abs(ratio - 1) > clip).mean()
        return pg + 0.5 * vl - 0.01 * ent, frac
    return jax.value_and_grad(loss, has_aux=True)(p)


def _ppo_inputs(r):
    t, n, o, a = 8, 3, 4, 3
    return [{"w": _w(r, o, 8), "b": np.zeros(8, np.float32),
             "pi": _w(r, 8, a), "v": _w(r, 8, 1)},
            floats(r, (t, n, o)), ints(r, (t, n), 0, a),
            floats(r, (t, n)), (r.random((t, n)) < 0.2).astype(np.float32),
            -1.1 + 0.1 * floats(r, (t, n)), floats(r, (t, n))]


def ensemble_vmap_adam(ps, m, v, x, y):
    # Three MLPs trained in lockstep: vmap of an Adam step over stacked
    # parameters (batched dots), the data shared.
    def step(p, m, v):
        def loss(p):
            h = jax.nn.swish(x @ p["w1"] + p["b1"])
            return jnp.mean((h @ p["w2"] - y) ** 2)
        l, g = jax.value_and_grad(loss)(p)
        m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
        v = jax.tree.map(lambda v, g: 0.99 * v + 0.01 * g * g, v, g)
        p = jax.tree.map(lambda p, m, v: p - 0.01 * m / (jnp.sqrt(v) + 1e-3),
                         p, m, v)
        return l, p, m, v
    return jax.vmap(step)(ps, m, v)


def _ensemble_inputs(r):
    e = 3
    ps = {"w1": floats(r, (e, 4, 7)) / 2, "b1": 0.1 * floats(r, (e, 7)),
          "w2": floats(r, (e, 7, 2)) / 3}
    m = jax.tree.map(lambda a: 0.01 * floats(r, a.shape), ps)
    v = jax.tree.map(lambda a: 1e-3 + 1e-3 * np.abs(floats(r, a.shape)), ps)
    return [ps, m, v, floats(r, (10, 4)), floats(r, (10, 2))]


def grad_accum_remat_scan(p, tok):
    # Gradient accumulation over microbatches in lax.scan, each
    # microbatch's transformer block under jax.checkpoint, then one SGD
    # step with the mean gradient.
    def block(p, x):
        h = _layer_norm(x, p["g"], p["b"])
        s = jnp.einsum("btd,bsd->bts", h @ p["q"], h @ p["k"]) / 4.0
        t = x.shape[1]
        s = jnp.where(jnp.tril(jnp.ones((t, t), bool)), s, -1e9)
        x = x + jax.nn.softmax(s, -1) @ (h @ p["v"])
        return x + jax.nn.gelu(x @ p["f1"]) @ p["f2"]

    def loss(p, tk):
        x = p["emb"][tk[:, :-1]]
        x = jax.checkpoint(block)(p, x)
        logits = x @ p["emb"].T
        return _xent(logits, tk[:, 1:])

    def micro(acc, tk):
        l, g = jax.value_and_grad(loss)(p, tk)
        return jax.tree.map(jnp.add, acc, g), l
    zeros = jax.tree.map(jnp.zeros_like, p)
    acc, losses = lax.scan(micro, zeros, tok)
    n = tok.shape[0]
    return losses, jax.tree.map(lambda w, g: w - 0.1 * g / n, p, acc)


def _xent(logits, labels):
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits),
                                         labels[..., None], -1))


def _accum_inputs(r):
    d, vocab = 8, 16
    p = {"emb": floats(r, (vocab, d)) / 2, "g": np.ones(d, np.float32),
         "b": np.zeros(d, np.float32), "q": _w(r, d, d), "k": _w(r, d, d),
         "v": _w(r, d, d), "f1": _w(r, d, 2 * d), "f2": _w(r, 2 * d, d)}
    return [p, ints(r, (3, 2, 7), 0, vocab)]


def pca_eigh_qr(x):
    # PCA by eigh of the covariance, whitening, reconstruction from the top
    # components; QR of the data for an orthonormal basis; signs fixed so
    # the result does not depend on the solver's choice.
    xc = x - x.mean(0)
    cov = xc.T @ xc / (x.shape[0] - 1)
    evals, evecs = jnp.linalg.eigh(cov)
    evecs = evecs * jnp.sign(evecs[jnp.argmax(jnp.abs(evecs), 0),
                                    jnp.arange(evecs.shape[1])])
    top = evecs[:, ::-1][:, :2]
    recon = (xc @ top) @ top.T + x.mean(0)
    white = xc @ evecs / jnp.sqrt(evals + 1e-5)
    q, r = jnp.linalg.qr(x)
    sgn = jnp.sign(jnp.diag(r))
    return evals, evecs, recon, white.T @ white, q * sgn, r * sgn[:, None]


def dirichlet_vi_grad(log_alpha, counts):
    # Variational inference for a Dirichlet-multinomial: the ELBO through
    # lgamma and digamma, its gradient, and the analytic KL to a uniform
    # prior.
    def elbo(log_alpha):
        alpha = jnp.exp(log_alpha)
        a0 = alpha.sum(-1, keepdims=True)
        e_log_theta = jax.scipy.special.digamma(alpha) - \
            jax.scipy.special.digamma(a0)
        ll = jnp.sum(counts * e_log_theta)
        prior = jnp.ones_like(alpha)
        kl = (jax.scipy.special.gammaln(a0[..., 0])
              - jnp.sum(jax.scipy.special.gammaln(alpha), -1)
              - jax.scipy.special.gammaln(prior.sum(-1))
              + jnp.sum(jax.scipy.special.gammaln(prior), -1)
              + jnp.sum((alpha - prior) * e_log_theta, -1))
        return ll - kl.sum()
    return jax.value_and_grad(elbo)(log_alpha)


def augment_crop_flip_conv(images, key, w):
    # Data augmentation per example under vmap: a random 6x6 crop of an
    # 8x8 image (dynamic_slice), a random horizontal flip, brightness and
    # contrast jitter, then a conv layer and global pooling.
    def aug(img, k):
        k1, k2, k3, k4 = jax.random.split(k, 4)
        oy, ox = jax.random.randint(k1, (2,), 0, 3, jnp.int32)
        crop = lax.dynamic_slice(img, (oy, ox, jnp.int32(0)), (6, 6, 3))
        crop = jnp.where(jax.random.bernoulli(k2), crop[:, ::-1], crop)
        bright = jax.random.uniform(k3, (), img.dtype, -0.2, 0.2)
        contrast = jax.random.uniform(k4, (), img.dtype, 0.8, 1.2)
        mean = crop.mean()
        return jnp.clip((crop - mean) * contrast + mean + bright, 0.0, 1.0)
    keys = jax.random.split(key, images.shape[0])
    batch = jax.vmap(aug)(images, keys)
    h = jax.nn.relu(_conv(batch, w))
    return batch, h.max((1, 2)), h.mean((1, 2))


def beam_search_while(emb, w, start):
    # Beam search (4 beams, vocabulary 10) in a while_loop: log-probs
    # accumulated per beam, top_k over beams x vocabulary, histories
    # gathered by the chosen parents, finished beams (EOS 0) frozen, a
    # length penalty at the end.
    nb, vocab, steps = 4, emb.shape[0], 6

    def cond(s):
        i, _, _, _, fin, _ = s
        return (i < steps) & ~jnp.all(fin)

    def body(s):
        i, tok, score, hist, fin, length = s
        logp = jax.nn.log_softmax(jnp.tanh(emb[tok] @ w) @ emb.T * 3.0)
        # A finished beam extends only by EOS at no cost.
        eos_row = jnp.where(jnp.arange(vocab) == 0, 0.0, -jnp.inf)
        logp = jnp.where(fin[:, None], eos_row, logp)
        cand = (score[:, None] + logp).reshape(-1)
        cand = jnp.where(i == 0, jnp.where(jnp.arange(nb * vocab) < vocab,
                                           cand, -jnp.inf), cand)
        top, idx = lax.top_k(cand, nb)
        parent, nxt = idx // vocab, (idx % vocab).astype(jnp.int32)
        hist = hist[parent].at[:, i].set(nxt)
        fin2 = fin[parent] | (nxt == 0)
        length = length[parent] + (~fin[parent]).astype(jnp.int32)
        return i + 1, nxt, top, hist, fin2, length
    init = (jnp.int32(0), jnp.full((nb,), start, jnp.int32),
            jnp.zeros((nb,), emb.dtype), jnp.full((nb, steps), -1, jnp.int32),
            jnp.zeros((nb,), bool), jnp.zeros((nb,), jnp.int32))
    i, _, score, hist, fin, length = lax.while_loop(cond, body, init)
    norm = score / ((5.0 + length) / 6.0) ** 0.6
    best = jnp.argmax(norm)
    return i, score, hist, fin, length, hist[best]


def welford_scan_stats(xs, x64):
    # Streaming mean and variance (Welford's, Chan's merge of batches) in
    # lax.scan, f32 and f64, against the two-pass formulas.
    def merge(s, batch):
        n, mean, m2 = s
        nb = batch.shape[0]
        bm = batch.mean(0)
        bm2 = ((batch - bm) ** 2).sum(0)
        tot = n + nb
        delta = bm - mean
        mean = mean + delta * nb / tot
        m2 = m2 + bm2 + delta ** 2 * n * nb / tot
        return (tot, mean, m2), mean

    def run(x):
        z = jnp.zeros(x.shape[-1], x.dtype)
        (n, mean, m2), trace = lax.scan(merge, (jnp.zeros((), x.dtype), z, z),
                                        x)
        flat = x.reshape(-1, x.shape[-1])
        return mean, m2 / (n - 1), flat.mean(0), flat.var(0, ddof=1), trace
    return run(xs), run(x64)


def bf16_convnet_bn(p, x):
    # Mixed precision: bf16 activations and convolutions, batch statistics
    # in f32, a residual, max pool, the loss in f32, gradients to f32.
    def loss(p):
        h = x.astype(jnp.bfloat16)
        c = _conv(h, p["c1"].astype(jnp.bfloat16))
        hf = c.astype(jnp.float32)
        mu = hf.mean((0, 1, 2))
        var = jnp.mean(jnp.square(hf - mu), (0, 1, 2))
        hn = ((hf - mu) * lax.rsqrt(var + 1e-5) * p["g"] + p["b"]).astype(
            jnp.bfloat16)
        h = jax.nn.relu(hn)
        h = h + _conv(h, p["c2"].astype(jnp.bfloat16))
        h = lax.reduce_window(h, np.array(-np.inf, jnp.bfloat16), lax.max,
                              (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        logits = h.mean((1, 2)).astype(jnp.float32) @ p["fc"]
        return jnp.mean(jax.nn.logsumexp(logits, -1) - logits[:, 0]), mu
    return jax.value_and_grad(loss, has_aux=True)(p)


def _bf16_conv_inputs(r):
    return [{"c1": _w(r, 3, 3, 3, 6), "g": np.ones(6, np.float32),
             "b": np.zeros(6, np.float32), "c2": _w(r, 3, 3, 6, 6) * 0.5,
             "fc": _w(r, 6, 4)}, floats(r, (3, 6, 6, 3))]


def rbg_dropout_train(raw_key, w, x):
    # The rbg and unsafe_rbg generators (typed keys from raw data), as
    # flax users select them, driving dropout in a training step.
    def loss(w, impl):
        k = jax.random.wrap_key_data(raw_key, impl=impl)
        k1, k2 = jax.random.split(k)
        h = jax.nn.relu(x @ w)
        keep = jax.random.bernoulli(k1, 0.7, h.shape)
        h = jnp.where(keep, h / 0.7, 0)
        noise = jax.random.normal(k2, h.shape, h.dtype)
        return jnp.mean((h + 0.01 * noise) ** 2)
    return (jax.value_and_grad(loss)(w, "rbg"),
            jax.value_and_grad(loss)(w, "unsafe_rbg"))


def x64_integer_pipeline(ids, vals, big):
    # s64/u64 bookkeeping as data pipelines write it: a 64-bit hash of ids
    # (xorshift-multiply), bucketing by the hash, a stable sort by bucket
    # with a payload, bincount, cumulative sums past 2^32, s64 division and
    # remainder of negatives, and a compensated (Kahan) f64 sum of values
    # that cancel (the plain sum only of the well-conditioned tail, which
    # any summation order gets right).
    h = ids.astype(jnp.uint64)
    h = (h ^ (h >> 33)) * jnp.uint64(0xFF51AFD7ED558CCD)
    h = (h ^ (h >> 33)) * jnp.uint64(0xC4CEB9FE1A85EC53)
    h = h ^ (h >> 33)
    bucket = (h % jnp.uint64(7)).astype(jnp.int64)
    order = jnp.argsort(bucket, stable=True)
    counts = jnp.bincount(bucket, length=7)
    run = jnp.cumsum(big)

    def kahan(i, s):
        total, c = s
        y = vals[i] - c
        t = total + y
        return t, (t - total) - y
    ksum = lax.fori_loop(0, vals.shape[0], kahan,
                         (jnp.float64(0), jnp.float64(0)))[0]
    return (h, bucket[order], ids[order], counts, run, big // -7, big % -7,
            ksum, jnp.sum(vals[3:]))


PROGRAMS = {
    "gpt2_train_step_f32": (gpt2_train_step_f32,
                            lambda r: _gpt2_inputs(r, 3)),
    "gpt2_train_step_bf16": (gpt2_train_step_bf16,
                             lambda r: _gpt2_inputs(r, 17)),
    "convnet_bn_train_step": (convnet_bn_train_step, _convnet_inputs),
    "lstm_gru_masked_grad": (lstm_gru_masked_grad, _rnn_inputs),
    "seq2seq_greedy_kv": (seq2seq_greedy_kv, _seq2seq_inputs),
    "moe_capacity_routing": (moe_capacity_routing, _moe_inputs),
    "gnn_message_passing_grad": (gnn_message_passing_grad, _gnn_inputs),
    "kmeans_fori": (kmeans_fori, _kmeans_inputs),
    "neural_ode_rk4_grad": (neural_ode_rk4_grad, _ode_inputs),
    "nbody_step_f64": (nbody_step_f64, lambda r: [
        r.standard_normal((6, 3)), 0.1 * r.standard_normal((6, 3)),
        r.uniform(0.5, 2.0, 6)]),
    "escape_counts": (escape_counts, _escape_inputs),
    "gp_posterior_loglik_grad": (gp_posterior_loglik_grad, _gp_inputs),
    "hmc_langevin": (hmc_langevin, _hmc_inputs),
    "vae_adam_step": (vae_adam_step, _vae_inputs),
    "remat_custom_rules": (remat_custom_rules, lambda r: [
        [_w(r, 5, 5) for _ in range(3)], floats(r, (4, 5))]),
    "hvp_grad_of_grad": (hvp_grad_of_grad, _hvp_inputs),
    "dp_sgd_per_example": (dp_sgd_per_example, _dp_inputs),
    "x64_newton_logistic": (x64_newton_logistic, _x64_inputs),
    "flash_attention_scan_grad": (flash_attention_scan_grad, lambda r: [
        floats(r, (2, 12, 8)), floats(r, (2, 12, 8)), floats(r, (2, 12, 8))]),
    "fno_spectral_conv_grad": (fno_spectral_conv_grad, lambda r: [
        floats(r, (3, 3, 2, 4)) / 4, floats(r, (3, 3, 2, 4)) / 4,
        floats(r, (2, 8, 8, 2)), floats(r, (2, 8, 8, 4))]),
    "bcoo_sparse_layer_grad": (bcoo_sparse_layer_grad, _bcoo_inputs),
    "int8_gpt_generate": (int8_gpt_generate, _int8_inputs),
    "ppo_gae_loss_grad": (ppo_gae_loss_grad, _ppo_inputs),
    "ensemble_vmap_adam": (ensemble_vmap_adam, _ensemble_inputs),
    "grad_accum_remat_scan": (grad_accum_remat_scan, _accum_inputs),
    "pca_eigh_qr": (pca_eigh_qr, lambda r: [
        (floats(r, (20, 4)) @ np.diag([3.0, 1.5, 0.7, 0.2])).astype(
            np.float32)]),
    "dirichlet_vi_grad": (dirichlet_vi_grad, lambda r: [
        0.5 * floats(r, (3, 5)), ints(r, (3, 5), 0, 9).astype(np.float32)]),
    "augment_crop_flip_conv": (augment_crop_flip_conv, lambda r: [
        r.random((4, 8, 8, 3)).astype(np.float32), prng_key(r),
        _w(r, 3, 3, 3, 4)]),
    "beam_search_while": (beam_search_while, lambda r: [
        floats(r, (10, 6)), _w(r, 6, 6), np.int32(3)]),
    "welford_scan_stats": (welford_scan_stats, lambda r: [
        3 + floats(r, (5, 4, 3)), 1e4 + r.standard_normal((5, 4, 3))]),
    "bf16_convnet_bn": (bf16_convnet_bn, _bf16_conv_inputs),
    "rbg_dropout_train": (rbg_dropout_train, lambda r: [
        ints(r, (4,), 0, 2**32, np.uint32), _w(r, 5, 6), floats(r, (7, 5))]),
    "x64_integer_pipeline": (x64_integer_pipeline, lambda r: [
        ints(r, (40,), -2**62, 2**62, np.int64),
        np.concatenate([[1e16, 1.0, -1e16], r.standard_normal(37)]),
        ints(r, (40,), -2**40, 2**40, np.int64)]),
}
