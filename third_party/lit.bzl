"""lit_test_suite: LLVM lit + FileCheck tests under Bazel.

Usage (tests/lit/BUILD.bazel):

    load("//third_party:lit.bzl", "lit_test_suite")

    lit_test_suite(
        name = "lit",
        srcs = glob(["**/*.hlo"]),
        cfg = "lit.cfg.py",                     # default
        tools = ["//tools:hlo-opt"],            # dirs prepended to PATH
        data = glob(["**/Inputs/**"]),          # extra files tests read
    )

Test files carry lit RUN/CHECK lines in comments, e.g.

    // RUN: hlo-opt %s | FileCheck %s
    // CHECK: ROOT

Each file in `srcs` becomes its own sh_test `<src>.test` (cached and run in
parallel by Bazel; `bazel test //tests/lit:foo.hlo.test` runs one), and
`name` is a test_suite of all of them. With per_test = False a single test
`name` runs lit over all srcs at once instead.

The directory of every file of every `tools` label is prepended to PATH.
`default_tools` (FileCheck, not, count, split-file from @llvm) is always
added; lit itself is /usr/lib/llvm-19/build/utils/lit/lit.py (llvm-19-tools),
run with the system python3.
"""

DEFAULT_LIT_TOOLS = ["@llvm//:lit_tools"]

def _lit_sh_test(name, test_paths_args, cfg, tools, data, srcs, size, tags, **kwargs):
    tool_args = ["$(rootpaths %s)" % t for t in tools]
    native.sh_test(
        name = name,
        srcs = ["//third_party:lit_runner.sh"],
        args = tool_args + ["--"] + test_paths_args,
        data = [cfg] + srcs + tools + data,
        size = size,
        tags = tags,
        **kwargs
    )

def lit_test_suite(
        name,
        srcs,
        cfg = "lit.cfg.py",
        tools = [],
        data = [],
        default_tools = DEFAULT_LIT_TOOLS,
        per_test = True,
        size = "small",
        tags = [],
        **kwargs):
    """Defines lit tests over `srcs`.

    Args:
      name: test_suite name (per_test = True) or the single test's name.
      srcs: the lit test files (typically a glob of *.hlo).
      cfg: the lit.cfg.py (must sit in a directory at or above the tests).
      tools: labels of executables the RUN lines call by name.
      data: other files the tests need (Inputs/, lit.local.cfg, ...).
      default_tools: always-available tools (FileCheck, not, count, split-file).
      per_test: one sh_test per source file (True) or one for all (False).
      size: Bazel test size of each test.
      tags: tags of each test.
      **kwargs: forwarded to each sh_test (e.g. env, timeout, flaky).
    """
    all_tools = tools + [t for t in default_tools if t not in tools]
    if not per_test:
        _lit_sh_test(
            name = name,
            test_paths_args = ["$(rootpath %s)" % s for s in srcs],
            cfg = cfg,
            tools = all_tools,
            data = data,
            srcs = srcs,
            size = size,
            tags = tags,
            **kwargs
        )
        return

    tests = []
    for src in srcs:
        test_name = src + ".test"
        _lit_sh_test(
            name = test_name,
            test_paths_args = ["$(rootpath %s)" % src],
            cfg = cfg,
            tools = all_tools,
            data = data,
            srcs = [src],
            size = size,
            tags = tags,
            **kwargs
        )
        tests.append(":" + test_name)
    native.test_suite(
        name = name,
        tests = tests,
        tags = tags,
    )
