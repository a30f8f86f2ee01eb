"""jax_live_test.py's cases for fft and linear algebra (issue 16).

jnp.fft lowers to the HLO fft op; jnp.linalg and jax.scipy.linalg lower to
the LAPACK custom calls of jaxlib (lapack_*_ffi). Matrices are made well
conditioned (symmetric positive definite for cholesky, diagonally dominant
for solve), so XLA:CPU's LAPACK, hloc's and the evaluator's unblocked
algorithms agree within hlo-run's default tolerances.
"""

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np


def _floats(rng, shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def _complex(rng, shape, dtype=np.complex64):
    return (rng.standard_normal(shape)
            + 1j * rng.standard_normal(shape)).astype(dtype)


def _size(rng, lo, hi):
    return int(rng.integers(lo, hi + 1))


def _spd(rng, batch, n, dtype):
    x = rng.standard_normal(batch + (n, n))
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(batch + (n, n))
    a = x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)
    return a.astype(dtype)


def _dominant(rng, batch, n, dtype=np.float32):
    return (rng.standard_normal(batch + (n, n))
            + 2 * n * np.eye(n)).astype(dtype)


CASES = {
    "fft_ifft_c64": (
        lambda x: (jnp.fft.fft(x), jnp.fft.ifft(x), jnp.fft.fft(x, axis=0)),
        lambda r: [_complex(r, (_size(r, 1, 5), _size(r, 1, 40)))]),
    "fft2_fftn": (
        lambda x: (jnp.fft.fft2(x), jnp.fft.ifftn(x)),
        lambda r: [_complex(r, (2, _size(r, 1, 9), _size(r, 1, 12), 5))]),
    "rfft_irfft": (
        lambda x, y: (jnp.fft.rfft(x), jnp.fft.irfft(y),
                      jnp.fft.irfft(y, n=2 * y.shape[-1] - 1)),
        lambda r: [_floats(r, (3, _size(r, 1, 33))),
                   _complex(r, (2, _size(r, 1, 17)))]),
    "rfft2_irfft2": (
        lambda x: (jnp.fft.rfft2(x), jnp.fft.irfft2(jnp.fft.rfft2(x),
                                                    s=x.shape[-2:])),
        lambda r: [_floats(r, (2, _size(r, 1, 8), _size(r, 2, 10)))]),
    "fft_c128": (
        lambda x, y: (jnp.fft.fft(x), jnp.fft.rfft(y), jnp.fft.irfft(x)),
        lambda r: [_complex(r, (3, _size(r, 1, 20)), np.complex128),
                   _floats(r, (_size(r, 1, 20),), np.float64)]),
    "cholesky": (
        lambda a, b: (jnp.linalg.cholesky(a), jnp.linalg.cholesky(b)),
        lambda r: [_spd(r, (2,), _size(r, 1, 12), np.float32),
                   _spd(r, (), _size(r, 1, 12), np.float64)]),
    "cholesky_complex_upper": (
        lambda a: jnp.linalg.cholesky(a, upper=True),
        lambda r: [_spd(r, (), _size(r, 1, 9), np.complex64)]),
    "solve": (
        lambda a, b: jnp.linalg.solve(a, b),
        lambda r: (lambda n: [_dominant(r, (), n), _floats(r, (n, 3))])(
            _size(r, 1, 12))),
    "solve_batched_f64": (
        lambda a, b: jnp.linalg.solve(a, b),
        lambda r: (lambda n: [_dominant(r, (2,), n, np.float64),
                              _floats(r, (2, n, 2), np.float64)])(
                                  _size(r, 1, 10))),
    "solve_triangular": (
        lambda a, b: (jsl.solve_triangular(a, b, lower=True),
                      jsl.solve_triangular(a, b, lower=False, trans=1),
                      jsl.solve_triangular(a, b, lower=True,
                                           unit_diagonal=True)),
        lambda r: (lambda n: [_dominant(r, (), n), _floats(r, (n, 4))])(
            _size(r, 1, 12))),
    "qr": (
        lambda a: jnp.linalg.qr(a),
        lambda r: [_floats(r, (_size(r, 3, 9), _size(r, 1, 3)))]),
}
