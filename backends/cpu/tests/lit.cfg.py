# -*- Python -*-
# lit configuration for the CPU backend's FileCheck tests (run via
# //third_party:lit.bzl; hlo-cpu-codegen and FileCheck are put on PATH).
# Outside Bazel:
#   PATH=$PWD/bazel-bin/backends/cpu:$PATH \
#     python3 /usr/lib/llvm-19/build/utils/lit/lit.py -v backends/cpu/tests
import os

import lit.formats

config.name = "hloc-cpu"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".hlo"]
config.excludes = ["lit.cfg.py", "BUILD.bazel"]

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
_tmp = os.environ.get("TEST_TMPDIR")
config.test_exec_root = (os.path.join(_tmp, "lit") if _tmp else
                         os.path.join(config.test_source_root, "Output"))

_path = config.environment.get("PATH", os.environ.get("PATH", ""))
config.environment["PATH"] = os.pathsep.join(
    p for p in [_path, "/usr/lib/llvm-19/bin"] if p)

# Tests about the host itself (no --cpu) check what this host has: the f32
# lanes of its widest vector registers, as the CPU backend sizes its tiles
# (AVX-512: 16, AVX: 8, else SSE's 4). Linux's CPU flags.
def _host_f32_lanes():
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((l.split(":", 1)[1].split() for l in f
                          if l.startswith("flags")), [])
    except OSError:
        flags = []
    if "avx512f" in flags:
        return 16
    if "avx" in flags:
        return 8
    return 4


config.substitutions.append(("%host_f32_lanes", str(_host_f32_lanes())))
