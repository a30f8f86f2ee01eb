#!/usr/bin/env python3
"""Where hloc is slow on programs nobody tuned it for: every zoo program
(tests/jax/zoo, lowered for cuda by scripts/gpu_check.sh) timed per call,
hloc against XLA:GPU, on the GPU machine.

  python3 tests/jax/zoo_gpu_cases.py --xla-gpu BUNDLE --time
  python3 BUNDLE/gpu_bench/zoo_speed.py BUNDLE [--only S] [--markdown F]
      [--hloc-flags="--no-conditional-nodes"]

The first command (zoo_gpu_cases.py) computes XLA:GPU's reference outputs
and, with --time, writes BUNDLE/cases/zoo.NAME/xla_gpu_seconds: jax.jit's
calls back to back from Python, dispatch included, as a JAX user makes
them. This one times hloc's executable of the same module
(`hlo-run-gpu --iterations=5 --time-run`, corpus_bench.time_hloc: C++
runtime, no Python) and prints every program, slowest relative to XLA
first. The two are not timed alike: at the zoo's small sizes XLA's
column is mostly the 10-50 us of a Python call, so a ratio above 1 says
little, and a program where hloc is slower than that is a real cliff
(a kernel strategy or runtime path far from XLA's), which is what this
table is for.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_bench import report, time_hloc  # noqa: E402
import models_table  # noqa: E402

# Fewer samples than the corpus bench: 600 programs, one process each.
ITERATIONS = 5


def zoo_cases(bundle, only):
    """(name, folder, XLA:GPU seconds) of every timed zoo case, by name."""
    cases_dir = os.path.join(bundle, "cases")
    found = []
    for entry in sorted(os.listdir(cases_dir)):
        folder = os.path.join(cases_dir, entry)
        timing = os.path.join(folder, "xla_gpu_seconds")
        if not entry.startswith("zoo.") or not os.path.exists(timing):
            continue
        name = entry[len("zoo."):]
        if only and not any(o in name for o in only.split(",")):
            continue
        with open(timing) as f:
            found.append((name, folder, float(f.read())))
    return found


def table(rows):
    timed = sorted((r for r in rows if not r.get("error")),
                   key=lambda r: r["xla_s"] / r["hloc_s"])
    lines = ["| program | hloc kernels / graphs per run | hloc us | "
             "XLA:GPU us (from Python) | XLA / hloc |",
             "|---|---|---|---|---|"]
    for r in timed:
        lines.append(
            f"| {r['name']} | {r['kernels']} / {r['graphs']} | "
            f"{r['hloc_s'] * 1e6:.1f} | {r['xla_s'] * 1e6:.1f} | "
            f"{r['xla_s'] / r['hloc_s']:.2f}x |")
    for r in rows:
        if r.get("error"):
            lines.append(f"| {r['name']} | {r['error']} | | | |")
    if timed:
        ratios = [r["xla_s"] / r["hloc_s"] for r in timed]
        geomean = models_table.geomean(ratios)
        slower = [r for r in timed if r["xla_s"] < r["hloc_s"]]
        lines.append("")
        lines.append(
            f"{len(timed)} programs timed; geometric mean of XLA / hloc "
            f"{geomean:.2f}x; hloc slower than XLA's Python calls on "
            f"{len(slower)}: " + (", ".join(
                f"{r['name']} ({r['xla_s'] / r['hloc_s']:.2f}x)"
                for r in slower) or "none"))
    return "\n".join(lines)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("bundle")
    p.add_argument("--only", default="",
                   help="comma-separated substrings of program names")
    p.add_argument("--markdown", default="")
    p.add_argument("--json", default="")
    p.add_argument("--hloc-flags", default="",
                   help="space-separated hlo-run-gpu flags for every run "
                   "(to time a runtime option against its default)")
    args = p.parse_args(argv[1:])
    cases = zoo_cases(args.bundle, args.only)
    if not cases:
        print(f"zoo_speed: no timed zoo cases in {args.bundle}/cases (run "
              "zoo_gpu_cases.py --xla-gpu BUNDLE --time first)",
              file=sys.stderr)
        return 2
    rows = []
    for name, folder, xla_s in cases:
        row = dict(name=name, xla_s=xla_s)
        try:
            row["hloc_s"], row["kernels"], row["graphs"] = time_hloc(
                args.bundle, folder, ITERATIONS, args.hloc_flags.split())
        except Exception as e:  # The row says why; the run goes on.
            row["error"] = f"hloc: {type(e).__name__}: {e}"
        rows.append(row)
    report("zoo programs per call", rows, table(rows), args.markdown,
           args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
