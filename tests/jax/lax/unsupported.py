"""lax primitives hloc does not run, and how each fails.

UNSUPPORTED: (primitive, target) -> a piece of the message the failing run
must print. The coverage test checks each still fails exactly so (a pass,
or another failure, is an error). WHY: the reason, for LAX_COVERAGE.md.
"""

# jaxlib's LAPACK custom calls that the cpu backend runs through LAPACK
# (runtime/lapack_library.h) but the evaluator refuses: it has no LAPACK, and
# these results are unique only up to signs and order (eig, schur). (svd_p's
# case asks for singular values only, which the evaluator computes; eig_p's
# for eigenvalues only, which come in an order that is LAPACK's own.)
_LAPACK = {
    "eig_p": ("lapack_sgeev_ffi",
              "eigenvalues, in an order that is LAPACK's own"),
    "schur_p": ("lapack_sgees_ffi", "Schur vectors"),
}

UNSUPPORTED = {}
WHY = {}
for _name, (_target, _why) in _LAPACK.items():
    UNSUPPORTED[(_name, "evaluator")] = f"to '{_target}' ({_why})"
    WHY[_name] = (f"LAPACK custom call {_target}: the cpu backend calls "
                  "LAPACK; the evaluator has no implementation")

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
