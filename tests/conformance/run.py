#!/usr/bin/env python3
"""Cross-target conformance: runs every case of cases.py on each target and
compares it with the reference evaluator.

  run.py [--columns=x86,x86-64-v2,aarch64,rocm] [--matrix=MATRIX.md]
         [--check] [--only=OP,...] [--work=DIR] [--tools=DIR]
  run.py --bundle=DIR      # cuda executables + inputs for the GPU machine
  run.py --cuda-results=DIR --matrix=...   # add the GPU machine's outputs

Columns: evaluator (the reference itself: cases it evaluates), x86 (this
host's CPU), x86-64-v2 (the JIT compiling for a baseline CPU, as
`bazel test --config=baseline-cpu`), aarch64 (NEON code under qemu), rocm
(compiled to a code object, not run: no AMD GPU here), cuda (from a GPU
run of --bundle, or hlo-run-gpu on this machine when it has a GPU).
Cases are packed many to a module; a module that fails on a target is
split in halves until the failing cases are found, so one bad case does
not hide the others.

Denormals: x86 and the GPU flush f32/f64 denormals as XLA's runtimes do,
compared with the evaluator in flush mode (hlo-run's default); the AArch64
target keeps IEEE denormals, compared with `--denormals=keep`.

--check exits 1 if any case fails on any column that is not listed in
known_differences.py (with its reason)."""
import argparse
import collections
import concurrent.futures
import datetime
import fnmatch
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import cases as C  # noqa: E402
import cases_structural  # noqa: E402
import compare  # noqa: E402
import known_differences  # noqa: E402
import values as V  # noqa: E402

# Cases per module: enough to amortise process start and compilation,
# few enough that a module compiles in about a second.
CHUNK = 96
# Columns and the evaluator mode each is compared with.
# A target that flushes denormals (XLA's CPU and GPU runtimes) does so in
# its arithmetic instructions only: bit operations (abs, negate, select,
# bitcast, copies) and libm routines that read the exponent bits pass
# denormals through. So each of its results may match the evaluator with
# everything flushed ("flush", hlo-run's default), with IEEE denormals
# ("keep"), or with denormal inputs read as zero ("daz"), element by
# element. The AArch64 target keeps IEEE denormals: "keep" only.
REFERENCE_OF = {"x86": ("flush", "keep", "daz"),
                "x86-64-v2": ("flush", "keep", "daz"),
                "aarch64": ("keep",),
                "cuda": ("flush", "keep", "daz")}
ALL_COLUMNS = ["evaluator", "x86", "x86-64-v2", "aarch64", "cuda", "rocm"]


def all_units(only=None):
    units = C.elementwise_units() + cases_structural.units()
    if only:
        keep = set(only)
        units = [u for u in units if u.op in keep or u.group in keep]
    return units


def modules_of(units):
    groups = collections.OrderedDict()
    for u in units:
        groups.setdefault(u.group, []).append(u)
    out = []
    for group, members in groups.items():
        for k in range(0, len(members), CHUNK):
            out.append((f"{group}.{k // CHUNK}", members[k:k + CHUNK]))
    return out


def fill_in(text, subst):
    # Not str.format: layouts ({1,0}) use braces too.
    for key, value in subst.items():
        text = text.replace("{" + key + "}", value)
    return text


def module_text(name, units):
    comps, params, lines, results, shapes = [], [], [], [], []
    number = 0
    for i, u in enumerate(units):
        prefix = f"u{i}_"
        subst = {"u": prefix}
        for j, (st, _) in enumerate(u.params):
            subst[f"p{j}"] = f"{prefix}p{j}"
            params.append(f"  {prefix}p{j} = {st} parameter({number})")
            number += 1
        for c in u.comps:
            comps.append(fill_in(c, subst))
        lines += ["  " + fill_in(line, subst) for line in u.lines]
        results.append(prefix + u.result)
        shapes.append(u.out_shape)
    safe = name.replace("-", "_").replace(".", "_").replace(" ", "_")
    return "\n".join(
        [f"HloModule {safe}", ""] + comps +
        ["ENTRY main {"] + params + lines +
        [f"  ROOT out = ({', '.join(shapes)}) tuple({', '.join(results)})",
         "}", ""])


