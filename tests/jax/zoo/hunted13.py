"""Zoo: programs from the thirteenth bug hunt, aimed at what real JAX
users write that the zoo had not reached, and at size: long loops on the
reference evaluator, long straight-line modules, very wide instructions and
degenerate shapes. Attention and sequence models: jax.nn.dot_product_
attention with grouped-query heads, a bias, a boolean mask, causal
masking, per-example query and key lengths and a local window, with its
gradient by q, k, v and the bias; retention / linear attention in its
recurrent, parallel and chunkwise forms (and the chunked form's
gradient); RWKV-4's WKV recurrence with the running-max trick against its
quadratic form; Mamba's selective scan by lax.associative_scan forward,
reversed and flipped, against lax.scan, with its gradient. Quantisation:
FP8 delayed scaling (e4m3fn activations, e5m2 weights, amax history
rolled, dots to f32 and bf16, a batched e4m3fn product, e5m2 -> e4m3fn
past 448), int8 per-channel and per-token scales with s8 x s8 -> s32 and
u8 x s8 zero-point dots and int4 weights. Top-2 MoE routing with capacity,
first choices before second, token dropping and the load-balancing loss,
with its gradient. jax.checkpoint policies (save_only_these_names,
nothing_saveable, dots_with_no_batch_dims_saveable,
save_any_names_but_these) in scans with unroll=3, forward and reversed;
custom_jvp with nondiff_argnums (a function and an int) and implicit
differentiation of a fixed point under grad, jacfwd, jacrev and vmap; a
vmapped while loop with per-row trip counts holding a cond, a switch and
a nested while loop. Newer jnp spellings (cumulative_sum/prod with
include_initial, unstack, matrix_transpose, complex vecdot, bitwise_count,
astype(copy=True), permute_dims, concat, bitwise_* aliases); jnp.pad in
every mode with widths past the axis and reflect_type="odd", and the
gradients of the reflect, symmetric, wrap, edge and linear_ramp pads;
jax.image.resize in every method up and down (antialiased), scale_and_
translate, and resize gradients; lax.reduce_window with strides,
asymmetric padding, window and base dilation, rolling means and
variances, and gradients of strided pools and base-dilated sums; lax.sort
of three operands with num_keys=2 over NaNs and signed zeros, stable f16
sorts, descending stable argsort, lexsort, u64 keys above 2^63.
Numerics: shifts by amounts at and past the width in seven integer types,
at run time and folded; lax.clamp with crossed and NaN bounds, rounding
of halves in f32/f16/bf16, nextafter from zeros, denormals, the largest
float, NaN and infinities in f32 and f64; conversions that would round
twice through f32 (f64 to bf16, f16 and 8-bit floats; s64/u64 to narrow
floats), every 8-bit float type past its range, saturating float to
integer conversions with NaN; indices of u8, u16, u32 (4294967295) and s8
in gathers, scatters, dynamic slices and vmapped dynamic indexing;
division and remainder by constants (powers of two, negatives, 641, the
type's max and INT_MIN) in s8 to s64, u32 and u64. Size: 16 attention
layers in a fori_loop(unroll=True) with the gradient; arrays with a
zero-sized dimension through dots, reductions, sorts, top_k, scans, while
loops, convolutions, pads and reduce-windows; size-1 dimensions
everywhere; reductions over prime-sized axes past the threads' split (an
argmax of 10^6 with ties, a column argmax of [5003, 7], u8 sums that wrap);
complex gradients (conjugate cotangents, holomorphic grads, jacfwd and
jacrev of c64 and c128 functions, a modReLU layer); 150 outputs including
parameters returned twice, constants and empty arrays of every type;
while and scan carries of c64, bf16, e4m3fn, pred, u8, s4 and empty
arrays; jax.nn activations in bf16 and f16 with gradients; 200000
logistic-map steps, a scan of 20000 with its gradient and an LCG search;
stencils unrolled in Python (24 Jacobi steps by rolls, 16 of life, 12 of
upwind advection) and diamonds of depth 40; a stack and a concatenation of
600 arrays passed as a list, a 64-way select; the evaluator on a
convolution of 2x48x48x16 with both gradients, pooling gradients, a sort
of 300000 and a scatter of 500000; a while loop vmapped over 2000 rows.

Three bugs found, all fixed. The evaluator passed a called computation
(call, and a conditional's branch) its operands borrowed, so an update of
one copied it first: JAX's lax.scan writes each step's output into the
stacked outputs through a call of dynamic_update_index_in_dim, so every
step copied the whole stacked array, quadratic in the scan's length (12.4
s for a scan of 40000 steps, 5.2 s for 20000); operands nothing else
reads are moved in now, 1.3 s and 0.7 s (382486b; control_test
CalledComputationsUpdateTakenOperandsInPlace). And it asked the system
for the host's memory (sysconf(_SC_PHYS_PAGES), a sysinfo system call)
before every instruction it evaluated, a third of a scalar loop's time:
200000 logistic-map steps took 9.1 s, now 3.4 s (06449fe; no unit test:
a constant factor). long_loops_small_state took the evaluator 30 s, now
6. And a concatenate with more operands than a GPU kernel's 4352 bytes
of parameters hold (jnp.stack of a list of 600 arrays) did not compile for
cuda: ptxas refused the kernel ("uses too much parameter space"); the GPU
pipelines split concatenates of over 128 operands into trees (918cccf;
concatenate_splitter_test; wide_concat_stack).

Found and left, none wrong, all slow to compile. wide_concat_stack takes
the cpu about 11 s to compile (XLA:CPU 2 s): the 600 reshapes of
parameters to [1, 3] that jnp.stack makes are layout-preserving, but the
600-operand concatenate cannot fuse them (a fusion takes at most 64
operands), so each is a copy kernel of its own, 602 functions for LLVM;
XLA makes them bitcasts. A pass turning such standalone reshapes into
bitcasts on the CPU, as transpose-bitcasts does for the GPU, would fix
it. instruction-fusion is quadratic in a computation's size where it
starts many new fusions: each new one orders the whole computation
(MakeInstructionPostOrder in FuseInstructions, SortInstructionsInPostOrder
in CreateFusionInstruction, the alive set rebuilt): 17 s of HLO passes
for a first draft of wide_concat_stack (600 scaled slices concatenated,
1000 sines stacked: 12000 instructions, 1600 small fusions), which
XLA:CPU took 43 s to compile and so was cut down; growing a fusion is
already linear. fori_unrolled_layers
compiles in 13 s on x86 against XLA:CPU's 5 (1004 small kernels, every
dot its own function, identical ones not shared), unrolled_stencils and
diamond_chains in about 16 s for cuda.

The compile times, followed up (branch ctime, hlo-opt --time-passes).
wide_concat_stack's cpu compile was not its 600 copy kernels but LLVM's
IndVarSimplify on the 600-operand concatenate, whose elements were
selected by a chain of 600 nested branches: 9.5 of 13 s of O3; the
emitter now searches the operands' offsets in halves (log2(n) compares).
fori_unrolled_layers' (and the 600 identical copies') O3 and code
generation ran over every repeated kernel: LLVM's MergeFunctions now runs
before O3 on the CPU (1004 functions, 438 different). hlo-opt
--stage=executable, medians of 5 interleaved runs on the loaded 2-core
machine, before -> after: wide_concat_stack cpu 30.0 -> 7.0 s,
fori_unrolled_layers cpu 24.9 -> 7.5 s, unrolled_stencils cpu 7.4 -> 6.0
s, diamond_chains cpu 4.1 -> 3.2 s; cuda unchanged within the noise
(optimised HLO byte-identical; tools/compile_bench_RESULTS.md).
Still left: cuda, where ptxas and LLVM spend their time on a few huge
kernels the fusion pass makes on purpose (diamond_chains: 14 s of ptxas
on one kernel of 80 inlined sines and cosines; unrolled_stencils: a
kernel of 118000 lines of IR, four stencil levels fused, each level's
code emitted once per read); the quadratic instruction-fusion above
(0.6 s of wide_concat_stack now); the copy kernels of the reshapes
(now one function, but still 600 launches). Not done: a Python-unrolled RK4
of 120 (and 40) steps with its gradient was dropped, XLA:CPU itself did
not finish compiling it in 10 minutes. The cuda executables were compiled
(hlo-opt --platform=cuda --stage=hlo and --stage=executable, all 34
programs) but not run on a GPU in this hunt.
"""

import functools

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name
import numpy as np
from jax import lax

from jax_harness import floats, ints

_HI = lax.Precision.HIGHEST


def _quarters(r, shape, lo=-4, hi=5, dtype=np.float32):
    # Values on a grid of quarters: products and their sums stay exact in
    # f32, so any summation order gives the same bits.
    return (r.integers(lo, hi, size=shape) / 4).astype(dtype)


# --- Attention ---------------------------------------------------------------

