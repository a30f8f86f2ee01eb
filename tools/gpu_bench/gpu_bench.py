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

Timing (both peers alike): inputs live on the device; after warm-up, calls
are issued back to back, the way a training loop calls a step, and the
median over rounds of (round time / calls per round) is reported. The copy
is timed the same way with torch's copy_ on one 1 GiB buffer (bytes read +
bytes written).
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402

import numpy as np  # noqa: E402


def selected(only):
    return [n for n in cases.CASES if not only or only in n]


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
    import jax
    import torch
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
    for name in selected(args.only):
        case = cases.CASES[name]
        row = dict(kind="case", name=name)
        host = cases.make_inputs(name)
        try:
            xs = [jax.device_put(x) for x in host]
            f = jax.jit(case["jax"])
            out = f(*xs)
            outs = out if isinstance(out, (tuple, list)) else [out]
            moved = cases.bytes_moved(name, [np.asarray(o) for o in outs])
            row["bytes"] = moved
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


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    lo = sub.add_parser("lower")
    lo.add_argument("dir")
    lo.add_argument("--only", default="")
    pe = sub.add_parser("peers")
    pe.add_argument("--only", default="")
    pe.add_argument("--json", default="")
    args = p.parse_args(argv[1:])
    if args.command == "lower":
        lower(args)
    else:
        peers(args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
