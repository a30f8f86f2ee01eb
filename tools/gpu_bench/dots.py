"""Issue 10's dots and their epilogues, each written for JAX and PyTorch.

Matmuls at 4096^3 and at the transformer block's shapes (models.py: 8x1024
tokens through the QKV, output, MLP-up and MLP-down projections), in f32
at XLA's default precision (TF32) and in bf16; and dot + bias + relu /
tanh-gelu at 4096^3. The JAX function is what hloc compiles and XLA:GPU
runs; the PyTorch one is the direct cuBLAS call (torch.matmul, and eager
addmm + activation for the epilogues). Inputs are scaled by 1/sqrt(k) so
outputs stay near 1 in bf16.
"""

import numpy as np

import models

# name -> dict(jax=f, torch=g, m=, n=, k=, dtype=, bias=bool).
DOTS = {}

TOKENS = models.BATCH * models.SEQ
_SHAPES = {
    "4096": (4096, 4096, 4096),
    "qkv": (TOKENS, 3 * models.WIDTH, models.WIDTH),
    "attn_out": (TOKENS, models.WIDTH, models.WIDTH),
    "mlp_up": (TOKENS, models.MLP, models.WIDTH),
    "mlp_down": (TOKENS, models.WIDTH, models.MLP),
}


def _jax_epilogue(kind):
    import jax
    if kind == "relu":
        return jax.nn.relu
    return lambda y: jax.nn.gelu(y, approximate=True)


def _torch_epilogue(kind):
    import torch
    if kind == "relu":
        return torch.relu
    return lambda y: torch.nn.functional.gelu(y, approximate="tanh")


def _register(name, shape, dtype, epilogue=None):
    m, n, k = _SHAPES[shape]
    if epilogue is None:
        DOTS[name] = dict(jax=lambda x, w: x @ w,
                          torch=lambda x, w: x @ w,
                          m=m, n=n, k=k, dtype=dtype, bias=False)
        return

    def j(x, w, b):
        return _jax_epilogue(epilogue)(x @ w + b)

    def t(x, w, b):
        import torch
        return _torch_epilogue(epilogue)(torch.addmm(b, x, w))
    DOTS[name] = dict(jax=j, torch=t, m=m, n=n, k=k, dtype=dtype, bias=True)


for _dtype in ("f32", "bf16"):
    for _shape in _SHAPES:
        _register(f"dot_{_shape}_{_dtype}", _shape, _dtype)
    for _kind in ("relu", "gelu"):
        _register(f"dot_bias_{_kind}_4096_{_dtype}", "4096", _dtype, _kind)


# Dots whose operands are computed: f32 values rounded to bf16, the bf16
# product widened back (mixed-precision code as JAX users write it).
# XLA:GPU fuses the roundings into a Triton gemm; torch eager runs two
# casts and cuBLAS; hloc on cuda fuses them into its tensor-core tiled
# kernel up to a flops limit and runs two convert kernels and a cuBLASLt
# call above it. gpu_models.sh also compiles each without
# dot-prologue-fusion (m_unfused.hloexe): the pair on every size is the
# measurement cuda's limit comes from (passes/pipelines.cc).
PROLOGUE_SIZES = (128, 256, 512, 1024)


def _register_prologue(size):
    def j(x, w):
        import jax.numpy as jnp
        return (x.astype(jnp.bfloat16) @ w.astype(jnp.bfloat16)).astype(
            jnp.float32)

    def t(x, w):
        import torch
        return (x.to(torch.bfloat16) @ w.to(torch.bfloat16)).float()
    DOTS[f"dot_prologue_{size}_bf16"] = dict(
        jax=j, torch=t, m=size, n=size, k=size, dtype="f32", bias=False)


for _size in PROLOGUE_SIZES:
    _register_prologue(_size)


def numpy_dtype(dtype):
    return models.bf16() if dtype == "bf16" else np.dtype(np.float32)


def make_inputs(name, seed=0):
    d = DOTS[name]
    rng = np.random.default_rng(seed)
    dt = numpy_dtype(d["dtype"])
    xs = [models.normal(rng, (d["m"], d["k"]), dt),
          models.normal(rng, (d["k"], d["n"]), dt, 1 / np.sqrt(d["k"]))]
    if d["bias"]:
        xs.append(models.normal(rng, (d["n"],), dt, 0.1))
    return xs


def flops(name):
    d = DOTS[name]
    return 2 * d["m"] * d["n"] * d["k"]
