"""Optimizers written by hand, as optax computes them, and training steps.

SGD, momentum (heavy ball and Nesterov), Adam, AdamW with decoupled weight
decay, global-norm gradient clipping, learning-rate schedules, and whole
training steps (gradient + update) and a few steps in a fori_loop.
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import floats
from zoo.models import _mlp_inputs, mlp_loss

tree_map = jax.tree_util.tree_map


def sgd(params, grads, lr=0.1):
    return tree_map(lambda p, g: p - lr * g, params, grads)


def momentum(params, grads, velocity, lr=0.1, beta=0.9, nesterov=False):
    velocity = tree_map(lambda v, g: beta * v + g, velocity, grads)
    if nesterov:
        step = tree_map(lambda v, g: beta * v + g, velocity, grads)
    else:
        step = velocity
    return tree_map(lambda p, s: p - lr * s, params, step), velocity


def global_norm(tree):
    return jnp.sqrt(sum(jnp.sum(x * x) for x in jax.tree_util.tree_leaves(
        tree)))


def clip_by_global_norm(grads, max_norm):
    norm = global_norm(grads)
    scale = jnp.minimum(1.0, max_norm / (norm + 1e-6))
    return tree_map(lambda g: g * scale, grads)


def adam(params, grads, m, v, step, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8,
         weight_decay=0.0):
    step = step + 1
    m = tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
    v = tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
    t = step.astype(jnp.float32)
    mhat_scale = 1.0 / (1 - b1 ** t)
    vhat_scale = 1.0 / (1 - b2 ** t)

    def update(p, m, v):
        u = (m * mhat_scale) / (jnp.sqrt(v * vhat_scale) + eps)
        return p - lr * (u + weight_decay * p)

    return tree_map(update, params, m, v), m, v, step


def cosine_lr(step, base=0.1, warmup=5, total=50):
    step = step.astype(jnp.float32)
    warm = base * step / warmup
    progress = jnp.clip((step - warmup) / (total - warmup), 0.0, 1.0)
    cos = 0.5 * base * (1 + jnp.cos(jnp.pi * progress))
    return jnp.where(step < warmup, warm, cos)


def _opt_inputs(rng):
    params, x, y = _mlp_inputs(rng, (6, 10, 4), 5)
    return [params, x, y]


def _adam_inputs(rng):
    params, x, y = _opt_inputs(rng)
    m = tree_map(lambda p: floats(rng, p.shape) * 0.01, params)
    v = tree_map(lambda p: np.abs(floats(rng, p.shape)) * 1e-4, params)
    return [params, m, v, np.int32(3), x, y]


def sgd_step(params, x, y):
    loss, grads = jax.value_and_grad(mlp_loss)(params, x, y)
    return sgd(params, grads), loss


def momentum_step(params, x, y, nesterov=False):
    grads = jax.grad(mlp_loss)(params, x, y)
    velocity = tree_map(lambda p: p * 0.01, params)
    return momentum(params, grads, velocity, nesterov=nesterov)


def adam_step(params, m, v, step, x, y):
    grads = jax.grad(mlp_loss)(params, x, y)
    return adam(params, grads, m, v, step)


def adamw_clip_step(params, m, v, step, x, y):
    grads = clip_by_global_norm(jax.grad(mlp_loss)(params, x, y), 0.5)
    return adam(params, grads, m, v, step, lr=cosine_lr(step),
                weight_decay=0.01)


def train_loop_sgd(params, x, y):
    def body(i, carry):
        params, _ = carry
        return sgd_step(params, x, y)

    return lax.fori_loop(0, 5, body, (params, jnp.float32(0)))


def train_scan_adam(params, x, y):
    zeros = tree_map(jnp.zeros_like, params)

    def body(carry, _):
        params, m, v, step = carry
        loss, grads = jax.value_and_grad(mlp_loss)(params, x, y)
        return adam(params, grads, m, v, step, lr=1e-2), loss

    (params, m, v, step), losses = lax.scan(
        body, (params, zeros, zeros, jnp.int32(0)), None, length=4)
    return params, losses


def grad_accumulation(params, xs, ys):
    # Micro-batches summed in a scan, then one averaged update.
    def body(acc, batch):
        g = jax.grad(mlp_loss)(params, *batch)
        return tree_map(jnp.add, acc, g), None

    acc, _ = lax.scan(body, tree_map(jnp.zeros_like, params), (xs, ys))
    return sgd(params, tree_map(lambda g: g / xs.shape[0], acc))


def _accum_inputs(rng):
    params, _, _ = _opt_inputs(rng)
    xs = floats(rng, (3, 4, 6))
    ys = np.eye(4, dtype=np.float32)[rng.integers(0, 4, (3, 4))]
    return [params, xs, ys]


def ema_update(ema, params, decay=0.99):
    return tree_map(lambda e, p: decay * e + (1 - decay) * p, ema, params)


def rmsprop_step(params, sq, x, y, lr=1e-2, decay=0.9, eps=1e-6):
    grads = jax.grad(mlp_loss)(params, x, y)
    sq = tree_map(lambda s, g: decay * s + (1 - decay) * g * g, sq, grads)
    return tree_map(lambda p, g, s: p - lr * g / (jnp.sqrt(s) + eps),
                    params, grads, sq), sq


def _rmsprop_inputs(rng):
    params, x, y = _opt_inputs(rng)
    return [params, tree_map(lambda p: np.abs(floats(rng, p.shape)) * 0.1,
                             params), x, y]


def lion_step(params, m, x, y, lr=1e-3, b1=0.9, b2=0.99, wd=0.1):
    grads = jax.grad(mlp_loss)(params, x, y)
    update = tree_map(lambda m, g: jnp.sign(b1 * m + (1 - b1) * g), m, grads)
    params = tree_map(lambda p, u: p - lr * (u + wd * p), params, update)
    m = tree_map(lambda m, g: b2 * m + (1 - b2) * g, m, grads)
    return params, m


PROGRAMS = {
    "sgd_step": (sgd_step, _opt_inputs),
    "momentum_step": (momentum_step, _opt_inputs),
    "nesterov_step": (lambda p, x, y: momentum_step(p, x, y, True),
                      _opt_inputs),
    "adam_step": (adam_step, _adam_inputs),
    "adamw_clip_cosine_step": (adamw_clip_step, _adam_inputs),
    "clip_by_global_norm": (
        lambda p, x, y: clip_by_global_norm(p, 0.3), _opt_inputs),
    "cosine_warmup_schedule": (
        lambda s: cosine_lr(s), lambda r: [np.arange(0, 60, 3,
                                                     dtype=np.int32)]),
    "train_loop_sgd_fori": (train_loop_sgd, _opt_inputs),
    "train_scan_adam": (train_scan_adam, _opt_inputs),
    "grad_accumulation_scan": (grad_accumulation, _accum_inputs),
    "ema_params": (lambda p, x, y: ema_update(p, tree_map(jnp.tanh, p)),
                   _opt_inputs),
    "rmsprop_step": (rmsprop_step, _rmsprop_inputs),
    "lion_sign_step": (
        lion_step, lambda r: (lambda p, x, y: [
            p, tree_map(lambda a: floats(r, a.shape) * 0.1, p), x, y])(
                *_opt_inputs(r))),
}
