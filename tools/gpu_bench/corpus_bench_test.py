#!/usr/bin/env python3
"""The corpus benchmark's parts that need no GPU: reading hlo-run-gpu's
--time-run line, finding the corpus cases of a bundle, and the table with
made-up timings (its ratio, geometric mean and the list of slower cases).
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_bench  # noqa: E402


class CorpusBenchTest(unittest.TestCase):
    def test_time_run_line(self):
        line = ("cuda: median run time 0.0123 ms over 15 samples of 20 runs "
                "back to back (whole runs, 0 kernel and 1 graph launches "
                "each)\n")
        self.assertEqual(corpus_bench.parse_time_run("x\n" + line),
                         (0.0123e-3, 0, 1))
        self.assertIsNone(corpus_bench.parse_time_run(
            "cuda: median device time 0.0123 ms over 15 runs\n"))

    def test_cases_are_the_corpus_folders(self):
        with tempfile.TemporaryDirectory() as bundle:
            for name in ["corpus.softmax", "corpus.chain5",
                         "corpus_xla_opt.chain5", "gpu.scan_odd"]:
                os.makedirs(os.path.join(bundle, "cases", name))
            names = [n for n, _ in corpus_bench.corpus_cases(bundle, "")]
            self.assertEqual(names, ["chain5", "softmax"])
            only = [n for n, _ in corpus_bench.corpus_cases(bundle, "soft")]
            self.assertEqual(only, ["softmax"])

    def test_table(self):
        rows = [
            dict(name="fast", kernels=0, graphs=1, hloc_s=10e-6,
                 xla_s=20e-6),
            dict(name="slow", kernels=2, graphs=0, hloc_s=40e-6,
                 xla_s=20e-6),
            dict(name="broken", error="XLA:GPU: ValueError: no"),
        ]
        text = corpus_bench.table(rows)
        self.assertIn("| fast | 0 / 1 | 10.0 | 20.0 | 2.00x |", text)
        self.assertIn("| slow | 2 / 0 | 40.0 | 20.0 | 0.50x |", text)
        self.assertIn("| broken | XLA:GPU: ValueError: no |", text)
        # sqrt(2.0 * 0.5) = 1.0; only "slow" is slower than XLA.
        self.assertIn("2 modules timed; geometric mean of XLA / hloc 1.00x; "
                      "hloc slower on 1: slow (0.50x)", text)


if __name__ == "__main__":
    unittest.main()