def gqa_attention_grads(q, k, v, bias, qlen, kvlen):
    # jax.nn.dot_product_attention with grouped-query heads (8 query heads
    # over 2 key/value heads), a bias broadcast over the batch, a boolean
    # mask, causal masking, per-example query and key lengths and a local
    # window; and the gradient of a loss over q, k, v and the bias.
    mask = (jnp.arange(k.shape[1])[None, :] % 5) != 3

    def attn(q, k, v, bias):
        a = jax.nn.dot_product_attention(q, k, v, bias=bias, is_causal=True)
        b = jax.nn.dot_product_attention(q, k, v, mask=mask[None, None],
                                         scale=0.25)
        c = jax.nn.dot_product_attention(q, k, v,
                                         query_seq_lengths=qlen,
                                         key_value_seq_lengths=kvlen)
        d = jax.nn.dot_product_attention(q, k, v, is_causal=True,
                                         local_window_size=(3, 0))
        return a, b, c, d

    outs = attn(q, k, v, bias)

    def loss(q, k, v, bias):
        a, b, c, d = attn(q, k, v, bias)
        live = (jnp.arange(q.shape[1])[None, :] < qlen[:, None])
        c = c * live[:, :, None, None]
        return (jnp.sum(a * a) + jnp.sum(jnp.sin(b)) + jnp.sum(c ** 2)
                + jnp.sum(d * jnp.arange(d.shape[-1])))

    return outs + jax.grad(loss, argnums=(0, 1, 2, 3))(q, k, v, bias)


def _gqa_inputs(r):
    return [floats(r, (2, 9, 8, 16)), floats(r, (2, 9, 2, 16)),
            floats(r, (2, 9, 2, 16)), floats(r, (1, 8, 9, 9)),
            np.array([9, 5], np.int32), np.array([7, 9], np.int32)]


def linear_attention_chunked(q, k, v, decay):
    # Retention/linear attention three ways: the recurrent form (a scan
    # carrying a [d, d] state with a per-head decay), the parallel form
    # (a causal decay mask D[i, j] = g^(i-j)) and the chunkwise form
    # (intra-chunk masked products plus an inter-chunk scan of states);
    # and the gradient of the chunked form.
    T, H, D = q.shape
    g = jax.nn.sigmoid(decay)  # [H]

    def recurrent(q, k, v):
        def step(s, qkv):
            qt, kt, vt = qkv
            s = g[:, None, None] * s + kt[:, :, None] * vt[:, None, :]
            return s, jnp.einsum("hd,hde->he", qt, s, precision=_HI)
        return lax.scan(step, jnp.zeros((H, D, D)), (q, k, v))[1]

    def parallel(q, k, v):
        i = jnp.arange(T)
        expo = (i[:, None] - i[None, :]).astype(jnp.float32)
        dm = jnp.where(expo >= 0, g[:, None, None] ** jnp.maximum(expo, 0),
                       0.0)
        s = jnp.einsum("thd,shd->hts", q, k, precision=_HI) * dm
        return jnp.einsum("hts,she->the", s, v, precision=_HI)

    def chunked(q, k, v, c=4):
        n = T // c
        qc, kc, vc = (x.reshape(n, c, H, D) for x in (q, k, v))
        i = jnp.arange(c)
        expo = (i[:, None] - i[None, :]).astype(jnp.float32)
        dm = jnp.where(expo >= 0, g[:, None, None] ** jnp.maximum(expo, 0),
                       0.0)
        gin = g[:, None] ** (i[None, :] + 1.0)        # [H, c] into chunk
        gout = g[:, None] ** (c - 1.0 - i[None, :])   # [H, c] to chunk end

        def step(s, x):
            qb, kb, vb = x
            intra = jnp.einsum("hts,she->the",
                               jnp.einsum("thd,shd->hts", qb, kb,
                                          precision=_HI) * dm,
                               vb, precision=_HI)
            inter = jnp.einsum("thd,hde->the", qb * gin.T[:, :, None], s,
                               precision=_HI)
            s = (g[:, None, None] ** c) * s + jnp.einsum(
                "thd,the->hde", kb * gout.T[:, :, None], vb, precision=_HI)
            return s, intra + inter

        return lax.scan(step, jnp.zeros((H, D, D)), (qc, kc, vc))[1].reshape(
            T, H, D)

    grads = jax.grad(lambda q, k, v: jnp.sum(chunked(q, k, v) ** 2),
                     argnums=(0, 1, 2))(q, k, v)
    return (recurrent(q, k, v), parallel(q, k, v), chunked(q, k, v)) + grads


def rwkv_wkv_recurrence(w, u, k, v):
    # RWKV-4's WKV operator with the running-max trick (a, b, p carried in
    # a scan; exp of differences against the max), against the direct
    # quadratic form, and its gradient through the scan.
    T, C = k.shape

    def wkv(w, u, k, v):
        def step(st, kv):
            a, b, p = st
            kt, vt = kv
            ww = u + kt
            q = jnp.maximum(p, ww)
            e1, e2 = jnp.exp(p - q), jnp.exp(ww - q)
            y = (e1 * a + e2 * vt) / (e1 * b + e2)
            ww = p - jnp.exp(w)
            q = jnp.maximum(ww, kt)
            e1, e2 = jnp.exp(ww - q), jnp.exp(kt - q)
            return (e1 * a + e2 * vt, e1 * b + e2, q), y

        init = (jnp.zeros(C), jnp.zeros(C), jnp.full(C, -1e38))
        return lax.scan(step, init, (k, v))[1]

    def direct(w, u, k, v):
        t = jnp.arange(T)
        dist = (t[:, None] - 1 - t[None, :]).astype(jnp.float32)
        logits = jnp.where(dist[:, :, None] >= 0,
                           -dist[:, :, None] * jnp.exp(w) + k[None], -jnp.inf)
        diag = (u + k)[:, None, :]
        logits = jnp.concatenate([logits, diag], axis=1)
        vals = jnp.concatenate([jnp.broadcast_to(v[None], (T, T, C)),
                                v[:, None, :]], axis=1)
        wts = jax.nn.softmax(logits, axis=1)
        return jnp.sum(wts * vals, axis=1)

    y = wkv(w, u, k, v)
    g = jax.grad(lambda *a: jnp.sum(jnp.tanh(wkv(*a))), argnums=(0, 1, 2, 3))(
        w, u, k, v)
    return (y, direct(w, u, k, v)) + g


# --- State-space models --------------------------------------------------------

def mamba_associative_scan(x, delta, A, B, C, D):
    # Mamba's selective scan as lax.associative_scan over (dA, dB x) pairs,
    # along the sequence of [B, L, D, N] tensors, forward and reversed (a
    # bidirectional block), against lax.scan; and its gradient.
    def discretize(x, delta, A, B):
        dt = jax.nn.softplus(delta)                        # [b, l, d]
        dA = jnp.exp(dt[..., None] * A)                    # [b, l, d, n]
        dBx = dt[..., None] * B[:, :, None, :] * x[..., None]
        return dA, dBx

    def combine(e1, e2):
        a1, b1 = e1
        a2, b2 = e2
        return a2 * a1, a2 * b1 + b2

    def ssm(x, delta, A, B, C, D, reverse=False):
        dA, dBx = discretize(x, delta, A, B)
        _, h = lax.associative_scan(combine, (dA, dBx), axis=1,
                                    reverse=reverse)
        return jnp.einsum("bldn,bln->bld", h, C, precision=_HI) + D * x

    def ssm_scan(x, delta, A, B, C, D):
        dA, dBx = discretize(x, delta, A, B)

        def step(h, ab):
            a, b = ab
            h = a * h + b
            return h, h

        _, hs = lax.scan(step, jnp.zeros(dA.shape[:1] + dA.shape[2:]),
                         (jnp.swapaxes(dA, 0, 1), jnp.swapaxes(dBx, 0, 1)))
        return jnp.einsum("lbdn,bln->bld", hs, C, precision=_HI) + D * x

    fwd = ssm(x, delta, A, B, C, D)
    bwd = ssm(x[:, ::-1], delta[:, ::-1], A, B[:, ::-1], C[:, ::-1], D)
    rev = ssm(x, delta, A, B, C, D, reverse=True)
    g = jax.grad(lambda *a: jnp.sum(ssm(*a) ** 2) + jnp.sum(
        ssm(*a, reverse=True)), argnums=(0, 1, 2, 3, 4, 5))(
            x, delta, A, B, C, D)
    return (fwd, bwd, rev, ssm_scan(x, delta, A, B, C, D)) + g


def _mamba_inputs(r):
    b, l, d, n = 2, 11, 6, 4
    return [floats(r, (b, l, d)), floats(r, (b, l, d)) - 1,
            -np.exp(floats(r, (d, n)) * 0.5), floats(r, (b, l, n)),
            floats(r, (b, l, n)), floats(r, (d,))]


# --- Quantised matmuls -----------------------------------------------------

