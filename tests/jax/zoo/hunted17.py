"""Zoo: programs from the seventeenth bug hunt, aimed at the breadth of
the public numerical API as users call it, at arguments earlier hunts
left out. jnp.linalg: QR of complex matrices in every mode (reduced,
complete, r; tall and wide), complex SVD with full matrices and values
only, eigh of Hermitian batches from the upper triangle and without
symmetrizing, solves with broadcast batches and vmapped, lstsq of a
rank-deficient matrix, pinv (hermitian, rtol), negative and zero matrix
powers, det/slogdet of exactly singular, complex and integer matrices
(slogdet by QR too), cholesky of non-positive-definite matrices (NaN
factors, upper too), matrix norms of every ord (nuc, -2, -inf) on
batched and complex matrices and vector norms of every ord, cond of
every p, matrix_rank with rtol, tensorsolve with axes and tensorinv with
ind=2, gradients through eigvalsh, singular values, slogdet, inv and
pinv, jvps of cholesky and solve_triangular; single precision and
complex64 throughout (linalg_single_precision). jnp.fft: fftn/ifftn with
s= padding and cropping along permuted axes, every norm, rfft2/irfft2
with odd lengths, rfftn/irfftn on axes (0, 2), hfft/ihfft with n odd and
even, fftshift/ifftshift by axis, fftfreq/rfftfreq, f64 and c128, and
gradients, vmaps and jvps of them. jax.scipy: signal.convolve2d and
correlate2d in every mode, complex correlate (conjugating), fftconvolve
with axes, ndimage.map_coordinates at orders 0 and 1 in all five modes
with cval and its gradient, the gamma family (gammaln, digamma,
gammainc/c, betainc, polygamma, zeta, multigammaln, gammasgn, loggamma;
f32 and f64, at 1e-3 and 170), erfinv/ndtri at 0 and 1, i0e/i1e, xlogy,
xlog1py, entr, expit/logit, spence, bessel_jn, erfcx, sph_harm_y,
exp1/expi/expn, dawsn, fresnel; logsumexp with b= (negative weights, a
zero weight), return_sign, axes, +-inf; stats logpdf/cdf/ppf of norm, t,
beta, gamma, poisson, binom, nbinom, laplace, logistic, cauchy, chi2,
expon, uniform, vonmises, truncnorm and multivariate_normal; linalg
lu_factor/lu_solve with every trans, cho_factor/cho_solve both ways,
expm with max_squarings, block_diag of ragged blocks, toeplitz and
hankel, solve_triangular with every trans (0, 1, 2, T, C), lower and
unit_diagonal, lu, solve with assume_a, schur, sqrtm and funm.
jax.image: resize with every method, antialias on and off, up and down,
in f16, bf16 and f64; scale_and_translate with every kernel and its
gradient. jax.nn: every activation and its gradient at the kinks (f32
and bf16), glu on both axes, standardize, (log_)softmax with where=
(a row with one element), one_hot out of range, negative and uint8,
dot_product_attention with bias, mask, causal, scale, grouped KV heads,
sequence lengths and local windows, and its gradient. Functions built on
sort, cumsum and gather: quantile/percentile/nanquantile in every method
with ties and NaN rows, medians; histogram/histogram2d/histogramdd with
explicit edges, weights, density and ranges; bincount with length,
digitize right= with decreasing bins, searchsorted with every side and
method (NaN, -0.0, repeated edges), vmapped; interp with left/right/NaN,
period, complex fp and its gradient; unique with size, fill_value,
equal_nan, axis=0 and every return; lexsort, partition, take_along_axis
and take in clip/fill/wrap modes, put_along_axis; roll with tuples of
shifts on one axis, rot90 by -1/2/7 on other axes; polyfit with w,
polyder/polyint with constants, polyadd/mul/sub; convolve/correlate in
every mode (complex too); unwrap with discont and period, gradient with
coordinates, trapezoid, diff with prepend/append, cumulative_sum/prod
with include_initial, nancumsum/nancumprod, ediff1d; piecewise, select,
choose in clip/wrap, extract/compress with size, place; einsum under
every optimize setting with ellipses, repeated indices (ii, iji) and
the sublist form, and with int8 into int32/int16 and f16 into f32;
meshgrid, vander, tril/triu_indices_from, ravel_multi_index in clip/wrap
and F order, unravel_index out of range; packbits/unpackbits with
bitorder and count, bitwise_count, frexp, ldexp past the range, nextafter,
spacing (f16), modf, divmod of negatives, float_power of negative bases,
heaviside, sinc, i0, copysign, logaddexp2 with -inf, round with negative
decimals and halves, fmod/remainder by negatives, gcd/lcm. jax.random:
beta, dirichlet, gamma with alpha 0.01, loggamma, t, laplace, logistic,
cauchy, gumbel, double-sided maxwell, pareto, weibull, wald, lognormal,
triangular, categorical along axes with shapes, choice without
replacement with p=, permutation independent along an axis, rademacher,
bernoulli, randint over the whole s32 range and empty ranges, poisson
with lam 0 to 1000, binomial with n 0 to 500 and p 0 and 1, geometric,
multinomial, orthogonal, ball in p=1 and 3, truncated_normal with
infinite and far bounds, multivariate_normal by cholesky, complex
normal, f16/bf16 uniform, bits, maxwell, rayleigh.

No new miscompilation: every program matches XLA:CPU on the cpu (x86)
and, where sampled, on AArch64. One bug fixed, the one the sixteenth
hunt left: hlo-run flushed every f32/f64 (bf16, complex) input's
denormals before the evaluator ran, where XLA:CPU flushes what
arithmetic reads and a bitcast-convert moves the bits exactly, so
hunted16's bitcast_changing_widths gave 0 for the bytes of 1e-40 and
1e-310 on the evaluator. An entry parameter that only bitcast-converts
read now reaches them as given, and one that arithmetic reads as well
is split: a clone of the module takes the unflushed argument as one more
parameter, which the bitcasts read (tools/hlo_run_core.cc
FlushedArguments; tools/hlo_run_test.cc HloRunTest.
DenormalInputsBitcastExactly; the known failure is gone). Bits moved
through other instructions first (a reshape, a slice) are still
flushed on the evaluator.

The LAPACK programs fail where every earlier hunt's do: the evaluator
computes no eigen-, singular or Schur vectors (their signs and phases
are LAPACK's own) and the AArch64 target has no LAPACK or FFT
(known_failures.py).

XLA's, seen and reshaped around: frexp of a denormal f32 (1e-40) is
(0.5, -149) on XLA:CPU, where the flushed value should give (0, 0) --
jnp.frexp scales denormals by 2^23 (0 under DAZ) and takes the bits
of that, while its x == 0 test does not see the zero inside XLA's fused
kernel (alone, jitted, 1e-40 == 0 is true there); hloc's cpu returns x
itself, (1e-40, 0), and the evaluator (0, 0): denormal inputs under
flush-to-zero, where each compiler's rewrites decide. bit_and_float_helpers takes 1e-37 instead.
jax.scipy.special.expn(2, 0.0) never returns on XLA:CPU (its while loop
does not converge at 0; 40 too), so special_misc keeps its argument in
[0.5, 5]. i0e, ndtri and log_ndtr refuse f16 and bf16 in JAX.
"""

import functools

import jax
import jax.numpy as jnp
import jax.scipy as jsp
import jax.scipy.signal  # noqa: F401
import jax.scipy.special as jss
import jax.scipy.stats as jst
import numpy as np
from jax import lax

from jax_harness import complexes, floats, ints, prng_key

_HI = lax.Precision.HIGHEST


