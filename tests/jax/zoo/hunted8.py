"""Zoo: programs from the eighth bug hunt, at the sizes where the GPU
backend chooses its code-generation strategies by size and shape.

Row reductions over rows of 1, 3, 31, 33, 64, 127, 1000, 4097, 32000 and
65537 elements (a warp or part of one per short row, a block per long
row, the row-fusion kernels up to 16384 f32 elements and the split
kernels past them), in f32, bf16 and f16, fused with softmax, layer
norm, RMS norm and log-softmax epilogues, several reductions over the
same rows, multi-output rows (mean with variance, min with max), rows
whose statistics feed elementwise work of the whole row, and slices,
pads, concatenates and reverses within rows (RoPE after an RMS norm);
variadic argmax/argmin rows with ties and NaNs, integer, bitwise and
bool reductions. Column reductions of [70000, 3], [5000, 257] and
[20000, 33] bf16 summed in f32, middle-axis reductions of 3-D arrays,
full reductions of two million values. Transposes of odd shapes in
f32, bf16, f16 and s8, and the head split/merge transposes attention
does. Concatenates of many odd operands, pads with negative and
interior padding, reverses and rolls; dynamic slices and updates whose
starts are clamped; embedding lookups with duplicate tokens and their
scatter-add gradients, segment sums and histograms; top_k with k = 1,
5 and 64 over rows of 1000 to 40000, argsort and multi-operand sorts;
cumulative sums, products, maxima, log-sum-exps and linear recurrences
along rows and columns; iota masks at 1024 x 1024. Dots with bias and
relu/gelu/tanh/silu epilogues in f32 and bf16, batched dots with odd
batch sizes, vector-matrix products and int8 weights dequantized to
bf16; causal attention at 256 and 1024 positions; AdamW over 2.3
million parameters; a 32000-word cross-entropy in bf16; elementwise
chains over f16, bf16, f64, c64 and the integer types with broadcasts
of every rank, integer division and remainder of negatives and by zero,
shifts past the width, popcount and clz, float <-> int conversions at
their edges, rng_bit_generator and jax.random at sizes the GPU splits.
End to end: a bf16 GPT block training step (batch 4, 256 positions,
width 256), a conv net with batch norm, an MLP AdamW step.

Two bugs found, both fixed. On the GPU (H200, the cuda executable
against the evaluator): iota_masks_large's masked softmax beside the s64
positions from a cumsum of the mask failed with
CUDA_ERROR_MISALIGNED_ADDRESS. The row fusion (a pred reduce_or, an f32
sum, an s64 output) kept each reduction's per-warp partials in a shared
array with no explicit alignment; LLVM takes a global's preferred
alignment, 16 bytes for arrays past 16 bytes, and vectorized the f32
partials' loads to ld.shared.v4.f32, while the PTX declared the array
.align 4 and placed it after the 8-byte pred array, at 0x408. Shared
arrays are 16-byte aligned now (reduction_util.h SharedArray; tests
backends/gpu/tests/shared_array_align.hlo and tests/gpu/shared_array_align).
And the evaluator summed a reduce's elements one after another in f32, so
the sum of squares of 2.3 million gradients for adamw_millions' global
norm (terms of 1e-6 into a sum of 2.35) was 2.1e-4 below XLA:CPU's,
which equals the f64 sum; f32 and f64 sums of a contiguous run are
pairwise now (hlo/evaluator/kernels_binary.cc ReduceRowLoop; test
reduce_test LongF32SumIsPairwise).

Changed to leave out the reference's own sensitivity: mlp_adamw_step
takes the tenth Adam step, not the first (the first divides every
gradient by its own magnitude, so gradients near zero flip the update
with the summation order).

Kept deterministic on purpose, so that any summation order gives the
same answer (the GPU sums in another order than XLA:CPU, and its
scatters and segment sums combine duplicates in any order): long sums
(full reductions of millions of values, long columns, cumulative sums,
scatter-adds and segment sums with duplicate indices) are of values on
a grid of quarters, whose partial sums are exact in f32; products with
duplicates multiply powers of two. Ties in top_k rows are avoided (rows
are permutations of distinct values where the row is long), and
argmax's ties are along an axis, never flattened (XLA:GPU's flattened
argmax over NaNs is not the first NaN, zoo_gpu_cases.py). The s8 x s8
-> s32 dot is left out (XLA:GPU returns twice the product,
KEEP_XLA_CPU); int8 weights are dequantized to bf16 before their dot,
as weight-only quantized inference does. The f32 training steps ask for
precision=HIGHEST in their contractions, so that XLA:GPU's TF32 does
not compound through the layers (FULL_F32 in zoo_gpu_cases.py).
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import complexes, floats, ints, prng_key

_HI = lax.Precision.HIGHEST


def _w(r, *shape, scale=1.0):
    return (floats(r, shape) * scale / np.sqrt(shape[0])).astype(np.float32)


def _quarters(r, shape, lim=4.0, dtype=np.float32):
    """Normal-ish values on a grid of 1/4 within [-lim, lim]: any sum of a
    few million of them is exact in f32, whatever the order."""
    return np.clip(np.round(floats(r, shape) * 4) / 4, -lim, lim).astype(
        dtype)


def _distinct_rows(r, rows, n, dtype=np.float32):
    """Rows of n distinct values (a permutation of a grid), no ties."""
    base = (np.arange(n) - n / 2) / 8.0
    return np.stack([r.permutation(base) for _ in range(rows)]).astype(dtype)


# --- row reductions of every length ------------------------------------

_ROW_SHAPES = [(4000, 1), (3000, 3), (1000, 31), (1000, 33), (2048, 64),
               (500, 127), (300, 1000), (40, 4097), (6, 65537)]


def row_softmax_lengths(*xs):
    # The softmax family over rows of every length class: softmax,
    # log-softmax, logsumexp, the row max, sum and mean square, all over
    # the same rows.
    out = []
    for x in xs:
        out.append((jax.nn.softmax(x, -1), jax.nn.log_softmax(x, -1),
                    jax.nn.logsumexp(x, -1), x.max(-1), x.sum(-1),
                    jnp.mean(x * x, -1)))
    return out


def _row_inputs(r):
    return [floats(r, s) * 3 for s in _ROW_SHAPES]


_HALF_SHAPES = [(2048, 33), (1024, 64), (512, 127), (256, 1000), (32, 4097)]


def row_norms_half_precision(xb, xh, gb, gh):
    # Layer norm and RMS norm the way mixed-precision models write them:
    # bf16 and f16 activations, statistics in f32, the result cast back;
    # softmax in the activation type (jnp's sums widen f16/bf16 inside).
    out = []
    for x, g in ((xb, gb), (xh, gh)):
        for a in x:
            d = a.shape[-1]
            a32 = a.astype(jnp.float32)
            mu = a32.mean(-1, keepdims=True)
            var = jnp.mean(jnp.square(a32 - mu), -1, keepdims=True)
            ln = ((a32 - mu) * lax.rsqrt(var + 1e-5)).astype(a.dtype)
            ln = ln * g[:d].astype(a.dtype)
            ms = jnp.mean(jnp.square(a32), -1, keepdims=True)
            rms = (a32 * lax.rsqrt(ms + 1e-6)).astype(a.dtype) * (
                1 + g[:d]).astype(a.dtype)
            out.append((ln, rms, jax.nn.softmax(a, -1),
                        jnp.max(jnp.abs(a), -1), mu[:, 0]))
    return out


def _half_inputs(r):
    xb = [floats(r, s).astype(jnp.bfloat16) * 2 for s in _HALF_SHAPES]
    xh = [floats(r, s).astype(np.float16) * 2 for s in _HALF_SHAPES]
    return [xb, xh, floats(r, (4097,)).astype(jnp.bfloat16) * 0.1,
            floats(r, (4097,)).astype(np.float16) * 0.1]


def rmsnorm_rotary_bf16(x, scale, pos):
    # LLaMA's RMS norm over width 256 (bf16 in, f32 statistics) feeding
    # the query projection's rotary embedding: split into heads, rotate
    # halves (split, negate, concatenate), and GPT-NeoX's partial rotary
    # (only the first 32 of 64 features rotate, the rest pass through).
    b, t, d = x.shape
    h, hd = 4, d // 4
    x32 = x.astype(jnp.float32)
    normed = (x32 * lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True)
                              + 1e-6)).astype(jnp.bfloat16)
    normed = normed * (1.0 + scale).astype(jnp.bfloat16)
    q = normed.reshape(b, t, h, hd)

    def rope(v, rot):
        inv = 1.0 / (10000.0 ** (jnp.arange(0, rot, 2, dtype=jnp.float32)
                                 / rot))
        ang = pos[:, :, None].astype(jnp.float32) * inv         # [B, T, r/2]
        cos = jnp.concatenate([jnp.cos(ang)] * 2, -1)[:, :, None]
        sin = jnp.concatenate([jnp.sin(ang)] * 2, -1)[:, :, None]
        vr, vp = v[..., :rot], v[..., rot:]
        v1, v2 = jnp.split(vr, 2, -1)
        rotated = (vr.astype(jnp.float32) * cos
                   + jnp.concatenate([-v2, v1], -1).astype(jnp.float32)
                   * sin).astype(v.dtype)
        return jnp.concatenate([rotated, vp], -1)
    full, partial = rope(q, hd), rope(q, hd // 2)
    # Reversed and padded rows (a causal conv's left padding, a flipped
    # sequence for a backward model).
    flipped = jnp.flip(normed, (1, 2))
    padded = jnp.pad(normed[:, :, 5:], ((0, 0), (0, 0), (3, 2)))
    return full, partial, flipped, padded, normed


def _rotary_inputs(r):
    b, t, d = 4, 256, 256
    pos = np.broadcast_to(np.arange(t, dtype=np.int32), (b, t)).copy()
    pos[1] += 1000
    pos[3] = pos[3][::-1]
    return [floats(r, (b, t, d)).astype(jnp.bfloat16),
            floats(r, (d,)) * 0.1, pos]


def _layernorm(x, g, b):
    x32 = x.astype(jnp.float32)
    mu = x32.mean(-1, keepdims=True)
    var = x32.var(-1, keepdims=True)
    return ((x32 - mu) * lax.rsqrt(var + 1e-5) * g + b).astype(x.dtype)


def layernorm_grad_widths(xs, xb, gs, bs, ws):
    # Layer norm's backward pass, whose rows hold two reductions (of the
    # output gradient and of its product with the normalized input) and
    # the columns two more (gamma's and beta's gradients): widths 33,
    # 768 and 4097 in f32, 768 in bf16 with f32 parameters.
    out = []
    for x, g, b, w in zip(list(xs) + [xb], gs, bs, ws):
        def loss(x, g, b):
            y = _layernorm(x, g, b).astype(jnp.float32)
            return jnp.sum(jnp.tanh(y) * w), y
        (l, y), grads = jax.value_and_grad(loss, (0, 1, 2), has_aux=True)(
            x, g, b)
        out.append((l, y, grads))
    return out


def _layernorm_inputs(r):
    widths = [33, 768, 4097, 768]
    rows = [1024, 256, 16, 512]
    xs = [floats(r, (n, d)) * 2 + 0.5 for n, d in zip(rows[:3], widths[:3])]
    xb = (floats(r, (rows[3], widths[3])) * 2).astype(jnp.bfloat16)
    gs = [1 + floats(r, (d,)) * 0.1 for d in widths]
    bs = [floats(r, (d,)) * 0.1 for d in widths]
    ws = [floats(r, (d,)) for d in widths]
    return [xs, xb, gs, bs, ws]


def row_stats_multi_output(a, b):
    # Statistics of the same rows together (mean with variance, min with
    # max, sum with sum of squares), and rows normalized by their own
    # statistics: standardized, scaled by the infinity norm, clipped at
    # three sigma, a center of mass along the row, a fraction above the
    # mean.
    out = []
    for x in (a, b):
        mu, var = x.mean(-1), x.var(-1)
        lo, hi = x.min(-1), x.max(-1)
        std = jnp.std(x, -1, ddof=1, keepdims=True)
        z = (x - mu[:, None]) / std
        inf_norm = x / jnp.max(jnp.abs(x), -1, keepdims=True)
        clipped = jnp.clip(x, (mu - 3 * jnp.sqrt(var))[:, None],
                           (mu + 3 * jnp.sqrt(var))[:, None])
        w = jnp.exp(x - hi[:, None])
        com = (w * jnp.arange(x.shape[-1])).sum(-1) / w.sum(-1)
        above = (x > mu[:, None]).mean(-1)
        out.append((mu, var, lo, hi, hi - lo, z, inf_norm, clipped, com,
                    above, (x * x).sum(-1), jnp.linalg.norm(x, axis=-1)))
    return out


def row_argmax_variadic(a, b, c, d, e):
    # argmax/argmin rows (variadic reductions of value and index): ties
    # within short rows (the first index wins), NaNs in some rows (argmax
    # and max both take the first NaN), bf16 and s32 rows, long rows.
    # nanargmax leaves out the NaNs.
    out = []
    for x in (a, b, c, d, e):
        out.append((jnp.argmax(x, -1), jnp.argmin(x, -1), jnp.max(x, -1),
                    jnp.min(x, -1)))
    out.append((jnp.nanargmax(b, -1), jnp.nanmax(b, -1), jnp.nanmin(b, -1),
                jnp.argmax(a, 0), jnp.argmin(b, 0, keepdims=True)))
    # The top-1 class and its probability (a classifier's prediction).
    p = jax.nn.softmax(e, -1)
    out.append((jnp.argmax(p, -1), jnp.max(p, -1)))
    return out


def _argmax_inputs(r):
    a = np.round(floats(r, (5000, 3)) * 2) / 2
    b = floats(r, (2048, 64))
    b[::7, 13] = np.nan
    b[5, :] = np.nan
    b[9, 40] = np.nan
    b[9, 3] = np.nan
    c = (floats(r, (300, 1000)) * 3).astype(jnp.bfloat16)
    d = ints(r, (40, 4097), -30, 30)
    e = floats(r, (4, 40000)) * 2
    return [a.astype(np.float32), b.astype(np.float32), c, d,
            e.astype(np.float32)]


def row_bool_int_reductions(x, i8, u8, i32, i64, long_b):
    # Integer and predicate rows: any/all/count over thresholds, s8 sums
    # widened, u8 max/min, bitwise or/and/xor reductions, popcounts
    # summed, s64 sums and maxima, the parity of a row of bools; a
    # 65537-element bool row.
    b = x > 0.3
    orr = lax.reduce(i32, np.int32(0), lax.bitwise_or, (1,))
    andr = lax.reduce(i32, np.int32(-1), lax.bitwise_and, (1,))
    xorr = lax.reduce(i32, np.int32(0), lax.bitwise_xor, (1,))
    parity = lax.reduce(b, False, lax.bitwise_xor, (1,))
    return (b.any(-1), b.all(-1), jnp.count_nonzero(b, -1), (x > -3).all(-1),
            jnp.sum(i8, -1), jnp.sum(i8, -1, dtype=jnp.int8),
            jnp.sum(i8.astype(jnp.int32), 0),
            u8.max(-1), u8.min(-1), jnp.sum(u8, -1, dtype=jnp.uint16),
            orr, andr, xorr, parity, lax.population_count(i32).sum(-1),
            i64.sum(-1), i64.max(0), jnp.prod(jnp.sign(i64) + 2, -1) % 1000,
            long_b.any(-1), long_b.all(-1), long_b.sum(-1),
            jnp.count_nonzero(long_b, 0))


def _bool_int_inputs(r):
    long_b = r.random((3, 65537)) < np.array([[1e-5], [0.5], [1.0]])
    long_b[2, 40000] = False
    return [floats(r, (3000, 33)), ints(r, (1024, 1000), -128, 128, np.int8),
            ints(r, (512, 127), 0, 256, np.uint8),
            ints(r, (300, 31), -2**31, 2**31, np.int32),
            ints(r, (64, 4097), -2**40, 2**40, np.int64), long_b]


# --- column, middle-axis and full reductions ---------------------------

def column_reductions_odd(a, b, c, d, e):
    # Reductions over axis 0 of tall arrays with few or odd columns: batch
    # statistics of [70000, 3], [5000, 257] with its variance and argmax,
    # a bf16 [20000, 33] summed in f32 and maxed in bf16, a single
    # column, s32 columns.
    return (a.sum(0), a.max(0), a.min(0), a.mean(0),
            b.sum(0), b.var(0), jnp.argmax(b, 0), jnp.argmin(b, 0),
            jnp.sum(c, 0, dtype=jnp.float32), c.max(0),
            jnp.mean(c.astype(jnp.float32), 0),
            d.sum(0), d.max(0), e.sum(0), e.max(0), e.min(0),
            (b - b.mean(0)) / (b.std(0) + 1e-5))


def _column_inputs(r):
    return [_quarters(r, (70000, 3)), _quarters(r, (5000, 257)),
            _quarters(r, (20000, 33)).astype(jnp.bfloat16),
            _quarters(r, (4099, 1)), ints(r, (30000, 7), -1000, 1000)]


def middle_axis_reductions(x, y, z, w, v, s):
    # Reductions over the middle axes of 3-D arrays (the kept axes on
    # both sides): sums over the 1000 of [64, 1000, 5], max and argmax
    # over the 3000 of [7, 3000, 33], over axes 0 and 2 of [128, 33, 64],
    # a mean over the 4097 of [5, 4097, 3], logsumexp and softmax over
    # the middle of [16, 129, 129] and [32, 500, 7].
    return (x.sum(1), y.max(1), jnp.argmax(y, 1), z.sum((0, 2)), z.mean(0),
            w.mean(1), jax.nn.logsumexp(v, 1), jax.nn.softmax(s, 1),
            jnp.max(jnp.abs(x), (0, 1)), s.sum((0, 1)))


def full_reductions_large(q, n, i, b, bf):
    # Reductions of whole arrays to scalars: sums, extremes and argmax of
    # two million values, the L2 norm and logsumexp of a million, s32
    # and bool counts, a bf16 mean in f32, a product of values near one.
    return (q.sum(), q.max(), q.min(), jnp.argmax(q), jnp.argmin(q),
            jnp.sqrt(jnp.sum(n * n)), jax.nn.logsumexp(n), jnp.mean(n),
            i.sum(), i.max(), (i > 0).sum(), b.sum(), b.any(), b.all(),
            jnp.mean(bf.astype(jnp.float32)), bf.max(),
            jnp.prod(1.0 + n[:100000] * 1e-4), jnp.abs(q).mean())


def _full_inputs(r):
    b = r.random(1_000_003) < 0.001
    return [_quarters(r, (2_000_000,)), floats(r, (1_000_000,)),
            ints(r, (1_500_000,), -1000, 1000), b,
            _quarters(r, (1_000_001,)).astype(jnp.bfloat16)]


# --- transposes ---------------------------------------------------------

def transpose_odd_shapes(a, b, c, d, e, f, g):
    # Transposes whose sides are not multiples of the tile: [1023, 1025]
    # alone and fused with elementwise work of another operand, [3, 5000,
    # 7] permuted both ways, bf16 [513, 769], f16 [257, 1000] with an
    # add, s8 [1000, 999], NHWC <-> NCHW of [2, 65, 33, 129] and a full
    # reversal of its axes.
    return (a.T, jnp.tanh(a.T) * 2 + b, c.transpose(2, 0, 1),
            c.transpose(1, 2, 0) * 3, d.T, (d.T * 2).astype(jnp.float32),
            e.T + jnp.float16(1), f.T, f.T.astype(jnp.int32) - 1,
            g.transpose(0, 3, 1, 2), g.transpose(3, 2, 1, 0),
            a.T[::2, 1:], jnp.exp(c.transpose(1, 0, 2)).sum(-1))


def _transpose_inputs(r):
    return [floats(r, (1023, 1025)), floats(r, (1025, 1023)),
            floats(r, (3, 5000, 7)),
            floats(r, (513, 769)).astype(jnp.bfloat16),
            floats(r, (257, 1000)).astype(np.float16),
            ints(r, (1000, 999), -128, 128, np.int8),
            floats(r, (2, 65, 33, 129))]


def head_split_merge_transposes(x, w, xb):
    # Multi-head attention's reshapes: [B, T, H*D] -> [B, H, T, D] for
    # the scores and back, in f32 with a scale fused, and in bf16 with
    # a residual; a layout change of a [B, T, H, D] cache to [B, H, D, T]
    # (keys stored transposed for the dot).
    b, t, hd = x.shape
    h = 12
    q = (x @ w).reshape(b, t, h, hd // h).transpose(0, 2, 1, 3) * 0.125
    back = q.transpose(0, 2, 1, 3).reshape(b, t, hd)
    qb = xb.reshape(b, t, h, hd // h).transpose(0, 2, 1, 3)
    merged = qb.transpose(0, 2, 1, 3).reshape(b, t, hd) + xb
    kt = xb.reshape(b, t, h, hd // h).transpose(0, 2, 3, 1)
    return q, back, qb, merged, kt, jnp.swapaxes(kt, -1, -2).sum(-1)


# --- data movement -------------------------------------------------------

def concat_pad_reverse_many(parts, cols, x, y):
    # Concatenates of many operands with odd sizes along rows (17) and
    # columns (11), lax.pad with negative and interior padding, jnp.pad's
    # reflect and edge modes, reverses, rolls by odd shifts and tiles.
    rows = jnp.concatenate(parts, 0)
    wide = jnp.concatenate(cols, 1)
    p1 = lax.pad(x, jnp.float32(-1), ((-3, 5, 0), (2, -7, 1)))
    p2 = lax.pad(x[:50, :40], jnp.float32(0), ((1, 1, 3), (0, 0, 2)))
    return (rows, wide, rows[::-1] * 2, jnp.flip(wide, 1), p1, p2,
            jnp.pad(y, ((3, 4), (5, 6)), mode="reflect"),
            jnp.pad(y, ((7, 0), (0, 9)), mode="edge"),
            jnp.roll(y, 37, 0), jnp.roll(y, (-5, 101), (0, 1)),
            jnp.tile(x[:7, :9], (33, 5)), jnp.concatenate(
                [wide, jnp.flip(wide, 0), wide[:, :3]], 1).sum(0))


def _concat_inputs(r):
    sizes = [1, 3, 7, 31, 33, 64, 5, 127, 2, 129, 1000, 17, 255, 1, 63, 4,
             257]
    widths = [1, 2, 3, 31, 33, 64, 65, 127, 5, 100, 1]
    return [[floats(r, (n, 37)) for n in sizes],
            [floats(r, (64, m)) for m in widths],
            floats(r, (500, 333)), floats(r, (257, 1001))]


def dynamic_slices_clamped(x, starts, rows, upd):
    # dynamic_slice and dynamic_update_slice whose starts run past the end
    # or below zero (clamped into range), a fori_loop writing blocks at
    # starts that reach past the end, per-row windows under vmap (a
    # gather) and jnp.take in clip and fill modes.
    n, m = x.shape
    s0 = lax.dynamic_slice(x, (starts[0], starts[1]), (64, 100))
    s1 = lax.dynamic_slice(x, (starts[2], starts[3]), (300, 7))
    u0 = lax.dynamic_update_slice(x, upd, (starts[0], starts[3]))
    u1 = lax.dynamic_update_slice(x, upd * 2, (starts[2], starts[1]))

    def body(i, acc):
        blk = jnp.full((300, 50), i, jnp.float32)
        return lax.dynamic_update_slice(acc, blk + acc[:300, :50],
                                        (i * 450, i * 70 - 100))
    looped = lax.fori_loop(0, 6, body, x)
    win = jax.vmap(lambda r, s: lax.dynamic_slice(r, (s,), (16,)))(
        x[:500], rows)
    idx = rows * 3 - 200
    return (s0, s1, u0, u1, looped, win,
            jnp.take(x[0], idx, mode="clip"),
            jnp.take(x[1], idx, mode="fill", fill_value=-7.0),
            x[jnp.clip(idx, 0, n - 1)].sum(-1))


def _dynamic_inputs(r):
    starts = np.array([1990, -5, -40, 290], np.int32)
    return [floats(r, (2000, 300)), starts, ints(r, (500,), -20, 320),
            floats(r, (64, 100))]


def embedding_lookup_grad(table, tokens, pos, w):
    # A 32000 x 64 embedding table looked up by 4 x 256 tokens with
    # duplicates (a few common tokens many times), plus positions; the
    # gradient of the table is a scatter-add of many updates to the same
    # rows. Gradient values come from a grid of quarters so that every
    # order of the duplicate adds is exact.
    def loss(table, pos):
        e = table[tokens] + pos[None]
        return jnp.sum(e * w), e
    (l, e), (gt, gp) = jax.value_and_grad(loss, (0, 1), has_aux=True)(
        table, pos)
    counts = jnp.bincount(tokens.reshape(-1), length=table.shape[0])
    return l, e, gt, gp, counts, jnp.take_along_axis(
        table[:256], (tokens.T[:, :64] % 64), axis=1)


def _embedding_inputs(r):
    tokens = ints(r, (4, 256), 0, 32000)
    tokens[:, ::3] = 7
    tokens[:, 1::5] = 31999
    tokens[2, :100] = 0
    return [_quarters(r, (32000, 64)), tokens, _quarters(r, (256, 64)),
            _quarters(r, (4, 256, 64))]


def scatter_segment_histograms(base, idx, upd, seg, data, di, pw):
    # Scatters with duplicate indices in f32 (add of quarters, max, min,
    # multiply by powers of two: exact in any order), segment sums, maxima
    # and minima over 1000 unsorted segments of 200000 values, bincount
    # with weights, a histogram.
    n = base.shape[0]
    return (base.at[idx].add(upd), base.at[idx].max(upd),
            base.at[idx].min(upd), base.at[idx].multiply(pw),
            base.at[idx[:5000], 3].add(1.0),
            jax.ops.segment_sum(data, seg, 1000),
            jax.ops.segment_max(data, seg, 1000),
            jax.ops.segment_min(di, seg, 1000),
            jax.ops.segment_sum(di, seg, 1000),
            jnp.bincount(seg, weights=data, length=1000),
            jnp.histogram(data, bins=33, range=(-4.0, 4.0))[0],
            jnp.zeros(n, jnp.int32).at[idx].add(1))


def _scatter_inputs(r):
    n = 1000
    idx = ints(r, (20000,), 0, n)
    idx[::4] = 17
    pw = (2.0 ** ints(r, (20000, 64), -2, 3)).astype(np.float32)
    pw[idx == 17] = 1.0  # 5000 duplicates: keep the product in range
    return [_quarters(r, (n, 64)), idx, _quarters(r, (20000, 64)),
            ints(r, (200000,), 0, n), _quarters(r, (200000,)),
            ints(r, (200000,), -10**6, 10**6), pw]


def topk_argsort_rows(a, b, c, d, e, f, g):
    # lax.top_k with k = 1, 5 and 64 over rows of 1000, 4096 and 40000
    # distinct values (the long rows split in parts first), s32 rows;
    # argsort of rows and of columns, a key-value sort (lax.sort with one
    # key), and bf16 sorts.
    out = []
    for x in (a, b, c, d):
        for k in (1, 5, 64):
            out.append(lax.top_k(x, k))
    idx = jnp.argsort(e, -1)
    payload = jnp.broadcast_to(jnp.arange(e.shape[1], dtype=jnp.int32),
                               e.shape)
    keys, vals = lax.sort((e, payload), dimension=1, num_keys=1)
    return (out, idx, keys, vals, jnp.sort(f, 0), jnp.argsort(f, 0),
            jnp.sort(g, -1), jnp.sort(-g.astype(jnp.float32), -1)[:, :10],
            jnp.take_along_axis(e, idx[:, ::-1], -1)[:, :3])


def _topk_inputs(r):
    return [_distinct_rows(r, 64, 1000), _distinct_rows(r, 8, 4096),
            _distinct_rows(r, 4, 40000),
            _distinct_rows(r, 16, 5000).astype(np.int32) * 3,
            _distinct_rows(r, 256, 1000),
            _distinct_rows(r, 17, 3000).T.copy(),
            _distinct_rows(r, 128, 513).astype(jnp.bfloat16)]


def cumulative_scans(a, b, c, d, e, f, gate, inp, ib, bf):
    # Cumulative sums along rows of 1000 and 4097 and down columns of
    # [5000, 33] (quarters: exact partial sums), in reverse, in s32 and of
    # bf16 in f32; cumprod of values near one; cummax/cummin along rows and
    # columns; cumlogsumexp; a gated linear recurrence h = a h + b by
    # associative_scan (a state-space model's parallel scan).
    def combine(x, y):
        return y[0] * x[0], y[0] * x[1] + y[1]
    _, h = lax.associative_scan(combine, (gate, inp), axis=1)
    return (jnp.cumsum(a, 1), jnp.cumsum(b, 1), jnp.cumsum(c, 0),
            lax.cumsum(a, 1, reverse=True), jnp.cumsum(ib, 1),
            jnp.cumsum(bf, 1, dtype=jnp.float32),
            jnp.cumprod(1.0 + 0.01 * d, 1), lax.cummax(e, 1),
            lax.cummin(e, 0), lax.cummax(ib, 0),
            lax.cumlogsumexp(f, 1), h, h[:, -1])


def _scan_inputs(r):
    return [_quarters(r, (300, 1000)), _quarters(r, (20, 4097)),
            _quarters(r, (5000, 33)), floats(r, (64, 200)),
            floats(r, (512, 127)), floats(r, (100, 1000)),
            r.uniform(0.8, 1.0, (64, 1024)).astype(np.float32),
            floats(r, (64, 1024)), ints(r, (100, 3001), -50, 50),
            _quarters(r, (64, 1000)).astype(jnp.bfloat16)]


def iota_masks_large(x, lengths, labels, scores):
    # Masks built from iota at 1024 x 1024: causal, banded, tril/triu with
    # offsets, eye with an offset, padding masks from lengths, one_hot of
    # 2000 labels over 1000 classes, positions from the cumsum of a mask,
    # and a masked softmax where whole rows are masked.
    t = x.shape[0]
    q = lax.broadcasted_iota(jnp.int32, (t, t), 0)
    k = lax.broadcasted_iota(jnp.int32, (t, t), 1)
    causal = k <= q
    band = jnp.abs(q - k) < 17
    pad = jnp.arange(scores.shape[1])[None, :] < lengths[:, None]
    pos = jnp.cumsum(pad, 1) * pad - 1
    s = jnp.where(pad, scores, -jnp.inf)
    mx = s.max(-1, keepdims=True)
    e = jnp.where(pad, jnp.exp(s - jnp.where(pad.any(-1, keepdims=True),
                                             mx, 0.0)), 0.0)
    sm = e / jnp.maximum(e.sum(-1, keepdims=True), 1e-30)
    return (jnp.where(causal, x, 0.0), jnp.where(band & causal, x, -1.0),
            jnp.triu(x, 3), jnp.tril(x, -2), jnp.eye(999, k=2) * 3,
            jax.nn.one_hot(labels, 1000, dtype=jnp.bfloat16), pos, sm,
            (causal & ~band).sum(), x.sum(1, where=causal))


def _mask_inputs(r):
    lengths = np.array([1000, 0, 1, 513, 999, 64] * 10 + [7, 1000, 2, 3],
                       np.int32)
    return [floats(r, (1024, 1024)), lengths, ints(r, (2000,), -1, 1001),
            floats(r, (64, 1000))]


# --- dots and attention --------------------------------------------------

def dense_epilogues(x, w, b, xb, wb, bb):
    # One dense layer with each activation people fuse after the bias:
    # relu, gelu (tanh and erf), tanh, silu, in f32 [512, 384] x [384,
    # 1000] and bf16 [1024, 256] x [256, 768] (bf16 output and f32
    # accumulation asked for).
    y = x @ w + b
    yb = xb @ wb + bb
    y32 = jnp.dot(xb, wb, preferred_element_type=jnp.float32)
    return (jax.nn.relu(y), jax.nn.gelu(y), jax.nn.gelu(y, approximate=False),
            jnp.tanh(y), jax.nn.silu(y), jax.nn.relu(yb), jax.nn.gelu(yb),
            jax.nn.silu(yb), (y32 + bb).astype(jnp.bfloat16),
            jnp.tanh(y32).sum(0))


def _dense_inputs(r):
    return [floats(r, (512, 384)), _w(r, 384, 1000), floats(r, (1000,)),
            floats(r, (1024, 256)).astype(jnp.bfloat16),
            _w(r, 256, 768).astype(jnp.bfloat16),
            floats(r, (768,)).astype(jnp.bfloat16)]


def batched_and_vector_dots(a, b, c, d, v, m, e, f, wq, sc, xb):
    # Batched matmuls with odd batch counts (7, 13, and 3 x 5 batch dims),
    # a one-row batch, a vector-matrix and a matrix-vector product, an
    # outer product, and int8 weights dequantized by per-column scales to
    # bf16 before the dot.
    wd = wq.astype(jnp.bfloat16) * sc.astype(jnp.bfloat16)
    return (jnp.einsum("bij,bjk->bik", a, b),
            jnp.einsum("bij,bjk->bik", c, d),
            v @ m, m @ v[:m.shape[1]],
            jnp.einsum("xyij,xyjk->xyik", e, f),
            jnp.outer(v[:300], v[-200:]),
            xb @ wd, jnp.dot(xb, wd, preferred_element_type=jnp.float32),
            jnp.einsum("bij,bkj->bik", a, a))


def _bdot_inputs(r):
    return [floats(r, (7, 129, 65)), floats(r, (7, 65, 33)),
            floats(r, (13, 1, 500)), floats(r, (13, 500, 31)),
            floats(r, (1000,)), floats(r, (1000, 777)),
            floats(r, (3, 5, 64, 17)), floats(r, (3, 5, 17, 64)),
            ints(r, (512, 384), -127, 128, np.int8),
            (r.random((384,)) * 0.02).astype(np.float32),
            floats(r, (64, 512)).astype(jnp.bfloat16)]


def causal_attention_lengths(q, k, v, qb, kb, vb):
    # Causal self-attention written out (scores, iota mask, softmax,
    # weighted values) at 256 positions x 4 heads in f32 with its
    # gradient, and at 1024 positions in bf16 beside
    # jax.nn.dot_product_attention(is_causal=True).
    def attn(q, k, v):
        t = q.shape[2]
        s = jnp.einsum("bhqd,bhkd->bhqk", q, k, precision=_HI) / np.sqrt(
            q.shape[-1])
        mask = jnp.tril(jnp.ones((t, t), bool))
        s = jnp.where(mask, s, jnp.finfo(s.dtype).min)
        p = jax.nn.softmax(s.astype(jnp.float32), -1).astype(q.dtype)
        return jnp.einsum("bhqk,bhkd->bhqd", p, v, precision=_HI)
    o = attn(q, k, v)
    g = jax.grad(lambda q, k, v: jnp.sum(jnp.sin(attn(q, k, v))),
                 (0, 1, 2))(q, k, v)
    ob = attn(qb, kb, vb)
    api = jax.nn.dot_product_attention(
        qb.transpose(0, 2, 1, 3), kb.transpose(0, 2, 1, 3),
        vb.transpose(0, 2, 1, 3), is_causal=True)
    return o, g, ob, api


def _attention_inputs(r):
    return [floats(r, (1, 4, 256, 64)), floats(r, (1, 4, 256, 64)),
            floats(r, (1, 4, 256, 64)),
            floats(r, (1, 2, 1024, 32)).astype(jnp.bfloat16),
            floats(r, (1, 2, 1024, 32)).astype(jnp.bfloat16),
            floats(r, (1, 2, 1024, 32)).astype(jnp.bfloat16)]


# --- optimizers and losses at scale --------------------------------------

def adamw_millions(params, grads, m, v, step):
    # AdamW over 2.3 million parameters: the global gradient norm (a full
    # reduction over every leaf), clipping to norm 1, bias corrections
    # from the integer step, a warmup-cosine learning rate, weight decay
    # on matrices only.
    leaves = jax.tree.leaves(grads)
    gnorm = jnp.sqrt(sum(jnp.sum(g * g) for g in leaves))
    clip = jnp.minimum(1.0, 1.0 / (gnorm + 1e-6))
    t = step.astype(jnp.float32) + 1
    warm = jnp.minimum(t / 100.0, 1.0)
    lr = 3e-4 * warm * 0.5 * (1 + jnp.cos(jnp.pi * jnp.minimum(t / 1e4,
                                                                1.0)))
    b1, b2 = 0.9, 0.999

    def upd(p, g, m, v):
        g = g * clip
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        mh = m / (1 - b1 ** t)
        vh = v / (1 - b2 ** t)
        decay = 0.01 * p if p.ndim > 1 else 0.0
        return p - lr * (mh / (jnp.sqrt(vh) + 1e-8) + decay), m, v
    out = jax.tree.map(upd, params, grads, m, v)
    new_p = jax.tree.map(lambda o: o[0], out,
                         is_leaf=lambda o: isinstance(o, tuple))
    new_m = jax.tree.map(lambda o: o[1], out,
                         is_leaf=lambda o: isinstance(o, tuple))
    new_v = jax.tree.map(lambda o: o[2], out,
                         is_leaf=lambda o: isinstance(o, tuple))
    return new_p, new_m, new_v, gnorm, lr


def _adam_inputs(r):
    shapes = {"w1": (1024, 1024), "w2": (1000, 1001), "b2": (1001,),
              "emb": (3000, 100), "scale": (7,)}

    def tree(f):
        return {k: f(s) for k, s in shapes.items()}
    return [tree(lambda s: floats(r, s) * 0.02),
            tree(lambda s: floats(r, s) * 1e-3),
            tree(lambda s: floats(r, s) * 1e-4),
            tree(lambda s: r.random(s).astype(np.float32) * 1e-6),
            np.int32(41)]


def cross_entropy_32k_bf16(logits, labels, h, w):
    # Language-model cross-entropy over a 32000-word vocabulary in bf16:
    # log-softmax in f32, an ignored label (-100), label smoothing and
    # PaLM's z-loss, the bf16 gradient of the logits; accuracy and top-5
    # accuracy; an LM head [64, 32000] whose loss gradient is a bf16 dot.
    def loss(z):
        z32 = z.astype(jnp.float32)
        lse = jax.nn.logsumexp(z32, -1)
        logp = z32 - lse[:, None]
        valid = labels >= 0
        safe = jnp.where(valid, labels, 0)
        nll = -jnp.take_along_axis(logp, safe[:, None], -1)[:, 0]
        smooth = -logp.mean(-1)
        per = 0.9 * nll + 0.1 * smooth + 1e-4 * lse ** 2
        return jnp.sum(jnp.where(valid, per, 0.0)) / valid.sum()
    l, g = jax.value_and_grad(loss)(logits)
    acc = (jnp.argmax(logits, -1) == labels).mean()
    top5 = (lax.top_k(logits, 5)[1] == labels[:, None]).any(-1).mean()
    lh, gw = jax.value_and_grad(lambda w: loss(h @ w))(w)
    return l, g, acc, top5, lh, gw


def _ce_inputs(r):
    labels = ints(r, (8,), 0, 32000)
    labels[3] = -100
    return [(floats(r, (8, 32000)) * 3).astype(jnp.bfloat16), labels,
            floats(r, (8, 64)).astype(jnp.bfloat16),
            _w(r, 64, 32000).astype(jnp.bfloat16)]


# --- elementwise types, integers and conversions ------------------------

def elementwise_types_broadcasts(h, hr, bf, bfr, f64, c, cr, i32, i32c, r5a,
                                 r5b, lo, hi):
    # Elementwise chains over f16, bf16, f64, c64 and s32 with broadcasts
    # of every rank (scalar, row, column, rank-3 outer, rank-5 crossing
    # singleton axes), select with broadcast predicates, clamp with array
    # bounds.
    return (jnp.tanh(h * hr) + h / (1 + jnp.abs(hr)),           # f16 rank 3
            jnp.exp(-bf * bf) * bfr + jax.nn.sigmoid(bf),       # bf16 rows
            jnp.log1p(jnp.abs(f64)) * jnp.sin(f64) + 1 / 3,     # f64
            c * cr + jnp.conj(c) * 0.5, jnp.abs(c * cr),        # c64
            jnp.exp(c * 0.1) / (cr + 2),
            i32 * i32c + i32 // 7 - (i32 % 5), jnp.maximum(i32, i32c),
            r5a + r5b, r5a * r5b - 1.0,                          # rank 5
            jnp.where(i32c > 0, i32, -i32), jnp.where(hr > 0, h, 0),
            jnp.clip(bf.astype(jnp.float32), lo[:, None], hi[:, None]),
            lax.clamp(jnp.float16(-0.5), h, jnp.float16(0.75)))


def _elementwise_inputs(r):
    return [floats(r, (64, 1, 33)).astype(np.float16),
            floats(r, (1, 257, 1)).astype(np.float16),
            floats(r, (1000, 129)).astype(jnp.bfloat16),
            floats(r, (129,)).astype(jnp.bfloat16),
            floats(r, (100000,), np.float64) * 10,
            complexes(r, (300, 700)), complexes(r, (700,)),
            ints(r, (1000, 513), -10**4, 10**4), ints(r, (1000, 1), -9, 9),
            floats(r, (2, 1, 3, 1, 5)), floats(r, (1, 4, 1, 6, 1)),
            floats(r, (1000,)) - 1, floats(r, (1000,)) + 1]


_INT_EDGES = np.array([0, 1, -1, 7, -7, 2**31 - 1, -2**31, 13, -13, 100, -100,
                       2**30, -2**30, 3, -3, 65536], np.int64)
_FLOAT_EDGES = np.array([0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 127.5,
                         128.0, -128.5, 255.5, 256.0, 2147483520.0,
                         2147483648.0, -2147483648.0, -2147483904.0, 3e9,
                         -3e9, 4294967040.0, 1e20, -1e20, np.inf, -np.inf,
                         np.nan, 65504.0, 65520.0, 1e-30, 3.4e38, 0.99999994,
                         -0.99999994], np.float32)


def integer_conversion_edges(a, b, sh, f, i64, u32):
    # Integer division and remainder with negative operands, by zero and of
    # INT_MIN by -1 (XLA's defined results) through lax.div/rem and jnp's
    # floor_divide/remainder/fmod; shifts by amounts past the width and
    # negative; popcount and clz; float -> int conversions at their edges
    # (halves, the type's bounds, past them, infinities, NaN), int -> float
    # rounding of large values, f32 -> f16/bf16 overflow and rounding; at
    # a million elements.
    out = (lax.div(a, b), lax.rem(a, b), jnp.floor_divide(a, b),
           jnp.remainder(a, b), jnp.fmod(a, b),
           lax.shift_left(a, sh), lax.shift_right_arithmetic(a, sh),
           lax.shift_right_logical(a, sh), lax.population_count(a),
           lax.clz(a), lax.shift_left(u32, sh.astype(jnp.uint32)),
           lax.shift_right_logical(u32, sh.astype(jnp.uint32)))
    conv = (f.astype(jnp.int32), f.astype(jnp.int8), f.astype(jnp.uint8),
            f.astype(jnp.uint32), f.astype(jnp.int64), f.astype(jnp.int16),
            f.astype(jnp.float16), f.astype(jnp.bfloat16),
            f.astype(jnp.bool_), jnp.round(f).astype(jnp.int32),
            jnp.floor(f).astype(jnp.int64))
    back = (i64.astype(jnp.float32), i64.astype(jnp.float16),
            i64.astype(jnp.bfloat16), u32.astype(jnp.float32),
            a.astype(jnp.float32), i64.astype(jnp.int32),
            i64.astype(jnp.uint8), a.astype(jnp.uint16))
    return out, conv, back


def _int_edge_inputs(r):
    n = 1_000_003
    a = np.concatenate([np.tile(_INT_EDGES, 40), ints(r, (n - 640,),
                                                      -2**31, 2**31)])
    b = np.concatenate([np.repeat(_INT_EDGES, 40), ints(r, (n - 640,), -50,
                                                       50)])
    f = np.concatenate([np.tile(_FLOAT_EDGES, 7),
                        floats(r, (n - 7 * len(_FLOAT_EDGES),)) * 1e5])
    i64 = np.concatenate([np.array([2**63 - 1, -2**63, 2**53 + 1, 2**24 + 1,
                                    -2**24 - 1, 65520, 70000, 2**31],
                                   np.int64),
                          ints(r, (n - 8,), -2**62, 2**62, np.int64)])
    return [a.astype(np.int32), b.astype(np.int32),
            ints(r, (n,), -2, 40), f.astype(np.float32), i64,
            ints(r, (n,), 0, 2**32, np.uint32)]


def random_bits_split_sizes(raw_key, key4):
    # jax.random at sizes 1, 3, 1025, 65537 and [1000, 1001] (threefry's
    # counters split across threads and remainders), bf16 uniforms,
    # randint, permutation; lax.rng_bit_generator with three-fry and
    # philox explicitly, u32, u64 and u8 outputs.
    key = jax.random.wrap_key_data(raw_key)
    ks = jax.random.split(key, 6)
    out = [jax.random.normal(ks[0], (n,)) for n in (1, 3, 1025, 65537)]
    out += [jax.random.uniform(ks[1], (1000, 1001)),
            jax.random.uniform(ks[2], (513, 257), jnp.bfloat16),
            jax.random.randint(ks[3], (70001,), -3, 1 << 20),
            jax.random.permutation(ks[4], 5000),
            jax.random.bernoulli(ks[5], 0.25, (4097, 3))]
    for alg in (lax.RandomAlgorithm.RNG_THREE_FRY,
                lax.RandomAlgorithm.RNG_PHILOX):
        k2, bits = lax.rng_bit_generator(key4, (3, 100001), jnp.uint32,
                                         algorithm=alg)
        _, b64 = lax.rng_bit_generator(k2, (1025,), jnp.uint64,
                                       algorithm=alg)
        _, b8 = lax.rng_bit_generator(key4, (7, 33), jnp.uint8,
                                      algorithm=alg)
        out += [k2, bits, b64, b8]
    return out


# --- end to end ----------------------------------------------------------

def gpt_block_train_step_bf16(params, tokens):
    # A one-block GPT in bf16 with f32 master weights: embeddings, pre-
    # norm causal attention (4 heads of 64), a 4x GELU MLP, tied output
    # embedding over a 512-word vocabulary; next-token loss in f32, its
    # gradient and an SGD-with-momentum-free update of the master
    # weights; batch 4, 256 positions, width 256.
    def rms(x, g):
        x32 = x.astype(jnp.float32)
        return (x32 * lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True)
                                + 1e-6) * g).astype(jnp.bfloat16)

    def forward(p, tok):
        c = jax.tree.map(lambda a: a.astype(jnp.bfloat16), p)
        b, t = tok.shape
        x = c["emb"][tok] + c["pos"][:t]
        h = rms(x, p["g1"])
        q, k, v = jnp.split(h @ c["qkv"], 3, -1)
        heads = lambda a: a.reshape(b, t, 4, -1).transpose(0, 2, 1, 3)
        q, k, v = heads(q), heads(k), heads(v)
        s = jnp.einsum("bhqd,bhkd->bhqk", q, k,
                       preferred_element_type=jnp.float32) * 0.125
        s = jnp.where(jnp.tril(jnp.ones((t, t), bool)), s, -1e9)
        a = jax.nn.softmax(s, -1).astype(jnp.bfloat16)
        o = jnp.einsum("bhqk,bhkd->bhqd", a, v)
        x = x + o.transpose(0, 2, 1, 3).reshape(b, t, -1) @ c["proj"]
        h = rms(x, p["g2"])
        x = x + jax.nn.gelu(h @ c["fc"] + c["fc_b"]) @ c["out"]
        return rms(x, p["gf"]) @ c["emb"].T

    def loss(p):
        logits = forward(p, tokens[:, :-1]).astype(jnp.float32)
        logp = jax.nn.log_softmax(logits, -1)
        nll = -jnp.take_along_axis(logp, tokens[:, 1:, None], -1)
        return nll.mean()
    l, g = jax.value_and_grad(loss)(params)
    new = jax.tree.map(lambda p, g: p - 0.05 * g, params, g)
    return l, g, new


def _gpt_inputs(r):
    d, v, t = 256, 512, 257
    p = {"emb": floats(r, (v, d)) * 0.02, "pos": floats(r, (t, d)) * 0.02,
         "g1": np.ones(d, np.float32), "g2": np.ones(d, np.float32),
         "gf": np.ones(d, np.float32), "qkv": _w(r, d, 3 * d),
         "proj": _w(r, d, d), "fc": _w(r, d, 4 * d),
         "fc_b": np.zeros(4 * d, np.float32), "out": _w(r, 4 * d, d)}
    return [p, ints(r, (4, t), 0, v)]


def convnet_batchnorm_step(params, state, images, labels):
    # A small CNN training step: two 3x3 convolutions (the second strided)
    # each followed by batch norm with batch statistics and a running-
    # average update, ReLU, global average pooling and a dense head;
    # softmax cross-entropy; SGD with momentum. Full f32 contractions.
    def conv(x, w, stride):
        return lax.conv_general_dilated(
            x, w, (stride, stride), "SAME",
            dimension_numbers=("NHWC", "HWIO", "NHWC"), precision=_HI)

    def bn(x, g, b):
        mu = x.mean((0, 1, 2))
        var = x.var((0, 1, 2))
        return (x - mu) * lax.rsqrt(var + 1e-5) * g + b, mu, var

    def loss(p):
        h, m1, v1 = bn(conv(images, p["c1"], 1), p["g1"], p["b1"])
        h = jax.nn.relu(h)
        h, m2, v2 = bn(conv(h, p["c2"], 2), p["g2"], p["b2"])
        h = jax.nn.relu(h).mean((1, 2))
        logits = jnp.dot(h, p["head"], precision=_HI)
        nll = jax.nn.logsumexp(logits, -1) - jnp.take_along_axis(
            logits, labels[:, None], -1)[:, 0]
        return nll.mean(), (m1, v1, m2, v2, logits)
    (l, (m1, v1, m2, v2, logits)), g = jax.value_and_grad(
        loss, has_aux=True)(params)
    mom = jax.tree.map(lambda mo, gg: 0.9 * mo + gg, state["mom"], g)
    new_p = jax.tree.map(lambda p, mo: p - 0.1 * mo, params, mom)
    running = {"m1": 0.9 * state["m1"] + 0.1 * m1,
               "v1": 0.9 * state["v1"] + 0.1 * v1,
               "m2": 0.9 * state["m2"] + 0.1 * m2,
               "v2": 0.9 * state["v2"] + 0.1 * v2}
    acc = (jnp.argmax(logits, -1) == labels).mean()
    return l, acc, new_p, mom, running


def _convnet_inputs(r):
    p = {"c1": _w(r, 27, 16).reshape(3, 3, 3, 16),
         "c2": _w(r, 144, 32).reshape(3, 3, 16, 32),
         "g1": np.ones(16, np.float32), "b1": np.zeros(16, np.float32),
         "g2": np.ones(32, np.float32), "b2": np.zeros(32, np.float32),
         "head": _w(r, 32, 10)}
    state = {"mom": {k: np.zeros_like(v) for k, v in p.items()},
             "m1": np.zeros(16, np.float32), "v1": np.ones(16, np.float32),
             "m2": np.zeros(32, np.float32), "v2": np.ones(32, np.float32)}
    return [p, state, floats(r, (16, 32, 32, 3)), ints(r, (16,), 0, 10)]


def mlp_adamw_step(params, m, v, x, y):
    # An MNIST-sized MLP (784 -> 512 -> 256 -> 10, batch 256) with GELU
    # layers, softmax cross-entropy, its gradient and the tenth AdamW step;
    # full-precision f32 dots.
    def forward(p, x):
        h = jax.nn.gelu(jnp.dot(x, p["w1"], precision=_HI) + p["b1"])
        h = jax.nn.gelu(jnp.dot(h, p["w2"], precision=_HI) + p["b2"])
        return jnp.dot(h, p["w3"], precision=_HI) + p["b3"]

    def loss(p):
        logits = forward(p, x)
        return jnp.mean(jax.nn.logsumexp(logits, -1)
                        - jnp.take_along_axis(logits, y[:, None], -1)[:, 0])
    l, g = jax.value_and_grad(loss)(params)
    m = jax.tree.map(lambda a, b: 0.9 * a + 0.1 * b, m, g)
    v = jax.tree.map(lambda a, b: 0.999 * a + 0.001 * b * b, v, g)
    c1, c2 = 1 - 0.9 ** 10, 1 - 0.999 ** 10
    new = jax.tree.map(
        lambda p, a, b: p - 1e-3 * (a / c1 / (jnp.sqrt(b / c2) + 1e-8)
                                    + 1e-2 * p), params, m, v)
    acc = (jnp.argmax(forward(params, x), -1) == y).mean()
    return l, acc, new, m, v


def _mlp_inputs(r):
    sizes = [(784, 512), (512, 256), (256, 10)]
    p = {}
    for i, (a, b) in enumerate(sizes, 1):
        p[f"w{i}"] = _w(r, a, b)
        p[f"b{i}"] = np.zeros(b, np.float32)
    # The moments of step 10 (Adam's first step divides a gradient by its
    # own magnitude, which makes the sign of gradients near zero decide
    # the update: a test of summation order, not of the compiler).
    m = {k: floats(r, v.shape) * 1e-3 for k, v in p.items()}
    v = {k: (r.random(v.shape) * 1e-5 + 1e-6).astype(np.float32)
         for k, v in p.items()}
    return [p, m, v, r.random((256, 784)).astype(np.float32),
            ints(r, (256,), 0, 10)]


PROGRAMS = {
    "row_softmax_lengths": (row_softmax_lengths, _row_inputs),
    "row_norms_half_precision": (row_norms_half_precision, _half_inputs),
    "rmsnorm_rotary_bf16": (rmsnorm_rotary_bf16, _rotary_inputs),
    "layernorm_grad_widths": (layernorm_grad_widths, _layernorm_inputs),
    "row_stats_multi_output": (row_stats_multi_output, lambda r: [
        floats(r, (4096, 127)) + 1, floats(r, (512, 1000)) * 3]),
    "row_argmax_variadic": (row_argmax_variadic, _argmax_inputs),
    "row_bool_int_reductions": (row_bool_int_reductions, _bool_int_inputs),
    "column_reductions_odd": (column_reductions_odd, _column_inputs),
    "middle_axis_reductions": (middle_axis_reductions, lambda r: [
        _quarters(r, (64, 1000, 5)), floats(r, (7, 3000, 33)),
        _quarters(r, (128, 33, 64)), floats(r, (5, 4097, 3)),
        floats(r, (16, 129, 129)), floats(r, (32, 500, 7))]),
    "full_reductions_large": (full_reductions_large, _full_inputs),
    "transpose_odd_shapes": (transpose_odd_shapes, _transpose_inputs),
    "head_split_merge_transposes": (head_split_merge_transposes, lambda r: [
        floats(r, (8, 128, 768)), _w(r, 768, 768),
        floats(r, (8, 128, 768)).astype(jnp.bfloat16)]),
    "concat_pad_reverse_many": (concat_pad_reverse_many, _concat_inputs),
    "dynamic_slices_clamped": (dynamic_slices_clamped, _dynamic_inputs),
    "embedding_lookup_grad": (embedding_lookup_grad, _embedding_inputs),
    "scatter_segment_histograms": (scatter_segment_histograms,
                                   _scatter_inputs),
    "topk_argsort_rows": (topk_argsort_rows, _topk_inputs),
    "cumulative_scans": (cumulative_scans, _scan_inputs),
    "iota_masks_large": (iota_masks_large, _mask_inputs),
    "dense_epilogues": (dense_epilogues, _dense_inputs),
    "batched_and_vector_dots": (batched_and_vector_dots, _bdot_inputs),
    "causal_attention_lengths": (causal_attention_lengths,
                                 _attention_inputs),
    "adamw_millions": (adamw_millions, _adam_inputs),
    "cross_entropy_32k_bf16": (cross_entropy_32k_bf16, _ce_inputs),
    "elementwise_types_broadcasts": (elementwise_types_broadcasts,
                                     _elementwise_inputs),
    "integer_conversion_edges": (integer_conversion_edges, _int_edge_inputs),
    "random_bits_split_sizes": (random_bits_split_sizes, lambda r: [
        prng_key(r), r.integers(0, 2**32, (4,), dtype=np.uint64).astype(
            np.uint32)]),
    "gpt_block_train_step_bf16": (gpt_block_train_step_bf16, _gpt_inputs),
    "convnet_batchnorm_step": (convnet_batchnorm_step, _convnet_inputs),
    "mlp_adamw_step": (mlp_adamw_step, _mlp_inputs),
}