def fp8_scaled_matmuls(x, w, amax_hist):
    # FP8 training's delayed scaling: scales from an amax history, x cast
    # to e4m3fn and the gradient-side operand to e5m2 (saturating by
    # clipping first), dots with preferred_element_type f32 and bf16, a
    # batched e4m3fn x e4m3fn product, and the new amax pushed into the
    # history with jnp.roll.
    e4, e5 = jnp.float8_e4m3fn, jnp.float8_e5m2
    e4max = float(jnp.finfo(e4).max)
    e5max = float(jnp.finfo(e5).max)
    sx = e4max / jnp.maximum(jnp.max(amax_hist[0]), 1e-6)
    sw = e5max / jnp.maximum(jnp.max(amax_hist[1]), 1e-6)
    xq = jnp.clip(x * sx, -e4max, e4max).astype(e4)
    wq = jnp.clip(w * sw, -e5max, e5max).astype(e5)
    y32 = lax.dot_general(xq, wq, (((1,), (0,)), ((), ())),
                          preferred_element_type=jnp.float32) / (sx * sw)
    y16 = lax.dot_general(xq, wq, (((1,), (0,)), ((), ())),
                          preferred_element_type=jnp.bfloat16)
    xb = xq.reshape(2, -1, xq.shape[1])
    yb = lax.dot_general(xb, xb, (((2,), (2,)), ((0,), (0,))),
                         preferred_element_type=jnp.float32)
    new = jnp.stack([jnp.max(jnp.abs(x)), jnp.max(jnp.abs(w))])
    hist = jnp.roll(amax_hist, 1, axis=1).at[:, 0].set(new)
    # e5m2 -> e4m3fn: past 448 is NaN (e4m3fn has no infinity).
    conv = wq.astype(e4).astype(jnp.float32)
    return y32, y16, yb, hist, xq.astype(jnp.float32), conv


def _fp8_inputs(r):
    return [floats(r, (8, 24)), floats(r, (24, 12)) * 0.1,
            np.abs(floats(r, (2, 16))) + 0.5]


def int8_quantized_linear(x, w, bias):
    # Weight-only and weight+activation int8: per-output-channel symmetric
    # weight scales, per-token dynamic activation scales, s8 x s8 -> s32
    # dot_general, the s32 accumulator rescaled; an asymmetric u8 zero
    # point version (u8 activations, s32 correction terms); and int4
    # weights (jnp.int4) unpacked to int8 for the product.
    ws = jnp.max(jnp.abs(w), axis=0) / 127.0
    wq = jnp.round(w / ws).astype(jnp.int8)
    xs = jnp.max(jnp.abs(x), axis=1, keepdims=True) / 127.0
    xq = jnp.round(x / xs).astype(jnp.int8)
    acc = lax.dot_general(xq, wq, (((1,), (0,)), ((), ())),
                          preferred_element_type=jnp.int32)
    y = acc.astype(jnp.float32) * xs * ws + bias
    lo, hi = jnp.min(x), jnp.max(x)
    scale = (hi - lo) / 255.0
    zp = jnp.round(-lo / scale).astype(jnp.int32)
    xu = jnp.clip(jnp.round(x / scale) + zp, 0, 255).astype(jnp.uint8)
    accu = lax.dot_general(xu, wq, (((1,), (0,)), ((), ())),
                           preferred_element_type=jnp.int32)
    corr = zp * jnp.sum(wq.astype(jnp.int32), axis=0)
    yu = (accu - corr).astype(jnp.float32) * scale * ws + bias
    w4s = jnp.max(jnp.abs(w), axis=0) / 7.0
    w4 = jnp.clip(jnp.round(w / w4s), -8, 7).astype(jnp.int4)
    acc4 = lax.dot_general(xq, w4.astype(jnp.int8), (((1,), (0,)), ((), ())),
                           preferred_element_type=jnp.int32)
    y4 = acc4.astype(jnp.float32) * xs * w4s
    return y, acc, yu, accu, y4, w4.astype(jnp.int32)


# --- Mixture of experts --------------------------------------------------------

def moe_top2_capacity_grad(x, wg, w1, w2):
    # Top-2 routing with capacity: each token's first choice gets priority
    # over every token's second (positions by cumsum over the one-hot
    # masks, second choices offset by the first choices' counts), tokens
    # past capacity dropped, dispatch and combine as einsums of one-hot
    # tensors, an auxiliary load-balancing loss; the gradient of all of it.
    E, cap = wg.shape[1], 3

    def moe(x, wg, w1, w2):
        logits = jnp.dot(x, wg, precision=_HI)
        probs = jax.nn.softmax(logits, axis=-1)
        i1 = jnp.argmax(probs, axis=-1)
        m1 = jax.nn.one_hot(i1, E)
        i2 = jnp.argmax(jnp.where(m1 > 0, -jnp.inf, probs), axis=-1)
        m2 = jax.nn.one_hot(i2, E)
        pos1 = (jnp.cumsum(m1, axis=0) - 1) * m1
        pos2 = (jnp.cumsum(m2, axis=0) - 1 + jnp.sum(m1, axis=0)) * m2
        m1 = m1 * (pos1 < cap)
        m2 = m2 * (pos2 < cap)
        g1 = jnp.sum(probs * m1, -1)
        g2 = jnp.sum(probs * m2, -1)
        denom = jnp.maximum(g1 + g2, 1e-9)
        g1, g2 = g1 / denom, g2 / denom
        p1 = jax.nn.one_hot(jnp.sum(pos1 * m1, -1).astype(jnp.int32), cap)
        p2 = jax.nn.one_hot(jnp.sum(pos2 * m2, -1).astype(jnp.int32), cap)
        combine = (g1[:, None, None] * m1[:, :, None] * p1[:, None, :]
                   + g2[:, None, None] * m2[:, :, None] * p2[:, None, :])
        dispatch = (combine > 0).astype(x.dtype)
        xe = jnp.einsum("tec,td->ecd", dispatch, x, precision=_HI)
        h = jax.nn.gelu(jnp.einsum("ecd,edf->ecf", xe, w1, precision=_HI))
        ye = jnp.einsum("ecf,efd->ecd", h, w2, precision=_HI)
        y = jnp.einsum("tec,ecd->td", combine, ye, precision=_HI)
        aux = E * jnp.sum(jnp.mean(m1, 0) * jnp.mean(probs, 0))
        return y, aux, dispatch

    y, aux, dispatch = moe(x, wg, w1, w2)
    g = jax.grad(lambda *a: jnp.sum(moe(*a)[0] ** 2) + 0.1 * moe(*a)[1],
                 argnums=(0, 1, 2, 3))(x, wg, w1, w2)
    return (y, aux, dispatch) + g


# --- Control flow and autodiff ---------------------------------------------

def scan_remat_policies_unrolled(w, xs, h0):
    # A scanned residual MLP cell under jax.checkpoint with several
    # policies (save_only_these_names with checkpoint_name, nothing
    # saveable, dots without batch dims saveable, offload-free
    # save_any_names_but_these), scanned with unroll=3 and reverse=True
    # over 7 steps, and the gradient of each; all must agree.
    cp = jax.checkpoint_policies

    def cell(h, x):
        z = jnp.dot(h, w, precision=_HI)
        z = checkpoint_name(z, "z")
        a = jnp.tanh(z + x)
        a = checkpoint_name(a, "a")
        return h + 0.5 * jnp.dot(a, w.T, precision=_HI), jnp.sum(a)

    policies = [cp.save_only_these_names("z"), cp.nothing_saveable,
                cp.dots_with_no_batch_dims_saveable,
                cp.save_any_names_but_these("a"), None]
    outs = []
    for i, pol in enumerate(policies):
        f = cell if pol is None else jax.checkpoint(cell, policy=pol)

        def loss(w_, h0, f=f, rev=bool(i % 2)):
            def c(h, x):
                return f(h, x)
            hT, ys = lax.scan(c, h0, xs, reverse=rev, unroll=3)
            return jnp.sum(hT ** 2) + jnp.sum(ys)

        outs.append(jax.grad(loss, argnums=(0, 1))(w, h0))
    return outs


def custom_jvp_nondiff(x, y, n):
    # custom_jvp with nondiff_argnums holding a Python function and an int,
    # a custom rule for a clipped-gradient log and for a fixed-point solve
    # (implicit differentiation), used under grad, jacfwd, jacrev and vmap.
    @functools.partial(jax.custom_jvp, nondiff_argnums=(0, 1))
    def apply_k(f, k, x):
        for _ in range(k):
            x = f(x)
        return x

    @apply_k.defjvp
    def apply_k_jvp(f, k, primals, tangents):
        (x,), (t,) = primals, tangents
        y, dy = x, t
        for _ in range(k):
            y, dy = jax.jvp(f, (y,), (dy,))
        return y, dy * 1.0

    @jax.custom_jvp
    def safe_log(x):
        return jnp.log(x)

    @safe_log.defjvp
    def safe_log_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return jnp.log(x), t / jnp.maximum(x, 0.1)

    @functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
    def fixed_point(a, iters):
        def body(_, z):
            return jnp.tanh(a * z + 0.5)
        return lax.fori_loop(0, iters, body, jnp.zeros_like(a))

    @fixed_point.defjvp
    def fixed_point_jvp(iters, primals, tangents):
        (a,), (ta,) = primals, tangents
        z = fixed_point(a, iters)
        s = 1 - jnp.tanh(a * z + 0.5) ** 2
        return z, s * z * ta / (1 - s * a)

    f = lambda v: jnp.sin(v) * 1.5 + 0.1 * v ** 2
    g1 = jax.grad(lambda x: jnp.sum(apply_k(f, 3, x)))(x)
    j1 = jax.jacfwd(lambda x: apply_k(f, 2, x))(x)
    g2 = jax.vmap(jax.grad(lambda v: safe_log(v) * v))(jnp.abs(y))
    j2 = jax.jacrev(lambda a: fixed_point(a, 60))(x * 0.3)
    g3 = jax.vmap(jax.grad(lambda a: fixed_point(a, 60).sum()))(
        (x * 0.3)[None].repeat(2, 0))
    return g1, j1, g2, j2, g3, fixed_point(x * 0.3, 60) * n


