"""Zoo: linear algebra vmapped over many small matrices (session 36).

JAX hands XLA one solver custom call for a whole batch. cuSOLVER's
per-matrix routines spend microseconds of launches and host round trips on
each matrix, so a vmapped solve, eigh or SVD of hundreds of 3x3 to 16x16
matrices ran hundreds of calls; the GPU runtime now runs the batched
routines where jaxlib does, and a few places more (runtime/solver_method.h):
cuBLAS getrfBatched and geqrfBatched, cuSOLVER potrfBatched, syevjBatched
and gesvdjBatched. One program (triangular_solves_mid) is the other end:
single solves of a few hundred rows, cuBLAS's trsm on the GPU.

Outputs are what the factorisations determine: solutions, inverses,
determinants, Cholesky factors (unique), eigen- and singular values,
reconstructions and the absolute values of vectors (whose signs and
phases each algorithm picks its own way); LU factors are compared where
pivoting has no ties (random matrices).
"""

import jax
import jax.numpy as jnp
import jax.scipy as jsp

from jax_harness import complexes, floats


def _spd(s):
    n = s.shape[-1]
    return s @ jnp.swapaxes(s, -1, -2) + n * jnp.eye(n, dtype=s.dtype)


def batched_lu_solve_det(a, b, a64):
    # 256 systems of 8 (f32) and 96 of 5 (f64): LU, solve, inverse,
    # log-determinants, and determinants of a batch in which every seventh
    # matrix is singular (an exactly zero column: info > 0, det 0).
    singular = a.at[::7, :, 0].set(0.0)
    sign, logdet = jnp.linalg.slogdet(a)
    lu, piv = jsp.linalg.lu_factor(a64)
    return (jnp.linalg.solve(a, b), jnp.linalg.inv(a), sign, logdet,
            jnp.linalg.det(singular), lu, piv, jnp.linalg.inv(a64),
            jnp.linalg.det(a64))


def batched_cholesky_gp(s, y, s64):
    # 128 Gaussian-process kernels of 16 points (f32) and 200 of 6 (f64):
    # Cholesky factors, solves through them, log-likelihoods and their
    # gradient with respect to the observations.
    k = _spd(s)

    def loglik(y_):
        chol = jnp.linalg.cholesky(k)
        alpha = jsp.linalg.cho_solve((chol, True), y_[..., None])[..., 0]
        return (-0.5 * jnp.sum(y_ * alpha, axis=-1)
                - jnp.sum(jnp.log(jnp.diagonal(chol, axis1=-2, axis2=-1)),
                          axis=-1))

    k64 = _spd(s64)
    return (jnp.linalg.cholesky(k), loglik(y),
            jax.grad(lambda y_: jnp.sum(loglik(y_)))(y),
            jnp.linalg.cholesky(k64), jnp.linalg.cholesky(k64, upper=True),
            jsp.linalg.cho_solve((jnp.linalg.cholesky(k64), True),
                                 s64[..., :1]))


def batched_eigh_small(s3, s16, h4):
    # 1000 symmetric 3x3 in f64 (stress tensors), 64 of 16x16 in f32 and
    # 128 Hermitian 4x4 in c64: eigenvalues, V diag(w) V^H and |V| (not for
    # the 16x16, whose close eigenvalues leave f32 vectors loose).
    def parts(m):
        w, v = jnp.linalg.eigh(m)
        recon = (v * w[..., None, :].astype(v.dtype)) @ jnp.conj(
            jnp.swapaxes(v, -1, -2))
        return w, recon, jnp.abs(v)

    h = h4 + jnp.conj(jnp.swapaxes(h4, -1, -2))
    return (*parts(s3 + jnp.swapaxes(s3, -1, -2)), *parts(_spd(s16))[:2],
            *parts(h), jnp.linalg.eigvalsh(s3 + jnp.swapaxes(s3, -1, -2)))


