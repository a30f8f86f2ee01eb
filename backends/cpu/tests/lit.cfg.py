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