def _spd(r, n, batch=(), dtype=np.float64):
    a = r.standard_normal(batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def _herm(r, n, batch=(), dtype=np.complex64):
    a = r.standard_normal(batch + (n, n)) + 1j * r.standard_normal(
        batch + (n, n))
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def _ct(x):
    return jnp.conj(jnp.swapaxes(x, -1, -2))


# --- jnp.linalg --------------------------------------------------------------

def qr_complex_every_mode(a, w):
    # QR's Q and R are unique up to a diagonal phase: the products, the
    # moduli of R's diagonal and Q^H Q are not.
    q, r = jnp.linalg.qr(a, mode="reduced")
    qc, rc = jnp.linalg.qr(a, mode="complete")
    ro = jnp.linalg.qr(a, mode="r")
    qw, rw = jnp.linalg.qr(w)  # wide: 3x5
    return (jnp.matmul(q, r, precision=_HI), jnp.abs(jnp.diagonal(r)),
            jnp.matmul(_ct(qc), qc, precision=_HI),
            jnp.matmul(qc, rc, precision=_HI), jnp.abs(ro),
            jnp.matmul(qw, rw, precision=_HI), jnp.abs(rw))


def svd_complex_full_and_values(a, b):
    u, s, vh = jnp.linalg.svd(a, full_matrices=True)
    s2 = jnp.linalg.svd(b, compute_uv=False)
    rec = jnp.matmul(u[:, :3] * s, vh, precision=_HI)
    return (s, rec, jnp.abs(jnp.matmul(_ct(u), u, precision=_HI)), s2,
            jnp.linalg.svdvals(a))


def eigh_hermitian_upper_lower(h, s):
    w, v = jnp.linalg.eigh(h)
    wu = jnp.linalg.eigvalsh(jnp.triu(h) + _ct(jnp.triu(h, 1)), UPLO="U")
    rec = jnp.matmul(v * w[..., None, :].astype(v.dtype), _ct(v),
                     precision=_HI)
    ws, vs = jnp.linalg.eigh(s, symmetrize_input=False)
    return w, wu, rec, ws, jnp.abs(vs[..., 0, :] * vs[..., 1, :])


def solve_broadcast_batches(a, b, v, c):
    return (jnp.linalg.solve(a, b), jnp.linalg.solve(a[0], v),
            jnp.linalg.solve(a, c),
            jnp.linalg.inv(a), jax.vmap(jnp.linalg.solve, (None, 0))(a[1], b))


def lstsq_rank_deficient(a, b, t):
    x, res, rank, s = jnp.linalg.lstsq(a, b)
    x2, res2, rank2, _ = jnp.linalg.lstsq(t, b[:5], rcond=1e-10)
    return x, res, rank, s, x2, res2, rank2


def _lstsq_inputs(r):
    a = r.standard_normal((6, 4))
    a[:, 3] = a[:, 0] + 2 * a[:, 1]  # rank 3
    t = r.standard_normal((5, 3))
    return [a, r.standard_normal((6, 2)), t]


def pinv_hermitian_rtol(a, h, d):
    return (jnp.linalg.pinv(a), jnp.linalg.pinv(h, hermitian=True),
            jnp.linalg.pinv(d, rtol=1e-3), jnp.linalg.pinv(a.T, rtol=0.5))


def _pinv_inputs(r):
    a = r.standard_normal((5, 3))
    h = _spd(r, 4) - 6 * np.eye(4)
    d = np.diag([3.0, 1e-5, 2.0, 0.0])
    return [a, h, d]


def matrix_power_negative_batched(a, m):
    return (jnp.linalg.matrix_power(a, -3), jnp.linalg.matrix_power(a, 0),
            jnp.linalg.matrix_power(a, -1), jnp.linalg.matrix_power(m, 13),
            jnp.linalg.matrix_power(m, 1))


def det_slogdet_singular(s, c, z, i):
    sign, logdet = jnp.linalg.slogdet(s)
    cs, cl = jnp.linalg.slogdet(c)
    zs, zl = jnp.linalg.slogdet(z)
    return (jnp.linalg.det(s), sign, logdet, cs, cl, jnp.linalg.det(c),
            zs, zl, jnp.linalg.det(z), jnp.linalg.det(i.astype(jnp.float64)),
            jnp.linalg.slogdet(s, method="qr")[1])


def _det_inputs(r):
    s = np.array([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.5]],
                  [[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]]])
    z = np.zeros((2, 3, 3))
    z[1] = [[1, 2, 3], [2, 4, 6], [0, 0, 1]]  # rank 2, exact
    return [s, complexes(r, (3, 4, 4)), z,
            np.array([[2, 0, 1], [1, 3, 0], [0, 1, 4]], np.int32)]


def cholesky_not_positive_definite(a, b):
    # LAPACK potrf fails; JAX fills the whole factor with NaN.
    return (jnp.linalg.cholesky(a), jnp.linalg.cholesky(b),
            jnp.linalg.cholesky(b, upper=True))


def _chol_inputs(r):
    a = np.stack([_spd(r, 3), np.array([[1.0, 2, 0], [2, 1, 0], [0, 0, 1]])])
    return [a, _herm(r, 3, dtype=np.complex128)]


def norms_every_ord(a, c, v):
    out = []
    for ord_ in (None, 1, -1, 2, -2, jnp.inf, -jnp.inf, "fro", "nuc"):
        out.append(jnp.linalg.norm(a, ord=ord_, axis=(-2, -1)))
        out.append(jnp.linalg.norm(c, ord=ord_, axis=(0, 1)))
    for ord_ in (None, 0, 1, 0.5, 3, -1, -2, jnp.inf, -jnp.inf):
        out.append(jnp.linalg.norm(v, ord=ord_, axis=1, keepdims=True))
    out.append(jnp.linalg.matrix_norm(a, ord="nuc", keepdims=True))
    out.append(jnp.linalg.vector_norm(c, ord=3, axis=(0, 2)))
    return out


def _norm_inputs(r):
    v = floats(r, (3, 5))
    v[1, 2] = 0.0
    return [floats(r, (2, 4, 3)), complexes(r, (3, 3, 2)), v]


def cond_rank_every_p(a, s):
    out = [jnp.linalg.cond(a, p) for p in
           (None, 1, -1, 2, -2, jnp.inf, -jnp.inf, "fro")]
    out += [jnp.linalg.matrix_rank(s), jnp.linalg.matrix_rank(s, rtol=0.3),
            jnp.linalg.matrix_rank(a)]
    return out


def _cond_inputs(r):
    s = np.zeros((2, 4, 4))
    s[0] = np.diag([4.0, 2.0, 1.0, 0.0])
    s[1] = np.outer([1.0, 2, 3, 4], [1.0, -1, 0, 2]) + np.diag([0, 0, 0, 3.0])
    return [r.standard_normal((3, 4, 4)), s]


def tensorsolve_tensorinv_axes(a, b, t):
    x = jnp.linalg.tensorsolve(a, b, axes=(0,))
    ti = jnp.linalg.tensorinv(t, ind=2)
    return x, ti, jnp.tensordot(ti, t, 2)


def _tensor_inputs(r):
    a = r.standard_normal((6, 2, 3)) + 3 * np.eye(6).reshape(6, 2, 3)
    return [a, r.standard_normal((2, 3)),
            (r.standard_normal((2, 3, 6)) + 3 * np.eye(6).reshape(2, 3, 6))]


def linalg_grads(a, s, b):
    # Gradients through eigvalsh, singular values, slogdet, inv, solve and
    # pinv; the forward-mode of cholesky and of solve_triangular.
    def f(a, s):
        w = jnp.linalg.eigvalsh(s + s.T)
        sv = jnp.linalg.svd(a, compute_uv=False)
        return (jnp.sum(w ** 2) + jnp.sum(sv) + jnp.linalg.slogdet(s)[1]
                + jnp.sum(jnp.linalg.inv(s) * b)
                + jnp.sum(jnp.linalg.pinv(a) ** 2))
    ga, gs = jax.grad(f, (0, 1))(a, s)
    l, dl = jax.jvp(jnp.linalg.cholesky, (s,), (b + b.T,))
    x, dx = jax.jvp(lambda m: jsp.linalg.solve_triangular(m, b, lower=True),
                    (l,), (jnp.tril(b),))
    return ga, gs, l, dl, x, dx


def _grad_inputs(r):
    return [r.standard_normal((5, 3)), _spd(r, 3), r.standard_normal((3, 3))]


# --- jnp.fft -----------------------------------------------------------------

def fftn_s_axes_norms(x, c):
    return (jnp.fft.fftn(x, s=(6, 3), axes=(0, 2)),
            jnp.fft.fftn(x, s=(2, 5), axes=(2, 1), norm="ortho"),
            jnp.fft.ifftn(c, s=(5, 4), axes=(1, 0), norm="forward"),
            jnp.fft.ifftn(c, axes=(-1,)), jnp.fft.fft(x, n=7, axis=0),
            jnp.fft.ifft(c, n=2, axis=1, norm="ortho"),
            jnp.fft.fft2(c, s=(3, 3)))


def rfft2_irfft2_odd(x, y):
    f = jnp.fft.rfft2(x)                       # [5, 7] -> [5, 4]
    return (f, jnp.fft.irfft2(f, s=(5, 7)), jnp.fft.irfft2(f),
            jnp.fft.irfftn(jnp.fft.rfftn(y, axes=(0, 2)), s=(3, 5),
                           axes=(0, 2)),
            jnp.fft.rfftn(y, s=(4, 4, 3), norm="ortho"),
            jnp.fft.irfft(f[0], n=9, norm="forward"))


