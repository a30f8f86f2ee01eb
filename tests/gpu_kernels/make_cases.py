#!/usr/bin/env python3
"""Odd-size cases for the GPU's reduction, row-fusion, transpose, scan and
loop kernels.

  python3 tests/gpu_kernels/make_cases.py DIR

writes DIR/NAME/{module.pb, in<i>.npy, out<i>.npy}: each function lowered
by JAX (an HloModuleProto, as JAX hands it to XLA), random inputs (NaN and
infinities where the name says so) and JAX's outputs on this machine's CPU
(XLA:CPU; NumPy's where XLA:CPU departs from the HLO semantics) as the
expected values. scripts/gpu_check.sh compiles them for
cuda with the corpus and runs them on the GPU machine. The shapes straddle
every threshold the kernels have: rows of 1, 31, 33, 1023, 1025 elements,
row counts that leave a block partly empty, size-0 dimensions.
"""

import functools
import os
import sys

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np


def softmax(x):
    return jax.nn.softmax(x, axis=-1)


def log_softmax(x):
    return jax.nn.log_softmax(x, axis=-1)


def layernorm(x, g, b):
    xf = x.astype(jnp.float32)
    m = xf.mean(-1, keepdims=True)
    v = ((xf - m) ** 2).mean(-1, keepdims=True)
    return ((xf - m) / jnp.sqrt(v + 1e-5) * g + b).astype(x.dtype)


def row_sum(x):
    return x.sum(axis=-1)


def row_max(x):
    return x.max(axis=-1)


def col_sum(x):
    return x.sum(axis=0)


def col_max(x):
    return x.max(axis=0)


def mid_sum(x):
    return x.sum(axis=1)


def transpose_add(x, y):
    return x.T + y


def chain5(x):
    return jax.nn.sigmoid(jnp.maximum((x + 1) * 2, 0) - 0.5)


def transpose3(x):
    return jnp.transpose(x, (2, 1, 0)) * 2


def cumsum_last(x):
    return jnp.cumsum(x, axis=-1)


def cumsum_first(x):
    return jnp.cumsum(x, axis=0)


def cumsum_reverse(x):
    return jax.lax.cumsum(x, axis=1, reverse=True)


# Factors near 1, so that products of thousands of them neither overflow
# nor underflow.
def cumprod_last(x):
    return jnp.cumprod(1 + x / 64, axis=-1)


def cumprod_first(x):
    return jnp.cumprod(1 + x / 64, axis=0)


def cummax_last(x):
    return jax.lax.cummax(x, axis=1)


def cummax_first(x):
    return jax.lax.cummax(x, axis=0)


def top8(x):
    return jax.lax.top_k(x, 8)


def conv(x, w, *, strides=(1, 1), padding="SAME", dn=("NHWC", "HWIO", "NHWC"),
         groups=1, dilation=None):
    return jax.lax.conv_general_dilated(
        x, w, strides, padding, rhs_dilation=dilation, dimension_numbers=dn,
        feature_group_count=groups)


def conv_grads(x, w):
    """The gradients of a strided conv: convolutions in a gradient's
    dimension orders, the input's with base (lhs) dilation."""
    def loss(x, w):
        return (conv(x, w, strides=(2, 2)) ** 2).sum()
    return jax.grad(loss, argnums=(0, 1))(x, w)


BF16 = np.dtype(ml_dtypes.bfloat16)

# name -> (function, [shapes], dtype, special values: True for NaN and
# infinities, "coarse" for few distinct values)
CASES = {}
for r, c in [(1, 1), (3, 31), (5, 33), (7, 1023), (3, 1025), (2, 8192),
             (300, 64), (0, 16), (4, 0), (2, 16384)]:
    CASES[f"softmax_{r}x{c}"] = (softmax, [(r, c)], np.float32, False)
for r, c in [(9, 64), (5, 4095)]:
    CASES[f"log_softmax_{r}x{c}"] = (log_softmax, [(r, c)], np.float32, False)
for r, c in [(6, 33), (3, 1025), (130, 96)]:
    CASES[f"layernorm_{r}x{c}"] = (layernorm, [(r, c), (c,), (c,)],
                                   np.float32, False)
CASES["softmax_nan_4x33"] = (softmax, [(4, 33)], np.float32, True)
CASES["softmax_bf16_5x1025"] = (softmax, [(5, 1025)], BF16, False)
CASES["layernorm_bf16_3x40"] = (layernorm, [(3, 40), (40,), (40,)], BF16,
                                False)
for r, c in [(1, 1), (3, 31), (33, 33), (5, 1023), (2, 1025), (1000, 64),
             (3, 100003), (2, 262147), (0, 5), (5, 0)]:
    CASES[f"row_sum_{r}x{c}"] = (row_sum, [(r, c)], np.float32, False)
