#!/usr/bin/env python3
"""Writes the .npy files of tools/testdata/add_mul with NumPy.

Not run by the tests (they read the committed files); rerun by hand after
changing it:  python3 tools/testdata/make_testdata.py
The results are computed in f32 exactly as module.hlo does: r = x*y + x,
s = r.sum(axis=0), gt = x > y.
"""
import os

import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "add_mul")

x = np.array([[0.5, -1.25, 3.0], [2.0, 0.1, -7.5]], dtype=np.float32)
y = np.array([[1.5, 4.0, -0.25], [2.0, 10.0, 0.125]], dtype=np.float32)
r = x * y + x
s = r[0] + r[1]
gt = x > y
for name, value in [("in0", x), ("in1", y), ("out0", r), ("out1", s),
                    ("out2", gt)]:
    np.save(os.path.join(HERE, name + ".npy"), value)
