"""hloc from Python: JAX functions compiled and run by hloc, in one line.

    import hloc, jax.numpy as jnp

    @hloc.jit                       # or hloc.jit(f, platform="interpreter")
    def f(x, w):
        return jnp.tanh(x @ w)

    y = f(x, w)                     # NumPy or JAX arrays in, NumPy arrays out
    print(f.lower(x, w).as_text())  # the optimised HLO; .fusion_report()
    hloc.compile(hlo_text_or_proto_bytes).run(x, w)

JAX lowers the function (jax.jit(f).lower(...)) to an HloModuleProto; hloc
parses, verifies, optimises and compiles it for a platform: "cpu" (LLVM,
host JIT), "interpreter" (the reference evaluator) or "cuda" (backends/gpu
and the CUDA runtime, on DLPack device arrays; on a machine without a GPU it
says the platform is not available, and why). hloc.load(path) runs a saved
executable, also where this hloc has no compiler (the GPU machine's runtime-
only bundle: hloc/_cuda.py). Compiled programs are cached by
the module's fingerprint, the platform and the options, in memory and, with
set_cache_dir(), on disk; cache_stats() counts compilations and hits.
Errors are HlocError (a RuntimeError) carrying the compiler's message.
"""

from hloc._errors import HlocError
from hloc._jit import Compiled, Jitted, Lowered, jit
from hloc._program import (Executable, cache_stats, clear_cache, compile,
                           load, platforms, set_cache_dir, stages)

__all__ = [
    "Compiled",
    "Executable",
    "HlocError",
    "Jitted",
    "Lowered",
    "cache_stats",
    "clear_cache",
    "compile",
    "jit",
    "load",
    "platforms",
    "set_cache_dir",
    "stages",
]
