"""Zoo: programs written to hunt bugs outside the corpus and the other
themes (session 16): complex reductions (jnp.abs(a).sum() of a complex64
matrix crashed the GPU compiler), float-to-int conversions at the edges,
integer division and shifts at the edges, unsigned 64-bit arithmetic,
shape-changing bitcasts, negative and interior padding, empty arrays,
out-of-bounds scatter and gather modes, lexsort, interpolation and
histograms, image resizing, dot_product_attention, NaN-aware statistics,
Kronecker products, odd einsum batch layouts, 3-D and grouped dilated 1-D
convolutions, a small GPT's Adam step, a VAE step with the
reparameterisation trick, a diffusion sampling loop, Hessians and
Jacobians, and sorts longer than the GPU sort kernel's shared memory."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import complexes, floats, ints


def complex_reductions(a, b):
    return a @ b, jnp.abs(a).sum(), jnp.angle(b), a.sum(axis=1)


def convert_edges(x):
    return (x.astype(jnp.int32), x.astype(jnp.uint8), x.astype(jnp.int8),
            jnp.round(x), x.astype(jnp.uint32), x.astype(jnp.int64))


def int_div_shift_edges(a, b):
    safe = jnp.where(b == 0, 1, b)
    return (lax.div(a, b), lax.rem(a, b), jnp.floor_divide(a, safe),
            a >> 33, a << jnp.int32(40), lax.shift_right_logical(a, b))


def uint64_ops(a, b):
    return (a * b, a // b, a % b, a >> 7, a + b, jnp.maximum(a, b),
            a.astype(jnp.float64), lax.population_count(a), lax.clz(a))


def bitcast_shape_change(x):
    return (lax.bitcast_convert_type(x, jnp.uint8),
            lax.bitcast_convert_type(lax.bitcast_convert_type(x, jnp.uint16),
                                     jnp.float32))


def pad_negative_interior(x):
    return lax.pad(x, np.float32(0.5), [(-2, 3, 1), (2, -4, 2)])


def empty_arrays(e, x):
    return e.sum(0), jnp.concatenate([e, x]), e.max(0, initial=-1.0), e @ x.T


def out_of_bounds_modes(x, i, u):
    return (x.at[i].add(u, mode="drop"),
            x.at[i].get(mode="fill", fill_value=-1.0),
            x.at[i].get(mode="clip"), jnp.take(x, i, mode="wrap"))


def lexsort_keys(a, b):
    return jnp.lexsort((a, b))


def interp_hist(xp, x):
    xp = jnp.sort(xp)
    return (jnp.interp(x, xp, jnp.cos(xp)), jnp.searchsorted(xp, x),
            jnp.histogram(x, bins=10, range=(-3, 3))[0], jnp.digitize(x, xp))


def resize_up_down(x):
    return (jax.image.resize(x, (2, 14, 5, 3), "bilinear"),
            jax.image.resize(x, (2, 3, 20, 3), "lanczos3"))


def attention_api(q, k, v):
    return (jax.nn.dot_product_attention(q, k, v, is_causal=True),
            jax.nn.dot_product_attention(q, k, v, scale=0.3))


def nan_statistics(x):
    x = jnp.where(x > 1.0, jnp.nan, x)
    return (jnp.nanmean(x, 0), jnp.nanstd(x, 1), jnp.nanmax(x),
            jnp.nanargmin(x, 1), jnp.nanmedian(x, 1))


def kron_cross_trace(a, b, c, d):
    k = jnp.kron(a, b)
    return (k, jnp.cross(c, d), jnp.trace(k[:6, :6]),
            jnp.linalg.matrix_power(a[:3, :3], 5), jnp.tril(k, -2))


def einsum_batch_layouts(a, b):
    return jnp.einsum("bij,jbk->bik", a, b), jnp.einsum("bij,jbk->kib", a, b)


def conv3d_and_dilated_1d(x3, w3, x1, w1):
    return (lax.conv_general_dilated(
                x3, w3, (1, 2, 1), "SAME",
                dimension_numbers=("NDHWC", "DHWIO", "NDHWC")),
            lax.conv_general_dilated(x1, w1, (2,), [(3, 1)],
                                     rhs_dilation=(3,), feature_group_count=4))


def _gpt(p, tok):
    batch, t = tok.shape
    d = p["emb"].shape[1]
    heads = 2
    x = p["emb"][tok] + p["pos"][:t]
    mask = jnp.tril(jnp.ones((t, t), bool))
    for layer in p["layers"]:
        h = x * lax.rsqrt((x * x).mean(-1, keepdims=True) + 1e-6)
        q, k, v = jnp.split((h @ layer["qkv"]).reshape(batch, t, 3, heads,
                                                       d // heads), 3, axis=2)
        a = jnp.einsum("bthd,bshd->bhts", q[:, :, 0], k[:, :, 0])
        a = jax.nn.softmax(jnp.where(mask, a / np.sqrt(d // heads), -1e9), -1)
        x = x + jnp.einsum("bhts,bshd->bthd", a, v[:, :, 0]).reshape(
            batch, t, d) @ layer["o"]
        x = x + jax.nn.gelu(x @ layer["w1"]) @ layer["w2"]
    return x @ p["emb"].T


def gpt_adam_step(p, tok):
    def loss(p):
        logits = _gpt(p, tok[:, :-1])
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits),
                                             tok[:, 1:, None], -1))
    value, g = jax.value_and_grad(loss)(p)
    m = jax.tree.map(lambda x: 0.1 * x, g)
    v = jax.tree.map(lambda x: 0.001 * x * x, g)
    # eps 1e-4, not 1e-8: with v = m^2 / 10 the step of a near-zero
    # gradient would otherwise be the sign of its rounding error.
    return value, jax.tree.map(
        lambda w, m, v: w - 1e-3 * m / (jnp.sqrt(v) + 1e-4), p, m, v)


def _gpt_inputs(r):
    vocab, d = 64, 16

    def w(*shape):
        return (floats(r, shape) / np.sqrt(shape[0])).astype(np.float32)
    layers = [{"qkv": w(d, 3 * d), "o": w(d, d), "w1": w(d, 4 * d),
               "w2": w(4 * d, d)} for _ in range(2)]
    params = {"emb": w(vocab, d), "pos": w(16, d) * 0.1, "layers": layers}
    return [params, ints(r, (2, 9), 0, vocab)]


def vae_step(ws, x):
    def loss(ws):
        w1, w2, w3, w4 = ws
        h = jax.nn.relu(x @ w1)
        stats = h @ w2
        mu, logvar = stats[:, :4], stats[:, 4:]
        z = mu + jnp.exp(0.5 * logvar) * jax.random.normal(
            jax.random.key(0), mu.shape)
        xr = jax.nn.sigmoid(jax.nn.relu(z @ w3) @ w4)
        target = jax.nn.sigmoid(x)
        bce = -jnp.sum(target * jnp.log(xr + 1e-7) +
                       (1 - target) * jnp.log(1 - xr + 1e-7))
        kl = -0.5 * jnp.sum(1 + logvar - mu ** 2 - jnp.exp(logvar))
        return (bce + kl) / x.shape[0]
    return jax.value_and_grad(loss)(ws)


def diffusion_sample(x, w):
    betas = jnp.linspace(1e-4, 0.02, 12, dtype=jnp.float32)
    alphas = 1 - betas
    alpha_bar = jnp.cumprod(alphas)

    def body(i, carry):
        x, key = carry
        t = 11 - i
        key, sub = jax.random.split(key)
        e = jnp.tanh(lax.conv_general_dilated(
            x, w, (1, 1), "SAME",
            dimension_numbers=("NHWC", "HWIO", "NHWC")) + t / 12.0)
        mean = (x - betas[t] / jnp.sqrt(1 - alpha_bar[t]) * e) / jnp.sqrt(
            alphas[t])
        noise = jnp.where(t > 0, jnp.sqrt(betas[t]), 0.0) * jax.random.normal(
            sub, x.shape)
        return (mean + noise).astype(x.dtype), key
    return lax.fori_loop(0, 12, body, (x, jax.random.key(3)))[0]


def hessian_jacobians(x, a):
    return (jax.hessian(lambda x: jnp.sum(jnp.sin(x) * jnp.outer(x, x)))(x),
            jax.jacfwd(lambda x: jnp.tanh(a @ x))(x),
            jax.jacrev(lambda x: jnp.exp(a @ x).sum() * x)(x))


def long_sorts(x, y):
    # Longer than the GPU sort kernel's 8192 (passes/sort_splitter.h).
    return jnp.sort(x), jnp.argsort(y, axis=-1), lax.top_k(x, 5)


def _special_floats(r, n):
    x = floats(r, (n,)) * 100
    x[::7] = np.nan
    x[1::11] = np.inf
    x[2::13] = -np.inf
    x[3::5] = np.round(x[3::5] / 50)  # ties
    return x


PROGRAMS = {
    "complex_reductions": (complex_reductions,
                           lambda r: [complexes(r, (6, 9)),
                                      complexes(r, (9, 4))]),
    "convert_edges": (convert_edges, lambda r: [np.array(
        [np.nan, np.inf, -np.inf, 3e9, -3e9, 2.5, -2.5, 0.5, 1.5, -0.0, 255.9,
         -128.7], np.float32)]),
    "int_div_shift_edges": (int_div_shift_edges, lambda r: [
        np.array([7, -7, 7, -7, 0, -2147483648, 5], np.int32),
        np.array([2, 2, -2, -2, 0, -1, 0], np.int32)]),
    "uint64_ops": (uint64_ops, lambda r: [
        r.integers(0, 2**63, 8, dtype=np.uint64),
        r.integers(1, 2**31, 8, dtype=np.uint64)]),
    "bitcast_shape_change": (bitcast_shape_change,
                             lambda r: [floats(r, (3, 4))]),
    "pad_negative_interior": (pad_negative_interior,
                              lambda r: [floats(r, (6, 8))]),
    "empty_arrays": (empty_arrays, lambda r: [np.zeros((0, 5), np.float32),
                                              floats(r, (3, 5))]),
    "out_of_bounds_modes": (out_of_bounds_modes, lambda r: [
        floats(r, (10,)), ints(r, (24,), -15, 15), floats(r, (24,))]),
    "lexsort_keys": (lexsort_keys, lambda r: [ints(r, (30,), 0, 4),
                                              ints(r, (30,), 0, 4)]),
    "interp_hist": (interp_hist, lambda r: [floats(r, (20,)),
                                            floats(r, (40,))]),
    "resize_up_down": (resize_up_down, lambda r: [floats(r, (2, 7, 9, 3))]),
    "attention_api": (attention_api, lambda r: [floats(r, (1, 8, 2, 4))
                                                for _ in range(3)]),
    "nan_statistics": (nan_statistics, lambda r: [floats(r, (6, 9))]),
    "kron_cross_trace": (kron_cross_trace, lambda r: [
        floats(r, (3, 4)), floats(r, (2, 3)), floats(r, (5, 3)),
        floats(r, (5, 3))]),
    "einsum_batch_layouts": (einsum_batch_layouts, lambda r: [
        floats(r, (3, 4, 5)), floats(r, (5, 3, 6))]),
    "conv3d_and_dilated_1d": (conv3d_and_dilated_1d, lambda r: [
        floats(r, (1, 5, 6, 7, 3)), floats(r, (3, 3, 3, 3, 4)),
        floats(r, (2, 8, 30)), floats(r, (8, 2, 5))]),
    "gpt_adam_step": (gpt_adam_step, _gpt_inputs),
    "vae_step": (vae_step, lambda r: [
        [floats(r, (20, 12)) * 0.2, floats(r, (12, 8)) * 0.2,
         floats(r, (4, 12)) * 0.2, floats(r, (12, 20)) * 0.2],
        floats(r, (5, 20))]),
    "diffusion_sample": (diffusion_sample, lambda r: [
        floats(r, (2, 6, 6, 3)), floats(r, (3, 3, 3, 3)) * 0.3]),
    "hessian_jacobians": (hessian_jacobians, lambda r: [floats(r, (5,)),
                                                        floats(r, (5, 5))]),
    "long_sorts": (long_sorts, lambda r: [_special_floats(r, 9000),
                                          floats(r, (2, 8500))]),
}
