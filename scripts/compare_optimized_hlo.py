#!/usr/bin/env python3
"""Checks that a compiler change leaves the optimised HLO unchanged.

Runs two hlo-opt binaries (before and after a change) with
`--platform=P` (the target's whole HLO pipeline) on every module and
compares their outputs:

  - the corpus: shared/corpus/jax/*/module.hlo and xla_gpu_opt.hlo,
  - tools/testdata/compile_time/*.hlo (the compile-time outliers),
  - with --lower DIR first: the model zoo (tests/jax/zoo) and the lax
    primitives (tests/jax/lax/cases.py), lowered by JAX into DIR/NAME.hlo
    (later runs pass --modules DIR to reuse them).

A module is "identical" when the two outputs are byte-identical, and
"same up to names" when they are identical once every %name (instructions
and computations) is replaced by its number of first appearance: the same
instructions, operands, attributes, fusion decisions, parameter order and
printed order, named differently. Exit status 0 when every module is at
least the same up to names, 1 otherwise (the differing modules are listed).

usage: compare_optimized_hlo.py --before OLD_HLO_OPT --after NEW_HLO_OPT
           [--platforms cpu,cuda] [--lower DIR | --modules DIR] [--strict]
"""

import argparse
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def lower_programs(out_dir):
    """Lowers the zoo and lax programs to HLO text, one file each."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "jax"))
    import numpy as np
    import jax
    from jax_harness import jax as _  # noqa: F401 (selects cpu, x64)
    import zoo
    from lax.cases import CASES

    os.makedirs(out_dir, exist_ok=True)
    programs = [("zoo." + n, zoo.ALL[n]) for n in sorted(zoo.ALL)]
    programs += [("lax." + n, CASES[n]) for n in sorted(CASES)]
    for name, (fn, make_inputs) in programs:
        rng = np.random.default_rng([20261125, sum(map(ord, name))])
        try:
            inputs = make_inputs(rng)
            lowered = jax.jit(fn, keep_unused=True).lower(*inputs)
            text = lowered.as_text(dialect="hlo")
        except Exception as e:  # noqa: BLE001 (JAX cannot lower it)
            print(f"skip {name}: {type(e).__name__}", file=sys.stderr)
            continue
        with open(os.path.join(out_dir, name + ".hlo"), "w") as f:
            f.write(text)


def modules(extra_dir):
    found = sorted(glob.glob(os.path.join(ROOT, "..", "shared", "corpus",
                                          "jax", "*", "module.hlo")))
    found += sorted(glob.glob(os.path.join(ROOT, "..", "shared", "corpus",
                                           "jax", "*", "xla_gpu_opt.hlo")))
    found += sorted(glob.glob(os.path.join(ROOT, "tools", "testdata",
                                           "compile_time", "*.hlo")))
    if extra_dir:
        found += sorted(glob.glob(os.path.join(extra_dir, "*.hlo")))
    return found


_NAME = re.compile(r"%[A-Za-z0-9_.\-]+")


def normalize(text):
    """Every %name replaced by %n<k>, k its order of first appearance."""
    numbers = {}

    def rename(m):
        return "%n" + str(numbers.setdefault(m.group(0), len(numbers)))

    return _NAME.sub(rename, text)


def optimise(hlo_opt, path, platform):
    proc = subprocess.run([hlo_opt, path, f"--platform={platform}"],
                          capture_output=True, text=True, timeout=600)
    return proc.returncode, proc.stdout, proc.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--platforms", default="cpu,cuda")
    parser.add_argument("--lower", default="")
    parser.add_argument("--modules", default="")
    parser.add_argument("--strict", action="store_true",
                        help="fail unless byte-identical")
    args = parser.parse_args()
    extra = args.lower or args.modules
    if args.lower:
        lower_programs(args.lower)
    counts = {"identical": 0, "same up to names": 0, "DIFFERENT": 0}
    bad = []
    for platform in args.platforms.split(","):
        for path in modules(extra):
            rc_b, out_b, err_b = optimise(args.before, path, platform)
            rc_a, out_a, err_a = optimise(args.after, path, platform)
            if rc_b != rc_a:
                verdict = "DIFFERENT"
            elif out_b == out_a and (rc_b == 0 or err_b == err_a):
                verdict = "identical"
            elif rc_b == 0 and normalize(out_b) == normalize(out_a):
                verdict = "same up to names"
            else:
                verdict = "DIFFERENT"
            counts[verdict] += 1
            rel = os.path.relpath(path, os.path.join(ROOT, ".."))
            if verdict == "DIFFERENT" or (args.strict and
                                          verdict != "identical"):
                bad.append(f"{platform} {rel}: {verdict} (exit {rc_b} "
                           f"before, {rc_a} after)")
    for line in bad:
        print(line)
    print(", ".join(f"{v}: {n}" for v, n in counts.items()))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
