#!/usr/bin/env python3
"""The multi-GPU check's cases: collectives on N GPUs through NCCL.

Writes one case folder per program into OUT (the layout
scripts/gpu_bundle.sh bundles: m.hloexe, in<i>.r<k>.npy, out<i>.r<k>.npy
and `flags` with --replicas=N), for run.sh on a machine with N GPUs:

  - hand-written modules of every collective op (all-reduce of several
    types and reductions, tuple operands, all-gather and reduce-scatter
    along a minor dimension, all-to-all in both forms, collective-permute
    with a device receiving nothing, replica-id, an all-reduce in a while
    loop), their expected outputs
    from the replicated evaluator (hlo-run --platform=interpreter);
  - JAX's own programs: the pmap cases and the data-parallel MLP step of
    tests/jax/collectives_test.py over N devices, as XLA:CPU compiled them
    for N CPU devices, their expected outputs JAX's.

usage: make_cases.py HLO_OPT HLO_RUN N OUT
"""

import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "jax"))
import collectives_test as ct  # noqa: E402  (makes 4 CPU devices)
import jax  # noqa: E402


def hlo_modules(n):
    """name -> (HLO text, parameter shapes and dtypes)."""
    ring = ",".join(f"{{{k},{(k + 1) % n}}}" for k in range(n))
    # Device 0 receives nothing (no pair targets it).
    partial = ",".join(f"{{{k},{k + 1}}}" for k in range(n - 1))
    reducers = """
add_f32 { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = f32[] add(a, b) }
max_s32 { a = s32[] parameter(0)  b = s32[] parameter(1)  ROOT r = s32[] maximum(a, b) }
add_bf16 { a = bf16[] parameter(0)  b = bf16[] parameter(1)  ROOT r = bf16[] add(a, b) }
min_f64 { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT r = f64[] minimum(a, b) }
mul_s64 { a = s64[] parameter(0)  b = s64[] parameter(1)  ROOT r = s64[] multiply(a, b) }
"""
    head = f"HloModule m, replica_count={n}\n{reducers}\n"
    f32 = np.float32
    return {
        "all_reduce_f32": (head + """
ENTRY e { p = f32[1000,3] parameter(0)
  ROOT r = f32[1000,3] all-reduce(p), to_apply=add_f32 }""",
                           [((1000, 3), f32)]),
        "all_reduce_tuple": (head + """
ENTRY e { p = s32[17] parameter(0)  q = s32[5,5] parameter(1)
  ROOT r = (s32[17], s32[5,5]) all-reduce(p, q), to_apply=max_s32 }""",
                             [((17,), np.int32), ((5, 5), np.int32)]),
        "all_reduce_bf16": (head + """
ENTRY e { p = bf16[256] parameter(0)
  ROOT r = bf16[256] all-reduce(p), to_apply=add_bf16 }""",
                            [((256,), "bf16")]),
        "all_reduce_min_f64": (head + """
ENTRY e { p = f64[64] parameter(0)
  ROOT r = f64[64] all-reduce(p), to_apply=min_f64 }""",
                               [((64,), np.float64)]),
        "all_reduce_prod_s64": (head + """
ENTRY e { p = s64[40] parameter(0)
  ROOT r = s64[40] all-reduce(p), to_apply=mul_s64 }""",
                                [((40,), np.int64)]),
        "all_gather_minor": (head + f"""
ENTRY e {{ p = f32[4,6] parameter(0)
  ROOT r = f32[4,{6 * n}] all-gather(p), dimensions={{1}} }}""",
                             [((4, 6), f32)]),
        "reduce_scatter": (head + f"""
ENTRY e {{ p = f32[{8 * n},3] parameter(0)
  ROOT r = f32[8,3] reduce-scatter(p), dimensions={{0}}, to_apply=add_f32 }}""",
                           [((8 * n, 3), f32)]),
        "all_to_all_minor": (head + f"""
ENTRY e {{ p = f32[3,{2 * n}] parameter(0)
  ROOT r = f32[3,{2 * n}] all-to-all(p), dimensions={{1}} }}""",
                             [((3, 2 * n), f32)]),
        "all_to_all_tuple": (head + "ENTRY e { " + " ".join(
            f"p{j} = f32[5] parameter({j})" for j in range(n)) +
            f" ROOT r = ({','.join(['f32[5]'] * n)}) all-to-all(" +
            ", ".join(f"p{j}" for j in range(n)) + ") }",
                             [((5,), f32)] * n),
        "permute_ring": (head + f"""
ENTRY e {{ p = f32[33] parameter(0)
  ROOT r = f32[33] collective-permute(p), source_target_pairs={{{ring}}} }}""",
                         [((33,), f32)]),
        "permute_partial": (head + f"""
ENTRY e {{ p = f32[33] parameter(0)
  ROOT r = f32[33] collective-permute(p), source_target_pairs={{{partial}}} }}""",
                            [((33,), f32)]),
        # A training loop's shape: an all-reduce in every iteration of a
        # while loop (the GPU drives the loop from the host).
        "all_reduce_in_loop": (head + """
cond { s = (s32[], f32[16]) parameter(0)  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)  ROOT more = pred[] compare(i, n), direction=LT }
body { s = (s32[], f32[16]) parameter(0)  i = s32[] get-tuple-element(s), index=0
  x = f32[16] get-tuple-element(s), index=1
  r = f32[16] all-reduce(x), to_apply=add_f32
  half = f32[] constant(0.5)  h = f32[16] broadcast(half), dimensions={}
  y = f32[16] multiply(r, h)  one = s32[] constant(1)  j = s32[] add(i, one)
  ROOT t = (s32[], f32[16]) tuple(j, y) }
ENTRY e { p = f32[16] parameter(0)  z = s32[] constant(0)
  t = (s32[], f32[16]) tuple(z, p)
  w = (s32[], f32[16]) while(t), condition=cond, body=body
  ROOT x = f32[16] get-tuple-element(w), index=1 }""",
                               [((16,), f32)]),
        "replica_id": (head + """
ENTRY e { p = f32[8] parameter(0)  id = u32[] replica-id()
  c = f32[] convert(id)  b = f32[8] broadcast(c), dimensions={}
  ROOT r = f32[8] add(p, b) }""",
                       [((8,), f32)]),
    }


