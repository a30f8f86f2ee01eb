"""Input values for the conformance cases: every element type's edge cases
(NaN, +-Inf, -0.0, denormals, the extremes, INT_MIN/INT_MAX, shift amounts
around the bit width) followed by seeded random values, so each case is the
same on every run and every machine."""
import ml_dtypes
import numpy as np

# The element types the evaluator computes with (hlo/primitive_type.h,
# IsSupportedElementType), as NumPy dtypes.
DTYPES = {
    "pred": np.dtype(np.bool_),
    "s8": np.dtype(np.int8),
    "s16": np.dtype(np.int16),
    "s32": np.dtype(np.int32),
    "s64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "c64": np.dtype(np.complex64),
    "c128": np.dtype(np.complex128),
}
INTS = ["s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"]
FLOATS = ["f16", "bf16", "f32", "f64"]
COMPLEX = ["c64", "c128"]
ALL = ["pred"] + INTS + FLOATS + COMPLEX


def finfo(t):
    return ml_dtypes.finfo(DTYPES[t])


def float_specials(t):
    """Edge values of float type t (in its own precision)."""
    fi = finfo(t)
    tiny = float(fi.smallest_normal)
    sub = float(fi.smallest_subnormal)
    big = float(fi.max)
    v = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0,
         -2.5, 3.0, np.pi, -np.e, tiny, -tiny, sub, -sub, sub * 3, tiny / 2,
         big, -big, big / 3, 1e-3, -7.25, 10.5, 100.0, -100.0, 0.99, 1.01,
         20.0, -20.0, 89.0, -89.0, 710.0, 1e4, -1e4, 65504.0, 1e30, 2.0**24 + 1]
    with np.errstate(over="ignore"):
        # Values past the type's range become infinities, on purpose.
        return np.array(v, dtype=np.float64).astype(DTYPES[t])


def int_specials(t):
    info = np.iinfo(DTYPES[t])
    bits = info.bits
    v = [0, 1, -1, 2, -2, 3, -7, info.min, info.max, info.min + 1,
         info.max - 1, bits - 1, bits, bits + 1, 2 * bits, 5, 100, -100]
    out = []
    for x in v:
        if info.min <= x <= info.max:
            out.append(x)
    return np.array(out, dtype=DTYPES[t])


def make_complex(re, im, t):
    # Parts set one by one: re + 1j * im would turn 0 * inf into NaN.
    out = np.empty(len(re), dtype=DTYPES[t])
    out.real = re
    out.imag = im
    return out


def specials(t):
    if t == "pred":
        return np.array([False, True], dtype=np.bool_)
    if t in INTS:
        return int_specials(t)
    if t in FLOATS:
        return float_specials(t)
    part = float_specials("f32" if t == "c64" else "f64")
    # Pairs of specials as real and imaginary parts (a diagonal band plus
    # the plain reals and imaginaries), not the full square.
    n = len(part)
    re = np.concatenate([part, part, np.zeros(n), np.roll(part, 3)])
    im = np.concatenate([np.zeros(n), part, part, part])
    return make_complex(re, im, t)


def random_values(t, n, rng):
    dt = DTYPES[t]
    if t == "pred":
        return rng.integers(0, 2, n).astype(dt)
    if t in INTS:
        info = np.iinfo(dt)
        wide = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        small = rng.integers(max(info.min, -20), 21, n).astype(dt)
        return np.where(rng.integers(0, 2, n) == 0, wide, small)
    if t in COMPLEX:
        r = "f32" if t == "c64" else "f64"
        return make_complex(random_values(r, n, rng),
                            random_values(r, n, rng), t)
    fi = finfo(t)
    # Half uniform in [-4, 4) (the domain of most functions), half spread
    # over the type's exponent range with random signs.
    uniform = rng.uniform(-4, 4, n)
    max_exp = min(float(np.log2(float(fi.max))), 300.0)
    min_exp = max(float(np.log2(float(fi.smallest_normal))), -300.0)
    mag = 2.0 ** rng.uniform(min_exp, max_exp - 1, n)
    spread = np.where(rng.integers(0, 2, n) == 0, mag, -mag)
    return np.where(rng.integers(0, 2, n) == 0, uniform, spread).astype(dt)


def fill(t, shape, rng, offset=0):
    """An array of `shape`: the specials first (rotated by `offset` so that
    operands of one case meet different specials), then random values."""
    n = int(np.prod(shape)) if len(shape) else 1
    sp = np.roll(specials(t), offset)
    rnd = random_values(t, max(n - len(sp), 0), rng)
    flat = np.concatenate([sp, rnd])[:n] if n > 0 else sp[:0]
    if n > 0 and n < len(sp):
        # Small arrays draw their specials from the whole list.
        flat = sp[rng.permutation(len(sp))[:n]]
    return flat.astype(DTYPES[t]).reshape(shape)


def cross(t):
    """Two equal-length 1-D arrays holding every pair of specials (complex:
    the specials against eight rotations of themselves; the full square
    of 160 complex specials would be 25600 pairs per case)."""
    sp = specials(t)
    if t in COMPLEX:
        shifts = [0, 1, 3, 7, 20, 41, 80, 121]
        return np.tile(sp, len(shifts)), np.concatenate([np.roll(sp, k) for k in shifts])
    return np.repeat(sp, len(sp)), np.tile(sp, len(sp))
