"""Zoo: programs from the fourth bug hunt outside the corpus and the other
themes: sorting-heavy code (long sorts and argsorts with NaN, -0.0 and
ties, descending by negation and flip, stable argsorts of int, bool, f16
and bf16 keys, s64/u64/f64/complex/s8 sorts, unique with size=, median and
quantiles, top-p sampling), jax.random samplers (rejection-sampling ones
included), while loops carrying in-place updates, a KV-cache decode scan,
unrolled fori_loops, lax.map, vmapped cond, switch and while loops,
histograms and bincount, interp, polyval, convolve and correlate,
cumulative sums with dtype promotion and integer overflow, masked
attention with fully masked rows and jax.nn.dot_product_attention,
logsumexp of -inf, one_hot, argmax/argmin with NaN and ties, nan-
reductions, clip with NaN bounds, powers and rounding at the edges,
floor_divide/fmod/mod of negative operands, bitwise ops on unsigned and
bool, complex branch cuts, integer and f64 conversions to narrow floats,
algebraic identities fed special values, long NaN scans, int8 and complex
convolutions, dynamic slices indexed by u8/u32/s64/s8 scalars,
reductions with reducers of their own, scatter min/max with NaN, and
zero-extent shapes. No hloc bug was found. Left out on purpose, as
XLA:CPU's results there are not the IEEE ones hloc gives: XLA's
log(exp(x)) -> x, sqrt(x * x) -> |x| and (x * c1) / c2 -> x * (c1 / c2)
rewrites (finite where IEEE overflows), its vectorized min/max reductions
that drop NaN (a 100x60 column min with a NaN is a number), and frexp of
denormals (flushed differently)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import complexes, floats, ints, prng_key


def _specials(r, n, dtype=np.float32):
    x = floats(r, (n,))
    x[::7] = np.nan
    x[1::11] = -0.0
    x[2::11] = 0.0
    x[3::13] = np.inf
    x[4::13] = -np.inf
    x[5::5] = np.round(x[5::5])  # ties
    return x.astype(dtype)


def sorts_specials_desc(x, m):
    # x: f32[5000] with NaN, signed zeros, infinities and ties; m: f32[7, 1500]
    asc = jnp.sort(x)
    desc_flip = jnp.flip(jnp.sort(x))
    desc_neg = -jnp.sort(-x)
    order = jnp.argsort(x, stable=True)
    order_desc = jnp.argsort(x, stable=True, descending=True)
    rows = jnp.sort(m, axis=1)
    cols = jnp.sort(m, axis=0)
    arg_rows = jnp.argsort(m, axis=1)
    arg_cols = jnp.argsort(m, axis=0)
    return (asc, desc_flip, desc_neg, order, order_desc, rows, cols,
            arg_rows, arg_cols, x[order])


def stable_argsort_keys(i, b, h, bf, big):
    # Stable argsorts of keys with many ties: int32, bool, f16, bf16, and a
    # long int key (20000).
    return (jnp.argsort(i, stable=True),
            jnp.argsort(b, stable=True),
            jnp.argsort(h, stable=True),
            jnp.argsort(bf.astype(jnp.bfloat16), stable=True),
            jnp.argsort(big, stable=True),
            jnp.argsort(-big, stable=True),
            jnp.argsort(i, axis=0, stable=True, descending=True),
            jnp.sort(h), jnp.sort(bf.astype(jnp.bfloat16)),
            lax.sort((b, i), num_keys=1, is_stable=True)[1])


def unique_sized(x, f):
    u = jnp.unique(x, size=12, fill_value=-1)
    u2, idx, inv, cnt = jnp.unique(x, size=15, fill_value=0,
                                   return_index=True, return_inverse=True,
                                   return_counts=True)
    uf = jnp.unique(f, size=10, fill_value=jnp.nan)
    return u, u2, idx, inv, cnt, uf


def median_quantiles(x, y):
    qs = jnp.array([0.0, 0.1, 0.25, 0.5, 0.9, 1.0], jnp.float32)
    return (jnp.median(x), jnp.median(x, axis=0), jnp.median(x, axis=1),
            jnp.quantile(x, qs, axis=1),
            jnp.quantile(x, 0.3, method="lower"),
            jnp.quantile(x, 0.3, method="higher"),
            jnp.quantile(x, 0.3, method="nearest"),
            jnp.quantile(x, 0.3, method="midpoint"),
            jnp.percentile(x, jnp.array([5.0, 50.0, 95.0]), axis=0),
            jnp.nanmedian(y), jnp.nanquantile(y, 0.75),
            jnp.median(y))


def top_p_sampling(logits, key):
    # Nucleus sampling: sort descending, cumulative softmax, mask the tail,
    # sample from the rest.
    p = 0.9
    sorted_logits = -jnp.sort(-logits, axis=-1)
    sorted_idx = jnp.argsort(-logits, axis=-1)
    probs = jax.nn.softmax(sorted_logits, axis=-1)
    cum = jnp.cumsum(probs, axis=-1)
    mask = cum - probs > p
    masked = jnp.where(mask, -jnp.inf, sorted_logits)
    choice = jax.random.categorical(key, masked, axis=-1)
    token = jnp.take_along_axis(sorted_idx, choice[:, None], axis=-1)
    topk_v, topk_i = lax.top_k(logits, 5)
    return token, mask.sum(-1), cum[:, -1], topk_v, topk_i


def random_samplers_more(key, x):
    k = jax.random.split(key, 10)
    return (jax.random.categorical(k[0], x, axis=-1, shape=(4, 3)),
            jax.random.gumbel(k[1], (4, 5)),
            jax.random.truncated_normal(k[2], -1.0, 2.0, (6,)),
            jax.random.permutation(k[3], 17),
            jax.random.permutation(k[4], x, axis=1, independent=True),
            jax.random.choice(k[5], 20, (8,), replace=False),
            jax.random.choice(k[6], 20, (8,), replace=True),
            jax.random.choice(k[7], 6, (5,), replace=False,
                              p=jnp.array([0.1, 0.2, 0.3, 0.1, 0.2, 0.1])),
            jax.random.randint(k[8], (10,), -5, 5),
            jax.random.bernoulli(k[9], 0.3, (12,)),
            jax.random.uniform(k[0], (3,), minval=-2.0, maxval=3.0),
            jax.random.exponential(k[1], (4,)),
            jax.random.laplace(k[2], (4,)))


def while_dus_carry(x):
    # A while loop writing one row of a buffer per step, with a data-dependent
    # exit; and a fori_loop unrolled.
    n = x.shape[0]

    def cond(c):
        i, buf, acc = c
        return (i < n) & (acc < 50.0)

    def body(c):
        i, buf, acc = c
        row = lax.dynamic_slice_in_dim(x, i, 1, axis=0) * (i + 1)
        buf = lax.dynamic_update_slice(buf, row, (i, 0))
        return i + 1, buf, acc + jnp.abs(row).sum()

    i, buf, acc = lax.while_loop(
        cond, body, (0, jnp.zeros_like(x), jnp.float32(0)))

    def fbody(j, c):
        v = lax.dynamic_update_index_in_dim(c, c[j - 1] * 0.5 + c[j], j, 0)
        return v

    u = lax.fori_loop(1, n, fbody, x, unroll=3)
    u2 = lax.fori_loop(0, 4, lambda j, c: c + j * c.sum(), x[0], unroll=True)
    return i, buf, acc, u, u2


def lax_map_vmap_cond(x, idx):
    def f(row):
        return jnp.sort(row)[::-1][:3] + row.mean()

    m = lax.map(f, x)
    mb = lax.map(f, x, batch_size=2)

    def g(r, k):
        return lax.cond(r.sum() > 0, lambda r: r * 2, lambda r: -r, r) + k

    c = jax.vmap(g)(x, idx.astype(jnp.float32))

    def h(r, k):
        return lax.switch(k, [jnp.sin, jnp.cos, lambda v: v * v,
                              lambda v: jnp.cumsum(v)], r)

    s = jax.vmap(h)(x, idx)
    return m, mb, c, s


def histogram_bincount(x, i, w):
    h, edges = jnp.histogram(x, bins=7, range=(-2.0, 2.0))
    hw, _ = jnp.histogram(x, bins=jnp.array([-3.0, -1.0, 0.0, 0.5, 3.0]),
                          weights=jnp.abs(x), density=True)
    b = jnp.bincount(i, length=10)
    bw = jnp.bincount(i, weights=w, length=6)
    d = jnp.digitize(x, jnp.array([-1.0, 0.0, 1.0]))
    dr = jnp.digitize(x, jnp.array([-1.0, 0.0, 1.0]), right=True)
    return h, edges, hw, b, bw, d, dr


def interp_polyval(x, xp, fp, c):
    return (jnp.interp(x, xp, fp),
            jnp.interp(x, xp, fp, left=-1.0, right=2.0),
            jnp.interp(x, xp, fp, period=2.0),
            jnp.polyval(c, x),
            jnp.polyval(c.astype(jnp.int32), jnp.arange(-3, 4)),
            jnp.polyder(c), jnp.polyint(c))


def convolve_correlate(a, v, ai):
    return (jnp.convolve(a, v), jnp.convolve(a, v, mode="same"),
            jnp.convolve(a, v, mode="valid"),
            jnp.correlate(a, v), jnp.correlate(a, v, mode="full"),
            jnp.correlate(a, v, mode="same"),
            jnp.convolve(v, a, mode="same"),
            jnp.convolve(ai, ai[:4]),
            jnp.correlate(a.astype(jnp.complex64) * 1j, v.astype(
                jnp.complex64), mode="full"))


def cumsum_promotion(i8, u8, b, h):
    return (jnp.cumsum(i8), jnp.cumsum(i8, dtype=jnp.int8),
            jnp.cumsum(u8), jnp.cumsum(u8, dtype=jnp.uint8),
            jnp.cumsum(b), jnp.cumsum(b, dtype=jnp.int8),
            jnp.cumsum(h), jnp.cumsum(h, dtype=jnp.float32),
            jnp.cumprod(i8.astype(jnp.int32) + 3),
            jnp.cumprod(u8, dtype=jnp.uint8),
            jnp.cumprod(i8, dtype=jnp.int8),
            jnp.cumprod(jnp.full((40,), 3, jnp.int32)),
            jnp.cumprod(jnp.full((40,), 3, jnp.uint32)),
            lax.cummax(i8), lax.cummin(u8, reverse=True),
            jnp.nancumsum(h), jnp.diff(i8), jnp.diff(u8), jnp.diff(b),
            jnp.diff(h, n=2),
            jnp.ediff1d(i8, to_begin=jnp.array([9], jnp.int8),
                        to_end=jnp.array([7], jnp.int8)))


def masked_attention(q, k, v, lens):
    # Attention with padding masks; rows with no valid key are all -inf,
    # so softmax gives NaN there, and a where-guarded softmax gives zeros.
    s = jnp.einsum("bqd,bkd->bqk", q, k) / jnp.sqrt(q.shape[-1])
    kpos = jnp.arange(k.shape[1])
    mask = kpos[None, None, :] < lens[:, None, None]
    causal = jnp.tril(jnp.ones((q.shape[1], k.shape[1]), bool))
    full = mask & causal
    neg = jnp.where(full, s, -jnp.inf)
    p_nan = jax.nn.softmax(neg, axis=-1)
    p_where = jax.nn.softmax(s, axis=-1, where=full)
    p_safe = jnp.where(full, p_where, 0.0)
    lse = jax.nn.logsumexp(neg, axis=-1)
    lse_b = jax.nn.logsumexp(neg, axis=-1, b=full.astype(jnp.float32))
    big = jnp.where(full, s, -1e9)
    o = jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(big, -1), v)
    return p_nan, p_safe, lse, lse_b, o, jax.nn.log_softmax(neg, axis=-1)


def logsumexp_edges(x):
    ninf = jnp.full((3,), -jnp.inf)
    mixed = jnp.array([-jnp.inf, 0.0, -jnp.inf])
    inf = jnp.array([jnp.inf, 1.0, 2.0])
    return (jax.nn.logsumexp(ninf), jax.nn.logsumexp(mixed),
            jax.nn.logsumexp(inf), jax.nn.logsumexp(x, axis=0),
            jax.nn.logsumexp(x, axis=1, keepdims=True),
            jax.nn.logsumexp(x, b=jnp.sign(x), return_sign=True),
            jax.scipy.special.logsumexp(jnp.array([1e30, 1e30])),
            jax.nn.softmax(jnp.array([jnp.inf, 1.0])),
            jax.nn.softmax(ninf),
            jax.nn.one_hot(jnp.array([0, 2, -1, 5, 3]), 4),
            jax.nn.one_hot(jnp.array([[1, 0], [3, 3]]), 4, axis=0,
                           dtype=jnp.int32))


def argmax_nan_ties(x, t):
    return (jnp.argmax(x), jnp.argmin(x), jnp.argmax(x, axis=0),
            jnp.argmin(x, axis=1), jnp.argmax(t, axis=1),
            jnp.argmin(t, axis=0), jnp.nanargmax(x, axis=1),
            jnp.nanargmin(x, axis=0), jnp.max(x, axis=1), jnp.min(x, axis=0),
            jnp.nanmax(x, axis=1), jnp.nanmin(x, axis=0),
            jnp.nanmean(x, axis=1), jnp.nansum(x), jnp.nanstd(x, axis=0),
            jnp.nanvar(x, axis=1), jnp.argmax(t.astype(jnp.uint8), axis=1),
            jnp.argmax(t > 1, axis=1), jnp.argmin(x.astype(jnp.float16)))


def clip_pow_round(x, lo, hi, e):
    return (jnp.clip(x, lo, hi), jnp.clip(x, jnp.nan, 1.0),
            jnp.clip(x, -1.0, jnp.nan), jnp.clip(x, hi, lo),
            jnp.minimum(x, jnp.nan), jnp.fmax(x, jnp.nan), jnp.fmin(x, lo),
            x ** e, jnp.power(x, 2), jnp.power(x, 3.0), jnp.power(x, -2),
            jnp.power(x, 0.5), jnp.power(jnp.abs(x), e),
            jnp.power(ints_(x), 3), jnp.power(2, jnp.arange(0, 35)),
            jnp.float_power(x, 2.0),
            jnp.round(x * 100, 1), jnp.round(x, 2), jnp.round(x * 1000, -2),
            jnp.round(jnp.array([0.5, 1.5, 2.5, -0.5, -2.5])),
            jnp.round(jnp.array([1234, -1255, 15], jnp.int32), 0),
            jnp.rint(x * 3), jnp.trunc(x * 3))


def float_int_division(a, b, i, j):
    return (jnp.floor_divide(a, b), jnp.fmod(a, b), jnp.mod(a, b),
            jnp.remainder(a, b), jnp.divmod(a, b)[0], jnp.divmod(a, b)[1],
            jnp.floor_divide(i, j), jnp.fmod(i, j), jnp.mod(i, j),
            jnp.divmod(i, j)[1], a // 0.0, a % 0.0, jnp.fmod(a, jnp.inf),
            jnp.mod(a, jnp.inf), jnp.mod(a, -jnp.inf),
            jnp.floor_divide(a, jnp.inf),
            jnp.mod(i.astype(jnp.uint32), 7), i.astype(jnp.uint8) // 3)


def bitwise_unsigned_bool(u, v, b, c):
    return (u & v, u | v, u ^ v, ~u, u << 3, u >> 2,
            jnp.left_shift(u, v % 40), jnp.right_shift(u, v % 40),
            jnp.bitwise_count(u), jnp.invert(b), b & c, b | c, b ^ c, ~b,
            jnp.logical_xor(b, c), jnp.left_shift(u.astype(jnp.uint8), 7),
            jnp.right_shift(v.astype(jnp.int8), 9),
            jnp.right_shift(v.astype(jnp.int8) - 100, jnp.int8(3)),
            lax.shift_right_logical(v.astype(jnp.int16) - 200,
                                    jnp.int16(4)),
            lax.population_count(v.astype(jnp.int8)),
            lax.clz(u), lax.clz(v.astype(jnp.uint8)),
            jnp.packbits(b), jnp.unpackbits(u.astype(jnp.uint8)))


def complex_cuts_signed_zero(z):
    # z holds values on the negative real axis with +0 and -0 imaginary
    # parts, on the imaginary axis, and general values.
    return (jnp.sqrt(z), jnp.log(z), jnp.exp(z), jnp.log1p(z),
            jnp.angle(z), jnp.abs(z), jnp.sign(z), z ** 0.5,
            jnp.power(z, 2), jnp.arctan(z), jnp.arcsin(z * 0.5),
            jnp.arccos(z * 0.5), jnp.arcsinh(z), jnp.tanh(z), jnp.expm1(z),
            jnp.log10(z), jnp.reciprocal(z))


def _cut_points(r):
    re = np.array([-4.0, -1.0, -0.0, 0.0, 2.0, -2.0, 0.0, 0.0, 1.5, -3.0],
                  np.float32)
    im = np.array([0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 3.0, -3.0, -0.5, 1e-30],
                  np.float32)
    z = (re + 1j * im).astype(np.complex64)
    # Build signed zeros the way NumPy keeps them.
    z = np.array([complex(a, b) for a, b in zip(re, im)], np.complex64)
    return np.concatenate([z, complexes(r, (6,))])


def kv_cache_decode(x, wq, wk, wv):
    # Autoregressive decoding with a KV cache written in place one step at a
    # time inside a scan, attention masked to the steps written so far.
    t, d = x.shape

    def step(carry, inp):
        kc, vc = carry
        i, xt = inp
        q = xt @ wq
        kc = lax.dynamic_update_slice(kc, (xt @ wk)[None], (i, 0))
        vc = lax.dynamic_update_slice(vc, (xt @ wv)[None], (i, 0))
        s = kc @ q / jnp.sqrt(d)
        s = jnp.where(jnp.arange(t) <= i, s, -jnp.inf)
        o = jax.nn.softmax(s) @ vc
        return (kc, vc), o

    (kc, vc), out = lax.scan(step, (jnp.zeros((t, d), x.dtype),
                                     jnp.zeros((t, d), x.dtype)),
                             (jnp.arange(t), x))
    return out, kc, vc


def vmap_while_loops(x0, n):
    # Batched while loops whose lanes stop at different steps: Newton's
    # square root with a tolerance, and a Collatz-style integer loop.
    def newton(a):
        def cond(c):
            y, k = c
            return (jnp.abs(y * y - a) > 1e-5 * a) & (k < 50)

        def body(c):
            y, k = c
            return 0.5 * (y + a / y), k + 1

        return lax.while_loop(cond, body, (a, 0))

    def collatz(m):
        def body(c):
            v, k = c
            return jnp.where(v % 2 == 0, v // 2, 3 * v + 1), k + 1

        return lax.while_loop(lambda c: c[0] != 1, body, (m, 0))[1]

    return jax.vmap(newton)(x0), jax.vmap(collatz)(n)


def simplifier_special_values(x, i, u):
    # Rewrites an algebraic simplifier may try, fed -0.0, infinities and NaN
    # (and INT_MIN): each holds only for some operands. XLA's log(exp(x))
    # -> x, sqrt(x * x) -> |x| and (x * c1) / c2 -> x * (c1 / c2) give finite
    # results where the IEEE ones overflow (hloc keeps IEEE), so they are
    # left out.
    z = jnp.zeros_like(x)
    one = jnp.ones_like(x)
    f = jnp.float32
    return (x + 0.0, 0.0 + x, x - 0.0, 0.0 - x, -x, x * 1.0, x * 0.0,
            x * -1.0, x / 1.0, x / 2.0, x / 3.0, x / -0.0, x - x, x / x,
            x * z, z * x + z, jnp.maximum(x, x), jnp.minimum(x, -jnp.inf),
            jnp.maximum(x, jnp.inf), x == x, x != x, x < x, x <= x,
            x >= x, jnp.abs(jnp.abs(x)), -(-x), jnp.exp(jnp.log(x)),
            jnp.sqrt(x) * jnp.sqrt(x),
            lax.pow(x, f(0.5)), lax.pow(x, f(-0.5)), lax.pow(x, f(0.0)),
            lax.pow(x, f(1.0)), lax.pow(x, f(2.0)), lax.pow(x, f(-1.0)),
            lax.pow(x, f(3.0)), lax.integer_pow(x, 0), lax.integer_pow(x, -2),
            lax.rsqrt(x) * x, one / jnp.sqrt(x),
            (x + 1e30) - 1e30, x.astype(jnp.float16).astype(jnp.float32),
            x.astype(jnp.float64).astype(jnp.float32),
            x.astype(jnp.int32).astype(jnp.float32),
            jnp.where(x > 0, x, 0.0), jnp.where(x < 0, 0.0, x),
            jnp.where(x != x, 0.0, x), jnp.where(x == x, x, 1.0),
            jnp.clip(x, 0.0, 0.0), jnp.sign(x) * jnp.abs(x),
            jnp.floor(jnp.floor(x)), jnp.ceil(-x) + jnp.floor(x),
            i * 1, i * -1, -i, i // 1, i // -1 if False else i % 1,
            i - i, i + 0, (i * 2) // 2, (i << 1) >> 1, i >> 31, i >> 32 - 1,
            jnp.abs(i), jnp.maximum(i, i), i * 0, i.astype(jnp.int8).astype(
                jnp.int32), i.astype(jnp.int64).astype(jnp.int32),
            i.astype(jnp.float32).astype(jnp.int32), u - u, u * 0, ~~u,
            u // 1, u % 1, u >> 31, (u + 1) - 1, (u * 2) // 2,
            x.sum() - x.sum(), jnp.sum(x * 0.0), jnp.prod(x * 1.0),
            jnp.max(jnp.broadcast_to(x, (3,) + x.shape), axis=0),
            jnp.sum(jnp.broadcast_to(x, (3,) + x.shape), axis=0))


def long_nan_scans_reductions(x, t):
    # Cumulative max/min/prod/sum over long axes with NaN, infinities and
    # zeros, both directions and along a leading axis; long max/argmax with
    # one NaN and with ties that the lowest index must win. No plain max/min
    # reduction over the NaNs: XLA:CPU's vectorized ones drop NaN (min of a
    # 100x60 column with a NaN is a number), which hloc, as XLA's semantics
    # say, propagates.
    m = x.reshape(100, 60)
    return (lax.cummax(x), lax.cummin(x, reverse=True),
            lax.cummax(m, axis=0), lax.cummin(m, axis=0, reverse=True),
            lax.cumprod(m, axis=0), lax.cumsum(m, axis=1, reverse=True),
            lax.cumlogsumexp(m, axis=0), jnp.max(jnp.abs(x[:17])),
            jnp.argmax(x), jnp.argmin(x), jnp.argmax(m, axis=0),
            jnp.argmin(m, axis=1), jnp.argmax(t), jnp.argmin(t),
            jnp.argmax(t.reshape(50, 120), axis=0),
            jnp.argmin(t.reshape(50, 120), axis=1),
            jnp.argmax(t.astype(jnp.float32).reshape(120, 50), axis=0),
            lax.cummax(t), lax.cummin(t.reshape(60, 100), axis=0),
            jnp.cumsum(t.reshape(60, 100) > 2, axis=1))


def quantized_and_complex_convs(xi, wi, xc, wc, xh, wh):
    # int8 convolutions accumulating in int32 (quantized inference), complex
    # convolutions, and f16 convolutions accumulating in f32.
    dn = ("NHWC", "HWIO", "NHWC")
    qi = lax.conv_general_dilated(xi, wi, (1, 1), "SAME",
                                  dimension_numbers=dn,
                                  preferred_element_type=jnp.int32)
    qs = lax.conv_general_dilated(xi, wi, (2, 1), ((1, 0), (0, 2)),
                                  rhs_dilation=(1, 2), dimension_numbers=dn,
                                  preferred_element_type=jnp.int32)
    c = lax.conv_general_dilated(xc, wc, (1, 1), "VALID",
                                 dimension_numbers=dn)
    h = lax.conv_general_dilated(xh, wh, (1, 1), "SAME",
                                 dimension_numbers=dn,
                                 preferred_element_type=jnp.float32)
    h16 = lax.conv_general_dilated(xh, wh, (1, 1), "SAME",
                                   dimension_numbers=dn)
    d = jnp.einsum("ij,jk->ik", xi[0, 0], wi[0, 0],
                   preferred_element_type=jnp.int32)
    return qi, qs, c, h, h16, d


def dot_product_attention_api(q, k, v, bias, lens):
    mask = jnp.arange(k.shape[1])[None, :] < lens[:, None]
    mask = mask[:, None, None, :]
    return (jax.nn.dot_product_attention(q, k, v),
            jax.nn.dot_product_attention(q, k, v, is_causal=True),
            jax.nn.dot_product_attention(q, k, v, bias=bias, mask=mask),
            jax.nn.dot_product_attention(q, k, v, scale=0.1,
                                         query_seq_lengths=lens,
                                         key_value_seq_lengths=lens),
            jax.nn.dot_product_attention(q, k[:, :, :1], v[:, :, :1]))


def odd_index_types(x, u8, u32, i64, i8):
    # Dynamic slices, updates and gathers indexed by uint8, uint32, int64 and
    # int8 scalars: a huge unsigned or 64-bit start clamps to the last
    # valid one, a negative signed start counts from the end.
    upd = jnp.full((2, 3), -1.0, x.dtype)
    return (lax.dynamic_slice(x, (u8, u8), (3, 2)),
            lax.dynamic_slice(x, (u32, u32 * 0 + 1), (2, 4)),
            lax.dynamic_slice(x, (i64, i64 - 2**32), (3, 3)),
            lax.dynamic_slice(x, (i8, i8), (2, 2)),
            lax.dynamic_update_slice(x, upd, (u8, u8 - jnp.uint8(249))),
            lax.dynamic_update_slice(x, upd, (i64, i64 * 0 - 1)),
            lax.dynamic_slice_in_dim(x, u32 - 5, 3, axis=1),
            lax.dynamic_index_in_dim(x, i64, axis=0, keepdims=False),
            x[u8], x[:, i8], x[i64 - 2**32 + 2],
            x.at[u8, jnp.uint8(2)].set(5.0), x.at[i8].add(1.0),
            jnp.take(x, jnp.array([u8], jnp.uint8), axis=1, mode="clip"),
            x[jnp.array([0, 255, 3], jnp.uint8) % 7],
            x[jnp.array([2**33, 1, -2**40], jnp.int64) % 7])


def zero_size_shapes(x, e, ei):
    # Arrays with a zero-extent dimension: reductions over it give the
    # init, contractions over it give zeros, and scans, sorts, concats,
    # pads and loops of length zero.
    def step(c, v):
        return c + v.sum(), v * 2

    carry, ys = lax.scan(step, jnp.float32(1.5), e)
    return (jnp.sum(e, axis=0), jnp.max(e, axis=0, initial=-jnp.inf),
            jnp.min(ei, axis=0, initial=7),
            jnp.prod(e, axis=0), jnp.mean(e, axis=1), e.T @ e, e @ e.T,
            jnp.concatenate([x, e.T[:3]], axis=1), jnp.sort(e, axis=0),
            jnp.argsort(ei, axis=0), jnp.cumsum(e, axis=0),
            jnp.pad(e, ((1, 1), (0, 0)), constant_values=3.0), carry, ys,
            lax.fori_loop(0, 0, lambda i, c: c * 2, x),
            lax.top_k(e.T, 0)[0], jnp.any(e > 0, axis=0),
            jnp.all(e > 0, axis=0), jnp.einsum("ij,jk->ik", x[:, :0],
                                               x[:0, :]),
            jax.nn.logsumexp(e, axis=0), jnp.argmax(e, axis=1))


def int_to_narrow_float(i32, i64, u64, f64):
    # Integer and f64 conversions to narrow floats, where rounding twice
    # (through f32) can differ from rounding once.
    return (i32.astype(jnp.bfloat16), i32.astype(jnp.float16),
            i64.astype(jnp.float32), i64.astype(jnp.bfloat16),
            u64.astype(jnp.float32), u64.astype(jnp.float64),
            u64.astype(jnp.bfloat16), f64.astype(jnp.bfloat16),
            i32.astype(jnp.uint8), i64.astype(jnp.int16),
            u64.astype(jnp.int64), i32.astype(jnp.float8_e4m3fn))


def random_rejection_samplers(key):
    k = jax.random.split(key, 9)
    return (jax.random.poisson(k[0], 3.5, (20,)),
            jax.random.poisson(k[1], jnp.array([0.1, 1.0, 30.0, 200.0])),
            jax.random.gamma(k[2], jnp.array([0.2, 1.0, 5.0, 0.01])),
            jax.random.beta(k[3], 0.5, 2.0, (5,)),
            jax.random.dirichlet(k[4], jnp.array([0.3, 1.0, 2.0]), (2,)),
            jax.random.binomial(k[5], 10.0, 0.3, (6,)),
            jax.random.t(k[6], 3.0, (4,)),
            jax.random.chisquare(k[7], 2.0, (4,)),
            jax.random.geometric(k[8], 0.25, (6,)))


def sort_wide_dtypes(f, i, u, c, i8):
    return (jnp.sort(f), jnp.argsort(f), jnp.sort(i), jnp.argsort(i,
                                                                  stable=True),
            jnp.sort(u), jnp.argsort(u, descending=True, stable=True),
            lax.sort(c), jnp.sort(i8), jnp.argsort(i8, stable=True),
            jnp.sort(f.reshape(30, 100), axis=0),
            lax.sort((u, f, i), num_keys=2, is_stable=True))


def _nan_scan_input(r):
    x = floats(r, (6000,))
    x[[17, 2500, 4000]] = np.nan
    x[[100, 3000]] = np.inf
    x[[200, 3500]] = -np.inf
    x[[300, 301, 5000]] = 0.0
    return x


def custom_reducers(x, idx, upd):
    # lax.reduce and reduce_window with reducers of their own (logaddexp, a
    # pair of sum and max), and scatter min/max/multiply with NaN updates
    # (NaN wins whatever the order of duplicates) and honest index hints.
    f32 = jnp.float32
    lse = lax.reduce(x, f32(-jnp.inf), jnp.logaddexp, (1,))
    pair = lax.reduce((x, jnp.abs(x)), (f32(0), f32(0)),
                      lambda a, b: (a[0] + b[0], jnp.maximum(a[1], b[1])),
                      (0,))
    rw = lax.reduce_window(x, f32(-jnp.inf), jnp.logaddexp, (1, 5), (1, 2),
                           "SAME")
    z = jnp.zeros(8, f32)
    return (lse, pair, rw, z.at[idx].min(upd), z.at[idx].max(upd),
            jnp.ones(8, f32).at[idx].multiply(upd),
            jnp.zeros(8, jnp.int32).at[idx].add(1, indices_are_sorted=True),
            z.at[jnp.arange(8)].set(upd[:8], unique_indices=True))


def ints_(x):
    return (x * 4).astype(jnp.int32)


PROGRAMS = {
    "sorts_specials_desc": (sorts_specials_desc, lambda r: [
        _specials(r, 5000), np.round(floats(r, (7, 1500)) * 4) / 4]),
    "stable_argsort_keys": (stable_argsort_keys, lambda r: [
        ints(r, (3000,), -5, 5), ints(r, (3000,), 0, 2).astype(bool),
        (np.round(floats(r, (1200,)) * 3) / 3).astype(np.float16),
        _specials(r, 1100), ints(r, (20000,), -100, 100)]),
    "unique_sized": (unique_sized, lambda r: [
        ints(r, (40,), -4, 6), np.array([1.0, np.nan, 2.0, -0.0, 0.0, 1.0,
                                         np.inf, 2.0], np.float32)]),
    "median_quantiles": (median_quantiles, lambda r: [
        floats(r, (9, 11)), np.array([3.0, np.nan, 1.0, 2.0, np.nan, 7.0],
                                     np.float32)]),
    "top_p_sampling": (top_p_sampling, lambda r: [
        floats(r, (4, 1000)) * 3, prng_key(r)]),
    "random_samplers_more": (random_samplers_more, lambda r: [
        prng_key(r), floats(r, (3, 7))]),
    "while_dus_carry": (while_dus_carry, lambda r: [floats(r, (9, 4))]),
    "lax_map_vmap_cond": (lax_map_vmap_cond, lambda r: [
        floats(r, (6, 5)), ints(r, (6,), 0, 4)]),
    "histogram_bincount": (histogram_bincount, lambda r: [
        np.concatenate([floats(r, (60,)), [-2.0, 2.0, 0.0, 3.0]]).astype(
            np.float32), ints(r, (30,), 0, 12), floats(r, (30,))]),
    "interp_polyval": (interp_polyval, lambda r: [
        np.concatenate([floats(r, (20,)) * 2, [-5.0, 0.0, 5.0]]).astype(
            np.float32),
        np.array([-1.5, -0.5, 0.0, 0.0, 1.0, 2.0], np.float32),
        floats(r, (6,)), floats(r, (5,))]),
    "convolve_correlate": (convolve_correlate, lambda r: [
        floats(r, (13,)), floats(r, (5,)), ints(r, (9,), -4, 4)]),
    "cumsum_promotion": (cumsum_promotion, lambda r: [
        ints(r, (30,), -128, 128, np.int8), ints(r, (30,), 0, 256, np.uint8),
        ints(r, (30,), 0, 2).astype(bool),
        floats(r, (30,)).astype(np.float16)]),
    "masked_attention": (masked_attention, lambda r: [
        floats(r, (3, 5, 4)), floats(r, (3, 5, 4)), floats(r, (3, 5, 4)),
        np.array([0, 3, 5], np.int32)]),
    "logsumexp_edges": (logsumexp_edges, lambda r: [
        np.where(floats(r, (4, 5)) > 1, -np.inf,
                 floats(r, (4, 5))).astype(np.float32)]),
    "argmax_nan_ties": (argmax_nan_ties, lambda r: [
        np.array([[1.0, np.nan, 3.0, 3.0], [2.0, 2.0, -1.0, np.nan],
                  [np.nan, np.nan, np.nan, np.nan],
                  [-np.inf, -np.inf, 0.0, -0.0]], np.float32),
        ints(r, (4, 6), 0, 3)]),
    "clip_pow_round": (clip_pow_round, lambda r: [
        np.concatenate([floats(r, (12,)), [0.0, -0.0, np.inf, -np.inf,
                                           np.nan, 1.0, -1.0, 0.125]]
                       ).astype(np.float32),
        np.full((20,), -0.5, np.float32),
        np.concatenate([np.full((16,), 0.5), [np.nan, 1.0, np.nan, 0.0]]
                       ).astype(np.float32),
        np.concatenate([floats(r, (12,)), [0.0, -0.0, np.inf, -np.inf,
                                           0.5, np.nan, 3.0, -1.0]]
                       ).astype(np.float32)]),
    "float_int_division": (float_int_division, lambda r: [
        np.array([7.5, -7.5, 7.5, -7.5, 0.0, -0.0, 1e30, -3.0, np.inf, 5.0],
                 np.float32),
        np.array([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 1e-30, 3.0, 2.0, -np.inf],
                 np.float32),
        np.array([7, -7, 7, -7, 0, -2147483648, 9, -9, 1, 6], np.int32),
        np.array([2, 2, -2, -2, 5, -1, 3, 3, -1, 4], np.int32)]),
    "bitwise_unsigned_bool": (bitwise_unsigned_bool, lambda r: [
        ints(r, (16,), 0, 2**32, np.uint32), ints(r, (16,), 0, 60),
        ints(r, (16,), 0, 2).astype(bool), ints(r, (16,), 0, 2).astype(bool)]),
    "complex_cuts_signed_zero": (complex_cuts_signed_zero,
                                 lambda r: [_cut_points(r)]),
    "int_to_narrow_float": (int_to_narrow_float, lambda r: [
        np.array([16842753, 16842752, 16908289, -16842753, 2**31 - 1, 255,
                  256, 65519, 65520, 2049, 2**24 + 2**16 + 1, 300], np.int32),
        np.array([2**53 + 1, 2**60 + 2**36 + 1, 2**24 + 1,
                  -(2**40 + 2**16 + 1), 2**63 - 1, -(2**63), 2**54 + 3, 0],
                 np.int64),
        np.array([2**64 - 1, 2**63 + 2**39 + 1, 2**53 + 1, 2**24 + 1, 0, 1,
                  2**63, 2**40 + 2**32 + 1], np.uint64),
        np.array([1.0 + 2**-8 + 2**-30, 1.0 + 2**-9 + 2**-40, 3e38, 1e39,
                  -1.0 - 2**-8 - 2**-50, 1e-40, 5e-324, np.nan], np.float64)]),
    "random_rejection_samplers": (random_rejection_samplers,
                                  lambda r: [prng_key(r)]),
    "sort_wide_dtypes": (sort_wide_dtypes, lambda r: [
        np.round(floats(r, (3000,), np.float64) * 3),
        ints(r, (3000,), -2**62, 2**62, np.int64) // 2**50 * 2**50,
        ints(r, (3000,), 0, 2**63, np.int64).astype(np.uint64) // np.uint64(
            2**58) * np.uint64(2**59),
        complexes(r, (50,)).round(0),
        ints(r, (3000,), -128, 128, np.int8)]),
    "kv_cache_decode": (kv_cache_decode, lambda r: [
        floats(r, (7, 8)), floats(r, (8, 8)) * 0.3, floats(r, (8, 8)) * 0.3,
        floats(r, (8, 8)) * 0.3]),
    "vmap_while_loops": (vmap_while_loops, lambda r: [
        r.uniform(0.1, 100.0, (9,)).astype(np.float32),
        ints(r, (9,), 1, 60)]),
    "simplifier_special_values": (simplifier_special_values, lambda r: [
        np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.5, -3.5,
                  1e-30, 3e38, -3e38, 65520.0, 1e20, -0.5, 7.0], np.float32),
        np.array([0, -1, 1, 2**31 - 1, -2**31, 7, -7, 2**30, -2**30, 255,
                  -129, 65536, 3, -3, 100, -100], np.int32),
        np.array([0, 1, 2**32 - 1, 2**31, 2**31 - 1, 7, 255, 256, 65535,
                  3, 4, 5, 6, 9, 10, 2**32 - 2], np.uint32)]),
    "long_nan_scans_reductions": (long_nan_scans_reductions, lambda r: [
        _nan_scan_input(r), ints(r, (6000,), 0, 4)]),
    "quantized_and_complex_convs": (quantized_and_complex_convs, lambda r: [
        ints(r, (2, 6, 5, 3), -128, 128, np.int8),
        ints(r, (3, 3, 3, 4), -128, 128, np.int8),
        complexes(r, (1, 5, 5, 2)), complexes(r, (2, 2, 2, 3)),
        floats(r, (2, 5, 4, 3)).astype(np.float16),
        floats(r, (3, 3, 3, 2)).astype(np.float16)]),
    "dot_product_attention_api": (dot_product_attention_api, lambda r: [
        floats(r, (2, 6, 2, 8)), floats(r, (2, 6, 2, 8)),
        floats(r, (2, 6, 2, 8)), floats(r, (2, 2, 6, 6)),
        np.array([3, 6], np.int32)]),
    "odd_index_types": (odd_index_types, lambda r: [
        floats(r, (7, 6)), np.uint8(250), np.uint32(2**32 - 3),
        np.int64(2**32 + 1), np.int8(-2)]),
    "zero_size_shapes": (zero_size_shapes, lambda r: [
        floats(r, (3, 4)), np.zeros((0, 5), np.float32),
        np.zeros((0, 5), np.int32)]),
    "custom_reducers": (custom_reducers, lambda r: [
        floats(r, (40, 300)), np.sort(ints(r, (20,), 0, 8)),
        np.where(r.random(20) < 0.2, np.nan, floats(r, (20,))).astype(
            np.float32)]),
}
