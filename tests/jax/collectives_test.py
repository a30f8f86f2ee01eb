#!/usr/bin/env python3
"""JAX's multi-device programs on hloc's replicated evaluator.

Each case is a jax.pmap over 4 CPU devices (XLA_FLAGS makes them, before
jax is imported). JAX compiles it for those devices; the test takes the
per-device HloModuleProto XLA:CPU runs (an SPMD program: num_partitions=4 in
its device assignment, the collectives with channel ids), writes device k's
inputs as in<i>.r<k>.npy and JAX's own outputs for device k as
out<i>.r<k>.npy, and runs `hlo-run --replicas=4` on the interpreter, which
must exit 0 (every device's outputs within the default tolerances).

The data-parallel MLP step: 4 devices, each with a quarter of the batch,
average their gradients with psum; the parameters hloc computes on every
device must equal those of the 1-device step on the whole batch (run through
hlo-run too) within f32 tolerance.

usage: collectives_test.py HLO_RUN
"""

import os
import subprocess
import sys
import tempfile

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=4")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

jax.config.update("jax_platforms", "cpu")

DEVICES = 4


def device_module(fn, args):
    """The per-device HloModuleProto XLA:CPU compiled for pmap(fn)(*args)."""
    compiled = jax.pmap(fn, axis_name="i").lower(*args).compile()
    modules = compiled.runtime_executable().hlo_modules()
    assert len(modules) == 1, len(modules)
    return modules[0].as_serialized_hlo_module_proto()


def leaves(tree):
    return [np.asarray(x) for x in jax.tree_util.tree_leaves(tree)]


def run_hlo_run(hlo_run, module_bytes, inputs, expected, workdir, replicas):
    """Writes the files and runs hlo-run; inputs[k][i] / expected[k][i] are
    device k's parameter / output i. Returns (exit code, text, outputs)."""
    os.makedirs(workdir, exist_ok=True)
    path = os.path.join(workdir, "module.pb")
    with open(path, "wb") as f:
        f.write(module_bytes)
    suffix = (lambda k: f".r{k}") if replicas else (lambda k: "")
    for k, device_inputs in enumerate(inputs):
        for i, value in enumerate(device_inputs):
            np.save(os.path.join(workdir, f"in{i}{suffix(k)}.npy"), value)
    for k, device_outputs in enumerate(expected):
        for i, value in enumerate(device_outputs):
            np.save(os.path.join(workdir, f"out{i}{suffix(k)}.npy"), value)
    outdir = os.path.join(workdir, "got")
    cmd = [hlo_run, path, "--inputs", workdir, "--expect", workdir,
           "--output", outdir]
    if replicas:
        cmd.append(f"--replicas={replicas}")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    outputs = []
    for k in range(len(inputs)):
        device = []
        i = 0
        while os.path.exists(os.path.join(outdir, f"out{i}{suffix(k)}.npy")):
            device.append(np.load(os.path.join(outdir,
                                               f"out{i}{suffix(k)}.npy")))
            i += 1
        outputs.append(device)
    return proc.returncode, proc.stdout + proc.stderr, outputs


def shard(arrays, k):
    """Device k's slice of pmap's stacked arguments or results."""
    return [a[k:k + 1] for a in arrays]


def check_pmap(hlo_run, name, fn, args, workdir):
    expected = leaves(jax.pmap(fn, axis_name="i")(*args))
    module = device_module(fn, args)
    code, text, _ = run_hlo_run(
        hlo_run, module,
        [shard(leaves(args), k) for k in range(DEVICES)],
        [shard(expected, k) for k in range(DEVICES)],
        os.path.join(workdir, name), DEVICES)
    if code != 0:
        print(f"FAIL {name}: hlo-run exit {code}\n{text}")
        return False
    print(f"ok   {name}")
    return True


