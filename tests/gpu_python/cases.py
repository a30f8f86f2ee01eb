"""The functions the GPU Python test runs: compiled for cuda here (where
hloc has its compiler), run there through hloc's runtime on JAX GPU arrays
and compared with jax.jit on the same GPU (make_executables.py,
gpu_python_test.py)."""

import jax
import jax.numpy as jnp
import numpy as np


def _small(x):
    return x * 2.0 + 1.0


def _chain(x):
    return jnp.tanh(x) * 2.0 + jnp.exp(-x) * x - 1.0


def _mlp(x, w, b):
    return jnp.tanh(x @ w + b)


def _row_sums(x):
    return jnp.sum(x, axis=1), jnp.max(x, axis=0)


def _passthrough(x, y):
    # The first result is the parameter itself: copied on the device.
    return x, x + y


def _bf16(x, y):
    return (x * y + x).astype(jnp.bfloat16), jnp.sum(y.astype(jnp.float32))


def _ints(a, b):
    return a * b + (a >> 1), a < b


# name: (function, [(shape, dtype)], relative tolerance on the norm)
CASES = {
    "small": (_small, [((8,), np.float32)], 1e-6),
    "chain": (_chain, [((1024, 1024), np.float32)], 1e-5),
    # tf32 on either side: cuBLAS (hloc) and XLA both may use it.
    "mlp": (_mlp, [((256, 512), np.float32), ((512, 128), np.float32),
                   ((128,), np.float32)], 5e-3),
    "row_sums": (_row_sums, [((512, 1000), np.float32)], 1e-5),
    "passthrough": (_passthrough, [((4, 5), np.float32),
                                   ((4, 5), np.float32)], 1e-6),
    "bf16": (_bf16, [((64, 64), jnp.bfloat16), ((64, 64), jnp.bfloat16)],
             1e-2),
    "ints": (_ints, [((1000,), np.int32), ((1000,), np.int32)], 0.0),
}

# The overhead benchmark's functions (python/benchmarks/jit_overhead.py).
BENCHMARKS = {
    "bench_small": (_small, [((8,), np.float32)]),
    "bench_chain": (_chain, [((4096, 4096), np.float32)]),
}


def random_inputs(specs, seed):
    """Fresh random host inputs of the given specs (never zeros: they hide
    unwritten outputs)."""
    rng = np.random.default_rng(seed)
    out = []
    for shape, dtype in specs:
        dtype = np.dtype(dtype)
        if dtype.kind == "i":
            out.append(rng.integers(-1000, 1000, shape).astype(dtype))
        else:
            out.append(rng.standard_normal(shape).astype(np.float32)
                       .astype(dtype))
    return out


def example_inputs(specs):
    return [jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in specs]
