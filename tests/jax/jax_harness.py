"""What the JAX tests share: inputs, lowering, XLA:CPU's answers, hlo-run.

A case is a JAX function and its inputs. `write_case` lowers it with
jax.jit(f).lower(...) to a serialized HloModuleProto (module.pb) and to HLO
text (module.hlo), runs it on XLA:CPU in this process and writes inputs and
expected outputs as in<i>.npy / out<i>.npy, the layout hlo-run reads with
`--inputs DIR --expect DIR`. `run_tool` runs hlo-run or hlo-opt and returns
(exit status, output).

Importing this module selects JAX's CPU backend and turns on 64-bit types,
so s64/u64/f64 paths are exercised like the 32-bit ones.
"""

import os
import subprocess

import jax
import numpy as np

jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_enable_x64", True)


def floats(rng, shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def ints(rng, shape, low, high, dtype=np.int32):
    return rng.integers(low, high, size=shape, dtype=np.int64).astype(dtype)


def dims(rng, *ranges):
    """One random size per (low, high) range, both ends included."""
    return tuple(int(rng.integers(lo, hi + 1)) for lo, hi in ranges)


def prng_key(rng):
    """A raw (threefry, u32[2]) key: keys cross the jit boundary as data."""
    return np.asarray(jax.random.PRNGKey(int(rng.integers(0, 2**31))))


def complexes(rng, shape, dtype=np.complex64):
    return (rng.standard_normal(shape)
            + 1j * rng.standard_normal(shape)).astype(dtype)


def shapes_of(inputs):
    """`float32[3, 4], int32[]`-like summary of the inputs' leaves."""
    return ", ".join(f"{np.asarray(x).dtype}{list(np.shape(x))}"
                     for x in jax.tree_util.tree_leaves(inputs))


def write_case(case_dir, fn, inputs):
    """Lowers fn on inputs into case_dir and writes XLA:CPU's outputs.

    inputs are fn's positional arguments, pytrees allowed: the module's
    parameters are their leaves in JAX's flattening order, in<i>.npy each.
    Returns the number of outputs (the leaves of fn's result).
    """
    os.makedirs(case_dir, exist_ok=True)
    # keep_unused: an argument fn ignores stays a parameter, so the module's
    # parameters are exactly the inputs' leaves.
    jitted = jax.jit(fn, keep_unused=True)
    lowered = jitted.lower(*inputs)
    with open(os.path.join(case_dir, "module.pb"), "wb") as f:
        f.write(lowered.compiler_ir("hlo").as_serialized_hlo_module_proto())
    with open(os.path.join(case_dir, "module.hlo"), "w") as f:
        f.write(lowered.as_text(dialect="hlo"))
    for i, x in enumerate(jax.tree_util.tree_leaves(inputs)):
        np.save(os.path.join(case_dir, f"in{i}.npy"), np.asarray(x))
    expected = jax.tree_util.tree_leaves(jitted(*inputs))
    for i, y in enumerate(expected):
        np.save(os.path.join(case_dir, f"out{i}.npy"), np.asarray(y))
    return len(expected)


def run_tool(cmd, timeout=300):
    """Runs one hlo-run / hlo-opt command: (exit status, stdout + stderr)."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", f"timed out after {timeout} s: {' '.join(cmd)}"
    return proc.returncode, proc.stdout + proc.stderr


def hlo_run(hlo_run_path, case_dir, platform, module="module.pb",
            extra=()):
    """hlo-run on case_dir's module against XLA:CPU's outputs there."""
    return run_tool([hlo_run_path, os.path.join(case_dir, module),
                     "--platform=" + platform, "--inputs", case_dir,
                     "--expect", case_dir] + list(extra))


def hlo_opt_verify(hlo_opt_path, case_dir, pipeline, module="module.pb"):
    """The pipeline's HLO passes with the verifier after every one (hlo-opt
    verifies between passes unless told --no-verify-each)."""
    return run_tool([hlo_opt_path, os.path.join(case_dir, module),
                     "--platform=" + pipeline, "--stage=hlo"])


def judge(rc, out, expected_failure=None):
    """'ok', 'known' (failed, printing expected_failure) or what went wrong.

    A run recorded as failing must keep failing that way: a pass, or a
    different failure, is reported so the record gets updated.
    """
    if expected_failure is None:
        return "ok" if rc == 0 else f"exit {rc}"
    if rc == 0:
        return "passes, but is recorded as failing: remove the record"
    if expected_failure not in out:
        return f"exit {rc}, not the recorded failure ({expected_failure!r})"
    return "known"


def shard_of(names):
    """This Bazel shard's part of names (all of them when not sharded):
    every Nth, so that each shard gets a mix."""
    total = int(os.environ.get("TEST_TOTAL_SHARDS", "1"))
    index = int(os.environ.get("TEST_SHARD_INDEX", "0"))
    if "TEST_SHARD_STATUS_FILE" in os.environ:
        # Tells Bazel this test understands sharding.
        open(os.environ["TEST_SHARD_STATUS_FILE"], "w").close()
    return [n for i, n in enumerate(names) if i % total == index]
