"""Array plumbing: gathers and scatters, top-k sampling, sort and argsort,
cumulative ops, padding, slicing, concatenation, dynamic slicing in loops,
vmap over all of these."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import floats, ints, prng_key


def top_k_sample(logits, key, k=3, temperature=0.7):
    values, indices = lax.top_k(logits / temperature, k)
    choice = jax.random.categorical(key, values, axis=-1)
    return jnp.take_along_axis(indices, choice[:, None], axis=-1)[:, 0]


def top_p_mask(logits, p=0.9):
    # Nucleus sampling's mask: sort descending, cumulative softmax, cut.
    order = jnp.argsort(-logits, axis=-1)
    sorted_logits = jnp.take_along_axis(logits, order, -1)
    cum = jnp.cumsum(jax.nn.softmax(sorted_logits, -1), -1)
    keep_sorted = cum - jax.nn.softmax(sorted_logits, -1) < p
    inverse = jnp.argsort(order, axis=-1)
    return jnp.take_along_axis(keep_sorted, inverse, -1)


def greedy_decode(table, w, start, steps=5):
    # A toy decoder: embedding, projection, argmax, fed back in a scan.
    def step(tok, _):
        nxt = jnp.argmax(jnp.tanh(table[tok]) @ w, axis=-1).astype(tok.dtype)
        return nxt, nxt

    return lax.scan(step, start, None, length=steps)[1]


def sliding_window_sum(x, width=3):
    def body(i, acc):
        return acc.at[i].set(jnp.sum(lax.dynamic_slice(x, (i,), (width,))))

    n = x.shape[0] - width + 1
    return lax.fori_loop(0, n, body, jnp.zeros(n, x.dtype))


def kv_cache_update(cache, new, pos):
    # Decoding with a KV cache: write one step at a dynamic position.
    return lax.dynamic_update_slice_in_dim(cache, new[:, None], pos, axis=1)


def kv_cache_loop(x):
    cache = jnp.zeros((x.shape[0], x.shape[1], x.shape[2]), x.dtype)

    def body(t, cache):
        row = lax.dynamic_slice_in_dim(x, t, 1, axis=1) * (t + 1)
        return lax.dynamic_update_slice_in_dim(cache, row, t, axis=1)

    return lax.fori_loop(0, x.shape[1], body, cache)


def segment_sum(data, segment_ids, n=4):
    return jax.ops.segment_sum(data, segment_ids, num_segments=n)


def scatter_histogram(ids, n=8):
    return jnp.zeros(n, jnp.int32).at[ids].add(1)


def patchify(images, p=2):
    # ViT patches: reshape and transpose.
    b, h, w, c = images.shape
    x = images.reshape(b, h // p, p, w // p, p, c)
    return x.transpose(0, 1, 3, 2, 4, 5).reshape(b, -1, p * p * c)


def im2col_pad(x):
    padded = jnp.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="reflect")
    cols = [padded[:, i:i + x.shape[1], j:j + x.shape[2]]
            for i in range(3) for j in range(3)]
    return jnp.concatenate(cols, axis=-1)


def nms_scores(scores, boxes_x):
    # A greedy suppression pass: argsort, then suppress neighbours in a loop.
    order = jnp.argsort(-scores)

    def body(i, keep):
        idx = order[i]
        close = jnp.abs(boxes_x - boxes_x[idx]) < 0.5
        later = jnp.arange(scores.shape[0]) != idx
        suppress = keep[idx] & close & later & (scores < scores[idx])
        return keep & ~suppress

    return lax.fori_loop(0, scores.shape[0], body,
                         jnp.ones(scores.shape, bool))


def _rounded(rng, shape):
    # One decimal: sorts see ties, as real data has.
    return np.round(floats(rng, shape), 1)


PROGRAMS = {
    "gather_embedding_rows": (lambda t, i: t[i],
                              lambda r: [floats(r, (10, 4)),
                                         ints(r, (3, 5), 0, 10)]),
    "take_along_axis": (lambda x, i: jnp.take_along_axis(x, i, axis=1),
                        lambda r: [floats(r, (4, 6)),
                                   ints(r, (4, 3), 0, 6)]),
    "gather_clamped_out_of_bounds": (
        lambda x, i: (jnp.take(x, i, axis=0, mode="clip"),
                      x.at[i].get(mode="fill", fill_value=-1.0)),
        lambda r: [floats(r, (6, 2)), ints(r, (8,), -9, 9)]),
    "scatter_add_grad_of_gather": (
        jax.grad(lambda t, i: jnp.sum(jnp.sin(t[i]))),
        lambda r: [floats(r, (7, 3)), ints(r, (9,), 0, 7)]),
    "scatter_set_max_min": (
        lambda x, i, u: (x.at[i].set(u), x.at[i].max(u), x.at[i].min(u),
                         x.at[i].mul(u)),
        lambda r: [floats(r, (8,)), ints(r, (5,), 0, 8), floats(r, (5,))]),
    "segment_sum": (segment_sum, lambda r: [floats(r, (10, 3)),
                                            ints(r, (10,), 0, 4)]),
    "histogram_scatter_int": (scatter_histogram,
                              lambda r: [ints(r, (30,), 0, 8)]),
    "top_k_values_indices": (lambda x: lax.top_k(x, 4),
                             lambda r: [_rounded(r, (3, 10))]),
    "top_k_sampling": (top_k_sample, lambda r: [floats(r, (4, 12)),
                                                prng_key(r)]),
    "top_p_mask": (top_p_mask, lambda r: [floats(r, (3, 9)) * 2]),
    "sort_argsort_rows": (
        lambda x: (jnp.sort(x, axis=1), jnp.argsort(x, axis=1, stable=True),
                   jnp.sort(x, axis=0, descending=True)),
        lambda r: [_rounded(r, (5, 8))]),
    "sort_key_value": (
        lambda k, v: lax.sort((k, v), num_keys=1),
        lambda r: [ints(r, (12,), 0, 5), floats(r, (12,))]),
    "sort_int_and_unique_counts": (
        lambda x: (jnp.sort(x), jnp.searchsorted(jnp.sort(x),
                                                 jnp.arange(5))),
        lambda r: [ints(r, (15,), 0, 6)]),
    "median_quantile": (lambda x: (jnp.median(x, axis=1),
                                   jnp.quantile(x, 0.25, axis=0)),
                        lambda r: [floats(r, (5, 7))]),
    "cumsum_cumprod_cummax": (
        lambda x: (jnp.cumsum(x, 0), jnp.cumprod(1 + 0.1 * x, 1),
                   lax.cummax(x, 1), lax.cummin(x, 0),
                   lax.cumlogsumexp(x, 1)),
        lambda r: [floats(r, (6, 7))]),
    "cumsum_int_reverse": (
        lambda x: (jnp.cumsum(x), lax.cumsum(x, reverse=True)),
        lambda r: [ints(r, (11,), -5, 5)]),
    "cumsum_grad": (jax.grad(lambda x: jnp.sum(jnp.cumsum(x, 1) ** 2)),
                    lambda r: [floats(r, (3, 6))]),
    "pad_modes": (
        lambda x: (jnp.pad(x, ((1, 2), (0, 3))),
                   jnp.pad(x, 2, mode="edge"), jnp.pad(x, 1, mode="reflect"),
                   jnp.pad(x, ((0, 1), (2, 0)), constant_values=-1.0)),
        lambda r: [floats(r, (4, 5))]),
    "im2col_reflect_pad_concat": (im2col_pad,
                                  lambda r: [floats(r, (1, 4, 5, 2))]),
    "strided_slices_reverse": (
        lambda x: (x[::2, 1::3], x[::-1, ::-2], x[1:-1, 2:], x[..., None, 0]),
        lambda r: [floats(r, (7, 9))]),
    "concat_stack_split": (
        lambda a, b: (jnp.concatenate([a, b, a], 0), jnp.stack([a, b], -1),
                      jnp.split(jnp.concatenate([a, b], 1), 4, axis=1)),
        lambda r: [floats(r, (3, 4)), floats(r, (3, 4))]),
    "patchify_transpose": (patchify, lambda r: [floats(r, (2, 4, 6, 3))]),
    "dynamic_slice_sliding_window": (sliding_window_sum,
                                     lambda r: [floats(r, (10,))]),
    "dynamic_update_kv_cache": (
        kv_cache_update,
        lambda r: [floats(r, (2, 6, 4)), floats(r, (2, 4)),
                   np.int32(r.integers(0, 6))]),
    "kv_cache_fori_loop": (kv_cache_loop, lambda r: [floats(r, (2, 5, 3))]),
    "greedy_decode_scan": (
        greedy_decode,
        lambda r: [floats(r, (8, 5)), floats(r, (5, 8)),
                   ints(r, (3,), 0, 8)]),
    "nms_fori_loop": (nms_scores, lambda r: [np.abs(floats(r, (8,))),
                                             floats(r, (8,)) * 2]),
    "vmap_dynamic_slice": (
        jax.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (3,))),
        lambda r: [floats(r, (5, 8)), ints(r, (5,), -2, 9)]),
    "roll_tril_triu_diag": (
        lambda x: (jnp.roll(x, 2, axis=1), jnp.tril(x), jnp.triu(x, 1),
                   jnp.diagonal(x), jnp.trace(x)),
        lambda r: [floats(r, (5, 5))]),
    "where_nonzero_size": (
        lambda x: jnp.nonzero(x > 0, size=6, fill_value=-1)[0],
        lambda r: [floats(r, (10,))]),
    "one_hot_argmax_accuracy": (
        lambda logits, labels: (jnp.mean(jnp.argmax(logits, -1) == labels),
                                jax.nn.one_hot(labels, logits.shape[-1])),
        lambda r: [floats(r, (9, 4)), ints(r, (9,), 0, 4)]),
    "meshgrid_outer_broadcast": (
        lambda a, b: (jnp.meshgrid(a, b)[0] * jnp.meshgrid(a, b)[1],
                      jnp.outer(a, b), a[:, None, None] + b[None, :, None]),
        lambda r: [floats(r, (4,)), floats(r, (3,))]),
}