def flush_denormals(array):
    """`array` with f32/f64-range denormals (bf16 shares f32's range,
    complex parts included) replaced by zeros of the same sign."""
    if array.dtype.kind not in "fcV" or array.dtype == V.DTYPES["f16"]:
        return array
    out = array.copy()
    parts = [out.real, out.imag] if np.iscomplexobj(out) else [out]
    for part in parts:
        tiny = float(V.finfo("f64" if part.dtype.itemsize == 8 else "f32").smallest_normal)
        wide = part.astype(np.float64)
        small = (wide != 0) & (np.abs(wide) < tiny)
        part[small] = np.copysign(0.0, wide[small]).astype(part.dtype)
    return out


def write_module(directory, name, units, daz=False):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "module.hlo"), "w") as f:
        f.write(module_text(name, units))
    k = 0
    for u in units:
        for _, array in u.params:
            if daz:
                array = flush_denormals(array)
            np.save(os.path.join(directory, f"in{k}.npy"), array)
            k += 1


def read_output(path, unit):
    dtype = V.DTYPES[unit.out_shape.split("[")[0]]
    array = np.load(path, allow_pickle=False)
    if array.dtype != dtype:
        array = array.view(dtype)
    return array


class Tools:
    def __init__(self, args):
        self.hlo_run = args.hlo_run
        self.hlo_opt = args.hlo_opt
        self.hlo_run_gpu = args.hlo_run_gpu
        self.cuda_results = None  # unit name -> result, from --cuda-results

    def command(self, column, directory, out):
        module = os.path.join(directory, "module.hlo")
        env = dict(os.environ)
        env.pop("HLOC_CPU", None)
        common = ["--inputs", directory, "--output", out]
        if column == "flush":
            return [self.hlo_run, module] + common, env
        if column in ("keep", "daz"):
            return [self.hlo_run, module, "--denormals=keep"] + common, env
        if column == "x86":
            return [self.hlo_run, module, "--platform=cpu", "--no-fallback"] + common, env
        if column == "x86-64-v2":
            env["HLOC_CPU"] = "x86-64-v2"
            return [self.hlo_run, module, "--platform=cpu", "--no-fallback"] + common, env
        if column == "aarch64":
            return [self.hlo_run, module, "--platform=cpu", "--target=aarch64",
                    "--denormals=keep"] + common, env
        if column == "rocm":
            return [self.hlo_opt, module, "--platform=rocm", "--stage=hsaco",
                    "-o", os.path.join(out, "m.hsaco")], env
        if column == "cuda-compile":
            return [self.hlo_opt, module, "--platform=cuda", "--stage=executable",
                    "-o", os.path.join(out, "m.hloexe")], env
        if column == "cuda":
            # Compiled here, run by the LLVM-free runner (as on the GPU
            # machine); a refused compilation exits 3 like hlo-run's.
            exe = os.path.join(out, "m.hloexe")
            script = ('"$1" "$2" --platform=cuda --stage=executable -o "$3" >&2 || exit $?; '
                      'exec "$4" "$3" --platform=cuda --inputs "$5" --output "$6"')
            return ["bash", "-c", script, "cuda", self.hlo_opt, module, exe,
                    self.hlo_run_gpu, directory, out], env
        raise ValueError(column)


def run_once(tools, column, directory):
    out = os.path.join(directory, column)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    cmd, env = tools.command(column, directory, out)
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=600)
    return proc.returncode, proc.stderr, out


def first_error_line(stderr):
    # The tools' messages can span lines (a header, then one line per
    # declined instruction): keep the first few.
    lines = [l.strip() for l in stderr.strip().splitlines() if l.strip()]
    return (" ".join(lines[:3]) if lines else "no message")[:400]


