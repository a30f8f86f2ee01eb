#!/usr/bin/env python3
"""Per-call time of hloc.jit against jax.jit (XLA:CPU) in one process: a
tiny input, where the time is the dispatch overhead, and a large
elementwise chain, where it is the kernel. Median of repeated calls after
a warm-up (compilation excluded); prints a Markdown table.

usage: python3 python/benchmarks/jit_overhead.py [--repeats N]   (after scripts/setup.sh)
"""

import argparse
import os
import time

import hloc
import jax
import jax.numpy as jnp
import numpy as np


def small(x):
    return x * 2.0 + 1.0


def chain(x):
    return jnp.tanh(x) * 2.0 + jnp.exp(-x) * x - 1.0


def median_seconds(call, repeats):
    call()
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=0,
                        help="calls per measurement (default: 2000 small, "
                        "20 large)")
    args = parser.parse_args()
    rows = []
    for name, fn, shape, repeats, unit, scale in (
            ("f32[8], x*2+1", small, (8,), args.repeats or 2000, "us", 1e6),
            ("f32[4096,4096], tanh/exp chain", chain, (4096, 4096),
             args.repeats or 20, "ms", 1e3)):
        x_np = np.random.default_rng(0).standard_normal(shape, np.float32)
        x_jax = jnp.asarray(x_np)
        ours, theirs = hloc.jit(fn), jax.jit(fn)
        np.testing.assert_allclose(ours(x_np), theirs(x_np), rtol=1e-5,
                                   atol=1e-5)
        results = [
            median_seconds(lambda: ours(x_np), repeats),
            median_seconds(lambda: ours(x_jax), repeats),
            median_seconds(lambda: theirs(x_jax).block_until_ready(),
                           repeats),
            median_seconds(lambda: theirs(x_np).block_until_ready(),
                           repeats),
        ]
        rows.append(f"| {name} | " + " | ".join(
            f"{t * scale:.1f} {unit}" for t in results) + " |")
    print(f"{os.cpu_count()} CPUs, jax {jax.__version__}\n")
    print("| input | hloc.jit, NumPy in | hloc.jit, JAX array in | "
          "jax.jit, JAX array in | jax.jit, NumPy in |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
