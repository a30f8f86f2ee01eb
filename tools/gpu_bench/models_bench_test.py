#!/usr/bin/env python3
"""The whole-program benchmark's parts that need no GPU: its tables with
made-up timings, reading hlo-run-gpu's output, the stored modules being
those of models.py and dots.py, and lowering for cuda on this machine
followed by hloc's cuda compilation.

usage: models_bench_test.py HLO_OPT
"""

import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dots  # noqa: E402
import models  # noqa: E402
import models_bench  # noqa: E402
import models_table  # noqa: E402

HLO_OPT = None

# What hlo-run-gpu --iterations=1 --profile prints last (FormatStepTimes),
# and --time-run's line.
PROFILE = """cuda: median device time 2.5000 ms over 1 runs
cuda: steps of the last timed run
        ms  calls   share  step
    1.5000      1   60.0%  step 3 (dot_general.7): cublas.gemm
    0.7500      1   30.0%  step 4 (row_reduction_fusion.1): row_reduction_fusion_1
    0.2000      1    8.0%  step 1 (loop_fusion): loop_fusion
    0.0500      1    2.0%  step 0 (copy.1): copy
    2.5000                 total device time
"""
RUN_TIME = ("cuda: median run time 1.2345 ms over 10 samples of 20 runs "
            "back to back (whole runs, 0 kernel and 1 graph launches each)\n")


class ParseTest(unittest.TestCase):
    def test_run_time(self):
        self.assertEqual(models_table.parse_run_time(RUN_TIME), 1.2345)
        self.assertIsNone(models_table.parse_run_time(PROFILE))

    def test_top_steps_are_the_warm_runs_slowest_three(self):
        top = models_table.parse_top_steps("cold table\n" + PROFILE)
        self.assertEqual([s[0] for s in top], [1.5, 0.75, 0.2])
        self.assertEqual(top[0][2], "step 3 (dot_general.7): cublas.gemm")
        self.assertEqual(models_table.parse_top_steps(RUN_TIME), [])

    def test_mismatch_summary(self):
        out = ("output shape max_abs_err max_rel_err mismatches tolerance "
               "result\nout0   f32[8]  1e-1  2e-1  3/8  rtol=1e-5  MISMATCH\n"
               "out1   s32[8]  0  0  0/8  exact  ok\nMISMATCH\n")
        self.assertEqual(models_table.mismatch_summary(out),
                         "out0 f32[8] 1e-1 2e-1 3/8 rtol=1e-5 MISMATCH")


class TableTest(unittest.TestCase):
    ROWS = [
        dict(name="fast", hloc_ms=1.0, xla_ms=2.0, check="ok"),
        dict(name="slow", hloc_ms=2.0, xla_ms=1.0, check="ok",
             top_kernels=models_table.parse_top_steps(PROFILE)),
        dict(name="broken", hloc_error="does not compile: no GPU sort",
             xla_ms=3.0),
    ]

    def test_models_table(self):
        text = models_table.models_table(self.ROWS)
        self.assertIn("| fast | 1.000 | 2.000 | 2.00x | ok |", text)
        self.assertIn("| broken | FAIL | 3.000 | n/a | n/a |", text)
        # sqrt(2 * 0.5) = 1: the failed module is left out, and named.
        self.assertIn("over 2 of 3 modules: 1.00x", text)
        self.assertIn("slowest relative to XLA: slow 0.50x", text)
        self.assertIn("- broken: hloc: does not compile: no GPU sort", text)
        self.assertIn("- slow (0.50x): step 3 (dot_general.7): cublas.gemm "
                      "1.500 ms (60%)", text)
        self.assertNotIn("- fast (", text)

    def test_no_module_timed(self):
        text = models_table.models_table([self.ROWS[2]])
        self.assertIn("geometric mean of XLA/hloc: n/a", text)

    def test_dots_table_in_tflops(self):
        rows = [dict(name="d", mnk="4096x4096x4096", flops=2 * 4096 ** 3,
                     hloc_ms=0.25, torch_ms=0.2, xla_ms=0.22, check="ok"),
                dict(name="e", mnk="1x1x1", flops=2, hloc_error="exit 3: x",
                     torch_error="RuntimeError: y")]
        text = models_table.dots_table(rows)
        # 2*4096^3 flop in 0.25 ms is 550 TFLOP/s; 0.2 ms is 687.
        self.assertIn("| d | 4096x4096x4096 | 550 | 687 | 625 | 80% | ok |",
                      text)
        self.assertIn("| e | 1x1x1 | FAIL | n/a | n/a | n/a | n/a |", text)
        self.assertIn("- e: torch: RuntimeError: y", text)


class LoweredTest(unittest.TestCase):
    def test_stored_modules_are_the_cases(self):
        lowered = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               "lowered")
        stored = sorted(f[:-3] for f in os.listdir(lowered)
                        if f.endswith(".pb"))
        self.assertEqual(stored, sorted(list(models.MODELS) +
                                        list(dots.DOTS)),
                         "rerun scripts/gpu_models.sh --relower")

    def test_inputs_fit_the_functions(self):
        """Every maker's inputs are what its function takes (small models
        only: the big ones' inputs are gigabytes)."""
        import jax
        for name in ("conv_bn_relu", "embedding_gather"):
            xs = models.make_inputs(name)
            specs = [jax.ShapeDtypeStruct(x.shape, x.dtype) for x in xs]
            jax.eval_shape(models.MODELS[name]["fn"], *specs)


class LowerForCudaTest(unittest.TestCase):
    def test_lowered_for_cuda_compiles_for_cuda(self):
        """The transformer block at a toy size, lowered by JAX on this
        CPU-only machine for cuda, goes through hloc's cuda compiler."""
        import jax
        import numpy as np
        block = models.MODELS["transformer_block_f32"]["fn"]
        d = 64
        shapes = [(2, 16, d), (d,), (d,), (d, 3 * d), (d, d), (d,), (d,),
                  (d, 4 * d), (4 * d,), (4 * d, d), (d,)]
        specs = [jax.ShapeDtypeStruct(s, np.float32) for s in shapes]
        lowered = models_bench.jit(block).trace(*specs).lower(
            lowering_platforms=("cuda",))
        with tempfile.TemporaryDirectory() as tmp:
            pb = os.path.join(tmp, "block.pb")
            with open(pb, "wb") as f:
                f.write(lowered.compiler_ir("hlo")
                        .as_serialized_hlo_module_proto())
            run = subprocess.run(
                [HLO_OPT, pb, "--platform=cuda", "--stage=executable", "-o",
                 os.path.join(tmp, "block.hloexe")],
                capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    HLO_OPT = os.path.abspath(sys.argv.pop(1))
    unittest.main()
