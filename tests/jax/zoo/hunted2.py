"""Zoo: programs from the second bug hunt outside the corpus and the other
themes (session 17): scientific loops (RK4, a heat stencil, conjugate
gradients in a while loop, IIR/FIR filters, Mandelbrot, LU with pivoting),
narrow and unsigned integer arithmetic, shifts and bit counts at every
width, threefry samplers, remainders of negative numbers, scatter
combiners with duplicate and negative indices, unsorted segment
reductions, dynamic slices that clamp, vmapped switch/while, size-1 and
empty reductions, cumulative ops on every axis, descending multi-operand
sorts, special values of pow and complex functions, bf16/f16
transcendentals and rounding (the cpu removed the bf16 rounding between a
product and its floor, which XLA:CPU keeps: floor_of_bf16_products), f64
to f16 conversions in one rounding, and gathers with unsigned and int8
indices. Found: the evaluator's complex power of zero (libstdc++'s pow)
and the cpu's bf16 excess precision between widened operations."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import floats, ints, prng_key

def rk4_lorenz_fori(y0):
    def f(y):
        x, yy, z = y[..., 0], y[..., 1], y[..., 2]
        return jnp.stack([10.0 * (yy - x), x * (28.0 - z) - yy,
                          x * yy - 8.0 / 3.0 * z], -1)

    def body(i, y):
        h = 0.002
        k1 = f(y)
        k2 = f(y + 0.5 * h * k1)
        k3 = f(y + 0.5 * h * k2)
        k4 = f(y + h * k3)
        return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return lax.fori_loop(0, 50, body, y0)


def heat_stencil_scan(u0):
    def step(u, _):
        lap = jnp.roll(u, 1, 0) + jnp.roll(u, -1, 0) + jnp.roll(u, 1, 1) + \
            jnp.roll(u, -1, 1) - 4 * u
        u = u + 0.1 * lap
        return u, u.sum()
    return lax.scan(step, u0, None, length=9)


def conjugate_gradient_while(a, b):
    m = a @ a.T + a.shape[0] * jnp.eye(a.shape[0], dtype=a.dtype)

    def cond(c):
        x, r, p, rs, k = c
        return (rs > 1e-10) & (k < 40)

    def body(c):
        x, r, p, rs, k = c
        ap = m @ p
        alpha = rs / (p @ ap)
        x = x + alpha * p
        r = r - alpha * ap
        rs2 = r @ r
        return x, r, r + rs2 / rs * p, rs2, k + 1
    x, r, p, rs, k = lax.while_loop(cond, body,
                                    (jnp.zeros_like(b), b, b, b @ b, 0))
    return x, k


def fir_iir_filters(x, taps):
    fir = jnp.convolve(x, taps, mode="same")

    def iir(y1, xi):
        y = 0.9 * y1 + 0.1 * xi
        return y, y
    return fir, lax.scan(iir, 0.0, x)[1], jnp.correlate(x, taps, "valid")


def int8_uint8_saturation(a, b):
    s = a + b  # wraps
    sat = jnp.clip(a.astype(jnp.int16) + b.astype(jnp.int16), -128,
                   127).astype(jnp.int8)
    ua = a.astype(jnp.uint8)
    return (s, sat, ua, ua // jnp.uint8(7), ua % jnp.uint8(7),
            ua >> 3, (ua * ua), a // b.clip(1), -a, jnp.abs(a))


def uint32_mix(a, b):
    return (a - b, a * b, a // (b | 1), a % (b | 1), a >> (b & 31),
            a << (b & 31), lax.population_count(a), lax.clz(b),
            a.astype(jnp.float32), jnp.maximum(a, b), a > b,
            (a.astype(jnp.float32) * 0.5).astype(jnp.uint32))


def bit_ops_all_widths(a8, a16, a32, a64):
    out = []
    for a in (a8, a16, a32, a64):
        bits = a.dtype.itemsize * 8
        out += [lax.population_count(a), lax.clz(a), a >> 1,
                lax.shift_right_logical(a, a.dtype.type(bits - 1)),
                a << a.dtype.type(bits - 2), ~a, a ^ (a >> 3)]
    return out


def shifts_out_of_range(a, s):
    return (a << s, a >> s, lax.shift_right_logical(a, s),
            a.astype(jnp.uint32) >> s.astype(jnp.uint32),
            a.astype(jnp.uint8) << s.astype(jnp.uint8))


def random_threefry_suite(key):
    k = jax.random.wrap_key_data(key)
    k1, k2, k3, k4 = jax.random.split(k, 4)
    logits = jnp.log(jnp.arange(1, 8, dtype=jnp.float32))
    return (jax.random.categorical(k1, logits, shape=(33,)),
            jax.random.permutation(k2, jnp.arange(17) * 3),
            jax.random.bits(k3, (5,), jnp.uint32),
            jax.random.bits(k3, (4,), jnp.uint8),
            jax.random.randint(k4, (7,), -5, 1000, jnp.int16),
            jax.random.exponential(k1, (6,)),
            jax.random.beta(k2, 2.0, 3.0, (4,)),
            jax.random.poisson(k3, 3.0, (5,)))


def remainder_fmod_negatives(a, b):
    bi = jnp.where(b == 0, 1, b).astype(jnp.int32)
    ai = a.astype(jnp.int32)
    return (jnp.remainder(a, b), jnp.fmod(a, b), jnp.remainder(ai, bi),
            jnp.fmod(ai, bi), ai // bi, jnp.floor_divide(a, b),
            jnp.divmod(ai, bi)[1], lax.rem(a, b))


def scatter_dup_combiners(x, i, u):
    return (x.at[i].add(u), x.at[i].min(u), x.at[i].max(u),
            x.at[i].mul(u * 0.1 + 1), x.at[-1].set(5.0),
            x.at[i].add(u, indices_are_sorted=False, unique_indices=False))


def segment_ops_unsorted(d, ids):
    n = 6
    return (jax.ops.segment_sum(d, ids, n), jax.ops.segment_max(d, ids, n),
            jax.ops.segment_min(d, ids, n), jax.ops.segment_prod(d, ids, n),
            jax.ops.segment_sum(jnp.ones_like(ids), ids, n),
            jax.ops.segment_sum(d, ids, n, indices_are_sorted=False))


def dynamic_slice_loop(x):
    def body(i, acc):
        w = lax.dynamic_slice(x, (i * 2 - 3, i), (3, 4))  # clamps
        acc = lax.dynamic_update_slice(acc, w * i, (i, 10 - i))
        return acc
    return lax.fori_loop(0, 9, body, jnp.zeros((9, 9), x.dtype))


def vmap_cond_switch_while(x, ks):
    def f(x, k):
        y = lax.switch(k, [jnp.sin, jnp.cos, jnp.tanh], x)

        def body(c):
            i, v = c
            return i + 1, v * 0.5
        i, v = lax.while_loop(lambda c: c[1].max() > 0.1, body, (0, y))
        return y, i, v
    return jax.vmap(f)(x, ks)


def reductions_size1_empty(x1, e, i0):
    return (x1.sum(1), x1.max((0, 1)), e.sum(1), e.prod(0),
            jnp.max(e, 0, initial=-5.0), e.sum(), jnp.argmax(x1, 1),
            i0.sum(0), jnp.all(e > 0), jnp.any(e > 0, 1), x1.mean(2),
            jnp.cumsum(e, 0), jnp.sort(e, 1))


def cumulative_ops_axes(x, i):
    return (jnp.cumsum(x, 0), jnp.cumprod(x * 0.1 + 1, 1),
            lax.cummax(x, 2), lax.cummin(x, 1, reverse=True),
            lax.cumlogsumexp(x, 0), jnp.cumsum(i, 2),
            lax.cumprod(i % 3 + 1, 0), lax.cummax(i, 1, reverse=True),
            jnp.cumsum(x.astype(jnp.bfloat16), 1).astype(jnp.float32))


def sort_multi_operand_desc(a, b, c):
    return (lax.sort((a, b, c), dimension=1, num_keys=2),
            jnp.sort(a, axis=0, descending=True),
            jnp.argsort(b, axis=1, descending=True, stable=True),
            lax.sort((b, a), dimension=0, is_stable=True),
            jnp.sort(c.astype(jnp.uint8), axis=-1))


def mandelbrot_while(c):
    def cond(s):
        z, n, i = s
        return i < 30

    def body(s):
        z, n, i = s
        z = jnp.where(jnp.abs(z) <= 2, z * z + c, z)
        return z, n + (jnp.abs(z) <= 2), i + 1
    return lax.while_loop(cond, body, (jnp.zeros_like(c), jnp.zeros(
        c.shape, jnp.int32), 0))[1]


def lu_pivot_loop(a):
    n = a.shape[0]

    def body(k, c):
        a, perm = c
        col = jnp.where(jnp.arange(n) >= k, jnp.abs(a[:, k]), -1.0)
        p = jnp.argmax(col)
        rowk, rowp = a[k], a[p]
        a = a.at[k].set(rowp).at[p].set(rowk)
        pk, pp = perm[k], perm[p]
        perm = perm.at[k].set(pp).at[p].set(pk)
        l = jnp.where(jnp.arange(n) > k, a[:, k] / a[k, k], 0.0)
        a = a - l[:, None] * a[k][None, :]
        a = a.at[:, k].set(jnp.where(jnp.arange(n) > k, l, a[:, k]))
        return a, perm
    return lax.fori_loop(0, n, body, (a, jnp.arange(n)))


def f16_bf16_arith(x, y):
    h, g = x.astype(jnp.float16), y.astype(jnp.bfloat16)
    return (h * h + h, jnp.exp(h), jnp.tanh(g) * g, (g / 3).astype(
        jnp.float16), h.astype(jnp.bfloat16), jnp.sqrt(jnp.abs(h)),
            h.sum(), g.max(), jnp.floor(g * 10), jnp.round(h * 7))


def pow_special_values(x, y):
    return (jnp.power(x[:, None], y[None, :]), lax.pow(x, np.float32(2.0)),
            lax.pow(x, np.float32(-1.0)), jnp.power(x, 0.0), jnp.sqrt(x), lax.rsqrt(x),
            jnp.log(x), jnp.cbrt(x), jnp.power(x, 1 / 3))


def complex_branch_cuts(re, im):
    z = lax.complex(re, im)
    return (jnp.sqrt(z), jnp.log(z), jnp.arcsin(z), jnp.arctan(z),
            jnp.arccos(z), jnp.power(z, 0.5), jnp.power(z, 2 + 1j),
            jnp.exp(z), jnp.sign(z), z / lax.complex(im, re))


def half_transcendentals(x):
    h = x.astype(jnp.float16)
    b = x.astype(jnp.bfloat16)
    out = []
    for v in (h, b):
        out += [jnp.expm1(v), jnp.log1p(jnp.abs(v)), jnp.tan(v),
                jnp.arctan(v), jnp.arcsinh(v), jnp.arccosh(jnp.abs(v) + 1),
                jnp.arctanh(jnp.tanh(v) * 0.9), jnp.cosh(v),
                jax.scipy.special.erf(v), jax.lax.logistic(v),
                jnp.round(v * 100), v % jnp.asarray(0.7, v.dtype),
                jnp.isfinite(v * 1e4)]
    return out


def f64_to_f16_double_rounding(x):
    # f64 -> f16 in one rounding; via f32 would round twice.
    return (x.astype(jnp.float16), x.astype(jnp.bfloat16),
            x.astype(jnp.float32),
            x.astype(jnp.float32).astype(jnp.float16))


def gather_unsigned_int8_indices(x, iu, i8):
    return (x[iu], x[i8], x.at[iu].add(1.0, mode="drop"), x.at[i8].max(9.0),
            jnp.take(x, iu, mode="clip"), jnp.take(x, i8, mode="fill",
                                                   fill_value=-2.0))



def floor_of_bf16_products(x):
    # XLA:CPU rounds each bf16 result another bf16 operation reads:
    # floor(-0.800781 * 10) is floor(-8.0) = -8, not floor(-8.0078) = -9.
    g = x.astype(jnp.bfloat16)
    return (jnp.floor(g * 10).astype(jnp.int32),
            jnp.round(jnp.exp(g) * 7).astype(jnp.int32),
            jnp.ceil(g * g * 3).astype(jnp.int32))


# Special values without denormals (the AArch64 target keeps IEEE
# denormals where XLA flushes them).
_SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -8.0, np.inf,
                     -np.inf, np.nan, 1e-30, 3e38, -3e38, 7.0, -7.0,
                     0.3333333, 100.0, -100.0], np.float32)


PROGRAMS = {
    "rk4_lorenz_fori": (rk4_lorenz_fori, lambda r: [
        floats(r, (7, 3)) + np.array([1, 1, 20], np.float32)]),
    "heat_stencil_scan": (heat_stencil_scan, lambda r: [floats(r, (13, 9))]),
    "conjugate_gradient_while": (conjugate_gradient_while, lambda r: [
        floats(r, (9, 9)), floats(r, (9,))]),
    "fir_iir_filters": (fir_iir_filters, lambda r: [floats(r, (1000,)),
                                                    floats(r, (7,))]),
    "int8_uint8_saturation": (int8_uint8_saturation, lambda r: [
        ints(r, (37,), -128, 128, np.int8),
        ints(r, (37,), -128, 128, np.int8)]),
    "uint32_mix": (uint32_mix, lambda r: [
        r.integers(0, 2**32, 33, dtype=np.uint64).astype(np.uint32),
        r.integers(0, 2**32, 33, dtype=np.uint64).astype(np.uint32)]),
    "bit_ops_all_widths": (bit_ops_all_widths, lambda r: [
        ints(r, (9,), -128, 128, np.int8),
        ints(r, (9,), -32768, 32768, np.int16),
        ints(r, (9,), -2**31, 2**31, np.int32),
        r.integers(-2**63, 2**63 - 1, 9, dtype=np.int64)]),
    "shifts_out_of_range": (shifts_out_of_range, lambda r: [
        ints(r, (12,), -1000, 1000), np.array(
            [0, 1, 7, 8, 15, 16, 31, 32, 33, 40, -1, 100], np.int32)]),
    "random_threefry_suite": (random_threefry_suite, lambda r: [
        prng_key(r)]),
    "remainder_fmod_negatives": (remainder_fmod_negatives, lambda r: [
        np.array([7, -7, 7, -7, 5.5, -5.5, 0, -0.0, 3, 1e9], np.float32),
        np.array([3, 3, -3, -3, 2, -2, 3, 3, 0, 7], np.float32)]),
    "scatter_dup_combiners": (scatter_dup_combiners, lambda r: [
        floats(r, (10,)), np.array([1, 1, -1, 3, 3, 3, 0, -10, 9],
                                   np.int32), floats(r, (9,))]),
    "segment_ops_unsorted": (segment_ops_unsorted, lambda r: [
        floats(r, (29,)), ints(r, (29,), 0, 5)]),
    "dynamic_slice_loop": (dynamic_slice_loop, lambda r: [
        floats(r, (11, 13))]),
    "vmap_cond_switch_while": (vmap_cond_switch_while, lambda r: [
        floats(r, (5, 4)), np.array([0, 1, 2, 5, -1], np.int32)]),
    "reductions_size1_empty": (reductions_size1_empty, lambda r: [
        floats(r, (1, 1, 5)), np.zeros((3, 0), np.float32),
        np.zeros((0, 4), np.int32)]),
    "cumulative_ops_axes": (cumulative_ops_axes, lambda r: [
        floats(r, (3, 5, 7)), ints(r, (3, 5, 7), -4, 9)]),
    "sort_multi_operand_desc": (sort_multi_operand_desc, lambda r: [
        ints(r, (4, 9), 0, 3).astype(np.float32), ints(r, (4, 9), 0, 4),
        floats(r, (4, 9)) * 100]),
    "mandelbrot_while": (mandelbrot_while, lambda r: [
        (floats(r, (6, 7)) + 1j * floats(r, (6, 7))).astype(np.complex64)]),
    "lu_pivot_loop": (lu_pivot_loop, lambda r: [floats(r, (6, 6))]),
    "f16_bf16_arith": (f16_bf16_arith, lambda r: [floats(r, (5, 7)) * 3,
                                                  floats(r, (5, 7)) * 3]),
    "floor_of_bf16_products": (floor_of_bf16_products, lambda r: [
        np.linspace(-3, 3, 401).astype(np.float32)]),
    "pow_special_values": (pow_special_values, lambda r: [
        _SPECIAL, np.array([0, -0.0, 1, -1, 2, -2, 0.5, np.inf, -np.inf,
                            np.nan, 3], np.float32)]),
    "complex_branch_cuts": (complex_branch_cuts, lambda r: [
        np.array([-1, -1, -4, 0, 0, 2, -0.0, 3, -2], np.float32),
        np.array([0, -0.0, 0, 1, -1, 0, 0, -0.0, 1e-20], np.float32)]),
    "half_transcendentals": (half_transcendentals, lambda r: [
        floats(r, (37,)) * 3]),
    "f64_to_f16_double_rounding": (f64_to_f16_double_rounding, lambda r: [
        np.array([1 + 2**-11 + 2**-40, 1 + 2**-11 - 2**-40, 1 + 2**-11,
                  65519.99, 65520.0, 65504.0 + 16 - 1e-9, 1e-8, 5.96e-8,
                  2.98e-8, 2.98023223876953125e-8 + 1e-20, 1 + 2**-8 + 2**-40,
                  1 + 2**-8 + 2**-30, 3.0e39, np.nan, -0.0], np.float64)]),
    "gather_unsigned_int8_indices": (gather_unsigned_int8_indices,
                                     lambda r: [
        floats(r, (120,)),
        np.array([0, 5, 119, 120, 300, 2**31, 2**32 - 1], np.uint32),
        np.array([0, 5, -1, -128, 127, -100], np.int8)]),
}
