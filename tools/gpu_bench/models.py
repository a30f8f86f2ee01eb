"""Issue 10's whole programs: real JAX models and training steps at the
sizes people run them.

A model is a JAX function and a way to make its inputs from a seed (the
inputs are gigabytes, so they are made where they are used, never stored).
The function is what hloc compiles, lowered by JAX for the GPU, and what
XLA:GPU runs through jax.jit. `make_inputs` returns NumPy arrays: floats
normal, integer ids in range, so every gather, label and index is valid.
"""

import numpy as np

# name -> dict(fn=f, inputs=maker(rng) -> [np.ndarray], about=str).
MODELS = {}


def _model(name, about):
    def register(make):
        fn, inputs = make()
        MODELS[name] = dict(fn=fn, inputs=inputs, about=about)
        return make
    return register


def bf16():
    import ml_dtypes
    return np.dtype(ml_dtypes.bfloat16)


def normal(rng, shape, dtype=np.float32, scale=1.0):
    return (rng.standard_normal(shape, dtype=np.float32) * scale).astype(dtype)


def make_inputs(name, seed=0):
    return MODELS[name]["inputs"](np.random.default_rng(seed))


# A GPT-style pre-norm block: batch 8 x 1024 tokens, model width 1024,
# 16 heads of 64, MLP 4096 (GPT-2 medium's layer), causal attention.
BATCH, SEQ, WIDTH, HEADS, MLP = 8, 1024, 1024, 16, 4096


def _layer_norm(x, g, b, eps=1e-5):
    """In f32 whatever x's type, as mixed-precision models compute it."""
    import jax
    import jax.numpy as jnp
    xf = x.astype(jnp.float32)
    m = xf.mean(-1, keepdims=True)
    v = ((xf - m) ** 2).mean(-1, keepdims=True)
    return ((xf - m) * jax.lax.rsqrt(v + eps) * g + b).astype(x.dtype)


