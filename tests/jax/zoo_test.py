#!/usr/bin/env python3
"""The model zoo (tests/jax/zoo): every program lowered on the fly and run.

For each program the test lowers it to an HloModuleProto at small sizes,
computes XLA:CPU's outputs in this process, and checks four targets:

  verify       hlo-opt --platform=cpu --stage=hlo: the cpu pipeline's
               passes with the verifier after every one
  evaluator    hlo-run --platform=interpreter against XLA:CPU
  cpu x86      hlo-run --platform=cpu (JIT on this host) against XLA:CPU
  cpu aarch64  hlo-run --platform=cpu --target=aarch64: NEON code run under
               qemu-aarch64 (every program, or about one in N with
               --aarch64-every=N; 0: none)

A run passes when hlo-run exits 0 (outputs within its default tolerances).
A program known to fail on a target is listed in known_failures.py with the
message its failure must print: it must still fail that way (a different
failure, or a pass, is an error), so a fix or a regression shows.

Prints a table programs x targets and the pass counts. With Bazel's test
sharding (TEST_TOTAL_SHARDS) each shard takes every Nth program.

usage: zoo_test.py --hlo-run HLO_RUN --hlo-opt HLO_OPT [--only SUBSTRING[,SUBSTRING...]]
                   [--aarch64-every N] [--seed N] [--markdown]
"""

import argparse
import os
import shutil
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Importing the harness selects the CPU and turns on 64-bit types.
from jax_harness import (hlo_opt_verify, hlo_run, judge,  # noqa: E402
                         shapes_of, shard_of, write_case)
import zoo  # noqa: E402
from zoo.known_failures import KNOWN_FAILURES  # noqa: E402

TARGETS = ("verify", "evaluator", "cpu x86", "cpu aarch64")


def run_target(target, args, case_dir):
    """(exit status, output) of one target on one lowered program."""
    if target == "verify":
        return hlo_opt_verify(args.hlo_opt, case_dir, "cpu")
    if target == "evaluator":
        return hlo_run(args.hlo_run, case_dir, "interpreter")
    if target == "cpu x86":
        return hlo_run(args.hlo_run, case_dir, "cpu")
    return hlo_run(args.hlo_run, case_dir, "cpu", extra=["--target=aarch64"])


def on_aarch64(name, args):
    """Whether the AArch64 sample holds this program: about one in N by a
    hash of its name, so each shard gets its share, and every known AArch64
    failure, so that it is checked to fail as recorded."""
    if not args.aarch64_every:
        return False
    return (sum(map(ord, name)) % args.aarch64_every == 0
            or (name, "cpu aarch64") in KNOWN_FAILURES)


def print_table(rows, markdown):
    header = ["program"] + list(TARGETS)
    counts = {t: [0, 0, 0] for t in TARGETS}  # passed, run, known
    lines = []
    for name, results in rows:
        cells = [name]
        for t in TARGETS:
            r = results.get(t)
            if r is None:
                cells.append("-")
                continue
            counts[t][1] += 1
            if r == "ok":
                counts[t][0] += 1
                cells.append("ok")
            elif r == "known":
                counts[t][2] += 1
                cells.append("known fail")
            else:
                cells.append("FAIL")
        lines.append(cells)
    lines.append(["passed"] + [
        f"{p}/{n}" + (f" ({k} known)" if k else "")
        for p, n, k in counts.values()])
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for cells in lines:
            print("| " + " | ".join(cells) + " |")
        return
    widths = [max(len(c[i]) for c in lines + [header])
              for i in range(len(header))]
    for cells in [header] + lines:
        print("  ".join(c.ljust(w) for c, w in zip(cells, widths)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlo-run", required=True)
    parser.add_argument("--hlo-opt", required=True)
    parser.add_argument("--only", default="")
    parser.add_argument("--aarch64-every", type=int, default=1)
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    if args.aarch64_every and not (shutil.which("qemu-aarch64")
                                   and shutil.which("aarch64-linux-gnu-gcc")):
        print("qemu-aarch64 and aarch64-linux-gnu-gcc are needed for the "
              "AArch64 column (scripts/setup.sh installs them)")
        return 1

    names = shard_of(sorted(zoo.ALL))
    names = [n for n in names
             if any(part in n for part in args.only.split(","))]
    stale = [k for k in KNOWN_FAILURES if k[0] not in zoo.ALL]
    start = time.time()
    rows, failures = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            fn, make_inputs = zoo.ALL[name]
            rng = np.random.default_rng([args.seed, sum(map(ord, name))])
            inputs = make_inputs(rng)
            case_dir = os.path.join(tmp, name)
            try:
                write_case(case_dir, fn, inputs)
            except Exception as e:  # noqa: BLE001 (a broken program)
                failures.append(f"{name}: JAX could not lower or run it: "
                                f"{type(e).__name__}: {e}")
                rows.append((name, {}))
                continue
            results = {}
            for target in TARGETS:
                if target == "cpu aarch64" and not on_aarch64(name, args):
                    continue
                rc, out = run_target(target, args, case_dir)
                results[target] = judge(
                    rc, out, KNOWN_FAILURES.get((name, target)))
                if results[target] not in ("ok", "known"):
                    failures.append(f"{name} {target} [{shapes_of(inputs)}]: "
                                    f"{results[target]}\n{out}")
            rows.append((name, results))
    print_table(rows, args.markdown)
    print(f"\n{len(names)} programs in {time.time() - start:.0f} s "
          f"(known failures: tests/jax/zoo/known_failures.py)")
    for key in stale:
        failures.append(f"known_failures.py names {key[0]}, not a zoo "
                        "program")
    for failure in failures:
        print("\nFAIL " + failure)
    return 1 if failures or not names else 0


if __name__ == "__main__":
    sys.exit(main())