def hfft_ihfft_lengths(c, x):
    return (jnp.fft.hfft(c, n=7), jnp.fft.hfft(c), jnp.fft.hfft(c, n=3,
                                                               norm="ortho"),
            jnp.fft.ihfft(x), jnp.fft.ihfft(x, n=8, norm="forward"),
            jnp.fft.hfft(jnp.fft.ihfft(x), n=x.shape[-1]))


def fftshift_fftfreq(x):
    return (jnp.fft.fftshift(x), jnp.fft.fftshift(x, axes=1),
            jnp.fft.ifftshift(x, axes=(0,)),
            jnp.fft.ifftshift(jnp.fft.fftshift(x)),
            jnp.fft.fftfreq(7, d=0.5), jnp.fft.fftfreq(8),
            jnp.fft.rfftfreq(9, d=0.1), jnp.fft.rfftfreq(4),
            jnp.fft.fftfreq(5, dtype=jnp.float64))


def fft_grads_vmaps(x, c):
    g = jax.grad(lambda v: jnp.sum(jnp.abs(jnp.fft.rfft(v, n=6)) ** 2))(x)
    gc = jax.grad(lambda z: jnp.sum(jnp.real(jnp.fft.fft(z) * jnp.conj(
        jnp.fft.ifft(z, norm="ortho")))))(c)
    vm = jax.vmap(lambda r: jnp.fft.irfft(r, n=5), in_axes=1)(
        jnp.fft.rfft(x, axis=0))
    _, t = jax.jvp(lambda v: jnp.fft.fftn(v, s=(4, 4)), (x[:3],),
                   (jnp.ones_like(x[:3]),))
    return g, gc, vm, t


# --- jax.scipy ---------------------------------------------------------------

def signal_convolve2d_every_mode(a, k, c, kc):
    out = []
    for mode in ("full", "same", "valid"):
        out += [jsp.signal.convolve2d(a, k, mode=mode),
                jsp.signal.correlate2d(a, k, mode=mode),
                jsp.signal.convolve(c, kc, mode=mode),
                jsp.signal.correlate(c, kc, mode=mode),
                jsp.signal.correlate2d(a, k, mode=mode, boundary="fill",
                                       fillvalue=0),
                jsp.signal.convolve(a[0], k[:, 0], mode=mode,
                                    method="direct")]
    out.append(jsp.signal.convolve2d(k, a, mode="same"))
    return out


def fftconvolve_axes(a, b, x, y):
    return (jsp.signal.fftconvolve(a, b), jsp.signal.fftconvolve(
        a, b, mode="same"), jsp.signal.fftconvolve(a, b, mode="valid"),
            jsp.signal.fftconvolve(x, y, axes=1),
            jsp.signal.fftconvolve(x, y, mode="same", axes=(1,)),
            jsp.signal.convolve(a, b, method="fft"),
            jsp.signal.correlate(a, b, mode="same", method="fft"))


def map_coordinates_every_mode(img, coords, vol, c3):
    out = []
    for order in (0, 1):
        for mode in ("constant", "nearest", "wrap", "mirror", "reflect"):
            out.append(jsp.ndimage.map_coordinates(img, coords, order=order,
                                                   mode=mode, cval=-2.5))
    out.append(jsp.ndimage.map_coordinates(vol, c3, order=1, mode="nearest"))
    out.append(jax.grad(lambda im: jnp.sum(jsp.ndimage.map_coordinates(
        im, coords, order=1, mode="reflect") ** 2))(img))
    return out


def _mapc_inputs(r):
    coords = r.uniform(-2.5, 7.5, (2, 11)).astype(np.float32)
    coords[:, 0] = [0.5, 2.0]
    coords[:, 1] = [-0.5, 4.5]
    coords[:, 2] = [5.0, -1.0]
    return [floats(r, (5, 6)), coords, floats(r, (3, 4, 2)),
            r.uniform(-1, 4, (3, 7)).astype(np.float32)]


def special_gamma_family(x, a, b, p):
    # x, a, b > 0; p in (0, 1).
    return (jss.gammaln(x), jss.digamma(x), jss.gammainc(a, x),
            jss.gammaincc(a, x), jss.betainc(a, b, p), jss.gamma(x),
            jss.betaln(a, b), jss.multigammaln(x + 2, 3),
            jss.polygamma(1, x), jss.polygamma(3, x), jss.zeta(x + 1.5, a),
            jss.gammasgn(-x - 0.5), jss.loggamma(x),
            jss.digamma(-x - 0.25), jss.gamma(x - 3.5))


def _gamma_inputs(r, dt):
    x = np.concatenate([[1e-3, 0.5, 1, 2, 10, 30.5, 170],
                        r.uniform(0.05, 8, 9)]).astype(dt)
    a = np.concatenate([[0.1, 1, 5, 50, 0.5, 3, 200],
                        r.uniform(0.2, 6, 9)]).astype(dt)
    b = r.uniform(0.3, 9, 16).astype(dt)
    p = np.concatenate([[0.0, 1.0, 0.5, 1e-6, 0.999],
                        r.uniform(0.01, 0.99, 11)]).astype(dt)
    return [x, a, b, p]


def special_misc(p, x, n):
    return (jss.erfinv(2 * p - 1), jss.ndtri(p), jss.ndtr(x), jss.log_ndtr(x),
            jss.i0e(x), jss.i1e(x), jss.i0(x), jss.i1(x),
            jss.xlogy(p, x * x), jss.xlog1py(x, p - 1), jss.entr(x),
            jss.expit(x), jss.logit(p), jss.spence(jnp.abs(x)),
            jss.bessel_jn(jnp.abs(x) * 3, v=3), jss.erfcx(x),
            jss.sph_harm_y(n, n, p, x, n_max=3) if hasattr(
                jss, "sph_harm_y") else jss.erfc(x),
            jss.exp1(jnp.abs(x) + 0.1), jss.expi(x), jss.expn(2, jnp.clip(jnp.abs(x), 0.5, 5.0)),
            jss.dawsn(x), jss.fresnel(x))


def _misc_inputs(r):
    p = np.concatenate([[0.0, 1.0, 0.5, 1e-7, 1 - 1e-7],
                        r.uniform(0, 1, 7)])
    x = np.concatenate([[0.0, -0.0, 1e-8, -3.0, 40.0], r.standard_normal(7)])
    n = np.array([0, 1, 2, 3, 1, 0, 2, 3, 3, 2, 1, 0], np.int32)
    return [p, x, n]


def logsumexp_b_and_sign(x, b, m):
    return (jss.logsumexp(x, b=b), jss.logsumexp(x, b=b, return_sign=True),
            jss.logsumexp(x, axis=1, b=b, keepdims=True, return_sign=True),
            jss.logsumexp(m, axis=0), jss.logsumexp(m, axis=(0, 1)),
            jss.logsumexp(m, b=jnp.zeros_like(m), axis=1,
                          return_sign=True),
            jax.nn.logsumexp(x, where=b > 0, axis=0))


def _lse_inputs(r):
    x = floats(r, (3, 5)).astype(np.float64) * 10
    b = floats(r, (3, 5)).astype(np.float64)
    b[0, 1] = 0.0
    m = np.full((2, 4), -np.inf)
    m[1, 2] = 3.0
    m[0, 0] = np.inf
    return [x, b, m]


def stats_logpdf_cdf(x, k, p, mu, cov, pts):
    return (jst.norm.logpdf(x, 1.0, 2.0), jst.norm.cdf(x), jst.norm.ppf(p),
            jst.norm.logcdf(x), jst.norm.sf(x), jst.t.logpdf(x, 3.5),
            jst.t.cdf(x, 2.0) if hasattr(jst.t, "cdf") else x,
            jst.beta.logpdf(p, 2.0, 0.5), jst.beta.cdf(p, 2.0, 3.0),
            jst.gamma.logpdf(jnp.abs(x), 0.7, scale=2.0),
            jst.gamma.cdf(jnp.abs(x), 2.5),
            jst.poisson.logpmf(k, 3.2), jst.poisson.cdf(k, 0.5),
            jst.multivariate_normal.logpdf(pts, mu, cov),
            jst.laplace.logpdf(x, 0.5, 2), jst.logistic.cdf(x),
            jst.cauchy.logpdf(x), jst.chi2.logpdf(jnp.abs(x), 3),
            jst.binom.logpmf(k, 10, 0.3), jst.nbinom.logpmf(k, 4, 0.6),
            jst.expon.logcdf(jnp.abs(x)), jst.uniform.logpdf(p, 0.2, 0.5),
            jst.vonmises.logpdf(x, 1.5), jst.truncnorm.logpdf(x, -1, 2))