def vmap_while_nested_conds(x0, limits, modes):
    # A while loop vmapped over rows with per-row trip counts, a lax.cond
    # and a lax.switch inside whose predicates and indices are per row, a
    # nested while loop in one branch, and a carried bool and u8 counter.
    def run(x, limit, mode):
        def cond(st):
            x, i, done, cnt = st
            return (i < limit) & ~done

        def body(st):
            x, i, done, cnt = st

            def inner(y):
                return lax.while_loop(lambda s: s[1] < mode + 1,
                                      lambda s: (s[0] * 0.5 + 1.0, s[1] + 1),
                                      (y, 0))[0]

            x = lax.cond(i % 2 == 0, inner, lambda y: y - 0.25, x)
            x = lax.switch(jnp.clip(mode + i, 0, 2),
                           [lambda y: y * 1.5, lambda y: jnp.abs(y),
                            lambda y: y + jnp.sum(y) * 0.1], x)
            done = jnp.max(jnp.abs(x)) > 50.0
            return x, i + 1, done, (cnt + jnp.uint8(37))
        return lax.while_loop(cond, body, (x, 0, False, jnp.uint8(0)))

    return jax.vmap(run)(x0, limits, modes)


# --- Arrays and the array API ------------------------------------------------

def array_api_newer(x, m, c, i8):
    # Spellings added to jnp in recent releases: cumulative_sum/prod with
    # include_initial and along axes, unstack, matrix_transpose, vecdot of
    # complex vectors (which conjugates its first argument), bitwise_count
    # of negatives, astype(copy=True), permute_dims, concat, pow and
    # atan2 aliases, jnp.isdtype-free type tests.
    u = jnp.unstack(m, axis=1)
    return (jnp.cumulative_sum(x, axis=0, include_initial=True),
            jnp.cumulative_prod(x * 0.5 + 1, axis=1, include_initial=True),
            jnp.cumulative_sum(i8, dtype=jnp.int8),
            jnp.stack(u[::-1], axis=0), jnp.matrix_transpose(x[None]),
            jnp.vecdot(c, c[::-1]), jnp.vecdot(c, c, axis=0),
            jnp.bitwise_count(i8), jnp.bitwise_count(i8.astype(jnp.uint64)),
            x.astype(jnp.float16, copy=True),
            jnp.permute_dims(m[None], (2, 0, 1)),
            jnp.concat([x, x[:1]], axis=0), jnp.pow(jnp.abs(x), 1.5),
            jnp.atan2(x, x.T[: x.shape[0], : x.shape[1]]),
            jnp.acosh(1 + jnp.abs(x)), jnp.bitwise_invert(i8),
            jnp.bitwise_left_shift(i8, 2), jnp.bitwise_right_shift(i8, 1))


def _api_inputs(r):
    return [floats(r, (5, 5)), floats(r, (3, 4)),
            (floats(r, (4, 6)) + 1j * floats(r, (4, 6))).astype(np.complex64),
            ints(r, (17,), -128, 128, np.int8)]


def pad_modes_grads(x, v):
    # jnp.pad in every mode on a 2-D image, with asymmetric widths, widths
    # larger than the axis (reflect and symmetric wrap around more than
    # once) and reflect_type="odd"; and the gradients of reflect, symmetric,
    # wrap, edge and linear_ramp pads (pads transpose to sums of slices).
    outs = [jnp.pad(x, ((2, 3), (1, 4)), mode=m)
            for m in ("constant", "edge", "reflect", "symmetric", "wrap",
                      "maximum", "minimum", "mean", "median")]
    outs += [jnp.pad(v, (9, 11), mode="reflect"),
             jnp.pad(v, (7, 13), mode="symmetric"),
             jnp.pad(v, (10, 10), mode="wrap"),
             jnp.pad(v, (4, 5), mode="reflect", reflect_type="odd"),
             jnp.pad(v, (4, 5), mode="symmetric", reflect_type="odd"),
             jnp.pad(x, ((1, 2), (3, 0)), mode="linear_ramp",
                     end_values=((1.0, -1.0), (2.0, 0.5))),
             jnp.pad(x, ((0, 0), (2, 2)), mode="constant",
                     constant_values=((0, 0), (-3, 7)))]
    w = jnp.arange(1.0, 1.0 + 11 * 12).reshape(11, 12)
    for m in ("reflect", "symmetric", "wrap", "edge", "linear_ramp"):
        outs.append(jax.grad(
            lambda x: jnp.sum(jnp.pad(x, ((3, 4), (4, 3)), mode=m) * w))(x))
    return outs


def image_resize_grads(img):
    # jax.image.resize up and down in every method (nearest, linear,
    # cubic, lanczos3, lanczos5), antialiased downsampling, scale_and
    # _translate with a non-integer scale and offset, and gradients of the
    # linear and lanczos3 downsampling with respect to the image.
    h, w = img.shape[1:3]
    outs = []
    for m in ("nearest", "linear", "cubic", "lanczos3", "lanczos5"):
        outs.append(jax.image.resize(img, (2, 13, 17, 3), method=m))
        outs.append(jax.image.resize(img, (2, 5, 7, 3), method=m,
                                     antialias=True))
    outs.append(jax.image.scale_and_translate(
        img, (2, 12, 9, 3), (1, 2), jnp.array([1.3, 0.7]),
        jnp.array([-0.5, 1.25]), method="cubic"))
    outs.append(jax.image.resize(img, (2, 5, 7, 3), method="linear",
                                 antialias=False))
    for m in ("linear", "lanczos3"):
        outs.append(jax.grad(lambda im: jnp.sum(jnp.sin(
            jax.image.resize(im, (2, 6, 5, 3), method=m))))(img))
    return outs


def rolling_window_stats(x, s):
    # Rolling statistics with lax.reduce_window: strides, explicit
    # asymmetric padding, window dilation and base dilation (rarely used:
    # the input spread with holes), for sum, max, min and an integer
    # product; rolling mean and variance; and the gradient of a strided,
    # dilated max pool and of a base-dilated sum.
    outs = [
        lax.reduce_window(x, 0.0, lax.add, (3, 2), (2, 1),
                          ((1, 2), (0, 1))),
        lax.reduce_window(x, -jnp.inf, lax.max, (2, 3), (1, 2),
                          ((0, 0), (2, 1)), window_dilation=(2, 1)),
        lax.reduce_window(x, jnp.inf, lax.min, (2, 2), (1, 1),
                          ((1, 1), (1, 1)), base_dilation=(2, 3)),
        lax.reduce_window(x, 0.0, lax.add, (3, 3), (2, 2),
                          ((2, 2), (1, 0)), base_dilation=(2, 2),
                          window_dilation=(1, 2)),
        lax.reduce_window(s, jnp.int32(1), lax.mul, (3,), (1,),
                          ((2, 0),)),
        lax.reduce_window(s, jnp.int32(0), lax.add, (4,), (3,),
                          ((1, 1),), base_dilation=(2,)),
    ]
    k = 5
    csum = lax.reduce_window(x, 0.0, lax.add, (k, 1), (1, 1),
                             ((k - 1, 0), (0, 0)))
    csq = lax.reduce_window(x * x, 0.0, lax.add, (k, 1), (1, 1),
                            ((k - 1, 0), (0, 0)))
    cnt = jnp.minimum(jnp.arange(1, x.shape[0] + 1), k)[:, None]
    mean = csum / cnt
    outs += [mean, csq / cnt - mean ** 2]
    outs.append(jax.grad(lambda x: jnp.sum(jnp.sin(lax.reduce_window(
        x, -jnp.inf, lax.max, (3, 2), (2, 2), ((1, 1), (0, 1))))))(x))
    outs.append(jax.grad(lambda x: jnp.sum(jnp.cos(lax.reduce_window(
        x, 0.0, lax.add, (2, 3), (1, 2), ((1, 0), (1, 1)),
        base_dilation=(2, 1)))))(x))
    return outs


