"""Types and numerics: f32/bf16/f16/f64 mixes (mixed-precision training),
fp8 (quantisation, fp8 gemms, conversions of every 8-bit format),
integer and bit ops, random numbers inside jit, special functions."""

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

from jax_harness import floats, ints, prng_key

bf16 = ml_dtypes.bfloat16


def mixed_precision_mlp_grad(w1, w2, x, y):
    # bf16 compute, f32 master weights and loss: the usual AMP recipe.
    def loss(w1, w2):
        h = jax.nn.relu(x.astype(jnp.bfloat16) @ w1.astype(jnp.bfloat16))
        out = (h @ w2.astype(jnp.bfloat16)).astype(jnp.float32)
        return jnp.mean((out - y) ** 2)

    return jax.grad(loss, argnums=(0, 1))(w1, w2)


def loss_scaling_f16(w, x, scale):
    # f16 with a dynamic loss scale: grads unscaled, finiteness checked.
    def loss(w):
        out = (x.astype(jnp.float16) @ w.astype(jnp.float16))
        return jnp.sum(out.astype(jnp.float32) ** 2) * scale

    g = jax.grad(loss)(w) / scale
    return g, jnp.all(jnp.isfinite(g))


def hash_u32(x):
    # A murmur-style integer hash: multiplies wrap, shifts, xors.
    x = x ^ (x >> 16)
    x = x * np.uint32(0x85EBCA6B)
    x = x ^ (x >> 13)
    x = x * np.uint32(0xC2B2AE35)
    return x ^ (x >> 16)


def quantize_int8(x):
    scale = jnp.max(jnp.abs(x), axis=-1, keepdims=True) / 127.0
    q = jnp.clip(jnp.round(x / scale), -127, 127).astype(jnp.int8)
    return q, (q.astype(jnp.float32) * scale)


def int8_matmul_dequant(a, b, sa, sb):
    acc = lax.dot(a, b, preferred_element_type=jnp.int32)
    return acc.astype(jnp.float32) * sa * sb


def dropout(key, x, rate=0.25):
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(keep, x / (1 - rate), 0.0)


def random_suite(key):
    k1, k2, k3, k4, k5 = jax.random.split(key, 5)
    return (jax.random.normal(k1, (3, 4)), jax.random.uniform(k2, (5,)),
            jax.random.randint(k3, (6,), 0, 10),
            jax.random.permutation(k4, 8),
            jax.random.truncated_normal(k5, -2.0, 2.0, (4,)),
            jax.random.gumbel(k1, (3,)),
            jax.random.choice(k2, 10, (4,), replace=False))


FLOAT8_TYPES = (jnp.float8_e4m3fn, jnp.float8_e5m2, jnp.float8_e4m3fnuz,
                jnp.float8_e5m2fnuz, jnp.float8_e4m3b11fnuz, jnp.float8_e4m3,
                jnp.float8_e3m4)


def fp8_quantize_dequantize(x):
    # Per-tensor scaled fp8 as FP8 training recipes write it: e4m3fn for
    # activations and weights, e5m2 for gradients, both kept as fp8 too.
    scale = jnp.max(jnp.abs(x)) / 448.0
    q = (x / scale).astype(jnp.float8_e4m3fn)
    g = jnp.clip(x * 1e3, -57344, 57344).astype(jnp.float8_e5m2)
    return q, q.astype(jnp.float32) * scale, g, g.T.astype(jnp.bfloat16)


def fp8_matmul(a, b):
    # An fp8 gemm: e4m3fn x e5m2 into f32, and e4m3fn x e4m3fn into bf16.
    a8, b8 = a.astype(jnp.float8_e4m3fn), b.astype(jnp.float8_e5m2)
    return (jnp.dot(a8, b8, preferred_element_type=jnp.float32),
            jnp.dot(a8, a8.T, preferred_element_type=jnp.bfloat16))


def fp8_conversions(x, bits):
    # Every format from f32 (ties, overflow, NaN, inf, denormals in x), from
    # f64, bf16 and f16, and every bit pattern decoded.
    out = [x.astype(t).astype(jnp.float32) for t in FLOAT8_TYPES]
    out += [x.astype(jnp.float64).astype(jnp.float8_e4m3fn),
            x.astype(jnp.bfloat16).astype(jnp.float8_e5m2),
            x.astype(jnp.float16).astype(jnp.float8_e4m3fnuz)]
    out += [lax.bitcast_convert_type(bits, t).astype(jnp.float32)
            for t in FLOAT8_TYPES]
    return tuple(out)