def collective_cases(rng):
    x = rng.standard_normal((DEVICES, 8, 6)).astype(np.float32)
    xi = rng.integers(-50, 50, size=(DEVICES, 4, 3)).astype(np.int32)
    ring = [(k, (k + 1) % DEVICES) for k in range(DEVICES)]
    return {
        "psum": (lambda a: lax.psum(a, "i"), [x]),
        "psum_int": (lambda a: lax.psum(a, "i"), [xi]),
        "pmax": (lambda a: lax.pmax(a, "i"), [x]),
        "all_gather": (lambda a: lax.all_gather(a, "i"), [x]),
        "all_gather_axis1": (lambda a: lax.all_gather(a, "i", axis=1,
                                                      tiled=True), [x]),
        "ppermute_ring": (lambda a: lax.ppermute(a, "i", ring), [x]),
        # Devices 0 and 3 receive nothing: zeros.
        "ppermute_partial": (lambda a: lax.ppermute(a, "i", [(0, 1), (1, 2)]),
                             [x]),
        "psum_scatter": (lambda a: lax.psum_scatter(a, "i",
                                                    scatter_dimension=0,
                                                    tiled=True), [x]),
        "all_to_all": (lambda a: lax.all_to_all(a, "i", 0, 0, tiled=True),
                       [x]),
        "all_to_all_split0_concat1": (
            lambda a: lax.all_to_all(a, "i", 0, 1, tiled=True), [x]),
        # Groups of two: psum over axis_index_groups.
        "psum_groups": (lambda a: lax.psum(a, "i",
                                           axis_index_groups=[[0, 2], [1, 3]]),
                        [x]),
        "axis_index": (lambda a: a * lax.axis_index("i").astype(a.dtype),
                       [x]),
    }


def mlp_loss(params, x, y):
    w1, b1, w2, b2 = params
    logits = jnp.tanh(x @ w1 + b1) @ w2 + b2
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))


LEARNING_RATE = 0.1


def sgd(params, grads):
    return [p - LEARNING_RATE * g for p, g in zip(params, grads)]


def data_parallel_step(params, x, y):
    grads = jax.grad(mlp_loss)(params, x, y)
    return sgd(params, [lax.pmean(g, "i") for g in grads])


def whole_batch_step(params, x, y):
    return sgd(params, jax.grad(mlp_loss)(params, x, y))


def check_mlp(hlo_run, rng, workdir):
    batch, features, hidden, classes = 32, 10, 16, 5
    params = [rng.standard_normal((features, hidden)).astype(np.float32) * 0.3,
              np.zeros(hidden, np.float32) + 0.1,
              rng.standard_normal((hidden, classes)).astype(np.float32) * 0.3,
              np.zeros(classes, np.float32)]
    x = rng.standard_normal((batch, features)).astype(np.float32)
    labels = rng.integers(0, classes, size=batch)
    y = np.eye(classes, dtype=np.float32)[labels]

    # One device, the whole batch: jit's module through hlo-run.
    single = jax.jit(whole_batch_step)
    want = leaves(single(params, x, y))
    single_module = single.lower(params, x, y).compiler_ir(
        "hlo").as_serialized_hlo_module_proto()
    code, text, single_got = run_hlo_run(
        hlo_run, single_module, [list(params) + [x, y]], [want],
        os.path.join(workdir, "mlp_1"), 0)
    if code != 0:
        print(f"FAIL mlp whole batch: hlo-run exit {code}\n{text}")
        return False

    # Four devices, a quarter of the batch each, parameters replicated.
    stacked = [np.stack([p] * DEVICES) for p in params]
    xs = x.reshape(DEVICES, batch // DEVICES, features)
    ys = y.reshape(DEVICES, batch // DEVICES, classes)
    args = stacked + [xs, ys]
    pmap_want = leaves(jax.pmap(data_parallel_step, axis_name="i")(
        stacked, xs, ys))
    module = device_module(data_parallel_step, (stacked, xs, ys))
    code, text, got = run_hlo_run(
        hlo_run, module, [shard(args, k) for k in range(DEVICES)],
        [shard(pmap_want, k) for k in range(DEVICES)],
        os.path.join(workdir, "mlp_4"), DEVICES)
    if code != 0:
        print(f"FAIL mlp data parallel: hlo-run exit {code}\n{text}")
        return False
    ok = True
    for k in range(DEVICES):
        for i, (p4, p1) in enumerate(zip(got[k], single_got[0])):
            if not np.allclose(p4[0], p1, rtol=1e-5, atol=1e-6):
                print(f"FAIL mlp: device {k} parameter {i} differs from the "
                      f"whole-batch step by {np.max(np.abs(p4[0] - p1))}")
                ok = False
        # The step must have moved the parameters, or the check is empty.
        if np.allclose(got[k][0][0], params[0]):
            print(f"FAIL mlp: device {k} parameters did not change")
            ok = False
    if ok:
        print("ok   mlp: 4-device data-parallel step == 1-device step")
    return ok


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    hlo_run = os.path.abspath(sys.argv[1])
    assert len(jax.devices()) == DEVICES, jax.devices()
    rng = np.random.default_rng(15)
    ok = True
    with tempfile.TemporaryDirectory() as workdir:
        for name, (fn, args) in collective_cases(rng).items():
            ok &= check_pmap(hlo_run, name, fn, args, workdir)
        ok &= check_mlp(hlo_run, rng, workdir)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