def run_units(tools, column, directory, name, units):
    """{unit index: ("ok", [outputs]) or ("error", message) or
    ("unsupported", message)} for `units` run on `column`, splitting the
    module on failure."""
    write_module(directory, name, units, daz=(column == "daz"))
    code, stderr, out = run_once(tools, column, directory)
    if code == 0:
        if column in ("rocm", "cuda-compile"):
            return [("ok", None)] * len(units)
        return [("ok", read_output(os.path.join(out, f"out{i}.npy"), u))
                for i, u in enumerate(units)]
    if len(units) == 1:
        # Exit 3: the strict compiler declined an instruction (it would run
        # in the evaluator on an x86 host with --fallback).
        kind = "unsupported" if code == 3 else "error"
        return [(kind, f"exit {code}: {first_error_line(stderr)}")]
    declined = declined_units(stderr, len(units)) if code == 3 else {}
    if declined and len(declined) < len(units):
        # The strict compiler names each instruction it declines (u<i>_...):
        # those cases are settled, the others run again without them.
        rest = [i for i in range(len(units)) if i not in declined]
        again = run_units(tools, column, directory + "r", name,
                          [units[i] for i in rest])
        result = [None] * len(units)
        for i, message in declined.items():
            result[i] = ("unsupported", f"exit 3: {message}")
        for i, r in zip(rest, again):
            result[i] = r
        return result
    half = len(units) // 2
    return (run_units(tools, column, directory + "a", name, units[:half]) +
            run_units(tools, column, directory + "b", name, units[half:]))


def declined_units(stderr, count):
    """{unit index: message} for the instructions a strict compilation
    declined, by the unit prefix of their names."""
    found = {}
    for line in stderr.splitlines():
        for m in re.finditer(r"\bu(\d+)_\w* \(", line):
            if int(m.group(1)) < count:
                found.setdefault(int(m.group(1)), line.strip()[-300:])
    return found


class Results:
    def __init__(self):
        self.status = {}  # (unit name, column) -> (status, detail)

    def set(self, unit, column, status, detail=""):
        self.status[(unit.name, column)] = (status, detail)


def evaluate_module(tools, work, name, units, columns, results):
    directory = os.path.join(work, name.replace(" ", "_"))
    refs = {}
    modes = {"flush"}
    for column in columns:
        modes.update(REFERENCE_OF.get(column, ()))
    for mode in sorted(modes):
        refs[mode] = run_units(tools, mode, os.path.join(directory, mode), name, units)
    for i, u in enumerate(units):
        status, value = refs["flush"][i]
        results.set(u, "evaluator", "pass" if status == "ok" else "ref-error",
                    "" if status == "ok" else value)
    valid = [i for i, u in enumerate(units) if refs["flush"][i][0] == "ok"]
    vunits = [units[i] for i in valid]
    for column in columns:
        if column == "evaluator" or not vunits:
            continue
        if column == "cuda" and tools.cuda_results is not None:
            got = [tools.cuda_results.get(u.name, ("error", "not in the GPU results"))
                   for u in vunits]
        else:
            got = run_units(tools, column, os.path.join(directory, column), name, vunits)
        for k, i in enumerate(valid):
            u = units[i]
            status, value = got[k]
            if status != "ok":
                results.set(u, column, status, value)
                continue
            if column == "rocm":
                results.set(u, column, "pass")
                continue
            expected = [refs[mode][i][1] for mode in REFERENCE_OF[column]
                        if refs[mode][i][0] == "ok"]
            bound = u.bound
            if column == "cuda" and u.tf32_bound is not None:
                bound = u.tf32_bound
            mask = np.zeros(value.shape, dtype=bool)
            for e in expected:
                mask |= compare.within(value, e, C.rule_for(u, column), bound)
            if mask.all():
                results.set(u, column, "pass")
            else:
                results.set(u, column, "fail",
                            compare.describe(value, expected[0], mask))
    shutil.rmtree(directory, ignore_errors=True)


