#!/usr/bin/env python3
"""Linear-algebra cases lowered by JAX for the GPU, run with XLA:GPU.

Runs on the GPU machine (JAX with its CUDA plugin). Each case is a
jnp.linalg / jax.scipy.linalg function whose CUDA lowering calls jaxlib's
cuSOLVER kernels (cusolver_potrf_ffi, cusolver_getrf_ffi,
cu_lu_pivots_to_permutation, cusolver_geqrf_ffi, cusolver_orgqr_ffi,
cusolver_syevd_ffi, cusolver_gesvdj_ffi, cusolver_gesvd_ffi) or its
host-LAPACK kernels (cuhybrid_eig_real, cuhybrid_eig_comp,
cuhybrid_geqp3). It writes,
as jax_gpu_export.py does,

  DIR/linalg_NAME/module.pb    the HloModuleProto JAX hands XLA:GPU
  DIR/linalg_NAME/in<i>.npy    the inputs
  DIR/linalg_NAME/out<i>.npy   XLA:GPU's outputs

Where a factorisation is not unique (eigenvectors and singular vectors up
to sign or phase) the case returns what is: the values, the product that
rebuilds the input and the vectors' absolute values.

With --lower-only (on a machine without a GPU) it lowers the same cases
for CUDA (lowering_platforms) and writes module.pb, the inputs and a
`flags` file of hlo-run tolerances, but no outputs: scripts/
gpu_linalg_check.sh compiles those here and has this script write XLA:GPU's
outputs beside them on the GPU machine (the inputs are the same: one seed).

usage: jax_linalg_gpu_export.py DIR [--seed N] [--lower-only]
"""

import argparse
import os
import sys

import numpy as np
import jax

LOWER_ONLY = "--lower-only" in sys.argv
jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu" if LOWER_ONLY else "cuda")
import jax.numpy as jnp  # noqa: E402
import jax.scipy.linalg as jsl  # noqa: E402


def general(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def spd(rng, shape, dtype):
    x = general(rng, shape, dtype)
    n = shape[-1]
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)).astype(dtype)


def hermitian(rng, shape, dtype):
    x = general(rng, shape, dtype)
    return ((x + np.conj(np.swapaxes(x, -1, -2))) / 2).astype(dtype)


def mT(x):
    return jnp.conj(jnp.swapaxes(x, -1, -2))


def rebuild(a, b):
    # Full precision: XLA:GPU's default c64 product is not (H200,
    # 2026-11-26: errors of 1e-3 where the factors were right to 1e-7).
    return jnp.matmul(a, b, precision=jax.lax.Precision.HIGHEST)


def eigh_invariants(a):
    w, v = jnp.linalg.eigh(a)
    return w, rebuild(v * w[..., None, :], mT(v)), jnp.abs(v)


def svd_invariants(full):
    def f(a):
        u, s, vt = jnp.linalg.svd(a, full_matrices=full)
        k = s.shape[-1]
        u, vt = u[..., :, :k], vt[..., :k, :]
        return s, rebuild(u * s[..., None, :], vt), jnp.abs(u), jnp.abs(vt)
    return f


def svd_values(a):
    return jnp.linalg.svd(a, compute_uv=False)


def eig_invariants(a):
    # LAPACK's geev on both sides (jaxlib's host kernel, hloc's host step):
    # its eigenvalue order and eigenvector scaling are the same, but the
    # check asks only what any geev fixes: the sorted eigenvalues and
    # V diag(w) V^-1, which rebuilds the matrix.
    w, v = jnp.linalg.eig(a)
    return (jnp.sort(w),
            rebuild(v * w[..., None, :], jnp.linalg.inv(v)))


def lu_all(a):
    lu, pivots, perm = jax.lax.linalg.lu(a)
    return lu, pivots, perm


