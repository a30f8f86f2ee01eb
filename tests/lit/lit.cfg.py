# -*- Python -*-
# lit configuration for hloc's FileCheck tests (run via //third_party:lit.bzl).
#
# Tests are files with lit directives in comments, e.g.
#   // RUN: hlo-opt %s | FileCheck %s
#   // CHECK: ROOT
# Under Bazel, the tools named in lit_test_suite(tools = ...) plus FileCheck,
# not, count and split-file are on PATH. Outside Bazel, put hlo-opt on PATH
# yourself (e.g. PATH=$PWD/bazel-bin/tools:$PATH) and run
#   python3 /usr/lib/llvm-19/build/utils/lit/lit.py -v tests/lit
import os

import lit.formats

config.name = "hloc"
# lit's internal shell: portable, supports pipes, `not`, `%t`, etc.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".hlo", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.local.cfg", "BUILD.bazel", "BUILD"]

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
# Bazel's runfiles tree is read-only: write %t files under $TEST_TMPDIR.
_tmp = os.environ.get("TEST_TMPDIR")
config.test_exec_root = (os.path.join(_tmp, "lit") if _tmp else
                         os.path.join(config.test_source_root, "Output"))

# Fallback so FileCheck & co. are found outside Bazel too (appended, so the
# tools Bazel put first on PATH win).
_path = config.environment.get("PATH", os.environ.get("PATH", ""))
config.environment["PATH"] = os.pathsep.join(
    p for p in [_path, "/usr/lib/llvm-19/bin"] if p)

# Handy for tests that need the (read-only) directory of the test inputs.
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