def multi_operand_sorts(k1, k2, v, h):
    # lax.sort with three operands and num_keys=2 (ties in the first key
    # broken by the second, NaNs and -0.0 among the keys), is_stable on
    # an f16 key, sorting along axis 0 of a 3-D array, jnp.argsort
    # descending and stable with NaNs, jnp.lexsort of three keys, and a
    # sort of u64 keys above 2^63 carrying s8 values.
    a = lax.sort((k1, k2, v), num_keys=2)
    b = lax.sort((h, jnp.arange(h.shape[0])), is_stable=True, num_keys=1)
    c = lax.sort(v.reshape(3, 4, 2), dimension=0)
    d = jnp.argsort(k1, descending=True, stable=True)
    e = jnp.argsort(k1, stable=True)
    f = jnp.lexsort((k2, k1, v))
    u = (v.astype(jnp.int64).astype(jnp.uint64) * jnp.uint64(0x9E3779B97F4A7C15))
    g = lax.sort((u, v.astype(jnp.int8)), num_keys=1)
    return a + b + (c, d, e, f) + g


def _sort_inputs(r):
    k1 = np.round(floats(r, (24,)))
    k1[[2, 9]] = np.nan
    k1[[4, 15]] = -0.0
    k1[[5, 16]] = 0.0
    k2 = ints(r, (24,), 0, 3).astype(np.float32)
    v = ints(r, (24,), -50, 50)
    h = (np.round(floats(r, (30,)) * 2) / 2).astype(np.float16)
    h[[3, 7]] = np.nan
    return [k1, k2, v, h]


# --- Numerics edges ----------------------------------------------------------

def shifts_past_width(a8, b8, a32, n, a64):
    # Shifts by amounts at and past the bit width, negative amounts (an
    # unsigned amount past the width), in u8, s8, s16, u32, s32, u64,
    # with the amounts at run time and folded from constants: XLA defines
    # logical shifts past the width as 0 and arithmetic right shifts as the
    # sign fill.
    outs = []
    for x in (a8, a8.astype(jnp.int8), a32.astype(jnp.int16), a32,
              a32.astype(jnp.uint32), a64, a64.astype(jnp.int64)):
        t = x.dtype
        amt = n.astype(t)
        outs += [lax.shift_left(x, amt), lax.shift_right_logical(x, amt),
                 lax.shift_right_arithmetic(x, amt)]
        for c in (0, 1, 7, 8, 15, 16, 31, 32, 63, 64, 65):
            if c < 2 ** (8 * jnp.dtype(t).itemsize - 1):
                k = jnp.array(c, t)
                outs += [lax.shift_left(x, k), lax.shift_right_logical(x, k),
                         lax.shift_right_arithmetic(x, k)]
        const = jnp.array([1, 100, 3], t)
        outs.append(lax.shift_left(const, jnp.array([7, 8, 9], t)))
    outs.append(lax.shift_left(b8, jnp.uint8(255)))
    return outs


def _shift_inputs(r):
    return [ints(r, (12,), 0, 256, np.uint8), ints(r, (12,), 0, 256, np.uint8),
            ints(r, (12,), -2 ** 31, 2 ** 31 - 1),
            np.array([0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 200],
                     np.int32),
            r.integers(-2 ** 62, 2 ** 62, size=12).astype(np.uint64)]


def clamp_round_nextafter(x, lo, hi, h, b):
    # lax.clamp with bounds crossed (min > max) and NaN bounds and operand;
    # round half-to-even and half-away in f32, f16 and bf16 on .5 grids;
    # jnp.round with negative decimals; nextafter toward +-inf, 0 and
    # itself from 0, denormals, the largest finite and NaN, in f32 and
    # f64; trunc, rint and copysign of -0.0.
    rne = lax.RoundingMethod.TO_NEAREST_EVEN
    outs = [lax.clamp(lo, x, hi), lax.clamp(hi, x, lo),
            lax.clamp(jnp.float32(1.0), x, jnp.float32(-1.0)),
            jnp.clip(x, lo, hi)]
    for v in (x, h, b):
        outs += [lax.round(v), lax.round(v, rne), jnp.round(v, 1),
                 jnp.round(v * 37, -1), jnp.trunc(v),
                 jnp.rint(v), jnp.copysign(v, -0.0 * v)]
    specials = jnp.array([0.0, -0.0, 1e-45, -1e-45, 3.4028235e38, -3.4028235e38,
                          1.0, jnp.nan, jnp.inf], jnp.float32)
    for d in (jnp.float32, jnp.float64):
        s = specials.astype(d)
        for to in (jnp.inf, -jnp.inf, 0.0, jnp.nan):
            outs.append(jnp.nextafter(s, jnp.asarray(to, d)))
        outs.append(jnp.nextafter(s, s))
        outs.append(jnp.nextafter(x.astype(d), lo.astype(d)))
    return outs


def _clamp_inputs(r):
    x = (ints(r, (16,), -12, 13) / 2).astype(np.float32)
    x[3] = np.nan
    lo = np.full(16, -2.0, np.float32)
    hi = np.full(16, 3.0, np.float32)
    lo[5] = np.nan
    hi[6] = np.nan
    lo[7], hi[7] = 4.0, -4.0
    return [x, lo, hi, x.astype(np.float16),
            x.astype(jnp.bfloat16)]


def float_conversion_rounding(d, big, f):
    # Conversions that round twice if done in two steps: f64 to bf16, f16
    # and the 8-bit floats (directly, as XLA does: f64 -> f32 -> bf16 can
    # land on the other side of a tie); s64 and u64 above 2^24 to f32,
    # f16 and bf16; f32 past an 8-bit float's range (e4m3fn: NaN, e5m2:
    # inf); f32 -> u8/s8/u32/s64 out of range and NaN (saturating, NaN to
    # 0); e4m3fnuz, e5m2fnuz, e4m3b11fnuz, e3m4 and e4m3.
    outs = []
    for t in (jnp.bfloat16, jnp.float16, jnp.float8_e4m3fn,
              jnp.float8_e5m2):
        outs.append(d.astype(t).astype(jnp.float64))
    for t in (jnp.float32, jnp.float16, jnp.bfloat16, jnp.float64):
        outs.append(big.astype(t).astype(jnp.float64))
        outs.append(big.astype(jnp.uint64).astype(t).astype(jnp.float64))
    for t in (jnp.float8_e4m3fn, jnp.float8_e5m2, jnp.float8_e4m3fnuz,
              jnp.float8_e5m2fnuz, jnp.float8_e4m3b11fnuz,
              jnp.float8_e3m4, jnp.float8_e4m3):
        outs.append(f.astype(t).astype(jnp.float32))
        outs.append(f.astype(jnp.bfloat16).astype(t).astype(jnp.float32))
    for t in (jnp.uint8, jnp.int8, jnp.uint32, jnp.int64, jnp.uint64,
              jnp.int16):
        outs.append(f.astype(t))
    return outs


def _conv_inputs(r):
    # f64 values exactly halfway between two bf16 (and f16) values, nudged
    # by less than an f32 ulp so that a detour through f32 ties.
    base = 1.0 + np.arange(12) / 128.0
    d = base + 2.0 ** -9 + np.array([1, -1] * 6) * 2.0 ** -40
    d = np.concatenate([d, -d, d * 2.0 ** -20, [1 + 2 ** -11 + 2 ** -45,
                                                 1 + 2 ** -4 + 2 ** -30]])
    big = np.array([2 ** 24 + 1, 2 ** 53 + 1, 2 ** 63 - 1, -2 ** 63,
                    16777217, 2 ** 60 + 2 ** 36 + 1, -(2 ** 40) - 1,
                    33554435, 2049, 2 ** 11 + 1, 65519, 65520], np.int64)
    f = np.array([0.0, -0.0, 1e-3, 300.0, 448.0, 464.0, 500.0, 57344.0,
                  61440.0, 1e6, -1e6, np.nan, np.inf, -np.inf, 255.5, 256.0,
                  -1.5, 4.3e9, -3e9, 9.3e18, 2.0 ** -10, 2.0 ** -17,
                  3.0 * 2 ** -9, 0.0625], np.float32)
    return [d, big, f]


def unsigned_index_gathers(x, iu8, iu16, iu32, i8):
    # Indices of unsigned and narrow types: a u8 index of 200 is 200, not
    # -56 (u8 indices into an axis of 300), u16 and u32 indices past the
    # axis clamped by dynamic_slice and filled or dropped by gather/scatter
    # modes, s8 negatives wrapping under jnp.take(mode="wrap"), and a
    # dynamic_update_slice with u8 starts past the end (clamped).
    outs = [x[iu8], jnp.take(x, iu16, mode="fill", fill_value=-1.0),
            jnp.take(x, iu16, mode="clip"), jnp.take(x[:100], i8, mode="wrap"),
            jnp.take(x[:100], i8, mode="fill", fill_value=7.0),
            lax.dynamic_slice(x, (iu8[0],), (5,)),
            lax.dynamic_slice(x, (iu32[0],), (5,)),
            lax.dynamic_update_slice(x, jnp.ones(4, x.dtype), (iu8[1],)),
            lax.dynamic_update_slice(x, jnp.ones(4, x.dtype), (iu32[1],)),
            x.at[iu8].add(1.0), x.at[iu16].set(2.0, mode="drop"),
            x.at[iu32].max(100.0, mode="drop"),
            jnp.zeros(300, jnp.int32).at[iu8].add(1)]
    m = x[:288].reshape(12, 24)
    outs.append(m[iu8 % 12, iu16 % 24])
    outs.append(jax.vmap(lambda r, i: lax.dynamic_slice(r, (i,), (3,)))(
        m, iu8[:12]))
    outs.append(jax.vmap(lambda r, i: lax.dynamic_index_in_dim(
        r, i, keepdims=False))(m, iu32[:12]))
    return outs


