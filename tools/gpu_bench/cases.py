"""The GPU benchmark's cases, each written once for JAX and once for PyTorch.

A case is a function of a few arrays, the same computation in both
frameworks, with the shapes and dtype it is timed at. The JAX version is
what hloc compiles (lowered by JAX to an HloModuleProto) and what XLA:GPU
runs; the PyTorch version is what torch.compile runs. `bytes_moved` is the
least traffic the case needs: every input read once, every output written
once (the GB/s column counts those bytes).
"""

import numpy as np

# name -> dict(jax=f, torch=g, shapes=[...], dtype=str). Filled by _case().
CASES = {}


def _case(name, shapes, dtype="float32"):
    def register(pair):
        jax_fn, torch_fn = pair()
        CASES[name] = dict(jax=jax_fn, torch=torch_fn, shapes=shapes,
                           dtype=dtype)
        return pair
    return register


def _memory_bound(suffix, dtype, rows=8192, cols=8192):
    """Issue 10's memory-bound fusions at rows x cols in `dtype`."""
    square = [(rows, cols)]

    @_case("chain5" + suffix, square, dtype)
    def _():
        import jax
        import jax.numpy as jnp

        def j(x):
            return jax.nn.sigmoid(jnp.maximum((x + 1) * 2, 0) - 0.5)

        def t(x):
            import torch
            return torch.sigmoid(torch.relu((x + 1) * 2) - 0.5)
        return j, t

    @_case("softmax" + suffix, square, dtype)
    def _():
        import jax
        return (lambda x: jax.nn.softmax(x, axis=-1),
                lambda x: x.softmax(dim=-1))

    @_case("layernorm" + suffix, square + [(cols,), (cols,)], dtype)
    def _():
        import jax.numpy as jnp

        def j(x, g, b):
            xf = x.astype(jnp.float32)
            m = xf.mean(-1, keepdims=True)
            v = ((xf - m) ** 2).mean(-1, keepdims=True)
            return ((xf - m) / jnp.sqrt(v + 1e-5) * g + b).astype(x.dtype)

        def t(x, g, b):
            import torch
            return torch.nn.functional.layer_norm(x, (x.shape[-1],), g, b,
                                                  1e-5)
        return j, t

    @_case("col_sum" + suffix, square, dtype)
    def _():
        return (lambda x: x.sum(axis=0), lambda x: x.sum(dim=0))

    @_case("transpose_add" + suffix, square + square, dtype)
    def _():
        return (lambda x, y: x.T + y, lambda x, y: x.t() + y)


_memory_bound("", "float32")
_memory_bound("_bf16", "bfloat16")


@_case("row_sum_short", [(262144, 64)])
def _():
    return (lambda x: x.sum(axis=-1), lambda x: x.sum(dim=-1))


@_case("row_sum_long", [(64, 1048576)])
def _():
    return (lambda x: x.sum(axis=-1), lambda x: x.sum(dim=-1))


@_case("softmax_short", [(262144, 64)])
def _():
    import jax
    return (lambda x: jax.nn.softmax(x, axis=-1),
            lambda x: x.softmax(dim=-1))


def _layout_change(suffix, dtype):
    """The layout changes around channels-last convolutions (ResNet's
    second stage, 128 images): NCHW -> NHWC and back."""
    nchw = [(128, 64, 56, 56)]
    nhwc = [(128, 56, 56, 64)]

    @_case("nchw_to_nhwc" + suffix, nchw, dtype)
    def _():
        import jax.numpy as jnp
        return (lambda x: jnp.transpose(x, (0, 2, 3, 1)),
                lambda x: x.permute(0, 2, 3, 1).contiguous())

    @_case("nhwc_to_nchw" + suffix, nhwc, dtype)
    def _():
        import jax.numpy as jnp
        return (lambda x: jnp.transpose(x, (0, 3, 1, 2)),
                lambda x: x.permute(0, 3, 1, 2).contiguous())


_layout_change("", "float32")
_layout_change("_bf16", "bfloat16")


def numpy_dtype(name):
    if name == "bfloat16":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def make_inputs(name, seed=0):
    """Random inputs (never zeros: they hide unwritten outputs)."""
    case = CASES[name]
    rng = np.random.default_rng(seed)
    dtype = numpy_dtype(case["dtype"])
    return [rng.standard_normal(s, dtype=np.float32).astype(dtype)
            for s in case["shapes"]]


def bytes_moved(name, outputs):
    """Inputs read once plus outputs written once, in bytes."""
    case = CASES[name]
    itemsize = numpy_dtype(case["dtype"]).itemsize
    read = sum(int(np.prod(s)) for s in case["shapes"]) * itemsize
    written = sum(int(np.prod(o.shape)) * o.dtype.itemsize for o in outputs)
    return read + written
