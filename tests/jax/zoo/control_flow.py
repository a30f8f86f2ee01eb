"""Control flow as JAX programs use it: scan, fori_loop, while_loop, cond,
switch, vmap of each, checkpoint (rematerialisation), and their gradients.
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import floats, ints


def newton_sqrt(x):
    # while_loop with a data-dependent stop.
    def cond(c):
        y, i = c
        return (jnp.max(jnp.abs(y * y - x)) > 1e-5) & (i < 50)

    def body(c):
        y, i = c
        return 0.5 * (y + x / y), i + 1

    return lax.while_loop(cond, body, (jnp.ones_like(x), 0))


def collatz_steps(n):
    def cond(c):
        return c[0] != 1

    def body(c):
        n, k = c
        return jnp.where(n % 2 == 0, n // 2, 3 * n + 1), k + 1

    return lax.while_loop(cond, body, (n, jnp.int32(0)))[1]


def rnn_unrolled_scan(w, xs, h0):
    return lax.scan(lambda h, x: (jnp.tanh(h @ w + x),) * 2, h0, xs,
                    unroll=2)


def reverse_scan(xs):
    return lax.scan(lambda c, x: (c * 0.5 + x, c), jnp.zeros_like(xs[0]), xs,
                    reverse=True)


def piecewise(x, k):
    return lax.switch(k, [lambda x: x * 2, jnp.sin, lambda x: -x, jnp.exp],
                      x)


def ode_euler(x0, steps=8, dt=0.1):
    # Damped oscillator integrated with fori_loop; gradient through the loop.
    def body(i, s):
        pos, vel = s
        return pos + dt * vel, vel - dt * (pos + 0.1 * vel)

    return lax.fori_loop(0, steps, body, (x0, jnp.zeros_like(x0)))


@jax.checkpoint
def remat_layer(w, x):
    return jnp.sin(jnp.tanh(x @ w) * 2.0)


def remat_net(ws, x):
    for w in ws:
        x = remat_layer(w, x)
    return jnp.sum(x ** 2)


def scan_checkpointed(w, xs):
    step = jax.checkpoint(lambda h, x: (jnp.tanh(h @ w + x), None))
    h, _ = lax.scan(step, jnp.zeros(xs.shape[1:]), xs)
    return jnp.sum(h)


def bisection(f_coeffs, lo, hi):
    # Root of a cubic by bisection, 30 fixed steps with fori_loop.
    def f(x):
        return jnp.polyval(f_coeffs, x)

    def body(i, c):
        lo, hi = c
        mid = 0.5 * (lo + hi)
        left = jnp.sign(f(mid)) == jnp.sign(f(lo))
        return jnp.where(left, mid, lo), jnp.where(left, hi, mid)

    return lax.fori_loop(0, 30, body, (lo, hi))


def cond_grad(x, flag):
    return jax.grad(lambda x: lax.cond(flag, lambda x: jnp.sum(x ** 3),
                                       lambda x: jnp.sum(jnp.cos(x)), x))(x)


def nested_loops(x):
    def outer(i, acc):
        inner = lax.fori_loop(0, i + 1, lambda j, a: a + j * x, acc * 0.0)
        return acc + inner
    return lax.fori_loop(0, 4, outer, x)


def vmap_cond(xs, flags):
    return jax.vmap(lambda x, f: lax.cond(f, jnp.sin, jnp.cos, x))(xs, flags)


def early_exit_search(xs, target):
    # First index where xs >= target, while_loop over a dynamic index.
    def cond(i):
        return (i < xs.shape[0]) & (xs[jnp.minimum(i, xs.shape[0] - 1)]
                                    < target)

    return lax.while_loop(cond, lambda i: i + 1, 0)


def gru_over_batch(wx, wh, xs):
    # jax.vmap of a lax.scan: JAX moves the batch behind the scanned axis
    # with a transpose laid out as a view of xs, and the loop state keeps
    # that layout while the loop body reads it row-major (the cpu backend
    # read the wrong rows until control-flow-layout).
    def run(seq):
        def step(h, x):
            r, z, n = jnp.split(wx @ x, 3)
            hr, hz, hn = jnp.split(wh @ h, 3)
            r, z = jax.nn.sigmoid(r + hr), jax.nn.sigmoid(z + hz)
            h = (1 - z) * jnp.tanh(n + r * hn) + z * h
            return h, h
        return lax.scan(step, jnp.zeros(wh.shape[1]), seq)[1]
    return jax.vmap(run)(xs)


def gru_over_batch_loss(wx, wh, xs):
    return jnp.sum(gru_over_batch(wx, wh, xs) ** 2)


PROGRAMS = {
    "while_newton_sqrt": (newton_sqrt,
                          lambda r: [np.abs(floats(r, (6,))) + 0.5]),
    "while_collatz": (collatz_steps, lambda r: [np.int32(r.integers(2, 50))]),
    "vmap_while_collatz": (jax.vmap(collatz_steps),
                           lambda r: [ints(r, (7,), 2, 40)]),
    "scan_rnn_unroll2": (rnn_unrolled_scan,
                         lambda r: [floats(r, (4, 4)) * 0.5,
                                    floats(r, (6, 3, 4)), floats(r, (3, 4))]),
    "scan_rnn_grad": (
        jax.grad(lambda w, xs, h: jnp.sum(rnn_unrolled_scan(w, xs, h)[1]),
                 argnums=(0, 2)),
        lambda r: [floats(r, (4, 4)) * 0.5, floats(r, (6, 3, 4)),
                   floats(r, (3, 4))]),
    "scan_reverse": (reverse_scan, lambda r: [floats(r, (7, 3))]),
    "vmap_scan_gru": (gru_over_batch,
                      lambda r: [floats(r, (12, 6)) * 0.5,
                                 floats(r, (12, 4)) * 0.5,
                                 floats(r, (3, 5, 6))]),
    "vmap_scan_gru_grad": (jax.grad(gru_over_batch_loss, argnums=(0, 1, 2)),
                           lambda r: [floats(r, (12, 6)) * 0.5,
                                      floats(r, (12, 4)) * 0.5,
                                      floats(r, (3, 5, 6))]),
    "switch_piecewise": (
        piecewise, lambda r: [floats(r, (5,)), np.int32(r.integers(0, 4))]),
    "vmap_switch": (jax.vmap(piecewise),
                    lambda r: [floats(r, (6, 3)), ints(r, (6,), 0, 4)]),
    "cond_grad": (cond_grad, lambda r: [floats(r, (5,)), np.bool_(True)]),
    "vmap_cond": (vmap_cond, lambda r: [floats(r, (8,)),
                                        r.integers(0, 2, 8).astype(bool)]),
    "fori_ode_euler_grad": (
        jax.grad(lambda x: jnp.sum(ode_euler(x)[0] ** 2)),
        lambda r: [floats(r, (4,))]),
    "checkpoint_mlp_grad": (
        jax.grad(remat_net),
        lambda r: [[floats(r, (5, 5)) * 0.5 for _ in range(3)],
                   floats(r, (2, 5))]),
    "checkpoint_scan_grad": (
        jax.grad(scan_checkpointed),
        lambda r: [floats(r, (3, 3)) * 0.5, floats(r, (5, 2, 3))]),
    "fori_bisection": (bisection,
                       lambda r: [np.array([1.0, 0.0, -2.0, -1.0], np.float32),
                                  np.float32(1.0), np.float32(2.0)]),
    "fori_nested_dynamic_bounds": (nested_loops, lambda r: [floats(r, (3,))]),
    "while_early_exit_search": (
        early_exit_search,
        lambda r: [np.sort(floats(r, (10,))), np.float32(0.3)]),
    "associative_scan_linear_recurrence": (
        lambda a, b: lax.associative_scan(
            lambda l, r: (l[0] * r[0], r[0] * l[1] + r[1]), (a, b)),
        lambda r: [floats(r, (9,)) * 0.5, floats(r, (9,))]),
}
