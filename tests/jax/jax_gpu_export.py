#!/usr/bin/env python3
"""The JAX live test's GPU mode, first half: lower on the GPU machine.

Runs on the GPU machine (JAX with its CUDA plugin, no hloc build there). For
every case of jax_live_test.py and a few seeded trials, lowers the function
with JAX *for the GPU* (jax.jit(f).lower(...) with the CUDA backend, so the
module is the one XLA:GPU compiles), runs it with XLA:GPU, and writes

  DIR/NAME.TRIAL/module.pb    the HloModuleProto JAX hands XLA:GPU
  DIR/NAME.TRIAL/in<i>.npy    the inputs
  DIR/NAME.TRIAL/out<i>.npy   XLA:GPU's outputs

The second half happens back on the development machine: each module.pb is
compiled by hloc for cuda (scripts/gpu_bundle.sh), and the bundle's runner
compares hloc's outputs on the GPU with these (tests/jax/README.md).

usage: jax_gpu_export.py DIR [--seed N] [--trials N] [--only SUBSTRING]
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jax_live_test  # noqa: E402  (its CASES; it selects the CPU on import)

import jax  # noqa: E402

# jax_live_test asks for the CPU; no backend has started yet, so this wins.
jax.config.update("jax_platforms", "cuda")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--seed", type=int, default=20261121)
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    device = jax.devices()[0]
    print(f"lowering for {device.device_kind} with jax {jax.__version__}")
    count = 0
    for name, (fn, make_args) in jax_live_test.CASES.items():
        if args.only not in name:
            continue
        for trial in range(args.trials):
            rng = np.random.default_rng([args.seed, trial,
                                         sum(map(ord, name))])
            inputs = make_args(rng)
            case_dir = os.path.join(args.dir, f"{name}.{trial}")
            os.makedirs(case_dir, exist_ok=True)
            try:
                lowered = jax.jit(fn).lower(*inputs)
                expected = jax.tree_util.tree_leaves(jax.jit(fn)(*inputs))
            except Exception as e:  # Reported; the case is left out.
                print(f"{name}.{trial}: cannot lower or run on the GPU: "
                      f"{type(e).__name__}: {e}")
                continue
            with open(os.path.join(case_dir, "module.pb"), "wb") as f:
                f.write(lowered.compiler_ir("hlo")
                        .as_serialized_hlo_module_proto())
            for i, x in enumerate(inputs):
                np.save(os.path.join(case_dir, f"in{i}.npy"), np.asarray(x))
            for i, y in enumerate(expected):
                np.save(os.path.join(case_dir, f"out{i}.npy"), np.asarray(y))
            count += 1
    print(f"{count} cases lowered and run with XLA:GPU into {args.dir}")
    return 0 if count else 1


if __name__ == "__main__":
    sys.exit(main())
