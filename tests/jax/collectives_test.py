#!/usr/bin/env python3
"""JAX's multi-device programs on hloc's replicated runs.

Each pmap case is a jax.pmap over 4 CPU devices (XLA_FLAGS makes them,
before jax is imported). JAX compiles it for those devices; the test takes
the per-device HloModuleProto XLA:CPU runs (an SPMD program: num_partitions=4
in its device assignment, the collectives with channel ids), writes device
k's inputs as in<i>.r<k>.npy and JAX's own outputs for device k as
out<i>.r<k>.npy, and runs `hlo-run --replicas=4` on the interpreter and on
the cpu (one thread per device, host collectives), which must exit 0 (every
device's outputs within the default tolerances).

The SPMD cases do the same for jax.shard_map programs over a mesh of the 4
CPU devices (1-D, and 2x2 with a sum over one axis): the compiled module has
num_partitions=4, partition-id and channel-id collectives; device k's inputs
and outputs are the shards JAX put on device k. (jax.jit with shardings is
not among them: GSPMD's collectives carry mesh-axes replica groups, which
the proto importer does not read yet.)

The data-parallel MLP step: 4 devices, each with a quarter of the batch,
average their gradients with psum; the parameters hloc computes on every
device must equal those of the 1-device step on the whole batch (run through
hlo-run too) within f32 tolerance, on each platform.

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
from jax.sharding import Mesh, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

jax.config.update("jax_platforms", "cpu")

DEVICES = 4
PLATFORMS = ["interpreter", "cpu"]


def device_module(fn, args):
    """The per-device HloModuleProto XLA:CPU compiled for pmap(fn)(*args)."""
    compiled = jax.pmap(fn, axis_name="i").lower(*args).compile()
    modules = compiled.runtime_executable().hlo_modules()
    assert len(modules) == 1, len(modules)
    return modules[0].as_serialized_hlo_module_proto()


def leaves(tree):
    return [np.asarray(x) for x in jax.tree_util.tree_leaves(tree)]


def run_hlo_run(hlo_run, module_bytes, inputs, expected, workdir, replicas,
                platform):
    """Writes the files and runs hlo-run on `platform`; inputs[k][i] /
    expected[k][i] are device k's parameter / output i. Returns (exit code,
    text, outputs)."""
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
    cmd = [hlo_run, path, f"--platform={platform}", "--inputs", workdir,
           "--expect", workdir, "--output", outdir]
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


def check_on_platforms(hlo_run, name, module, inputs, expected, workdir):
    """Runs a multi-device module on every platform of PLATFORMS."""
    ok = True
    for platform in PLATFORMS:
        code, text, _ = run_hlo_run(hlo_run, module, inputs, expected,
                                    os.path.join(workdir, name, platform),
                                    DEVICES, platform)
        if code != 0:
            print(f"FAIL {name} ({platform}): hlo-run exit {code}\n{text}")
            ok = False
        else:
            print(f"ok   {name} ({platform})")
    return ok


def check_pmap(hlo_run, name, fn, args, workdir):
    expected = leaves(jax.pmap(fn, axis_name="i")(*args))
    return check_on_platforms(
        hlo_run, name, device_module(fn, args),
        [shard(leaves(args), k) for k in range(DEVICES)],
        [shard(expected, k) for k in range(DEVICES)], workdir)


def device_shards(array):
    """The shard of a jax.Array on each device, in device id order (the
    partition order of meshes made from jax.devices())."""
    shards = sorted(array.addressable_shards, key=lambda s: s.device.id)
    assert [s.device.id for s in shards] == list(range(DEVICES))
    return [np.asarray(s.data) for s in shards]


def check_spmd(hlo_run, name, fn, args, shardings, workdir):
    """fn (jitted) on args placed with shardings: XLA:CPU's partitioned
    module, each device's input and output shards."""
    placed = [jax.device_put(a, s) for a, s in zip(args, shardings)]
    out = jax.tree_util.tree_leaves(fn(*placed))
    modules = fn.lower(*placed).compile().runtime_executable().hlo_modules()
    assert len(modules) == 1, len(modules)
    module = modules[0].as_serialized_hlo_module_proto()
    inputs = [device_shards(a) for a in placed]
    outputs = [device_shards(o) for o in out]
    return check_on_platforms(
        hlo_run, name, module,
        [[a[k] for a in inputs] for k in range(DEVICES)],
        [[o[k] for o in outputs] for k in range(DEVICES)], workdir)


