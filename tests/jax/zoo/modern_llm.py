"""Zoo: what recent language and sequence models do that the older themes
do not (the ninth hunt).

A Llama-style block with grouped-query attention (8 query heads sharing
2 key/value heads), RoPE, RMSNorm and SwiGLU, trained one AdamW step in
bf16 with f32 master weights; Gemma-style attention with QK-norm, tanh
logit soft-capping and alternating sliding-window/global layers; a
Mamba-style selective scan (input-dependent discretisation through
lax.associative_scan) and its gradient; RealNVP affine couplings with
their log-determinants; a vocabulary-chunked cross-entropy through
lax.map; Muon's Newton-Schulz orthogonalisation in bf16; decoding from a
paged KV cache (pages gathered through a block table, the new token
written back with dynamic_update_slice).
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import floats, ints


def _rms_norm(x, w, eps=1e-6):
    x32 = x.astype(jnp.float32)
    y = x32 * lax.rsqrt(jnp.mean(x32 * x32, axis=-1, keepdims=True) + eps)
    return (y * w).astype(x.dtype)


def _rope(x, positions):
    # x [..., seq, heads, dim]: rotate halves by position-dependent angles.
    half = x.shape[-1] // 2
    freqs = 1.0 / (10000.0 ** (jnp.arange(half, dtype=jnp.float32) / half))
    angles = positions[:, None].astype(jnp.float32) * freqs[None, :]
    cos = jnp.cos(angles)[:, None, :]
    sin = jnp.sin(angles)[:, None, :]
    x1 = x[..., :half].astype(jnp.float32)
    x2 = x[..., half:].astype(jnp.float32)
    out = jnp.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)
    return out.astype(x.dtype)


def _gqa_attention(x, wq, wk, wv, wo, q_heads, kv_heads):
    b, s, d = x.shape
    hd = wq.shape[1] // q_heads
    q = (x @ wq).reshape(b, s, q_heads, hd)
    k = (x @ wk).reshape(b, s, kv_heads, hd)
    v = (x @ wv).reshape(b, s, kv_heads, hd)
    pos = jnp.arange(s)
    q, k = _rope(q, pos), _rope(k, pos)
    # Each group of q_heads // kv_heads query heads reads one kv head.
    q = q.reshape(b, s, kv_heads, q_heads // kv_heads, hd)
    logits = jnp.einsum("bqhgd,bkhd->bhgqk", q, k).astype(jnp.float32)
    logits = logits / np.sqrt(hd)
    causal = pos[:, None] >= pos[None, :]
    logits = jnp.where(causal, logits, -1e30)
    p = jax.nn.softmax(logits, axis=-1).astype(v.dtype)
    o = jnp.einsum("bhgqk,bkhd->bqhgd", p, v).reshape(b, s, q_heads * hd)
    return o @ wo


def llama_gqa_adamw_step(params, m, v, tokens, targets):
    def loss_fn(p):
        cast = jax.tree_util.tree_map(lambda t: t.astype(jnp.bfloat16), p)
        x = cast["embed"][tokens]
        h = x + _gqa_attention(_rms_norm(x, cast["n1"]), cast["wq"],
                               cast["wk"], cast["wv"], cast["wo"], 8, 2)
        hn = _rms_norm(h, cast["n2"])
        mlp = (jax.nn.silu(hn @ cast["w_gate"]) * (hn @ cast["w_up"])) \
            @ cast["w_down"]
        out = _rms_norm(h + mlp, cast["n3"])
        logits = (out @ cast["embed"].T).astype(jnp.float32)
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.mean(jnp.take_along_axis(logp, targets[..., None], -1))

    loss, g = jax.value_and_grad(loss_fn)(params)
    b1, b2, lr, wd = 0.9, 0.95, 3e-4, 0.1
    m = jax.tree_util.tree_map(lambda a, b: b1 * a + (1 - b1) * b, m, g)
    v = jax.tree_util.tree_map(lambda a, b: b2 * a + (1 - b2) * b * b, v, g)
    params = jax.tree_util.tree_map(
        lambda p, a, b: p - lr * (a / (jnp.sqrt(b) + 1e-8) + wd * p),
        params, m, v)
    return loss, params, m, v


def _llama_inputs(r):
    vocab, d, hidden = 256, 128, 256
    p = {"embed": floats(r, (vocab, d)) * 0.02,
         "wq": floats(r, (d, d)) * 0.05, "wk": floats(r, (d, 32)) * 0.05,
         "wv": floats(r, (d, 32)) * 0.05, "wo": floats(r, (d, d)) * 0.05,
         "w_gate": floats(r, (d, hidden)) * 0.05,
         "w_up": floats(r, (d, hidden)) * 0.05,
         "w_down": floats(r, (hidden, d)) * 0.05,
         "n1": np.ones(d, np.float32), "n2": np.ones(d, np.float32),
         "n3": np.ones(d, np.float32)}
    m = {k: floats(r, x.shape) * 1e-3 for k, x in p.items()}
    v = {k: np.abs(floats(r, x.shape)) * 1e-4 for k, x in p.items()}
    return [p, m, v, ints(r, (2, 64), 0, vocab), ints(r, (2, 64), 0, vocab)]


def gemma_softcap_local_global(x, wq, wk, wv, qn, kn):
    # Two layers sharing weights: sliding window of 16, then global; QK
    # RMS-normed per head, logits soft-capped at 50 with tanh.
    b, s, d = x.shape
    heads, hd = 4, d // 4
    pos = jnp.arange(s)

    def layer(h, window):
        q = _rms_norm((h @ wq).reshape(b, s, heads, hd), qn)
        k = _rms_norm((h @ wk).reshape(b, s, heads, hd), kn)
        v = (h @ wv).reshape(b, s, heads, hd)
        logits = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(hd)
        logits = 50.0 * jnp.tanh(logits / 50.0)
        mask = pos[:, None] >= pos[None, :]
        if window:
            mask &= pos[:, None] - pos[None, :] < window
        logits = jnp.where(mask, logits, -jnp.inf)
        p = jax.nn.softmax(logits, axis=-1)
        return h + jnp.einsum("bhqk,bkhd->bqhd", p, v).reshape(b, s, d)

    def loss(x):
        return jnp.sum(layer(layer(x, 16), 0) ** 2)
    return jax.value_and_grad(loss)(x)


def mamba_selective_scan_grad(x, w_delta, a_log, w_b, w_c, d_skip):
    # x [batch, seq, channels]; state size n. h_t = exp(dt A) h_{t-1} +
    # dt B_t x_t; y_t = C_t . h_t + D x_t, as an associative scan over t.
    def forward(x, w_delta, a_log, w_b, w_c, d_skip):
        dt = jax.nn.softplus(x @ w_delta)                 # [b, s, c]
        a = -jnp.exp(a_log)                               # [c, n]
        bt = x @ w_b                                      # [b, s, n]
        ct = x @ w_c                                      # [b, s, n]
        da = jnp.exp(dt[..., None] * a)                   # [b, s, c, n]
        dbx = dt[..., None] * bt[:, :, None, :] * x[..., None]

        def combine(left, right):
            a1, b1 = left
            a2, b2 = right
            return a1 * a2, a2 * b1 + b2
        _, h = lax.associative_scan(combine, (da, dbx), axis=1)
        y = jnp.einsum("bscn,bsn->bsc", h, ct) + d_skip * x
        return jnp.mean(y ** 2)
    return jax.value_and_grad(forward, argnums=(0, 1, 2, 3, 4, 5))(
        x, w_delta, a_log, w_b, w_c, d_skip)


def realnvp_logprob_grad(x, w1, b1, w2, b2):
    # Four affine couplings alternating halves; log N(z) + sum log|det|.
    def coupling(x, w1, b1, w2, b2, flip):
        x1, x2 = jnp.split(x, 2, axis=-1)
        if flip:
            x1, x2 = x2, x1
        h = jnp.tanh(x1 @ w1 + b1)
        st = h @ w2 + b2
        s, t = jnp.tanh(st[:, :x2.shape[1]]), st[:, x2.shape[1]:]
        y2 = x2 * jnp.exp(s) + t
        out = jnp.concatenate([y2, x1] if flip else [x1, y2], axis=-1)
        return out, jnp.sum(s, axis=-1)

    def logprob(params):
        w1, b1, w2, b2 = params
        z, logdet = x, 0.0
        for i in range(4):
            z, ld = coupling(z, w1[i], b1[i], w2[i], b2[i], i % 2 == 1)
            logdet = logdet + ld
        base = -0.5 * jnp.sum(z * z, -1) - 0.5 * z.shape[1] * np.log(2 * np.pi)
        return jnp.mean(base + logdet)
    return jax.value_and_grad(logprob)((w1, b1, w2, b2))


def chunked_cross_entropy(hidden, w_vocab, targets):
    # The logits never materialise whole: lax.map over vocabulary chunks
    # keeps a running max and sum of exponentials, and the target logit.
    chunks = w_vocab.reshape(w_vocab.shape[0], 8, -1).transpose(1, 0, 2)
    size = chunks.shape[2]

    def per_chunk(args):
        i, w = args
        logits = (hidden @ w).astype(jnp.float32)       # [tokens, size]
        local = targets - i * size
        hit = (local >= 0) & (local < size)
        picked = jnp.take_along_axis(
            logits, jnp.clip(local, 0, size - 1)[:, None], 1)[:, 0]
        return (jnp.max(logits, -1), jax.nn.logsumexp(logits, -1),
                jnp.where(hit, picked, 0.0))
    maxes, lses, picked = lax.map(per_chunk, (jnp.arange(8), chunks))
    lse = jax.nn.logsumexp(lses, axis=0)
    return jnp.mean(lse - jnp.sum(picked, 0)), jnp.max(maxes)


def muon_newton_schulz(g, steps_scale):
    # Muon's quintic Newton-Schulz iteration towards the orthogonal factor,
    # in bf16 as it runs in practice, on a tall and a wide matrix.
    def orthogonalize(g):
        a, b, c = 3.4445, -4.7750, 2.0315
        x = g.astype(jnp.bfloat16)
        x = x / (jnp.linalg.norm(x.astype(jnp.float32)) + 1e-7).astype(
            jnp.bfloat16)
        tall = x.shape[0] > x.shape[1]
        if tall:
            x = x.T
        for _ in range(5):
            s = x @ x.T
            bmat = b * s + c * s @ s
            x = a * x + bmat @ x
        return (x.T if tall else x).astype(jnp.float32)
    return orthogonalize(g) * steps_scale, orthogonalize(g.T)


def paged_kv_decode(q, k_new, v_new, k_pages, v_pages, block_table, lengths):
    # One decode step for 3 sequences: write the new key/value at each
    # sequence's position in its page, then attend over its pages.
    page = k_pages.shape[1]
    pos = lengths
    page_idx = block_table[jnp.arange(3), pos // page]
    slot = pos % page

    def write(pages, new, p, s):
        zero = jnp.zeros((), p.dtype)
        return lax.dynamic_update_slice(pages, new[None, None],
                                        (p, s, zero, zero))
    for i in range(3):
        k_pages = write(k_pages, k_new[i], page_idx[i], slot[i])
        v_pages = write(v_pages, v_new[i], page_idx[i], slot[i])
    k = k_pages[block_table].reshape(3, -1, *k_pages.shape[2:])
    v = v_pages[block_table].reshape(3, -1, *v_pages.shape[2:])
    logits = jnp.einsum("bhd,bthd->bht", q, k) / np.sqrt(q.shape[-1])
    valid = jnp.arange(k.shape[1])[None, :] <= pos[:, None]
    logits = jnp.where(valid[:, None, :], logits, -1e30)
    out = jnp.einsum("bht,bthd->bhd", jax.nn.softmax(logits, -1), v)
    return out, k_pages, v_pages


PROGRAMS = {
    "llama_gqa_adamw_step": (llama_gqa_adamw_step, _llama_inputs),
    "gemma_softcap_local_global": (
        gemma_softcap_local_global,
        lambda r: [floats(r, (2, 48, 64)), floats(r, (64, 64)) * 0.1,
                   floats(r, (64, 64)) * 0.1, floats(r, (64, 64)) * 0.1,
                   1.0 + 0.1 * floats(r, (16,)),
                   1.0 + 0.1 * floats(r, (16,))]),
    "mamba_selective_scan_grad": (
        mamba_selective_scan_grad,
        lambda r: [floats(r, (2, 40, 12)), floats(r, (12, 12)) * 0.3,
                   floats(r, (12, 6)) * 0.3, floats(r, (12, 6)) * 0.3,
                   floats(r, (12, 6)) * 0.3, floats(r, (12,))]),
    "realnvp_logprob_grad": (
        realnvp_logprob_grad,
        lambda r: [floats(r, (64, 8)), floats(r, (4, 4, 32)) * 0.3,
                   floats(r, (4, 32)) * 0.1, floats(r, (4, 32, 8)) * 0.1,
                   floats(r, (4, 8)) * 0.1]),
    "chunked_cross_entropy": (
        chunked_cross_entropy,
        lambda r: [floats(r, (48, 32)), floats(r, (32, 1000)) * 0.2,
                   ints(r, (48,), 0, 1000)]),
    "muon_newton_schulz": (
        muon_newton_schulz,
        lambda r: [floats(r, (96, 40)), np.float32(0.2)]),
    "paged_kv_decode": (
        paged_kv_decode,
        lambda r: [floats(r, (3, 4, 16)), floats(r, (3, 4, 16)),
                   floats(r, (3, 4, 16)), floats(r, (10, 8, 4, 16)),
                   floats(r, (10, 8, 4, 16)),
                   np.array([[3, 7, 1], [0, 9, 5], [2, 8, 6]], np.int32),
                   np.array([5, 16, 23], np.int32)]),
}
