"""Zoo: programs from the third bug hunt outside the corpus and the other
themes: associative scans with custom operators, pooling windows with
strides, padding and dilation (and their gradients), grouped and dilated
convolutions (and theirs), small jnp.linalg problems and singular values,
multi-key sorts, every searchsorted method, scatter combiners and segment
reductions with dropped indices, odd einsum and dot_general contractions,
integer division and remainder at the edges (by zero, INT_MIN / -1), float
to integer conversions out of range, wide integer conversions, fp8 and
bitcasts, bf16/f16 and complex reductions, FFTs of odd sizes, control flow
over tuples, reversed and unrolled scans, vmapped gathers and scatters,
in-place updates that read what they update, jax.nn, rng_bit_generator,
approx_max_k, reduce_precision and special values of the special
functions. Found: reduce-precision turned NaN into infinity with no
mantissa bits (reduce_precision_formats), the evaluator's complex division
(libgcc's __divsc3, complex_division_special), and gesdd calls without
vectors whose thin vt the shape check rejected, with the evaluator not
computing singular values at all (singular_values_wide_tall)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import complexes, floats, ints, prng_key


def associative_scan_custom_ops(a, b, m):
    # First-order linear recurrence h = a h + b as an associative scan of
    # affine maps, a max-plus scan, and 2x2 matrix products, forwards and
    # reversed, along a non-minor axis.
    def affine(x, y):
        return y[0] * x[0], y[0] * x[1] + y[1]

    def matmul2(x, y):
        return jnp.einsum("...ij,...jk->...ik", x, y)

    return (lax.associative_scan(affine, (a, b), axis=0)[1],
            lax.associative_scan(affine, (a, b), axis=1, reverse=True)[1],
            lax.associative_scan(lambda x, y: jnp.maximum(x + 0.5, y), b),
            lax.associative_scan(matmul2, m * 0.5),
            lax.associative_scan(jnp.add, (a > 0).astype(jnp.int32), axis=1))


def pooling_windows(x):
    # x: NHWC. Max pooling with strides and SAME/explicit padding, average
    # pooling (counting the padded cells, then not), windows with window
    # and base dilation, and the NCHW layout.
    nchw = jnp.transpose(x, (0, 3, 1, 2))
    ninf = -jnp.inf
    mx = lax.reduce_window(x, ninf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1),
                           "SAME")
    mx_pad = lax.reduce_window(x, ninf, lax.max, (1, 2, 3, 1), (1, 2, 1, 1),
                               ((0, 0), (1, 2), (0, 1), (0, 0)))
    s = lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1),
                          ((0, 0), (1, 1), (1, 1), (0, 0)))
    cnt = lax.reduce_window(jnp.ones_like(x), 0.0, lax.add, (1, 3, 3, 1),
                            (1, 1, 1, 1), ((0, 0), (1, 1), (1, 1), (0, 0)))
    wdil = lax.reduce_window(x, ninf, lax.max, (1, 2, 2, 1), (1, 1, 2, 1),
                             "VALID", window_dilation=(1, 2, 3, 1))
    bdil = lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 1, 1, 1),
                             ((0, 0), (1, 0), (0, 1), (0, 0)),
                             base_dilation=(1, 2, 2, 1))
    nchw_max = lax.reduce_window(nchw, ninf, lax.max, (1, 1, 2, 2),
                                 (1, 1, 2, 2), "VALID")
    nchw_min = lax.reduce_window(nchw, jnp.inf, lax.min, (1, 2, 3, 1),
                                 (1, 1, 2, 1), "SAME")
    xi = (x * 10).astype(jnp.int32)
    imax = lax.reduce_window(xi, np.int32(np.iinfo(np.int32).min), lax.max,
                             (1, 2, 2, 2), (1, 1, 1, 1), "SAME")
    return mx, mx_pad, s / 9, s / cnt, wdil, bdil, nchw_max, nchw_min, imax


def pooling_grads(x):
    def max_pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1),
                                 (1, 2, 2, 1), "SAME")

    def avg_pool(x):
        return lax.reduce_window(x, 0.0, lax.add, (1, 2, 3, 1),
                                 (1, 2, 1, 1),
                                 ((0, 0), (1, 1), (0, 2), (0, 0))) / 6

    def loss(x):
        return (jnp.sum(jnp.sin(max_pool(x))) + jnp.sum(avg_pool(x) ** 2)
                + jnp.sum(max_pool(max_pool(x))))
    # Ties in the max pooling: the first maximum in the window takes the
    # gradient.
    xt = jnp.round(x * 2) / 2
    return jax.grad(loss)(x), jax.grad(lambda v: max_pool(v).sum())(xt)


def conv_groups_dilation(x, w_grp, w_dw, x1, w1, x3, w3):
    dn = ("NHWC", "HWIO", "NHWC")
    grouped = lax.conv_general_dilated(x, w_grp, (1, 1), "SAME",
                                       dimension_numbers=dn,
                                       feature_group_count=2)
    depthwise = lax.conv_general_dilated(x, w_dw, (2, 1),
                                         ((1, 2), (0, 1)),
                                         rhs_dilation=(2, 2),
                                         dimension_numbers=dn,
                                         feature_group_count=4)
    # Transposed convolution: dilated input.
    transposed = lax.conv_general_dilated(x, w_grp[..., :2, :], (1, 1),
                                          ((2, 2), (1, 1)),
                                          lhs_dilation=(2, 3),
                                          dimension_numbers=dn,
                                          feature_group_count=2)
    nchw = lax.conv_general_dilated(jnp.transpose(x, (0, 3, 1, 2)),
                                    jnp.transpose(w_grp, (3, 2, 0, 1)),
                                    (1, 2), "VALID",
                                    dimension_numbers=("NCHW", "OIHW",
                                                       "NCHW"),
                                    feature_group_count=2)
    # batch_group_count: the kernel gradient's form.
    bgc = lax.conv_general_dilated(x, jnp.concatenate([w_grp, -w_grp], 2),
                                   (1, 1), "VALID",
                                   dimension_numbers=dn, batch_group_count=2)
    c1 = lax.conv_general_dilated(x1, w1, (3,), ((2, 1),),
                                  rhs_dilation=(2,),
                                  dimension_numbers=("NWC", "WIO", "NWC"))
    c3 = lax.conv_general_dilated(x3, w3, (1, 2, 1), "SAME",
                                  dimension_numbers=("NDHWC", "DHWIO",
                                                     "NDHWC"))
    return grouped, depthwise, transposed, nchw, bgc, c1, c3


def conv_grads(x, w, wd):
    dn = ("NHWC", "HWIO", "NHWC")

    def net(x, w, wd):
        h = lax.conv_general_dilated(x, w, (2, 1), ((1, 1), (2, 0)),
                                     rhs_dilation=(1, 2),
                                     dimension_numbers=dn,
                                     feature_group_count=2)
        h = jnp.tanh(h)
        h = lax.conv_general_dilated(h, wd, (1, 1), ((1, 1), (1, 0)),
                                     lhs_dilation=(1, 2),
                                     dimension_numbers=dn,
                                     feature_group_count=4)
        return jnp.sum(h ** 2)
    return jax.grad(net, argnums=(0, 1, 2))(x, w, wd)


def linalg_small(a, b, s):
    spd = s @ s.T + 3 * jnp.eye(3, dtype=s.dtype)
    sign, logdet = jnp.linalg.slogdet(a)
    q, r = jnp.linalg.qr(b)
    return (jnp.linalg.det(a), sign, logdet, jnp.linalg.inv(a),
            jnp.linalg.solve(a, b), jnp.linalg.svd(a, compute_uv=False),
            jnp.abs(q @ r - b),
            jnp.linalg.cholesky(spd), jnp.linalg.norm(a, "fro"),
            jnp.linalg.norm(a, 1), jnp.linalg.norm(a, -jnp.inf),
            jnp.linalg.matrix_power(a, 3), jnp.linalg.norm(a, 2),
            jnp.linalg.norm(b, "nuc"), jnp.linalg.matrix_rank(b.T),
            jax.scipy.linalg.solve_triangular(jnp.linalg.cholesky(spd),
                                              b[:3], lower=True))


def sort_two_keys(k1, k2, v, w):
    # Two keys with ties, NaNs and signed zeros in the first, several
    # values riding along; the stable sort keeps equal keys in order.
    return (lax.sort((k1, k2, v, w), dimension=0, num_keys=2),
            lax.sort((k1, k2, v), dimension=1, num_keys=2, is_stable=True),
            lax.sort((k2, k1, w), dimension=1, num_keys=2),
            jnp.lexsort((k2, k1), axis=1),
            jnp.sort(k1, axis=1), jnp.argsort(k1, axis=0, stable=True))


def searchsorted_methods(sorted_f, q, sorted_i, qi):
    out = []
    for method in ("scan", "scan_unrolled", "sort", "compare_all"):
        for side in ("left", "right"):
            out += [jnp.searchsorted(sorted_f, q, side=side, method=method),
                    jnp.searchsorted(sorted_i, qi, side=side,
                                     method=method)]
    out.append(jnp.digitize(q, sorted_f[::3]))
    return out


def scatter_combiners_2d(x, idx, u, xi):
    # Duplicate rows, negative and out-of-range indices with every mode.
    return (x.at[idx].add(u), x.at[idx].min(u), x.at[idx].max(u),
            x.at[idx, 1].add(u[:, 0], mode="drop"),
            x.at[idx].set(u, mode="clip"),
            x.at[idx].get(mode="fill", fill_value=jnp.nan),
            x.at[jnp.abs(idx) % 5].get(mode="promise_in_bounds"),
            xi.at[idx].add(7), xi.at[idx].max(jnp.int32(3)),
            xi.at[idx].min(-xi[idx]), xi.at[idx].mul(2, mode="drop"),
            jnp.put(x.ravel(), idx * 3, u[:, 0], inplace=False,
                    mode="clip"))


def segment_reductions_dropped(d, ids, di):
    # ids outside [0, n) are dropped; empty segments get the identity.
    n = 7
    return (jax.ops.segment_sum(d, ids, n), jax.ops.segment_max(d, ids, n),
            jax.ops.segment_min(d, ids, n), jax.ops.segment_prod(d, ids, n),
            jax.ops.segment_max(di, ids, n), jax.ops.segment_min(di, ids, n),
            jax.ops.segment_sum(d, jnp.sort(jnp.clip(ids, 0, n - 1)), n,
                                indices_are_sorted=True))


def einsum_odd_contractions(a, b, c, d, i8a, i8b):
    return (jnp.einsum("bij,bjk->bik", a, b),
            jnp.einsum("ii->i", c), jnp.einsum("ii", c),
            jnp.einsum("ij,ij->", c, c.T),
            jnp.einsum("abc,cd,bd->ad", a, d, d[:4]),
            jnp.einsum("bij,bkj->bki", a, a),
            jnp.einsum("ijk,kji->", a[:, :3, :3], a[:, :3, :3].T),
            jnp.einsum("bqd,bkd,bkv->bqv", a, a, a),
            jnp.einsum("i,j,k->ijk", c[0], c[1], c[2]),
            jnp.einsum("ij,jk->ik", i8a, i8b,
                       preferred_element_type=jnp.int32),
            jnp.einsum("ij,ij->i", i8a, i8a,
                       preferred_element_type=jnp.int32))


def int_div_rem_edges(a8, b8, a32, b32, a64, b64, au, bu):
    # lax.div and lax.rem without jnp's fix-ups: division by zero, INT_MIN
    # / -1, truncation towards zero of negatives.
    out = []
    for a, b in ((a8, b8), (a32, b32), (a64, b64), (au, bu)):
        out += [lax.div(a, b), lax.rem(a, b), a // jnp.where(b == 0, 1, b),
                jnp.remainder(a, jnp.where(b == 0, 1, b))]
    return out


def float_to_int_saturation(x, h):
    # Out of range saturates, NaN becomes 0 (XLA's conversion semantics).
    out = []
    for t in (jnp.int8, jnp.uint8, jnp.int16, jnp.uint16, jnp.int32,
              jnp.uint32, jnp.int64, jnp.uint64):
        out += [x.astype(t), h.astype(t),
                h.astype(jnp.bfloat16).astype(t)]
    big = jnp.array([2**63 - 1, -2**63, 2**53 + 1, 2**24 + 1], jnp.int64)
    out += [big.astype(jnp.float32), big.astype(jnp.float16),
            big.astype(jnp.uint64).astype(jnp.float32),
            big.astype(jnp.float64)]
    return out


def half_reductions(x):
    h, g = x.astype(jnp.float16), x.astype(jnp.bfloat16)
    out = []
    for v in (h, g):
        out += [v.sum(0), v.mean(1), v.max(1), (v * 0.1 + 1).prod(0),
                v.var(0), jax.nn.logsumexp(v, 1), jnp.argmax(v, 1),
                jnp.cumsum(v, 0), jnp.linalg.norm(v, axis=1),
                jax.nn.softmax(v, 1), v.sum(dtype=jnp.float32)]
    return out


def complex_arith_reductions(z, w):
    z128 = z.astype(jnp.complex128)
    return (z.sum(0), z.prod(1), jnp.cumsum(z, 1), z.mean(),
            jnp.abs(z), jnp.angle(z), jnp.conj(z) * w, z / w,
            jnp.vdot(z, w), z @ w.T, jnp.exp(z), jnp.log(z),
            jnp.sqrt(z), z ** 3, jnp.linalg.norm(z, axis=1),
            z128.sum(1), jnp.cumprod(z * 0.3, 0), z.real * w.imag,
            jnp.where(jnp.abs(z) > 1, z, w), (z * 1j).astype(jnp.complex64),
            jnp.tanh(z), jnp.sin(z), jnp.isfinite(z / (w - w)))


def fft_odd_sizes(x, z):
    return (jnp.fft.fft(z), jnp.fft.ifft(z, axis=0),
            jnp.fft.rfft(x), jnp.fft.irfft(jnp.fft.rfft(x), n=x.shape[-1]),
            jnp.fft.irfft(z, n=9), jnp.fft.fft2(z), jnp.fft.fftn(x[None]),
            jnp.fft.rfft2(x, norm="ortho"), jnp.fft.fft(z, n=11, norm="forward"),
            jnp.fft.hfft(z[0], n=13), jnp.fft.fftshift(jnp.fft.fft(x, axis=0)))


def control_flow_tuples(x, k, n):
    def branch(i):
        def f(c):
            a, (b, cc) = c
            return (a * (i + 1), (b + i, cc - a.sum()))
        return f
    branches = [branch(i) for i in range(5)]
    sw = lax.switch(k, branches, (x, (x[0], jnp.float32(2.0))))
    cd = lax.cond(x.sum() > 0, lambda t: (t[1], t[0]),
                  lambda t: (t[0] * 2, t[1] * 3), (x, x[::-1]))

    # Nested while loops with tuple carries: an inner loop whose trip count
    # depends on the outer counter.
    def outer_body(c):
        i, acc, hist = c

        def inner_body(d):
            j, s = d
            return j + 1, s + jnp.sin(acc[j % acc.shape[0]])
        j, s = lax.while_loop(lambda d: d[0] < i, inner_body, (0, 0.0))
        return i + 1, acc * 0.9 + s, hist.at[i].set(s)
    res = lax.while_loop(lambda c: c[0] < n, outer_body,
                         (0, x, jnp.zeros(8, x.dtype)))
    return sw, cd, res


def scan_reverse_unroll(xs, h0):
    def cell(h, x):
        h = jnp.tanh(h @ jnp.ones((3, 3), h.dtype) * 0.3 + x)
        return h, h.sum()
    out = []
    for rev in (False, True):
        for unroll in (1, 3, 7):
            out.append(lax.scan(cell, h0, xs, reverse=rev, unroll=unroll))
    # vmap over a leading batch of the carry, and scan inside a scan.
    out.append(jax.vmap(lambda h: lax.scan(cell, h, xs, reverse=True))(
        jnp.stack([h0, -h0])))
    out.append(lax.scan(lambda c, x: (c + lax.scan(
        lambda d, y: (d * y, d), c, x, unroll=2)[0], c), h0, xs[:4, None]
        * jnp.ones((4, 2, 3), xs.dtype))[0])
    return out


def jax_nn_suite(x, labels):
    return (jax.nn.gelu(x, approximate=True), jax.nn.gelu(x, approximate=False),
            jax.nn.softplus(x * 30), jax.nn.log_sigmoid(x * 30),
            jax.nn.glu(x, axis=1), jax.nn.one_hot(labels, 5),
            jax.nn.one_hot(labels, 5, axis=0, dtype=jnp.int8),
            jax.nn.silu(x), jax.nn.elu(x), jax.nn.selu(x), jax.nn.celu(x, 0.5),
            jax.nn.relu6(x * 5), jax.nn.hard_tanh(x), jax.nn.hard_swish(x),
            jax.nn.log_softmax(x, axis=0), jax.nn.sparse_plus(x),
            jax.nn.softmax(x, where=x > -0.5, axis=1),
            jax.nn.logsumexp(x, axis=1, b=jnp.abs(x)),
            jax.nn.standardize(x, axis=1), jax.nn.mish(x),
            jax.nn.squareplus(x), jax.nn.leaky_relu(x, 0.2))


def rng_bit_generator_algorithms(key4):
    out = []
    for alg in (lax.RandomAlgorithm.RNG_DEFAULT,
                lax.RandomAlgorithm.RNG_THREE_FRY,
                lax.RandomAlgorithm.RNG_PHILOX):
        for shape, dt in (((3, 5), jnp.uint32), ((7,), jnp.uint8),
                          ((2, 3), jnp.uint64), ((5, 1), jnp.uint16)):
            out += list(lax.rng_bit_generator(key4, shape, dtype=dt,
                                              algorithm=alg))
    return out


def reduce_precision_formats(x):
    out = []
    for e, m in ((8, 7), (5, 10), (4, 3), (5, 2), (8, 23), (2, 1), (3, 0),
                 (8, 0), (1, 5)):
        out.append(lax.reduce_precision(x, exponent_bits=e, mantissa_bits=m))
    out.append(lax.reduce_precision(x.astype(jnp.float64), 11, 20))
    out.append(lax.reduce_precision(x.astype(jnp.float16), 4, 3))
    return out


def special_values_math(x, y):
    return (jnp.expm1(x * 1e-6), jnp.log1p(x * 1e-7),
            jnp.nextafter(x, y), jnp.nextafter(x, jnp.float32(jnp.inf)),
            jnp.arctan2(x, y), jnp.arctan2(y, x), jnp.isfinite(x * y),
            jnp.round(x * 2) / 2, jnp.round(y + 0.5), jnp.rint(x * 4 + 0.5),
            jnp.fmod(x, y), jnp.remainder(x, y), lax.rem(y, x),
            jnp.copysign(x, y), jnp.hypot(x, y), jnp.logaddexp(x, y),
            jnp.sign(x), jnp.floor(x), jnp.ceil(-x), jnp.trunc(x + 0.5),
            jnp.signbit(x), jnp.ldexp(x, 3), jnp.frexp(x)[0],
            jnp.float_power(jnp.abs(x), 0.5), jnp.heaviside(x, 0.5))


def special_functions_negative(x, p, a):
    sp = jax.scipy.special
    return (sp.erfinv(p), lax.erf_inv(p * 0.999999), sp.gammaln(x),
            sp.digamma(x), lax.lgamma(-x), sp.gammainc(a, jnp.abs(x)),
            sp.gammaincc(a, jnp.abs(x)), sp.erfc(x * 3), sp.ndtri(p * 0.5 + 0.5),
            sp.i0e(x), sp.i1e(x), sp.log_ndtr(x * 10), sp.xlogy(x, a),
            sp.xlog1py(x, a), sp.betainc(a, a + 1, jnp.abs(p)),
            sp.entr(a), sp.logit(jnp.abs(p)), sp.expit(x * 50),
            sp.zeta(a + 1.5, a), sp.polygamma(1, a + 0.5), sp.gammasgn(x))


def rounding_half_even(x):
    return (jnp.round(x), jnp.round(x, 1), jnp.around(x * 10, -1),
            lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
            lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO),
            jnp.round(x.astype(jnp.float16)), jnp.round(x.astype(jnp.float64)),
            jnp.round(x.astype(jnp.bfloat16)), jnp.trunc(x),
            jnp.round(x).astype(jnp.int32), jnp.rint(x * 0.5))


def vmapped_gather_scatter(x, idx, u, starts):
    # vmap turns these into gathers and scatters with batching dimensions.
    def one(xr, ir, ur, s):
        return (xr[ir], jnp.take_along_axis(xr, ir, 0), xr.at[ir].add(ur),
                xr.at[ir].max(ur), lax.dynamic_slice(xr, (s,), (3,)),
                lax.dynamic_update_slice(xr, ur[:2], (s,)),
                xr.at[ir].get(mode="fill", fill_value=-7.0))
    return jax.vmap(one)(x, idx, u, starts)


def dot_general_layouts(a, b, i8, u8, c):
    return (lax.dot_general(a, b, (((0, 2), (2, 0)), ((1,), (1,)))),
            lax.dot_general(a, b, (((2,), (0,)), ((), ()))),
            lax.dot_general(i8, i8, (((1,), (1,)), ((0,), (0,))),
                            preferred_element_type=jnp.int32),
            lax.dot_general(u8, u8, (((0,), (0,)), ((), ())),
                            preferred_element_type=jnp.uint32),
            lax.dot_general(i8, i8, (((2,), (2,)), ((), ()))),
            lax.dot_general(a, b, (((0, 2), (2, 0)), ((1,), (1,))),
                            preferred_element_type=jnp.float64),
            jnp.matmul(c, c.T.conj()), jnp.einsum("iij->j", a[:, :2, :2][:2]),
            jnp.einsum("ijj->ij", a[:, :3, :3]),
            (a.astype(jnp.float16) @ a.astype(jnp.float16).transpose(0, 2, 1)),
            jnp.matmul(u8.astype(jnp.int64), u8.astype(jnp.int64).T))


def fp8_and_bitcasts(x, u):
    out = []
    for t in (jnp.float8_e4m3fn, jnp.float8_e5m2, jnp.float8_e4m3fnuz,
              jnp.float8_e5m2fnuz, jnp.float8_e4m3b11fnuz):
        out.append(x.astype(t).astype(jnp.float32))
    out += [lax.bitcast_convert_type(x, jnp.uint8),
            lax.bitcast_convert_type(x, jnp.int16),
            lax.bitcast_convert_type(u.reshape(-1, 2), jnp.uint32),
            lax.bitcast_convert_type(u.reshape(-1, 2), jnp.float32),
            lax.bitcast_convert_type(x.astype(jnp.float64), jnp.int32),
            # A NaN's bf16 bits are the converter's own (0x7fc0 on the
            # CPU, 0x7fff from the GPU's cvt.rn.bf16.f32): finite x only.
            lax.bitcast_convert_type(
                jnp.where(jnp.isnan(x), 0.0, x).astype(jnp.bfloat16),
                jnp.int16),
            u.astype(jnp.float16), u.astype(jnp.bfloat16)]
    return out


def int_conversions_wide(a64, u64):
    return (a64.astype(jnp.float32), a64.astype(jnp.float16),
            a64.astype(jnp.bfloat16), u64.astype(jnp.float32),
            u64.astype(jnp.float64), u64.astype(jnp.float16),
            a64.astype(jnp.int8), u64.astype(jnp.int32),
            a64.astype(jnp.uint32), a64.astype(jnp.complex64),
            u64.astype(jnp.int64), lax.population_count(u64),
            lax.clz(u64), lax.clz(a64.astype(jnp.uint8)),
            lax.clz(a64.astype(jnp.int16)), u64 >> jnp.uint64(63),
            a64 >> 63, u64 // jnp.uint64(3), u64 % jnp.uint64(1000),
            jnp.maximum(u64, jnp.uint64(2**63)), u64 > jnp.uint64(2**63))


def complex_division_special(z, w):
    # Smith's division and its special cases (the evaluator used libgcc's
    # __divsc3: (1e30 + inf i) / (1e-20 + 1e30 i) was (inf, inf), XLA's
    # (inf, nan)).
    return z / w, w / z, jnp.reciprocal(z), z / w.real, z.real / w


def singular_values_wide_tall(a, b, z):
    # gesdd without vectors; matrix_rank of a wide matrix sizes vt thin,
    # which the LAPACK call's shape check rejected.
    return (jnp.linalg.svd(a, compute_uv=False), jnp.linalg.matrix_rank(b),
            jnp.linalg.matrix_rank(b.T), jnp.linalg.norm(b, "nuc"),
            jnp.linalg.norm(a, 2, axis=(1, 2)), jnp.linalg.cond(a[0, :3]),
            jnp.linalg.svd(z, compute_uv=False),
            jnp.linalg.svdvals(jnp.zeros((2, 3), a.dtype)))


def in_place_update_hazards(x):
    # Updates that read the buffer they update, at other positions: an
    # in-place dynamic-update-slice or scatter must not clobber its reads.
    def shift(i, x):
        return lax.dynamic_update_slice(
            x, lax.dynamic_slice(x, (i + 1,), (3,))[::-1] * 2.0, (i,))

    def gauss_seidel(k, x):
        return lax.fori_loop(1, x.shape[0] - 1, lambda i, x: x.at[i].set(
            0.25 * (x[i - 1] + x[i + 1] + 2 * x[i])), x)
    idx = jnp.array([1, 2, 3])
    return (lax.fori_loop(0, 6, shift, x), lax.fori_loop(0, 3, gauss_seidel, x),
            lax.dynamic_update_slice(x, x[2:5][::-1], (3,)),
            x.at[1:5].set(x[0:4]), x.at[idx].set(x[idx + 1]),
            x.at[idx[::-1] + 1].add(x[idx]))


def half_precision_scatter_windows(x, idx, u):
    # bf16/f16 scatter-adds with many duplicates, pooling and its gradient,
    # scans and dots: XLA:CPU rounds each bf16/f16 step.
    out = []
    for t in (jnp.bfloat16, jnp.float16):
        xt, ut = x.astype(t), u.astype(t)
        out += [xt.at[idx].add(ut), jax.ops.segment_sum(ut, idx, 5),
                lax.reduce_window(xt, t(0), lax.add, (4,), (1,), "SAME"),
                jax.grad(lambda v: lax.reduce_window(
                    v, -jnp.inf, lax.max, (3,), (2,), "SAME").astype(
                        jnp.float32).sum())(xt),
                jnp.cumsum(ut), ut @ ut]
    return out


def approx_top_k_distinct(x):
    # Distinct values: which of equal keys approx_max_k returns, and where
    # NaNs go, is up to the implementation (XLA:CPU turns the sort into a
    # TopK call of its own order).
    return (lax.approx_max_k(x, 3), lax.approx_min_k(x, 4),
            lax.approx_max_k(x.T, 2, recall_target=0.5))


def _complex_grid():
    vals = [0.0, -0.0, 1e30, -1e30, 3.0, -2.0, np.inf, -np.inf, np.nan, 1e-6,
            1e-20]
    return np.array([complex(a, b) for a in vals for b in vals],
                    np.complex64)


def _pool_input(r):
    return floats(r, (2, 7, 9, 3))


PROGRAMS = {
    "associative_scan_custom_ops": (associative_scan_custom_ops, lambda r: [
        floats(r, (6, 9)) * 0.5, floats(r, (6, 9)), floats(r, (11, 2, 2))]),
    "pooling_windows": (pooling_windows, lambda r: [_pool_input(r)]),
    "pooling_grads": (pooling_grads, lambda r: [_pool_input(r)]),
    "conv_groups_dilation": (conv_groups_dilation, lambda r: [
        floats(r, (2, 8, 7, 4)), floats(r, (3, 3, 2, 6)),
        floats(r, (2, 3, 1, 8)), floats(r, (2, 17, 3)),
        floats(r, (4, 3, 5)), floats(r, (1, 4, 5, 3, 2)),
        floats(r, (2, 3, 2, 2, 3))]),
    "conv_grads": (conv_grads, lambda r: [
        floats(r, (2, 9, 8, 4)), floats(r, (3, 2, 2, 4)),
        floats(r, (2, 3, 1, 4))]),
    "linalg_small": (linalg_small, lambda r: [
        floats(r, (3, 3)) + 2 * np.eye(3, dtype=np.float32),
        floats(r, (3, 2)), floats(r, (3, 3))]),
    "sort_two_keys": (sort_two_keys, lambda r: [
        np.array([[1, np.nan, -0.0, 0.0, 2], [2, 1, 0.0, -0.0, np.nan],
                  [1, 1, np.inf, -np.inf, 2], [np.nan, 1, 0.0, 0.0, 2],
                  [1, 2, -0.0, 0.0, 2], [2, 1, 0.0, -0.0, 1]], np.float32),
        ints(r, (6, 5), 0, 3), floats(r, (6, 5)),
        ints(r, (6, 5), 0, 100).astype(np.uint16)]),
    "searchsorted_methods": (searchsorted_methods, lambda r: [
        np.sort(np.concatenate([floats(r, (13,)), [0.5, 0.5, 0.5, np.inf]])
                ).astype(np.float32),
        np.concatenate([floats(r, (9,)), [0.5, np.nan, -np.inf, np.inf,
                                          -0.0]]).astype(np.float32),
        np.sort(ints(r, (10,), -5, 5)), ints(r, (8,), -7, 7)]),
    "scatter_combiners_2d": (scatter_combiners_2d, lambda r: [
        floats(r, (5, 3)), np.array([1, 1, -1, 4, 6, -6, 0, 1], np.int32),
        floats(r, (8, 3)), ints(r, (5, 3), -9, 9)]),
    "segment_reductions_dropped": (segment_reductions_dropped, lambda r: [
        floats(r, (23, 2)), ints(r, (23,), -2, 9), ints(r, (23, 2), -50,
                                                        50)]),
    "einsum_odd_contractions": (einsum_odd_contractions, lambda r: [
        floats(r, (2, 4, 5)), floats(r, (2, 5, 3)), floats(r, (4, 4)),
        floats(r, (5, 4)), ints(r, (3, 6), -128, 128, np.int8),
        ints(r, (6, 2), -128, 128, np.int8)]),
    "int_div_rem_edges": (int_div_rem_edges, lambda r: [
        np.array([7, -7, 7, -7, -128, -128, 0, 5, 127], np.int8),
        np.array([2, 2, -2, -2, -1, 0, 0, 0, -128], np.int8),
        np.array([7, -7, -2**31, -2**31, 0, 9, -9, 2**31 - 1], np.int32),
        np.array([-2, 2, -1, 0, 0, 0, 4, -1], np.int32),
        np.array([-2**63, -2**63, 11, -11, 5], np.int64),
        np.array([-1, 0, -3, 3, 0], np.int64),
        np.array([7, 0, 2**32 - 1, 5, 2**31], np.uint32),
        np.array([0, 0, 2, 2**32 - 1, 3], np.uint32)]),
    "float_to_int_saturation": (float_to_int_saturation, lambda r: [
        np.array([0.0, -0.0, 0.9, -0.9, 127.5, -128.9, 255.9, 256.0, -1.5,
                  65535.5, -32769.0, 3e9, -3e9, 4.3e9, 1e19, -1e19, 2e19,
                  np.inf, -np.inf, np.nan], np.float32),
        np.array([0.0, -0.0, 0.9, -0.9, 127.5, -128.9, 255.9, 256.0, -1.5,
                  65504, -65504, 300, -300, 65000, np.inf, -np.inf, np.nan,
                  -200, 1000, 2.5], np.float16)]),
    "half_reductions": (half_reductions, lambda r: [floats(r, (37, 6)) * 2]),
    "complex_arith_reductions": (complex_arith_reductions, lambda r: [
        complexes(r, (4, 6)), complexes(r, (4, 6))]),
    "fft_odd_sizes": (fft_odd_sizes, lambda r: [
        floats(r, (5, 9)), complexes(r, (5, 7))]),
    "control_flow_tuples": (control_flow_tuples, lambda r: [
        floats(r, (8,)), np.int32(7), np.int32(6)]),
    "scan_reverse_unroll": (scan_reverse_unroll, lambda r: [
        floats(r, (10, 3)), floats(r, (3,))]),
    "jax_nn_suite": (jax_nn_suite, lambda r: [
        floats(r, (6, 8)) * 2, np.array([0, 4, 5, -1, 2, 100], np.int32)]),
    "rng_bit_generator_algorithms": (rng_bit_generator_algorithms,
                                     lambda r: [ints(r, (4,), 0, 2**32,
                                                     np.uint32)]),
    "reduce_precision_formats": (reduce_precision_formats, lambda r: [
        np.concatenate([floats(r, (20,)) * 100, np.array(
            [0.0, -0.0, np.inf, -np.inf, np.nan, 65504, 65520, 3e38, 1e-30,
             -1e-20, 1.5, 2.5, 0.0625, 448, 240, 57344, 1 + 2**-8,
             1 + 3 * 2**-8], np.float32)]).astype(np.float32)]),
    "special_values_math": (special_values_math, lambda r: [
        np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan,
                  3.0, 1e-30, 7.5, -0.5, 2.5], np.float32),
        np.array([0.0, 0.0, -0.0, np.inf, -np.inf, 1.0, np.inf, -1.0, 2.0,
                  np.nan, -3.0, -2.0, 0.75, -0.0], np.float32)]),
    "special_functions_negative": (special_functions_negative, lambda r: [
        np.array([-0.5, -1.5, -2.5, -3.7, -0.1, 0.5, 2.0, -1e-3, 10.0,
                  -10.3, 1.0, -4.0], np.float32),
        np.array([0.0, -0.0, 0.5, -0.5, 0.9, -0.99, 1.0, -1.0, 0.999,
                  1e-6, 0.1, 1.5], np.float32),
        np.array([0.5, 1.0, 2.0, 3.5, 0.1, 5.0, 1.5, 10.0, 0.25, 4.0,
                  7.0, 2.5], np.float32)]),
    "rounding_half_even": (rounding_half_even, lambda r: [
        np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 4.5, 5.5,
                  -0.0, 1e8 + 1, 8388609.0, 0.05, 0.15, 0.25, 0.35, 2.675,
                  np.inf, np.nan, -3.5], np.float32)]),
    "vmapped_gather_scatter": (vmapped_gather_scatter, lambda r: [
        floats(r, (4, 9)), ints(r, (4, 6), -9, 12), floats(r, (4, 6)),
        np.array([-2, 3, 7, 100], np.int32)]),
    "dot_general_layouts": (dot_general_layouts, lambda r: [
        floats(r, (3, 4, 5)), floats(r, (5, 4, 3)),
        ints(r, (2, 6, 7), -128, 128, np.int8),
        ints(r, (9, 5), 0, 256, np.uint8), complexes(r, (4, 3))]),
    "fp8_and_bitcasts": (fp8_and_bitcasts, lambda r: [
        np.concatenate([floats(r, (10,)) * 50, np.array(
            [0.0, -0.0, np.inf, -np.inf, np.nan, 448, 464, 57344, 61440,
             1e-3, -1e-5, 240, 30000], np.float32)]).astype(np.float32)[:22],
        ints(r, (22,), 0, 65536, np.uint16)]),
    "int_conversions_wide": (int_conversions_wide, lambda r: [
        np.array([0, 1, -1, 2**24 + 1, -2**24 - 3, 2**53 + 1, 2**62 + 2**40 + 1,
                  -2**63, 2**63 - 1, 65519, 65520, -70000, 255, 300], np.int64),
        np.array([0, 1, 2**64 - 1, 2**63, 2**63 + 2**39 + 1, 2**32, 2**24 + 1,
                  12345678901234567890, 65504, 65536, 7, 2**53 + 1, 2**40 + 1,
                  3], np.uint64)]),
    "complex_division_special": (complex_division_special, lambda r: [
        _complex_grid(), _complex_grid()[::-1].copy()]),
    "singular_values_wide_tall": (singular_values_wide_tall, lambda r: [
        floats(r, (2, 4, 3)),
        np.outer(floats(r, (4,)), floats(r, (5,))).astype(np.float32),
        complexes(r, (5, 4))]),
    "in_place_update_hazards": (in_place_update_hazards, lambda r: [
        floats(r, (12,))]),
    "half_precision_scatter_windows": (half_precision_scatter_windows,
                                       lambda r: [
        floats(r, (17,)) * 10, ints(r, (200,), 0, 5), floats(r, (200,))]),
    "approx_top_k_distinct": (approx_top_k_distinct, lambda r: [
        r.permutation(60).reshape(6, 10).astype(np.float32) - 30]),
}
