#!/usr/bin/env python3
"""Issue 10's whole programs and dots: hloc against XLA:GPU (and cuBLAS).

  models_bench.py lower DIR [--only SUBSTR]
      here (JAX on the CPU): lowers every model (models.py) and dot case
      (dots.py) *for cuda* -- jax.jit(f).trace(...).lower(
      lowering_platforms=("cuda",)), the module JAX hands XLA:GPU -- to
      DIR/NAME.pb. scripts/gpu_models.sh compiles them into the bundle.
  models_bench.py run BUNDLE --out OUT [--only SUBSTR] [--budget-seconds S]
      on the GPU machine, in one process: per case, inputs from a seed;
      XLA:GPU (jax.jit, back-to-back calls) and, for dots, torch.matmul;
      then hloc's BUNDLE/models/NAME/m.hloexe through BUNDLE/hlo-run-gpu
      (--iterations --time-run: the median whole-run time over samples
      of 20 runs back to back, graphs as usual) on the same inputs, checked against XLA's outputs with
      gpu_check.sh's tolerances (--expect-tf32); where hloc is slower, one
      more run with --profile names its slowest kernels. Writes
      OUT/models.md and OUT/models.json and prints the tables. A case that
      fails anywhere is a row with the reason, never the end of the run;
      cases not started within the budget are rows saying so. The tables
      also become bar charts: OUT/models.svg and OUT/dots.svg.
  models_bench.py plot MODELS.md --out DIR
      the charts (DIR/models.svg, DIR/dots.svg) of the latest tables
      recorded in MODELS.md.

Timing: XLA:GPU as gpu_bench.py times it (inputs on the device, calls back
to back, median of rounds); hloc from CUDA events around all the steps of
a run (argument copies excluded), median of runs.
"""

import argparse
import datetime
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

# JAX must not take 75% of the GPU up front: hlo-run-gpu runs beside it.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dots  # noqa: E402
import models  # noqa: E402
import models_table  # noqa: E402

import numpy as np  # noqa: E402


def cases(only):
    """(name, kind, fn) of every model, then every dot case."""
    all_cases = [(n, "model", m["fn"]) for n, m in models.MODELS.items()]
    all_cases += [(n, "dot", d["jax"]) for n, d in dots.DOTS.items()]
    return [c for c in all_cases if not only or only in c[0]]


def make_inputs(name, kind, seed):
    return (models if kind == "model" else dots).make_inputs(name, seed)


def jit(fn):
    import jax
    # Unused parameters stay, so the module's parameters are the inputs.
    return jax.jit(fn, keep_unused=True)


def lower(args):
    import jax
    os.makedirs(args.dir, exist_ok=True)
    for name, kind, fn in cases(args.only):
        specs = [jax.ShapeDtypeStruct(x.shape, x.dtype)
                 for x in make_inputs(name, kind, 0)]
        lowered = jit(fn).trace(*specs).lower(lowering_platforms=("cuda",))
        proto = lowered.compiler_ir("hlo").as_serialized_hlo_module_proto()
        with open(os.path.join(args.dir, name + ".pb"), "wb") as f:
            f.write(proto)
        print(f"lowered {name} for cuda ({len(proto)} bytes)", flush=True)


def compile_errors(bundle):
    """NAME -> hlo-opt's message, from BUNDLE/models/compile.txt."""
    errors = {}
    path = os.path.join(bundle, "models", "compile.txt")
    if os.path.exists(path):
        for line in open(path):
            name, _, message = line.partition(": ")
            errors[name] = message.strip()
    return errors


