#!/usr/bin/env python3
"""Writes the HloModuleProtos of tools/testdata/host_callbacks with JAX.

Not run by the tests (they read the committed files); rerun by hand from
the repository root after changing it (JAX 0.10.2 wrote the committed ones):
    python3 tools/testdata/host_callbacks/make_protos.py
Each module is what jax.jit(f).lower(x).compiler_ir("hlo") gives for x =
jnp.arange(4.), with stack-frame metadata of one frame per op: the line in
this file, named by the path above. in0.npy is that x, out0.npy what JAX
computes for debug_print (printing "x sum 6.0" as it does).
"""
import os
import runpy

import jax
import jax.numpy as jnp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def debug_print(x):
    jax.debug.print("x sum {}", jnp.sum(x))
    return x * 2


def pure_callback(x):
    jax.debug.print("x {}", x)
    y = jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return y * 2


def main():
    # The innermost frame only: the call's own line, in this file.
    jax.config.update("jax_traceback_in_locations_limit", 1)
    x = jnp.arange(4.0)
    for fn in (debug_print, pure_callback):
        hlo = jax.jit(fn).lower(x).compiler_ir("hlo")
        with open(os.path.join(HERE, fn.__name__ + ".pb"), "wb") as f:
            f.write(hlo.as_serialized_hlo_module_proto())
    np.save(os.path.join(HERE, "in0.npy"), np.asarray(x))
    np.save(os.path.join(HERE, "out0.npy"), np.asarray(jax.jit(debug_print)(x)))


if __name__ == "__main__":
    if os.path.isabs(main.__code__.co_filename):
        # Python names a script by its absolute path: run it again under its
        # path in the repository, which the stack frames then carry.
        os.chdir(ROOT)
        runpy.run_path(os.path.relpath(os.path.abspath(__file__), ROOT),
                       run_name="__main__")
    else:
        main()