def _stats_inputs(r):
    x = np.concatenate([[0.0, -1e-9, 40.0, -40.0], r.standard_normal(8)])
    k = np.array([0, 1, 2, 3, 5, 10, 0, 7, 4, 2, 11, 1], np.int32)
    p = np.concatenate([[0.0, 1.0, 0.5, 1e-9], r.uniform(0, 1, 8)])
    return [x, k, p, r.standard_normal(3), _spd(r, 3),
            r.standard_normal((5, 3))]


def scipy_linalg_solvers(a, b, s, u):
    lu, piv = jsp.linalg.lu_factor(a)
    c = jsp.linalg.cho_factor(s, lower=True)
    cu = jsp.linalg.cho_factor(s)
    out = [jsp.linalg.lu_solve((lu, piv), b),
           jsp.linalg.lu_solve((lu, piv), b, trans=1),
           jsp.linalg.lu_solve((lu, piv), b[:, 0], trans=2),
           jsp.linalg.cho_solve(c, b), jsp.linalg.cho_solve(cu, b[:, 0]),
           jsp.linalg.expm(a / 3), jsp.linalg.expm(s / 10, max_squarings=4),
           jsp.linalg.block_diag(a[:2, :2], s[0:1], u[:1, :3]),
           jsp.linalg.toeplitz(b[:, 0]),
           jsp.linalg.toeplitz(b[:3, 0], b[:, 1]), jsp.linalg.hankel(b[:, 0])]
    for trans in (0, 1, 2, "T", "C"):
        for lower in (False, True):
            out.append(jsp.linalg.solve_triangular(
                u if not lower else u.T, b, trans=trans, lower=lower,
                unit_diagonal=lower))
    p, l, uu = jsp.linalg.lu(a)
    out += [jnp.matmul(p, jnp.matmul(l, uu, precision=_HI), precision=_HI),
            jsp.linalg.det(a), jsp.linalg.inv(s),
            jsp.linalg.solve(s, b, assume_a="pos"),
            jsp.linalg.solve(a, b, assume_a="gen")]
    return out


def _scipy_linalg_inputs(r):
    u = np.triu(r.standard_normal((4, 4))) + 3 * np.eye(4)
    return [r.standard_normal((4, 4)), r.standard_normal((4, 2)), _spd(r, 4),
            u]


def schur_sqrtm_funm(a, s):
    t, z = jsp.linalg.schur(s)
    return (jnp.diagonal(t), jnp.abs(z), jsp.linalg.sqrtm(s),
            jsp.linalg.funm(s, jnp.exp) if hasattr(jsp.linalg, "funm")
            else s)


# --- jax.image ---------------------------------------------------------------

def image_resize_every_method(img, vol):
    out = []
    for method in ("nearest", "linear", "cubic", "lanczos3", "lanczos5"):
        for antialias in (True, False):
            out.append(jax.image.resize(img, (2, 3, 11, 3), method,
                                        antialias=antialias))
            out.append(jax.image.resize(img, (2, 5, 4, 3), method,
                                        antialias=antialias))
        out.append(jax.image.resize(vol, (3, 2, 7), method))
    return out


def scale_translate_every_method(img):
    out = []
    for method in ("linear", "cubic", "lanczos3", "lanczos5", "triangle"):
        for antialias in (True, False):
            out.append(jax.image.scale_and_translate(
                img, (9, 4), (0, 1), jnp.array([1.7, 0.6]),
                jnp.array([-0.8, 1.25]), method, antialias=antialias))
    out.append(jax.grad(lambda im: jnp.sum(jax.image.scale_and_translate(
        im, (9, 4), (0, 1), jnp.array([1.7, 0.6]), jnp.array([0.3, 0.1]),
        "cubic") ** 2))(img))
    return out


# --- jax.nn ------------------------------------------------------------------

def nn_every_activation(x, y):
    n = jax.nn
    acts = [n.relu, n.relu6, n.sigmoid, n.softplus, n.sparse_plus,
            n.sparse_sigmoid, n.soft_sign, n.silu, n.log_sigmoid,
            n.leaky_relu, n.hard_sigmoid, n.hard_silu, n.hard_tanh, n.elu,
            n.celu, n.selu, n.gelu, functools.partial(n.gelu,
                                                      approximate=False),
            n.squareplus, n.mish, functools.partial(n.celu, alpha=0.3),
            functools.partial(n.elu, alpha=2.5),
            functools.partial(n.leaky_relu, negative_slope=-0.2),
            functools.partial(n.squareplus, b=0.0), n.tanh]
    out = [f(x) for f in acts]
    out += [jax.vmap(jax.grad(lambda v, f=f: f(v)))(x) for f in acts]
    out += [n.glu(y), n.glu(y, axis=0), n.standardize(y, axis=1),
            n.standardize(y, axis=0, epsilon=1e-3)]
    return out


def _act_inputs(r):
    x = np.concatenate([[0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 6.0, 30.0, -30.0,
                         1e-6, 100.0], r.standard_normal(5) * 3])
    return [x.astype(np.float32), floats(r, (4, 6))]


def softmax_where_one_hot(x, mask, idx):
    return (jax.nn.log_softmax(x, where=mask), jax.nn.softmax(x, where=mask),
            jax.nn.log_softmax(x, axis=0, where=mask),
            jax.nn.softmax(x, axis=(0, 1)),
            jax.nn.one_hot(idx, 5), jax.nn.one_hot(idx, 4, axis=0,
                                                   dtype=jnp.int8),
            jax.nn.one_hot(idx.astype(jnp.uint8), 3),
            jax.grad(lambda v: jnp.sum(jnp.where(
                mask, jax.nn.log_softmax(v, where=mask), 0.0) * v))(x))


def _softmax_inputs(r):
    mask = r.integers(0, 2, (3, 6)) > 0
    mask[:, 0] = True
    mask[2] = False
    mask[2, 3] = True
    return [floats(r, (3, 6)), mask,
            np.array([-1, 0, 4, 5, 2, 100, -100, 3], np.int32)]


def attention_masks_bias_causal(q, k, v, bias, mask, kg):
    n = jax.nn.dot_product_attention
    out = [n(q, k, v), n(q, k, v, is_causal=True), n(q, k, v, bias=bias),
           n(q, k, v, mask=mask), n(q, k, v, bias=bias, mask=mask,
                                    is_causal=True, scale=0.3),
           n(q, kg, kg),
           n(q, k, v, query_seq_lengths=jnp.array([3, 1], jnp.int32),
             key_value_seq_lengths=jnp.array([5, 2], jnp.int32)),
           n(q, k, v, local_window_size=(1, 1)),
           n(q, kg, kg, is_causal=True, local_window_size=2)]
    out.append(jax.grad(lambda q_: jnp.sum(n(q_, k, v, bias=bias,
                                             is_causal=True) ** 2))(q))
    return out


def _attn_inputs(r):
    b, t, s, h, d = 2, 4, 5, 4, 8
    mask = r.integers(0, 2, (b, h, t, s)) > 0
    mask[..., 0] = True
    return [floats(r, (b, t, h, d)), floats(r, (b, s, h, d)),
            floats(r, (b, s, h, d)), floats(r, (b, h, t, s)), mask,
            floats(r, (b, 4, 2, d))]


# --- jnp functions built on sort, cumsum, gather -----------------------------

def quantile_every_method(x, q, xn):
    out = []
    for method in ("linear", "lower", "higher", "midpoint", "nearest"):
        out += [jnp.quantile(x, q, axis=1, method=method),
                jnp.percentile(x, 100 * q[1], axis=(0, 2), method=method,
                               keepdims=True),
                jnp.nanquantile(xn, q, axis=0, method=method),
                jnp.nanpercentile(xn, 37.5, method=method)]
    out += [jnp.median(x, axis=2), jnp.nanmedian(xn, axis=1),
            jnp.nanmedian(xn), jnp.median(x, axis=(0, 1), keepdims=True)]
    return out


def _quantile_inputs(r):
    xn = floats(r, (5, 4))
    xn[0, :] = np.nan
    xn[2, 1] = np.nan
    xn[3, 3] = np.nan
    x = np.round(floats(r, (3, 6, 4)) * 2) / 2  # ties
    return [x, np.array([0.0, 0.25, 0.5, 0.9, 1.0], np.float32), xn]


def histograms_explicit_bins(x, w, y, z):
    e = jnp.array([-2.0, -0.5, 0.0, 0.25, 1.0, 2.0])
    h1 = jnp.histogram(x, bins=e)
    h2 = jnp.histogram(x, bins=e, weights=w, density=True)
    h3 = jnp.histogram(x, bins=7, range=(-1.0, 1.0))
    h4 = jnp.histogram2d(x, y, bins=[e, jnp.array([-1.0, 0.0, 3.0])],
                         weights=w)
    h5 = jnp.histogram2d(x, y, bins=4, range=[[-2, 2], [-1, 1]],
                         density=True)
    h6 = jnp.histogramdd(z, bins=[3, e, 2], range=[(-1, 1), None, (0, 1)])
    h7 = jnp.histogram_bin_edges(x, bins=5)
    return h1, h2, h3, h4, h5, h6, h7