def fp8_arithmetic(x, y):
    # Arithmetic in fp8 (each op rounds to fp8), compares, sort, reductions.
    a, b = x.astype(jnp.float8_e4m3fn), y.astype(jnp.float8_e4m3fn)
    return ((a + b) * a, jnp.maximum(a, b), a < b, jnp.sort(a), jnp.sum(a),
            jnp.where(a > 0, a, b), jnp.abs(b) - 1, jnp.max(b))


def dot_algorithm_presets(a, b):
    # lax.DotAlgorithmPreset on f32 arrays: BF16_BF16_F32 rounds the
    # operands to bf16 and sums in f32 on XLA:GPU (a bf16 gemm) and in f32
    # on XLA:CPU; each target is checked against its own XLA. The inputs
    # are not bf16 values, so a GPU that skipped the rounding would be off
    # by ~1e-2 here. F32_F32_F32 and the X3/X6 splits, which emulate f32,
    # are f32 on both.
    p = lax.DotAlgorithmPreset
    return (jnp.dot(a, b, precision=p.BF16_BF16_F32),
            jnp.dot(a, b, precision=p.F32_F32_F32),
            jnp.dot(a, b, precision=p.BF16_BF16_F32_X6) * 0.5)


_FLOAT8_EDGES = np.array(
    [0.0, -0.0, 1.0, 448.0, 464.0, 465.0, 1e9, np.inf, -np.inf, np.nan,
     2.0**-9, 2.0**-10, 3 * 2.0**-11, 57344.0, 61440.0, -1e-30, 240.0, 248.0,
     15.5, 16.5], np.float32)


def result_accuracy(x):
    # lax's accuracy= (XLA's result_accuracy in the proto): a loose
    # tolerance lets a GPU approximate exp; mode=highest and an ulps bound
    # keep the libraries' functions; a bf16 exp gets bf16's tolerance.
    loose = lax.Tolerance(atol=0.0, rtol=1e-3, ulps=0)
    return (lax.exp(x, accuracy=loose),
            lax.tanh(x, accuracy=lax.AccuracyMode.HIGHEST),
            lax.log(jnp.abs(x) + 1,
                    accuracy=lax.Tolerance(atol=0.0, rtol=0.0, ulps=4)),
            jnp.exp(x.astype(jnp.bfloat16)))


