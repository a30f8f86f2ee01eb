#!/usr/bin/env python3
"""The GPU benchmark's Python half: lowers the cases, and times the peers.

  gpu_bench.py lower DIR [--only SUBSTR]
      lowers every case (cases.py) with JAX to DIR/NAME/module.pb (hloc
      compiles it for cuda on the development machine; the bundle carries
      the executables, and the runner makes random inputs on the GPU
      machine: the inputs are gigabytes).
  gpu_bench.py peers DIR [--only SUBSTR] [--json OUT]
      on the GPU machine: the device-to-device copy bandwidth of 1 GiB, and
      for every case XLA:GPU (jax.jit) and torch.compile, timed on the same
      inputs; prints one JSON object per line and a table.
  gpu_bench.py table BUNDLE [--only SUBSTR] [--markdown OUT] [--json OUT]
                     [--plot OUT.svg]
      on the GPU machine, in one process: the peers as above and hloc's
      executables from BUNDLE/bench/NAME/m.hloexe (scripts/gpu_bench.sh),
      each run by BUNDLE/hlo-run-gpu with random inputs made once and
      --iterations --time-run (the median over samples of 20 runs back to
      back, inputs resident on the device, CUDA events around each
      sample); prints the table of all three (time, GB/s, % of the copy)
      and writes it as markdown, and as a bar chart (GB/s of hloc, the
      copy bound, XLA:GPU, torch.compile).
  gpu_bench.py plot RESULTS.md --out OUT.svg
      the bar chart of the last table recorded in RESULTS.md (its caption
      line gives the machine, date and copy bandwidth).

Timing (all three alike): inputs live on the device; after warm-up, calls
are issued back to back, the way a training loop calls a step, and the
median over rounds of (round time / calls per round) is reported. (Until
session 5 hloc's column was one run's kernel time right after the
arguments were copied in, up to 10% slower than the same kernels back to
back: see hlo_run_cuda.cc.) The copy
is timed the same way with torch's copy_ on one 1 GiB buffer (bytes read +
bytes written). Beside it, each case has a copy of its own size, timed
alike (half its bytes copied: as many read and written as the case moves):
a kernel that moves 256 MB in 70 us pays launch, ramp-up and the last
wave's tail on a far smaller transfer than the 1 GiB copy does, and the
copy of the same bytes shows what that size can reach.
"""

import argparse
import json
import os
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bar_svg  # noqa: E402
import cases  # noqa: E402
import md_tables  # noqa: E402

import numpy as np  # noqa: E402


def selected(only):
    """The cases whose names contain one of the comma-separated parts of
    `only` (every case when it is empty)."""
    parts = [p for p in only.split(",") if p]
    return [n for n in cases.CASES if not parts or any(p in n for p in parts)]


def lower(args):
    import jax
    for name in selected(args.only):
        case = cases.CASES[name]
        dtype = cases.numpy_dtype(case["dtype"])
        specs = [jax.ShapeDtypeStruct(s, dtype) for s in case["shapes"]]
        lowered = jax.jit(case["jax"]).lower(*specs)
        proto = lowered.compiler_ir("hlo").as_serialized_hlo_module_proto()
        out = os.path.join(args.dir, name)
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "module.pb"), "wb") as f:
            f.write(proto)
        print(f"lowered {name}")


def time_calls(call, sync, rounds=15, calls=20, warmup=5):
    for _ in range(warmup):
        call()
    sync()
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            call()
        sync()
        samples.append((time.perf_counter() - t0) / calls)
    return statistics.median(samples)


def peers(args):
    copy_gbs, _, results = measure_peers(args.only)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(copy_gbs=copy_gbs, cases=results), f, indent=1)
    print(f"\ncopy {copy_gbs:.0f} GB/s (read+write)")
    print(f"{'case':18} {'XLA:GPU us':>11} {'% copy':>7} {'torch us':>9} "
          f"{'% copy':>7}")
    for r in results:
        def cell(key):
            s = r.get(key)
            if s is None or "bytes" not in r:
                return f"{'n/a':>11} {'':>7}"
            return f"{s * 1e6:11.1f} {100 * r['bytes'] / s / 1e9 / copy_gbs:6.0f}%"
        print(f"{r['name']:18} {cell('xla_s')} {cell('torch_s')}")


# hlo-run-gpu samples per case (each 20 runs back to back), as many as the
# peers' rounds.
HLOC_ITERATIONS = 15


