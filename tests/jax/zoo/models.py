"""Models as people write them in plain JAX: forward passes and gradients.

MLP, CNN with batch norm and pooling, a ResNet block, a transformer block
with causal attention, RMSNorm with rotary embeddings, LSTM and GRU cells
through lax.scan, embeddings. Parameters are pytrees (dicts and tuples), as
in Flax/Haiku code, so the lowered modules take many arguments and return
tuples of gradients.
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import floats, ints


def _init(rng, shape, scale=None):
    fan_in = shape[0] if len(shape) > 1 else 1
    scale = scale if scale is not None else 1.0 / np.sqrt(fan_in)
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _one_hot(rng, n, classes):
    return np.eye(classes, dtype=np.float32)[rng.integers(0, classes, n)]


# --- MLP -------------------------------------------------------------------

def mlp_params(rng, sizes):
    return [(_init(rng, (a, b)), np.zeros(b, np.float32))
            for a, b in zip(sizes[:-1], sizes[1:])]


def mlp(params, x, act=jax.nn.relu):
    for w, b in params[:-1]:
        x = act(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def xent(logits, labels):
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * labels, axis=-1))


def mlp_loss(params, x, y):
    return xent(mlp(params, x), y)


def _mlp_inputs(rng, sizes=(12, 32, 16, 5), n=8):
    return [mlp_params(rng, sizes), floats(rng, (n, sizes[0])),
            _one_hot(rng, n, sizes[-1])]


# --- CNN with batch norm and pooling ---------------------------------------

def conv(x, w, stride=1, padding="SAME"):
    return lax.conv_general_dilated(x, w, (stride, stride), padding,
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))


def batch_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=(0, 1, 2))
    var = x.var(axis=(0, 1, 2))
    return (x - mean) * lax.rsqrt(var + eps) * gamma + beta


def max_pool(x, k=2):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, k, k, 1),
                             (1, k, k, 1), "VALID")


def avg_pool(x, k=2):
    return lax.reduce_window(x, 0.0, lax.add, (1, k, k, 1), (1, k, k, 1),
                             "VALID") / (k * k)


def cnn(p, x):
    h = jax.nn.relu(batch_norm(conv(x, p["c1"]), p["g1"], p["b1"]))
    h = max_pool(h)
    h = jax.nn.relu(batch_norm(conv(h, p["c2"]), p["g2"], p["b2"]))
    h = avg_pool(h)
    h = h.reshape(h.shape[0], -1)
    return h @ p["fc"]


def cnn_params(rng, c=3, f=4, classes=3, hw=8):
    return {"c1": _init(rng, (3, 3, c, f), 0.3), "g1": np.ones(f, np.float32),
            "b1": np.zeros(f, np.float32), "c2": _init(rng, (3, 3, f, f), 0.3),
            "g2": np.ones(f, np.float32), "b2": np.zeros(f, np.float32),
            "fc": _init(rng, ((hw // 4) ** 2 * f, classes), 0.3)}


def _cnn_inputs(rng, n=2, hw=8):
    return [cnn_params(rng, hw=hw), floats(rng, (n, hw, hw, 3)),
            _one_hot(rng, n, 3)]


# --- ResNet block ------------------------------------------------------------

def resnet_block(p, x):
    h = jax.nn.relu(batch_norm(conv(x, p["w1"]), p["g1"], p["b1"]))
    h = batch_norm(conv(h, p["w2"]), p["g2"], p["b2"])
    shortcut = conv(x, p["proj"], stride=1, padding="VALID")
    return jax.nn.relu(h + shortcut)


def _resnet_inputs(rng, cin=3, cout=4):
    p = {"w1": _init(rng, (3, 3, cin, cout), 0.3),
         "w2": _init(rng, (3, 3, cout, cout), 0.3),
         "proj": _init(rng, (1, 1, cin, cout), 0.5),
         "g1": np.ones(cout, np.float32), "b1": np.zeros(cout, np.float32),
         "g2": np.ones(cout, np.float32), "b2": np.zeros(cout, np.float32)}
    return [p, floats(rng, (2, 6, 6, cin))]


# --- Transformer block with causal attention ---------------------------------

def layer_norm(x, g, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) * lax.rsqrt(var + eps) * g + b


def attention(q, k, v, causal=True):
    # q, k, v: [batch, seq, heads, head_dim]
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(q.shape[-1])
    if causal:
        seq = q.shape[1]
        mask = jnp.tril(jnp.ones((seq, seq), bool))
        scores = jnp.where(mask, scores, jnp.finfo(scores.dtype).min)
    weights = jax.nn.softmax(scores, axis=-1)
    return jnp.einsum("bhqk,bkhd->bqhd", weights, v)


def transformer_block(p, x, heads=2):
    b, s, d = x.shape
    h = layer_norm(x, p["ln1_g"], p["ln1_b"])
    qkv = h @ p["wqkv"]
    q, k, v = jnp.split(qkv.reshape(b, s, 3, heads, d // heads), 3, axis=2)
    a = attention(q[:, :, 0], k[:, :, 0], v[:, :, 0]).reshape(b, s, d)
    x = x + a @ p["wo"]
    h = layer_norm(x, p["ln2_g"], p["ln2_b"])
    return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]


def transformer_params(rng, d=8, ff=16):
    return {"ln1_g": np.ones(d, np.float32), "ln1_b": np.zeros(d, np.float32),
            "wqkv": _init(rng, (d, 3 * d)), "wo": _init(rng, (d, d)),
            "ln2_g": np.ones(d, np.float32), "ln2_b": np.zeros(d, np.float32),
            "w1": _init(rng, (d, ff)), "w2": _init(rng, (ff, d))}


def _transformer_inputs(rng, b=2, s=5, d=8):
    return [transformer_params(rng, d), floats(rng, (b, s, d))]


# --- RMSNorm and rotary embeddings (LLaMA style) -----------------------------

def rms_norm(x, w, eps=1e-6):
    return x * lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps) * w


def rotary(x, base=10000.0):
    # x: [batch, seq, heads, head_dim], head_dim even.
    seq, dim = x.shape[1], x.shape[-1]
    inv_freq = 1.0 / (base ** (jnp.arange(0, dim, 2, dtype=jnp.float32) / dim))
    angles = jnp.arange(seq, dtype=jnp.float32)[:, None] * inv_freq[None, :]
    sin = jnp.sin(angles)[None, :, None, :]
    cos = jnp.cos(angles)[None, :, None, :]
    x1, x2 = x[..., ::2], x[..., 1::2]
    rotated = jnp.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
    return rotated.reshape(x.shape)


def llama_attention(p, x, heads=2):
    b, s, d = x.shape
    h = rms_norm(x, p["norm"])
    q = rotary((h @ p["wq"]).reshape(b, s, heads, d // heads))
    k = rotary((h @ p["wk"]).reshape(b, s, heads, d // heads))
    v = (h @ p["wv"]).reshape(b, s, heads, d // heads)
    return x + attention(q, k, v).reshape(b, s, d) @ p["wo"]


def _llama_inputs(rng, b=2, s=6, d=8):
    p = {"norm": np.ones(d, np.float32), "wq": _init(rng, (d, d)),
         "wk": _init(rng, (d, d)), "wv": _init(rng, (d, d)),
         "wo": _init(rng, (d, d))}
    return [p, floats(rng, (b, s, d))]


def swiglu(p, x):
    return (jax.nn.silu(x @ p["w1"]) * (x @ p["w3"])) @ p["w2"]


# --- LSTM and GRU through lax.scan -------------------------------------------

def lstm(p, xs):
    # xs: [time, batch, in]
    hidden = p["wh"].shape[0]

    def step(carry, x):
        h, c = carry
        gates = x @ p["wx"] + h @ p["wh"] + p["b"]
        i, f, g, o = jnp.split(gates, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h

    zeros = jnp.zeros((xs.shape[1], hidden), xs.dtype)
    (h, c), hs = lax.scan(step, (zeros, zeros), xs)
    return hs, h, c


def _lstm_inputs(rng, t=5, b=2, i=3, h=4):
    p = {"wx": _init(rng, (i, 4 * h)), "wh": _init(rng, (h, 4 * h)),
         "b": np.zeros(4 * h, np.float32)}
    return [p, floats(rng, (t, b, i))]


def gru(p, xs):
    hidden = p["uz"].shape[0]

    def step(h, x):
        z = jax.nn.sigmoid(x @ p["wz"] + h @ p["uz"])
        r = jax.nn.sigmoid(x @ p["wr"] + h @ p["ur"])
        n = jnp.tanh(x @ p["wn"] + (r * h) @ p["un"])
        h = (1 - z) * n + z * h
        return h, h

    h0 = jnp.zeros((xs.shape[1], hidden), xs.dtype)
    return lax.scan(step, h0, xs)


def _gru_inputs(rng, t=6, b=2, i=3, h=4):
    p = {k: _init(rng, (i, h)) for k in ("wz", "wr", "wn")}
    p.update({k: _init(rng, (h, h)) for k in ("uz", "ur", "un")})
    return [p, floats(rng, (t, b, i))]


# --- Embeddings --------------------------------------------------------------

def embed_mean(table, ids):
    return table[ids].mean(axis=1)


def _embed_inputs(rng, vocab=20, d=6, b=3, s=4):
    return [floats(rng, (vocab, d)), ints(rng, (b, s), 0, vocab)]


def bag_of_words_loss(table, w, ids, y):
    return xent(embed_mean(table, ids) @ w, y)


def _bow_inputs(rng, vocab=20, d=6, b=3, s=4, classes=3):
    return [floats(rng, (vocab, d)), _init(rng, (d, classes)),
            ints(rng, (b, s), 0, vocab), _one_hot(rng, b, classes)]


def lm_head_loss(table, ids, targets):
    # A tiny language model: embeddings, one tied projection back to vocab.
    h = jnp.tanh(table[ids])
    logits = h @ table.T
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, targets[..., None], -1))


def _lm_inputs(rng, vocab=16, d=8, b=2, s=5):
    return [floats(rng, (vocab, d)) * 0.5, ints(rng, (b, s), 0, vocab),
            ints(rng, (b, s), 0, vocab)]


PROGRAMS = {
    "mlp_forward": (lambda p, x, y: mlp(p, x), _mlp_inputs),
    "mlp_grad": (jax.grad(mlp_loss), _mlp_inputs),
    "mlp_value_and_grad": (jax.value_and_grad(mlp_loss), _mlp_inputs),
    "mlp_tanh_grad_wrt_input": (
        lambda p, x, y: jax.grad(
            lambda x: xent(mlp(p, x, jnp.tanh), y))(x), _mlp_inputs),
    "mlp_per_example_grads_vmap": (
        lambda p, x, y: jax.vmap(jax.grad(mlp_loss), (None, 0, 0))(
            p, x[:, None], y[:, None]),
        lambda r: _mlp_inputs(r, (6, 8, 3), 4)),
    "mlp_hessian_vector": (
        lambda p, x, y: jax.jvp(lambda x: jax.grad(
            lambda x: xent(mlp(p, x, jnp.tanh), y))(x), (x,), (x * 0.5,)),
        lambda r: _mlp_inputs(r, (5, 7, 3), 3)),
    "cnn_forward": (lambda p, x, y: cnn(p, x), _cnn_inputs),
    "cnn_grad": (jax.grad(lambda p, x, y: xent(cnn(p, x), y)), _cnn_inputs),
    "resnet_block_forward": (resnet_block, _resnet_inputs),
    "resnet_block_grad": (
        jax.grad(lambda p, x: jnp.sum(resnet_block(p, x) ** 2)),
        _resnet_inputs),
    "transformer_block_forward": (transformer_block, _transformer_inputs),
    "transformer_block_grad": (
        jax.grad(lambda p, x: jnp.mean(transformer_block(p, x) ** 2)),
        _transformer_inputs),
    "rmsnorm_rotary_attention": (llama_attention, _llama_inputs),
    "rmsnorm_rotary_attention_grad": (
        jax.grad(lambda p, x: jnp.sum(llama_attention(p, x) ** 2)),
        _llama_inputs),
    "swiglu_ffn_grad": (
        jax.value_and_grad(lambda p, x: jnp.sum(swiglu(p, rms_norm(
            x, jnp.ones(x.shape[-1]))))),
        lambda r: [{"w1": _init(r, (8, 12)), "w3": _init(r, (8, 12)),
                    "w2": _init(r, (12, 8))}, floats(r, (3, 8))]),
    "lstm_scan_forward": (lstm, _lstm_inputs),
    "lstm_scan_grad": (jax.grad(lambda p, xs: jnp.sum(lstm(p, xs)[0] ** 2)),
                       _lstm_inputs),
    "gru_scan_forward": (gru, _gru_inputs),
    "gru_scan_grad": (jax.grad(lambda p, xs: jnp.mean(gru(p, xs)[1])),
                      _gru_inputs),
    "embedding_mean": (embed_mean, _embed_inputs),
    "embedding_bow_grad": (jax.grad(bag_of_words_loss, argnums=(0, 1)),
                           _bow_inputs),
    "tied_lm_head_grad": (jax.value_and_grad(lm_head_loss), _lm_inputs),
}