def hlo_run(bundle, args, timeout):
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = bundle + (
        ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    try:
        return subprocess.run([os.path.join(bundle, "hlo-run-gpu")] + args,
                              env=env, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def measure_xla(row, fn, inputs, data_dir):
    """XLA:GPU's time per call; its outputs saved as data_dir/out<i>.npy."""
    import jax
    from gpu_bench import time_calls
    try:
        xs = [jax.device_put(x) for x in inputs]
        f = jit(fn)
        out = f(*xs)
        for i, y in enumerate(jax.tree_util.tree_leaves(out)):
            np.save(os.path.join(data_dir, f"out{i}.npy"), np.asarray(y))
        last = [out]

        def call():
            last[0] = f(*xs)
        row["xla_ms"] = 1e3 * time_calls(
            call, lambda: jax.block_until_ready(last[0]))
    except Exception as e:  # Reported in the table; the others go on.
        row["xla_error"] = f"{type(e).__name__}: {e}"[:300]


def measure_torch(row, name, inputs):
    import torch
    from gpu_bench import time_calls
    # torch.matmul computes f32 in TF32 only at "high" precision: XLA's
    # default.
    torch.set_float32_matmul_precision("high")
    try:
        ts = [torch.from_numpy(np.asarray(x, np.float32)).cuda().to(
            torch.bfloat16 if dots.DOTS[name]["dtype"] == "bf16"
            else torch.float32) for x in inputs]
        g = dots.DOTS[name]["torch"]
        row["torch_ms"] = 1e3 * time_calls(lambda: g(*ts),
                                           torch.cuda.synchronize)
        del ts
    except Exception as e:
        row["torch_error"] = f"{type(e).__name__}: {e}"[:300]


def measure_hloc(row, bundle, name, data_dir, iterations, timeout, errors):
    exe = os.path.join(bundle, "models", name, "m.hloexe")
    if not os.path.exists(exe):
        row["hloc_error"] = "does not compile: " + errors.get(
            name, "no executable in the bundle")
        return
    checked = os.path.exists(os.path.join(data_dir, "out0.npy"))
    args = [exe, "--platform=cuda", f"--inputs={data_dir}",
            f"--iterations={iterations}", "--time-run"]
    if checked:
        args += [f"--expect={data_dir}", "--expect-tf32"]
    run = hlo_run(bundle, args, timeout)
    if run is None:
        row["hloc_error"] = f"no result within {timeout:.0f} s"
        return
    row["hloc_ms"] = models_table.parse_run_time(run.stderr)
    if run.returncode == 1 and row["hloc_ms"] is not None:
        row["check"] = "MISMATCH: " + models_table.mismatch_summary(run.stdout)
    elif run.returncode != 0 or row["hloc_ms"] is None:
        lines = run.stderr.strip().splitlines() or ["no output"]
        row["hloc_error"] = f"exit {run.returncode}: {lines[-1][:300]}"
        row["hloc_ms"] = None
    else:
        row["check"] = "ok" if checked else "not checked: no XLA outputs"
    # The same module compiled without dot-prologue-fusion, where the
    # bundle has it (gpu_models.sh): timed alike, checked alike.
    unfused = os.path.join(os.path.dirname(exe), "m_unfused.hloexe")
    if os.path.exists(unfused) and row.get("hloc_ms") is not None:
        run = hlo_run(bundle, [unfused] + args[1:], timeout)
        if run is not None and run.returncode == 0:
            row["hloc_unfused_ms"] = models_table.parse_run_time(run.stderr)
        else:
            row["hloc_unfused_error"] = (
                "no result" if run is None else f"exit {run.returncode}")
    # Variants of the compiler for an A/B comparison on one card (a
    # threshold changed, a path turned off), put beside m.hloexe as
    # m.VARIANT.hloexe by hand: timed and checked alike, in the JSON.
    for variant in sorted(glob.glob(os.path.join(os.path.dirname(exe),
                                                 "m.*.hloexe"))):
        label = os.path.basename(variant)[2:-len(".hloexe")]
        run = hlo_run(bundle, [variant] + args[1:], timeout)
        ms = None if run is None else models_table.parse_run_time(run.stderr)
        row.setdefault("variants", {})[label] = (
            dict(ms=ms, exit=run.returncode) if run is not None
            else dict(ms=None, exit="no result"))


def profile_hloc(row, bundle, name, data_dir, timeout):
    """The three slowest steps of one warm run (per-step events)."""
    exe = os.path.join(bundle, "models", name, "m.hloexe")
    run = hlo_run(bundle, [exe, "--platform=cuda", f"--inputs={data_dir}",
                           "--iterations=1", "--profile"], timeout)
    if run is not None:
        row["top_kernels"] = models_table.parse_top_steps(run.stderr)


def run(args):
    import jax
    start = time.perf_counter()
    errors = compile_errors(args.bundle)
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for name, kind, fn in cases(args.only):
        row = dict(name=name, kind=kind)
        if kind == "model":
            row["about"] = models.MODELS[name]["about"]
        rows.append(row)
        left = args.budget_seconds - (time.perf_counter() - start)
        if left < 10:
            row["hloc_error"] = row["xla_error"] = "not run: time budget"
            continue
        data_dir = tempfile.mkdtemp(prefix=f"{name}.")
        try:
            inputs = make_inputs(name, kind, args.seed)
            for i, x in enumerate(inputs):
                np.save(os.path.join(data_dir, f"in{i}.npy"), x)
            if kind == "dot":
                d = dots.DOTS[name]
                row["flops"] = dots.flops(name)
                row["mnk"] = f"{d['m']}x{d['n']}x{d['k']}"
                measure_torch(row, name, inputs)
            measure_xla(row, fn, inputs, data_dir)
            del inputs
            timeout = min(args.case_seconds, max(left - 5, 10))
            measure_hloc(row, args.bundle, name, data_dir, args.iterations,
                         timeout, errors)
            s = models_table.speedup(row)
            if s is not None and s < 1:
                profile_hloc(row, args.bundle, name, data_dir, timeout)
        finally:
            shutil.rmtree(data_dir, ignore_errors=True)
        print(json.dumps(row), flush=True)

    device = jax.devices()[0].device_kind
    header = (f"{device}, {datetime.date.today().isoformat()}, jax "
              f"{jax.__version__}; hloc: median whole-run time over "
              f"{args.iterations} samples of 20 runs back to back (hlo-run-gpu "
              "--time-run); XLA:GPU and "
              "torch: back-to-back calls\n")
    text = (header + "\n## Whole programs\n\n"
            + models_table.models_table([r for r in rows
                                         if r["kind"] == "model"])
            + "\n## Dots and their epilogues\n\n"
            + models_table.dots_table(
                [r for r in rows if r["kind"] == "dot"
                 and not models_table.is_prologue_case(r)])
            + "\n## Small dots with computed operands\n\n"
            + models_table.prologue_table(
                [r for r in rows if models_table.is_prologue_case(r)]))
    with open(os.path.join(args.out, "models.md"), "w") as f:
        f.write(text)
    with open(os.path.join(args.out, "models.json"), "w") as f:
        json.dump(dict(device=device, rows=rows), f, indent=1)
    write_plots(args.out, header.split(";")[0],
                [r for r in rows if r["kind"] == "model"],
                [r for r in rows if r["kind"] == "dot"
                 and not models_table.is_prologue_case(r)])
    print()
    print(text)
    return 0


def write_plots(out, subtitle, model_rows, dot_rows):
    for name, svg in (("models.svg", models_table.models_plot(model_rows,
                                                             subtitle)),
                      ("dots.svg", models_table.dots_plot(dot_rows,
                                                          subtitle))):
        with open(os.path.join(out, name), "w") as f:
            f.write(svg)


def plot(args):
    with open(args.models_md) as f:
        caption, model_rows, dot_rows = models_table.rows_from_markdown(
            f.read())
    os.makedirs(args.out, exist_ok=True)
    write_plots(args.out, caption.split(";")[0], model_rows, dot_rows)
    print(f"wrote models.svg and dots.svg in {args.out}: {len(model_rows)} "
          f"models, {len(dot_rows)} dots ({caption.split(';')[0]})")
    return 0


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    lo = sub.add_parser("lower")
    lo.add_argument("dir")
    lo.add_argument("--only", default="")
    ru = sub.add_parser("run")
    ru.add_argument("bundle")
    ru.add_argument("--out", required=True)
    ru.add_argument("--only", default="")
    ru.add_argument("--seed", type=int, default=0)
    ru.add_argument("--iterations", type=int, default=10)
    # The device call's limit is a few minutes: the whole run fits 200 s.
    ru.add_argument("--budget-seconds", type=float, default=200)
    ru.add_argument("--case-seconds", type=float, default=60,
                    help="longest wait for one hlo-run-gpu")
    pl = sub.add_parser("plot")
    pl.add_argument("models_md")
    pl.add_argument("--out", required=True)
    args = p.parse_args(argv[1:])
    return {"lower": lower, "run": run, "plot": plot}[args.command](args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