PROGRAMS = {
    "dot_algorithm_presets": (
        dot_algorithm_presets,
        lambda r: [floats(r, (64, 256)), floats(r, (256, 96))]),
    "result_accuracy": (result_accuracy, lambda r: [floats(r, (64,)) * 4]),
    "fp8_quantize_dequantize": (
        fp8_quantize_dequantize, lambda r: [floats(r, (16, 32))]),
    "fp8_matmul": (
        fp8_matmul, lambda r: [floats(r, (8, 32)), floats(r, (32, 16))]),
    "fp8_conversions": (
        fp8_conversions,
        lambda r: [np.concatenate([_FLOAT8_EDGES, floats(r, (40,)) * 100]),
                   np.arange(256, dtype=np.uint8)]),
    "fp8_arithmetic": (
        fp8_arithmetic, lambda r: [floats(r, (40,)), floats(r, (40,))]),
    "bf16_mixed_precision_mlp_grad": (
        mixed_precision_mlp_grad,
        lambda r: [floats(r, (6, 8)) * 0.4, floats(r, (8, 3)) * 0.4,
                   floats(r, (4, 6)), floats(r, (4, 3))]),
    "f16_loss_scaling_grad": (
        loss_scaling_f16,
        lambda r: [floats(r, (5, 3)) * 0.3, floats(r, (4, 5)),
                   np.float32(128.0)]),
    "bf16_softmax_f32_accumulate": (
        lambda x: jax.nn.softmax(x.astype(jnp.float32), -1).astype(bf16),
        lambda r: [floats(r, (3, 10), bf16)]),
    "f16_layernorm": (
        lambda x: ((x - x.mean(-1, keepdims=True))
                   / jnp.sqrt(x.var(-1, keepdims=True) + 1e-3)),
        lambda r: [floats(r, (4, 16), np.float16)]),
    "f64_logsumexp_grad": (
        jax.grad(lambda x: jax.nn.logsumexp(x * 3.0)),
        lambda r: [floats(r, (12,), np.float64)]),
    "f64_f32_mix_promotion": (
        lambda a, b: (a * b, (a + b).astype(jnp.float32), jnp.float64(2) ** b),
        lambda r: [floats(r, (5,), np.float64), floats(r, (5,))]),
    "bf16_f16_conversions": (
        lambda x: (x.astype(jnp.bfloat16), x.astype(jnp.float16),
                   x.astype(jnp.bfloat16).astype(jnp.float16),
                   x.astype(jnp.float16).astype(jnp.float32)),
        lambda r: [np.concatenate([floats(r, (20,)) * 1e3,
                                   np.array([7e4, -7e4, 1e-8, np.nan],
                                            np.float32)])]),
    "int_bit_ops": (
        lambda a, b: (a & b, a | b, a ^ b, ~a, a << 3, a >> 2,
                      lax.shift_right_logical(a, b % 8),
                      lax.population_count(a),
                      lax.clz(a)),
        lambda r: [ints(r, (9,), -2**20, 2**20), ints(r, (9,), 0, 2**16)]),
    "uint32_hash": (hash_u32, lambda r: [ints(r, (16,), 0, 2**32, np.uint32)]),
    "int_div_mod_floor": (
        lambda a, b: (a // b, a % b, jnp.fmod(a, b), jnp.abs(a),
                      jnp.sign(a), jnp.maximum(a, b)),
        lambda r: [ints(r, (12,), -30, 30), ints(r, (12,), 1, 7)]),
    "int_overflow_wrap": (
        lambda a: (a * 3 + 7, a.astype(jnp.int8), a.astype(jnp.uint16),
                   (a.astype(jnp.int64) << 33) >> 30),
        lambda r: [ints(r, (10,), -2**31, 2**31 - 1)]),
    "int8_quantize_roundtrip": (quantize_int8,
                                lambda r: [floats(r, (3, 8))]),
    "int8_matmul_dequant": (
        int8_matmul_dequant,
        lambda r: [ints(r, (4, 6), -127, 127, np.int8),
                   ints(r, (6, 3), -127, 127, np.int8), np.float32(0.02),
                   np.float32(0.01)]),
    "bool_logic_reductions": (
        lambda a, b: (a & ~b, jnp.any(a), jnp.all(a | b),
                      jnp.sum(a ^ b), jnp.count_nonzero(a, axis=0)),
        lambda r: [r.integers(0, 2, (4, 5)).astype(bool),
                   r.integers(0, 2, (4, 5)).astype(bool)]),
    "random_suite_in_jit": (random_suite, lambda r: [prng_key(r)]),
    "random_dropout": (dropout, lambda r: [prng_key(r), floats(r, (4, 6))]),
    "random_split_fold_in_loop": (
        lambda key: lax.fori_loop(
            0, 4, lambda i, c: c + jax.random.normal(
                jax.random.fold_in(key, i), (3,)), jnp.zeros(3)),
        lambda r: [prng_key(r)]),
    "special_functions": (
        lambda x: (jax.scipy.special.erf(x), jax.scipy.special.erfc(x),
                   jax.scipy.special.gammaln(jnp.abs(x) + 1),
                   jax.scipy.special.digamma(jnp.abs(x) + 1),
                   jax.scipy.special.xlogy(jnp.abs(x), jnp.abs(x) + 1),
                   jax.scipy.special.logit(jax.nn.sigmoid(x)),
                   jax.nn.softplus(x), jax.nn.gelu(x, approximate=False)),
        lambda r: [floats(r, (15,))]),
    "activations_grad": (
        jax.grad(lambda x: jnp.sum(jax.nn.elu(x) + jax.nn.selu(x)
                                   + jax.nn.leaky_relu(x) + jax.nn.swish(x)
                                   + jax.nn.hard_tanh(x) + jax.nn.mish(x))),
        lambda r: [floats(r, (11,)) * 2]),
    "complex_fft_filter": (
        lambda x: jnp.fft.irfft(jnp.fft.rfft(x) * jnp.exp(
            -jnp.arange(x.shape[-1] // 2 + 1) / 3.0), n=x.shape[-1]),
        lambda r: [floats(r, (2, 16))]),
    "nan_safe_ops": (
        lambda x: (jnp.nan_to_num(jnp.log(x)), jnp.nanmean(jnp.where(
            x > 0, x, jnp.nan)), jnp.isnan(jnp.sqrt(x)),
            jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)),
        lambda r: [floats(r, (12,))]),
}