def classify(units, results, columns):
    """Splits failures into known differences and new ones; returns
    (new failures, known failures, unused known entries)."""
    new, known, used = [], [], set()
    for u in units:
        for column in columns:
            status, detail = results.status.get((u.name, column), ("pass", ""))
            if status == "pass":
                continue
            entry = known_differences.match(column, u.op, u.type, u.shape, status)
            if entry is not None:
                known.append((u, column, status, detail, entry))
                used.add(id(entry))
            else:
                new.append((u, column, status, detail))
    unused = [e for e in known_differences.KNOWN
              if id(e) not in used and any(fnmatch.fnmatch(c, e["column"]) for c in columns)]
    return new, known, unused


def host_cpu():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def write_matrix(path, units, results, columns, skipped, known, new, gpu_device):
    ops = list(collections.OrderedDict((u.op, None) for u in units))
    by_op = collections.defaultdict(list)
    for u in units:
        by_op[u.op].append(u)
    known_keys = {(k[0].name, k[1]) for k in known}
    lines = [
        "# Cross-target conformance matrix",
        "",
        "Written by `python3 tests/conformance/run.py --matrix=tests/conformance/MATRIX.md`"
        " (README.md there says how each column is compared).",
        "",
        f"- date: {datetime.datetime.utcnow().strftime('%Y-%m-%d %H:%M UTC')}",
        f"- host CPU: {host_cpu()}",
        f"- GPU: {gpu_device or 'none (cuda column not run)'}",
        f"- cases: {len(units)}",
    ]
    for column, why in skipped.items():
        lines.append(f"- {column}: not run ({why})")
    lines += ["", "Each cell: cases passed / cases, then failures (x), known "
              "differences (k), cases the strict compiler declines (u).", ""]
    shown = [c for c in columns if c not in skipped]
    lines.append("| op | " + " | ".join(shown) + " |")
    lines.append("|---|" + "---|" * len(shown))
    for op in ops:
        cells = []
        for column in shown:
            counts = collections.Counter()
            for u in by_op[op]:
                status, _ = results.status.get((u.name, column), ("pass", ""))
                if status == "pass":
                    counts["pass"] += 1
                elif (u.name, column) in known_keys:
                    counts["k"] += 1
                elif status == "unsupported":
                    counts["u"] += 1
                else:
                    counts["x"] += 1
            cell = f"{counts['pass']}/{len(by_op[op])}"
            extra = [f"{counts[k]}{k}" for k in ("x", "k", "u") if counts[k]]
            if extra:
                cell += " (" + " ".join(extra) + ")"
            cells.append(cell)
        lines.append(f"| {op} | " + " | ".join(cells) + " |")
    if known:
        lines += ["", "## Known differences", ""]
        seen = collections.OrderedDict()
        for u, column, status, detail, entry in known:
            seen.setdefault(id(entry), (entry, []))[1].append(u.name)
        for entry, names in seen.values():
            lines.append(f"- {entry['column']} / {entry['op']} / {entry['type']}: "
                         f"{len(names)} cases. {entry['reason']}")
    if new:
        lines += ["", "## Failures", ""]
        for u, column, status, detail in new[:200]:
            lines.append(f"- {column}: {u.name}: {status}: {detail}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def compile_split(tools, directory, name, units, cases_dir, failures):
    """Compiles `units` for cuda into bundle case folders, splitting a
    module the compiler refuses until each refused case is alone."""
    write_module(directory, name, units)
    code, stderr, out = run_once(tools, "cuda-compile", directory)
    if code == 0:
        case = os.path.join(cases_dir, os.path.basename(directory))
        os.makedirs(case)
        shutil.copy(os.path.join(out, "m.hloexe"), case)
        shutil.copy(os.path.join(directory, "module.hlo"), case)
        for f in os.listdir(directory):
            if f.endswith(".npy"):
                shutil.copy(os.path.join(directory, f), case)
        with open(os.path.join(case, "units.txt"), "w") as f:
            f.write("".join(u.name + "\n" for u in units))
        return
    if len(units) == 1:
        kind = "unsupported" if code == 3 else "error"
        failures.append(f"{units[0].name}\t{kind}\texit {code}: {first_error_line(stderr)}")
        return
    declined = declined_units(stderr, len(units)) if code == 3 else {}
    if declined and len(declined) < len(units):
        for i, message in declined.items():
            failures.append(f"{units[i].name}\tunsupported\texit 3: {message}")
        compile_split(tools, directory + "r", name,
                      [u for i, u in enumerate(units) if i not in declined],
                      cases_dir, failures)
        return
    half = len(units) // 2
    compile_split(tools, directory + "a", name, units[:half], cases_dir, failures)
    compile_split(tools, directory + "b", name, units[half:], cases_dir, failures)


GPU_RUN = r"""#!/usr/bin/env bash
# Runs every conformance module of this bundle on this machine's GPU and
# writes the outputs to DIR (default: $OUT, else ./conformance-results);
# compare them on the build machine with
#   python3 tests/conformance/run.py --cuda-results=DIR --matrix=...
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-${OUT:-$PWD/conformance-results}}"
out="$out/conformance"
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/..${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt" 2>&1
cp "$here/compile.txt" "$out/"
failed=0
for case in "$here"/cases/*/; do
  name=$(basename "$case")
  mkdir -p "$out/$name"
  cp "$case/units.txt" "$out/$name/"
  "$here/../hlo-run-gpu" "$case/m.hloexe" --platform=cuda --inputs="$case"     --output="$out/$name" > "$out/$name/log" 2>&1
  code=$?
  echo "$code" > "$out/$name/exit"
  [[ $code == 0 ]] || failed=$((failed + 1))
done
echo "conformance: $(ls -d "$here"/cases/*/ | wc -l) modules run, $failed failed to run; outputs in $out"
"""


def make_bundle(tools, units, bundle, work):
    """Adds the conformance modules, compiled for cuda, with their inputs
    and a run script, to a GPU bundle (scripts/gpu_bundle.sh)."""
    root = os.path.join(bundle, "conformance")
    shutil.rmtree(root, ignore_errors=True)
    cases_dir = os.path.join(root, "cases")
    os.makedirs(cases_dir)
    failures = []
    for name, members in modules_of(units):
        compile_split(tools, os.path.join(work, name), name, members, cases_dir, failures)
    with open(os.path.join(root, "compile.txt"), "w") as f:
        f.write("".join(line + "\n" for line in failures))
    with open(os.path.join(root, "run.sh"), "w") as f:
        f.write(GPU_RUN)
    os.chmod(os.path.join(root, "run.sh"), 0o755)
    print(f"conformance: {len(os.listdir(cases_dir))} cuda modules in {root}, "
          f"{len(failures)} cases not compiled", file=sys.stderr)


def read_cuda_results(directory, units):
    """unit name -> result from the GPU machine's run of the bundle."""
    by_name = {u.name: u for u in units}
    results = {}
    root = os.path.join(directory, "conformance") if os.path.isdir(
        os.path.join(directory, "conformance")) else directory
    with open(os.path.join(root, "compile.txt")) as f:
        for line in f:
            unit_name, kind, message = line.rstrip("\n").split("\t", 2)
            results[unit_name] = (kind, message)
    for case in sorted(os.listdir(root)):
        path = os.path.join(root, case)
        if not os.path.isdir(path):
            continue
        with open(os.path.join(path, "units.txt")) as f:
            names = [l.rstrip("\n") for l in f if l.strip()]
        with open(os.path.join(path, "exit")) as f:
            code = f.read().strip()
        if code != "0":
            with open(os.path.join(path, "log")) as f:
                message = first_error_line(f.read())
            for n in names:
                results[n] = ("error", f"exit {code}: {message}")
            continue
        for i, n in enumerate(names):
            if n in by_name:
                results[n] = ("ok", read_output(os.path.join(path, f"out{i}.npy"), by_name[n]))
    device = None
    if os.path.exists(os.path.join(root, "device.txt")):
        with open(os.path.join(root, "device.txt")) as f:
            device = f.read().strip()
    return results, device


def default_tool(name):
    root = os.path.dirname(os.path.dirname(HERE))
    return os.path.join(root, "bazel-bin", "tools", name)


def have_aarch64():
    return (shutil.which("qemu-aarch64") is not None and
            shutil.which("aarch64-linux-gnu-gcc") is not None)


def gpu_available(tools):
    if not tools.hlo_run_gpu or not os.path.exists(tools.hlo_run_gpu):
        return "no hlo-run-gpu (build //tools:hlo-run-gpu, or use --bundle)"
    if shutil.which("nvidia-smi") is None:
        return "no NVIDIA GPU on this machine (nvidia-smi missing)"
    proc = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0 or "GPU" not in proc.stdout:
        return "no NVIDIA GPU on this machine"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", default="evaluator,x86,x86-64-v2,aarch64,cuda,rocm")
    parser.add_argument("--hlo-run", default=default_tool("hlo-run"))
    parser.add_argument("--hlo-opt", default=default_tool("hlo-opt"))
    parser.add_argument("--hlo-run-gpu", default=default_tool("hlo-run-gpu"))
    parser.add_argument("--matrix")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--only")
    parser.add_argument("--work")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--list", action="store_true", help="list the cases")
    parser.add_argument("--bundle", help="add cuda-compiled modules to this GPU bundle")
    parser.add_argument("--cuda-results", help="the GPU machine's outputs of --bundle")
    args = parser.parse_args()

    units = all_units(args.only.split(",") if args.only else None)
    if args.list:
        for u in units:
            print(u.name)
        return 0
    names = [u.name for u in units]
    assert len(set(names)) == len(names), "case names must be unique"
    columns = args.columns.split(",")
    tools = Tools(args)
    work = args.work or tempfile.mkdtemp(prefix="conformance-")
    if args.bundle:
        make_bundle(tools, units, args.bundle, work)
        return 0
    gpu_device = None
    if args.cuda_results:
        tools.cuda_results, gpu_device = read_cuda_results(args.cuda_results, units)
        if "cuda" not in columns:
            columns.append("cuda")
    skipped = {}
    if "aarch64" in columns and not have_aarch64():
        skipped["aarch64"] = "qemu-aarch64 or aarch64-linux-gnu-gcc missing"
    if "cuda" in columns and tools.cuda_results is None:
        why = gpu_available(tools)
        if why:
            skipped["cuda"] = why
    for column, why in skipped.items():
        print(f"conformance: {column} column skipped: {why}", file=sys.stderr)
    run_columns = [c for c in columns if c not in skipped]
    # Bazel's test sharding (TEST_TOTAL_SHARDS): each shard runs every
    # n-th module.
    shards = int(os.environ.get("TEST_TOTAL_SHARDS", "1"))
    shard = int(os.environ.get("TEST_SHARD_INDEX", "0"))
    if "TEST_SHARD_STATUS_FILE" in os.environ:
        open(os.environ["TEST_SHARD_STATUS_FILE"], "w").close()
    results = Results()
    modules = modules_of(units)[shard::shards]
    units = [u for _, members in modules for u in members]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(evaluate_module, tools, work, name, members,
                               [c for c in run_columns if c != "cuda"] +
                               (["cuda"] if "cuda" in run_columns else []),
                               results)
                   for name, members in modules]
        for f in futures:
            f.result()
    new, known, unused = classify(units, results, run_columns)
    for u, column, status, detail in new:
        print(f"FAIL {column}: {u.name}: {status}: {detail}")
    for entry in unused:
        print(f"conformance: known difference no longer seen: {entry}",
              file=sys.stderr)
    if args.matrix:
        write_matrix(args.matrix, units, results, columns, skipped, known, new,
                     gpu_device)
    print(f"conformance: {len(units)} cases, {len(modules)} modules, columns "
          f"{','.join(run_columns)}: {len(new)} failures, {len(known)} known "
          f"differences", file=sys.stderr)
    if args.check:
        missing = [c for c in skipped if c in ("aarch64",)]
        if missing:
            print(f"conformance: required column(s) {missing} cannot run",
                  file=sys.stderr)
            return 1
        # A stale entry is only visible when every case ran.
        return 1 if new or (unused and shards == 1 and not args.only) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