def bincount_digitize_searchsorted(i, w, x, bins, dbins):
    out = [jnp.bincount(i, length=6), jnp.bincount(i, weights=w, length=4),
           jnp.bincount(i, minlength=9, length=9)]
    for right in (False, True):
        out += [jnp.digitize(x, bins, right=right),
                jnp.digitize(x, dbins, right=right)]
    for side in ("left", "right"):
        for method in ("scan", "sort", "compare_all",
                       "scan_unrolled"):
            out.append(jnp.searchsorted(bins, x, side=side, method=method))
    out.append(jax.vmap(lambda b, v: jnp.searchsorted(b, v))(
        jnp.sort(w.reshape(2, 5), axis=1), x[:4].reshape(2, 2)))
    return out


def _bincount_inputs(r):
    bins = np.array([-1.0, 0.0, 0.0, 0.5, 2.0], np.float32)
    x = np.array([-2, -1, -0.5, 0, 0, 0.25, 0.5, 1, 2, 3, np.nan, -0.0],
                 np.float32)
    return [np.array([0, 1, 1, 3, 5, 7, 2, -1, 0, 3], np.int32),
            floats(r, (10,)), x, bins, bins[::-1].copy()]


def interp_left_right_period(x, xp, fp, fc):
    return (jnp.interp(x, xp, fp), jnp.interp(x, xp, fp, left=-9.0,
                                              right=9.0),
            jnp.interp(x, xp, fp, left=jnp.nan),
            jnp.interp(x * 5, xp, fp, period=2.5),
            jnp.interp(x, xp, fc), jnp.interp(x, xp, fc, period=1.0),
            jax.vmap(jnp.interp, (0, None, None))(x.reshape(3, 4), xp, fp),
            jax.grad(lambda v: jnp.sum(jnp.interp(v, xp, fp)))(x))


def _interp_inputs(r):
    xp = np.array([-1.0, -0.5, 0.0, 0.0, 0.7, 1.5], np.float32)
    x = np.array([-3, -1, -0.75, 0, 0.35, 0.7, 1.5, 2, np.nan, 1.2, -0.2,
                  0.1], np.float32)
    return [x, xp, floats(r, (6,)), complexes(r, (6,))]


def unique_with_size(x, m, f):
    return (jnp.unique(x, size=8, fill_value=-1),
            jnp.unique(x, return_index=True, return_inverse=True,
                       return_counts=True, size=5),
            jnp.unique(m, axis=0, size=4, return_counts=True),
            jnp.unique(f, equal_nan=True, size=6),
            jnp.unique(f, equal_nan=False, size=7, fill_value=0.5),
            jnp.unique(f, size=3, return_inverse=True, return_counts=True,
                       equal_nan=True))


def _unique_inputs(r):
    return [np.array([3, 1, 3, -2, 7, 1, 1, 0, -2], np.int32),
            np.array([[1, 2], [0, 5], [1, 2], [0, 5], [9, 9], [1, 2]],
                     np.int16),
            np.array([np.nan, 1.0, -0.0, 0.0, np.nan, 2.5, 1.0], np.float32)]


def lexsort_partition_take(keys, x, idx):
    return (jnp.lexsort(keys), jnp.lexsort(keys[::-1], axis=0),
            jnp.partition(x, 2, axis=1)[:, 2], jnp.partition(x, -1)[..., -1],
            jnp.sort(jnp.partition(x, 3, axis=0)[:3], axis=0),
            jnp.take_along_axis(x, idx, axis=1, mode="clip"),
            jnp.take_along_axis(x, idx, axis=1, mode="fill",
                                fill_value=-7.0),
            jnp.take_along_axis(x, jnp.argsort(x, axis=0), axis=0),
            jnp.put_along_axis(x, jnp.abs(idx) % 5, 0.5, axis=1,
                               inplace=False),
            jnp.take(x, jnp.array([-1, 7, 2]), axis=1, mode="wrap"),
            jnp.take(x, jnp.array([-1, 7, 2]), axis=1, mode="clip"),
            jnp.take(x, jnp.array([-9, 60]), mode="fill", fill_value=3.0))


def _lexsort_inputs(r):
    keys = ints(r, (3, 8), 0, 3)
    x = np.round(floats(r, (4, 5)) * 2) / 2
    x[1, 1] = np.nan
    return [keys, x, ints(r, (4, 3), -6, 7)]


def roll_rot_flip(x):
    return (jnp.roll(x, (1, -2), axis=(0, 2)), jnp.roll(x, 7),
            jnp.roll(x, (3, 3), axis=(1, 1)), jnp.roll(x, -13, axis=-1),
            jnp.rot90(x), jnp.rot90(x, -1), jnp.rot90(x, 2, axes=(2, 0)),
            jnp.rot90(x, 7, axes=(1, 2)), jnp.flip(x, (0, 2)),
            jnp.fliplr(x), jnp.flipud(x), jnp.moveaxis(x, (0, 1), (2, 0)),
            jnp.swapaxes(x, 0, -1))


def polynomials(x, y, w, p):
    c = jnp.polyfit(x, y, 3)
    cw = jnp.polyfit(x, y, 2, w=w)
    return (c, cw, jnp.polyval(c, x), jnp.polyder(p, 2), jnp.polyint(p, k=3),
            jnp.polyint(p, m=2, k=jnp.array([1.0, -1.0])), jnp.polyadd(p, c),
            jnp.polymul(p, c), jnp.polysub(c, p[:2]),
            jnp.polyval(p, jnp.array([0.0, 1.0, -2.0])),
            jax.vmap(jnp.polyval, (None, 0))(p, x.reshape(2, 4)))


def convolve_correlate_1d(a, v, ca, cv):
    out = []
    for mode in ("full", "same", "valid"):
        out += [jnp.convolve(a, v, mode=mode), jnp.correlate(a, v, mode=mode),
                jnp.convolve(v, a, mode=mode), jnp.correlate(ca, cv, mode),
                jnp.convolve(ca, cv, mode=mode, precision=_HI),
                jnp.correlate(a[:4], v, mode=mode)]
    return out


def calculus_helpers(x, y, t):
    return (jnp.unwrap(x), jnp.unwrap(x, discont=4.0),
            jnp.unwrap(x * 10, period=5.0), jnp.unwrap(y, axis=0),
            jnp.gradient(x), jnp.gradient(x, 0.5), jnp.gradient(x, t),
            jnp.gradient(y, 2.0, axis=1), jnp.gradient(y),
            jnp.trapezoid(x), jnp.trapezoid(x, t), jnp.trapezoid(y, dx=0.25,
                                                               axis=0),
            jnp.diff(x, n=2, prepend=jnp.array([1.0, 2.0]),
                     append=jnp.float32(-1)),
            jnp.diff(y, axis=0, prepend=0.0), jnp.diff(y, n=3, axis=1),
            jnp.cumulative_sum(y, axis=1, include_initial=True),
            jnp.cumulative_prod(y, axis=0, include_initial=True),
            jnp.nancumprod(jnp.where(y > 1, jnp.nan, y), axis=1),
            jnp.nancumsum(jnp.where(y > 1, jnp.nan, y), axis=0),
            jnp.ediff1d(x, to_begin=jnp.array([9.0]), to_end=-1.0))


def _calc_inputs(r):
    x = np.cumsum(r.uniform(-3, 3, 9)).astype(np.float32)
    t = np.cumsum(r.uniform(0.1, 1, 9)).astype(np.float32)
    return [x, floats(r, (4, 5)), t]


def piecewise_select_where(x, i):
    return (jnp.piecewise(x, [x < -1, (x >= -1) & (x < 1)],
                          [lambda v: -v, lambda v: v * v, 3.0]),
            jnp.piecewise(x, [x > 0], [jnp.sin]),
            jnp.select([x < 0, x > 1], [x * 2, x - 1], default=jnp.nan),
            jnp.select([i == 0, i == 1, i == 0], [i, i * 10, i * 100], -1),
            jnp.where(x > 0, x, jnp.where(x < -1, -x, 0)),
            jnp.choose(jnp.abs(i) % 3, [x, -x, x * 3], mode="clip"),
            jnp.choose(i, [x, -x, x * 3], mode="clip"),
            jnp.choose(i, [x, -x, x * 3], mode="wrap"),
            jnp.extract(x > 0, x, size=5, fill_value=-1.0),
            jnp.compress(x > 0.5, x, size=3, fill_value=0.0),
            jnp.place(x, x < 0, jnp.array([7.0, 8.0]), inplace=False))


