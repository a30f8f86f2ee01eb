"""Research code as people write it in plain JAX: building blocks of recent
papers and the numerical tools around them.

A diffusion UNet block (group norm, SiLU, sinusoidal time embedding),
upsampling with jax.image.resize, transposed, depthwise and dilated
convolutions, a ViT patch embedding, graph message passing with segment
reductions, mixture-of-experts top-2 routing, a beam search step, k-means,
an n-body step, ALiBi attention, CTC's forward recursion, Sinkhorn
iterations, spectral normalisation, small linear algebra, FFT convolution,
binning and interpolation, and a few of their gradients. Mixed f32, bf16,
f16, int32 and bool.
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import floats, ints, prng_key


def _w(rng, shape, scale):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _conv(x, w, stride=1, padding="SAME", groups=1, dilation=1):
    return lax.conv_general_dilated(
        x, w, (stride, stride), padding, rhs_dilation=(dilation, dilation),
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=groups)


# --- Diffusion UNet residual block -------------------------------------------

def group_norm(x, gamma, beta, groups, eps=1e-5):
    n, h, w, c = x.shape
    g = x.reshape(n, h, w, groups, c // groups)
    mean = g.mean(axis=(1, 2, 4), keepdims=True)
    var = g.var(axis=(1, 2, 4), keepdims=True)
    g = (g - mean) * lax.rsqrt(var + eps)
    return g.reshape(n, h, w, c) * gamma + beta


def timestep_embedding(t, dim, max_period=10000.0):
    half = dim // 2
    freqs = jnp.exp(-jnp.log(max_period) * jnp.arange(half, dtype=jnp.float32)
                    / half)
    args = t.astype(jnp.float32)[:, None] * freqs[None]
    return jnp.concatenate([jnp.cos(args), jnp.sin(args)], axis=-1)


def unet_block(p, x, t):
    h = jax.nn.silu(group_norm(x, p["g1"], p["b1"], 2))
    h = _conv(h, p["w1"])
    temb = jax.nn.silu(timestep_embedding(t, 8)) @ p["wt"]
    h = h + temb[:, None, None, :]
    h = jax.nn.silu(group_norm(h, p["g2"], p["b2"], 2))
    h = _conv(h, p["w2"])
    return x + h


def _unet_inputs(rng, c=4):
    p = {"g1": np.ones(c, np.float32), "b1": np.zeros(c, np.float32),
         "w1": _w(rng, (3, 3, c, c), 0.3), "wt": _w(rng, (8, c), 0.3),
         "g2": (1 + 0.1 * floats(rng, (c,))),
         "b2": 0.1 * floats(rng, (c,)), "w2": _w(rng, (3, 3, c, c), 0.3)}
    return [p, floats(rng, (2, 6, 6, c)), ints(rng, (2,), 0, 1000)]


def unet_loss(p, x, t):
    return jnp.mean(unet_block(p, x, t) ** 2)


# --- Upsampling, transposed / depthwise / dilated convolutions ---------------

def upsample(x):
    n, h, w, c = x.shape
    near = jax.image.resize(x, (n, 2 * h, 2 * w, c), "nearest")
    bil = jax.image.resize(x, (n, 2 * h, 2 * w, c), "bilinear")
    x16 = x.astype(jnp.float16)
    near16 = jax.image.resize(x16, (n, 2 * h, 3 * w, c), "nearest")
    return near, bil, near16


def conv_transpose_decoder(w, x):
    y = lax.conv_transpose(x, w, (2, 2), "SAME",
                           dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jnp.tanh(y)


def depthwise_separable(dw, pw, x):
    c = x.shape[-1]
    h = _conv(x, dw, groups=c)
    h = jax.nn.relu6(h)
    return _conv(h, pw)


def wavenet_layer(wf, wg, wr, x):
    # Causal dilated 1-D convolutions (NWC), gated activation, residual.
    def causal(x, w, d):
        k = w.shape[0]
        x = jnp.pad(x, ((0, 0), ((k - 1) * d, 0), (0, 0)))
        return lax.conv_general_dilated(x, w, (1,), "VALID",
                                        rhs_dilation=(d,),
                                        dimension_numbers=("NWC", "WIO",
                                                           "NWC"))
    for d in (1, 2, 4):
        z = jnp.tanh(causal(x, wf, d)) * jax.nn.sigmoid(causal(x, wg, d))
        x = x + z @ wr
    return x


# --- ViT patch embedding -----------------------------------------------------

def vit_embed(p, x, patch=2):
    h = _conv(x, p["proj"], stride=patch, padding="VALID")
    n = h.shape[0]
    h = h.reshape(n, -1, h.shape[-1])
    cls = jnp.broadcast_to(p["cls"], (n, 1, h.shape[-1]))
    h = jnp.concatenate([cls, h], axis=1) + p["pos"]
    mu = h.mean(-1, keepdims=True)
    h = (h - mu) * lax.rsqrt(((h - mu) ** 2).mean(-1, keepdims=True) + 1e-6)
    return h[:, 0] @ p["head"]


def _vit_inputs(rng, d=6):
    p = {"proj": _w(rng, (2, 2, 3, d), 0.3), "cls": _w(rng, (1, 1, d), 0.02),
         "pos": _w(rng, (1, 10, d), 0.02), "head": _w(rng, (d, 3), 0.3)}
    return [p, floats(rng, (2, 6, 6, 3))]


def vit_loss(p, x):
    return jnp.sum(jax.nn.log_softmax(vit_embed(p, x))[:, 0])


# --- Graph networks ----------------------------------------------------------

def gnn_layer(w_msg, w_upd, nodes, senders, receivers, edge_w):
    n = nodes.shape[0]
    msg = jax.nn.relu(nodes[senders] @ w_msg) * edge_w[:, None]
    summed = jax.ops.segment_sum(msg, receivers, num_segments=n)
    maxed = jax.ops.segment_max(msg, receivers, num_segments=n)
    maxed = jnp.where(jnp.isfinite(maxed), maxed, 0.0)
    degree = jax.ops.segment_sum(jnp.ones_like(receivers), receivers,
                                 num_segments=n)
    h = jnp.concatenate([nodes, summed / jnp.maximum(degree, 1)[:, None],
                         maxed], axis=-1)
    return jnp.tanh(h @ w_upd), degree


def graph_attention(w, a, nodes, senders, receivers):
    # GAT: softmax over each node's incoming edges, stabilised by segment_max.
    n = nodes.shape[0]
    h = nodes @ w
    logits = jax.nn.leaky_relu(
        jnp.concatenate([h[senders], h[receivers]], -1) @ a, 0.2)
    m = jax.ops.segment_max(logits, receivers, num_segments=n)
    e = jnp.exp(logits - m[receivers])
    z = jax.ops.segment_sum(e, receivers, num_segments=n)
    alpha = e / z[receivers]
    return jax.ops.segment_sum(alpha[:, None] * h[senders], receivers,
                               num_segments=n)


def _graph_inputs(rng, n=6, e=14, d=4):
    return [ints(rng, (e,), 0, n), ints(rng, (e,), 0, n)]


# --- Mixture of experts: top-2 routing ---------------------------------------

def moe_top2(w_router, w_in, w_out, x):
    # Switch/GShard style: dispatch and combine through one-hot masks, with
    # expert weights in bf16 and the router in f32.
    e = w_router.shape[1]
    probs = jax.nn.softmax(x @ w_router, axis=-1)
    gates, idx = lax.top_k(probs, 2)
    gates = gates / gates.sum(-1, keepdims=True)
    mask = jax.nn.one_hot(idx, e, dtype=jnp.float32)          # [t, 2, e]
    combine = jnp.einsum("tk,tke->te", gates, mask)
    xb = x.astype(jnp.bfloat16)
    h = jax.nn.gelu(jnp.einsum("td,edf->tef", xb, w_in))
    y = jnp.einsum("tef,efd->ted", h, w_out).astype(jnp.float32)
    out = jnp.einsum("te,ted->td", combine, y)
    # Load-balancing auxiliary loss.
    density = mask[:, 0].mean(0)
    aux = e * jnp.sum(density * probs.mean(0))
    return out, aux, idx


def _moe_inputs(rng, t=6, d=4, f=8, e=4):
    return [_w(rng, (d, e), 1.0),
            _w(rng, (e, d, f), 0.5).astype(jnp.bfloat16),
            _w(rng, (e, f, d), 0.5).astype(jnp.bfloat16), floats(rng, (t, d))]


# --- Beam search step --------------------------------------------------------

def beam_search_step(beam_scores, logits, tokens, alive):
    b, k, v = logits.shape
    logp = jax.nn.log_softmax(logits, axis=-1)
    cand = jnp.where(alive[:, :, None], beam_scores[:, :, None] + logp,
                     -1e9)
    flat = cand.reshape(b, k * v)
    scores, flat_idx = lax.top_k(flat, k)
    beam = flat_idx // v
    tok = flat_idx % v
    prev = jnp.take_along_axis(tokens, beam[:, :, None], axis=1)
    new_tokens = jnp.concatenate([prev, tok[:, :, None]], axis=-1)
    new_alive = jnp.take_along_axis(alive, beam, axis=1) & (tok != 0)
    return scores, new_tokens, new_alive


# --- Clustering and physics --------------------------------------------------

def kmeans_step(x, centroids):
    d2 = (jnp.sum(x ** 2, 1)[:, None] - 2 * x @ centroids.T
          + jnp.sum(centroids ** 2, 1)[None])
    assign = jnp.argmin(d2, axis=1)
    k = centroids.shape[0]
    sums = jax.ops.segment_sum(x, assign, num_segments=k)
    counts = jnp.bincount(assign, length=k)
    new = jnp.where(counts[:, None] > 0,
                    sums / jnp.maximum(counts, 1)[:, None], centroids)
    inertia = jnp.sum(jnp.min(d2, axis=1))
    return new, assign, inertia


def nbody_leapfrog(pos, vel, mass, steps=4, dt=0.01, eps=0.1):
    def accel(pos):
        d = pos[None, :, :] - pos[:, None, :]
        r2 = jnp.sum(d ** 2, -1) + eps ** 2
        inv = mass[None, :] * r2 ** -1.5
        return jnp.sum(d * inv[:, :, None], axis=1)

    def body(_, state):
        pos, vel = state
        vel = vel + 0.5 * dt * accel(pos)
        pos = pos + dt * vel
        vel = vel + 0.5 * dt * accel(pos)
        return pos, vel

    pos, vel = lax.fori_loop(0, steps, body, (pos, vel))
    energy = 0.5 * jnp.sum(mass[:, None] * vel ** 2)
    return pos, vel, energy


# --- Attention with ALiBi ----------------------------------------------------

def alibi_attention(q, k, v):
    # q, k, v: [batch, heads, seq, dim]; linear biases per head, causal.
    h, s = q.shape[1], q.shape[2]
    slopes = 2.0 ** (-8.0 * jnp.arange(1, h + 1, dtype=jnp.float32) / h)
    pos = jnp.arange(s)
    rel = (pos[None, :] - pos[:, None]).astype(jnp.float32)
    bias = slopes[:, None, None] * rel[None]
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(q.shape[-1])
    causal = pos[None, :] <= pos[:, None]
    scores = jnp.where(causal, scores + bias, jnp.finfo(jnp.float32).min)
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(scores, -1), v)


# --- Sequence DP: CTC forward, cumulative logsumexp --------------------------

def ctc_loss(logits, labels, blank=0):
    # The CTC forward (alpha) recursion in log space over the extended label
    # sequence blank, l1, blank, l2, ..., blank.
    logp = jax.nn.log_softmax(logits, -1)
    ext = jnp.stack([jnp.full_like(labels, blank), labels], 1).reshape(-1)
    ext = jnp.concatenate([ext, jnp.array([blank], labels.dtype)])
    s = ext.shape[0]
    neg = -1e30
    skip = jnp.concatenate([jnp.array([False, False]),
                            (ext[2:] != blank) & (ext[2:] != ext[:-2])])
    alpha0 = jnp.full((s,), neg, logp.dtype).at[0].set(logp[0, blank])
    alpha0 = alpha0.at[1].set(logp[0, ext[1]])

    def step(alpha, lp):
        a1 = jnp.concatenate([jnp.array([neg], alpha.dtype), alpha[:-1]])
        a2 = jnp.concatenate([jnp.array([neg, neg], alpha.dtype),
                              alpha[:-2]])
        a = jnp.logaddexp(alpha, a1)
        a = jnp.where(skip, jnp.logaddexp(a, a2), a)
        return a + lp[ext], None

    alpha, _ = lax.scan(step, alpha0, logp[1:])
    return -jnp.logaddexp(alpha[-1], alpha[-2])


def cumulative_logsumexp(x):
    scanned = lax.associative_scan(jnp.logaddexp, x, axis=1)
    builtin = lax.cumlogsumexp(x, axis=1)
    rev = lax.associative_scan(jnp.logaddexp, x, axis=0, reverse=True)
    return scanned, builtin, rev


# --- Optimal transport, spectral norm ---------------------------------------

def sinkhorn(cost, eps=0.5, iters=20):
    n, m = cost.shape
    log_a = jnp.full((n,), -np.log(n), cost.dtype)
    log_b = jnp.full((m,), -np.log(m), cost.dtype)

    def body(_, fg):
        f, g = fg
        f = eps * (log_a - jax.nn.logsumexp((g[None] - cost) / eps, axis=1))
        g = eps * (log_b - jax.nn.logsumexp((f[:, None] - cost) / eps,
                                            axis=0))
        return f, g

    f, g = lax.fori_loop(0, iters, body, (jnp.zeros(n, cost.dtype),
                                            jnp.zeros(m, cost.dtype)))
    plan = jnp.exp((f[:, None] + g[None] - cost) / eps)
    return plan, jnp.sum(plan * cost)


def spectral_norm(w, u, iters=5):
    def body(_, u):
        v = w.T @ u
        v = v / (jnp.linalg.norm(v) + 1e-12)
        u = w @ v
        return u / (jnp.linalg.norm(u) + 1e-12)

    u = lax.fori_loop(0, iters, body, u)
    v = w.T @ u
    v = v / (jnp.linalg.norm(v) + 1e-12)
    sigma = u @ w @ v
    return w / sigma, sigma


# --- Linear algebra, FFT, binning, interpolation -----------------------------

def spd_linalg(a, b):
    spd = a @ a.T + 3.0 * jnp.eye(a.shape[0], dtype=a.dtype)
    chol = jnp.linalg.cholesky(spd)
    x = jnp.linalg.solve(spd, b)
    inv = jnp.linalg.inv(spd)
    y = jax.scipy.linalg.cho_solve((chol, True), b)
    logdet = 2.0 * jnp.sum(jnp.log(jnp.diagonal(chol)))
    return chol, x, inv, y, logdet


def newton_solve_loop(a, b):
    # Newton's method on spd @ x + x**3 = b: a solve (LAPACK getrf and
    # getrs on the CPU, cuSOLVER on the GPU) in every iteration of a
    # fori_loop, and expm, whose Pade degree is chosen by lax.cond around
    # another solve: library calls inside control flow.
    spd = a @ a.T / a.shape[0] + jnp.eye(a.shape[0], dtype=a.dtype)

    def step(i, x):
        jac = spd + jnp.diag(3.0 * x ** 2)
        return x - jnp.linalg.solve(jac, spd @ x + x ** 3 - b)
    x = lax.fori_loop(0, 8, step, jnp.zeros_like(b))
    return x, jax.scipy.linalg.expm(0.2 * a)


def gaussian_nll_grad(a, b):
    # Gradient of a Gaussian log-likelihood through Cholesky and solve.
    def nll(a):
        cov = a @ a.T + jnp.eye(a.shape[0], dtype=a.dtype)
        chol = jnp.linalg.cholesky(cov)
        z = jax.scipy.linalg.solve_triangular(chol, b, lower=True)
        return 0.5 * jnp.sum(z ** 2) + jnp.sum(jnp.log(jnp.diagonal(chol)))
    return jax.value_and_grad(nll)(a)


def fft_convolve(x, k):
    n = x.shape[-1] + k.shape[-1] - 1
    size = 1 << (n - 1).bit_length()
    y = jnp.fft.irfft(jnp.fft.rfft(x, size) * jnp.fft.rfft(k, size), size)
    return y[..., :n], jnp.convolve(x[0], k[0], mode="full")


def binning(x, edges, q):
    idx = jnp.searchsorted(edges, x)
    right = jnp.searchsorted(edges, x, side="right")
    dig = jnp.digitize(x, edges)
    counts = jnp.bincount(jnp.clip(dig, 0, edges.shape[0]),
                          length=edges.shape[0] + 1)
    hist, _ = jnp.histogram(x, bins=5, range=(-2.0, 2.0))
    interp = jnp.interp(q, edges, jnp.cos(edges))
    poly = jnp.polyval(jnp.array([0.5, -1.0, 2.0, 0.25], q.dtype), q)
    return idx, right, dig, counts, hist, interp, poly


# --- Activations, precision, sorting ---------------------------------------

def activations_exact_grad(x):
    def f(x):
        return jnp.sum(jax.nn.gelu(x, approximate=False)
                       + jax.nn.softplus(x) + jax.nn.log_sigmoid(x)
                       + jax.nn.mish(x) + jax.nn.celu(x, 0.5)
                       + jax.nn.glu(jnp.concatenate([x, x[::-1]]))
                       .sum())
    return jax.value_and_grad(f)(x)


def reduce_precision_emulation(x):
    # Emulating narrower floats in f32, as quantisation research does.
    return (lax.reduce_precision(x, exponent_bits=8, mantissa_bits=7),
            lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10),
            lax.reduce_precision(x * 100, exponent_bits=4, mantissa_bits=3),
            lax.reduce_precision(x * 1e4, exponent_bits=5, mantissa_bits=2))


def unique_stable_argsort(x):
    vals, inv, counts = jnp.unique(x, size=8, fill_value=-1,
                                   return_inverse=True, return_counts=True)
    order = jnp.argsort(x, stable=True)
    desc = jnp.argsort(x, stable=True, descending=True)
    by_key = jnp.lexsort((jnp.arange(x.shape[0]) % 3, x))
    return vals, inv, counts, order, desc, by_key


def tile_max_fori(x, tile=2):
    # Tiled reduction with dynamic_slice / dynamic_update_slice in loops.
    nh, nw = x.shape[0] // tile, x.shape[1] // tile

    def body(t, out):
        i, j = t // nw, t % nw
        blk = lax.dynamic_slice(x, (i * tile, j * tile), (tile, tile))
        return lax.dynamic_update_slice(out, jnp.max(blk).reshape(1, 1),
                                        (i, j))

    return lax.fori_loop(0, nh * nw, body, jnp.zeros((nh, nw), x.dtype))


def ddpm_loss(w, x0, t, key, alphas_cumprod):
    # A diffusion training step: noise at a gathered schedule, predict it.
    noise = jax.random.normal(key, x0.shape)
    a = alphas_cumprod[t][:, None]
    xt = jnp.sqrt(a) * x0 + jnp.sqrt(1 - a) * noise
    temb = jnp.sin(t.astype(jnp.float32))[:, None]
    pred = jnp.tanh(jnp.concatenate([xt, temb], -1) @ w)
    return jnp.mean((pred - noise) ** 2)


def gumbel_softmax_st(logits, key, w, tau=0.5):
    # Straight-through Gumbel-softmax: hard one-hot forward, soft backward.
    def loss(logits):
        g = -jnp.log(-jnp.log(jax.random.uniform(key, logits.shape,
                                                 minval=1e-6, maxval=1.0)))
        y = jax.nn.softmax((logits + g) / tau, -1)
        hard = jax.nn.one_hot(jnp.argmax(y, -1), logits.shape[-1],
                              dtype=logits.dtype)
        y = hard - lax.stop_gradient(y) + y
        return jnp.sum((y @ w) ** 2)
    return jax.value_and_grad(loss)(logits)


def per_example_weighted_losses(w, x, labels, mask):
    def loss(x, y):
        logits = x @ w
        return -jax.nn.log_softmax(logits)[y]
    losses = jax.vmap(loss)(x, labels)
    per_grad = jax.vmap(jax.grad(lambda w, x, y: -jax.nn.log_softmax(
        x @ w)[y]), in_axes=(None, 0, 0))(w, x, labels)
    return (jnp.sum(losses * mask) / jnp.maximum(mask.sum(), 1),
            jnp.linalg.norm(per_grad.reshape(x.shape[0], -1), axis=1))


PROGRAMS = {
    "unet_groupnorm_silu_block": (unet_block, _unet_inputs),
    "unet_groupnorm_silu_grad": (jax.grad(unet_loss), _unet_inputs),
    "upsample_nearest_bilinear": (upsample, lambda r: [floats(r, (1, 3, 4,
                                                                  2))]),
    "conv_transpose_decoder_grad": (
        jax.value_and_grad(lambda w, x: jnp.sum(
            conv_transpose_decoder(w, x) ** 2), argnums=(0, 1)),
        lambda r: [_w(r, (3, 3, 3, 2), 0.3), floats(r, (2, 3, 3, 3))]),
    "depthwise_separable_conv": (
        depthwise_separable,
        lambda r: [_w(r, (3, 3, 1, 4), 0.5), _w(r, (1, 1, 4, 6), 0.5),
                   floats(r, (2, 5, 5, 4))]),
    "wavenet_dilated_causal": (
        wavenet_layer,
        lambda r: [_w(r, (2, 3, 3), 0.5), _w(r, (2, 3, 3), 0.5),
                   _w(r, (3, 3), 0.5), floats(r, (2, 10, 3))]),
    "vit_patch_embed_cls_grad": (jax.value_and_grad(vit_loss), _vit_inputs),
    "gnn_segment_sum_max": (
        lambda s, r_, w1, w2, nodes, ew: gnn_layer(w1, w2, nodes, s, r_, ew),
        lambda r: _graph_inputs(r) + [_w(r, (4, 4), 0.5),
                                      _w(r, (12, 4), 0.3),
                                      floats(r, (6, 4)),
                                      np.abs(floats(r, (14,)))]),
    "gat_segment_softmax": (
        lambda s, r_, w, a, nodes: graph_attention(w, a, nodes, s, r_),
        lambda r: _graph_inputs(r) + [_w(r, (4, 4), 0.5), _w(r, (8,), 0.5),
                                      floats(r, (6, 4))]),
    "moe_top2_bf16_experts": (moe_top2, _moe_inputs),
    "beam_search_step": (
        beam_search_step,
        lambda r: [np.sort(floats(r, (2, 3)))[:, ::-1].copy(),
                   floats(r, (2, 3, 7)) * 2, ints(r, (2, 3, 4), 0, 7),
                   r.random((2, 3)) < 0.8]),
    "kmeans_assign_update": (kmeans_step, lambda r: [floats(r, (20, 2)),
                                                     floats(r, (3, 2))]),
    "nbody_leapfrog_fori": (
        nbody_leapfrog,
        lambda r: [floats(r, (5, 3)), floats(r, (5, 3)) * 0.1,
                   np.abs(floats(r, (5,))) + 0.5]),
    "alibi_causal_attention_grad": (
        jax.grad(lambda q, k, v: jnp.sum(alibi_attention(q, k, v) ** 2),
                 argnums=(0, 1, 2)),
        lambda r: [floats(r, (1, 2, 5, 4)), floats(r, (1, 2, 5, 4)),
                   floats(r, (1, 2, 5, 4))]),
    "ctc_forward_scan_grad": (
        jax.value_and_grad(ctc_loss),
        lambda r: [floats(r, (8, 5)), ints(r, (3,), 1, 5)]),
    "cumulative_logsumexp": (cumulative_logsumexp,
                             lambda r: [floats(r, (3, 9)) * 3]),
    "sinkhorn_log_fori": (sinkhorn, lambda r: [np.abs(floats(r, (5, 4)))]),
    "spectral_norm_power_iter": (spectral_norm,
                                 lambda r: [floats(r, (5, 4)),
                                            floats(r, (5,))]),
    # The next three call LAPACK and FFTW, which AArch64 AOT code cannot yet
    # (backends/README.md; known_failures.py).
    "spd_cholesky_solve_inverse": (spd_linalg, lambda r: [floats(r, (4, 4)),
                                                      floats(r, (4, 2))]),
    "newton_solve_loop_expm": (newton_solve_loop,
                               lambda r: [floats(r, (6, 6)),
                                          floats(r, (6,))]),
    "gaussian_nll_cholesky_grad": (gaussian_nll_grad,
                                   lambda r: [floats(r, (4, 4)) * 0.5,
                                              floats(r, (4, 2))]),
    "rfft_full_convolution": (fft_convolve, lambda r: [floats(r, (2, 9)),
                                                       floats(r, (2, 4))]),
    "searchsorted_digitize_interp": (
        binning,
        lambda r: [floats(r, (20,)), np.linspace(-1.5, 1.5, 6,
                                                 dtype=np.float32),
                   floats(r, (7,))]),
    "activations_exact_value_grad": (activations_exact_grad,
                                     lambda r: [floats(r, (10,)) * 2]),
    "reduce_precision_emulation": (reduce_precision_emulation,
                                   lambda r: [floats(r, (16,))]),
    "unique_size_stable_argsort": (unique_stable_argsort,
                                   lambda r: [ints(r, (12,), 0, 6)]),
    "tile_max_dynamic_slice_fori": (tile_max_fori,
                                    lambda r: [floats(r, (6, 4))]),
    "ddpm_noise_prediction_grad": (
        jax.grad(ddpm_loss),
        lambda r: [_w(r, (4, 3), 0.5), floats(r, (5, 3)),
                   ints(r, (5,), 0, 10), prng_key(r),
                   np.cumprod(np.linspace(0.99, 0.9, 10)).astype(
                       np.float32)]),
    "gumbel_softmax_straight_through": (
        gumbel_softmax_st,
        lambda r: [floats(r, (4, 5)), prng_key(r), _w(r, (5, 3), 0.5)]),
    "vmap_per_example_masked_loss": (
        per_example_weighted_losses,
        lambda r: [_w(r, (4, 3), 0.5), floats(r, (6, 4)),
                   ints(r, (6,), 0, 3), r.random(6) < 0.7]),
}