CASES = {
    "cholesky_f32_batch": (jnp.linalg.cholesky, [(spd, (3, 8, 8), np.float32)]),
    "cholesky_f64": (jnp.linalg.cholesky, [(spd, (16, 16), np.float64)]),
    "cholesky_upper_f32": (lambda a: jsl.cholesky(a, lower=False),
                           [(spd, (6, 6), np.float32)]),
    "cholesky_c64": (jnp.linalg.cholesky, [(spd, (5, 5), np.complex64)]),
    "lu_f32_batch": (lu_all, [(general, (2, 6, 6), np.float32)]),
    "lu_f64_wide": (lu_all, [(general, (4, 7), np.float64)]),
    "lu_f32_tall": (lu_all, [(general, (7, 4), np.float32)]),
    "solve_f32": (jnp.linalg.solve, [(general, (8, 8), np.float32),
                                     (general, (8, 3), np.float32)]),
    "inv_f64": (jnp.linalg.inv, [(general, (6, 6), np.float64)]),
    "slogdet_f64": (lambda a: jnp.linalg.slogdet(a),
                    [(general, (2, 5, 5), np.float64)]),
    "qr_f32_batch": (jnp.linalg.qr, [(general, (2, 6, 4), np.float32)]),
    "qr_f64_complete": (lambda a: jnp.linalg.qr(a, mode="complete"),
                        [(general, (5, 3), np.float64)]),
    "qr_c128": (jnp.linalg.qr, [(general, (4, 4), np.complex128)]),
    "eigh_f32": (eigh_invariants, [(hermitian, (8, 8), np.float32)]),
    "eigh_f64_batch": (eigh_invariants, [(hermitian, (2, 6, 6), np.float64)]),
    "eigh_c64": (eigh_invariants, [(hermitian, (5, 5), np.complex64)]),
    "svd_f32_econ": (svd_invariants(False), [(general, (6, 4), np.float32)]),
    "svd_f64_full_batch": (svd_invariants(True),
                           [(general, (2, 5, 7), np.float64)]),
    "svd_f32_econ_large": (svd_invariants(False),
                           [(general, (48, 40), np.float32)]),
    "svd_values_f64": (svd_values, [(general, (9, 6), np.float64)]),
    "svd_c64": (svd_invariants(False), [(general, (5, 4), np.complex64)]),
    # Past 1024 rows or columns JAX calls gesvd (cusolver_gesvd_ffi; for
    # m < n on the transpose), which the cuda pipeline turns into its
    # gesvdj call (passes/gesvd_to_gesvdj.h): tall, wide (transposed),
    # complex, full matrices, values only.
    "svd_gesvd_tall_f32": (svd_invariants(False),
                           [(general, (1100, 24), np.float32)]),
    "svd_gesvd_wide_full_f32": (svd_invariants(True),
                                [(general, (12, 1030), np.float32)]),
    "svd_gesvd_wide_c64": (svd_invariants(False),
                           [(general, (2, 10, 1040), np.complex64)]),
    "svd_gesvd_values_f64": (svd_values, [(general, (1030, 16), np.float64)]),
    # jnp.linalg.eig runs on the host in jaxlib (cuhybrid_eig_*) and in
    # hloc (a lapack.geev step between copies).
    "eig_f64": (jnp.linalg.eig, [(general, (6, 6), np.float64)]),
    "eig_f32_batch": (eig_invariants, [(general, (3, 5, 5), np.float32)]),
    "eigvals_c64": (lambda a: jnp.sort(jnp.linalg.eigvals(a)),
                    [(general, (4, 4), np.complex64)]),
    "eig_left_c128": (lambda a: jax.lax.linalg.eig(
        a, compute_left_eigenvectors=True, compute_right_eigenvectors=False),
                      [(general, (5, 5), np.complex128)]),
    # QR with column pivoting (cuhybrid_geqp3, then cuSOLVER's orgqr).
    "qr_pivoting_f64": (lambda a: jsl.qr(a, pivoting=True),
                        [(general, (6, 4), np.float64)]),
    "qr_pivoting_c64_economic": (
        lambda a: jsl.qr(a, pivoting=True, mode="economic"),
        [(general, (5, 7), np.complex64)]),
}


