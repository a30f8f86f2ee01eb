#!/usr/bin/env python3
"""XLA:CPU side of hlo-bench: compiles and times HloModuleProtos with JAX's XLA.

hlo-bench starts this script once as a co-process (`hlo_bench_xla.py
--threads=N`), writes one task per line to its standard input and reads one
answer per line from its standard output, all flat JSON objects (lists are
comma-separated strings). The first line the script prints says whether XLA
is there:

  {"kind": "info", "jax": "0.10.2", "jaxlib": "0.10.2", "threads": 2}
  {"kind": "unavailable", "reason": "ModuleNotFoundError: No module ..."}

Tasks and their answers:

  {"kind": "load", "name": "chain5", "module": "chain5.pb",
   "inputs": "in0.npy,in1.npy", "output": "out0.npy"}
      compiles the module, places the inputs on the device and runs it
      once, saving the result to "output" (optional) as .npy
    -> {"kind": "loaded", "name": "chain5"}
  {"kind": "time", "name": "chain5"}
      one timed run of a loaded module
    -> {"kind": "time", "name": "chain5", "seconds": 0.0123}
  {"kind": "unload", "name": "chain5"}
    -> {"kind": "unloaded", "name": "chain5"}
  {"kind": "compile", "name": "softmax", "module": "module.pb"}
      one timed compile
    -> {"kind": "compile", "name": "softmax", "seconds": 0.04}
  any task that fails
    -> {"kind": "error", "name": "chain5", "reason": "..."}

One run per request lets hlo-bench interleave XLA's reps with its own
(hloc, copy, XLA, hloc, copy, XLA, ...), so that a busy machine slows all
of them alike; the request's own cost (~0.1 ms) is outside the timing.

How XLA:CPU is driven: the module's serialized HloModuleProto (hlo-bench's
own export for its generated modules, JAX's original module.pb for corpus
cases) is converted to StableHLO by jaxlib's `mlir.hlo_to_stablehlo` (the
form PJRT compiles; ~1 ms, not counted) and compiled by the PJRT CPU
client's `compile_and_load`, what `jax.jit` does after lowering, without
JAX's tracing or caches. A compile time is that call alone. A run time is
`execute_sharded` on arrays already on the device until the result is
ready (`block_until_ready`): what a jitted call costs once its arguments
live on the device, the output's allocation included.

Threads: XLA:CPU sizes its thread pool from the CPUs this process may run
on, so --threads restricts the process's CPU affinity before JAX loads.
"""

import json
import os
import sys
import time


def emit(**fields):
    print(json.dumps(fields, ensure_ascii=False), flush=True)


def main(argv):
    threads = 0
    for arg in argv[1:]:
        if arg.startswith("--threads="):
            threads = int(arg[len("--threads="):])
        else:
            sys.stderr.write("usage: hlo_bench_xla.py [--threads=N] < TASKS\n")
            return 2
    if threads > 0 and hasattr(os, "sched_setaffinity"):
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, cpus[:threads])
    try:
        import jax
        import jaxlib
        import numpy as np
        jax.config.update("jax_platforms", "cpu")
        from jax._src.lib import _jax
        from jax._src.lib import xla_client
        client = jax.devices("cpu")[0].client
        devices = xla_client.DeviceList(tuple(jax.devices("cpu")[:1]))
    except Exception as e:  # Any failure means "no XLA here", with the reason.
        emit(kind="unavailable", reason=f"{type(e).__name__}: {e}")
        return 0
    emit(kind="info", jax=jax.__version__, jaxlib=jaxlib.__version__,
         threads=len(os.sched_getaffinity(0)))

    def compiler(path):
        with open(path, "rb") as f:
            stablehlo = _jax.mlir.hlo_to_stablehlo(f.read())
        return lambda: client.compile_and_load(stablehlo, devices,
                                               xla_client.CompileOptions())

    def run(loaded_module):
        executable, args = loaded_module
        results = executable.execute_sharded(args)
        outs = results.disassemble_into_single_device_arrays()
        for out in outs:
            out[0].block_until_ready()
        return outs

    loaded = {}
    # XLA's first compile in a process sets up its compiler (LLVM targets,
    # pass registries); a throwaway compile keeps that out of the first
    # timed one.
    warmed = False
    for line in sys.stdin:
        if not line.strip():
            continue
        name = ""
        try:
            task = json.loads(line)
            kind, name = task["kind"], task["name"]
            if kind in ("load", "compile"):
                compile_fn = compiler(task["module"])
                if not warmed:
                    compile_fn()
                    warmed = True
            if kind == "compile":
                start = time.perf_counter()
                compile_fn()
                emit(kind="compile", name=name,
                     seconds=time.perf_counter() - start)
            elif kind == "load":
                loaded.pop(name, None)
                inputs = [p for p in task["inputs"].split(",") if p]
                module = (compile_fn(), [
                    jax.device_put(np.load(p), devices[0]) for p in inputs])
                outs = run(module)
                if task.get("output"):
                    if len(outs) != 1:
                        raise ValueError(
                            f"expected one result, got {len(outs)}")
                    np.save(task["output"], np.asarray(outs[0][0]))
                del outs
                loaded[name] = module
                emit(kind="loaded", name=name)
            elif kind == "time":
                module = loaded[name]
                start = time.perf_counter()
                run(module)
                emit(kind="time", name=name,
                     seconds=time.perf_counter() - start)
            elif kind == "unload":
                loaded.pop(name, None)
                emit(kind="unloaded", name=name)
            else:
                raise ValueError(f"unknown task kind '{kind}'")
        except Exception as e:
            emit(kind="error", name=name, reason=f"{type(e).__name__}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
