"""Zoo: mixture-of-experts layers through lax.ragged_dot (grouped matmuls).

Lowered for the CPU, JAX expands ragged_dot itself (masks and a dot);
lowered for a GPU (tests/jax/zoo_gpu_cases.py on the GPU machine) it is the
ragged-dot instruction, which every hloc pipeline expands
(passes/ragged_dot_expander.h) and the evaluator computes directly:
tokens routed top-1 and top-2, sorted by expert, the experts' rows one
group each (some experts get no token), a SwiGLU expert MLP, the forward
and backward passes (the weight gradients are ragged contractions), f32
and bf16 weights with f32 results.
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import floats


def _route(x, router, k):
    """Top-k routing: each token's k experts and gate weights, and the
    assignments sorted by expert with each expert's group size."""
    experts = router.shape[1]
    logits = x @ router
    gates, chosen = lax.top_k(jax.nn.softmax(logits, axis=-1), k)
    flat = chosen.reshape(-1)
    order = jnp.argsort(flat, stable=True)
    sizes = jnp.bincount(flat, length=experts).astype(jnp.int32)
    return gates, order, sizes


def _experts(xs, w_gate, w_up, w_down, sizes, out_type):
    g = lax.ragged_dot(xs, w_gate, sizes, preferred_element_type=out_type)
    u = lax.ragged_dot(xs, w_up, sizes, preferred_element_type=out_type)
    h = (jax.nn.silu(g) * u).astype(w_down.dtype)
    return lax.ragged_dot(h, w_down, sizes, preferred_element_type=out_type)


def moe_top2_swiglu_grad(x, router, w_gate, w_up, w_down):
    def loss(router, w_gate, w_up, w_down):
        k = 2
        gates, order, sizes = _route(x, router, k)
        token = order // k
        ys = _experts(x[token], w_gate, w_up, w_down, sizes, jnp.float32)
        weighted = ys * gates.reshape(-1)[order][:, None]
        y = jnp.zeros_like(x).at[token].add(weighted)
        return jnp.mean((y + x) ** 2)
    return jax.value_and_grad(loss, argnums=(0, 1, 2, 3))(
        router, w_gate, w_up, w_down)


def moe_top1_bf16_forward(x, router, w_gate, w_up, w_down):
    gates, order, sizes = _route(x, router, 1)
    ys = _experts(x[order].astype(jnp.bfloat16), w_gate, w_up, w_down, sizes,
                  jnp.float32)
    y = jnp.zeros(x.shape, jnp.float32).at[order].set(ys)
    return y * gates, sizes


def _moe_inputs(r, tokens, width, hidden, experts, dtype=np.float32):
    # Router columns of experts 0 and 3 scaled down so few tokens pick them
    # (some experts get empty groups).
    router = floats(r, (width, experts)) * 0.5
    router[:, 0] -= 3.0
    return [floats(r, (tokens, width)), router,
            (floats(r, (experts, width, hidden)) * 0.2).astype(dtype),
            (floats(r, (experts, width, hidden)) * 0.2).astype(dtype),
            (floats(r, (experts, hidden, width)) * 0.2).astype(dtype)]


PROGRAMS = {
    "moe_top2_swiglu_grad": (moe_top2_swiglu_grad,
                             lambda r: _moe_inputs(r, 96, 32, 48, 6)),
    "moe_top1_bf16_forward": (
        moe_top1_bf16_forward,
        lambda r: _moe_inputs(r, 128, 64, 96, 8, jnp.bfloat16)),
}