def einsum_ellipsis_repeated(a, b, s, c):
    out = []
    for opt in (False, True, "greedy", "optimal"):
        out += [jnp.einsum("...ij,...jk->...ik", a, b, optimize=opt),
                jnp.einsum("ii->i", s, optimize=opt),
                jnp.einsum("ii", s, optimize=opt),
                jnp.einsum("iji->j", c, optimize=opt),
                jnp.einsum("bij,bjk,kl->bil", a, b, s[:2, :2],
                           optimize=opt),
                jnp.einsum("...i,...i->...", a, a, optimize=opt),
                jnp.einsum("ij,ij,ij->i", s, s, s, optimize=opt),
                jnp.einsum(a, [0, 1, 2], b, [0, 2, 3], [0, 3, 1],
                           optimize=opt)]
    out.append(jnp.einsum("i,j,k->ijk", s[0], s[1], s[2]))
    out.append(jnp.kron(s[:2, :3], b[0]))
    out.append(jnp.outer(s[0], a[0, 0]))
    out.append(jnp.inner(a, a))
    return out


def index_helpers(m, s, mi, fi):
    out = [jnp.tril_indices_from(s, k=-1), jnp.triu_indices_from(s, k=2),
           jnp.diag_indices_from(s), jnp.tril_indices(4, 1, 3),
           jnp.meshgrid(m[:3], m[:2], indexing="ij"),
           jnp.meshgrid(m[:3], m[:2], m[:4], indexing="xy"),
           jnp.meshgrid(m[:3], m[:2], sparse=True),
           jnp.vander(m), jnp.vander(m, 3, increasing=True),
           jnp.ravel_multi_index(mi, (3, 4), mode="clip"),
           jnp.ravel_multi_index(mi, (3, 4), mode="wrap"),
           jnp.ravel_multi_index(mi, (3, 4), order="F", mode="wrap"),
           jnp.unravel_index(fi, (3, 4)), jnp.unravel_index(fi, (2, 1, 5)),
           jnp.indices((2, 3)),
           jnp.indices((2, 3), sparse=True), jnp.ix_(m[:2], m[:3])]
    return out


def _index_inputs(r):
    mi = np.array([[-1, 0, 2, 5, 3], [4, -5, 3, 1, 11]], np.int32)
    fi = np.array([-1, 0, 5, 11, 12, -13, 9], np.int32)
    return [floats(r, (5,)), floats(r, (4, 4)), mi, fi]


def bit_and_float_helpers(u, b, x, h):
    m, e = jnp.frexp(x)
    return (jnp.packbits(b, axis=1), jnp.packbits(b, bitorder="little"),
            jnp.unpackbits(u, axis=0, count=3),
            jnp.unpackbits(u, bitorder="little", count=-2),
            jnp.bitwise_count(u), jnp.bitwise_count(u.astype(jnp.int8)),
            m, e, jnp.ldexp(x, jnp.array(130, jnp.int32)),
            jnp.ldexp(m, e), jnp.ldexp(x, -140), jnp.nextafter(x, -x),
            jnp.spacing(x), jnp.spacing(h), jnp.modf(x), jnp.divmod(x, -1.5),
            jnp.divmod(-x, 0.75), jnp.float_power(x, 3),
            jnp.float_power(-jnp.abs(x), 0.5), jnp.heaviside(x, 0.5),
            jnp.sinc(x), jnp.i0(x), jnp.copysign(h, -x.astype(h.dtype)),
            jnp.logaddexp2(x, -jnp.inf), jnp.logaddexp2(x, x),
            jnp.round(x * 100, -1), jnp.round(x, 2), jnp.around(h, 1),
            jnp.round(jnp.arange(-3.5, 4.0, 0.5)), jnp.rint(h),
            jnp.trunc(-x), jnp.signbit(x), jnp.fmod(x, -0.7),
            jnp.remainder(x, -0.7), jnp.gcd(u, 12), jnp.lcm(u % 8, 6),
            jnp.cbrt(x), jnp.deg2rad(h), jnp.hypot(x, 3.0),
            jnp.nan_to_num(x / 0.0, posinf=7.0))


def _bits_inputs(r):
    x = np.array([0.0, -0.0, 1.0, -2.5, 3e38, 1e-37, np.inf, -np.inf,
                  0.5, -0.125, 1.5, 2.5, 7.25, -1e-30], np.float32)
    return [ints(r, (4, 3), 0, 256, np.uint8), r.integers(0, 2, (3, 11)) > 0,
            x, np.array([0.5, -0.5, 1.5, 65504.0, 6e-8, -2.5, 0.0, 1e-5,
                         3.0, -3.0, 100.0, 0.25, 2.0, 8.0], np.float16)]


# --- jax.random --------------------------------------------------------------

def random_continuous(key, alpha):
    ks = jax.random.split(key, 12)
    r = jax.random
    return (r.beta(ks[0], 0.3, 2.5, (6,)),
            r.dirichlet(ks[2], alpha, (3,)), r.gamma(ks[3], 0.01, (6,)),
            r.loggamma(ks[5], 0.05, (5,)),
            r.t(ks[6], 2.5, (6,)), r.laplace(ks[7], (6,)),
            r.logistic(ks[8], (6,)), r.cauchy(ks[9], (4,)),
            r.gumbel(ks[10], (4,), mode="high"),
            r.double_sided_maxwell(ks[11], 0.5, 2.0, (4,)),
            r.pareto(ks[0], 3.0, (4,)), r.weibull_min(ks[1], 2.0, 1.5, (4,)),
            r.wald(ks[2], 1.5, (4,)), r.lognormal(ks[3], 0.5, (4,)),
            r.exponential(ks[6], (4,), jnp.float64),
            r.triangular(ks[7], -1.0, 0.5, 2.0, (4,)))


def random_discrete(key, logits, p):
    ks = jax.random.split(key, 12)
    r = jax.random
    return (r.categorical(ks[0], logits, axis=0),
            r.categorical(ks[1], logits, axis=-1, shape=(2, 4)),
            r.categorical(ks[2], logits.T, axis=1, shape=(3, 5)),
            r.choice(ks[3], 10, (4,), replace=False),
            r.choice(ks[4], jnp.arange(6) * 3, (4,), replace=False, p=p),
            r.choice(ks[5], 6, (2, 3), replace=True, p=p),
            r.permutation(ks[6], jnp.arange(12).reshape(3, 4), axis=1,
                          independent=True),
            r.permutation(ks[7], 9), r.rademacher(ks[8], (7,), jnp.int8),
            r.bernoulli(ks[9], p), r.randint(ks[10], (6,), -2**31,
                                             2**31 - 1),
            r.randint(ks[11], (5,), 3, 3), r.poisson(ks[0], 1000.0, (4,)),
            r.poisson(ks[1], jnp.array([0.0, 0.5, 30.0, 300.0])),
            r.binomial(ks[2], 50.0, 0.3, (4,)),
            r.binomial(ks[3], jnp.array([0.0, 1.0, 20.0, 500.0]),
                       jnp.array([0.5, 0.0, 1.0, 0.9])),
            r.geometric(ks[4], 0.2, (4,)),
            r.multinomial(ks[5], 20.0, p, shape=(2, 6))
            if hasattr(r, "multinomial") else p)


def _discrete_inputs(r):
    p = np.array([0.1, 0.0, 0.3, 0.2, 0.25, 0.15])
    return [prng_key(r), floats(r, (4, 5)), p]


def random_geometric(key, mean, cov):
    ks = jax.random.split(key, 8)
    r = jax.random
    return (r.orthogonal(ks[0], 3, (2,)), r.ball(ks[1], 3, p=1.0, shape=(4,)),
            r.ball(ks[2], 2, p=3.0, shape=(3,)),
            r.truncated_normal(ks[3], -jnp.inf, 0.5, (5,)),
            r.truncated_normal(ks[4], 2.0, 3.0, (5,)),
            r.truncated_normal(ks[5], jnp.array([-1.0, 5.0]),
                               jnp.array([1.0, 6.0])),
            r.multivariate_normal(ks[6], mean, cov, (4,),
                                  method="cholesky"),
            r.normal(ks[7], (3,), jnp.complex64),
            r.uniform(ks[0], (4,), jnp.float16, -1.0, 1.0),
            r.uniform(ks[1], (4,), jnp.bfloat16, 0.0, 1.0),
            r.bits(ks[2], (3,), jnp.uint16),
            r.maxwell(ks[4], (3,)), r.rayleigh(ks[5], 2.0, (3,)))


def _geom_inputs(r):
    return [prng_key(r), r.standard_normal(3), _spd(r, 3)]