# hlo-run's tolerances where its defaults do not fit. The eigenvectors and
# singular vectors of two solvers differ by more than one rounding, and the
# f32 products that rebuilt a matrix were TF32 before `rebuild` asked for
# full precision: those keep --expect-tf32's wider bound; the f32
# factorisations without a product run the default elementwise
# bound, which two cuSOLVER builds' roundings can exceed, so they get the
# accumulating one.
FLAGS = {name: "--expect-tf32\n" for name in CASES
         if name.startswith(("eig", "svd"))}
for name in CASES:
    if name not in FLAGS and ("f32" in name or "c64" in name):
        FLAGS[name] = "--rtol=1e-4\n--atol=1e-5\n"


def singular_vector_atol(a):
    """An absolute tolerance for singular vectors that two algorithms
    computed: XLA:GPU's gesvd (QR-based) past 1024 rows or columns, hloc's
    gesvdj (Jacobi, gesvd-to-gesvdj) in its place. A singular vector is
    determined to about eps * sigma_max / (its gap to the nearest other
    singular value), so two correct f32 results differ by that much (the H100,
    session 32: up to 1.2e-4 in svd_gesvd_tall_f32's 24x24 V, whose
    smallest gap is 0.015 of 37.6, bound 2.9e-4); four times the largest
    such bound over the batch."""
    a = np.asarray(a)
    wide = np.complex128 if np.iscomplexobj(a) else np.float64
    s = np.linalg.svd(a.astype(wide), compute_uv=False)
    eps = np.finfo(np.float32).eps
    return 4 * max(eps * row.max() / np.diff(np.sort(row)).min()
                   for row in s.reshape(-1, s.shape[-1]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--seed", type=int, default=20261126)
    parser.add_argument("--lower-only", action="store_true")
    args = parser.parse_args()
    device = jax.devices()[0]
    print(f"lowering for {'cuda' if args.lower_only else device.device_kind}"
          f" with jax {jax.__version__}")
    count = 0
    for name, (fn, specs) in CASES.items():
        rng = np.random.default_rng([args.seed, sum(map(ord, name))])
        inputs = [make(rng, shape, dtype) for make, shape, dtype in specs]
        case_dir = os.path.join(args.dir, f"linalg_{name}")
        try:
            if args.lower_only:
                lowered = jax.jit(fn).trace(*inputs).lower(
                    lowering_platforms=("cuda",))
                expected = []
            else:
                lowered = jax.jit(fn).lower(*inputs)
                expected = jax.tree_util.tree_leaves(jax.jit(fn)(*inputs))
        except Exception as e:  # Reported; the case is left out.
            print(f"{name}: cannot lower or run on the GPU: "
                  f"{type(e).__name__}: {e}")
            continue
        os.makedirs(case_dir, exist_ok=True)
        with open(os.path.join(case_dir, "module.pb"), "wb") as f:
            f.write(lowered.compiler_ir("hlo")
                    .as_serialized_hlo_module_proto())
        with open(os.path.join(case_dir, "module.hlo"), "w") as f:
            f.write(lowered.as_text(dialect="hlo"))
        for i, x in enumerate(inputs):
            np.save(os.path.join(case_dir, f"in{i}.npy"), np.asarray(x))
        for i, y in enumerate(expected):
            np.save(os.path.join(case_dir, f"out{i}.npy"), np.asarray(y))
        flags = FLAGS.get(name, "")
        if name.startswith("svd_gesvd") and "f64" not in name:
            flags += f"--atol={singular_vector_atol(inputs[0]):.3g}\n"
        with open(os.path.join(case_dir, "flags"), "w") as f:
            f.write(flags)
        targets = sorted({line.split('custom_call_target="')[1].split('"')[0]
                          for line in lowered.as_text(dialect="hlo")
                          .splitlines() if "custom_call_target" in line})
        print(f"{name}: {', '.join(targets)}")
        count += 1
    print(f"{count} cases lowered{'' if args.lower_only else ' and run with XLA:GPU'}"
          f" into {args.dir}")
    return 0 if count else 1


if __name__ == "__main__":
    sys.exit(main())