def time_hloc(bundle, name):
    """hloc's median device seconds per run of case `name`, or an error."""
    import re
    import subprocess
    exe = os.path.join(bundle, "bench", name, "m.hloexe")
    if not os.path.exists(exe):
        return None, "not compiled (scripts/gpu_bench.sh said why)"
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = bundle + (
        ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    run = subprocess.run(
        [os.path.join(bundle, "hlo-run-gpu"), exe, "--platform=cuda",
         "--random-inputs=1", f"--iterations={HLOC_ITERATIONS}",
         "--time-run"],
        env=env, capture_output=True, text=True)
    m = re.search(r"median run time ([0-9.]+) ms", run.stderr)
    if run.returncode != 0 or not m:
        return None, (run.stderr.strip().splitlines() or ["no output"])[-1]
    return float(m.group(1)) / 1e3, None


def bytes_from_shapes(name):
    """bytes_moved without running the case: its outputs' shapes from
    jax.eval_shape."""
    import jax
    case = cases.CASES[name]
    dtype = cases.numpy_dtype(case["dtype"])
    specs = [jax.ShapeDtypeStruct(s, dtype) for s in case["shapes"]]
    out = jax.eval_shape(case["jax"], *specs)
    outs = out if isinstance(out, (tuple, list)) else [out]
    return cases.bytes_moved(name, [np.empty(o.shape, o.dtype) for o in outs])


def table(args):
    import datetime
    # hloc first, before JAX and PyTorch hold device memory.
    hloc = {}
    for name in selected(args.only):
        hloc[name] = time_hloc(args.bundle, name)
        print(json.dumps(dict(kind="hloc", name=name, seconds=hloc[name][0],
                              error=hloc[name][1])), flush=True)
    copy_gbs, device, results = measure_peers(args.only, args.peer_seconds)
    for r in results:
        r["hloc_s"], error = hloc[r["name"]]
        if error:
            r["hloc_error"] = error
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(copy_gbs=copy_gbs, device=device, cases=results),
                      f, indent=1)

    for r in results:
        if "bytes" not in r:  # The peers did not run: count it here.
            r["bytes"] = bytes_from_shapes(r["name"])

    def cell(r, key):
        s = r.get(key)
        if s is None:
            return "n/a", "n/a", "n/a"
        gbs = r["bytes"] / s / 1e9
        return f"{s * 1e6:.1f}", f"{gbs:.0f}", f"{100 * gbs / copy_gbs:.0f}%"
    def same_size(r):
        # The case's time against a copy of the same bytes: what a kernel
        # of this size can reach.
        if r.get("copy_same_s") is None:
            return "n/a", "n/a"
        c = r["copy_same_s"]
        h = r.get("hloc_s")
        return f"{c * 1e6:.1f}", (f"{100 * c / h:.0f}%" if h else "n/a")
    lines = [
        f"{device}, {datetime.date.today().isoformat()}; copy (1 GiB, "
        f"device to device, read+write) {copy_gbs:.0f} GB/s",
        "",
        "| case | hloc us | hloc GB/s | hloc % copy | XLA:GPU us | "
        "XLA % copy | torch.compile us | torch % copy | "
        "same-size copy us | hloc % of it |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        h, x, t = cell(r, "hloc_s"), cell(r, "xla_s"), cell(r, "torch_s")
        c = same_size(r)
        lines.append(f"| {r['name']} | {h[0]} | {h[1]} | {h[2]} | {x[0]} | "
                     f"{x[2]} | {t[0]} | {t[2]} | {c[0]} | {c[1]} |")
    errors = [f"- {r['name']}: {k}: {r[k]}" for r in results
              for k in ("hloc_error", "xla_error", "torch_error") if k in r]
    if errors:
        lines += ["", "Errors:"] + errors
    text = "\n".join(lines) + "\n"
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.plot:
        with open(args.plot, "w") as f:
            f.write(memory_bound_plot(results, copy_gbs, lines[0]))
    print()
    print(text)


def memory_bound_plot(results, copy_gbs, subtitle):
    """The table as an SVG bar chart: GB/s per case of hloc, the copy bound
    and the peers. results: rows with "name", "bytes" and "hloc_s",
    "xla_s", "torch_s" (seconds, absent when not measured)."""
    groups = []
    for r in results:
        def gbs(key):
            s = r.get(key)
            return r["bytes"] / s / 1e9 if s and r.get("bytes") else None
        groups.append(dict(name=r["name"], unit="GB/s", bars=[
            ("hloc", gbs("hloc_s")), ("copy bound", copy_gbs),
            ("XLA:GPU", gbs("xla_s")), ("torch.compile", gbs("torch_s"))]))
    return bar_svg.bar_svg(
        "Memory-bound fusions on GPU: GB/s (longer is faster)", subtitle,
        groups, note="GB/s counts every input read and every output written "
        "once; the copy bound is a 1 GiB device-to-device copy.")


def results_from_markdown(text):
    """The last memory-bound table of RESULTS.md as (results, copy GB/s,
    caption): times in seconds, bytes from hloc's GB/s and time (else from
    the % of copy columns)."""
    found = [t for t in md_tables.tables(text)
             if t[1][:3] == ["case", "hloc us", "hloc GB/s"]]
    if not found:
        raise ValueError("no memory-bound table (| case | hloc us | ...)")
    caption, header, rows = found[-1]
    copies = re.findall(r"([0-9.]+) GB/s", caption)
    if not copies:
        raise ValueError(f"no copy GB/s in the caption {caption!r}")
    copy_gbs = float(copies[-1])
    col = {h: i for i, h in enumerate(header)}
    results = []
    for cells in rows:
        def at(name):
            return md_tables.number(cells[col[name]]) if name in col else None
        us = {k: at(c) for k, c in (("hloc_s", "hloc us"),
                                    ("xla_s", "XLA:GPU us"),
                                    ("torch_s", "torch.compile us"))}
        r = dict(name=cells[0].split(" ")[0])
        if us["hloc_s"] and at("hloc GB/s"):
            r["bytes"] = at("hloc GB/s") * 1e9 * us["hloc_s"] * 1e-6
        elif us["xla_s"] and at("XLA % copy"):
            r["bytes"] = at("XLA % copy") / 100 * copy_gbs * 1e9 * \
                us["xla_s"] * 1e-6
        for k, v in us.items():
            if v:
                r[k] = v * 1e-6
        results.append(r)
    return results, copy_gbs, caption


def plot(args):
    with open(args.results) as f:
        results, copy_gbs, caption = results_from_markdown(f.read())
    with open(args.out, "w") as f:
        f.write(memory_bound_plot(results, copy_gbs, caption))
    print(f"wrote {args.out}: {len(results)} cases ({caption})")


def time_copy(nbytes):
    """Seconds per device-to-device copy of `nbytes` (torch copy_, timed as
    the peers are)."""
    import torch
    src = torch.empty(max(nbytes, 1), dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    seconds = time_calls(lambda: dst.copy_(src), torch.cuda.synchronize)
    del src, dst
    torch.cuda.empty_cache()
    return seconds


def measure_peers(only, budget_s=None):
    """The copy and the peers per case; cases not started within budget_s
    seconds (torch.compile's first compile of a case can take a minute)
    are reported as not measured."""
    import jax
    import torch
    start = time.perf_counter()
    results = []
    n = (1 << 30) // 4
    src = torch.rand(n, device="cuda")
    dst = torch.empty_like(src)
    copy_s = time_calls(lambda: dst.copy_(src), torch.cuda.synchronize)
    copy_gbs = 2 * n * 4 / copy_s / 1e9
    del src, dst
    torch.cuda.empty_cache()
    print(json.dumps(dict(kind="copy", gbs=copy_gbs,
                          device=torch.cuda.get_device_name())), flush=True)
    for name in selected(only):
        case = cases.CASES[name]
        row = dict(kind="case", name=name)
        if budget_s is not None and time.perf_counter() - start > budget_s:
            row["xla_error"] = row["torch_error"] = "not measured: time budget"
            results.append(row)
            continue
        host = cases.make_inputs(name)
        try:
            xs = [jax.device_put(x) for x in host]
            f = jax.jit(case["jax"])
            out = f(*xs)
            outs = out if isinstance(out, (tuple, list)) else [out]
            moved = cases.bytes_moved(name, [np.asarray(o) for o in outs])
            row["bytes"] = moved
            row["copy_same_s"] = time_copy(moved // 2)
            last = [out]

            def call():
                last[0] = f(*xs)
            row["xla_s"] = time_calls(
                call, lambda: jax.block_until_ready(last[0]))
        except Exception as e:  # A peer that fails is reported, not fatal.
            row["xla_error"] = f"{type(e).__name__}: {e}"
        try:
            ts = [torch.from_numpy(np.asarray(x, np.float32)).cuda().to(
                getattr(torch, case["dtype"])) for x in host]
            g = torch.compile(case["torch"])
            g(*ts)
            row["torch_s"] = time_calls(lambda: g(*ts), torch.cuda.synchronize)
        except Exception as e:
            row["torch_error"] = f"{type(e).__name__}: {e}"
        results.append(row)
        print(json.dumps(row), flush=True)
    return copy_gbs, torch.cuda.get_device_name(), results


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    lo = sub.add_parser("lower")
    lo.add_argument("dir")
    lo.add_argument("--only", default="")
    pe = sub.add_parser("peers")
    pe.add_argument("--only", default="")
    pe.add_argument("--json", default="")
    ta = sub.add_parser("table")
    ta.add_argument("bundle")
    ta.add_argument("--only", default="")
    ta.add_argument("--markdown", default="")
    ta.add_argument("--json", default="")
    ta.add_argument("--peer-seconds", type=float, default=None,
                    help="start no peer case after this many seconds")
    ta.add_argument("--plot", default="", help="also write an SVG chart")
    pl = sub.add_parser("plot")
    pl.add_argument("results")
    pl.add_argument("--out", required=True)
    args = p.parse_args(argv[1:])
    {"lower": lower, "peers": peers, "table": table,
     "plot": plot}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
