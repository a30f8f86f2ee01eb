#!/usr/bin/env python3
"""The zoo speed survey's parts that need no GPU: finding the timed zoo
cases of a bundle and the table with made-up timings (slowest relative to
XLA first, errors last, the geometric mean and the programs hloc is slower
on).
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoo_speed  # noqa: E402


class ZooSpeedTest(unittest.TestCase):
    def test_cases_are_the_timed_zoo_folders(self):
        with tempfile.TemporaryDirectory() as bundle:
            for name, seconds in [("zoo.mlp", "2e-05"), ("zoo.gpt", "1e-4"),
                                  ("zoo.untimed", None),
                                  ("corpus.softmax", "3e-05")]:
                folder = os.path.join(bundle, "cases", name)
                os.makedirs(folder)
                if seconds:
                    with open(os.path.join(folder, "xla_gpu_seconds"),
                              "w") as f:
                        f.write(seconds + "\n")
            found = zoo_speed.zoo_cases(bundle, "")
            self.assertEqual([(n, s) for n, _, s in found],
                             [("gpt", 1e-4), ("mlp", 2e-5)])
            only = zoo_speed.zoo_cases(bundle, "ml,nothing")
            self.assertEqual([n for n, _, _ in only], ["mlp"])

    def test_table(self):
        rows = [
            dict(name="fast", kernels=1, graphs=0, hloc_s=10e-6,
                 xla_s=40e-6),
            dict(name="broken", xla_s=1e-5, error="hloc: RuntimeError: no"),
            dict(name="cliff", kernels=0, graphs=1, hloc_s=160e-6,
                 xla_s=40e-6),
        ]
        lines = zoo_speed.table(rows).splitlines()
        # The cliff first, then the fast one, then the error.
        self.assertEqual(lines[2], "| cliff | 0 / 1 | 160.0 | 40.0 | 0.25x |")
        self.assertEqual(lines[3], "| fast | 1 / 0 | 10.0 | 40.0 | 4.00x |")
        self.assertEqual(lines[4], "| broken | hloc: RuntimeError: no | | | |")
        # sqrt(4 * 0.25) = 1.
        self.assertEqual(lines[-1],
                         "2 programs timed; geometric mean of XLA / hloc "
                         "1.00x; hloc slower than XLA's Python calls on 1: "
                         "cliff (0.25x)")


if __name__ == "__main__":
    unittest.main()