def spmd_cases(rng):
    """(jitted fn, arguments, their shardings) per case."""
    mesh = Mesh(np.array(jax.devices()), ("i",))
    grid = Mesh(np.array(jax.devices()).reshape(2, 2), ("a", "b"))
    rows = NamedSharding(mesh, P("i"))
    x = rng.standard_normal((16, 6)).astype(np.float32)
    xi = rng.integers(-50, 50, size=(8, 4)).astype(np.int32)
    a8 = rng.standard_normal((16, 8)).astype(np.float32)
    w = rng.standard_normal((8, 3)).astype(np.float32)

    # check_vma=False: an all_gather's result is the same on every device,
    # which JAX does not infer for out_specs=P().
    def smap(f, in_specs, out_specs, on=mesh):
        return jax.jit(jax.shard_map(f, mesh=on, in_specs=in_specs,
                                     out_specs=out_specs, check_vma=False))

    ring = [(k, (k + 1) % DEVICES) for k in range(DEVICES)]
    return {
        "shard_map_psum": (smap(lambda a: lax.psum(a, "i"), P("i"), P()),
                           [x], [rows]),
        "shard_map_psum_int": (smap(lambda a: lax.psum(a, "i"), P("i"), P()),
                               [xi], [rows]),
        "shard_map_all_gather": (
            smap(lambda a: lax.all_gather(a, "i", tiled=True), P("i"), P()),
            [x], [rows]),
        "shard_map_all_gather_axis1": (
            smap(lambda a: lax.all_gather(a, "i", axis=1, tiled=True),
                 P("i"), P("i")), [x], [rows]),
        "shard_map_ppermute": (
            smap(lambda a: lax.ppermute(a, "i", ring), P("i"), P("i")),
            [x], [rows]),
        "shard_map_psum_scatter": (
            smap(lambda a: lax.psum_scatter(a, "i", tiled=True), P("i"),
                 P("i")), [x], [rows]),
        "shard_map_all_to_all": (
            smap(lambda a: lax.all_to_all(a, "i", 0, 1, tiled=True), P("i"),
                 P("i")), [x], [rows]),
        "shard_map_axis_index": (
            smap(lambda a: a * lax.axis_index("i").astype(a.dtype), P("i"),
                 P("i")), [x], [rows]),
        # A 2x2 mesh: a sum over "b" only, groups {0,1} and {2,3}.
        "shard_map_grid_psum_b": (
            smap(lambda a: lax.psum(a, "b"), P("a", "b"), P("a", None), grid),
            [x], [NamedSharding(grid, P("a", "b"))]),
        # jit with shardings, no shard_map: the partitioner's collectives,
        # their replica groups given by mesh axes.
        "jit_grid_row_sum": (
            jax.jit(lambda a: jnp.sum(a, axis=1),
                    out_shardings=NamedSharding(grid, P("a"))),
            [x], [NamedSharding(grid, P("a", "b"))]),
        "jit_sharded_contraction": (
            jax.jit(lambda a, w: jnp.tanh(a @ w),
                    out_shardings=NamedSharding(mesh, P())),
            [a8, w], [NamedSharding(mesh, P(None, "i")),
                     NamedSharding(mesh, P("i", None))]),
    }


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


def check_mlp(hlo_run, rng, workdir, platform):
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
        os.path.join(workdir, "mlp_1", platform), 0, platform)
    if code != 0:
        print(f"FAIL mlp whole batch ({platform}): hlo-run exit {code}\n"
              f"{text}")
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
        os.path.join(workdir, "mlp_4", platform), DEVICES, platform)
    if code != 0:
        print(f"FAIL mlp data parallel ({platform}): hlo-run exit {code}\n"
              f"{text}")
        return False
    ok = True
    for k in range(DEVICES):
        for i, (p4, p1) in enumerate(zip(got[k], single_got[0])):
            if not np.allclose(p4[0], p1, rtol=1e-5, atol=1e-6):
                print(f"FAIL mlp ({platform}): device {k} parameter {i} "
                      f"differs from the whole-batch step by "
                      f"{np.max(np.abs(p4[0] - p1))}")
                ok = False
        # The step must have moved the parameters, or the check is empty.
        if np.allclose(got[k][0][0], params[0]):
            print(f"FAIL mlp ({platform}): device {k} parameters did not "
                  "change")
            ok = False
    if ok:
        print(f"ok   mlp ({platform}): 4-device data-parallel step == "
              "1-device step")
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
        for name, (fn, args, shardings) in spmd_cases(rng).items():
            ok &= check_spmd(hlo_run, name, fn, args, shardings, workdir)
        for platform in PLATFORMS:
            # The same parameters and batch on every platform.
            ok &= check_mlp(hlo_run, np.random.default_rng(16), workdir,
                            platform)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
