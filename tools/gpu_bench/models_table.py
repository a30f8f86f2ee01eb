"""The whole-program benchmark's tables, and reading what hlo-run-gpu prints.

Pure functions (no GPU, no JAX), so models_bench_test.py checks them with
made-up timings. A row is a dict:

  name         the model or dot case
  hloc_ms      hloc's median whole-run time, or None
  xla_ms       XLA:GPU's time per back-to-back call, or None
  torch_ms     (dots) torch.matmul's time per call, or None
  flops        (dots) 2*m*n*k
  check        "ok", "MISMATCH: ..." or "not checked: ..."
  hloc_unfused_ms
               (dot_prologue_* cases) the same dot compiled without
               dot-prologue-fusion
  hloc_error   why hloc has no time (compile or run failure), if so
  xla_error    why XLA:GPU has none, if so
  top_kernels  (slower than XLA) [(ms, share %, step), ...] of one warm
               run, slowest first
"""

import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bar_svg  # noqa: E402
import md_tables  # noqa: E402

_RUN_TIME = re.compile(r"median run time ([0-9.]+) ms")
_STEP_ROW = re.compile(r"^\s*([0-9.]+)\s+(\d+)\s+([0-9.]+)%\s+(.*)$")


def parse_run_time(stderr):
    """hloc's median whole-run milliseconds (hlo-run-gpu --iterations
    --time-run), or None."""
    m = _RUN_TIME.search(stderr)
    return float(m.group(1)) if m else None


def parse_top_steps(stderr, count=3):
    """The slowest `count` steps of the warm run that hlo-run-gpu
    --iterations --profile prints last: [(ms, share %, step), ...]."""
    marker = stderr.rfind("steps of the last timed run")
    if marker < 0:
        return []
    steps = []
    for line in stderr[marker:].splitlines()[1:]:
        m = _STEP_ROW.match(line)
        if m and not m.group(4).startswith("total"):
            steps.append((float(m.group(1)), float(m.group(3)), m.group(4)))
    return steps[:count]


def mismatch_summary(stdout):
    """The result table's MISMATCH rows, whitespace squeezed, or the last
    line."""
    rows = [" ".join(l.split()) for l in stdout.splitlines()
            if l.rstrip().endswith("MISMATCH") and not l.startswith("MISMATCH")]
    lines = stdout.strip().splitlines()
    return "; ".join(rows) or (lines[-1] if lines else "no output")