def _uidx_inputs(r):
    iu8 = ints(r, (16,), 0, 256, np.uint8)
    iu8[:2] = [250, 255]
    iu16 = ints(r, (16,), 0, 400, np.uint16)
    iu32 = ints(r, (16,), 0, 600, np.uint32)
    iu32[:3] = [4294967295, 2 ** 31 + 5, 7]
    return [floats(r, (300,)), iu8, iu16, iu32, ints(r, (16,), -128, 128,
                                                        np.int8)]


def constant_integer_division(a8, a16, a32, a64, u32, u64):
    # Division and remainder by constants (the simplifier's multiply-shift
    # territory): powers of two and their negatives on negative dividends,
    # 1, -1 (INT_MIN / -1 wraps in XLA), 3, 7, -7, 10, 641, the type's max
    # and INT_MIN, in s8, s16, s32, s64, u32 and u64; and jnp's floor
    # division and modulo, which fix up the signs.
    outs = []
    for x in (a8, a16, a32, a64):
        t = x.dtype
        info = jnp.iinfo(t)
        for c in (1, -1, 2, -2, 4, -8, 3, 7, -7, 10, 641, info.max, info.min):
            if not info.min <= c <= info.max:
                continue
            k = jnp.array(c, t)
            outs += [lax.div(x, k), lax.rem(x, k), x // k, x % k]
    for x in (u32, u64):
        t = x.dtype
        for c in (1, 2, 3, 7, 10, 641, 2 ** 31, 2 ** 32 - 1, 2 ** 31 + 1):
            k = jnp.array(c, t)
            outs += [lax.div(x, k), lax.rem(x, k)]
        outs.append(lax.div(x, jnp.array(jnp.iinfo(t).max, t)))
    return outs


def _cdiv_inputs(r):
    def with_edges(t, n=20):
        i = np.iinfo(t)
        v = r.integers(i.min, i.max, size=n, endpoint=True, dtype=t)
        v[:6] = [i.min, i.min + 1, -1 if i.min < 0 else 0, 0, 1, i.max]
        return v
    return [with_edges(np.int8), with_edges(np.int16), with_edges(np.int32),
            with_edges(np.int64), with_edges(np.uint32), with_edges(np.uint64)]


# --- Size: long straight-line code, big and degenerate shapes ------------------

def fori_unrolled_layers(x, wq, wk, wv, wo):
    # 16 attention layers over a fori_loop with unroll=True (JAX inlines
    # every iteration), each slicing its weights by the loop index, and
    # the gradient through all of them.
    L = wq.shape[0]

    def net(x, wq, wk, wv, wo):
        def layer(i, h):
            q = h @ wq[i]
            k = h @ wk[i]
            v = h @ wv[i]
            a = jax.nn.softmax(q @ k.T / 4.0, axis=-1)
            return h + jnp.tanh((a @ v) @ wo[i])
        return lax.fori_loop(0, L, layer, x, unroll=True)

    y = net(x, wq, wk, wv, wo)
    g = jax.grad(lambda *a: jnp.sum(net(*a) ** 2), argnums=(0, 1, 4))(
        x, wq, wk, wv, wo)
    return (y,) + g


def zero_sized_everything(x, e, idx):
    # Every op on arrays with a zero-sized dimension: dots contracting or
    # producing 0 elements, reductions over empty axes (their inits), a
    # sort, cumsum, argsort and top_k of 0 rows, gathers and scatters with
    # no indices, a scan over 0 steps, a while loop carrying an empty
    # array, convolution of an empty batch, pads and concatenations with
    # empty pieces, reduce_window over an empty axis.
    z = x[:, :0]                       # [5, 0]
    outs = [z @ z.T, z.T @ x[:, :3], jnp.sum(z, axis=1), jnp.max(
        z, axis=1, initial=-7.0), jnp.prod(z, axis=1), jnp.all(z > 0, axis=1),
        jnp.any(z > 0, axis=1), jnp.sort(e, axis=0), jnp.cumsum(e, axis=1),
        jnp.argsort(e, axis=1), lax.top_k(e, 2)[0],
        x[idx[:0]], x.at[idx[:0]].add(1.0), jnp.concatenate([z, x], axis=1),
        jnp.pad(z, ((1, 1), (2, 0)), constant_values=3.0),
        lax.scan(lambda c, r: (c + r, c), jnp.zeros(3), x[:0, :3])[0],
        lax.while_loop(lambda s: s[1] < 3, lambda s: (s[0] * 2, s[1] + 1),
                       (z, 0))[0],
        lax.conv_general_dilated(jnp.zeros((0, 3, 6, 6)),
                                 jnp.ones((2, 3, 3, 3)), (1, 1), "SAME"),
        lax.reduce_window(e, 0.0, lax.add, (1, 2), (1, 1), "VALID"),
        jnp.mean(x, axis=0, where=jnp.zeros_like(x, bool)),
        jnp.einsum("ij,jk->ik", z, jnp.zeros((0, 4))),
        jnp.linalg.norm(z, axis=1), jax.nn.softmax(e, axis=0),
        jnp.var(x[:0], axis=0)]
    return outs


def size_one_dims(x, w, k):
    # Size-1 dimensions everywhere: a 1x1 convolution with batch, space and
    # features of 1, dots of [1, 1] x [1, 1] with batch 1, reductions and
    # sorts over axes of 1, a scan of 1 step, transposes and broadcasts of
    # [1, 1, 1] arrays, top_k with k equal to the axis, and gradients.
    c = lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
    d = lax.dot_general(x[:, :, :, :1], x[:, :, :, :1],
                        (((3,), (3,)), ((0, 1), (0, 1))))
    outs = [c, d, jnp.sum(x, axis=(1, 2)), jnp.sort(x, axis=2),
            jnp.argmax(x, axis=1), jnp.transpose(x, (3, 2, 1, 0)),
            jnp.broadcast_to(x[:, :, :, :1], (1, 1, 1, 5)),
            lax.scan(lambda c, v: (c * v, c), jnp.ones(1), k[None])[1],
            lax.top_k(k, 1), jnp.cumsum(k), jnp.linalg.det(k[None]),
            jax.grad(lambda x, w: jnp.sum(jnp.tanh(lax.conv_general_dilated(
                x, w, (1, 1), "SAME",
                dimension_numbers=("NHWC", "HWIO", "NHWC")))),
                argnums=(0, 1))(x, w)]
    return outs


def big_odd_reductions(a, b, u, g):
    # Reductions over prime-sized axes big enough for threads, on a grid
    # of quarters so that every order gives the same bits: row and column
    # sums of [1031, 997], u8 summed to u32 and to u8 (wrapping), a bf16
    # mean (accumulated in f32), argmax/argmin of 10^6 values with ties
    # (the first wins), a column argmax of [5003, 7], a variance and
    # logsumexp along the long axis, and a complex sum.
    outs = [jnp.sum(a, axis=0), jnp.sum(a, axis=1), jnp.max(a, axis=0),
            jnp.sum(u, dtype=jnp.uint32), jnp.sum(u, axis=0, dtype=jnp.uint8),
            jnp.mean(a.astype(jnp.bfloat16), axis=1, dtype=jnp.float32),
            jnp.argmax(b), jnp.argmin(b), jnp.argmax(g, axis=0),
            jnp.argmin(g, axis=0), jnp.var(a, axis=0),
            jax.nn.logsumexp(a, axis=1),
            jnp.sum(lax.complex(a, -a)[:, :5], axis=0)]
    return outs


def _big_red_inputs(r):
    b = _quarters(r, (1_000_000,), -40, 40)
    b[[123457, 654321]] = 10.5
    b[[222, 999_000]] = -10.75
    g = _quarters(r, (5003, 7), -30, 30)
    g[[17, 4000], 3] = 8.0
    return [_quarters(r, (1031, 997)), b,
            ints(r, (3001, 17), 0, 256, np.uint8), g]


def complex_gradients(z, w, x):
    # Gradients through complex arithmetic: a real loss of complex
    # parameters (jax.grad gives the conjugate cotangent), holomorphic
    # grads and jacfwd/jacrev of c64 and c128 functions (exp, log, sqrt,
    # arctan, z * conj(z), abs, angle), a complex matmul's vjp and jvp,
    # and a complex linear layer with a modReLU activation.
    def loss(z, w):
        h = jnp.dot(w, z, precision=_HI)
        r = jnp.abs(h)
        act = jnp.where(r + 0.1 > 0, (r - 0.1) / (r + 1e-6), 0.0) * h
        return jnp.sum(jnp.real(act) ** 2 + jnp.imag(jnp.log(act + 2.0)))

    gz, gw = jax.grad(loss, argnums=(0, 1))(z, w)

    def holo(v):
        return jnp.sum(jnp.exp(v) * jnp.sqrt(v + 3.0) + jnp.arctan(v) / (
            v + 2.5))

    gh = jax.grad(holo, holomorphic=True)(z.astype(jnp.complex128))
    jf = jax.jacfwd(lambda v: jnp.log(v * v + 1.0), holomorphic=True)(z[:3])
    jr = jax.jacrev(lambda v: jnp.abs(v) + jnp.angle(v) + jnp.real(
        v * jnp.conj(v)))(z)
    y, vjp = jax.vjp(lambda m: jnp.dot(m, z, precision=_HI), w)
    ct = vjp(jnp.conj(y))[0]
    _, tan = jax.jvp(lambda m: jnp.tanh(m @ z), (w,), (jnp.ones_like(w),))
    gx = jax.grad(lambda x: jnp.abs(jnp.fft.ifft(jnp.exp(1j * x))).sum()
                  if False else jnp.sum(jnp.abs(jnp.exp(1j * x) * z[:4])))(x)
    return gz, gw, gh, jf, jr, ct, tan, gx


def _cplx_inputs(r):
    c = lambda s: (floats(r, s) + 1j * floats(r, s)).astype(np.complex64)
    return [c((5,)), c((3, 5)), floats(r, (4,))]


def many_outputs_passthrough(a, b, c, n):
    # A module returning 150 outputs: parameters returned as they are,
    # twice, one output repeated, constants, scalars of every type,
    # zero-sized arrays, slices that are views of inputs and reshapes.
    outs = [a, a, b, c, n]
    for i in range(25):
        outs.append(a * i)
        outs.append(a[i % a.shape[0]])
    t = a + 1.0
    outs += [t, t, t.reshape(-1), t.T, jnp.zeros((0, 3))]
    for dt in (jnp.int8, jnp.uint8, jnp.int16, jnp.uint16, jnp.int32,
               jnp.uint32, jnp.int64, jnp.uint64, jnp.float16,
               jnp.bfloat16, jnp.float32, jnp.float64, jnp.complex64,
               jnp.complex128, jnp.bool_):
        outs.append(jnp.asarray(n, dt))
        outs.append(jnp.asarray(7, dt))
        outs.append(b.astype(dt))
        outs.append(jnp.full((2, 0), 3, dt))
    outs += [jnp.arange(10), jnp.eye(3), c[::2], c[1:3], b.reshape(2, -1)]
    outs += [c] * 40
    return outs


def while_exotic_carries(z, b, f8, n):
    # while_loop and scan carries of complex, bf16, f16, 8-bit float,
    # bool, u8, s4 (jnp.int4) and zero-sized arrays, with the trip count
    # at run time.
    def body(st):
        i, z, b, f8, flag, cnt, e, q = st
        z = z * (0.9 + 0.1j) + 1.0
        b = (b * jnp.bfloat16(1.5) + jnp.bfloat16(0.25)).astype(jnp.bfloat16)
        f8 = (f8.astype(jnp.float32) * 1.25).astype(jnp.float8_e4m3fn)
        flag = ~flag
        cnt = cnt + jnp.uint8(100)
        e = e + 1.0
        q = (q.astype(jnp.int8) * 3 + 1).astype(jnp.int4)
        return i + 1, z, b, f8, flag, cnt, e, q

    init = (0, z, b, f8, jnp.zeros(3, bool), jnp.uint8(0),
            jnp.zeros((0, 2)), jnp.arange(-3, 3, dtype=jnp.int4))
    out = lax.while_loop(lambda st: st[0] < n, body, init)
    scanned = lax.scan(lambda c, _: (body(c), None), init, None,
                       length=5)[0]
    to32 = lambda t: tuple(
        v.astype(jnp.int32) if v.dtype == jnp.int4 else
        v.astype(jnp.float32) if v.dtype == jnp.float8_e4m3fn else v
        for v in t)
    return to32(out) + to32(scanned)


def narrow_activations(x):
    # jax.nn activations computed in bf16 and f16 as mixed-precision
    # models run them: gelu (both forms), silu, softplus, log_sigmoid,
    # celu, selu, elu, glu, squareplus, mish, hard_tanh, relu6,
    # sparse_plus, log_softmax and standardize; and their gradients.
    outs = []
    fns = [lambda v: jax.nn.gelu(v, approximate=True),
           lambda v: jax.nn.gelu(v, approximate=False), jax.nn.silu,
           jax.nn.softplus, jax.nn.log_sigmoid, jax.nn.celu, jax.nn.selu,
           jax.nn.elu, lambda v: jax.nn.glu(v, axis=-1), jax.nn.squareplus,
           lambda v: v * jnp.tanh(jax.nn.softplus(v)), jax.nn.hard_tanh,
           jax.nn.relu6, jax.nn.sparse_plus,
           lambda v: jax.nn.log_softmax(v, axis=-1),
           lambda v: jax.nn.standardize(v, axis=-1)]
    for dt in (jnp.bfloat16, jnp.float16):
        v = x.astype(dt)
        for f in fns:
            outs.append(f(v))
        outs.append(jax.grad(lambda v: jnp.sum(
            sum(f(v).astype(jnp.float32).sum() for f in fns[:8])))(v))
    return outs


def long_loops_small_state(x0, c):
    # Loops with many trips over a small state: 200000 iterations of a
    # logistic-map update in a fori_loop, a scan of 20000 steps of a
    # 2-state linear filter with its outputs and its gradient, and a
    # while loop counting an LCG's steps until it hits a value.
    y = lax.fori_loop(0, 200000, lambda i, v: 3.7 * v * (1.0 - v), x0)

    def filt(a, xs):
        def step(s, u):
            s = jnp.stack([a * s[0] + u, 0.5 * s[0] + 0.3 * s[1]])
            return s, s[1]
        return lax.scan(step, jnp.zeros(2), xs)

    s, ys = filt(0.95, c)
    ga = jax.grad(lambda a: jnp.sum(filt(a, c)[1] ** 2))(0.95)

    def lcg(st):
        v, n = st
        return (v * jnp.uint32(1664525) + jnp.uint32(1013904223)), n + 1
    v, steps = lax.while_loop(lambda st: (st[0] & jnp.uint32(0xFFFF)) !=
                              jnp.uint32(12345), lcg, (jnp.uint32(7), 0))
    return y, s, ys, ga, v, steps



def unrolled_stencils(u, life):
    # Stencils unrolled in Python (no loop): 24 Jacobi steps of a 2-D heat
    # equation by jnp.roll on both axes (each step reads five shifts of the
    # last), 16 steps of Conway's life by rolls, and 12 steps of an upwind
    # advection by slices and concatenations: each step's fusion reads its
    # producer at several offsets, so code fused through every level would
    # grow as 5^24.
    for _ in range(24):
        u = u + 0.2 * (jnp.roll(u, 1, 0) + jnp.roll(u, -1, 0) + jnp.roll(
            u, 1, 1) + jnp.roll(u, -1, 1) - 4 * u)
    b = life.astype(jnp.int32)
    for _ in range(16):
        n = sum(jnp.roll(jnp.roll(b, di, 0), dj, 1)
                for di in (-1, 0, 1) for dj in (-1, 0, 1) if (di, dj) != (0, 0))
        b = ((n == 3) | ((b == 1) & (n == 2))).astype(jnp.int32)
    v = u[0]
    for _ in range(12):
        v = v - 0.4 * (v - jnp.concatenate([v[-1:], v[:-1]]))
    return u, b, v


def diamond_chains(x, y):
    # Each level reads the one before twice or more (x = f(x) + g(x)):
    # elementwise diamonds 40 deep, diamonds through transposes and
    # reversals, a softmax applied 12 times in a row and a chain of 30
    # layer norms: fusing every level into its consumers would emit the
    # first level 2^40 times.
    a = x
    for i in range(40):
        a = jnp.sin(a) * 0.5 + jnp.cos(a) * 0.5 + 0.01 * i
    b = y
    for _ in range(12):
        b = (b + b.T[::-1, ::-1]) * 0.5 + jnp.tanh(b[::-1])
    c = x
    for _ in range(12):
        c = jax.nn.softmax(c * 3.0, axis=-1)
    d = y
    for _ in range(30):
        mu = jnp.mean(d, -1, keepdims=True)
        var = jnp.mean((d - mu) ** 2, -1, keepdims=True)
        d = jnp.tanh((d - mu) * lax.rsqrt(var + 1e-5)) + 0.1 * d
    return a, b, c, d


def wide_concat_stack(xs, x):
    # Very wide instructions: a batch stacked from a Python list of 600
    # per-example arrays (600 parameters) and their reversed concatenation
    # (a GPU kernel reading 600 buffers, past the 4352 bytes a kernel's
    # parameters may take), a weighted sum of 100 of them, a sum of 100
    # gathers by constant indices and a 64-way jnp.select.
    st = jnp.stack(xs)
    cat = jnp.concatenate(xs[::-1]) * 2
    w = sum(v * i for i, v in enumerate(xs[:100]))
    g = sum(x[(7 * i) % x.shape[0]] * i for i in range(100))
    conds = [x[:, 0] < (i - 32) / 10.0 for i in range(64)]
    sel = jnp.select(conds, [x[:, 1] * i for i in range(64)], -1.0)
    return st, cat, w, g, sel


def evaluator_scale_ops(img, w, keys, idx, upd):
    # Realistic sizes for the reference evaluator: a 3x3 convolution of
    # 2x48x48x16 to 32 channels with both gradients, 3x3 max pooling with
    # stride 2 and its gradient (select_and_scatter), a sort and an argsort
    # of 300000 keys, top_k of 20 from rows of 20000, a gather of 500000
    # indices and a scatter-add of them into 1000 bins.
    dn = ("NHWC", "HWIO", "NHWC")

    def conv(img, w):
        return lax.conv_general_dilated(img, w, (1, 1), "SAME",
                                        dimension_numbers=dn,
                                        precision=_HI)

    y = conv(img, w)
    gi, gw = jax.grad(lambda a, b: jnp.sum(jnp.tanh(conv(a, b))),
                      argnums=(0, 1))(img, w)

    def pool(a):
        return lax.reduce_window(a, -jnp.inf, lax.max, (1, 3, 3, 1),
                                 (1, 2, 2, 1), "SAME")

    p = pool(img)
    gp = jax.grad(lambda a: jnp.sum(pool(a) * jnp.arange(p.shape[-1])))(img)
    srt = jnp.sort(keys)
    order = jnp.argsort(keys, stable=True)
    tv, ti = lax.top_k(keys.reshape(15, 20000), 20)
    gathered = keys[idx]
    bins = jnp.zeros(1000, jnp.int32).at[idx % 1000].add(upd)
    return y, gi, gw, p, gp, srt, order, tv, ti, gathered, bins


def _eval_scale_inputs(r):
    keys = _quarters(r, (300000,), -4000, 4000)
    return [_quarters(r, (2, 48, 48, 16)), _quarters(r, (3, 3, 16, 32)) / 4,
            keys, ints(r, (500000,), 0, 300000), ints(r, (500000,), -3, 4)]


def vmapped_loops_at_scale(x0, n, steps):
    # A while loop vmapped over 2000 rows with trip counts up to 300 (a
    # per-row Newton iteration for the cube root), and a scan of 3000 steps
    # whose body holds a lax.cond, a lax.switch and a dynamic update of a
    # carried [3000] history.
    def cbrt(a, k):
        def body(st):
            z, i = st
            return z - (z * z * z - a) / (3 * z * z), i + 1
        return lax.while_loop(lambda st: st[1] < k, body,
                              (jnp.maximum(jnp.abs(a), 1.0), 0))[0]

    roots = jax.vmap(cbrt)(x0, n)

    def step(st, t):
        h, hist = st
        h = lax.cond(t % 3 == 0, lambda v: v * 0.9 + 1.0, lambda v: v - 0.1, h)
        h = lax.switch(t % 4, [jnp.sin, jnp.cos, lambda v: v * 0.5,
                               lambda v: v + 0.2], h)
        hist = hist.at[t].set(h)
        return (h, hist), h * 2
    (h, hist), ys = lax.scan(step, (jnp.float32(0.5), jnp.zeros(steps.shape[0])),
                             steps)
    return roots, h, hist, ys


PROGRAMS = {
    "gqa_attention_grads": (gqa_attention_grads, _gqa_inputs),
    "linear_attention_chunked": (linear_attention_chunked, lambda r: [
        floats(r, (12, 2, 4)) * 0.5, floats(r, (12, 2, 4)) * 0.5,
        floats(r, (12, 2, 4)), floats(r, (2,)) + 1.0]),
    "rwkv_wkv_recurrence": (rwkv_wkv_recurrence, lambda r: [
        floats(r, (6,)) * 0.5, floats(r, (6,)), floats(r, (10, 6)),
        floats(r, (10, 6))]),
    "mamba_associative_scan": (mamba_associative_scan, _mamba_inputs),
    "fp8_scaled_matmuls": (fp8_scaled_matmuls, _fp8_inputs),
    "int8_quantized_linear": (int8_quantized_linear, lambda r: [
        floats(r, (6, 20)), floats(r, (20, 10)), floats(r, (10,))]),
    "moe_top2_capacity_grad": (moe_top2_capacity_grad, lambda r: [
        floats(r, (10, 6)), floats(r, (6, 4)), floats(r, (4, 6, 8)) * 0.3,
        floats(r, (4, 8, 6)) * 0.3]),
    "scan_remat_policies_unrolled": (scan_remat_policies_unrolled, lambda r: [
        floats(r, (5, 5)) * 0.4, floats(r, (7, 5)), floats(r, (5,))]),
    "custom_jvp_nondiff": (custom_jvp_nondiff, lambda r: [
        floats(r, (4,)), floats(r, (5,)), np.float32(2.0)]),
    "vmap_while_nested_conds": (vmap_while_nested_conds, lambda r: [
        floats(r, (6, 3)), ints(r, (6,), 0, 9), ints(r, (6,), -1, 3)]),
    "array_api_newer": (array_api_newer, _api_inputs),
    "pad_modes_grads": (pad_modes_grads, lambda r: [
        floats(r, (4, 5)), floats(r, (4,))]),
    "image_resize_grads": (image_resize_grads, lambda r: [
        floats(r, (2, 9, 11, 3))]),
    "rolling_window_stats": (rolling_window_stats, lambda r: [
        floats(r, (11, 7)), ints(r, (13,), -3, 4)]),
    "multi_operand_sorts": (multi_operand_sorts, _sort_inputs),
    "shifts_past_width": (shifts_past_width, _shift_inputs),
    "clamp_round_nextafter": (clamp_round_nextafter, _clamp_inputs),
    "float_conversion_rounding": (float_conversion_rounding, _conv_inputs),
    "unsigned_index_gathers": (unsigned_index_gathers, _uidx_inputs),
    "constant_integer_division": (constant_integer_division, _cdiv_inputs),
    "fori_unrolled_layers": (fori_unrolled_layers, lambda r: [
        floats(r, (6, 8)), floats(r, (16, 8, 8)) * 0.3,
        floats(r, (16, 8, 8)) * 0.3, floats(r, (16, 8, 8)) * 0.3,
        floats(r, (16, 8, 8)) * 0.3]),
    "zero_sized_everything": (zero_sized_everything, lambda r: [
        floats(r, (5, 4)), np.zeros((0, 3), np.float32),
        ints(r, (3,), 0, 5)]),
    "size_one_dims": (size_one_dims, lambda r: [
        floats(r, (1, 1, 1, 1)), floats(r, (1, 1, 1, 1)), floats(r, (1,))]),
    "big_odd_reductions": (big_odd_reductions, _big_red_inputs),
    "complex_gradients": (complex_gradients, _cplx_inputs),
    "many_outputs_passthrough": (many_outputs_passthrough, lambda r: [
        floats(r, (4, 3)), floats(r, (6,)), ints(r, (5,), -9, 9),
        np.float32(2.5)]),
    "while_exotic_carries": (while_exotic_carries, lambda r: [
        (floats(r, (3,)) + 1j * floats(r, (3,))).astype(np.complex64),
        floats(r, (4,)).astype(jnp.bfloat16),
        floats(r, (4,)).astype(jnp.float8_e4m3fn), np.int32(6)]),
    "narrow_activations": (narrow_activations, lambda r: [
        floats(r, (6, 10)) * 3]),
    "long_loops_small_state": (long_loops_small_state, lambda r: [
        np.float32(0.3), floats(r, (20000,))]),
    "unrolled_stencils": (unrolled_stencils, lambda r: [
        floats(r, (24, 20)), (r.random((20, 22)) < 0.4).astype(np.int32)]),
    "diamond_chains": (diamond_chains, lambda r: [
        floats(r, (16, 16)), floats(r, (16, 16))]),
    "wide_concat_stack": (wide_concat_stack, lambda r: [
        [floats(r, (3,)) for _ in range(600)], floats(r, (37, 4))]),
    "evaluator_scale_ops": (evaluator_scale_ops, _eval_scale_inputs),
    "vmapped_loops_at_scale": (vmapped_loops_at_scale, lambda r: [
        floats(r, (2000,)) * 30, ints(r, (2000,), 0, 300),
        np.arange(3000, dtype=np.int32)]),
}