def batched_svd_small(a, c, one):
    # 512 singular-value sets of 6x4 (f32) and 64 of 5x5 (c64); 64 full and
    # 64 thin SVDs, and the thin SVD of a single 7x5 matrix, compared by
    # U S V^T and the absolute values of the vectors that are determined
    # (U's first four columns); matrix ranks, nuclear and spectral norms.
    def parts(m, full):
        u, s, vt = jnp.linalg.svd(m, full_matrices=full)
        k = s.shape[-1]
        recon = (u[..., :, :k] * s[..., None, :]) @ vt
        return s, recon, jnp.abs(u[..., :, :k]), jnp.abs(vt)

    return (jnp.linalg.svd(a, compute_uv=False), *parts(a[:64], True),
            *parts(a[64:128], False), *parts(one, False),
            jnp.linalg.svd(c, compute_uv=False),
            jnp.linalg.matrix_rank(a.at[::3, :, 0].set(0.0)),
            jnp.linalg.norm(a, "nuc", axis=(-2, -1)),
            jnp.linalg.norm(a, 2, axis=(-2, -1)))


def batched_qr_least_squares(a, b, c):
    # 256 QRs of 8x5 (f32) and 64 complete QRs of 6x6 (c64): Q R, |Q| and
    # |R| (Householder signs are each implementation's choice), and least
    # squares through the thin factors.
    q, r = jnp.linalg.qr(a)
    x = jsp.linalg.solve_triangular(
        r, jnp.swapaxes(q, -1, -2) @ b, lower=False)
    qc, rc = jnp.linalg.qr(c, mode="complete")
    return q @ r, jnp.abs(q), jnp.abs(r), x, qc @ rc, jnp.abs(rc)


def triangular_solves_mid(l, b, w, a, c):
    # The other end of the sizes: single triangles of 256 rows and a 320 x
    # 320 solve, whose triangular solves the cuda pipeline leaves for
    # cuBLAS's trsm (session 37) instead of inverting the triangle: both
    # sides, transposed and unit-diagonal forms, LU and Cholesky solves.
    n = l.shape[0]
    t = jnp.tril(l) / n + jnp.diag(2.0 + jnp.abs(jnp.diag(l)))
    x1 = jsp.linalg.solve_triangular(t, b, lower=True)
    x2 = jsp.linalg.solve_triangular(t, b, lower=True, trans=1)
    x3 = jsp.linalg.solve_triangular(t.T, b, lower=False, unit_diagonal=True)
    x4 = jax.lax.linalg.triangular_solve(t, w, left_side=False, lower=True,
                                         transpose_a=True)
    m = a.shape[0]
    g = a / jnp.sqrt(m) + 2.0 * jnp.eye(m, dtype=a.dtype)
    spd = g @ g.T
    return (x1, x2, x3, x4, jnp.linalg.solve(g, c),
            jsp.linalg.cho_solve(jsp.linalg.cho_factor(spd, lower=True), c))


PROGRAMS = {
    "batched_lu_solve_det": (batched_lu_solve_det, lambda r: [
        floats(r, (256, 8, 8)), floats(r, (256, 8, 2)),
        floats(r, (96, 5, 5), dtype="float64")]),
    "batched_cholesky_gp": (batched_cholesky_gp, lambda r: [
        floats(r, (128, 16, 16)) * 0.3, floats(r, (128, 16)),
        floats(r, (200, 6, 6), dtype="float64")]),
    "batched_eigh_small": (batched_eigh_small, lambda r: [
        floats(r, (1000, 3, 3), dtype="float64"), floats(r, (64, 16, 16)),
        complexes(r, (128, 4, 4))]),
    "batched_qr_least_squares": (batched_qr_least_squares, lambda r: [
        floats(r, (256, 8, 5)), floats(r, (256, 8, 2)),
        complexes(r, (64, 6, 6))]),
    "batched_svd_small": (batched_svd_small, lambda r: [
        floats(r, (512, 6, 4)), complexes(r, (64, 5, 5)),
        floats(r, (7, 5))]),
    "triangular_solves_mid": (triangular_solves_mid, lambda r: [
        floats(r, (256, 256)), floats(r, (256, 32)), floats(r, (16, 256)),
        floats(r, (320, 320)), floats(r, (320, 8))]),
}