def geomean(values):
    values = [v for v in values if v and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def speedup(row):
    """XLA's time over hloc's (> 1: hloc is faster), or None."""
    if row.get("hloc_ms") and row.get("xla_ms"):
        return row["xla_ms"] / row["hloc_ms"]
    return None


def _ms(value):
    return "n/a" if value is None else f"{value:.3f}"


def _hloc_cell(row):
    return "FAIL" if row.get("hloc_error") else _ms(row.get("hloc_ms"))


def _notes(rows):
    notes = []
    for r in rows:
        for key, who in (("hloc_error", "hloc"), ("xla_error", "XLA:GPU")):
            if r.get(key):
                notes.append(f"- {r['name']}: {who}: {r[key]}")
    return notes


def models_table(rows):
    """Markdown: model, hloc ms, XLA ms, XLA/hloc, check; the geometric
    mean and the slowest module; then failures, and for each module slower
    than XLA its three slowest kernels."""
    lines = ["| model | hloc ms | XLA:GPU ms | XLA/hloc | check |",
             "|---|---|---|---|---|"]
    for r in rows:
        s = speedup(r)
        lines.append(f"| {r['name']} | {_hloc_cell(r)} | {_ms(r.get('xla_ms'))}"
                     f" | {'n/a' if s is None else f'{s:.2f}x'} | "
                     f"{r.get('check', 'n/a')} |")
    ratios = [(speedup(r), r["name"]) for r in rows if speedup(r)]
    g = geomean([s for s, _ in ratios])
    lines.append("")
    if g is None:
        lines.append("geometric mean of XLA/hloc: n/a (no module timed on "
                     "both)")
    else:
        worst = min(ratios)
        lines.append(f"geometric mean of XLA/hloc over {len(ratios)} of "
                     f"{len(rows)} modules: {g:.2f}x (goal >= 1.0); slowest "
                     f"relative to XLA: {worst[1]} {worst[0]:.2f}x (goal >= "
                     "0.8x)")
    notes = _notes(rows)
    if notes:
        lines += ["", "Failures:"] + notes
    slow = [r for r in rows if speedup(r) is not None and speedup(r) < 1]
    if slow:
        lines += ["", "Where hloc is slower: its three slowest steps in one "
                  "warm run (per-step CUDA events, graphs off):"]
        for r in slow:
            kernels = "; ".join(f"{step} {ms:.3f} ms ({share:.0f}%)"
                                for ms, share, step in r.get("top_kernels", []))
            lines.append(f"- {r['name']} ({speedup(r):.2f}x): "
                         f"{kernels or 'no profile'}")
    return "\n".join(lines) + "\n"


def _tflops(row, key):
    ms = row.get(key)
    if not ms:
        return None
    return row["flops"] / (ms * 1e-3) / 1e12


def dots_table(rows):
    """Markdown: TFLOP/s of hloc, a direct cuBLAS call (torch) and
    XLA:GPU per dot case, and hloc's share of cuBLAS's (goal >= 95%)."""
    lines = ["| case | m x n x k | hloc TFLOP/s | cuBLAS (torch) TFLOP/s | "
             "XLA:GPU TFLOP/s | hloc % of cuBLAS | check |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        h, t, x = (_tflops(r, k) for k in ("hloc_ms", "torch_ms", "xla_ms"))

        def cell(v):
            return "n/a" if v is None else f"{v:.0f}"
        share = "n/a" if h is None or t is None else f"{100 * h / t:.0f}%"
        lines.append(f"| {r['name']} | {r.get('mnk', '')} | "
                     f"{'FAIL' if r.get('hloc_error') else cell(h)} | "
                     f"{cell(t)} | {cell(x)} | {share} | "
                     f"{r.get('check', 'n/a')} |")
    notes = _notes(rows) + [f"- {r['name']}: torch: {r['torch_error']}"
                            for r in rows if r.get("torch_error")]
    if notes:
        lines += ["", "Failures:"] + notes
    return "\n".join(lines) + "\n"


def _us(value):
    return "n/a" if value is None else f"{1e3 * value:.1f}"


def prologue_table(rows):
    """Markdown: the small dots with computed operands (dots.py's
    dot_prologue_* cases) in microseconds per call: hloc as compiled, hloc
    without dot-prologue-fusion, XLA:GPU and torch eager."""
    lines = ["| case | m x n x k | hloc us | hloc unfused us | XLA:GPU us | "
             "torch eager us | check |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        hloc = "FAIL" if r.get("hloc_error") else _us(r.get("hloc_ms"))
        unfused = ("FAIL" if r.get("hloc_unfused_error")
                   else _us(r.get("hloc_unfused_ms")))
        lines.append(f"| {r['name']} | {r.get('mnk', '')} | {hloc} | "
                     f"{unfused} | {_us(r.get('xla_ms'))} | "
                     f"{_us(r.get('torch_ms'))} | {r.get('check', 'n/a')} |")
    notes = _notes(rows)
    if notes:
        lines += ["", "Failures:"] + notes
    return "\n".join(lines) + "\n"


def is_prologue_case(row):
    return row["name"].startswith("dot_prologue_")


def models_plot(rows, subtitle):
    """The whole programs as an SVG bar chart: ms per run of hloc and
    XLA:GPU, each model on its own scale (times differ 100-fold)."""
    groups = [dict(name=r["name"], unit="ms", bars=[
        ("hloc", None if r.get("hloc_error") else r.get("hloc_ms")),
        ("XLA:GPU", r.get("xla_ms"))]) for r in rows]
    return bar_svg.bar_svg(
        "Whole programs on GPU: ms per run (shorter is faster)", subtitle,
        groups, shared_scale=False,
        note="Each model is scaled to its own longest bar. No copy bound: "
        "these programs are not all memory-bound.")


def dots_plot(rows, subtitle):
    """The dots as an SVG bar chart: TFLOP/s of hloc, cuBLAS (through
    torch) and XLA:GPU."""
    groups = [dict(name=r["name"], unit="TFLOP/s", bars=[
        ("hloc", None if r.get("hloc_error") else _tflops(r, "hloc_ms")),
        ("cuBLAS (torch)", _tflops(r, "torch_ms")),
        ("XLA:GPU", _tflops(r, "xla_ms"))]) for r in rows]
    return bar_svg.bar_svg(
        "Dots on GPU: TFLOP/s (longer is faster)", subtitle, groups,
        note="cuBLAS (torch.matmul) is the bound a dot is judged by.")


def rows_from_markdown(text):
    """The latest (first) whole-program and dot tables of MODELS.md back
    as rows: (caption, model rows, dot rows)."""
    found = md_tables.tables(text)
    models = [t for t in found if t[1][:2] == ["model", "hloc ms"]]
    dot_tables = [t for t in found if t[1][:2] == ["case", "m x n x k"]]
    if not models or not dot_tables:
        raise ValueError("no whole-program or dot table in the markdown")
    caption, header, cells = models[0]
    model_rows = []
    for c in cells:
        row = dict(name=c[0], hloc_ms=md_tables.number(c[1]),
                   xla_ms=md_tables.number(c[2]), check=c[4])
        if c[1] == "FAIL":
            row["hloc_error"] = "FAIL"
        model_rows.append(row)
    dot_rows = []
    for c in dot_tables[0][2]:
        m, n, k = (int(x) for x in c[1].split("x"))
        row = dict(name=c[0], mnk=c[1], flops=2.0 * m * n * k)
        for key, cell in (("hloc_ms", c[2]), ("torch_ms", c[3]),
                          ("xla_ms", c[4])):
            tflops = md_tables.number(cell)
            if tflops:
                row[key] = row["flops"] / (tflops * 1e12) * 1e3
        if c[2] == "FAIL":
            row["hloc_error"] = "FAIL"
        dot_rows.append(row)
    return caption, model_rows, dot_rows
