#!/usr/bin/env python3
"""The benchmark charts: bar_svg writes valid SVG with one bar per measured
value (scaled, escaped, "n/a" for a missing one), and the GPU tables
recorded in RESULTS.md and MODELS.md are read back and plotted with the
expected bars.

usage: plots_test.py
"""

import os
import sys
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bar_svg  # noqa: E402
import gpu_bench  # noqa: E402
import models_table  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


def bars(svg_text):
    root = ET.fromstring(svg_text)
    assert root.tag == SVG + "svg", root.tag
    return [r for r in root.iter(SVG + "rect") if r.get("class") == "bar"]


class BarSvgTest(unittest.TestCase):
    def test_one_bar_per_value_scaled_and_escaped(self):
        groups = [
            dict(name="chain5 <4096>", unit="GB/s",
                 bars=[("hloc", 40.0), ("copy bound", 80.0),
                       ("XLA:CPU", None)]),
            dict(name="softmax & co", unit="GB/s",
                 bars=[("hloc", 20.0), ("copy bound", 80.0),
                       ("XLA:CPU", 10.0)]),
        ]
        text = bar_svg.bar_svg("t", "2026-11-25, a machine", groups)
        found = bars(text)
        self.assertEqual(
            [(b.get("data-group"), b.get("data-series")) for b in found],
            [("chain5 <4096>", "hloc"), ("chain5 <4096>", "copy bound"),
             ("softmax & co", "hloc"), ("softmax & co", "copy bound"),
             ("softmax & co", "XLA:CPU")])
        width = {(b.get("data-group"), b.get("data-series")):
                 float(b.get("width")) for b in found}
        # One axis for all groups: 40 is half of 80, 20 a quarter.
        self.assertAlmostEqual(width[("chain5 <4096>", "hloc")] * 2,
                               width[("chain5 <4096>", "copy bound")], 0)
        self.assertAlmostEqual(width[("softmax & co", "hloc")] * 4,
                               width[("chain5 <4096>", "copy bound")], 0)
        self.assertIn(">n/a<", text)
        # The same contender keeps its color.
        colors = {b.get("data-series"): b.get("fill") for b in found}
        self.assertEqual(colors["hloc"], "#1565c0")
        self.assertNotEqual(colors["hloc"], colors["copy bound"])

    def test_per_group_scale(self):
        groups = [dict(name="a", unit="ms", bars=[("hloc", 1.0),
                                                   ("XLA:GPU", 2.0)]),
                  dict(name="b", unit="ms", bars=[("hloc", 100.0),
                                                   ("XLA:GPU", 50.0)])]
        found = bars(bar_svg.bar_svg("t", "s", groups, shared_scale=False))
        w = [float(b.get("width")) for b in found]
        self.assertAlmostEqual(w[1], w[2])  # each group's longest is full
        self.assertAlmostEqual(w[0] * 2, w[1], 0)


class RecordedResultsTest(unittest.TestCase):
    def test_memory_bound_table(self):
        with open(os.path.join(HERE, "RESULTS.md")) as f:
            results, copy_gbs, caption = gpu_bench.results_from_markdown(
                f.read())
        self.assertGreater(copy_gbs, 100)
        self.assertIn("20", caption)  # The date.
        found = bars(gpu_bench.memory_bound_plot(results, copy_gbs, caption))
        names = [r["name"] for r in results]
        self.assertIn("chain5", names)
        series = {b.get("data-series") for b in found}
        self.assertEqual(series, {"hloc", "copy bound", "XLA:GPU",
                                  "torch.compile"})
        measured = sum(1 for r in results
                       for k in ("hloc_s", "xla_s", "torch_s") if k in r)
        self.assertEqual(len(found), measured + len(results))
        chain5 = {b.get("data-series"): float(b.get("data-value"))
                  for b in found if b.get("data-group") == "chain5"}
        self.assertEqual(chain5["copy bound"], copy_gbs)
        self.assertLess(chain5["hloc"], copy_gbs)

    def test_models_and_dots_tables(self):
        with open(os.path.join(HERE, "MODELS.md")) as f:
            caption, models, dots = models_table.rows_from_markdown(f.read())
        self.assertTrue(models and dots)
        found = bars(models_table.models_plot(models, caption))
        timed = sum(1 for r in models for k in ("hloc_ms", "xla_ms")
                    if r.get(k) and not (k == "hloc_ms"
                                         and r.get("hloc_error")))
        self.assertEqual(len(found), timed)
        found = bars(models_table.dots_plot(dots, caption))
        self.assertEqual({b.get("data-series") for b in found},
                         {"hloc", "cuBLAS (torch)", "XLA:GPU"})
        self.assertEqual(len(found), 3 * len(dots))
        # TFLOP/s survive the round trip through ms.
        with open(os.path.join(HERE, "MODELS.md")) as f:
            table = [t for t in models_table.md_tables.tables(f.read())
                     if t[1][:2] == ["case", "m x n x k"]][0]
        self.assertAlmostEqual(float(found[0].get("data-value")),
                               float(table[2][0][2]), places=6)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
