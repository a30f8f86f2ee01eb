"""Zoo: the corners of common ops -- grouped, dilated and transposed
convolution gradients, every resize method, overlapping pooling gradients,
multi-key and NaN sorts, scatter modes, integer bit tricks, f16 rounding
modes, segment reductions, mixed-type scans, unique with NaN, windowed bf16
attention and the random samplers."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import floats, ints, prng_key


def _weights(rng, shape, scale):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _depthwise_conv(w, x):
    return lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=x.shape[-1])


def depthwise_conv_grad(w, x):
    # The weight gradient of a depthwise convolution is a convolution with
    # batch_group_count in XLA.
    return jax.grad(lambda w, x: jnp.sum(jnp.sin(_depthwise_conv(w, x))),
                    argnums=(0, 1))(w, x)


def strided_dilated_grouped_conv_grad(w, x):
    def loss(w, x):
        y = lax.conv_general_dilated(
            x, w, (2, 2), ((1, 2), (2, 1)), rhs_dilation=(2, 1),
            dimension_numbers=("NCHW", "OIHW", "NCHW"), feature_group_count=2)
        return jnp.sum(y ** 2)
    return jax.grad(loss, argnums=(0, 1))(w, x)


def bf16_groupnorm_conv(w, g, x):
    x = x.astype(jnp.bfloat16)
    n, h, width, c = x.shape
    groups = x.reshape(n, h, width, 2, c // 2).astype(jnp.float32)
    mean = groups.mean((1, 2, 4), keepdims=True)
    var = groups.var((1, 2, 4), keepdims=True)
    y = ((groups - mean) * lax.rsqrt(var + 1e-5)).reshape(x.shape)
    y = jax.nn.silu(y.astype(jnp.bfloat16) * g.astype(jnp.bfloat16))
    return lax.conv_general_dilated(
        y, w.astype(jnp.bfloat16), (1, 1), "SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        preferred_element_type=jnp.float32)


def f16_conv_transpose(w, x):
    return lax.conv_transpose(
        x.astype(jnp.float16), w.astype(jnp.float16), (2, 2), "VALID",
        dimension_numbers=("NHWC", "HWIO", "NHWC"))


def resize_methods(x):
    n, h, w, c = x.shape
    return (jax.image.resize(x, (n, h // 2, w // 2, c), "linear",
                             antialias=True),
            jax.image.resize(x, (n, h + 3, w - 1, c), "cubic"),
            jax.image.resize(x, (n, 2 * h, w, c), "lanczos3"),
            jax.image.scale_and_translate(
                x, (n, h, w, c), (1, 2), jnp.array([1.3, 0.7]),
                jnp.array([0.5, -1.0]), "linear"))


def maxpool_grad_overlap(x):
    # 3x3 windows at stride 2 overlap: select-and-scatter adds where one
    # element is the maximum of two windows.
    def loss(x):
        y = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1),
                              (1, 2, 2, 1),
                              ((0, 0), (1, 1), (1, 1), (0, 0)))
        return jnp.sum(y * jnp.arange(y.size, dtype=x.dtype).reshape(y.shape))
    return jax.grad(loss)(x)


def multi_key_sort(a, b, c):
    return lax.sort((a, b, c), num_keys=2, is_stable=True)


def bf16_topk_nan_sort(x):
    xb = x.astype(jnp.bfloat16)
    xb = jnp.where(jnp.arange(x.shape[-1]) % 5 == 0, jnp.nan, xb)
    return (jnp.sort(xb, axis=-1), jnp.argsort(xb, axis=-1, stable=True),
            lax.top_k(jnp.nan_to_num(xb), 3))


def scatter_modes(x, idx, upd):
    # Indices in [-7, 8) for 5 elements: negative and past-the-end ones
    # are dropped or clipped as the mode says.
    return (x.at[idx].add(upd, mode="drop"), x.at[idx].set(upd, mode="clip"),
            x.at[idx].min(upd, mode="drop"), x.at[idx].mul(upd, mode="drop"),
            jnp.zeros(5, jnp.int32).at[idx].add(1, mode="drop"))


def int_bit_tricks(a, b):
    shift = b % 33  # 32 shifts everything out
    return (lax.population_count(a), lax.clz(a), a ** 3,
            jnp.left_shift(a, shift), jnp.right_shift(a, shift),
            lax.shift_right_logical(a, shift), jnp.gcd(a, b),
            jnp.lcm(a % 50, b % 50 + 1))


def f16_rounding_modes(x):
    h = (x * 3.7).astype(jnp.float16)
    return (jnp.round(h), jnp.floor(h), jnp.ceil(h), jnp.trunc(h),
            lax.round(h, lax.RoundingMethod.AWAY_FROM_ZERO), jnp.rint(x * 2.5),
            h.astype(jnp.int8), (x * 1e5).astype(jnp.float16))


def segment_min_prod_max(data, ids):
    return (jax.ops.segment_min(data, ids, num_segments=5),
            jax.ops.segment_prod(data % 3 + 1, ids, num_segments=5),
            jax.ops.segment_max(data.astype(jnp.float32), ids,
                                num_segments=5, indices_are_sorted=False))


def scans_of_mixed_types(mask, x):
    return (jnp.cumsum(mask), jnp.cumsum(x.astype(jnp.float16)),
            jnp.cumprod(x.astype(jnp.bfloat16) * 0.5 + 1),
            lax.cummin(x, reverse=True),
            jnp.cumsum(mask.astype(jnp.int8), dtype=jnp.int8))


def unique_float_nan(x):
    x = jnp.where(x > 1.0, jnp.nan, jnp.round(x * 2) / 2)
    return jnp.unique(x, size=10, fill_value=0.0, equal_nan=True)


def windowed_attention_bf16(q, k, v):
    q, k, v = (t.astype(jnp.bfloat16) for t in (q, k, v))
    pos = jnp.arange(q.shape[1])
    mask = jnp.abs(pos[:, None] - pos[None]) <= 2
    scores = jnp.einsum("bqd,bkd->bqk", q, k,
                        preferred_element_type=jnp.float32) / 2.0
    p = jax.nn.softmax(jnp.where(mask, scores, -jnp.inf), -1)
    return jnp.einsum("bqk,bkd->bqd", p.astype(jnp.bfloat16), v)


def random_samplers(key):
    return (jax.random.categorical(key, jnp.zeros((4, 6))),
            jax.random.permutation(key, 10),
            jax.random.choice(key, 7, (5,), replace=False),
            jax.random.bernoulli(key, 0.3, (12,)),
            jax.random.truncated_normal(key, -1.0, 2.0, (6,)))


PROGRAMS = {
    "depthwise_conv_grad": (
        depthwise_conv_grad,
        lambda r: [_weights(r, (3, 3, 1, 4), 0.5), floats(r, (2, 5, 5, 4))]),
    "strided_dilated_grouped_conv_grad": (
        strided_dilated_grouped_conv_grad,
        lambda r: [_weights(r, (4, 1, 2, 3), 0.5), floats(r, (2, 2, 7, 6))]),
    "bf16_groupnorm_conv": (
        bf16_groupnorm_conv,
        lambda r: [_weights(r, (3, 3, 4, 4), 0.3), floats(r, (4,)),
                   floats(r, (2, 5, 5, 4))]),
    "f16_conv_transpose": (
        f16_conv_transpose,
        lambda r: [_weights(r, (3, 3, 3, 2), 0.3), floats(r, (1, 3, 4, 3))]),
    "resize_methods": (resize_methods, lambda r: [floats(r, (1, 6, 8, 2))]),
    "maxpool_grad_overlap": (maxpool_grad_overlap,
                             lambda r: [floats(r, (2, 7, 7, 2))]),
    "multi_key_sort": (
        multi_key_sort,
        lambda r: [ints(r, (12,), 0, 3),
                   (ints(r, (12,), 0, 3) * 0.5).astype(np.float32),
                   floats(r, (12,))]),
    "bf16_topk_nan_sort": (bf16_topk_nan_sort,
                           lambda r: [floats(r, (3, 11))]),
    "scatter_modes": (
        scatter_modes,
        lambda r: [floats(r, (5,)), ints(r, (9,), -7, 8), floats(r, (9,))]),
    "int_bit_tricks": (
        int_bit_tricks,
        lambda r: [ints(r, (10,), -1000, 1000), ints(r, (10,), 1, 1000)]),
    "f16_rounding_modes": (f16_rounding_modes, lambda r: [floats(r, (14,))]),
    "segment_min_prod_max": (
        segment_min_prod_max,
        lambda r: [ints(r, (12,), -9, 9), ints(r, (12,), 0, 4)]),
    "scans_of_mixed_types": (
        scans_of_mixed_types,
        lambda r: [r.random(13) < 0.5, floats(r, (13,))]),
    "unique_float_nan": (unique_float_nan, lambda r: [floats(r, (14,))]),
    "windowed_attention_bf16": (
        windowed_attention_bf16,
        lambda r: [floats(r, (2, 7, 4)), floats(r, (2, 7, 4)),
                   floats(r, (2, 7, 4))]),
    "random_samplers": (random_samplers, lambda r: [prng_key(r)]),
}
