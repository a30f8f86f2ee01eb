#!/usr/bin/env python3
"""Prints the ml_dtypes tables of hlo/narrow_types_test.cc.

f4e2m1fn and f8e8m0fnu of the f32 value of every bf16 bit pattern, as runs
{first pattern, result bits} (a NaN gives f4e2m1fn -0, 0x8, whatever its
sign: XLA's choice; ml_dtypes gives +0 for a negative NaN), and the low
bits ml_dtypes stores for s8 -128..127 converted to int4/uint4/int2/uint2.
"""

import ml_dtypes
import numpy as np


def runs(values):
    out = []
    for i, v in enumerate(values):
        if not out or out[-1][1] != v:
            out.append((i, int(v)))
    return ", ".join("{0x%04x, 0x%02x}" % r for r in out)


def main():
    x = (np.arange(65536, dtype=np.uint32) << 16).view(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        f4 = x.astype(ml_dtypes.float4_e2m1fn).view(np.uint8).copy()
        e8 = x.astype(ml_dtypes.float8_e8m0fnu).view(np.uint8)
    f4[np.isnan(x)] = 0x8
    print("f4e2m1fn:", runs(f4))
    print("f8e8m0fnu:", runs(e8))
    s8 = np.arange(-128, 128).astype(np.int32)
    for t in (ml_dtypes.int4, ml_dtypes.uint4, ml_dtypes.int2,
              ml_dtypes.uint2):
        low = s8.astype(t).view(np.uint8)
        print(t.__name__ + ":", "".join("%x" % b for b in low))


if __name__ == "__main__":
    main()
