"""Zoo: programs from the fourteenth bug hunt, aimed at what real JAX
users write that the zoo had not reached: whole training steps and
pipelines from the model families people build by hand, and the small
numerical and indexing code around them. Contrastive learning (CLIP's
symmetric InfoNCE with a clamped learnable temperature, SigLIP's sigmoid
loss, supervised contrastive with several positives and log_softmax
where=); diffusion (a cosine schedule by cumprod, sinusoidal timestep
embeddings, label dropout for classifier-free guidance, v-prediction with
min-SNR weights, a guided 12-step DDIM sampler in a fori_loop; DiT patch
embeddings by a strided convolution and by reshapes, adaLN modulation, a
transposed-convolution unpatchify); optax chains written by hand
(clip_by_global_norm, AdamW with a decay mask, lookahead synced by
lax.cond, a debiased EMA, warmup-cosine from the integer step; SAM, Lion,
schedule-free SGD; weight and spectral normalisation by power iteration);
decoding (speculative sampling's acceptance with a residual distribution
and Gumbel argmax, vmapped; repetition penalty, top-k, top-p, min-p and
typical sampling; beam search in a while_loop that stops when every beam
has ended; a sliding-window KV cache kept as a ring buffer with
per-example positions); sequence packing by segment ids (positions
restarting by cummax, block-diagonal causal masks, per-document pooling by
segment_sum) and ragged batches by masks; graph attention with a segment
softmax over padded edges, Dijkstra and BFS vmapped over sources; vision
(a spatial transformer's affine grid and bilinear sampling by gathers, and
its gradient by the matrices; detection boxes: IoU, greedy NMS in a
fori_loop, anchor matching with forced positives, box encoding; Canny
edges with non-maximum suppression by gathers and hysteresis in a
while_loop, grey morphology; 2-D Gaussian splatting composited by an
exclusive cumprod; sphere tracing an SDF with normals by jax.grad and soft
shadows); signals (frames by gathers, a DFT by matmuls, mel filterbanks,
MFCCs, deltas, mu-law to u8; a multi-level 2-D Haar transform with soft
thresholding and its gradient); bit tricks (the fast inverse square root
in f32 and f64, clz, popcount parity, rotations by amounts 0 to the width,
bit reversal, Gray codes, Morton codes, float sort keys); UTF-8 decoding
and a BPE merge on u8 bytes with a 65536-bin bincount; simulation
(Lennard-Jones molecular dynamics with minimum images and forces by grad,
checkerboard Ising sweeps vmapped over temperatures on s8 spins, American
options on a binomial tree with delta and vega by grad, a Kalman filter
with missing observations and the RTS smoother with its likelihood's
gradient, V-trace, Retrace, TD(lambda), n-step and double-DQN targets);
distances (log-domain Sinkhorn in a while_loop to a tolerance, MMD,
energy distance, kNN votes; batch-hard and semi-hard triplet losses and
ArcFace); augmentation (mixup, CutMix, flips, crops by vmapped
dynamic_slice, random erasing). The API surfaces around them:
jax.scipy.special in losses, jax.random's samplers together,
associative scans (cumulative logsumexp, linear recurrences both ways,
running argmax pairs, segmented sums, 2x2 matrix products), cond in vmap
in scan, lax.map with batch_size, custom_vjp with pytree residuals and
jvp/linearize/vjp compositions, searchsorted in every method, interp with
periods, histograms and digitize, unique with size over NaN and -0.0,
weak-type promotion and zero-sized and rank-6 shapes, gelu/glu and
one_hot past the classes. A second batch: whole programs computed from
constants (a PRNG key made inside jit), a PyTorch port in NCHW/OIHW with
an even kernel, stride 2 and SAME padding, depthwise separable blocks, a
bf16 convolution accumulated in f32 and pixel shuffle; NumPy indexing and
.at[] updates in every form and mode; reductions, argmax and scans of
bool, u8, s8, f16, bf16 and u64; named calls, nested jits called from
several sites, optimization barriers. And five past the CPU backend's
parallel split: logits processors over a 32000-word vocabulary, message
passing over 60000 edges, Canny on 192x256, greedy NMS of 1500 boxes and
Ising sweeps on 256x256.

One bug found, by the random programs below, and fixed:
multi-output-fusion merged a loop kernel whose output is a reduce-window
into a sibling reduction's kernel whenever the output's shape fitted,
though a reduce-window is only ever a loop kernel's root. A softmax of
scores returned beside their sliding maximum (softmax_beside_sliding_max,
one row or four) became a row fusion no backend could emit: cuda and rocm
failed to compile ("reduce-window: not fusible into a row-reduction
fusion"), the AArch64 target refused it and x86 ran the kernel in the
evaluator; a column reduction took a max-pool into its kernel alike
(ee7304e; fusion_test MultiOutputFusion.
ReduceWindowSiblingsStayOutOfReductions). 7 of the 588 random programs
with a reduce-window made such a kernel (x86's strict compile names it;
its default runs it in the evaluator, so the x86 outputs still matched).

Every program matches XLA:CPU on the evaluator, the cpu (x86) and
AArch64, compiles for cuda (sm_90), and matched on the simulated GPU
(simt-run, the big_* programs left out for time). The random programs:
993 compositions of elementwise chains, transposes,
reshapes, reductions, slices, pads, concatenates, dots, cumulative ops,
gathers, scatters, sorts, argmax, dynamic slices and updates,
reduce-windows, casts through bf16/f16/f64 (410 alone, 320 under grad,
vmap and vmap of grad, 43 in scans, conds and while loops, 220 with
operands past the parallel split) ran on the evaluator and the cpu
against XLA:CPU, and through the cuda pipeline's passes with the
verifier after each (124 of them to cuda executables, 64 on the
simulated GPU, where two of them hit the bug above, and nine differed
from XLA:CPU only where the cuda pipeline drops an f32 -> bf16 -> f32
round trip, as XLA:GPU does under excess precision). Their other
mismatches were of the programs' own making (cos of products near 1e5,
argmax over ties of saturated tanh) but one, which is XLA's:
XLA:CPU merges a dynamic-slice of a dynamic-slice into one slice at the
sum of the starts, clamping only the sum, so x[i:i+4][j:j+2] with j past
2 reads beyond the inner slice (f(arange(10.), 3, 3) is [6, 7], where
HLO's clamping gives [5, 6], as hloc does). Also XLA's, seen while
probing the algebraic simplifier: it takes abs(x) as non-negative and
divides it by a power of two with a logical shift, so
jnp.abs(INT_MIN) // 8 is 268435456 there and -268435456 in hloc (HLO's
abs(INT_MIN) is INT_MIN); and rewrites like those hunted4 left out,
finite where IEEE overflows: (x * 2) / 2, 1 / (1 / x), exp(x) / exp(x).

Reshaped to leave out the programs' own sensitivity: the spatial
transformer's first matrix is not the identity (its sample points would
sit on pixel centres, where the gradient by the matrix has a kink that
rounding decides); random_samplers_mix draws its multivariate normal from
the Cholesky factor it is given, as jax.random.multivariate_normal calls
LAPACK, which the AArch64 target lacks. Found and left, not wrong:
sampling_filters takes the cpu about 6 s to compile (XLA:CPU 3.5 s):
each of its four categorical draws runs threefry's 5-round while loop
over a [6, 40] state, whose fused body LLVM vectorizes and unrolls
fully over the 40 columns (11000 lines of optimized IR a body, four
identical bodies not shared).
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import floats, ints, prng_key

_HI = lax.Precision.HIGHEST


def _quarters(r, shape, lo=-4, hi=5, dtype=np.float32):
    return (r.integers(lo, hi, size=shape) / 4).astype(dtype)


# --- Contrastive learning ----------------------------------------------------

def clip_siglip_losses(img, txt, w_img, w_txt, log_t, bias):
    # CLIP's symmetric InfoNCE with a learnable log temperature (clamped as
    # open_clip does), SigLIP's pairwise sigmoid loss with a learnable bias,
    # and a supervised contrastive loss with several positives per anchor
    # (labels from the row index), with the gradient of their sum by both
    # towers, the temperature and the bias.
    labels = jnp.arange(img.shape[0]) % 3

    def losses(w_img, w_txt, log_t, bias):
        zi = img @ w_img
        zt = txt @ w_txt
        zi = zi / jnp.linalg.norm(zi, axis=-1, keepdims=True)
        zt = zt / jnp.linalg.norm(zt, axis=-1, keepdims=True)
        scale = jnp.exp(jnp.clip(log_t, 0.0, jnp.log(100.0)))
        logits = scale * zi @ zt.T
        n = logits.shape[0]
        tgt = jnp.arange(n)
        li = -jnp.take_along_axis(jax.nn.log_softmax(logits, axis=1),
                                  tgt[:, None], axis=1).mean()
        lt = -jnp.take_along_axis(jax.nn.log_softmax(logits, axis=0),
                                  tgt[None, :], axis=0).mean()
        clip = 0.5 * (li + lt)
        sign = 2.0 * jnp.eye(n) - 1.0
        siglip = -jnp.sum(jax.nn.log_sigmoid(sign * (logits + bias))) / n
        sim = zi @ zi.T * 10.0
        self_mask = jnp.eye(n, dtype=bool)
        pos = (labels[:, None] == labels[None, :]) & ~self_mask
        logp = jax.nn.log_softmax(jnp.where(self_mask, -jnp.inf, sim),
                                  axis=1, where=~self_mask)
        supcon = -jnp.sum(jnp.where(pos, logp, 0.0), axis=1) / jnp.maximum(
            pos.sum(1), 1)
        return clip, siglip, supcon.mean()

    vals = losses(w_img, w_txt, log_t, bias)
    grads = jax.grad(lambda *a: sum(losses(*a)), argnums=(0, 1, 2, 3))(
        w_img, w_txt, log_t, bias)
    return vals, grads


# --- Diffusion ---------------------------------------------------------------

def _timestep_embedding(t, dim, max_period=10000.0):
    half = dim // 2
    freqs = jnp.exp(-jnp.log(max_period) * jnp.arange(half) / half)
    args = t.astype(jnp.float32)[:, None] * freqs[None]
    return jnp.concatenate([jnp.cos(args), jnp.sin(args)], axis=-1)


def _cosine_alphas_cumprod(steps, s=0.008):
    x = jnp.linspace(0, steps, steps + 1)
    ac = jnp.cos(((x / steps) + s) / (1 + s) * jnp.pi * 0.5) ** 2
    ac = ac / ac[0]
    betas = jnp.clip(1 - ac[1:] / ac[:-1], 0.0, 0.999)
    return jnp.cumprod(1.0 - betas)


def diffusion_cfg_train_step(params, x0, y, key):
    # A DDPM training step with classifier-free guidance: a cosine
    # schedule's alphas_cumprod by cumprod, timesteps drawn with randint,
    # sinusoidal embeddings, labels dropped to a null class with a
    # bernoulli mask, a v-prediction MSE with min-SNR weighting, the
    # gradient and an SGD update of a small conditioned MLP; then a
    # 12-step DDIM sampler with guidance scale 3 in a fori_loop.
    T = 100
    ac = _cosine_alphas_cumprod(T)
    k1, k2, k3, k4 = jax.random.split(key, 4)
    B = x0.shape[0]
    t = jax.random.randint(k1, (B,), 0, T)
    noise = jax.random.normal(k2, x0.shape)
    drop = jax.random.bernoulli(k3, 0.25, (B,))
    y_in = jnp.where(drop, 10, y)

    def model(p, x, t, y):
        h = jnp.concatenate([x, _timestep_embedding(t, 8), p["emb"][y]], -1)
        h = jax.nn.silu(h @ p["w1"] + p["b1"])
        return h @ p["w2"]

    def loss(p):
        a = ac[t][:, None]
        xt = jnp.sqrt(a) * x0 + jnp.sqrt(1 - a) * noise
        v = jnp.sqrt(a) * noise - jnp.sqrt(1 - a) * x0
        snr = a / (1 - a)
        w = jnp.minimum(snr, 5.0) / (snr + 1.0)
        err = (model(p, xt, t, y_in) - v) ** 2
        return jnp.mean(w[:, 0] * err.mean(-1))

    l, g = jax.value_and_grad(loss)(params)
    new = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, g)

    ts = jnp.linspace(T - 1, 0, 12).round().astype(jnp.int32)

    def ddim(i, x):
        t_now = ts[i]
        t_next = jnp.where(i + 1 < 12, ts[jnp.minimum(i + 1, 11)], -1)
        a_now = ac[t_now]
        a_next = jnp.where(t_next >= 0, ac[jnp.maximum(t_next, 0)], 1.0)
        tb = jnp.full((B,), t_now)
        v_c = model(new, x, tb, y)
        v_u = model(new, x, tb, jnp.full((B,), 10))
        v = v_u + 3.0 * (v_c - v_u)
        x0_hat = jnp.sqrt(a_now) * x - jnp.sqrt(1 - a_now) * v
        eps = jnp.sqrt(1 - a_now) * x + jnp.sqrt(a_now) * v
        return jnp.sqrt(a_next) * x0_hat + jnp.sqrt(1 - a_next) * eps

    samples = lax.fori_loop(0, 12, ddim, jax.random.normal(k4, x0.shape))
    return l, new, samples, ac


def _diffusion_inputs(r):
    params = {"emb": floats(r, (11, 4)) * 0.5, "w1": floats(r, (18, 16)) * 0.3,
              "b1": floats(r, (16,)) * 0.1, "w2": floats(r, (16, 6)) * 0.3}
    return [params, floats(r, (5, 6)), ints(r, (5,), 0, 10), prng_key(r)]


def dit_patch_embeddings(img, w_conv, b_conv, w_out):
    # A DiT-style patch embedding two ways (a strided convolution whose
    # stride is its kernel, and a reshape/transpose into patches then a
    # matmul with the same weights), adaLN modulation (shift, scale and a
    # gate from a conditioning vector), and the unpatchify back to an
    # image with a transposed convolution, with the input gradient.
    B, H, W, C = img.shape
    P = 4
    D = w_conv.shape[-1]

    def embed_conv(x):
        y = lax.conv_general_dilated(x, w_conv, (P, P), "VALID",
                                     dimension_numbers=("NHWC", "HWIO",
                                                        "NHWC"),
                                     precision=_HI)
        return (y + b_conv).reshape(B, -1, D)

    def embed_reshape(x):
        p = x.reshape(B, H // P, P, W // P, P, C).transpose(0, 1, 3, 2, 4, 5)
        p = p.reshape(B, (H // P) * (W // P), P * P * C)
        return jnp.dot(p, w_conv.reshape(P * P * C, D), precision=_HI) + b_conv

    def block(x):
        tok = embed_conv(x)
        cond = jnp.mean(tok, axis=1)
        mod = jax.nn.silu(cond) @ w_out
        shift, scale, gate = jnp.split(mod, 3, axis=-1)
        mu = tok.mean(-1, keepdims=True)
        var = tok.var(-1, keepdims=True)
        h = (tok - mu) * lax.rsqrt(var + 1e-6)
        h = h * (1 + scale[:, None]) + shift[:, None]
        h = tok + gate[:, None] * jax.nn.gelu(h, approximate=True)
        grid = h.reshape(B, H // P, W // P, D)
        return lax.conv_transpose(grid, w_conv.transpose(0, 1, 3, 2),
                                  (P, P), "VALID",
                                  dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                  transpose_kernel=False, precision=_HI)

    out = block(img)
    g = jax.grad(lambda x: jnp.sum(jnp.tanh(block(x))))(img)
    return embed_conv(img), embed_reshape(img), out, g


# --- Optimizers written by hand (optax chains) -------------------------------

def _global_norm(tree):
    return jnp.sqrt(sum(jnp.sum(x * x) for x in jax.tree_util.tree_leaves(
        tree)))


def optax_chain_lookahead_ema(params, batches):
    # clip_by_global_norm -> AdamW with a weight-decay mask (no decay on
    # biases and norms) -> lookahead (slow weights synced every 3 steps by
    # lax.cond on the step counter), an EMA of the fast params with
    # debiasing, and a warmup-cosine schedule from the integer step, over
    # 9 steps of lax.scan.
    mask = {"w": True, "b": False, "ln": False}

    def loss(p, xb):
        x, yb = xb
        h = jnp.tanh(x @ p["w"] + p["b"]) * p["ln"]
        return jnp.mean((h.sum(-1) - yb) ** 2)

    def lr_at(step):
        warm = 3
        s = step.astype(jnp.float32)
        cos = 0.5 * (1 + jnp.cos(jnp.pi * jnp.minimum(s - warm, 6.0) / 6.0))
        return jnp.where(step < warm, 0.05 * (s + 1) / warm, 0.05 * cos)

    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    state0 = (params, params, zeros, zeros, params, jnp.int32(0))

    def step(state, xb):
        fast, slow, m, v, ema, count = state
        g = jax.grad(loss)(fast, xb)
        gn = _global_norm(g)
        g = jax.tree_util.tree_map(lambda x: x * jnp.minimum(1.0, 1.0 / (
            gn + 1e-6)), g)
        c = count + 1
        m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
        v = jax.tree_util.tree_map(lambda v, g: 0.999 * v + 0.001 * g * g,
                                   v, g)
        bc1 = 1 - 0.9 ** c.astype(jnp.float32)
        bc2 = 1 - 0.999 ** c.astype(jnp.float32)
        lr = lr_at(count)
        fast = {k: fast[k] - lr * ((m[k] / bc1) / (jnp.sqrt(v[k] / bc2) + 1e-8)
                                   + (0.01 * fast[k] if mask[k] else 0.0))
                for k in fast}
        fast, slow = lax.cond(
            c % 3 == 0,
            lambda f, s: (jax.tree_util.tree_map(
                lambda f, s: s + 0.5 * (f - s), f, s),) * 2,
            lambda f, s: (f, s), fast, slow)
        decay = jnp.minimum(0.99, (1.0 + c) / (10.0 + c))
        ema = jax.tree_util.tree_map(lambda e, p: decay * e + (1 - decay) * p,
                                     ema, fast)
        return (fast, slow, m, v, ema, c), (gn, lr)

    final, (norms, lrs) = lax.scan(step, state0, batches)
    return final, norms, lrs


def _optax_inputs(r):
    params = {"w": floats(r, (5, 4)) * 0.5, "b": floats(r, (4,)) * 0.1,
              "ln": np.ones((4,), np.float32) + floats(r, (4,)) * 0.1}
    return [params, (floats(r, (9, 6, 5)), floats(r, (9, 6)))]


def sam_lion_schedule_free(w, xs, ys):
    # Sharpness-aware minimization (a gradient at the adversarially
    # perturbed weights, rho / ||g||), Lion's sign update with its two
    # interpolations, and schedule-free SGD's y/z/x averaging, six steps of
    # each in a fori_loop, on a least-squares problem with a tanh feature.
    def loss(w):
        return jnp.mean((jnp.tanh(xs @ w) - ys) ** 2)

    def sam(i, w):
        g = jax.grad(loss)(w)
        e = 0.05 * g / (jnp.linalg.norm(g) + 1e-12)
        return w - 0.3 * jax.grad(loss)(w + e)

    def lion(i, s):
        w, m = s
        g = jax.grad(loss)(w)
        u = jnp.sign(0.9 * m + 0.1 * g)
        w = w - 0.01 * (u + 0.1 * w)
        return w, 0.99 * m + 0.01 * g

    def sfree(i, s):
        z, x = s
        y = 0.1 * z + 0.9 * x
        z = z - 0.2 * jax.grad(loss)(y)
        ck = 1.0 / (i + 1.0)
        return z, (1 - ck) * x + ck * z

    w_sam = lax.fori_loop(0, 6, sam, w)
    w_lion = lax.fori_loop(0, 6, lion, (w, jnp.zeros_like(w)))
    w_sf = lax.fori_loop(0, 6, sfree, (w, w))
    return w_sam, w_lion, w_sf, loss(w_sam), loss(w_sf[1])


def weight_spectral_norm_grad(v, g, w2, x, u0):
    # Weight normalisation (w = g v / ||v|| per output column) and spectral
    # normalisation by power iteration (5 steps of a fori_loop, the
    # singular vectors under stop_gradient as in the papers), in one layer
    # pair, with the gradients by v, g and w2.
    def spectral(w):
        def it(i, u):
            vv = w.T @ u
            vv = vv / (jnp.linalg.norm(vv) + 1e-12)
            uu = w @ vv
            return uu / (jnp.linalg.norm(uu) + 1e-12)
        u = lax.stop_gradient(lax.fori_loop(0, 5, it, u0))
        vv = lax.stop_gradient(w.T @ u)
        vv = vv / (jnp.linalg.norm(vv) + 1e-12)
        sigma = u @ w @ vv
        return w / sigma, sigma

    def net(v, g, w2):
        w1 = g * v / jnp.linalg.norm(v, axis=0, keepdims=True)
        ws, sigma = spectral(w2)
        return jnp.tanh(x @ w1) @ ws, sigma

    (out, sigma) = net(v, g, w2)
    grads = jax.grad(lambda *a: jnp.sum(net(*a)[0] ** 2),
                     argnums=(0, 1, 2))(v, g, w2)
    return out, sigma, grads


# --- Sampling and decoding ---------------------------------------------------

def speculative_decoding_accept(p_draft, p_target, drafted, u, key):
    # Speculative sampling's acceptance: each drafted token is kept with
    # probability min(1, p/q); the accepted prefix is a cumprod of the
    # acceptances; at the first rejection a token is drawn from the
    # normalised residual max(0, p - q) by a Gumbel argmax, and past a full
    # acceptance from the target's next distribution; vmapped over a batch.
    def one(q, p, toks, uu, k):
        K = toks.shape[0]
        qx = jnp.take_along_axis(q[:K], toks[:, None], 1)[:, 0]
        px = jnp.take_along_axis(p[:K], toks[:, None], 1)[:, 0]
        acc = uu < jnp.minimum(1.0, px / qx)
        n_acc = jnp.sum(jnp.cumprod(acc.astype(jnp.int32)))
        resid = jnp.maximum(p[:K] - q[:K], 0.0)
        resid = resid / jnp.maximum(resid.sum(-1, keepdims=True), 1e-20)
        dist = jnp.where(n_acc < K, resid[jnp.minimum(n_acc, K - 1)], p[K])
        g = jax.random.gumbel(k, dist.shape)
        nxt = jnp.argmax(jnp.log(jnp.maximum(dist, 1e-30)) + g)
        out = jnp.where(jnp.arange(K + 1) < n_acc,
                        jnp.concatenate([toks, jnp.zeros((1,), toks.dtype)]),
                        -1)
        out = out.at[n_acc].set(nxt.astype(out.dtype))
        return out, n_acc

    keys = jax.random.split(key, p_draft.shape[0])
    return jax.vmap(one)(p_draft, p_target, drafted, u, keys)


def _spec_inputs(r):
    B, K, V = 4, 4, 12
    q = jax.nn.softmax(floats(r, (B, K + 1, V)) * 2, axis=-1)
    p = jax.nn.softmax(floats(r, (B, K + 1, V)) * 2, axis=-1)
    toks = ints(r, (B, K), 0, V)
    u = r.uniform(0.02, 0.98, (B, K)).astype(np.float32)
    return [np.asarray(q), np.asarray(p), toks, u, prng_key(r)]


def sampling_filters(logits, history, key, temps):
    # The logits processors generation loops apply: a repetition penalty
    # gathered and scattered at the history's tokens (duplicates), top-k
    # by the k-th largest, top-p (sort, cumsum, searchsorted-free cutoff),
    # min-p, typical sampling (entropy deviation sorted), temperature per
    # row, then categorical draws; plus the per-row counts kept.
    V = logits.shape[-1]
    prev = jnp.take_along_axis(logits, history, axis=1)
    pen = jnp.where(prev > 0, prev / 1.3, prev * 1.3)
    x = logits.at[jnp.arange(logits.shape[0])[:, None], history].set(pen)
    x = x / temps[:, None]
    kth = lax.top_k(x, 5)[0][:, -1:]
    x_k = jnp.where(x < kth, -jnp.inf, x)
    order = jnp.argsort(-x, axis=-1)
    srt = jnp.take_along_axis(x, order, axis=-1)
    cum = jnp.cumsum(jax.nn.softmax(srt, axis=-1), axis=-1)
    keep_sorted = (cum - jax.nn.softmax(srt, axis=-1)) < 0.8
    keep = jnp.zeros_like(keep_sorted).at[
        jnp.arange(x.shape[0])[:, None], order].set(keep_sorted)
    x_p = jnp.where(keep, x, -jnp.inf)
    probs = jax.nn.softmax(x, axis=-1)
    x_minp = jnp.where(probs < 0.1 * probs.max(-1, keepdims=True), -jnp.inf, x)
    logp = jax.nn.log_softmax(x, axis=-1)
    ent = -jnp.sum(jnp.exp(logp) * logp, -1, keepdims=True)
    dev = jnp.abs(-logp - ent)
    dorder = jnp.argsort(dev, axis=-1)
    dcum = jnp.cumsum(jnp.take_along_axis(probs, dorder, -1), -1)
    dkeep = jnp.zeros_like(keep).at[jnp.arange(x.shape[0])[:, None],
                                    dorder].set(
        (dcum - jnp.take_along_axis(probs, dorder, -1)) < 0.9)
    x_typ = jnp.where(dkeep, x, -jnp.inf)
    ks = jax.random.split(key, 4)
    draws = [jax.random.categorical(k, z, axis=-1)
             for k, z in zip(ks, (x_k, x_p, x_minp, x_typ))]
    return (x, x_k, x_p, x_minp, x_typ, jnp.stack(draws),
            jnp.sum(jnp.isfinite(jnp.stack([x_k, x_p, x_minp, x_typ])), -1),
            V)


def _sampling_inputs(r):
    base = np.stack([r.permutation(40) for _ in range(6)]).astype(np.float32)
    return [(base - 20) / 4, ints(r, (6, 7), 0, 40), prng_key(r),
            np.array([0.5, 0.7, 1.0, 1.0, 1.5, 2.0], np.float32)]


def beam_search_early_stop(emb, w, start):
    # Beam search in a lax.while_loop that stops when every beam has emitted
    # EOS or at 10 steps: top_k over beam x vocab scores, parents by integer
    # division, sequences regathered by parent and extended with
    # dynamic_update_slice at the traced step, finished beams kept with a
    # large negative on extensions, and a length penalty at the end.
    Bm, V, L, EOS = 3, 9, 10, 0

    def logprobs(tok):
        return jax.nn.log_softmax(jnp.tanh(emb[tok]) @ w, axis=-1)

    def cond(s):
        step, _, _, fin = s
        return (step < L) & ~jnp.all(fin)

    def body(s):
        step, seqs, scores, fin = s
        last = lax.dynamic_index_in_dim(seqs, step, axis=1, keepdims=False)
        lp = logprobs(last)
        lp = jnp.where(fin[:, None],
                       jnp.where(jnp.arange(V) == EOS, 0.0, -1e9), lp)
        cand = (scores[:, None] + lp).reshape(-1)
        top, idx = lax.top_k(cand, Bm)
        parent = idx // V
        tok = idx % V
        seqs = seqs[parent]
        seqs = lax.dynamic_update_slice(seqs, tok[:, None].astype(seqs.dtype),
                                        (jnp.int32(0), step + 1))
        fin = fin[parent] | (tok == EOS)
        return step + 1, seqs, top, fin

    seqs0 = jnp.zeros((Bm, L + 1), jnp.int32).at[:, 0].set(start)
    scores0 = jnp.array([0.0, -1e9, -1e9])
    step, seqs, scores, fin = lax.while_loop(
        cond, body, (jnp.int32(0), seqs0, scores0, jnp.zeros(Bm, bool)))
    lengths = jnp.argmax(jnp.where(seqs[:, 1:] == EOS, 1, 0), axis=1) + 1
    lengths = jnp.where(jnp.any(seqs[:, 1:] == EOS, axis=1), lengths, L)
    normed = scores / (((5.0 + lengths) / 6.0) ** 0.6)
    return step, seqs, scores, fin, normed


def kv_cache_ring_decode(x0, wq, wk, wv, pos0):
    # A decode loop with a sliding-window KV cache kept as a ring buffer:
    # each of 11 steps writes k and v at (pos % W) with dynamic_update_slice
    # at a traced per-example position (vmapped, examples at different
    # positions), masks slots not yet written or outside the window, and
    # attends; the next input is the output.
    W = 4

    def one(x, p0):
        def step(c, _):
            x, kc, vc, pos = c
            q, k, v = x @ wq, x @ wk, x @ wv
            slot = pos % W
            kc = lax.dynamic_update_slice(kc, k[None], (slot, jnp.int32(0)))
            vc = lax.dynamic_update_slice(vc, v[None], (slot, jnp.int32(0)))
            slots = jnp.arange(W)
            age = (slot - slots) % W
            valid = (pos - age) >= jnp.maximum(p0, pos - W + 1)
            s = jnp.where(valid, kc @ q / 2.0, -jnp.inf)
            a = jax.nn.softmax(s)
            y = jnp.tanh(a @ vc + x)
            return (y, kc, vc, pos + 1), (y, a)

        D = x.shape[-1]
        init = (x, jnp.zeros((W, D), x.dtype), jnp.zeros((W, D), x.dtype), p0)
        return lax.scan(step, init, None, length=11)

    return jax.vmap(one)(x0, pos0)


# --- Sequence packing and ragged batches -------------------------------------

def packed_sequences(tokens, seg, emb, wq, wk):
    # Sequence packing: several documents in one row, told apart by segment
    # ids; positions restart at each document (an iota minus the document's
    # start found by a cumulative max), attention is block-diagonal and
    # causal, and per-document mean pooling is a segment_sum over the
    # flattened (row, document) ids with num_segments; padding is seg 0.
    B, T = tokens.shape
    idx = jnp.broadcast_to(jnp.arange(T), (B, T))
    starts = jnp.where(jnp.concatenate(
        [jnp.ones((B, 1), bool), seg[:, 1:] != seg[:, :-1]], 1), idx, 0)
    pos = idx - lax.cummax(starts, axis=1)
    h = emb[tokens] + jnp.sin(pos[..., None] / 3.0)
    q, k = h @ wq, h @ wk
    s = jnp.einsum("btd,bsd->bts", q, k, precision=_HI)
    same = (seg[:, :, None] == seg[:, None, :]) & (seg[:, :, None] > 0)
    causal = idx[:, :, None] >= idx[:, None, :]
    s = jnp.where(same & causal, s, -1e30)
    a = jax.nn.softmax(s, axis=-1)
    out = jnp.einsum("bts,bsd->btd", a, h, precision=_HI)
    out = jnp.where((seg > 0)[..., None], out, 0.0)
    flat = (seg + jnp.arange(B)[:, None] * 4).reshape(-1)
    sums = jax.ops.segment_sum(out.reshape(B * T, -1), flat,
                               num_segments=B * 4)
    counts = jax.ops.segment_sum(jnp.ones(B * T), flat, num_segments=B * 4)
    pooled = sums / jnp.maximum(counts, 1.0)[:, None]
    return pos, out, pooled, counts


def _packed_inputs(r):
    seg = np.array([[1, 1, 1, 2, 2, 3, 3, 3, 3, 0, 0, 0],
                    [1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2],
                    [1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0]], np.int32)
    return [ints(r, (3, 12), 0, 20), seg, floats(r, (20, 8)),
            floats(r, (8, 8)) * 0.4, floats(r, (8, 8)) * 0.4]


def ragged_masked_stats(x, lengths, w):
    # Ragged batches by masks: per-row masked mean, variance, max and a
    # masked log_softmax (jax.nn.log_softmax with where=), a masked median
    # by sorting with +inf fill, a masked cumulative sum, last-valid-element
    # gathers and a masked-mean pooled layer with its gradient.
    T = x.shape[1]
    m = jnp.arange(T)[None, :] < lengths[:, None]
    cnt = jnp.maximum(m.sum(1), 1)
    mean = jnp.sum(jnp.where(m, x, 0), 1) / cnt
    var = jnp.sum(jnp.where(m, (x - mean[:, None]) ** 2, 0), 1) / cnt
    mx = jnp.max(x, axis=1, where=m, initial=-jnp.inf)
    lsm = jax.nn.log_softmax(x, axis=1, where=m)
    lsm = jnp.where(m, lsm, 0.0)
    srt = jnp.sort(jnp.where(m, x, jnp.inf), axis=1)
    lo = jnp.take_along_axis(srt, ((cnt - 1) // 2)[:, None], 1)[:, 0]
    hi = jnp.take_along_axis(srt, (cnt // 2)[:, None], 1)[:, 0]
    med = jnp.where(lengths > 0, 0.5 * (lo + hi), jnp.nan)
    csum = jnp.cumsum(jnp.where(m, x, 0), axis=1)
    last = jnp.take_along_axis(x, jnp.maximum(lengths - 1, 0)[:, None], 1)

    def pooled(w):
        h = jnp.tanh(x[..., None] * w)
        return jnp.sum(jnp.where(m[..., None], h, 0), 1) / cnt[:, None]

    g = jax.grad(lambda w: jnp.sum(pooled(w) ** 2))(w)
    return mean, var, mx, lsm, med, csum, last, pooled(w), g


# --- Graphs ------------------------------------------------------------------

def gat_segment_softmax(h, senders, receivers, w, a_src, a_dst):
    # A graph attention layer: edge scores from source and destination
    # projections, a softmax over each node's incoming edges by
    # segment_max (nodes with no incoming edge get -inf maxima, guarded),
    # segment_sum of exp and of weighted messages, with isolated nodes and
    # edges into a padding node past num_segments dropped; two layers and
    # the gradient by the weights.
    N = h.shape[0]

    def layer(h, w, a_src, a_dst):
        z = h @ w
        e = jax.nn.leaky_relu(z[senders] @ a_src + z[receivers] @ a_dst, 0.2)
        emax = jax.ops.segment_max(e, receivers, num_segments=N)
        emax = jnp.where(jnp.isfinite(emax), emax, 0.0)
        ex = jnp.exp(e - emax[jnp.clip(receivers, 0, N - 1)])
        den = jax.ops.segment_sum(ex, receivers, num_segments=N)
        alpha = ex / jnp.maximum(den[jnp.clip(receivers, 0, N - 1)], 1e-9)
        msg = jax.ops.segment_sum(alpha[:, None] * z[senders], receivers,
                                  num_segments=N)
        return jax.nn.elu(msg), alpha

    def net(w, a_src, a_dst):
        h1, al1 = layer(h, w, a_src, a_dst)
        h2, al2 = layer(h1, w, a_src, a_dst)
        return h2, al1, al2

    out = net(w, a_src, a_dst)
    g = jax.grad(lambda *p: jnp.sum(net(*p)[0] ** 2), argnums=(0, 1, 2))(
        w, a_src, a_dst)
    return out, g


def _gat_inputs(r):
    N, E = 9, 20
    s = ints(r, (E,), 0, N)
    d = ints(r, (E,), 0, N - 2)   # nodes 7, 8 get no messages
    d[-2:] = N                    # padding edges, out of range: dropped
    return [floats(r, (N, 5)), s, d, floats(r, (5, 5)) * 0.5,
            floats(r, (5,)), floats(r, (5,))]


def dijkstra_bfs_dense(adj, wts, src):
    # Dijkstra on a dense weighted graph in a fori_loop (argmin over the
    # unvisited nodes' distances with +inf for unreachable, relaxation by
    # where), predecessors kept, and BFS levels by frontier expansion in a
    # while_loop until the frontier empties; vmapped over sources.
    N = adj.shape[0]
    W = jnp.where(adj, wts, jnp.inf)

    def dijkstra(s):
        dist0 = jnp.full(N, jnp.inf).at[s].set(0.0)

        def step(i, c):
            dist, vis, pred = c
            u = jnp.argmin(jnp.where(vis, jnp.inf, dist))
            ok = jnp.isfinite(dist[u]) & ~vis[u]
            vis = vis.at[u].set(True)
            nd = dist[u] + W[u]
            better = ok & (nd < dist) & ~vis
            return (jnp.where(better, nd, dist), vis,
                    jnp.where(better, u, pred))

        return lax.fori_loop(0, N, step, (dist0, jnp.zeros(N, bool),
                                          jnp.full(N, -1)))

    def bfs(s):
        def cond(c):
            return jnp.any(c[1])

        def body(c):
            lvl, front, d = c
            nxt = jnp.any(adj & front[:, None], axis=0) & (lvl < 0)
            return jnp.where(nxt, d + 1, lvl), nxt, d + 1

        lvl0 = jnp.full(N, -1).at[s].set(0)
        return lax.while_loop(cond, body,
                              (lvl0, jnp.arange(N) == s, jnp.int32(0)))[0]

    return jax.vmap(dijkstra)(src), jax.vmap(bfs)(src)


def _graph_inputs(r):
    N = 10
    adj = r.random((N, N)) < 0.25
    np.fill_diagonal(adj, False)
    adj[9, :] = False
    adj[:, 9] = False                 # node 9 unreachable
    wts = r.integers(1, 20, (N, N)).astype(np.float32) / 2
    return [adj, wts, np.array([0, 3, 9], np.int32)]


# --- Vision ------------------------------------------------------------------

def spatial_transformer_grid_sample(img, theta):
    # A spatial transformer: affine_grid from a batch of 2x3 matrices and a
    # bilinear grid_sample with zero padding written with gathers of the
    # four neighbours (indices clipped, out-of-range corners masked), align
    # corners off; and the gradient by the image and the matrices.
    B, H, W, C = img.shape

    def sample(img, theta):
        ys = (jnp.arange(H) * 2 + 1) / H - 1
        xs = (jnp.arange(W) * 2 + 1) / W - 1
        gx, gy = jnp.meshgrid(xs, ys)
        base = jnp.stack([gx, gy, jnp.ones_like(gx)], -1)     # H, W, 3
        grid = jnp.einsum("hwk,bjk->bhwj", base, theta, precision=_HI)
        px = ((grid[..., 0] + 1) * W - 1) / 2
        py = ((grid[..., 1] + 1) * H - 1) / 2
        x0 = jnp.floor(px)
        y0 = jnp.floor(py)
        out = 0.0
        bidx = jnp.arange(B)[:, None, None]
        for dy in (0, 1):
            for dx in (0, 1):
                xi = x0 + dx
                yi = y0 + dy
                wgt = (1 - jnp.abs(px - xi)) * (1 - jnp.abs(py - yi))
                inside = (xi >= 0) & (xi < W) & (yi >= 0) & (yi < H)
                v = img[bidx, jnp.clip(yi, 0, H - 1).astype(jnp.int32),
                        jnp.clip(xi, 0, W - 1).astype(jnp.int32)]
                out = out + jnp.where(inside, wgt, 0.0)[..., None] * v
        return out

    out = sample(img, theta)
    g = jax.grad(lambda i, t: jnp.sum(jnp.sin(sample(i, t))),
                 argnums=(0, 1))(img, theta)
    return out, g


def _stn_inputs(r):
    # No sample point on a pixel centre: the gradient by theta has a kink
    # there (floor), so an identity transform compares rounding noise.
    theta = np.array([[[1.03, 0.011, 0.017], [-0.013, 0.97, 0.023]],
                      [[0.8, -0.3, 0.13], [0.35, 0.9, -0.21]],
                      [[1.3, 0.1, 0.41], [-0.2, 1.2, 0.07]]], np.float32)
    return [floats(r, (3, 7, 9, 2)), theta]


def _box_iou(a, b):
    """Pairwise IoU of [x0, y0, x1, y1] boxes: [len(a), len(b)]."""
    lt = jnp.maximum(a[:, None, :2], b[None, :, :2])
    rb = jnp.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = jnp.clip(rb - lt, 0.0)
    inter = wh[..., 0] * wh[..., 1]
    area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])
    return inter / (area(a)[:, None] + area(b)[None, :] - inter)


def _greedy_nms(boxes, scores):
    """Greedy NMS in a fori_loop over the boxes sorted by score (a box is
    suppressed by IoU > 0.5 with a kept, higher-scored one): the keep mask
    in sorted order, and the order."""
    order = jnp.argsort(-scores)
    sb = boxes[order]
    ious = _box_iou(sb, sb)
    N = boxes.shape[0]

    def nms(i, keep):
        sup = jnp.any(keep & (ious[:, i] > 0.5) & (jnp.arange(N) < i))
        return keep.at[i].set(~sup)

    return lax.fori_loop(0, N, nms, jnp.zeros(N, bool)), order


def detection_boxes_nms(boxes, scores, anchors, gt):
    # Object detection's box code: pairwise IoU, greedy NMS over boxes
    # sorted by score in a fori_loop (suppression by IoU > 0.5 with the
    # kept box), anchor-to-ground-truth matching (best anchor per gt forced
    # positive by a scatter, thresholds 0.4/0.6), box encoding with log
    # ratios and decoding back.
    keep, order = _greedy_nms(boxes, scores)
    kept_idx = jnp.where(keep, order, -1)

    m = _box_iou(anchors, gt)
    best_gt = jnp.argmax(m, axis=1)
    best_iou = jnp.max(m, axis=1)
    labels = jnp.where(best_iou >= 0.6, 1, jnp.where(best_iou < 0.4, 0, -1))
    forced = jnp.argmax(m, axis=0)
    labels = labels.at[forced].set(1)
    best_gt = best_gt.at[forced].set(jnp.arange(gt.shape[0]))
    g = gt[best_gt]

    def cwh(b):
        w = b[:, 2] - b[:, 0]
        h = b[:, 3] - b[:, 1]
        return b[:, 0] + 0.5 * w, b[:, 1] + 0.5 * h, w, h

    ax, ay, aw, ah = cwh(anchors)
    gx, gy, gw, gh = cwh(g)
    enc = jnp.stack([(gx - ax) / aw, (gy - ay) / ah, jnp.log(gw / aw),
                     jnp.log(gh / ah)], -1)
    cx = enc[:, 0] * aw + ax
    cy = enc[:, 1] * ah + ay
    w = jnp.exp(enc[:, 2]) * aw
    h = jnp.exp(enc[:, 3]) * ah
    dec = jnp.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], -1)
    return keep, kept_idx, labels, best_gt, enc, dec


def _det_inputs(r):
    def boxes(n, scale):
        xy = r.uniform(0, 10, (n, 2))
        wh = r.uniform(1, scale, (n, 2))
        return np.concatenate([xy, xy + wh], 1).astype(np.float32)
    return [boxes(14, 4), r.permutation(14).astype(np.float32) / 14,
            boxes(20, 5), boxes(4, 5)]


def canny_morphology(img):
    # Image processing by hand: Sobel gradients by convolution, gradient
    # direction quantised to four bins, non-maximum suppression gathering
    # each pixel's neighbours along its direction, double thresholds and
    # hysteresis by repeated 3x3 max-pool dilation in a while_loop until
    # nothing changes; grey-level erosion, dilation, opening and a
    # morphological gradient with reduce_window.
    H, W = img.shape
    kx = jnp.array([[-1.0, 0, 1], [-2, 0, 2], [-1, 0, 1]], img.dtype)
    conv = lambda x, k: lax.conv(x[None, None], k[None, None], (1, 1),
                                 "SAME", precision=_HI)[0, 0]
    gx = conv(img, kx)
    gy = conv(img, kx.T)
    mag = jnp.hypot(gx, gy)
    ang = jnp.mod(jnp.arctan2(gy, gx), jnp.pi)
    bin_ = jnp.floor((ang + jnp.pi / 8) / (jnp.pi / 4)).astype(jnp.int32) % 4
    offs = jnp.array([[0, 1], [1, 1], [1, 0], [1, -1]])
    dy, dx = offs[bin_, 0], offs[bin_, 1]
    yy, xx = jnp.meshgrid(jnp.arange(H), jnp.arange(W), indexing="ij")
    pad = jnp.pad(mag, 1)
    n1 = pad[yy + 1 + dy, xx + 1 + dx]
    n2 = pad[yy + 1 - dy, xx + 1 - dx]
    nms = jnp.where((mag >= n1) & (mag >= n2), mag, 0.0)
    strong = nms > 2.0
    weak = nms > 0.8

    def grow(c):
        e, _ = c
        d = lax.reduce_window(e.astype(jnp.int32), jnp.int32(0), lax.max,
                              (3, 3), (1, 1), "SAME") > 0
        n = d & weak
        return n, jnp.any(n != e)

    edges, _ = lax.while_loop(lambda c: c[1], grow, (strong, True))
    win = lambda x, op, init: lax.reduce_window(x, init, op, (3, 3), (1, 1),
                                                "SAME")
    ero = win(img, lax.min, jnp.inf)
    dil = win(img, lax.max, -jnp.inf)
    opening = win(ero, lax.max, -jnp.inf)
    return mag, bin_, nms, edges, ero, dil, opening, dil - ero


def _canny_inputs(r):
    y, x = np.mgrid[0:16, 0:18]
    img = ((x - 8) ** 2 + (y - 7) ** 2 < 30).astype(np.float32) * 2
    img += (x > 13) * 1.5 + r.integers(0, 3, (16, 18)) / 8
    return [img.astype(np.float32)]


def gaussian_splat_2d(means, log_scales, rot, colors, opac, depth):
    # 2-D Gaussian splatting: covariances from scales and rotation angles,
    # conics by the 2x2 inverse written out, splats sorted front to back by
    # depth (argsort), per-pixel alphas clipped at 0.99, transmittance by
    # an exclusive cumprod along the sorted splats and alpha compositing;
    # and the gradient of an image loss by every parameter.
    H, W = 6, 7
    ys, xs = jnp.meshgrid(jnp.arange(H) + 0.5, jnp.arange(W) + 0.5,
                          indexing="ij")
    pix = jnp.stack([xs, ys], -1).reshape(-1, 2)

    def render(means, log_scales, rot, colors, opac):
        s = jnp.exp(log_scales)
        c, sn = jnp.cos(rot), jnp.sin(rot)
        a = c * c * s[:, 0] ** 2 + sn * sn * s[:, 1] ** 2
        b = c * sn * (s[:, 0] ** 2 - s[:, 1] ** 2)
        d = sn * sn * s[:, 0] ** 2 + c * c * s[:, 1] ** 2
        det = a * d - b * b
        ia, ib, id_ = d / det, -b / det, a / det
        order = jnp.argsort(depth)
        dxy = pix[:, None, :] - means[order][None]
        q = (ia[order] * dxy[..., 0] ** 2 + 2 * ib[order] * dxy[..., 0]
             * dxy[..., 1] + id_[order] * dxy[..., 1] ** 2)
        alpha = jnp.minimum(0.99, jax.nn.sigmoid(opac[order]) *
                            jnp.exp(-0.5 * q))
        trans = jnp.cumprod(1 - alpha, axis=1)
        trans = jnp.concatenate([jnp.ones_like(trans[:, :1]),
                                 trans[:, :-1]], 1)
        wgt = alpha * trans
        img = wgt @ colors[order]
        return img.reshape(H, W, 3), trans[:, -1].reshape(H, W)

    out = render(means, log_scales, rot, colors, opac)
    g = jax.grad(lambda *p: jnp.sum((render(*p)[0] - 0.5) ** 2),
                 argnums=(0, 1, 2, 3, 4))(means, log_scales, rot, colors,
                                          opac)
    return out, g


def _splat_inputs(r):
    n = 8
    return [r.uniform(0, 7, (n, 2)).astype(np.float32),
            r.uniform(-0.3, 0.7, (n, 2)).astype(np.float32),
            r.uniform(0, 3, (n,)).astype(np.float32),
            r.uniform(0, 1, (n, 3)).astype(np.float32),
            floats(r, (n,)), r.permutation(n).astype(np.float32)]


def sdf_sphere_tracing(origins, dirs, centers, radii):
    # A ray marcher: a scene SDF (smooth union of spheres, a plane and a
    # rounded box), sphere tracing in a while_loop per ray (vmapped, rays
    # finishing at different steps), surface normals by jax.grad of the
    # SDF, Lambert shading with a shadow ray marched by fori_loop.
    def sdf(p):
        d = jnp.linalg.norm(p[None] - centers, axis=-1) - radii
        k = 0.3
        sm = -k * jax.nn.logsumexp(-d / k)
        box = jnp.linalg.norm(jnp.maximum(jnp.abs(p - jnp.array(
            [1.5, 0.0, 4.0])) - 0.4, 0.0)) - 0.1
        return jnp.minimum(jnp.minimum(sm, p[1] + 1.0), box)

    light = jnp.array([0.577, 0.577, -0.577])

    def trace(o, d):
        def cond(c):
            t, i, hit = c
            return (i < 64) & ~hit & (t < 20.0)

        def body(c):
            t, i, _ = c
            dist = sdf(o + t * d)
            return t + dist, i + 1, dist < 1e-3

        t, steps, hit = lax.while_loop(cond, body, (0.0, 0, False))
        p = o + t * d
        n = jax.grad(sdf)(p)
        n = n / (jnp.linalg.norm(n) + 1e-9)

        def shadow(i, c):
            s, res = c
            h = sdf(p + n * 2e-3 + light * s)
            return s + jnp.maximum(h, 0.02), jnp.minimum(res, 8 * h / s)

        _, sh = lax.fori_loop(0, 24, shadow, (0.05, 1.0))
        shade = jnp.maximum(jnp.dot(n, light), 0.0) * jnp.clip(sh, 0.0, 1.0)
        return jnp.where(hit, t, -1.0), steps, jnp.where(hit, shade, 0.0)

    return jax.vmap(trace)(origins, dirs)


def _sdf_inputs(r):
    u, v = np.meshgrid(np.linspace(-0.8, 0.8, 6), np.linspace(-0.6, 0.6, 5))
    d = np.stack([u.ravel(), v.ravel(), np.ones(u.size)], -1)
    d = d / np.linalg.norm(d, axis=-1, keepdims=True)
    o = np.zeros_like(d)
    return [o.astype(np.float32), d.astype(np.float32),
            np.array([[0.0, 0.0, 4.0], [-1.0, -0.3, 5.0], [0.7, 0.6, 6.0]],
                     np.float32),
            np.array([0.8, 0.7, 0.9], np.float32)]


# --- Signals -----------------------------------------------------------------

def mel_mfcc_mulaw(wave):
    # An audio front end without FFT: frames gathered by strided indices
    # (an iota outer sum), a Hann window, a real DFT as two matmuls with
    # cos/sin tables, power spectra, a triangular mel filterbank built from
    # hz<->mel conversions, log with a floor, MFCCs by a DCT-II matrix,
    # deltas by a padded difference, and mu-law companding to u8 and back.
    n_fft, hop, n_mels, sr = 32, 8, 10, 8000.0
    B, N = wave.shape
    n_frames = 1 + (N - n_fft) // hop
    idx = jnp.arange(n_frames)[:, None] * hop + jnp.arange(n_fft)[None]
    frames = wave[:, idx] * (0.5 - 0.5 * jnp.cos(
        2 * jnp.pi * jnp.arange(n_fft) / n_fft))
    k = jnp.arange(n_fft // 2 + 1)
    ang = 2 * jnp.pi * jnp.arange(n_fft)[:, None] * k[None] / n_fft
    re = jnp.dot(frames, jnp.cos(ang), precision=_HI)
    im = -jnp.dot(frames, jnp.sin(ang), precision=_HI)
    power = re ** 2 + im ** 2
    hz2mel = lambda f: 2595.0 * jnp.log10(1.0 + f / 700.0)
    mel2hz = lambda m: 700.0 * (10.0 ** (m / 2595.0) - 1.0)
    pts = mel2hz(jnp.linspace(hz2mel(0.0), hz2mel(sr / 2), n_mels + 2))
    freqs = k * sr / n_fft
    lo, ce, hi = pts[:-2, None], pts[1:-1, None], pts[2:, None]
    fb = jnp.maximum(0.0, jnp.minimum((freqs - lo) / (ce - lo),
                                      (hi - freqs) / (hi - ce)))
    mel = jnp.dot(power, fb.T, precision=_HI)
    logmel = jnp.log(jnp.maximum(mel, 1e-6))
    n = jnp.arange(n_mels)
    dct = jnp.cos(jnp.pi / n_mels * (n[None, :] + 0.5) * n[:, None])
    mfcc = jnp.dot(logmel, dct.T, precision=_HI)
    padded = jnp.pad(mfcc, ((0, 0), (1, 1), (0, 0)), mode="edge")
    delta = (padded[:, 2:] - padded[:, :-2]) / 2
    mu = 255.0
    x = jnp.clip(wave, -1, 1)
    comp = jnp.sign(x) * jnp.log1p(mu * jnp.abs(x)) / jnp.log1p(mu)
    q = jnp.floor((comp + 1) / 2 * mu + 0.5).astype(jnp.uint8)
    y = 2 * (q.astype(jnp.float32) / mu) - 1
    rec = jnp.sign(y) * (jnp.power(1 + mu, jnp.abs(y)) - 1) / mu
    return power, fb, logmel, mfcc, delta, q, rec


def _mel_inputs(r):
    t = np.arange(160) / 8000.0
    w = np.stack([np.sin(2 * np.pi * 440 * t) * 0.6,
                  np.sin(2 * np.pi * 1250 * t) * 0.3 + r.standard_normal(160)
                  * 0.05])
    return [w.astype(np.float32)]


def haar_wavelet_denoise(x, thresh):
    # A three-level 2-D Haar transform by reshapes into 2x2 blocks, soft
    # thresholding of the detail bands (sign * relu(|d| - t)), and the
    # inverse by stacking and interleaving back; a 1-D multi-level
    # transform over a batch too, with its perfect reconstruction and the
    # gradient of the denoised energy by the threshold.
    def fwd2(a):
        H, W = a.shape
        b = a.reshape(H // 2, 2, W // 2, 2)
        p, q = b[:, 0, :, 0], b[:, 0, :, 1]
        r_, s = b[:, 1, :, 0], b[:, 1, :, 1]
        return ((p + q + r_ + s) / 2, (p - q + r_ - s) / 2,
                (p + q - r_ - s) / 2, (p - q - r_ + s) / 2)

    def inv2(ll, lh, hl, hh):
        p = (ll + lh + hl + hh) / 2
        q = (ll - lh + hl - hh) / 2
        r_ = (ll + lh - hl - hh) / 2
        s = (ll - lh - hl + hh) / 2
        top = jnp.stack([p, q], -1).reshape(p.shape[0], -1)
        bot = jnp.stack([r_, s], -1).reshape(p.shape[0], -1)
        return jnp.stack([top, bot], 1).reshape(2 * p.shape[0], -1)

    def denoise(t):
        soft = lambda d: jnp.sign(d) * jax.nn.relu(jnp.abs(d) - t)
        a = x
        details = []
        for _ in range(3):
            a, lh, hl, hh = fwd2(a)
            details.append((soft(lh), soft(hl), soft(hh)))
        for lh, hl, hh in reversed(details):
            a = inv2(a, lh, hl, hh)
        return a

    def fwd1(v, levels=3):
        out = []
        for _ in range(levels):
            ev, od = v[..., 0::2], v[..., 1::2]
            out.append((ev - od) / jnp.sqrt(2.0))
            v = (ev + od) / jnp.sqrt(2.0)
        return v, out

    def inv1(v, out):
        for d in reversed(out):
            ev = (v + d) / jnp.sqrt(2.0)
            od = (v - d) / jnp.sqrt(2.0)
            v = jnp.stack([ev, od], -1).reshape(*v.shape[:-1], -1)
        return v

    v, ds = fwd1(x)
    rec1 = inv1(v, ds)
    den = denoise(thresh)
    g = jax.grad(lambda t: jnp.sum(denoise(t) ** 2))(thresh)
    return den, rec1, v, ds, g


# --- Bits --------------------------------------------------------------------

def bit_tricks(x, u, w):
    # Bit-level code people write: the fast inverse square root (bitcast,
    # magic constant, two Newton steps) in f32 and f64, exponent and
    # mantissa fields by masks, ilog2 by clz, next power of two, parity by
    # population_count, rotations by shift pairs in u32 and u64 (amounts 0
    # and the width masked), bit reversal by mask swaps, Gray code and its
    # inverse by a shift-xor cascade, Morton (Z-order) interleave of two
    # u16 coordinates into u32 and back, sign-magnitude float ordering keys
    # (float -> sortable u32) and an argsort by them.
    i = lax.bitcast_convert_type(x, jnp.int32)
    y = lax.bitcast_convert_type(jnp.int32(0x5F3759DF) - (i >> 1), jnp.float32)
    y = y * (1.5 - 0.5 * x * y * y)
    y = y * (1.5 - 0.5 * x * y * y)
    xd = x.astype(jnp.float64)
    id_ = lax.bitcast_convert_type(xd, jnp.int64)
    yd = lax.bitcast_convert_type(jnp.int64(0x5FE6EB50C7B537A9) - (id_ >> 1),
                                  jnp.float64)
    yd = yd * (1.5 - 0.5 * xd * yd * yd)
    expo = ((i >> 23) & 0xFF) - 127
    mant = i & 0x7FFFFF
    ilog2 = 31 - lax.clz(u)
    nxt = jnp.where(u <= 1, jnp.uint32(1),
                    jnp.uint32(1) << (32 - lax.clz(u - 1)).astype(jnp.uint32))
    parity = lax.population_count(u) & 1
    amt = (jnp.arange(u.shape[0]) * 7 % 33).astype(jnp.uint32)
    rot = (u << (amt & 31)) | (u >> ((32 - amt) & 31))
    u64 = u.astype(jnp.uint64) * jnp.uint64(0x9E3779B97F4A7C15)
    a64 = (jnp.arange(u.shape[0]) * 13 % 65).astype(jnp.uint64)
    rot64 = (u64 << (a64 & 63)) | (u64 >> ((64 - a64) & 63))
    rv = u
    for s, m in ((1, 0x55555555), (2, 0x33333333), (4, 0x0F0F0F0F),
                 (8, 0x00FF00FF)):
        m = jnp.uint32(m)
        rv = ((rv >> s) & m) | ((rv & m) << s)
    rv = (rv >> 16) | (rv << 16)
    gray = u ^ (u >> 1)
    back = gray
    for s in (1, 2, 4, 8, 16):
        back = back ^ (back >> s)

    def part(v):
        v = v.astype(jnp.uint32) & 0xFFFF
        v = (v | (v << 8)) & 0x00FF00FF
        v = (v | (v << 4)) & 0x0F0F0F0F
        v = (v | (v << 2)) & 0x33333333
        return (v | (v << 1)) & 0x55555555

    def compact(v):
        v = v & 0x55555555
        v = (v | (v >> 1)) & 0x33333333
        v = (v | (v >> 2)) & 0x0F0F0F0F
        v = (v | (v >> 4)) & 0x00FF00FF
        return ((v | (v >> 8)) & 0xFFFF).astype(jnp.uint16)

    mort = part(w[:, 0]) | (part(w[:, 1]) << 1)
    unm = (compact(mort), compact(mort >> 1))
    fb = lax.bitcast_convert_type(x - 1.0, jnp.uint32)
    key = jnp.where(fb >> 31 != 0, ~fb, fb | jnp.uint32(0x80000000))
    return (y, yd, expo, mant, ilog2, nxt, parity, rot, rot64, rv, gray,
            back, mort, unm, key, jnp.argsort(key), jnp.argsort(x - 1.0))


def _bits_inputs(r):
    x = np.abs(floats(r, (24,))) * 10 + 0.01
    x[:3] = [1.0, 4.0, 1e-3]
    u = r.integers(0, 2**32, size=(24,), dtype=np.uint64).astype(np.uint32)
    u[:4] = [0, 1, 2, 0xFFFFFFFF]
    w = r.integers(0, 2**16, size=(24, 2)).astype(np.uint16)
    return [x.astype(np.float32), u, w]


def utf8_byte_pairs(b):
    # Byte-level text processing on u8 arrays: UTF-8 lead-byte classes by
    # masks, character starts and their count, code points assembled by a
    # shift-or over up to four bytes, byte-pair counts by bincount of
    # a * 256 + b with length 65536 and the most frequent pair merged (a BPE
    # step: pairs replaced with where, the second byte dropped by a stable
    # compaction with cumsum and scatter), and lower-casing ASCII.
    n = b.shape[0]
    bi = b.astype(jnp.int32)
    cont = (bi & 0xC0) == 0x80
    nbytes = jnp.where(bi < 0x80, 1, jnp.where((bi & 0xE0) == 0xC0, 2,
                       jnp.where((bi & 0xF0) == 0xE0, 3,
                                 jnp.where((bi & 0xF8) == 0xF0, 4, 0))))
    start = ~cont
    pad = jnp.concatenate([bi, jnp.zeros(3, jnp.int32)])
    lead_bits = jnp.where(nbytes == 1, bi, bi & (0xFF >> (nbytes + 1)))
    cp = lead_bits
    for j in range(1, 4):
        cp = jnp.where(nbytes > j, (cp << 6) | (pad[j:j + n] & 0x3F), cp)
    cp = jnp.where(start, cp, -1)
    pairs = bi[:-1] * 256 + bi[1:]
    counts = jnp.bincount(pairs, length=65536)
    best = jnp.argmax(counts)
    hit = pairs == best
    # Non-overlapping left-to-right matches: a hit right after a kept hit
    # is dropped (a scan).
    def pick(prev, h):
        take = h & ~prev
        return take, take
    _, take = lax.scan(pick, False, hit)
    merged = jnp.where(jnp.concatenate([take, jnp.zeros(1, bool)]), 256 + 0,
                       bi)
    drop = jnp.concatenate([jnp.zeros(1, bool), take])
    keep = ~drop
    dest = jnp.cumsum(keep) - 1
    out = jnp.full(n, -1).at[jnp.where(keep, dest, n)].set(merged,
                                                          mode="drop")
    lower = jnp.where((b >= 65) & (b <= 90), b + jnp.uint8(32), b)
    return nbytes, start.sum(), cp, counts.max(), best, out, lower


def _utf8_inputs(r):
    text = "Héllo wörld — ABC abab ab 𝛑 ok ab!".encode("utf-8")
    return [np.frombuffer(text, np.uint8).copy()]


# --- Physics and simulation --------------------------------------------------

def lennard_jones_md(pos, vel, box):
    # Molecular dynamics in a periodic box: minimum-image displacements by
    # round, a Lennard-Jones energy with a cutoff and a shifted potential
    # (the diagonal masked before the division), forces as -jax.grad of the
    # energy, 20 velocity-Verlet steps in a fori_loop with positions
    # wrapped by mod, and the kinetic and potential energies per step.
    N = pos.shape[0]
    rc = 2.5
    shift = 4 * (rc ** -12 - rc ** -6)

    def energy(p):
        d = p[:, None] - p[None]
        d = d - box * jnp.round(d / box)
        r2 = jnp.sum(d * d, -1)
        eye = jnp.eye(N, dtype=bool)
        r2s = jnp.where(eye, 1.0, r2)
        inv6 = r2s ** -3
        e = 4 * (inv6 * inv6 - inv6) - shift
        e = jnp.where(eye | (r2s > rc * rc), 0.0, e)
        return 0.5 * jnp.sum(e)

    force = lambda p: -jax.grad(energy)(p)
    dt = 0.002

    def step(c, _):
        p, v, f = c
        v = v + 0.5 * dt * f
        p = jnp.mod(p + dt * v, box)
        f = force(p)
        v = v + 0.5 * dt * f
        return (p, v, f), (0.5 * jnp.sum(v * v), energy(p))

    (p, v, f), (ke, pe) = lax.scan(step, (pos, vel, force(pos)), None,
                                   length=20)
    return p, v, ke, pe


def _md_inputs(r):
    g = np.stack(np.meshgrid(np.arange(3), np.arange(3), np.arange(2),
                             indexing="ij"), -1).reshape(-1, 3) * 1.3 + 0.4
    g = g + r.uniform(-0.05, 0.05, g.shape)
    return [g.astype(np.float32), floats(r, g.shape) * 0.3,
            np.float32(4.0)]


def ising_checkerboard(spins, key, betas):
    # Metropolis sweeps of a 2-D Ising model with a checkerboard update:
    # neighbour sums by rolls, the flip probability exp(-2 beta dE) against
    # uniforms per sweep, black then white sites, 15 sweeps in a fori_loop
    # with split keys, vmapped over temperatures (s8 spins); magnetisation
    # and energy per temperature.
    H, W = spins.shape
    parity = (jnp.arange(H)[:, None] + jnp.arange(W)[None]) % 2

    def run(beta, k):
        def sweep(i, c):
            s, k = c
            k, k1, k2 = jax.random.split(k, 3)
            for color, kk in ((0, k1), (1, k2)):
                sf = s.astype(jnp.float32)
                nb = (jnp.roll(sf, 1, 0) + jnp.roll(sf, -1, 0)
                      + jnp.roll(sf, 1, 1) + jnp.roll(sf, -1, 1))
                dE = 2 * sf * nb
                u = jax.random.uniform(kk, (H, W))
                flip = (parity == color) & (u < jnp.exp(-beta * dE))
                s = jnp.where(flip, -s, s)
            return s, k

        s, _ = lax.fori_loop(0, 15, sweep, (spins, k))
        sf = s.astype(jnp.float32)
        e = -jnp.sum(sf * (jnp.roll(sf, 1, 0) + jnp.roll(sf, 1, 1)))
        return s, jnp.mean(sf), e

    keys = jax.random.split(key, betas.shape[0])
    return jax.vmap(run)(betas, keys)


def binomial_tree_options(s0, k, sigma, r_, T):
    # Option pricing: a Cox-Ross-Rubinstein binomial tree of 60 steps for
    # American puts (backward induction in a fori_loop over a full-length
    # array, early exercise by maximum, the unused tail masked), the
    # European price by the same tree and by Black-Scholes with erfc, and
    # delta and vega of the American price by jax.grad; vmapped over
    # strikes.
    n = 60

    def american(s0, k, sigma, early=True):
        dt = T / n
        u = jnp.exp(sigma * jnp.sqrt(dt))
        d = 1 / u
        p = (jnp.exp(r_ * dt) - d) / (u - d)
        disc = jnp.exp(-r_ * dt)
        j = jnp.arange(n + 1)
        st = s0 * u ** (n - 2.0 * j)
        v = jnp.maximum(k - st, 0.0)

        def back(i, v):
            m = n - 1 - i
            cont = disc * (p * v + (1 - p) * jnp.roll(v, -1))
            sm = s0 * u ** (m - 2.0 * j)
            ex = jnp.maximum(k - sm, 0.0)
            nv = jnp.maximum(cont, ex) if early else cont
            return jnp.where(j <= m, nv, 0.0)

        return lax.fori_loop(0, n, back, v)[0]

    def bs_put(s0, k, sigma):
        d1 = (jnp.log(s0 / k) + (r_ + 0.5 * sigma ** 2) * T) / (
            sigma * jnp.sqrt(T))
        d2 = d1 - sigma * jnp.sqrt(T)
        N = lambda x: 0.5 * jax.scipy.special.erfc(-x / jnp.sqrt(2.0))
        return k * jnp.exp(-r_ * T) * N(-d2) - s0 * N(-d1)

    def one(kk):
        am = american(s0, kk, sigma)
        eu = american(s0, kk, sigma, early=False)
        delta, vega = jax.grad(american, argnums=(0, 2))(s0, kk, sigma)
        return am, eu, bs_put(s0, kk, sigma), delta, vega

    return jax.vmap(one)(k)


def kalman_rts_smoother(ys, F, Q, R, m0, P0):
    # A 2-D constant-velocity Kalman filter over lax.scan (the 2x2
    # innovation inverse written out, observations missing where NaN
    # skipped by where), the Rauch-Tung-Striebel smoother by a reversed
    # scan, and the marginal log-likelihood; with its gradient by the
    # noise scales.
    H = jnp.eye(2, 4, dtype=ys.dtype)

    def inv2(S):
        det = S[0, 0] * S[1, 1] - S[0, 1] * S[1, 0]
        return jnp.array([[S[1, 1], -S[0, 1]], [-S[1, 0], S[0, 0]]]) / det, det

    def run(qs, rs):
        Qs, Rs = Q * qs, R * rs

        def fwd(c, y):
            m, P, ll = c
            mp = F @ m
            Pp = F @ P @ F.T + Qs
            S = H @ Pp @ H.T + Rs
            Si, det = inv2(S)
            K = Pp @ H.T @ Si
            obs = ~jnp.any(jnp.isnan(y))
            innov = jnp.where(obs, y - H @ mp, 0.0)
            m_new = jnp.where(obs, mp + K @ innov, mp)
            P_new = jnp.where(obs, Pp - K @ S @ K.T, Pp)
            dll = -0.5 * (innov @ Si @ innov + jnp.log(det)
                          + 2 * jnp.log(2 * jnp.pi))
            return (m_new, P_new, ll + jnp.where(obs, dll, 0.0)), (
                m_new, P_new, mp, Pp)

        (_, _, ll), (ms, Ps, mps, Pps) = lax.scan(fwd, (m0, P0, 0.0), ys)

        def bwd(c, x):
            ms_next, Ps_next = c
            m, P, mp_next, Pp_next = x
            G = P @ F.T @ _inv4(Pp_next)
            m_s = m + G @ (ms_next - mp_next)
            P_s = P + G @ (Ps_next - Pp_next) @ G.T
            return (m_s, P_s), (m_s, P_s)

        _, (msm, Psm) = lax.scan(
            bwd, (ms[-1], Ps[-1]),
            (ms[:-1], Ps[:-1], mps[1:], Pps[1:]), reverse=True)
        return ll, ms, jnp.concatenate([msm, ms[-1:]]), Psm

    one = jnp.float32(1.0)
    out = run(one, one)
    g = jax.grad(lambda a, b: run(a, b)[0], argnums=(0, 1))(one, one)
    return out, g


def _inv4(A):
    # Gauss-Jordan without pivoting (A is symmetric positive definite).
    n = A.shape[0]
    M = jnp.concatenate([A, jnp.eye(n, dtype=A.dtype)], 1)
    for i in range(n):
        M = M.at[i].set(M[i] / M[i, i])
        M = M - jnp.outer(jnp.where(jnp.arange(n) == i, 0.0, M[:, i]), M[i])
    return M[:, n:]


def _kalman_inputs(r):
    dt = 0.5
    F = np.eye(4, dtype=np.float32)
    F[0, 2] = F[1, 3] = dt
    Q = (np.eye(4) * 0.05).astype(np.float32)
    R = (np.eye(2) * 0.3).astype(np.float32)
    ys = np.cumsum(floats(r, (16, 2)), 0)
    ys[[4, 9, 10], :] = np.nan
    return [ys.astype(np.float32), F, Q, R, np.zeros(4, np.float32),
            np.eye(4, dtype=np.float32)]


def vtrace_retrace_returns(rewards, discounts, values, bootstrap, log_rhos,
                           q, pi, actions):
    # Off-policy RL targets: V-trace (clipped importance weights rho and c,
    # a reversed scan of the corrections), Retrace for Q with truncated
    # traces, TD(lambda) returns, n-step returns by a convolution-free
    # shifted sum with episode ends, and a double-DQN target with argmax
    # from the online net and values from the target net.
    rhos = jnp.exp(log_rhos)
    crho = jnp.minimum(1.0, rhos)
    cs = jnp.minimum(1.0, rhos) * 0.95
    v_next = jnp.concatenate([values[1:], bootstrap[None]], 0)
    deltas = crho * (rewards + discounts * v_next - values)

    def vt(acc, x):
        d, disc, c = x
        acc = d + disc * c * acc
        return acc, acc

    _, vs_minus_v = lax.scan(vt, jnp.zeros_like(bootstrap),
                             (deltas, discounts, cs), reverse=True)
    vs = vs_minus_v + values
    vs_next = jnp.concatenate([vs[1:], bootstrap[None]], 0)
    pg_adv = crho * (rewards + discounts * vs_next - values)

    def tdl(acc, x):
        r, disc, vn = x
        acc = r + disc * (0.1 * vn + 0.9 * acc)
        return acc, acc

    _, lam_ret = lax.scan(tdl, bootstrap, (rewards, discounts, v_next),
                          reverse=True)
    qa = jnp.take_along_axis(q, actions[..., None], -1)[..., 0]
    exp_q = jnp.sum(pi * q, -1)
    trace = 0.9 * jnp.minimum(1.0, rhos)

    def retrace(acc, x):
        r, disc, qa_, eq_next, c_next = x
        acc = r + disc * (eq_next + c_next * (acc - eq_next))
        return acc, acc - qa_

    eq_next = jnp.concatenate([exp_q[1:], exp_q[-1:]], 0)
    c_next = jnp.concatenate([trace[1:], jnp.zeros_like(trace[:1])], 0)
    _, ret_err = lax.scan(retrace, qa[-1],
                          (rewards, discounts, qa, eq_next, c_next),
                          reverse=True)
    T = rewards.shape[0]
    n = 3
    rpad = jnp.concatenate([rewards, jnp.zeros((n,) + rewards.shape[1:])])
    dpad = jnp.concatenate([discounts, jnp.zeros((n,) + discounts.shape[1:])])
    vpad = jnp.concatenate([values, jnp.broadcast_to(
        bootstrap, (n,) + bootstrap.shape)])
    ret = jnp.zeros_like(rewards)
    g = jnp.ones_like(rewards)
    for j in range(n):
        ret = ret + g * rpad[j:j + T]
        g = g * dpad[j:j + T]
    ret = ret + g * vpad[n:n + T]
    a_star = jnp.argmax(q, -1)
    ddqn = rewards + discounts * jnp.take_along_axis(
        q[::-1], a_star[..., None], -1)[..., 0]
    return vs, pg_adv, lam_ret, ret_err, ret, ddqn


def _vtrace_inputs(r):
    T, B, A = 9, 3, 4
    disc = np.full((T, B), 0.97, np.float32)
    disc[3, 0] = disc[6, 2] = 0.0
    return [floats(r, (T, B)), disc, floats(r, (T, B)), floats(r, (B,)),
            floats(r, (T, B)) * 0.5, floats(r, (T, B, A)),
            np.asarray(jax.nn.softmax(floats(r, (T, B, A)), -1)),
            ints(r, (T, B), 0, A)]


# --- Statistics and distances ------------------------------------------------

def sinkhorn_mmd_energy(x, y, a, b):
    # Distances between point clouds: squared Euclidean cost by the expansion
    # trick (clamped at zero), log-domain Sinkhorn in a while_loop until the
    # marginal error is below 1e-4 (or 200 steps), the transport plan and cost
    # (its gradient by x through 40 unrolled fori_loop steps, as reverse mode
    # cannot go through the while); MMD with a sum of RBF kernels at five
    # bandwidths (unbiased, the diagonals removed); the energy distance;
    # k-nearest neighbours by top_k of negated distances and a majority vote by
    # one_hot sums.
    def cost(x, y):
        c = (jnp.sum(x * x, 1)[:, None] + jnp.sum(y * y, 1)[None]
             - 2 * jnp.dot(x, y.T, precision=_HI))
        return jnp.maximum(c, 0.0)

    def sinkhorn(x, eps=0.1, steps=None):
        C = cost(x, y)
        la, lb = jnp.log(a), jnp.log(b)

        def body(s):
            f, g, i, _ = s
            f = -eps * jax.nn.logsumexp((g[None] - C) / eps + lb[None], 1)
            g = -eps * jax.nn.logsumexp((f[:, None] - C) / eps + la[:, None],
                                        0)
            P = jnp.exp((f[:, None] + g[None] - C) / eps + la[:, None]
                        + lb[None])
            err = jnp.sum(jnp.abs(P.sum(1) - a))
            return f, g, i + 1, err

        init = (jnp.zeros_like(a), jnp.zeros_like(b), 0, jnp.float32(jnp.inf))
        if steps is None:
            f, g, it, err = lax.while_loop(
                lambda s: (s[3] > 1e-4) & (s[2] < 200), body, init)
        else:
            f, g, it, err = lax.fori_loop(0, steps, lambda i, s: body(s),
                                          init)
        P = jnp.exp((f[:, None] + g[None] - C) / eps + la[:, None] + lb[None])
        return jnp.sum(P * C), P, it

    def mmd(x, y):
        def k(u, v):
            d = cost(u, v)
            return sum(jnp.exp(-d / (2 * s * s)) for s in
                       (0.25, 0.5, 1.0, 2.0, 4.0))
        n, m = x.shape[0], y.shape[0]
        kxx = k(x, x)
        kyy = k(y, y)
        return ((kxx.sum() - jnp.trace(kxx)) / (n * (n - 1))
                + (kyy.sum() - jnp.trace(kyy)) / (m * (m - 1))
                - 2 * k(x, y).mean())

    def energy(x, y):
        d = lambda u, v: jnp.sqrt(cost(u, v) + 1e-12)
        return 2 * d(x, y).mean() - d(x, x).mean() - d(y, y).mean()

    ot, P, it = sinkhorn(x)
    labels = (jnp.arange(y.shape[0]) % 3)
    _, nn = lax.top_k(-cost(x, y), 4)
    votes = jax.nn.one_hot(labels[nn], 3).sum(1)
    pred = jnp.argmax(votes + 0.01 * jnp.arange(3), -1)
    gx = jax.grad(lambda x: sinkhorn(x, steps=40)[0])(x)
    return ot, P, mmd(x, y), energy(x, y), pred, gx


def _ot_inputs(r):
    a = r.uniform(0.5, 1.5, 7)
    b = r.uniform(0.5, 1.5, 9)
    return [floats(r, (7, 2)), floats(r, (9, 2)) + 0.5,
            (a / a.sum()).astype(np.float32),
            (b / b.sum()).astype(np.float32)]


def triplet_mining_losses(emb, labels, w):
    # Metric learning: batch-hard triplet loss (hardest positive by a
    # masked max, hardest negative by a masked min with +inf), semi-hard
    # negatives (the smallest negative distance above the positive's), a
    # soft-margin variant with softplus, the angular/ArcFace margin on a
    # normalised classifier (cos(theta + m) by the identity, with the
    # easy-margin fallback), and the gradient by the embedding weights.
    def losses(w):
        z = emb @ w
        z = z / jnp.linalg.norm(z, axis=1, keepdims=True)
        d = jnp.sqrt(jnp.maximum(2 - 2 * z @ z.T, 1e-12))
        same = labels[:, None] == labels[None]
        eye = jnp.eye(z.shape[0], dtype=bool)
        pos = same & ~eye
        hp = jnp.max(jnp.where(pos, d, -jnp.inf), 1)
        hn = jnp.min(jnp.where(same, jnp.inf, d), 1)
        has = jnp.any(pos, 1)
        bh = jnp.sum(jnp.where(has, jax.nn.relu(hp - hn + 0.3), 0.0)) / \
            jnp.maximum(has.sum(), 1)
        semi = jnp.min(jnp.where(~same & (d > hp[:, None]), d, jnp.inf), 1)
        semi = jnp.where(jnp.isfinite(semi), semi, hn)
        sh = jnp.mean(jnp.where(has, jax.nn.relu(hp - semi + 0.3), 0.0))
        soft = jnp.mean(jnp.where(has, jax.nn.softplus(hp - hn), 0.0))
        cls = z @ (w[:, :3] / jnp.linalg.norm(w[:, :3], axis=0))[:z.shape[1]]
        cos = jnp.clip(cls, -1 + 1e-6, 1 - 1e-6)
        sin = jnp.sqrt(1 - cos * cos)
        m = 0.3
        phi = cos * jnp.cos(m) - sin * jnp.sin(m)
        phi = jnp.where(cos > 0, phi, cos)
        oh = jax.nn.one_hot(labels % 3, 3)
        logits = 16.0 * jnp.where(oh > 0, phi, cos)
        arc = -jnp.mean(jnp.sum(oh * jax.nn.log_softmax(logits), -1))
        return bh, sh, soft, arc

    vals = losses(w)
    g = jax.grad(lambda w: sum(losses(w)))(w)
    return vals, g


def _triplet_inputs(r):
    return [floats(r, (10, 6)), np.array([0, 0, 1, 1, 1, 2, 3, 3, 4, 2],
                                         np.int32),
            floats(r, (6, 6)) * 0.5]


def mixup_cutmix_batch(imgs, labels, key):
    # Data augmentation as training loops write it: mixup with a Beta(0.4, 0.4)
    # weight and a permutation of the batch, CutMix with a box whose area
    # follows a uniform draw (CutMix's Beta(1, 1); centre by randint, clipped,
    # the mask from iota comparisons, the label weight from the actual area),
    # random horizontal flips by bernoulli and where, random crops by
    # dynamic_slice at per-example offsets (vmapped), and random erasing.
    B, H, W, C = imgs.shape
    k = jax.random.split(key, 8)
    lam = jax.random.beta(k[0], 0.4, 0.4)
    perm = jax.random.permutation(k[1], B)
    oh = jax.nn.one_hot(labels, 5)
    mix_x = lam * imgs + (1 - lam) * imgs[perm]
    mix_y = lam * oh + (1 - lam) * oh[perm]
    lam2 = jax.random.uniform(k[2])  # CutMix's Beta(1, 1)
    cut = jnp.sqrt(1 - lam2)
    ch, cw = (H * cut).astype(jnp.int32), (W * cut).astype(jnp.int32)
    cy = jax.random.randint(k[3], (), 0, H)
    cx = jax.random.randint(k[4], (), 0, W)
    y0, y1 = jnp.clip(cy - ch // 2, 0, H), jnp.clip(cy + ch // 2, 0, H)
    x0, x1 = jnp.clip(cx - cw // 2, 0, W), jnp.clip(cx + cw // 2, 0, W)
    yy = jnp.arange(H)[:, None]
    xx = jnp.arange(W)[None]
    box = (yy >= y0) & (yy < y1) & (xx >= x0) & (xx < x1)
    cut_x = jnp.where(box[None, :, :, None], imgs[perm], imgs)
    area = 1 - ((y1 - y0) * (x1 - x0)) / (H * W)
    cut_y = area * oh + (1 - area) * oh[perm]
    flip = jax.random.bernoulli(k[5], 0.5, (B,))
    flipped = jnp.where(flip[:, None, None, None], imgs[:, :, ::-1], imgs)
    offs = jax.random.randint(k[6], (B, 2), 0, 3)
    crops = jax.vmap(lambda im, o: lax.dynamic_slice(
        im, (o[0], o[1], 0), (H - 2, W - 2, C)))(flipped, offs)
    ek = jax.random.split(k[7], B)

    def erase(im, kk):
        a, b_, c = jax.random.split(kk, 3)
        ey = jax.random.randint(a, (), 0, H - 2)
        ex = jax.random.randint(b_, (), 0, W - 2)
        noise = jax.random.normal(c, (3, 3, C), im.dtype)
        return lax.dynamic_update_slice(im, noise, (ey, ex, 0))

    erased = jax.vmap(erase)(imgs, ek)
    return mix_x, mix_y, cut_x, cut_y, crops, erased, lam, perm


# --- Numerics surfaces -------------------------------------------------------

def special_functions_mix(x, p, a, b):
    # jax.scipy.special as losses use it: logsumexp with b (signed weights,
    # return_sign), xlogy/xlog1py at zeros, erf/erfc/erfinv round trips,
    # gammaln/digamma/polygamma(1) for Dirichlet KLs, betainc for a Student
    # t CDF, log_ndtr and ndtri deep in the tails, and logsumexp along an
    # axis with where=.
    sp = jax.scipy.special
    lse, sign = sp.logsumexp(x, axis=1, b=jnp.sign(x) + 0.5,
                             return_sign=True)
    lse_w = sp.logsumexp(x, axis=1, where=x > -0.5)
    xl = sp.xlogy(p, p) + sp.xlog1py(p, -p)
    ei = sp.erfinv(sp.erf(x * 0.5))
    ec = sp.erfc(x * 3)
    alpha, beta = a, b
    kl = (sp.gammaln(alpha.sum(-1)) - sp.gammaln(alpha).sum(-1)
          - sp.gammaln(beta.sum(-1)) + sp.gammaln(beta).sum(-1)
          + jnp.sum((alpha - beta) * (sp.digamma(alpha)
                                      - sp.digamma(alpha.sum(-1,
                                                             keepdims=True))),
                    -1))
    trig = sp.polygamma(1, alpha)
    nu = 4.0
    t = x[:, :3]
    tcdf = 1 - 0.5 * sp.betainc(nu / 2, 0.5, nu / (nu + t * t))
    tcdf = jnp.where(t < 0, 1 - tcdf, tcdf)
    tails = sp.log_ndtr(jnp.array([-40.0, -10.0, -1.0, 0.0, 5.0, 10.0]))
    q = sp.ndtri(jnp.array([1e-30, 1e-8, 0.5, 0.975, 1 - 1e-7]))
    return lse, sign, lse_w, xl, ei, ec, kl, trig, tcdf, tails, q


def _special_inputs(r):
    p = r.uniform(0, 1, (8,)).astype(np.float32)
    p[:2] = [0.0, 1.0]
    return [floats(r, (4, 6)), p,
            r.uniform(0.3, 4, (3, 5)).astype(np.float32),
            r.uniform(0.3, 4, (3, 5)).astype(np.float32)]


def random_samplers_mix(key, logits, alpha, mean, cov_l):
    # jax.random's samplers as models call them, in one program: categorical
    # over rows with -inf entries, gumbel, normal and uniform with traced
    # scales and bounds, gamma with small shape (dirichlet and beta are
    # hunted10's, and slow for XLA:CPU to compile), poisson with small and
    # large rates, permutation of an axis, choice with and without replacement
    # with p, truncated_normal with infinite bounds, bernoulli with per-element
    # p, a multivariate normal from a Cholesky factor given (no LAPACK, so
    # AArch64 runs it), and exponential / laplace.
    ks = jax.random.split(key, 14)
    R = jax.random
    return (
        R.categorical(ks[0], logits, axis=-1, shape=(6, logits.shape[0])),
        R.gumbel(ks[1], (5,)),
        R.normal(ks[2], (3,)) * alpha[:3],
        R.uniform(ks[3], (3,), minval=alpha[0], maxval=alpha[0] + 1.0),
        R.gamma(ks[4], jnp.array([0.05, 0.5, 1.0, 3.0, 30.0])),
        R.poisson(ks[5], jnp.array([0.1, 3.0, 12.0, 90.0]), (2, 4)),
        R.permutation(ks[6], jnp.arange(12).reshape(4, 3), axis=1,
                      independent=True),
        R.choice(ks[7], 10, (6,), replace=True,
                 p=jnp.arange(10.0) / 45.0),
        R.choice(ks[8], 10, (6,), replace=False,
                 p=jnp.arange(1, 11.0) / 55.0),
        R.truncated_normal(ks[9], -jnp.inf, jnp.array([0.0, 1.0, jnp.inf]),
                           (4, 3)),
        R.bernoulli(ks[10], jnp.array([0.0, 0.3, 0.7, 1.0])),
        mean + R.normal(ks[11], (5, 3)) @ cov_l.T,
        R.exponential(ks[12], (4,)),
        R.laplace(ks[13], (4,)),
    )


def _rand_inputs(r):
    lg = floats(r, (3, 7))
    lg[1, 2] = -np.inf
    lg[2, :5] = -np.inf
    L = np.tril(floats(r, (3, 3)) * 0.3) + np.eye(3) * 1.5
    return [prng_key(r), lg, r.uniform(0.2, 3, 4).astype(np.float32),
            floats(r, (3,)), L.astype(np.float32)]


def cumulative_assoc_scans(x, a, b):
    # Cumulative reductions people write with associative_scan: a
    # cumulative logsumexp, a first-order linear recurrence h = a h + b as
    # pairs (forward and reverse), a running (max, argmax) pair, a
    # segmented cumsum with reset flags, and 2x2 matrix products
    # (Fibonacci-like), checked against lax.scan versions.
    cle = lax.associative_scan(jnp.logaddexp, x, axis=1)

    def lin(l, r_):
        return r_[0] * l[0], r_[0] * l[1] + r_[1]

    h = lax.associative_scan(lin, (a, b), axis=0)[1]
    hr = lax.associative_scan(lin, (a, b), axis=0, reverse=True)[1]

    def step(c, ab):
        c = ab[0] * c + ab[1]
        return c, c
    hs = lax.scan(step, jnp.zeros(a.shape[1:]), (a, b))[1]

    idx = jnp.broadcast_to(jnp.arange(x.shape[1]), x.shape)

    def amax(l, r_):
        take_r = r_[0] > l[0]
        return jnp.where(take_r, r_[0], l[0]), jnp.where(take_r, r_[1], l[1])

    rmax, rarg = lax.associative_scan(amax, (x, idx), axis=1)
    reset = (idx % 4) == 0

    def seg(l, r_):
        return l[0] | r_[0], jnp.where(r_[0], r_[1], l[1] + r_[1])

    segsum = lax.associative_scan(seg, (reset, x), axis=1)[1]
    mats = jnp.stack([jnp.stack([a, jnp.ones_like(a)], -1),
                      jnp.stack([jnp.ones_like(a), jnp.zeros_like(a)], -1)],
                     -2) * 0.5
    prods = lax.associative_scan(lambda l, r_: jnp.einsum(
        "...ij,...jk->...ik", r_, l, precision=_HI), mats, axis=0)
    return cle, h, hr, hs, rmax, rarg, segsum, prods


def control_nesting(x, flags, n):
    # Control flow nested as real code nests it: a lax.cond inside vmap
    # inside scan (branches returning pytrees with different dtypes in
    # them), a switch indexed by a clamped computed value, lax.map with
    # batch_size over rows with a fori_loop of data-dependent trip count
    # inside, and a while_loop whose carry holds a dict and a tuple.
    def cell(c, xs):
        xrow, f = xs

        def per(v, fl):
            return lax.cond(fl > 0,
                            lambda v: {"a": v * 2.0, "n": jnp.int32(1)},
                            lambda v: {"a": jnp.sin(v), "n": jnp.int32(-1)},
                            v)

        out = jax.vmap(per)(xrow + c, f)
        c = c + out["a"] * 0.1
        idx = jnp.clip(jnp.sum(out["n"]) + 1, 0, 2)
        c = lax.switch(idx, [lambda c: c - 1.0, jnp.tanh, lambda c: c * c], c)
        return c, (out["a"], out["n"])

    c, (aa, nn) = lax.scan(cell, jnp.zeros(x.shape[1]), (x, flags))

    def row(args):
        r_, k = args
        return lax.fori_loop(0, k, lambda i, v: jnp.cos(v) + i * 0.01, r_)

    mapped = lax.map(row, (x, n), batch_size=3)

    def wcond(s):
        return s["i"] < 7

    def wbody(s):
        p, q = s["pair"]
        return {"i": s["i"] + 1, "pair": (q, p + q * 0.5), "acc": s["acc"]
                + p.sum()}

    ws = lax.while_loop(wcond, wbody, {"i": jnp.int32(0),
                                      "pair": (x[0], x[1]),
                                      "acc": jnp.float32(0)})
    return c, aa, nn, mapped, ws


def _control_inputs(r):
    return [floats(r, (7, 4)), ints(r, (7, 4), -1, 2),
            ints(r, (7,), 0, 6)]


def custom_vjp_pytree_residuals(params, x):
    # custom_vjp whose residuals are a pytree (a dict holding a tuple, None and
    # an integer array), a clipped-gradient layer norm whose backward
    # recomputes from saved statistics, used inside a scan over stacked layers;
    # and the same net with a plain layer norm composed with jax.jvp of the
    # gradient (forward-over-reverse Hessian-vector product), jax.linearize and
    # jax.vjp of jax.jvp.
    @jax.custom_vjp
    def ln(x, g):
        mu = x.mean(-1, keepdims=True)
        var = x.var(-1, keepdims=True)
        return (x - mu) * lax.rsqrt(var + 1e-5) * g

    def ln_fwd(x, g):
        mu = x.mean(-1, keepdims=True)
        rs = lax.rsqrt(x.var(-1, keepdims=True) + 1e-5)
        xh = (x - mu) * rs
        res = {"stats": (xh, rs), "none": None,
               "count": jnp.int32(x.shape[-1]), "g": g}
        return xh * g, res

    def ln_bwd(res, ct):
        xh, rs = res["stats"]
        g = res["g"]
        n = res["count"].astype(ct.dtype)
        dxh = jnp.clip(ct * g, -1.0, 1.0)
        dx = rs / n * (n * dxh - dxh.sum(-1, keepdims=True)
                       - xh * jnp.sum(dxh * xh, -1, keepdims=True))
        return dx, jnp.sum(ct * xh, axis=tuple(range(ct.ndim - 1)))

    ln.defvjp(ln_fwd, ln_bwd)

    def plain_ln(x, g):
        mu = x.mean(-1, keepdims=True)
        return (x - mu) * lax.rsqrt(x.var(-1, keepdims=True) + 1e-5) * g

    def net(params, x, norm=ln):
        def layer(h, p):
            w, g = p
            return jnp.tanh(norm(h @ w, g)) + h, None
        return lax.scan(layer, x, params)[0]

    plain = functools.partial(net, norm=plain_ln)

    loss = lambda p: jnp.sum(net(p, x) ** 2)
    g = jax.grad(loss)(params)
    tangent = jax.tree_util.tree_map(lambda a: jnp.ones_like(a) * 0.1, params)
    _, hvp = jax.jvp(jax.grad(lambda p: jnp.sum(jnp.sin(plain(p, x)))),
                     (params,), (tangent,))
    y, f_jvp = jax.linearize(lambda x: plain(params, x), x)
    lin = f_jvp(jnp.ones_like(x))
    _, vjp_fn = jax.vjp(lambda x: jax.jvp(lambda z: plain(params, z), (x,),
                                          (jnp.ones_like(x),))[1], x)
    return g, hvp, y, lin, vjp_fn(jnp.ones_like(x))


def _cvjp_inputs(r):
    return [(floats(r, (3, 5, 5)) * 0.4,
             np.ones((3, 5), np.float32) + floats(r, (3, 5)) * 0.1),
            floats(r, (4, 5))]


def searchsorted_interp_hist(sorted_x, q, xp, fp, data, coeffs):
    # The 1-D lookup helpers together: searchsorted with side left/right and
    # every method (scan, scan_unrolled, sort, compare_all) on ties, NaN
    # queries and out-of-range values; interp with left/right and a period;
    # histogram with explicit edges and density; bincount with weights and
    # length; digitize both ways; polyval of a polynomial matrix by rows.
    outs = []
    for side in ("left", "right"):
        for method in ("scan", "scan_unrolled", "sort", "compare_all"):
            outs.append(jnp.searchsorted(sorted_x, q, side=side,
                                         method=method))
    it = jnp.interp(q, xp, fp)
    it_lr = jnp.interp(q, xp, fp, left=-9.0, right=9.0)
    it_p = jnp.interp(q, xp, fp, period=4.0)
    edges = jnp.array([-3.0, -1.0, -0.5, 0.0, 0.5, 2.0, 3.0])
    h, _ = jnp.histogram(data, bins=edges)
    hd, _ = jnp.histogram(data, bins=5, range=(-2.0, 2.0), density=True)
    bins = jnp.clip((data * 2 + 5).astype(jnp.int32), 0, 20)
    bc = jnp.bincount(bins, weights=data, length=12)
    dg = jnp.digitize(data, edges), jnp.digitize(data, edges, right=True)
    pv = jax.vmap(jnp.polyval, in_axes=(0, None))(coeffs, q[:6])
    return tuple(outs), it, it_lr, it_p, h, hd, bc, dg, pv


def _search_inputs(r):
    sx = np.sort(np.array([-2, -1, -1, 0, 0, 0, 0.5, 1, 1, 3], np.float32))
    q = np.array([-3, -1, 0, 0.25, 1, 3, 4, np.nan, -0.0, 2.5], np.float32)
    xp = np.array([-2.0, -1.0, 0.0, 1.5, 3.0], np.float32)
    return [sx, q, xp, floats(r, (5,)), floats(r, (40,)),
            floats(r, (3, 4))]


def unique_argsort_ties_nan(x, i):
    # Sorting-based helpers on awkward data: argsort (stable and not,
    # descending) and argmin/argmax with ties and NaNs, jnp.unique with
    # size= and fill_value on floats with NaN and -0.0 (equal_nan), return
    # index/inverse/counts, nanargmin, lexsort of two keys with a NaN
    # column, and sort of an integer key with a float payload.
    st = jnp.argsort(x, stable=True)
    dsc = jnp.argsort(x, stable=True, descending=True)
    am = jnp.argmin(x), jnp.argmax(x), jnp.nanargmin(x), jnp.nanargmax(x)
    u, idx, inv, cnt = jnp.unique(x, return_index=True, return_inverse=True,
                                  return_counts=True, size=12,
                                  fill_value=-7.0)
    ui = jnp.unique(i, size=8, fill_value=99)
    lx = jnp.lexsort((x, i))
    k, v = lax.sort((i, x), num_keys=1)
    return st, dsc, am, u, idx, inv, cnt, ui, lx, k, v


def _uniq_inputs(r):
    x = np.array([1.0, np.nan, -0.0, 0.0, 2.0, 1.0, np.nan, -1.0, 2.0, 0.5,
                  -1.0, 3.0, np.nan, 0.0], np.float32)
    return [x, np.array([3, 1, 3, 2, 1, 0, 3, 2, 1, 0, 5, 5, 4, 1],
                        np.int32)]


def promotion_and_shapes(x8, u8, h, s, z):
    # Dtype promotion with weak types (Python scalars against u8, f16, s8,
    # bf16), mixed unsigned/signed to s16/s32, f16 with s32 -> f16, and
    # unusual shapes: a zero-size axis through a matmul, softmax, scan and
    # top_k; rank-6 transposes and reductions; size-1 broadcast chains; and
    # jnp.where chains / lax.select_n with a computed selector.
    a = u8 + 3
    b = u8 * 200
    c = x8 + u8
    d = h * 3.5 + 1
    e = h + s
    f = h.astype(jnp.bfloat16) * 2 + 1
    g = (x8 // 3, x8 % -3, u8 // 7, jnp.uint8(250) + u8)
    zm = z @ jnp.ones((0, 4))
    zs = jax.nn.softmax(jnp.ones((3, 0)), axis=-1)
    zc = lax.scan(lambda c, r_: (c + r_.sum(), c), 0.0, z.T)
    t6 = jnp.arange(720.0).reshape(2, 3, 4, 1, 5, 6).transpose(
        4, 0, 5, 2, 3, 1)
    r6 = t6.sum(axis=(1, 3)), t6.max(axis=(0, 5))
    one = jnp.ones((1, 1, 3, 1)) * jnp.arange(2.0)[:, None, None, None] \
        + jnp.arange(5.0).reshape(1, 5, 1, 1)
    sel = jnp.where(h > 0, 1, jnp.where(h < -0.5, 2, 0))
    sn = lax.select_n(sel, h, -h, h * 10)
    w = jnp.where(s > 0, jnp.where(s > 3, s * 2, s), -s)
    return (a, b, c, d, e, f, g, zm, zs, zc, t6, r6, one, sn, w)


def _promo_inputs(r):
    return [ints(r, (6,), -128, 128, np.int8),
            ints(r, (6,), 0, 256, np.uint8),
            floats(r, (6,), np.float16), ints(r, (6,), -5, 6),
            np.zeros((5, 0), np.float32)]


def gelu_glu_activations(x, w):
    # jax.nn's activations in both spellings where they have two: gelu
    # approximate and exact, glu along two axes, softplus at large inputs,
    # silu/swish, celu/selu/elu, hard_* variants, log_softmax and softmax
    # with where= masks, one_hot of a 300-class vocabulary with -1 and
    # out-of-range ids, standardize; and the gradients of the gelus.
    m = x > -1.0
    acts = (jax.nn.gelu(x, approximate=True),
            jax.nn.gelu(x, approximate=False),
            jax.nn.glu(jnp.concatenate([x, w], -1), axis=-1),
            jax.nn.glu(jnp.concatenate([x, w], 0), axis=0),
            jax.nn.softplus(x * 40), jax.nn.silu(x), jax.nn.celu(x, 0.5),
            jax.nn.selu(x), jax.nn.elu(x), jax.nn.hard_tanh(x * 2),
            jax.nn.hard_sigmoid(x), jax.nn.hard_swish(x),
            jax.nn.log_softmax(x, where=m, axis=-1),
            jax.nn.softmax(x, where=m, axis=-1),
            jax.nn.standardize(x, axis=-1))
    ids = jnp.array([0, 299, -1, 300, 150, 7])
    oh = jax.nn.one_hot(ids, 300)
    ga = jax.grad(lambda x: jnp.sum(jax.nn.gelu(x, approximate=True)))(x)
    ge = jax.grad(lambda x: jnp.sum(jax.nn.gelu(x, approximate=False)))(x)
    return acts, oh.sum(0), oh.argmax(-1), ga, ge


# --- Second batch: constants, ports, indexing forms, dtypes, calls -----------

def constant_folded_programs(s):
    # Work the compiler can do at compile time: jax.random with a key made
    # inside jit (threefry over constants), sorts, cumulative sums,
    # reduce-windows and gathers of iota-derived tables, a fori_loop over
    # constants, integer hashing that wraps, float constants that round to
    # denormals and overflow, and a scalar input mixed in at the end.
    key = jax.random.PRNGKey(42)
    k1, k2 = jax.random.split(key)
    noise = jax.random.normal(k1, (6, 5))
    perm = jax.random.permutation(k2, 20)
    unif = jax.random.uniform(jax.random.fold_in(key, 7), (8,),
                              minval=-1.0, maxval=1.0)
    it = jnp.arange(64, dtype=jnp.uint32)
    h = it * jnp.uint32(2654435761)
    h = h ^ (h >> 15)
    h = h * jnp.uint32(0x85EBCA6B)
    srt = jnp.sort(h)
    order = jnp.argsort(jnp.sin(jnp.arange(30.0)))
    cs = jnp.cumsum(jnp.arange(100, dtype=jnp.int8))
    cp = jnp.cumprod(jnp.arange(1, 25, dtype=jnp.int32))
    rw = lax.reduce_window(jnp.arange(48.0).reshape(6, 8), -jnp.inf, lax.max,
                           (2, 3), (2, 2), "SAME")
    table = jnp.cos(jnp.arange(50.0))
    g = table[(jnp.arange(12) * 7) % 50]
    loop = lax.fori_loop(0, 30, lambda i, v: v * 1.1 + jnp.sin(v + i),
                         jnp.linspace(0.0, 1.0, 5))
    tiny = jnp.float32(1e-30) * jnp.float32(1e-10)
    huge = jnp.float32(3e38) * jnp.float32(10.0)
    sub = jnp.float32(1.17549435e-38) / jnp.float32(4.0)
    mixed = noise * s + loop.sum()
    return (noise, perm, unif, srt, order, cs, cp, rw, g, loop, tiny, huge,
            sub, mixed, jnp.float32(1.0) / (sub * jnp.float32(1e30)))


def pytorch_port_nchw(x, w1, wdw, wpw, wt, gamma, beta, rmean, rvar):
    # A CNN ported from PyTorch: NCHW activations and OIHW kernels,
    # an even 4x4 kernel with stride 2 and SAME padding (asymmetric pads),
    # BatchNorm in eval mode with running statistics, a depthwise separable
    # block (feature_group_count = C, then a 1x1 conv), a bf16 convolution
    # accumulated in f32 (preferred_element_type), pixel shuffle
    # (depth_to_space by reshape/transpose), nearest upsampling by repeat,
    # a stride-2 SAME transposed convolution, adaptive average pooling by
    # reshape and mean; and the gradient by the first kernel.
    dn = ("NCHW", "OIHW", "NCHW")

    def net(w1):
        h = lax.conv_general_dilated(x, w1, (2, 2), "SAME",
                                     dimension_numbers=dn, precision=_HI)
        h = (h - rmean[None, :, None, None]) * lax.rsqrt(
            rvar[None, :, None, None] + 1e-5) * gamma[None, :, None, None] \
            + beta[None, :, None, None]
        h = jax.nn.relu6(h)
        C = h.shape[1]
        d = lax.conv_general_dilated(h, wdw, (1, 1), ((1, 1), (1, 1)),
                                     dimension_numbers=dn,
                                     feature_group_count=C, precision=_HI)
        p = lax.conv_general_dilated(
            d.astype(jnp.bfloat16), wpw.astype(jnp.bfloat16), (1, 1),
            "VALID", dimension_numbers=dn,
            preferred_element_type=jnp.float32)
        B, C4, H, W = p.shape
        r = 2
        ps = p.reshape(B, C4 // 4, r, r, H, W).transpose(0, 1, 4, 2, 5, 3)
        ps = ps.reshape(B, C4 // 4, H * r, W * r)
        up = jnp.repeat(jnp.repeat(h, 2, axis=2), 2, axis=3)
        t = lax.conv_transpose(h, wt, (2, 2), "SAME", dimension_numbers=dn,
                               precision=_HI)
        pooled = up.reshape(B, C, 2, up.shape[2] // 2, 2,
                            up.shape[3] // 2).mean(axis=(3, 5))
        return ps, t, pooled

    outs = net(w1)
    g = jax.grad(lambda w: sum(jnp.sum(jnp.sin(o)) for o in net(w)))(w1)
    return outs, g


def _nchw_inputs(r):
    return [floats(r, (2, 3, 10, 10)), floats(r, (4, 3, 4, 4)) * 0.3,
            floats(r, (4, 1, 3, 3)) * 0.3, floats(r, (8, 4, 1, 1)) * 0.3,
            floats(r, (4, 4, 3, 3)) * 0.3,
            r.uniform(0.5, 1.5, 4).astype(np.float32), floats(r, (4,)) * 0.1,
            floats(r, (4,)) * 0.1, r.uniform(0.5, 2, 4).astype(np.float32)]


def indexing_update_forms(x, i, j, v, m):
    # NumPy indexing as users write it, lowered to gathers and scatters of
    # every shape: advanced indices separated by a slice (their dimension
    # moves to the front), a boolean row mask with where, negative indices,
    # .at[].add/mul/min/max/set/get with unique_indices, indices_are_sorted
    # and every mode (clip, drop, fill with fill_value, promise_in_bounds),
    # strided .at[::2] updates, take in wrap/clip/fill modes,
    # take_along_axis and put_along_axis, jnp.select and jnp.choose.
    a = x[i, :, j]
    b = x[:, i[:3]][..., -1]
    c = x[-1, ::-2, j[:2, None]]
    y = x.at[i, :, j].add(v)
    y2 = x.at[i[:3], 1].mul(2.0, indices_are_sorted=False,
                            unique_indices=False)
    y3 = x.at[jnp.array([0, 2, 3]), :, 1].set(
        -1.0, unique_indices=True, indices_are_sorted=True)
    y4 = x.at[i - 2].min(0.0, mode="drop")
    y5 = x.at[:, :, ::2].max(0.5)
    y6 = x.at[i + 3].get(mode="fill", fill_value=-5.0)
    y7 = x.at[jnp.clip(i, 0, 3)].add(1.0, mode="promise_in_bounds")
    t = (jnp.take(x, i * 5 - 7, axis=2, mode="wrap"),
         jnp.take(x, i * 5 - 7, axis=2, mode="clip"),
         jnp.take(x, i * 5 - 7, axis=2, mode="fill", fill_value=9.0))
    ta = jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1)
    pa = jnp.put_along_axis(x, jnp.argmax(x, axis=2, keepdims=True),
                            -3.0, axis=2, inplace=False)
    masked = jnp.where(m[:, None, None], x, 0.0)
    sel = jnp.select([x < -0.5, x > 0.5], [x * 2, -x], default=0.25)
    ch = jnp.choose(jnp.clip(i, 0, 2), [x[0, 0, :5], x[1, 1, :5],
                                         x[2, 2, :5]], mode="clip")
    return a, b, c, y, y2, y3, y4, y5, y6, y7, t, ta, pa, masked, sel, ch


def _idx_inputs(r):
    return [floats(r, (4, 3, 5)), np.array([1, 3, 0, 3, 2], np.int32),
            np.array([4, 0, 2, -1, 1], np.int32), floats(r, (5, 3)),
            np.array([True, False, True, True])]


def dtype_reduction_surface(b, u8, i8, h, bf, u64, f):
    # Reductions and scans at every dtype JAX users feed them: argmax and
    # argmin of bool, u8, s8, f16 and bf16 (ties, NaN), max/min/sum/prod
    # of bool and narrow integers (JAX widens sums of bool and s8), cumsum
    # of bool, cumprod of u8 that wraps, any/all with where=,
    # count_nonzero along axes, mean/var of integers with ddof, median of
    # bf16 and nanquantile, ptp, and top_k of f16 and u64.
    return (jnp.argmax(b, 1), jnp.argmin(b, 1), jnp.argmax(u8, 0),
            jnp.argmin(i8, 1), jnp.argmax(h, 1), jnp.argmin(bf, 1),
            jnp.max(b, 1), jnp.sum(b, 1), jnp.prod(b, 0),
            jnp.sum(i8, 1), jnp.sum(i8, 1, dtype=jnp.int8),
            jnp.prod(u8, 1, dtype=jnp.uint8), jnp.max(u8, 1), jnp.min(i8, 0),
            jnp.cumsum(b, 1), jnp.cumprod(u8, 1, dtype=jnp.uint8),
            jnp.any(b, 1, where=u8 > 100), jnp.all(b, 0, where=i8 < 0),
            jnp.count_nonzero(i8, axis=0), jnp.mean(u8, 1),
            jnp.var(i8, 1, ddof=1), jnp.median(bf, axis=1),
            jnp.nanquantile(f, jnp.array([0.1, 0.5, 0.9]), axis=1),
            jnp.ptp(u8, axis=1), lax.top_k(h, 3), lax.top_k(u64, 2),
            jnp.max(h, 1), jnp.sum(bf, 1), jnp.sum(h, 1, dtype=jnp.float32))


def _dtype_inputs(r):
    h = floats(r, (4, 7)).astype(np.float16)
    h[1, 2] = np.nan
    h[2, :] = 1.0
    bf = floats(r, (4, 7)).astype(jnp.bfloat16)
    bf[3, 4] = np.nan
    f = floats(r, (4, 7))
    f[0, 1] = f[2, 5] = np.nan
    u64 = r.integers(0, 2**63, size=(4, 7), dtype=np.int64).astype(
        np.uint64) * np.uint64(2)
    u64[0, 0] = np.uint64(2**64 - 1)
    return [r.random((4, 7)) < 0.4, ints(r, (4, 7), 0, 256, np.uint8),
            ints(r, (4, 7), -128, 128, np.int8), h, bf, u64, f]


def nested_calls_barriers(x, w):
    # Calls as libraries leave them: jax.named_call and nested jax.jit
    # functions called from several sites with the same and different
    # shapes (HLO calls of one computation), an inner jit inside a scan
    # body, lax.optimization_barrier holding a value and a tuple, jax.
    # checkpoint with prevent_cse=False, a function returning its argument
    # and a constant unchanged, and the gradient through all of it.
    @jax.jit
    def dense(h, w):
        return jnp.tanh(h @ w)

    @functools.partial(jax.named_call, name="block")
    def block(h, w):
        h1 = dense(h, w)
        h1, hb = lax.optimization_barrier((h1, h))
        return dense(h1, w) + hb

    @jax.jit
    def norm(v):
        return v / jnp.sqrt(jnp.sum(v * v) + 1e-6)

    def net(w):
        h = block(x, w)
        h = jax.checkpoint(block, prevent_cse=False)(h, w)
        h, ys = lax.scan(lambda c, _: (dense(c, w) * 0.5 + c * 0.5,
                                       norm(c[0])), h, None, length=4)
        return h, ys, norm(w.reshape(-1)), norm(x[0])

    outs = net(w)
    g = jax.grad(lambda w: jnp.sum(net(w)[0] ** 2))(w)
    return outs, g, x, jnp.float32(3.0), lax.optimization_barrier(x * 2)


def softmax_beside_sliding_max(scores, img):
    # A reduction and a reduce-window of the same values, returned side by
    # side: the attention probabilities of a row of scores and their
    # sliding maximum (peak picking), for one row and for four; a column
    # mean over a batch of images beside their 3x3 max-pool. The
    # reduce-window joined the reduction's kernel as a sibling, which no
    # backend could emit (cuda failed to compile, AArch64 refused it).
    def peaks(s):
        return (jax.nn.softmax(s, axis=-1),
                lax.reduce_window(s, -jnp.inf, lax.max, (1, 5), (1, 1),
                                  "SAME"))
    col_mean = jnp.mean(jnp.exp(img), axis=0)
    pooled = lax.reduce_window(img, -jnp.inf, lax.max, (1, 3, 3), (1, 1, 1),
                               "SAME")
    return peaks(scores[:1]), peaks(scores), col_mean, pooled


# --- Past the CPU backend's parallel split -----------------------------------

def big_vocab_sampling(logits, history, key):
    # The logits processors at a real vocabulary (4 rows of 32000): the
    # repetition penalty's scatter, top-k by lax.top_k, top-p by a sort of
    # each row and a cumsum, min-p, and categorical draws; plus argsort of
    # the whole batch flattened.
    prev = jnp.take_along_axis(logits, history, axis=1)
    pen = jnp.where(prev > 0, prev / 1.3, prev * 1.3)
    x = logits.at[jnp.arange(logits.shape[0])[:, None], history].set(pen)
    kth = lax.top_k(x, 50)[0][:, -1:]
    x_k = jnp.where(x < kth, -jnp.inf, x)
    srt = jnp.sort(x, axis=-1)[:, ::-1]
    p = jax.nn.softmax(srt, axis=-1)
    cum = jnp.cumsum(p, axis=-1)
    cut = jnp.sum(cum < 0.9, axis=-1)
    thresh = jnp.take_along_axis(srt, cut[:, None], axis=1)
    x_p = jnp.where(x < thresh, -jnp.inf, x)
    probs = jax.nn.softmax(x, axis=-1)
    x_m = jnp.where(probs < 0.05 * probs.max(-1, keepdims=True), -jnp.inf, x)
    ks = jax.random.split(key, 3)
    draws = jnp.stack([jax.random.categorical(k, z, axis=-1)
                       for k, z in zip(ks, (x_k, x_p, x_m))])
    return (x, draws, jnp.sum(jnp.isfinite(x_k), -1),
            jnp.sum(jnp.isfinite(x_p), -1), jnp.sum(jnp.isfinite(x_m), -1),
            jnp.argsort(x.reshape(-1))[:100])


def _big_vocab_inputs(r):
    V = 32000
    base = np.stack([r.permutation(V) for _ in range(4)]).astype(np.float32)
    return [(base - V / 2) / 2000, ints(r, (4, 64), 0, V), prng_key(r)]


def big_graph_messages(h, senders, receivers, w):
    # Message passing on 60000 edges into 5000 nodes: segment_max and
    # segment_min of edge scores, a segment softmax, segment_sum of
    # messages and degrees, and the gradient by the weights (scatter-adds
    # of 60000 rows).
    N = h.shape[0]

    def layer(w):
        z = h @ w
        e = jnp.tanh(jnp.sum(z[senders] * z[receivers], -1))
        emax = jax.ops.segment_max(e, receivers, num_segments=N)
        emin = jax.ops.segment_min(e, receivers, num_segments=N)
        ex = jnp.exp(e - emax[receivers])
        den = jax.ops.segment_sum(ex, receivers, num_segments=N)
        msg = jax.ops.segment_sum((ex / den[receivers])[:, None]
                                  * z[senders], receivers, num_segments=N)
        deg = jax.ops.segment_sum(jnp.ones_like(e), receivers,
                                  num_segments=N)
        return msg, emax, emin, deg

    out = layer(w)
    g = jax.grad(lambda w: jnp.sum(layer(w)[0] ** 2))(w)
    return out, g


def _big_graph_inputs(r):
    N, E = 5000, 60000
    return [_quarters(r, (N, 4)), ints(r, (E,), 0, N), ints(r, (E,), 0, N),
            _quarters(r, (4, 4))]


def big_image_ops(img):
    # A 192x256 image through Sobel gradients, non-maximum suppression by
    # gathers, hysteresis by dilation in a while_loop until stable, and
    # grey-level morphology by reduce_window; the sizes past the split.
    return canny_morphology(img)


def _big_canny_inputs(r):
    y, x = np.mgrid[0:192, 0:256]
    img = (((x - 100) ** 2 + (y - 90) ** 2 < 3000).astype(np.float32) * 2
           + (x > 200) * 1.5 + (np.abs(x - y) < 3) * 1.0
           + r.integers(0, 3, (192, 256)) / 8)
    return [img.astype(np.float32)]


def big_nms(boxes, scores):
    # Greedy NMS over 1500 boxes: a fori_loop of 1500 steps, each reading a
    # column of the 1500x1500 IoU matrix.
    keep, order = _greedy_nms(boxes, scores)
    return keep, jnp.sum(keep), jnp.where(keep, order, -1)


def _big_nms_inputs(r):
    n = 1500
    xy = r.integers(0, 400, (n, 2))
    wh = r.integers(8, 40, (n, 2))
    return [np.concatenate([xy, xy + wh], 1).astype(np.float32),
            r.permutation(n).astype(np.float32) / n]


def big_ising(spins, key):
    # The checkerboard Metropolis sweeps on a 256x256 lattice, 10 sweeps.
    return ising_checkerboard(spins, key, jnp.array([0.44], jnp.float32))


PROGRAMS = {
    "clip_siglip_losses": (clip_siglip_losses, lambda r: [
        floats(r, (6, 5)), floats(r, (6, 7)), floats(r, (5, 4)) * 0.5,
        floats(r, (7, 4)) * 0.5, np.float32(2.3), np.float32(-1.0)]),
    "diffusion_cfg_train_step": (diffusion_cfg_train_step, _diffusion_inputs),
    "dit_patch_embeddings": (dit_patch_embeddings, lambda r: [
        floats(r, (2, 8, 12, 3)), floats(r, (4, 4, 3, 6)) * 0.2,
        floats(r, (6,)) * 0.1, floats(r, (6, 18)) * 0.3]),
    "optax_chain_lookahead_ema": (optax_chain_lookahead_ema, _optax_inputs),
    "sam_lion_schedule_free": (sam_lion_schedule_free, lambda r: [
        floats(r, (4,)) * 0.3, floats(r, (12, 4)), floats(r, (12,)) * 0.5]),
    "weight_spectral_norm_grad": (weight_spectral_norm_grad, lambda r: [
        floats(r, (5, 6)), floats(r, (6,)), floats(r, (6, 4)),
        floats(r, (3, 5)), floats(r, (6,))]),
    "speculative_decoding_accept": (speculative_decoding_accept,
                                    _spec_inputs),
    "sampling_filters": (sampling_filters, _sampling_inputs),
    "beam_search_early_stop": (beam_search_early_stop, lambda r: [
        floats(r, (9, 5)), floats(r, (5, 9)) * 2, np.int32(4)]),
    "kv_cache_ring_decode": (kv_cache_ring_decode, lambda r: [
        floats(r, (3, 6)), floats(r, (6, 6)) * 0.5, floats(r, (6, 6)) * 0.5,
        floats(r, (6, 6)) * 0.5, np.array([0, 3, 6], np.int32)]),
    "packed_sequences": (packed_sequences, _packed_inputs),
    "ragged_masked_stats": (ragged_masked_stats, lambda r: [
        floats(r, (5, 8)), np.array([8, 3, 0, 1, 6], np.int32),
        floats(r, (4,))]),
    "gat_two_layers_padded_edges": (gat_segment_softmax, _gat_inputs),
    "dijkstra_bfs_dense": (dijkstra_bfs_dense, _graph_inputs),
    "spatial_transformer_grid_sample": (spatial_transformer_grid_sample,
                                        _stn_inputs),
    "detection_boxes_nms": (detection_boxes_nms, _det_inputs),
    "canny_morphology": (canny_morphology, _canny_inputs),
    "gaussian_splat_2d": (gaussian_splat_2d, _splat_inputs),
    "sdf_sphere_tracing": (sdf_sphere_tracing, _sdf_inputs),
    "mel_mfcc_mulaw": (mel_mfcc_mulaw, _mel_inputs),
    "haar_wavelet_denoise": (haar_wavelet_denoise, lambda r: [
        floats(r, (16, 8)), np.float32(0.4)]),
    "bit_tricks": (bit_tricks, _bits_inputs),
    "utf8_byte_pairs": (utf8_byte_pairs, _utf8_inputs),
    "lennard_jones_md": (lennard_jones_md, _md_inputs),
    "ising_checkerboard": (ising_checkerboard, lambda r: [
        np.where(r.random((8, 8)) < 0.5, 1, -1).astype(np.int8),
        prng_key(r), np.array([0.2, 0.44, 1.0], np.float32)]),
    "binomial_tree_options": (binomial_tree_options, lambda r: [
        np.float32(100.0), np.array([80.0, 100.0, 120.0], np.float32),
        np.float32(0.25), np.float32(0.05), np.float32(1.0)]),
    "kalman_rts_smoother": (kalman_rts_smoother, _kalman_inputs),
    "vtrace_retrace_returns": (vtrace_retrace_returns, _vtrace_inputs),
    "sinkhorn_mmd_energy": (sinkhorn_mmd_energy, _ot_inputs),
    "triplet_mining_losses": (triplet_mining_losses, _triplet_inputs),
    "mixup_cutmix_batch": (mixup_cutmix_batch, lambda r: [
        floats(r, (4, 8, 8, 2)), ints(r, (4,), 0, 5), prng_key(r)]),
    "special_functions_mix": (special_functions_mix, _special_inputs),
    "random_samplers_mix": (random_samplers_mix, _rand_inputs),
    "cumulative_assoc_scans": (cumulative_assoc_scans, lambda r: [
        floats(r, (3, 10)), floats(r, (9, 2)) * 0.5, floats(r, (9, 2))]),
    "control_nesting": (control_nesting, _control_inputs),
    "custom_vjp_pytree_residuals": (custom_vjp_pytree_residuals,
                                    _cvjp_inputs),
    "searchsorted_interp_hist": (searchsorted_interp_hist, _search_inputs),
    "unique_argsort_ties_nan": (unique_argsort_ties_nan, _uniq_inputs),
    "promotion_and_shapes": (promotion_and_shapes, _promo_inputs),
    "gelu_glu_activations": (gelu_glu_activations, lambda r: [
        floats(r, (4, 6)), floats(r, (4, 6))]),
    "constant_folded_programs": (constant_folded_programs, lambda r: [
        np.float32(0.5)]),
    "pytorch_port_nchw": (pytorch_port_nchw, _nchw_inputs),
    "indexing_update_forms": (indexing_update_forms, _idx_inputs),
    "dtype_reduction_surface": (dtype_reduction_surface, _dtype_inputs),
    "nested_calls_barriers": (nested_calls_barriers, lambda r: [
        floats(r, (3, 5)), floats(r, (5, 5)) * 0.5]),
    "big_vocab_sampling": (big_vocab_sampling, _big_vocab_inputs),
    "big_graph_messages": (big_graph_messages, _big_graph_inputs),
    "big_image_ops": (big_image_ops, _big_canny_inputs),
    "big_nms": (big_nms, _big_nms_inputs),
    "big_ising": (big_ising, lambda r: [
        np.where(r.random((256, 256)) < 0.5, 1, -1).astype(np.int8),
        prng_key(r)]),
    "softmax_beside_sliding_max": (softmax_beside_sliding_max, lambda r: [
        floats(r, (4, 50)), floats(r, (6, 16, 12))]),
}