# --- Gradients, vmaps and jvps ----------------------------------------------

def special_grads(x, a):
    def f(x, a):
        return jnp.sum(jss.gammaln(x) + jss.digamma(x) * a
                       + jss.betainc(2.0, 3.5, jax.nn.sigmoid(x))
                       + jss.gammainc(a, x) + jss.erfinv(jnp.tanh(x) * 0.9)
                       + jss.logsumexp(x * a) + jss.expit(x) * jss.i0e(x)
                       + jss.xlogy(a, x) + jss.log_ndtr(-x * 3))
    g = jax.grad(f, (0, 1))(x, a)
    h = jax.vmap(jax.grad(lambda v: jss.polygamma(1, v) + jss.zeta(v + 1,
                                                                   2.0)))(x)
    _, t = jax.jvp(lambda v: jss.ndtri(jax.nn.sigmoid(v)), (x,),
                   (jnp.ones_like(x),))
    return g, h, t


def _special_grad_inputs(r):
    return [r.uniform(0.3, 4, 8), r.uniform(0.5, 3, 8)]


def vmapped_sort_helpers(x, q, v):
    return (jax.vmap(lambda r: jnp.quantile(r, q, method="midpoint"))(x),
            jax.vmap(jnp.median, in_axes=1)(x),
            jax.vmap(lambda r: jnp.searchsorted(jnp.sort(r), v))(x),
            jax.vmap(lambda r: jnp.histogram(r, bins=4, range=(-2, 2))[0])(
                x),
            jax.vmap(lambda r: jnp.unique(jnp.round(r), size=4,
                                          fill_value=9.0))(x),
            jax.vmap(lambda r: jnp.argpartition(r, 2)[:2].sum())(x),
            jax.vmap(lambda r: jnp.bincount(jnp.abs(r * 2).astype(jnp.int32),
                                            length=4))(x),
            jax.grad(lambda r: jnp.sum(jnp.quantile(r, q, axis=1) ** 2))(x),
            jax.grad(lambda r: jnp.sum(jnp.sort(r, axis=0)[0] * v[0]))(x))


def linalg_vmaps_jvps(a, s, b):
    f = jax.vmap(lambda m, y: jsp.linalg.cho_solve(
        jsp.linalg.cho_factor(m), y))
    _, dexpm = jax.jvp(jsp.linalg.expm, (a[0] / 4,), (s[0] / 10,))
    _, dinv = jax.jvp(jnp.linalg.inv, (s,), (a,))
    _, ddet = jax.jvp(jnp.linalg.det, (a,), (s,))
    g = jax.grad(lambda m: jnp.sum(jnp.linalg.solve(m, b) ** 2))(a)
    gq = jax.grad(lambda m: jnp.sum(jnp.abs(jnp.diagonal(
        jnp.linalg.qr(m)[1], axis1=-2, axis2=-1))))(a)
    return (f(s, b), dexpm, dinv, ddet, g, gq,
            jax.vmap(jnp.linalg.matrix_power, (0, None))(a, 3),
            jax.vmap(jnp.linalg.slogdet)(a))


def _lvj_inputs(r):
    return [r.standard_normal((2, 3, 3)) + 2 * np.eye(3), _spd(r, 3, (2,)),
            r.standard_normal((2, 3, 2))]


def image_nn_grads(img, x):
    g1 = jax.grad(lambda im: jnp.sum(jax.image.resize(
        im, (7, 5), "lanczos3") ** 2))(img)
    g2 = jax.grad(lambda im: jnp.sum(jax.image.resize(
        im, (3, 2), "linear", antialias=True) * im[:3, :2]))(img)
    g3 = jax.vmap(jax.grad(lambda v: jnp.sum(jax.nn.glu(v) ** 2)))(x)
    g4 = jax.grad(lambda v: jnp.sum(jax.nn.log_softmax(v, axis=0) ** 2))(x)
    _, t = jax.jvp(jax.nn.mish, (x,), (x,))
    return g1, g2, g3, g4, t


# --- The same at narrow and wide types ---------------------------------------

def image_resize_half_types(h, b, d):
    out = []
    for method in ("nearest", "linear", "cubic", "lanczos3"):
        out += [jax.image.resize(h, (7, 3), method),
                jax.image.resize(b, (2, 9), method, antialias=True),
                jax.image.resize(d, (3, 8), method, antialias=False)]
    return out


def fft_double_and_complex128(x, c):
    return (jnp.fft.fftn(c, axes=(0, 1)), jnp.fft.ifft2(c, s=(3, 5)),
            jnp.fft.rfft(x, n=9), jnp.fft.irfft(jnp.fft.rfft(x), n=x.shape[-1]),
            jnp.fft.hfft(c[0], n=5), jnp.fft.ihfft(x, norm="ortho"),
            jnp.fft.rfftn(x, s=(3, 7)), jnp.fft.fftshift(jnp.fft.fft(c)))


def special_half_types(h, b):
    out = []
    for v in (h, b):
        a = jnp.abs(v) + v.dtype.type(0.5)
        out += [jss.erfinv(jnp.tanh(v)), jss.gammaln(a), jss.digamma(a),
                jss.logsumexp(v, axis=0), jss.expit(v), jss.logit(
                    jax.nn.sigmoid(v)), jss.xlogy(a, a), jss.erf(v),
                jss.erfc(v), jax.nn.log_softmax(v, axis=1),
                jax.nn.gelu(v), jax.nn.mish(v), jax.nn.selu(v)]
    return out


def sort_helpers_int_and_half(i, u8, h):
    return (jnp.percentile(i, 30.0, axis=0), jnp.median(i, axis=1),
            jnp.quantile(h, 0.4, axis=1, method="nearest"),
            jnp.quantile(h, jnp.array([0.1, 0.5]), axis=0),
            jnp.histogram(i, bins=4), jnp.bincount(u8, length=8),
            jnp.searchsorted(jnp.sort(h.ravel()), h[0]),
            jnp.unique(u8, size=5, return_counts=True),
            jnp.cumsum(h, axis=1), jnp.cumprod(u8 % 3, dtype=jnp.uint8),
            jnp.nanmedian(h, axis=0), jnp.lexsort((h[0], i[0])),
            jnp.partition(i, 1, axis=1)[:, :2], jnp.diff(u8),
            jnp.interp(h[0], jnp.sort(h[1]), h[2]))


def linalg_single_precision(a, s, c, b):
    sign, logdet = jnp.linalg.slogdet(a)
    return (jnp.linalg.solve(a, b), jnp.linalg.inv(a), sign, logdet,
            jnp.linalg.det(a), jnp.linalg.cholesky(s),
            jnp.linalg.cholesky(c), jnp.linalg.eigvalsh(s),
            jnp.linalg.eigvalsh(c), jnp.linalg.svd(a, compute_uv=False),
            jnp.linalg.norm(c, "nuc", axis=(-2, -1)),
            jnp.linalg.matrix_power(a, -2), jnp.linalg.solve(c, b.astype(
                c.dtype)), jsp.linalg.solve_triangular(
                jnp.linalg.cholesky(c), b.astype(c.dtype), lower=True),
            jsp.linalg.expm(c / 4), jnp.linalg.det(c))


def _single_linalg_inputs(r):
    return [(r.standard_normal((3, 4, 4)) + 3 * np.eye(4)).astype(np.float32),
            _spd(r, 4, (3,), np.float32), _herm(r, 4, (3,)),
            r.standard_normal((3, 4, 2)).astype(np.float32)]


def einsum_int_and_mixed(a8, b8, h, f):
    return (jnp.einsum("ij,jk->ik", a8, b8, preferred_element_type=jnp.int32),
            jnp.einsum("bij,bkj->bik", a8[None], b8.T[None],
                       preferred_element_type=jnp.int16),
            jnp.einsum("ij,jk->ik", h, f.astype(h.dtype),
                       preferred_element_type=jnp.float32),
            jnp.einsum("ii->", h[:, :3].T @ h[:, :3]),
            jnp.einsum("i,i->", a8[0], a8[1]),
            jnp.einsum("...j,j", f, f[0], precision=_HI),
            jnp.matmul(a8, b8), jnp.vdot(h[0], h[1]),
            jnp.tensordot(f, f, axes=([0], [0]), precision=_HI),
            jnp.linalg.multi_dot([f, f.T, f], precision=_HI),
            jnp.kron(a8[:2, :2], b8[:2, :2]), jnp.trace(h[:, :3], offset=1))