CASES["row_max_nan_7x1025"] = (row_max, [(7, 1025)], np.float32, True)
# XLA:CPU's max reductions drop NaN (its fast min/max); XLA:GPU and the HLO
# semantics propagate it, as NumPy does: NumPy gives these cases' outputs.
NUMPY_REFERENCE = {
    "row_max_nan_7x1025": lambda x: x.max(axis=-1),
    "col_max_nan_33x65": lambda x: x.max(axis=0),
}
for r, c in [(1, 1), (31, 33), (1025, 31), (33, 1023), (4097, 3), (0, 7),
             (7, 0), (70000, 5)]:
    CASES[f"col_sum_{r}x{c}"] = (col_sum, [(r, c)], np.float32, False)
CASES["col_max_nan_33x65"] = (col_max, [(33, 65)], np.float32, True)
CASES["col_sum_bf16_1025x33"] = (col_sum, [(1025, 33)], BF16, False)
CASES["mid_sum_5x33x7"] = (mid_sum, [(5, 33, 7)], np.float32, False)
for r, c in [(1, 1), (31, 33), (33, 1025), (64, 64), (1, 100), (0, 3)]:
    CASES[f"transpose_add_{r}x{c}"] = (transpose_add, [(c, r), (r, c)],
                                       np.float32, False)
CASES["transpose_add_bf16_33x65"] = (transpose_add, [(65, 33), (33, 65)],
                                     BF16, False)
CASES["transpose3_5x33x7"] = (transpose3, [(5, 33, 7)], np.float32, False)
# An elementwise loop of 2-byte elements large enough that a thread takes
# two 16-byte vectors (launch_dims.cc, kNarrowLoopVectors), at a size that
# leaves the last block's threads partly past the end. Its input and output
# are 20 MB: the input takes the 64 values k/8 in [-4, 4) (both sides of
# relu's kink), so that they and the output compress to a few MB in the
# bundle the device machine is sent.
CASES["chain5_bf16_2333x2111"] = (chain5, [(2333, 2111)], BF16, "coarse")

# Cumulative ops (prefix reduce-windows, scans on the GPU): rows of 1, 31,
# 33, 1023, 4097 elements (a warp per row: partial chunks, rows not a
# multiple of 4, several chunk groups and a ragged tail), row counts that
# leave a block's warps idle, and the scans along axis 0.
for r, c in [(3, 1), (5, 31), (7, 33), (6, 1023), (3, 4097), (301, 64)]:
    CASES[f"cumsum_last_{r}x{c}"] = (cumsum_last, [(r, c)], np.float32, False)
for r, c in [(33, 65), (1023, 5), (4097, 3)]:
    CASES[f"cumsum_first_{r}x{c}"] = (cumsum_first, [(r, c)], np.float32,
                                      False)
for r, c in [(7, 33), (3, 4097)]:
    CASES[f"cumsum_reverse_{r}x{c}"] = (cumsum_reverse, [(r, c)], np.float32,
                                        False)
    CASES[f"cumprod_last_{r}x{c}"] = (cumprod_last, [(r, c)], np.float32,
                                      False)
    CASES[f"cummax_last_{r}x{c}"] = (cummax_last, [(r, c)], np.float32, False)
for r, c in [(5, 31), (6, 1023)]:
    CASES[f"cumprod_last_{r}x{c}"] = (cumprod_last, [(r, c)], np.float32,
                                      False)
    CASES[f"cummax_last_{r}x{c}"] = (cummax_last, [(r, c)], np.float32, False)
CASES["cumprod_first_33x65"] = (cumprod_first, [(33, 65)], np.float32, False)
CASES["cummax_first_1023x5"] = (cummax_first, [(1023, 5)], np.float32, False)
# Complex reductions: a complex element is a struct, read run by run
# element by element (IrArray::EmitReadRun); jnp.abs(a).sum() over complex64
# once crashed the compiler.
def abs_sum(x):
    return jnp.abs(x).sum()


CASES["abs_sum_c64_16x20"] = (abs_sum, [(16, 20)], np.complex64, False)
CASES["row_sum_c64_64x128"] = (row_sum, [(64, 128)], np.complex64, False)
CASES["row_sum_c64_3x1025"] = (row_sum, [(3, 1025)], np.complex64, False)
CASES["col_sum_c64_33x7"] = (col_sum, [(33, 7)], np.complex64, False)
# Vocabulary-long top-k rows: longer than the GPU sort kernel's 8192, so
# topk-splitter cuts them into chunks; NaN, infinities and -0 in the "nan"
# case (topk orders NaN first), 50257 needs padding.
CASES["top8_4x32000"] = (top8, [(4, 32000)], np.float32, False)
CASES["top8_2x131072"] = (top8, [(2, 131072)], np.float32, False)
CASES["top8_nan_3x131072"] = (top8, [(3, 131072)], np.float32, True)
CASES["top8_bf16_3x50257"] = (top8, [(3, 50257)], BF16, False)
# Long sorts: rows longer than the GPU sort kernel's 8192, which
# sort-splitter turns into a bitonic merge sort of 8192-chunks: padding
# (none of the lengths is a power of two times 8192), NaN, infinities and
# -0 in sort_100000, an argsort (the positions travel with the keys), a
# sort along the leading axis (transposes).
def sort_last(x):
    return jnp.sort(x)


