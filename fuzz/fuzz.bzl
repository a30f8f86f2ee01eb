"""hloc_fuzzer: one libFuzzer target and the test that replays its inputs.

    hloc_fuzzer(name = "npy_fuzzer", srcs = ["npy_fuzzer.cc"], deps = [...])

makes
  :npy_fuzzer_entry         the target's LLVMFuzzerTestOneInput
  :npy_fuzzer               with --config=fuzz, a libFuzzer binary
                            (scripts/fuzz.sh runs it); otherwise a binary
                            that replays the files and folders it is given
  :npy_fuzzer_regressions   a test replaying regressions/npy_fuzzer (every
                            crasher found, kept once fixed) and
                            seeds/npy_fuzzer, in every build
"""

def hloc_fuzzer(name, srcs, deps, test_size = "small", test_tags = []):
    native.cc_library(
        name = name + "_entry",
        testonly = True,
        srcs = srcs,
        deps = deps,
        alwayslink = True,
    )
    native.cc_binary(
        name = name,
        testonly = True,
        linkopts = select({
            "//fuzz:libfuzzer": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        deps = [":" + name + "_entry"] + select({
            "//fuzz:libfuzzer": [],
            "//conditions:default": ["//fuzz:replay_main"],
        }),
    )
    regressions = native.glob(["regressions/" + name + "/**"])
    native.cc_test(
        name = name + "_regressions",
        size = test_size,
        args = ["fuzz/seeds/" + name] + (
            ["fuzz/regressions/" + name] if regressions else []
        ),
        data = regressions + native.glob(["seeds/" + name + "/**"]),
        tags = test_tags,
        deps = [
            ":" + name + "_entry",
            "//fuzz:replay_main",
        ],
    )