def _transformer_block(dtype_name):
    def make():
        import jax
        import jax.numpy as jnp

        def block(x, ln1_g, ln1_b, w_qkv, w_o, ln2_g, ln2_b, w_up, b_up,
                  w_down, b_down):
            b, s, d = x.shape
            h = _layer_norm(x, ln1_g, ln1_b)
            qkv = (h @ w_qkv).reshape(b, s, 3, HEADS, d // HEADS)
            q, k, v = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]
            scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(d // HEADS)
            causal = jnp.tril(jnp.ones((s, s), bool))
            scores = jnp.where(causal, scores.astype(jnp.float32), -1e30)
            p = jax.nn.softmax(scores, axis=-1).astype(x.dtype)
            a = jnp.einsum("bhqk,bkhd->bqhd", p, v).reshape(b, s, d)
            x = x + a @ w_o
            h = _layer_norm(x, ln2_g, ln2_b)
            h = jax.nn.gelu(h @ w_up + b_up)
            return x + h @ w_down + b_down

        def inputs(rng):
            dt = bf16() if dtype_name == "bf16" else np.float32

            def w(*shape):
                return normal(rng, shape, dt, 1 / np.sqrt(shape[0]))
            ones = np.ones(WIDTH, np.float32)
            zeros = np.zeros(WIDTH, np.float32)
            return [normal(rng, (BATCH, SEQ, WIDTH), dt), ones, zeros,
                    w(WIDTH, 3 * WIDTH), w(WIDTH, WIDTH), ones, zeros,
                    w(WIDTH, MLP), normal(rng, (MLP,), dt, 0.02),
                    w(MLP, WIDTH), normal(rng, (WIDTH,), dt, 0.02)]
        return block, inputs
    return make


_model("transformer_block_f32",
       "pre-norm GPT block, 8x1024 tokens, width 1024, 16 heads, MLP 4096, "
       "causal softmax attention, f32 (TF32 dots)")(_transformer_block("f32"))
_model("transformer_block_bf16",
       "the same block in bf16 (f32 layer norms and softmax)")(
           _transformer_block("bf16"))


@_model("mlp_train_grad",
        "loss and gradients of a 4-layer MLP (1024-4096-4096-4096-1024, "
        "relu, MSE) on a batch of 4096, f32")
def _():
    import jax
    import jax.numpy as jnp
    sizes = [1024, 4096, 4096, 4096, 1024]

    def loss(params, x, y):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i + 1 < len(params):
                h = jax.nn.relu(h)
        return jnp.mean((h - y) ** 2)

    def step(x, y, *flat):
        params = list(zip(flat[0::2], flat[1::2]))
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return value, grads

    def inputs(rng):
        flat = []
        for n, m in zip(sizes, sizes[1:]):
            flat += [normal(rng, (n, m), scale=1 / np.sqrt(n)),
                     normal(rng, (m,), scale=0.01)]
        return [normal(rng, (4096, sizes[0])),
                normal(rng, (4096, sizes[-1]))] + flat
    return step, inputs


@_model("conv_bn_relu",
        "3x3 convolution 64->64 channels on 32x56x56 NHWC (a ResNet-50 "
        "stage-1 layer), batch norm with batch statistics, relu, f32")
def _():
    import jax
    import jax.numpy as jnp

    def f(x, w, gamma, beta):
        y = jax.lax.conv_general_dilated(
            x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        m = y.mean((0, 1, 2))
        v = ((y - m) ** 2).mean((0, 1, 2))
        return jax.nn.relu((y - m) * jax.lax.rsqrt(v + 1e-5) * gamma + beta)

    def inputs(rng):
        return [normal(rng, (32, 56, 56, 64)),
                normal(rng, (3, 3, 64, 64), scale=1 / 24),
                np.ones(64, np.float32), np.zeros(64, np.float32)]
    return f, inputs


@_model("rmsnorm_rotary",
        "RMSNorm over width 4096 then rotary embedding of 32 heads of 128 "
        "(a Llama attention input), 4x2048 tokens, bf16")
def _():
    import jax
    import jax.numpy as jnp

    def f(x, weight):
        b, s, d = x.shape
        xf = x.astype(jnp.float32)
        xf = xf * jax.lax.rsqrt((xf * xf).mean(-1, keepdims=True) + 1e-6) * weight
        heads = xf.reshape(b, s, 32, d // 32)
        half = d // 64
        freq = 10000.0 ** (-jnp.arange(half, dtype=jnp.float32) / half)
        angle = jnp.arange(s, dtype=jnp.float32)[:, None] * freq[None, :]
        cos, sin = jnp.cos(angle)[:, None, :], jnp.sin(angle)[:, None, :]
        x1, x2 = heads[..., :half], heads[..., half:]
        out = jnp.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1)
        return out.reshape(b, s, d).astype(x.dtype)

    def inputs(rng):
        return [normal(rng, (4, 2048, 4096), bf16()),
                normal(rng, (4096,), scale=0.1) + 1]
    return f, inputs


# Adam's parameters: 64M in four matrices, the way a model's weights come.
ADAM_SHAPES = [(4096, 8192), (4096, 4096), (4096, 2048), (2048, 4096)]


@_model("adam_64m",
        "one Adam update (bias-corrected, lr 1e-3) of 64M f32 parameters "
        "in four matrices: new parameters, first and second moments")
def _():
    import jax.numpy as jnp

    def f(step, *flat):
        n = len(ADAM_SHAPES)
        params, grads, m, v = (flat[i * n:(i + 1) * n] for i in range(4))
        b1, b2, lr, eps = 0.9, 0.999, 1e-3, 1e-8
        t = step.astype(jnp.float32)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        out_p, out_m, out_v = [], [], []
        for p, g, mi, vi in zip(params, grads, m, v):
            mi = b1 * mi + (1 - b1) * g
            vi = b2 * vi + (1 - b2) * g * g
            out_p.append(p - lr * (mi / c1) / (jnp.sqrt(vi / c2) + eps))
            out_m.append(mi)
            out_v.append(vi)
        return out_p, out_m, out_v

    def inputs(rng):
        params = [normal(rng, s, scale=0.02) for s in ADAM_SHAPES]
        grads = [normal(rng, s, scale=1e-3) for s in ADAM_SHAPES]
        m = [normal(rng, s, scale=1e-4) for s in ADAM_SHAPES]
        v = [np.abs(normal(rng, s, scale=1e-6)) for s in ADAM_SHAPES]
        return [np.array(10, np.int32)] + params + grads + m + v
    return f, inputs


VOCAB = 32768


@_model("cross_entropy_bf16",
        "mean softmax cross-entropy of 8192 tokens over a 32768 vocabulary, "
        "bf16 logits (f32 log-sum-exp), integer labels")
def _():
    import jax
    import jax.numpy as jnp

    def f(logits, labels):
        lf = logits.astype(jnp.float32)
        lse = jax.nn.logsumexp(lf, axis=-1)
        picked = jnp.take_along_axis(lf, labels[:, None], axis=-1)[:, 0]
        return jnp.mean(lse - picked)

    def inputs(rng):
        return [normal(rng, (8192, VOCAB), bf16(), 2.0),
                rng.integers(0, VOCAB, 8192, dtype=np.int32)]
    return f, inputs


@_model("layernorm_backward",
        "gradients of a layer norm (x, scale, shift) given the output's "
        "gradient, 16384x1024 f32")
def _():
    import jax

    def f(x, g, b, dy):
        _, pull = jax.vjp(_layer_norm, x, g, b)
        return pull(dy)

    def inputs(rng):
        return [normal(rng, (16384, 1024)), normal(rng, (1024,), scale=0.1) + 1,
                normal(rng, (1024,), scale=0.1), normal(rng, (16384, 1024))]
    return f, inputs


@_model("argmax_vocab",
        "greedy next token: argmax over a 32768 vocabulary for 4096 rows, "
        "f32")
def _():
    import jax.numpy as jnp
    return (lambda logits: jnp.argmax(logits, axis=-1),
            lambda rng: [normal(rng, (4096, VOCAB))])


@_model("cumsum_rows",
        "cumulative sum along the rows of a 4096x4096 f32 matrix")
def _():
    import jax.numpy as jnp
    return (lambda x: jnp.cumsum(x, axis=-1),
            lambda rng: [normal(rng, (4096, 4096))])


def _moe_experts(experts, hidden):
    """A mixture-of-experts layer's expert MLPs (SwiGLU) over 8192 token
    rows already sorted by expert (top-2 routing of 4096 tokens), width
    1024, bf16: three lax.ragged_dot calls, JAX's grouped matmul, which it
    lowers for GPUs to the ragged-dot instruction. The group sizes are an
    input (a random split of the rows, some experts busier than others)."""
    def make():
        import jax
        import jax.numpy as jnp
        from jax import lax

        def experts_mlp(x, sizes, w_gate, w_up, w_down):
            g = lax.ragged_dot(x, w_gate, sizes)
            u = lax.ragged_dot(x, w_up, sizes)
            return lax.ragged_dot(jax.nn.silu(g) * u, w_down, sizes)

        def inputs(rng):
            rows = 8192
            share = rng.dirichlet(np.full(experts, 4.0))
            sizes = np.floor(share * rows).astype(np.int32)
            sizes[-1] += rows - sizes.sum()
            return [normal(rng, (rows, 1024), bf16()), sizes,
                    normal(rng, (experts, 1024, hidden), bf16(), 0.03),
                    normal(rng, (experts, 1024, hidden), bf16(), 0.03),
                    normal(rng, (experts, hidden, 1024), bf16(), 0.03)]
        return experts_mlp, inputs
    return make


_model("moe_experts_bf16",
       "MoE expert MLPs (SwiGLU) as ragged_dot: 8192 sorted token rows of "
       "1024, 8 experts of 2048, bf16")(_moe_experts(8, 2048))
_model("moe_experts_fine_bf16",
       "fine-grained MoE expert MLPs as ragged_dot: 8192 sorted token rows "
       "of 1024, 64 experts of 512, bf16")(_moe_experts(64, 512))


@_model("embedding_gather",
        "token embedding lookup: 16x2048 ids into a 32768x1024 f32 table")
def _():
    def inputs(rng):
        return [normal(rng, (VOCAB, 1024)),
                rng.integers(0, VOCAB, (16, 2048), dtype=np.int32)]
    return (lambda table, ids: table[ids]), inputs


@_model("top_k",
        "top 64 of 32768 values (and their indices) for each of 1024 rows, "
        "f32")
def _():
    import jax
    return (lambda x: jax.lax.top_k(x, 64),
            lambda rng: [normal(rng, (1024, VOCAB))])


@_model("sort_1m",
        "jnp.sort of 1M f32 values (a median or quantile's sort)")
def _():
    import jax.numpy as jnp
    return (lambda x: jnp.sort(x),
            lambda rng: [normal(rng, (1 << 20,))])


@_model("argsort_1m",
        "jnp.argsort of 1M f32 values (ranking a large array)")
def _():
    import jax.numpy as jnp
    return (lambda x: jnp.argsort(x),
            lambda rng: [normal(rng, (1 << 20,))])


@_model("argsort_rows",
        "jnp.argsort along the rows of a 4096x1024 f32 matrix (ranking)")
def _():
    import jax.numpy as jnp
    return (lambda x: jnp.argsort(x, axis=-1),
            lambda rng: [normal(rng, (4096, 1024))])


@_model("bincount_16m",
        "jnp.bincount of 16M int32 ids into 1024 bins, weighted (f32) and "
        "not (a histogram's scatter-add: 16000 updates per bin)")
def _():
    import jax.numpy as jnp

    def histograms(ids, weights):
        return (jnp.bincount(ids, length=1024),
                jnp.bincount(ids, weights, length=1024))

    def inputs(rng):
        # Skewed, as token or class frequencies are: a quarter of the ids
        # fall in the first 16 bins.
        ids = rng.integers(0, 1024, 1 << 24, dtype=np.int32)
        hot = rng.random(1 << 24) < 0.25
        ids[hot] = ids[hot] % 16
        return [ids, normal(rng, (1 << 24,))]
    return histograms, inputs


@_model("count_min_sketch",
        "a count-min sketch's update: 4M uint32 item hashes into 4 rows "
        "of 2048 u32 counters, and a HyperLogLog's 4096 u8 registers")
def _():
    import jax.numpy as jnp
    from jax import lax

    def sketch(items):
        seeds = jnp.array([0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D, 0x27D4EB2F],
                          jnp.uint32)
        h = items[None, :] * seeds[:, None]
        h = h ^ (h >> 15)
        rows = jnp.broadcast_to(jnp.arange(4)[:, None], h.shape)
        counts = jnp.zeros((4, 2048), jnp.uint32).at[
            rows, h % 2048].add(jnp.uint32(1))
        g = items * jnp.uint32(0x9E3779B1)
        # HyperLogLog: the top 12 bits pick a register, which keeps the
        # largest rank (leading zeros + 1) of the other 20 bits.
        rank = (lax.clz((g << 12) | jnp.uint32(0x800)) + 1).astype(jnp.uint8)
        registers = jnp.zeros(4096, jnp.uint8).at[g >> 20].max(rank)
        return counts, registers

    return sketch, lambda rng: [
        rng.integers(0, 2**32, 1 << 22, dtype=np.uint32)]


def _grouped_conv_grad(x_nhwc, window, groups, activation, dtype=np.float32,
                       layout="NHWC"):
    """The gradients of a SAME grouped convolution's input and weights
    through sum(activation(conv(x, w))), the activation in f32: x is
    x_nhwc (laid out as `layout`), w is HWIO with groups of
    channels / groups input channels."""
    import jax
    import jax.numpy as jnp

    n, h, w_, c = x_nhwc
    act = getattr(jax.nn, activation)

    def loss(x, w):
        y = jax.lax.conv_general_dilated(
            x, w, (1, 1), "SAME", dimension_numbers=(layout, "HWIO", layout),
            feature_group_count=groups)
        return jnp.sum(act(y.astype(jnp.float32)))

    def inputs(rng):
        x = (n, h, w_, c) if layout == "NHWC" else (n, c, h, w_)
        scale = 1 / (window * (c // groups) ** 0.5)
        return [normal(rng, x, dtype),
                normal(rng, (window, window, c // groups, c), dtype, scale)]
    return jax.grad(loss, argnums=(0, 1)), inputs


@_model("depthwise_conv_grad",
        "a ConvNeXt block's 7x7 depthwise convolution on 32x56x56x96 NHWC, "
        "f32: the gradients of its input and weights (the weights' is a "
        "convolution with batch_group_count=96)")
def _():
    return _grouped_conv_grad((32, 56, 56, 96), 7, 96, "gelu")


@_model("depthwise_conv_grad_bf16",
        "depthwise_conv_grad in bf16 (f32 GELU and sum; added 2026-12-07, "
        "session 41)")
def _():
    return _grouped_conv_grad((32, 56, 56, 96), 7, 96, "gelu", bf16())


@_model("depthwise_conv_grad_bf16_nchw",
        "depthwise_conv_grad_bf16 on NCHW activations (the order cuDNN's "
        "grouped kernels prefer; session 41)")
def _():
    return _grouped_conv_grad((32, 56, 56, 96), 7, 96, "gelu", bf16(),
                              "NCHW")


@_model("conv_grad",
        "a ResNet 3x3 convolution 64->64 channels on 32x56x56x64 NHWC, "
        "f32: the gradients of its input and weights through relu (the "
        "weights' a convolution with the activation as its window; session "
        "43)")
def _():
    return _grouped_conv_grad((32, 56, 56, 64), 3, 1, "relu")


@_model("conv_grad_bf16_nchw",
        "conv_grad on NCHW activations (PyTorch's order), bf16, through "
        "silu (session 43; relu until session 44, whose 0/1 mask flipped "
        "where a summation order took y across 0, beyond any tolerance)")
def _():
    return _grouped_conv_grad((32, 56, 56, 64), 3, 1, "silu", bf16(), "NCHW")


@_model("grouped_conv_grad",
        "a ResNeXt block's 3x3 convolution of 32 groups of 4 channels on "
        "32x56x56x128 NHWC, f32: the gradients of its input and weights "
        "(session 41)")
def _():
    return _grouped_conv_grad((32, 56, 56, 128), 3, 32, "relu")
