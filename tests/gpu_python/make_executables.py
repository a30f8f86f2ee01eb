#!/usr/bin/env python3
"""Compiles the GPU Python test's functions (cases.py) for cuda with hloc's
compiler, on this machine (no GPU needed): DIR/<name>.hloexe, which the GPU
machine's runtime-only hloc loads.

usage: PYTHONPATH=bazel-bin/python/site python3 tests/gpu_python/make_executables.py DIR
"""

import os
import sys

import hloc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    table = dict(cases.CASES)
    table.update({k: v + (None,) for k, v in cases.BENCHMARKS.items()})
    for name, (fn, specs, _) in table.items():
        lowered = hloc.jit(fn, platform="cuda").lower(
            *cases.example_inputs(specs))
        with open(os.path.join(out, name + ".hloexe"), "wb") as f:
            f.write(lowered.executable())
        print(name, os.path.getsize(os.path.join(out, name + ".hloexe")),
              "bytes")


if __name__ == "__main__":
    main()
