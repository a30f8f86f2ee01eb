# -*- Python -*-
# lit configuration for the GPU backend's FileCheck tests (run via
# //third_party:lit.bzl; hlo-opt and FileCheck are put on PATH). One RUN
# line per target with its own check prefix (CHECK-PTX for NVIDIA,
# CHECK-GCN for AMD's wave64 gfx942, CHECK-GCN-W32 for wave32 gfx1100), as
# XLA's GPU tests do. Outside Bazel:
#   PATH=$PWD/bazel-bin/tools:$PATH \
#     python3 /usr/lib/llvm-19/build/utils/lit/lit.py -v backends/gpu/tests
import os

import lit.formats

config.name = "hloc-gpu"
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
for var in ("CUDA_HOME", "CUDA_PATH", "HLOC_ROCM_DEVICE_LIBS", "ROCM_PATH",
            "HLOC_LD_LLD"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