def activation_grads_bf16(x):
    n = jax.nn
    fs = [n.relu, n.relu6, n.elu, n.celu, n.selu, n.gelu, n.silu, n.mish,
          n.softplus, n.squareplus, n.hard_tanh, n.hard_swish, n.log_sigmoid,
          n.sparse_plus, n.leaky_relu]
    return ([jax.vmap(jax.grad(f))(x) for f in fs]
            + [f(x) for f in fs]
            + [jax.grad(lambda v: jnp.sum(n.softmax(v, axis=1) * v))(
                x.reshape(2, -1))])


PROGRAMS = {
    "qr_complex_every_mode": (qr_complex_every_mode, lambda r: [
        complexes(r, (5, 3)), complexes(r, (3, 5), np.complex128)]),
    "svd_complex_full_and_values": (svd_complex_full_and_values, lambda r: [
        complexes(r, (4, 3)), complexes(r, (2, 3, 5), np.complex128)]),
    "eigh_hermitian_upper_lower": (eigh_hermitian_upper_lower, lambda r: [
        _herm(r, 4, (2,)), _spd(r, 3, (2,))]),
    "solve_broadcast_batches": (solve_broadcast_batches, lambda r: [
        _spd(r, 3, (2,)), r.standard_normal((2, 3, 2)), r.standard_normal(3),
        r.standard_normal((4, 2, 3, 1))]),
    "lstsq_rank_deficient": (lstsq_rank_deficient, _lstsq_inputs),
    "pinv_hermitian_rtol": (pinv_hermitian_rtol, _pinv_inputs),
    "matrix_power_negative_batched": (matrix_power_negative_batched,
                                      lambda r: [
        r.standard_normal((2, 3, 3)) + 2 * np.eye(3),
        ints(r, (3, 3), -1, 2)]),
    "det_slogdet_singular": (det_slogdet_singular, _det_inputs),
    "cholesky_not_positive_definite": (cholesky_not_positive_definite,
                                       _chol_inputs),
    "norms_every_ord_batched_complex": (norms_every_ord, _norm_inputs),
    "cond_rank_every_p": (cond_rank_every_p, _cond_inputs),
    "tensorsolve_tensorinv_axes": (tensorsolve_tensorinv_axes,
                                   _tensor_inputs),
    "linalg_grads": (linalg_grads, _grad_inputs),
    "fftn_s_axes_norms": (fftn_s_axes_norms, lambda r: [
        floats(r, (4, 3, 5)), complexes(r, (3, 4))]),
    "rfft2_irfft2_odd": (rfft2_irfft2_odd, lambda r: [
        floats(r, (5, 7)), floats(r, (3, 2, 5)).astype(np.float64)]),
    "hfft_ihfft_lengths": (hfft_ihfft_lengths, lambda r: [
        complexes(r, (2, 5)), floats(r, (3, 7))]),
    "fftshift_fftfreq": (fftshift_fftfreq, lambda r: [floats(r, (5, 4))]),
    "fft_grads_vmaps": (fft_grads_vmaps, lambda r: [
        floats(r, (8, 3)), complexes(r, (4,))]),
    "signal_convolve2d_every_mode": (signal_convolve2d_every_mode, lambda r: [
        floats(r, (5, 6)), floats(r, (3, 2)), complexes(r, (7,)),
        complexes(r, (4,))]),
    "fftconvolve_axes": (fftconvolve_axes, lambda r: [
        floats(r, (6, 5)), floats(r, (3, 4)), floats(r, (2, 9)),
        floats(r, (2, 4))]),
    "map_coordinates_every_mode": (map_coordinates_every_mode, _mapc_inputs),
    "special_gamma_family_f64": (special_gamma_family,
                                 lambda r: _gamma_inputs(r, np.float64)),
    "special_gamma_family_f32": (special_gamma_family,
                                 lambda r: _gamma_inputs(r, np.float32)),
    "special_misc": (special_misc, _misc_inputs),
    "logsumexp_b_and_sign": (logsumexp_b_and_sign, _lse_inputs),
    "stats_logpdf_cdf": (stats_logpdf_cdf, _stats_inputs),
    "scipy_linalg_solvers": (scipy_linalg_solvers, _scipy_linalg_inputs),
    "schur_sqrtm_funm": (schur_sqrtm_funm, lambda r: [
        r.standard_normal((3, 3)), _spd(r, 3)]),
    "image_resize_every_method": (image_resize_every_method, lambda r: [
        floats(r, (2, 4, 6, 3)), floats(r, (5, 4, 3))]),
    "scale_translate_every_method": (scale_translate_every_method, lambda r: [
        floats(r, (5, 7))]),
    "nn_every_activation": (nn_every_activation, _act_inputs),
    "softmax_where_one_hot": (softmax_where_one_hot, _softmax_inputs),
    "attention_masks_bias_causal": (attention_masks_bias_causal,
                                    _attn_inputs),
    "quantile_every_method": (quantile_every_method, _quantile_inputs),
    "histograms_explicit_bins": (histograms_explicit_bins, lambda r: [
        floats(r, (20,)), r.uniform(0, 2, 20).astype(np.float32),
        floats(r, (20,)), r.uniform(-1, 1, (20, 3)).astype(np.float32)]),
    "bincount_digitize_searchsorted": (bincount_digitize_searchsorted,
                                       _bincount_inputs),
    "interp_left_right_period": (interp_left_right_period, _interp_inputs),
    "unique_with_size": (unique_with_size, _unique_inputs),
    "lexsort_partition_take": (lexsort_partition_take, _lexsort_inputs),
    "roll_tuples_rot90_axes": (roll_rot_flip, lambda r: [floats(r, (2, 3, 4))]),
    "polynomials": (polynomials, lambda r: [
        np.linspace(-1, 1, 8), r.standard_normal(8), r.uniform(0.5, 2, 8),
        r.standard_normal(4)]),
    "convolve_correlate_1d": (convolve_correlate_1d, lambda r: [
        floats(r, (7,)), floats(r, (4,)), complexes(r, (6,)),
        complexes(r, (3,))]),
    "calculus_helpers": (calculus_helpers, _calc_inputs),
    "piecewise_select_where": (piecewise_select_where, lambda r: [
        np.array([-2, -1, -0.5, 0, 0.5, 1, 1.5, 3], np.float32),
        np.array([0, 1, 2, 3, -1, 0, 1, 5], np.int32)]),
    "einsum_every_optimize": (einsum_ellipsis_repeated, lambda r: [
        floats(r, (2, 3, 4)), floats(r, (2, 4, 2)), floats(r, (3, 3)),
        floats(r, (3, 2, 3))]),
    "index_helpers": (index_helpers, _index_inputs),
    "bit_and_float_helpers": (bit_and_float_helpers, _bits_inputs),
    "random_continuous": (random_continuous, lambda r: [
        prng_key(r), np.array([0.05, 0.5, 1.0, 3.0, 20.0])]),
    "random_discrete": (random_discrete, _discrete_inputs),
    "random_geometric": (random_geometric, _geom_inputs),
    "special_grads": (special_grads, _special_grad_inputs),
    "vmapped_sort_helpers": (vmapped_sort_helpers, lambda r: [
        floats(r, (3, 7)), np.array([0.1, 0.5, 0.95], np.float32),
        floats(r, (4,))]),
    "linalg_vmaps_jvps": (linalg_vmaps_jvps, _lvj_inputs),
    "image_nn_grads": (image_nn_grads, lambda r: [
        floats(r, (4, 6)), floats(r, (3, 4))]),
    "image_resize_half_types": (image_resize_half_types, lambda r: [
        floats(r, (4, 6), np.float16), floats(r, (5, 4)).astype(jnp.bfloat16),
        floats(r, (6, 5), np.float64)]),
    "fft_double_and_complex128": (fft_double_and_complex128, lambda r: [
        floats(r, (3, 6), np.float64), complexes(r, (4, 3), np.complex128)]),
    "special_half_types": (special_half_types, lambda r: [
        floats(r, (3, 5), np.float16), floats(r, (3, 5)).astype(jnp.bfloat16)]),
    "sort_helpers_int_and_half": (sort_helpers_int_and_half, lambda r: [
        ints(r, (4, 6), -50, 50), ints(r, (12,), 0, 8, np.uint8),
        floats(r, (3, 6), np.float16)]),
    "linalg_single_precision": (linalg_single_precision,
                                _single_linalg_inputs),
    "einsum_int_and_mixed": (einsum_int_and_mixed, lambda r: [
        ints(r, (3, 4), -128, 128, np.int8), ints(r, (4, 3), -128, 128,
                                                  np.int8),
        floats(r, (4, 4), np.float16), floats(r, (4, 4))]),
    "activation_grads_bf16": (activation_grads_bf16, lambda r: [
        np.concatenate([[0.0, -0.0, 1.0, -1.0, 6.0, -3.0], floats(
            r, (6,)) * 3]).astype(jnp.bfloat16)]),
}
