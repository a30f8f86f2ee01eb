"""lax primitives hloc does not run, and how each fails.

UNSUPPORTED: (primitive, target) -> a piece of the message the failing run
must print. The coverage test checks each still fails exactly so (a pass,
or another failure, is an error). WHY: the reason, for LAX_COVERAGE.md.
"""

# jaxlib's LAPACK custom calls that neither the evaluator nor the cpu
# backend (runtime/cpu custom calls) implements: hloc has potrf, getrf,
# geqrf/orgqr, trsm and syevd, not these.
_LAPACK = {
    "eig_p": "lapack_sgeev_ffi",
    "hessenberg_p": "lapack_sgehrd_ffi",
    "ormqr_p": "lapack_sormqr_ffi",
    "schur_p": "lapack_sgees_ffi",
    "svd_p": "lapack_sgesdd_ffi",
    "tridiagonal_p": "lapack_ssytrd_ffi",
    "tridiagonal_solve_p": "lapack_sgtsv_ffi",
}

UNSUPPORTED = {}
WHY = {}
for _name, _target in _LAPACK.items():
    UNSUPPORTED[(_name, "evaluator")] = f"to '{_target}'"
    UNSUPPORTED[(_name, "cpu")] = (f'custom_call_target="{_target}" has no '
                                   "cpu implementation")
    WHY[_name] = (f"LAPACK custom call {_target}: no evaluator or cpu "
                  "implementation")

# The evaluator's syevd gives eigenvalues only; the cpu runs LAPACK's.
UNSUPPORTED[("eigh_p", "evaluator")] = "to 'lapack_ssyevd_ffi' (eigenvectors)"
WHY["eigh_p"] = ("the evaluator computes syevd's eigenvalues, not its "
                 "eigenvectors (the cpu backend calls LAPACK)")

# XLA's rng op draws from the runtime's own generator state, so no other
# implementation can reproduce its values; JAX uses it only for
# lax.rng_uniform (jax.random lowers to threefry or rng-bit-generator).
for _target in ("evaluator", "cpu"):
    UNSUPPORTED[("rng_uniform_p", _target)] = (
        "not supported by the evaluator: rng (")
WHY["rng_uniform_p"] = ("the rng op's values come from XLA's runtime state "
                        "and cannot be matched; neither the evaluator nor "
                        "the cpu backend implements it")