def argsort_last(x):
    return jnp.argsort(x, axis=-1)


def sort_first(x):
    return jnp.sort(x, axis=0)


CASES["sort_100000"] = (sort_last, [(100000,)], np.float32, True)
CASES["argsort_2x20000"] = (argsort_last, [(2, 20000)], np.float32, False)
CASES["sort_axis0_30000x3"] = (sort_first, [(30000, 3)], np.float32, False)

# Convolutions (cuDNN calls on cuda, after convolution-layout): JAX's
# default NHWC/HWIO, "SAME" with a stride (asymmetric padding), NCHW/OIHW,
# groups, depthwise, dilation, 1-D and 3-D, 16-bit types, and a gradient.
P = functools.partial
CASES["conv_nhwc_3x3_2x9x9x5"] = (conv, [(2, 9, 9, 5), (3, 3, 5, 7)],
                                  np.float32, False)
CASES["conv_stride2_same_2x9x9x4"] = (
    P(conv, strides=(2, 2)), [(2, 9, 9, 4), (3, 3, 4, 6)], np.float32, False)
CASES["conv_nchw_valid_2x5x9x9"] = (
    P(conv, padding="VALID", dn=("NCHW", "OIHW", "NCHW")),
    [(2, 5, 9, 9), (6, 5, 3, 3)], np.float32, False)
CASES["conv_grouped_2x8x8x6"] = (P(conv, groups=3),
                                 [(2, 8, 8, 6), (3, 3, 2, 9)], np.float32,
                                 False)
CASES["conv_depthwise_2x8x8x4"] = (P(conv, groups=4),
                                   [(2, 8, 8, 4), (3, 3, 1, 4)], np.float32,
                                   False)
CASES["conv_dilated_1x11x11x3"] = (P(conv, dilation=(2, 2)),
                                   [(1, 11, 11, 3), (3, 3, 3, 4)], np.float32,
                                   False)
CASES["conv_1d_3x17x5"] = (P(conv, strides=(1,), dn=("NWC", "WIO", "NWC")),
                           [(3, 17, 5), (5, 5, 6)], np.float32, False)
CASES["conv_3d_1x5x6x7x3"] = (
    P(conv, strides=(1, 2, 1), dn=("NDHWC", "DHWIO", "NDHWC")),
    [(1, 5, 6, 7, 3), (2, 3, 3, 3, 4)], np.float32, False)
CASES["conv_bf16_2x9x9x8"] = (conv, [(2, 9, 9, 8), (3, 3, 8, 16)], BF16,
                              False)
CASES["conv_f16_2x9x9x8"] = (conv, [(2, 9, 9, 8), (3, 3, 8, 16)],
                             np.float16, False)
CASES["conv_grads_2x8x8x3"] = (conv_grads, [(2, 8, 8, 3), (3, 3, 3, 4)],
                               np.float32, False)


def make_input(rng, shape, dtype, special):
    if special == "coarse":
        return (rng.integers(-32, 32, size=shape) / 8).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.standard_normal(shape) +
                1j * rng.standard_normal(shape)).astype(dtype)
    x = rng.standard_normal(shape).astype(np.float32)
    if special and x.size:
        flat = x.reshape(-1)
        picks = rng.choice(flat.size, size=max(1, flat.size // 10),
                           replace=False)
        for k, i in enumerate(picks):
            flat[i] = [np.nan, np.inf, -np.inf, -0.0][k % 4]
    return x.astype(dtype)


def main(out):
    rng = np.random.default_rng(20261125)
    cpu = jax.devices("cpu")[0]
    for name, (fn, shapes, dtype, special) in CASES.items():
        inputs = [make_input(rng, s, dtype, special) for s in shapes]
        specs = [jax.ShapeDtypeStruct(s, dtype) for s in shapes]
        lowered = jax.jit(fn).lower(*specs)
        proto = lowered.compiler_ir("hlo").as_serialized_hlo_module_proto()
        if name in NUMPY_REFERENCE:
            result = NUMPY_REFERENCE[name](*inputs)
        else:
            with jax.default_device(cpu):
                result = jax.jit(fn)(*inputs)
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "module.pb"), "wb") as f:
            f.write(proto)
        for i, x in enumerate(inputs):
            np.save(os.path.join(d, f"in{i}.npy"), x)
        # A tuple result (top_k's values and indices) is one file a leaf.
        results = result if isinstance(result, (tuple, list)) else [result]
        for i, r in enumerate(results):
            np.save(os.path.join(d, f"out{i}.npy"), np.asarray(r))
    print(f"{len(CASES)} cases in {out}")


if __name__ == "__main__":
    main(sys.argv[1])
