#!/usr/bin/env python3
"""Writes the .npy fixtures of runtime/npy_test.cc with NumPy (and ml_dtypes).

Not run by the tests (they read the committed files); rerun by hand after
changing this script:  python3 runtime/testdata/make_fixtures.py
Every array holds value(i) = i (row-major element number i) converted to
its dtype, except pred (i % 3 == 0) and complex (i + 0.5i). The test checks
exactly that, so one rule covers every fixture.
"""
import os

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def values(shape, dtype):
    n = int(np.prod(shape, dtype=np.int64))
    i = np.arange(n).reshape(shape)
    if dtype == np.bool_:
        return i % 3 == 0
    if np.issubdtype(dtype, np.complexfloating):
        return (i + 0.5j * i).astype(dtype)
    return i.astype(dtype)


def save(name, arr, version=None, fortran=False):
    if fortran:
        arr = np.asfortranarray(arr)
    with open(os.path.join(HERE, name), "wb") as f:
        np.lib.format.write_array(f, arr, version=version)


# One little-endian C-order v1.0 file per supported type.
for name, dtype in [
    ("pred", np.bool_), ("s8", np.int8), ("s16", np.int16),
    ("s32", np.int32), ("s64", np.int64), ("u8", np.uint8),
    ("u16", np.uint16), ("u32", np.uint32), ("u64", np.uint64),
    ("f16", np.float16), ("bf16", ml_dtypes.bfloat16), ("f32", np.float32),
    ("f64", np.float64), ("c64", np.complex64), ("c128", np.complex128),
]:
    save(f"{name}_2x3.npy", values((2, 3), np.dtype(dtype).newbyteorder("<")))

# Big-endian, Fortran order, other header versions, odd shapes.
save("f64_be_2x3.npy", values((2, 3), np.dtype(">f8")))
save("s16_be_2x3.npy", values((2, 3), np.dtype(">i2")))
save("c64_be_2x3.npy", values((2, 3), np.dtype(">c8")))
save("f32_fortran_2x3x4.npy", values((2, 3, 4), np.float32), fortran=True)
save("s32_be_fortran_3x2.npy", values((3, 2), np.dtype(">i4")), fortran=True)
save("f32_v2_2x3.npy", values((2, 3), np.float32), version=(2, 0))
save("f32_v3_2x3.npy", values((2, 3), np.float32), version=(3, 0))
save("f32_scalar.npy", np.array(7, dtype=np.float32))
save("f32_0x3.npy", np.zeros((0, 3), dtype=np.float32))
