#!/usr/bin/env python3
"""lax coverage: every jax.lax primitive lowered alone, run against XLA:CPU.

For each primitive in lax/cases.py the program is lowered to an
HloModuleProto and checked on three targets: the cpu pipeline with the
verifier after every pass (hlo-opt --platform=cpu --stage=hlo), the
evaluator and the cpu backend (hlo-run, against XLA:CPU's outputs). A
primitive is supported when all three pass. Those listed in
lax/unsupported.py must fail with the recorded message; every other one
must pass. The test also checks that cases.py covers every *_p that
jax.lax and jax.lax.linalg export (or says why it is never lowered).

  lax_coverage.py --hlo-run HLO_RUN --hlo-opt HLO_OPT [--only SUBSTRING]
                  [--write tests/jax/LAX_COVERAGE.md]

--write regenerates the table kept in the repository (see its header for
the exact command).
"""

import argparse
import os
import re
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Importing the harness selects the CPU and turns on 64-bit types.
from jax_harness import (hlo_opt_verify, hlo_run, judge,  # noqa: E402
                         shard_of, write_case)
import jax  # noqa: E402
from jax import lax  # noqa: E402
from jax.lax import linalg  # noqa: E402
from lax.cases import CASES, NOT_LOWERED  # noqa: E402
from lax.unsupported import UNSUPPORTED, WHY  # noqa: E402

TARGETS = ("verify", "evaluator", "cpu")

HEADER = """# jax.lax coverage

Every primitive that `jax.lax` and `jax.lax.linalg` export (`*_p`), each
lowered alone by `jax.jit(...).lower()` at small sizes (tests/jax/lax/
cases.py) and checked against XLA:CPU's outputs: **verify** is the cpu
pipeline with the verifier after every pass (`hlo-opt --platform=cpu
--stage=hlo`), **evaluator** and **cpu** are `hlo-run --platform=interpreter`
and `--platform=cpu` (x86, JIT) within hlo-run's default tolerances.
`//tests/jax:lax_coverage_test` checks that the supported ones still pass
and that each unsupported one still fails with the message below
(tests/jax/lax/unsupported.py).

Generated with JAX {jax_version} by

    bazel build //tools:hlo-run //tools:hlo-opt
    python3 tests/jax/lax_coverage.py --hlo-run bazel-bin/tools/hlo-run \\
        --hlo-opt bazel-bin/tools/hlo-opt --write tests/jax/LAX_COVERAGE.md

"""


def exported_primitives():
    return sorted({n for module in (lax, linalg) for n in dir(module)
                   if n.endswith("_p")})


# Lines that say which instruction failed and why, in hlo-run's output.
_REASON_MARKERS = ("has no cpu implementation", "not supported by the",
                   "no elemental code generation", "error")


def first_error_line(out):
    """The line that says why, without the temporary file's path."""
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    chosen = lines[-1] if lines else ""
    for marker in reversed(_REASON_MARKERS):
        chosen = next((line for line in lines if marker in line), chosen)
    return re.sub(r"^hlo-run: error: \S+ failed to run \S+: ", "", chosen)


def run_case(name, args, tmp):
    """{target: (verdict, message)} for one primitive's program."""
    fn, make_inputs = CASES[name]
    rng = np.random.default_rng([args.seed, sum(map(ord, name))])
    inputs = make_inputs(rng)
    case_dir = os.path.join(tmp, name)
    try:
        write_case(case_dir, fn, inputs)
    except Exception as e:  # noqa: BLE001 (JAX itself cannot lower it)
        return {t: (f"JAX cannot lower it: {e}", "") for t in TARGETS}
    results = {}
    for target in TARGETS:
        if target == "verify":
            rc, out = hlo_opt_verify(args.hlo_opt, case_dir, "cpu")
        else:
            platform = "interpreter" if target == "evaluator" else "cpu"
            rc, out = hlo_run(args.hlo_run, case_dir, platform)
        verdict = judge(rc, out, UNSUPPORTED.get((name, target)))
        message = "" if rc == 0 else first_error_line(out)
        results[target] = (verdict, message)
    return results


def cell(verdict):
    return {"ok": "yes", "known": "no"}.get(verdict, "FAIL")


def write_table(path, rows):
    supported = sum(1 for _, r in rows
                    if all(v == "ok" for v, _ in r.values()))
    with open(path, "w") as f:
        f.write(HEADER.format(jax_version=jax.__version__))
        f.write(f"{supported} of {len(rows)} primitives run on all three "
                f"targets; {len(NOT_LOWERED)} more never reach the CPU as "
                "an HLO program of their own.\n\n")
        f.write("| primitive | verify | evaluator | cpu | why not |\n")
        f.write("|---|---|---|---|---|\n")
        for name, results in rows:
            messages = sorted({m for v, m in results.values()
                               if v != "ok" and m})
            why = "; ".join(([WHY[name]] if name in WHY else [])
                            + [f"`{m}`" for m in messages])
            why = why.replace("|", "\\|")
            f.write(f"| {name} | " + " | ".join(
                cell(results[t][0]) for t in TARGETS) + f" | {why} |\n")
        f.write("\n## Never lowered alone\n\n| primitive | why |\n|---|---|\n")
        for name, why in sorted(NOT_LOWERED.items()):
            f.write(f"| {name} | {why} |\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlo-run", required=True)
    parser.add_argument("--hlo-opt", required=True)
    parser.add_argument("--only", default="")
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--write", default="")
    args = parser.parse_args()

    problems = []
    uncovered = [n for n in exported_primitives()
                 if n not in CASES and n not in NOT_LOWERED]
    if uncovered:
        problems.append("primitives with no case in lax/cases.py and no "
                        "reason in NOT_LOWERED: " + ", ".join(uncovered))
    for name in {key[0] for key in UNSUPPORTED} | set(WHY):
        if name not in CASES:
            problems.append(f"lax/unsupported.py names {name}, not a case")

    rows = []
    names = [n for n in shard_of(sorted(CASES)) if args.only in n]
    if args.write and len(names) != len(CASES):
        problems.append("--write needs every case (no --only, no sharding)")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            results = run_case(name, args, tmp)
            rows.append((name, results))
            line = "  ".join(f"{t}: {v}" for t, (v, _) in results.items())
            print(f"{name:32s} {line}")
            for target, (verdict, message) in results.items():
                if verdict not in ("ok", "known"):
                    problems.append(f"{name} {target}: {verdict}: {message}")
    supported = sum(1 for _, r in rows
                    if all(v == "ok" for v, _ in r.values()))
    recorded = sum(1 for _, r in rows
                   if any(v == "known" for v, _ in r.values()))
    print(f"\n{supported} of {len(rows)} primitives supported on every "
          f"target; {recorded} fail as recorded in lax/unsupported.py")
    if args.write and not problems:
        write_table(args.write, rows)
        print(f"wrote {args.write}")
    for problem in problems:
        print("FAIL " + problem)
    return 1 if problems or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