def random_input(rng, shape, dtype):
    if dtype == "bf16":
        import ml_dtypes
        return rng.standard_normal(shape).astype(ml_dtypes.bfloat16)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(1, 4, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def compile_case(hlo_opt, module_path, case, n, fmt):
    subprocess.run([hlo_opt, module_path, f"--format={fmt}", "--platform=cuda",
                    "--stage=executable", "-o", os.path.join(case, "m.hloexe")],
                   check=True)
    with open(os.path.join(case, "flags"), "w") as f:
        f.write(f"--replicas={n}\n")


def hand_written(hlo_opt, hlo_run, n, out, rng):
    for name, (text, params) in hlo_modules(n).items():
        case = os.path.join(out, f"collective.{name}")
        os.makedirs(case, exist_ok=True)
        path = os.path.join(case, "m.hlo")
        with open(path, "w") as f:
            f.write(text)
        for k in range(n):
            for i, (shape, dtype) in enumerate(params):
                np.save(os.path.join(case, f"in{i}.r{k}.npy"),
                        random_input(rng, shape, dtype))
        subprocess.run([hlo_run, path, "--platform=interpreter",
                        f"--replicas={n}", f"--inputs={case}",
                        f"--output={case}"], check=True,
                       stdout=subprocess.DEVNULL)
        compile_case(hlo_opt, path, case, n, "hlo")
        os.remove(path)


def jax_case(hlo_opt, n, out, name, fn, args):
    """A pmap program over n devices with JAX's outputs."""
    case = os.path.join(out, f"jax.{name}")
    os.makedirs(case, exist_ok=True)
    expected = ct.leaves(jax.pmap(fn, axis_name="i")(*args))
    path = os.path.join(case, "m.pb")
    with open(path, "wb") as f:
        f.write(ct.device_module(fn, args))
    for k in range(n):
        for i, a in enumerate(ct.shard(ct.leaves(args), k)):
            np.save(os.path.join(case, f"in{i}.r{k}.npy"), a)
        for i, a in enumerate(ct.shard(expected, k)):
            np.save(os.path.join(case, f"out{i}.r{k}.npy"), a)
    compile_case(hlo_opt, path, case, n, "pb")
    os.remove(path)


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    hlo_opt, hlo_run, n, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        sys.argv[4]
    rng = np.random.default_rng(7)
    hand_written(hlo_opt, hlo_run, n, out, rng)
    ct.DEVICES = n
    for name, (fn, args) in ct.collective_cases(rng).items():
        # The grouped psum and the partial permute name 4 devices.
        if n != 4 and name in ("psum_groups", "ppermute_partial"):
            continue
        jax_case(hlo_opt, n, out, name, fn, args)
    # The data-parallel MLP step, a slice of the batch per device.
    batch, features, hidden, classes = 32, 10, 16, 5
    params = [rng.standard_normal((features, hidden)).astype(np.float32) * 0.3,
              np.zeros(hidden, np.float32) + 0.1,
              rng.standard_normal((hidden, classes)).astype(np.float32) * 0.3,
              np.zeros(classes, np.float32)]
    x = rng.standard_normal((batch, features)).astype(np.float32)
    y = np.eye(classes, dtype=np.float32)[rng.integers(0, classes, batch)]
    stacked = [np.stack([p] * n) for p in params]
    jax_case(hlo_opt, n, out, "mlp_data_parallel_step",
             ct.data_parallel_step,
             (stacked, x.reshape(n, batch // n, features),
              y.reshape(n, batch // n, classes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
