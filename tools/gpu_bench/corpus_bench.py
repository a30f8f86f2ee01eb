#!/usr/bin/env python3
"""Issue 10's small modules: the corpus at its own sizes, per call, hloc
against XLA:GPU on the same module and inputs, on the GPU machine.

  corpus_bench.py BUNDLE [--only SUBSTR] [--markdown FILE] [--json FILE]

BUNDLE is what scripts/gpu_check.sh made: every corpus case is a folder
BUNDLE/cases/corpus.NAME with hloc's executable (m.hloexe), the inputs
(in<i>.npy) and JAX's HloModuleProto of the module (xla_module.pb).

hloc: `hlo-run-gpu m.hloexe --inputs --iterations=15 --time-run`, the
median over 15 samples of 20 runs back to back, CUDA events around each
sample (launch gaps and the host's launch work included, a module of
several kernels replayed as one CUDA graph as hloc's runtime does).

XLA:GPU: the same HloModuleProto, converted to StableHLO by jaxlib and
compiled by the PJRT GPU client (what jax.jit does after tracing), called
back to back on inputs already on the device: 20 calls, then a wait for
the last results, the median over 15 such rounds, as gpu_bench.py times
its peers. Without JAX's Python dispatch this is the least an XLA:GPU call
costs, so the comparison favours XLA.

Prints a table (also to --markdown) with each module's kernel and graph
launches per hloc run, both times per call and XLA's time over hloc's,
then the geometric mean of that ratio and the modules where hloc is
slower. A case that fails on either side is a row saying why.
"""

import argparse
import datetime
import glob
import json
import os
import re
import subprocess
import sys

# JAX must not take 75% of the GPU up front: hlo-run-gpu runs beside it.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_bench import time_calls  # noqa: E402
import models_table  # noqa: E402

import numpy as np  # noqa: E402

HLOC_ITERATIONS = 15


def corpus_cases(bundle, only):
    """(name, folder) of every corpus case of the bundle, by name."""
    found = []
    for folder in sorted(glob.glob(os.path.join(bundle, "cases", "corpus.*"))):
        name = os.path.basename(folder)[len("corpus."):]
        if only and only not in name:
            continue
        found.append((name, folder))
    return found


def inputs_of(folder):
    paths = glob.glob(os.path.join(folder, "in*.npy"))
    return sorted(paths, key=lambda p: int(re.search(r"in(\d+)", p).group(1)))


