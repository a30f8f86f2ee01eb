#!/usr/bin/env python3
"""Per-call time of hloc.jit against jax.jit in one process: a tiny input,
where the time is the dispatch overhead; a small MLP training step (a
params dict of 6 arrays and a batch in, 6 updated params and the loss
out), where it is the dispatch overhead of many arguments and results; and
a large elementwise chain, where it is the kernel. Median of repeated calls
after a warm-up (compilation excluded); prints a Markdown table.

--platform=cpu (default): against XLA:CPU.
--platform=cuda: against jax.jit on the GPU. Every call is timed to its
results being ready (hloc's cuda calls return then; jax.jit's are followed
by block_until_ready). With --cuda-executables DIR the programs are the
saved executables DIR/bench_small.hloexe and DIR/bench_chain.hloexe
(tests/gpu_python/make_executables.py writes them where hloc has its
compiler), run through hloc.jit's dispatch (Jitted.use_executable): the
GPU machine's hloc has no compiler.

usage: python3 python/benchmarks/jit_overhead.py [--repeats N]
           [--platform cpu|cuda] [--cuda-executables DIR]   (after scripts/setup.sh)
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


def mlp_loss(params, x, y):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    h = jax.nn.relu(h @ params["w2"] + params["b2"])
    out = h @ params["w3"] + params["b3"]
    return jnp.mean((out - y) ** 2)


def train_step(params, x, y):
    """One SGD step: the updated params and the loss."""
    loss, grads = jax.value_and_grad(mlp_loss)(params, x, y)
    new = jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)
    return new, loss


def train_step_args(rng):
    sizes = (16, 32, 32, 4)
    params = {}
    for i, (n, m) in enumerate(zip(sizes[:-1], sizes[1:]), start=1):
        params[f"w{i}"] = rng.standard_normal((n, m), np.float32) * 0.2
        params[f"b{i}"] = np.zeros(m, np.float32)
    x = rng.standard_normal((8, sizes[0]), np.float32)
    y = rng.standard_normal((8, sizes[-1]), np.float32)
    return params, x, y


def median_seconds(call, repeats):
    call()
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def cpu_row(fn, args_np, repeats):
    args_jax = jax.tree_util.tree_map(jnp.asarray, args_np)
    ours, theirs = hloc.jit(fn), jax.jit(fn)
    for a, b in zip(jax.tree_util.tree_leaves(ours(*args_np)),
                    jax.tree_util.tree_leaves(theirs(*args_np))):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    return [
        median_seconds(lambda: ours(*args_np), repeats),
        median_seconds(lambda: ours(*args_jax), repeats),
        median_seconds(lambda: jax.block_until_ready(theirs(*args_jax)),
                       repeats),
        median_seconds(lambda: jax.block_until_ready(theirs(*args_np)),
                       repeats),
    ]


def cuda_row(fn, name, x_np, repeats, executables):
    gpu = jax.devices("gpu")[0]
    x_gpu = jax.device_put(x_np, gpu)
    ours, theirs = hloc.jit(fn, platform="cuda"), jax.jit(fn)
    if executables:
        path = os.path.join(executables, f"bench_{name}.hloexe")
        ours.use_executable(path, x_gpu)
        exe = hloc.load(path)
    else:
        exe = hloc.jit(fn, platform="cuda").lower(x_np).compile()
    np.testing.assert_allclose(np.asarray(ours(x_gpu)),
                               np.asarray(theirs(x_gpu)), rtol=1e-5,
                               atol=1e-5)
    stream = exe.program.stream
    dlpack_out = exe.run(x_gpu)
    # Where hloc.jit's time goes beyond the run: exporting the JAX argument
    # (with hloc's stream) and importing the result into JAX.
    parts = {
        "x.__dlpack__(stream=hloc's)": median_seconds(
            lambda: x_gpu.__dlpack__(stream=stream), repeats),
        "jax.dlpack.from_dlpack(result)": median_seconds(
            lambda: jax.dlpack.from_dlpack(exe.run(x_gpu)), repeats)
        - median_seconds(lambda: exe.run(x_gpu), repeats),
    }
    del dlpack_out
    print(f"{name}: " + ", ".join(f"{k} {v * 1e6:.1f} us"
                                   for k, v in parts.items()))
    return [
        median_seconds(lambda: ours(x_gpu), repeats),
        median_seconds(lambda: ours(x_np), repeats),
        median_seconds(lambda: exe.run(x_gpu), repeats),
        median_seconds(lambda: theirs(x_gpu).block_until_ready(), repeats),
        median_seconds(lambda: theirs(x_np).block_until_ready(), repeats),
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=0,
                        help="calls per measurement (default: 2000 small, "
                        "20 large on cpu, 200 on cuda)")
    parser.add_argument("--platform", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--cuda-executables", default=None)
    args = parser.parse_args()
    cuda = args.platform == "cuda"
    rows = []
    one_input = lambda shape: lambda rng: (  # noqa: E731
        rng.standard_normal(shape, np.float32),)
    for name, label, fn, make_args, repeats, unit, scale in (
            ("small", "f32[8], x*2+1", small, one_input((8,)),
             args.repeats or 2000, "us", 1e6),
            ("train_step", "MLP train step, 8 arrays in, 7 out",
             train_step, train_step_args, args.repeats or 2000, "us", 1e6),
            ("chain", "f32[4096,4096], tanh/exp chain", chain,
             one_input((4096, 4096)), args.repeats or (200 if cuda else 20),
             "ms", 1e3)):
        # The cuda rows run saved executables of one-input functions.
        if cuda and name == "train_step":
            continue
        inputs = make_args(np.random.default_rng(0))
        if cuda:
            results = cuda_row(fn, name, inputs[0], repeats,
                               args.cuda_executables)
        else:
            results = cpu_row(fn, inputs, repeats)
        rows.append(f"| {label} | " + " | ".join(
            f"{t * scale:.1f} {unit}" if unit == "us" or t * scale >= 1
            else f"{t * scale:.3f} {unit}" for t in results) + " |")
    if cuda:
        print(f"{jax.devices('gpu')[0].device_kind}, jax {jax.__version__}\n")
        print("| input | hloc.jit, JAX GPU array in | hloc.jit, NumPy in | "
              "hloc Executable.run, DLPack out | jax.jit, JAX GPU array in "
              "| jax.jit, NumPy in |")
        print("|---|---|---|---|---|---|")
    else:
        print(f"{os.cpu_count()} CPUs, jax {jax.__version__}\n")
        print("| input | hloc.jit, NumPy in | hloc.jit, JAX array in | "
              "jax.jit, JAX array in | jax.jit, NumPy in |")
        print("|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
