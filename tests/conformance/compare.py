"""How a target's output is compared with the evaluator's, per rule (the
`tol` of a case in cases.py). README.md in this folder gives the bounds and
the reasons for them.

Every rule: NaN matches NaN (XLA defines neither the sign nor the payload
of a NaN result), an infinity matches only the same infinity, and integer,
pred and bit-exact float results compare bit for bit (so -0.0 differs from
+0.0)."""
import ml_dtypes
import numpy as np

# Allowed error in units in the last place of the result type, for
# functions that are not exactly rounded (their implementations differ:
# the evaluator calls libm, the backends inline polynomial approximations).
# f16/bf16 are computed in f32 and rounded once, so one rounding step of
# the narrow type covers any f32 error below half its ulp.
ULPS = {"f16": 1, "bf16": 1, "f32": 4, "f64": 4}
# "trig": the periodic functions and atan2 also pass within this many
# ulps of 1.0 (absolute): near their zeros the result is the difference
# of two close numbers and its relative error is meaningless.
TRIG_ABS_ULPS_OF_ONE = 4

# Inexact rules also accept any error up to the smallest normal number of
# f32/f64 (and bf16, which shares f32's exponent range): the backends'
# approximations scale by powers of two and flush results that fall into
# the denormal range (math_library.h: exp "results below FLT_MIN ... are
# flushed to +0"); f16 denormals are normal f32 values, computed exactly.
DENORMAL_FLOOR = {"f16": 0.0, "bf16": float(ml_dtypes.finfo(ml_dtypes.bfloat16).smallest_normal),
                  "f32": float(np.finfo(np.float32).smallest_normal),
                  "f64": float(np.finfo(np.float64).smallest_normal)}

UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _float_parts(x):
    if np.iscomplexobj(x):
        return [x.real, x.imag]
    return [x]


def _bits_equal(a, e):
    w = a.dtype.itemsize
    if a.dtype.kind in "biu" or a.dtype == np.bool_:
        return a == e
    same = a.view(UINT[w]) == e.view(UINT[w])
    return same | (np.isnan(a.astype(np.float64)) & np.isnan(e.astype(np.float64)))


def _spacing(e, dtype):
    """The ulp of each expected value in `dtype` (a denormal's ulp at the
    bottom), as float64."""
    fi = ml_dtypes.finfo(dtype)
    m = np.abs(e.astype(np.float64))
    m = np.maximum(m, float(fi.smallest_normal))
    exponent = np.floor(np.log2(m))
    return 2.0 ** (exponent - fi.nmant)


def _short_name(dtype):
    return {"float16": "f16", "bfloat16": "bf16", "float32": "f32",
            "float64": "f64", "complex64": "c64",
            "complex128": "c128"}[np.dtype(dtype).name]


def _complex_within(actual, expected, rule, bound):
    """Complex results of inexact rules, normwise: |a - e| within the
    bound relative to |e| (a componentwise bound would fail a correct
    result whose small part is the difference of large terms)."""
    a, e = actual.astype(np.complex128), expected.astype(np.complex128)
    part = "f32" if expected.dtype == np.complex64 else "f64"
    eps = float(ml_dtypes.finfo(np.float32 if part == "f32" else np.float64).eps)
    finite = np.isfinite(a) & np.isfinite(e)
    same = ((np.isnan(a.real) | np.isnan(a.imag)) & (np.isnan(e.real) | np.isnan(e.imag))) | (a == e)
    err = np.zeros(a.shape)
    np.abs(np.subtract(a, e, where=finite, out=np.zeros_like(a)), out=err)
    limit = ULPS[part] * eps * np.abs(np.where(finite, e, 0))
    limit += DENORMAL_FLOOR[part]
    if rule == "trig":
        limit = np.maximum(limit, TRIG_ABS_ULPS_OF_ONE * eps)
    if rule == "accumulate" and bound is not None:
        limit = limit + np.abs(bound).astype(np.float64)
    if rule == "power" and bound is not None:
        # z^w = exp(w log z): w log z is rounded before it is
        # exponentiated, so any implementation's relative error is about
        # |w log z| eps (XLA:CPU's too). `bound` holds |w log z|.
        limit = limit + ULPS[part] * eps * np.abs(np.where(finite, e, 0)) * bound
    return same | (finite & (err <= limit))


def within(actual, expected, rule, bound=None):
    """Boolean mask of elements that pass `rule`."""
    if actual.shape != expected.shape:
        return np.zeros(expected.shape, dtype=bool)
    if expected.dtype.kind in "biu" or expected.dtype == np.bool_:
        return actual == expected
    if np.iscomplexobj(expected) and rule not in ("exact", "sqrt"):
        return _complex_within(actual, expected, rule, bound)
    ok = np.ones(expected.shape, dtype=bool)
    for a, e in zip(_float_parts(actual), _float_parts(expected)):
        if rule in ("exact", "sqrt"):
            ok &= _bits_equal(a, e)
            continue
        a64, e64 = a.astype(np.float64), e.astype(np.float64)
        both_nan = np.isnan(a64) & np.isnan(e64)
        same = (a64 == e64) | both_nan
        finite = np.isfinite(a64) & np.isfinite(e64)
        err = np.zeros_like(a64)
        np.subtract(a64, e64, where=finite, out=err)
        err = np.abs(err)
        short = _short_name(e.dtype)
        limit = ULPS[short] * _spacing(e, e.dtype) + DENORMAL_FLOOR[short]
        if rule == "trig":
            limit = np.maximum(limit, TRIG_ABS_ULPS_OF_ONE *
                               float(ml_dtypes.finfo(e.dtype).eps))
        if rule == "accumulate" and bound is not None:
            b = bound if not np.iscomplexobj(bound) else np.abs(bound)
            limit = limit + b.astype(np.float64)
        ok &= same | (finite & (err <= limit))
    return ok


def describe(actual, expected, mask, limit=3):
    """A few mismatching elements as text."""
    bad = np.argwhere(~mask)[:limit]
    parts = []
    for index in bad:
        i = tuple(index)
        parts.append(f"at {list(i)}: got {actual[i]!r}, want {expected[i]!r}")
    return "; ".join(parts)