def time_hloc(bundle, folder, iterations=HLOC_ITERATIONS, flags=()):
    """(seconds per run, kernel launches, graph launches) or an error;
    `flags` go to hlo-run-gpu as well."""
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = bundle + (
        ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    args = [os.path.join(bundle, "hlo-run-gpu"),
            os.path.join(folder, "m.hloexe"), "--platform=cuda",
            f"--iterations={iterations}", "--time-run", *flags]
    if inputs_of(folder):
        args.append(f"--inputs={folder}")
    run = subprocess.run(args, env=env, capture_output=True, text=True,
                         timeout=300)
    parsed = parse_time_run(run.stderr)
    if run.returncode != 0 or parsed is None:
        raise RuntimeError((run.stderr.strip().splitlines() or
                            ["no output"])[-1])
    return parsed


def parse_time_run(stderr):
    """(seconds per run, kernel launches, graph launches) from the line
    `hlo-run-gpu --time-run` prints, or None."""
    m = re.search(r"median run time ([0-9.]+) ms .*\(whole runs, (\d+) "
                  r"kernel and (\d+) graph launches each\)", stderr)
    if not m:
        return None
    return float(m.group(1)) / 1e3, int(m.group(2)), int(m.group(3))


class Xla:
    """XLA:GPU through the PJRT client JAX uses."""

    def __init__(self):
        import jax
        from jax._src.lib import _jax, xla_client
        self.jax = jax
        self.device = jax.devices("gpu")[0]
        self.client = self.device.client
        self.devices = xla_client.DeviceList((self.device,))
        self.options = xla_client.CompileOptions
        self.to_stablehlo = _jax.mlir.hlo_to_stablehlo
        self.version = jax.__version__

    def time(self, folder):
        with open(os.path.join(folder, "xla_module.pb"), "rb") as f:
            stablehlo = self.to_stablehlo(f.read())
        executable = self.client.compile_and_load(stablehlo, self.devices,
                                                  self.options())
        args = [self.jax.device_put(np.load(p), self.device)
                for p in inputs_of(folder)]
        last = []

        def call():
            results = executable.execute_sharded(args)
            last[:] = [out[0] for out in
                       results.disassemble_into_single_device_arrays()]

        def sync():
            for out in last:
                out.block_until_ready()
        return time_calls(call, sync)


def table(rows):
    lines = ["| case | hloc kernels / graphs per run | hloc us | XLA:GPU us "
             "| XLA / hloc |", "|---|---|---|---|---|"]
    for r in rows:
        if r.get("error"):
            lines.append(f"| {r['name']} | {r['error']} | | | |")
            continue
        lines.append(
            f"| {r['name']} | {r['kernels']} / {r['graphs']} | "
            f"{r['hloc_s'] * 1e6:.1f} | {r['xla_s'] * 1e6:.1f} | "
            f"{r['xla_s'] / r['hloc_s']:.2f}x |")
    timed = [r for r in rows if not r.get("error")]
    if timed:
        ratios = [r["xla_s"] / r["hloc_s"] for r in timed]
        geomean = models_table.geomean(ratios)
        slower = [f"{r['name']} ({r['xla_s'] / r['hloc_s']:.2f}x)"
                  for r in timed if r["xla_s"] < r["hloc_s"]]
        lines.append("")
        lines.append(f"{len(timed)} modules timed; geometric mean of XLA / "
                     f"hloc {geomean:.2f}x; hloc slower on "
                     f"{len(slower)}: {', '.join(slower) or 'none'}")
    return "\n".join(lines)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("bundle")
    p.add_argument("--only", default="")
    p.add_argument("--markdown", default="")
    p.add_argument("--json", default="")
    args = p.parse_args(argv[1:])
    cases = corpus_cases(args.bundle, args.only)
    if not cases:
        print(f"corpus_bench: no corpus cases in {args.bundle}/cases",
              file=sys.stderr)
        return 2
    rows = []
    # hloc first, before JAX holds device memory.
    for name, folder in cases:
        row = dict(name=name)
        try:
            row["hloc_s"], row["kernels"], row["graphs"] = time_hloc(
                args.bundle, folder)
        except Exception as e:  # The row says why; the run goes on.
            row["error"] = f"hloc: {type(e).__name__}: {e}"
        rows.append(row)
    try:
        xla = Xla()
    except Exception as e:
        print(f"corpus_bench: no XLA:GPU here: {type(e).__name__}: {e}",
              file=sys.stderr)
        return 2
    for (name, folder), row in zip(cases, rows):
        if row.get("error"):
            continue
        try:
            row["xla_s"] = xla.time(folder)
        except Exception as e:
            row["error"] = f"XLA:GPU: {type(e).__name__}: {e}"
    report(f"JAX {xla.version}; times per call", rows, table(rows),
           args.markdown, args.json)
    return 0


def report(what, rows, table_text, markdown, json_path):
    """Prints "GPU, driver, date; WHAT" and the table; writes the same to
    `markdown` and the header with the rows to `json_path` (either may be
    empty)."""
    gpu = subprocess.run(
        ["nvidia-smi", "--query-gpu=name,driver_version",
         "--format=csv,noheader"], capture_output=True, text=True).stdout
    header = (f"{gpu.strip().splitlines()[0] if gpu.strip() else 'GPU'}, "
              f"{datetime.date.today()}; {what}")
    text = header + "\n\n" + table_text
    print(text)
    if markdown:
        with open(markdown, "w") as f:
            f.write(text + "\n")
    if json_path:
        with open(json_path, "w") as f:
            json.dump(dict(header=header, rows=rows), f, indent=1)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
