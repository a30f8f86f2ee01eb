#!/usr/bin/env python3
"""hloc.jit(platform="cuda") compiling on the GPU machine, in one process.

Every function here is lowered by JAX, compiled by hloc's cuda backend
(the pipeline, LLVM to PTX, ptxas to a cubin where it is found) and run by
hloc's cuda runtime in this process: no executable is compiled elsewhere
(the GPU machine's bundle with the compiler: scripts/gpu_python_bundle.sh
--compiler). Each result is compared with jax.jit's on the same GPU, on
fresh random inputs.

Checked: elementwise and reduction functions, dots, pytrees in and out and
static arguments, a small MLP's training step iterated; JAX GPU arrays in
(read in place: no host transfer), JAX GPU arrays out; the caches (a
second call neither lowers nor compiles, a new shape or static value does,
the same module from a new function is a memory hit); the time of a first
call (lower + compile + load) and of later calls, against jax.jit's.

Skips, saying why, where JAX sees no GPU or this hloc has no compiler (the
runtime-only bundle). HLOC_JIT_TEST_PLATFORM=cpu runs the same checks on
hloc's cpu platform against jax.jit on the CPU (a dry run of the test
where there is no GPU; results are then NumPy arrays).

usage: PYTHONPATH=<site> python3 tests/gpu_python/gpu_python_jit_test.py
"""

import functools
import os
import time
import unittest

import jax
import jax.numpy as jnp
import numpy as np

import hloc

_PLATFORM = os.environ.get("HLOC_JIT_TEST_PLATFORM", "cuda")


def _device():
    if _PLATFORM != "cuda":
        return jax.devices("cpu")[0]
    try:
        return jax.devices("gpu")[0]
    except RuntimeError as e:
        return str(e)


_DEVICE = _device()
if isinstance(_DEVICE, str):
    _SKIP = (f"no GPU visible to JAX ({_DEVICE}): these tests run on the "
             "GPU machine")
elif hloc._program._hloc is None:
    _SKIP = f"this hloc has no compiler: {hloc._program._NO_COMPILER}"
else:
    _SKIP = None

# Per-function timings, printed at the end: name -> (first call s,
# median later call s, jax.jit median s).
_TIMINGS = {}


def _relative_error(out, ref):
    out = np.asarray(out).astype(np.float64)
    ref = np.asarray(ref).astype(np.float64)
    scale = np.linalg.norm(ref.ravel())
    return np.linalg.norm((out - ref).ravel()) / (scale if scale else 1.0)


def _random(shape, seed, dtype=np.float32):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "i":
        return rng.integers(-1000, 1000, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _median(call, repeats=50):
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _ready(tree):
    return jax.block_until_ready(tree)


# The functions. Elementwise, reductions, their mixes.
def scale_shift(x):
    return x * 2.0 + 1.0


def chain(x):
    return jnp.tanh(x) * 2.0 + jnp.exp(-x) * x - 1.0


def reductions(x):
    return jnp.sum(x, axis=1), jnp.max(x, axis=0), jnp.mean(x)


def softmax(x):
    z = x - jnp.max(x, axis=-1, keepdims=True)
    e = jnp.exp(z)
    return e / jnp.sum(e, axis=-1, keepdims=True)


def int_ops(a, b):
    return a * b + (a >> 1), jnp.sum(a < b)


def dot(x, w):
    return x @ w


def dense(x, w, b):
    return jnp.tanh(jnp.dot(x, w) + b)


def batched(a, b):
    return jnp.einsum("bij,bjk->bik", a, b)


# Pytrees and statics.
def layer(params, x, activation="tanh", repeat=1):
    y = x
    for _ in range(repeat):
        y = y @ params["w"] + params["b"]
        y = jnp.tanh(y) if activation == "tanh" else jax.nn.relu(y)
    return {"out": y, "stats": (jnp.mean(y), jnp.max(y))}


# A small MLP and its training step (SGD on a mean squared error).
def _mlp_init(seed, sizes):
    params = []
    for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:])):
        w = _random((m, n), seed + i) * np.float32(1.0 / np.sqrt(m))
        params.append({"w": w, "b": np.zeros((n,), np.float32) + 0.01})
    return params


def _mlp(params, x):
    for p in params[:-1]:
        x = jnp.tanh(x @ p["w"] + p["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def _loss(params, x, y):
    return jnp.mean((_mlp(params, x) - y) ** 2)


def train_step(params, x, y, learning_rate):
    loss, grads = jax.value_and_grad(_loss)(params, x, y)
    params = jax.tree_util.tree_map(lambda p, g: p - learning_rate * g,
                                    params, grads)
    return params, loss


# name: (function, [(shape, dtype)], relative tolerance on the norm).
# f32 dots: tf32 on either side (hloc's cuBLAS(Lt) calls and XLA:GPU's).
CASES = {
    "scale_shift": (scale_shift, [((8,), np.float32)], 1e-6),
    "chain": (chain, [((1024, 1024), np.float32)], 1e-5),
    "reductions": (reductions, [((512, 1000), np.float32)], 1e-5),
    "softmax": (softmax, [((256, 1000), np.float32)], 1e-5),
    "int_ops": (int_ops, [((1000,), np.int32), ((1000,), np.int32)], 0.0),
    "dot": (dot, [((256, 512), np.float32), ((512, 384), np.float32)], 5e-3),
    "dense": (dense, [((128, 256), np.float32), ((256, 64), np.float32),
                      ((64,), np.float32)], 5e-3),
    "batched": (batched, [((8, 64, 32), np.float32),
                          ((8, 32, 48), np.float32)], 5e-3),
}


@unittest.skipIf(_SKIP is not None, _SKIP)
class GpuPythonJitTest(unittest.TestCase):

    def put(self, x):
        return jax.device_put(x, _DEVICE)

    def check_result(self, name, ours, theirs, tolerance):
        ours_leaves, ours_tree = jax.tree_util.tree_flatten(ours)
        theirs_leaves, theirs_tree = jax.tree_util.tree_flatten(theirs)
        self.assertEqual(ours_tree, theirs_tree, name)
        for i, (a, b) in enumerate(zip(ours_leaves, theirs_leaves)):
            where = f"{name} result {i}"
            if _PLATFORM == "cuda":
                # Device arrays out, on the GPU the arguments were on.
                self.assertIsInstance(a, jax.Array, where)
                self.assertEqual(a.devices(), {_DEVICE}, where)
            self.assertEqual(a.shape, b.shape, where)
            self.assertEqual(np.dtype(a.dtype), np.dtype(b.dtype), where)
            error = _relative_error(a, b)
            self.assertFalse(np.isnan(error), f"{where}: NaN")
            self.assertLessEqual(error, tolerance, where)

    @staticmethod
    def program(f):
        # The compiled program of a Jitted's one signature.
        (entry,) = f._dispatch.values()
        return entry.program

    def test_cases_match_jax(self):
        for name, (fn, specs, tolerance) in CASES.items():
            f = hloc.jit(fn, platform=_PLATFORM)
            reference = jax.jit(fn)
            xs = [self.put(_random(s, 100 + i, d))
                  for i, (s, d) in enumerate(specs)]
            compilations = hloc.cache_stats()["compilations"]
            start = time.perf_counter()
            first = _ready(f(*xs))
            first_call = time.perf_counter() - start
            self.assertEqual(hloc.cache_stats()["compilations"],
                             compilations + 1, name)
            self.check_result(name, first, reference(*xs), tolerance)
            program = self.program(f)
            for seed in (1, 2):
                # Fresh inputs: a stale result cannot pass.
                xs = [self.put(_random(s, 10 * seed + i, d))
                      for i, (s, d) in enumerate(specs)]
                cuda = _PLATFORM == "cuda"
                transfers = program.host_transfers if cuda else 0
                out = f(*xs)
                if cuda:
                    self.assertEqual(program.host_transfers, transfers,
                                     f"{name}: a host transfer")
                    self.assertEqual(
                        list(program.last_parameter_addresses),
                        [x.unsafe_buffer_pointer() for x in xs],
                        f"{name}: the JAX buffers were not read in place")
                self.check_result(name, out, reference(*xs), tolerance)
            self.assertEqual(f.lowerings, 1, name)
            self.assertEqual(hloc.cache_stats()["compilations"],
                             compilations + 1, name)
            ours = _median(lambda: _ready(f(*xs)))
            theirs = _median(lambda: _ready(reference(*xs)))
            _TIMINGS[name] = (first_call, ours, theirs)
            code = getattr(program, "loaded_code", "")
            print(f"  {name}: matches jax.jit; first call {first_call:.3f} s "
                  f"(lower + compile + load), then {ours * 1e6:.1f} us "
                  f"(jax.jit {theirs * 1e6:.1f} us) {code}", flush=True)

    def test_numpy_arguments(self):
        # Host arrays are copied in, as jax.jit copies them; the results
        # are still the platform's arrays.
        fn, specs, tolerance = CASES["dense"]
        f = hloc.jit(fn, platform=_PLATFORM)
        xs = [_random(s, 30 + i, d) for i, (s, d) in enumerate(specs)]
        self.check_result("dense from NumPy", f(*xs),
                          jax.jit(fn)(*[self.put(x) for x in xs]), tolerance)

    def test_pytrees_and_static_arguments(self):
        f = hloc.jit(layer, platform=_PLATFORM, static_argnames=("activation",),
                     static_argnums=(3,))
        # jax.jit infers positions from names only when given no
        # positions; hloc.jit merges both (its _check_static).
        reference = jax.jit(layer, static_argnames=("activation", "repeat"),
                            static_argnums=(2, 3))
        params = {"w": self.put(_random((64, 64), 40) / 8),
                  "b": self.put(_random((64,), 41))}
        x = self.put(_random((32, 64), 42))
        compilations = hloc.cache_stats()["compilations"]
        calls = [((params, x), {"activation": "tanh"}),
                 ((params, x, "tanh", 1), {}),
                 ((params, x), {"activation": "relu"}),
                 ((params, x, "tanh", 3), {})]
        for args, kwargs in calls:
            self.check_result(f"layer{kwargs or args[2:]}", f(*args, **kwargs),
                              reference(*args, **kwargs), 5e-3)
        # Positional and keyword statics are separate signatures (as in
        # jax.jit's cache); each (tree, shapes, statics) lowers once.
        self.assertEqual(f.lowerings, 4)
        lowered_modules = hloc.cache_stats()["compilations"] - compilations
        # tanh by keyword and tanh, repeat=1 positionally lower to the same
        # module: compiled once (a memory hit the second time).
        self.assertEqual(lowered_modules, 3)
        for args, kwargs in calls:
            f(*args, **kwargs)
        self.assertEqual(f.lowerings, 4)
        self.assertEqual(hloc.cache_stats()["compilations"] - compilations, 3)
        # A pytree of another structure is another signature.
        with_tuple = hloc.jit(lambda p, xs: [layer(p, x)["out"] for x in xs],
                              platform=_PLATFORM)
        xs = (x, self.put(_random((16, 64), 43)))
        ours = with_tuple(params, xs)
        self.assertIsInstance(ours, list)
        self.check_result(
            "list of layers", ours,
            jax.jit(lambda p, xs: [layer(p, x)["out"] for x in xs])(params,
                                                                    xs), 5e-3)

    def test_cache(self):
        f = hloc.jit(chain, platform=_PLATFORM)
        before = hloc.cache_stats()
        x = self.put(_random((256, 128), 50))
        f(x)
        after_first = hloc.cache_stats()
        self.assertEqual(after_first["compilations"],
                         before["compilations"] + 1)
        # The second call: a dispatch-table hit, nothing lowered, nothing
        # compiled, not even a lookup in the program cache.
        self.check_result("chain again", f(self.put(_random((256, 128), 51))),
                          jax.jit(chain)(self.put(_random((256, 128), 51))),
                          1e-5)
        self.assertEqual(hloc.cache_stats(), after_first)
        self.assertEqual(f.lowerings, 1)
        # A new shape lowers and compiles.
        y = self.put(_random((64, 32), 52))
        self.check_result("chain, new shape", f(y), jax.jit(chain)(y), 1e-5)
        self.assertEqual(f.lowerings, 2)
        self.assertEqual(hloc.cache_stats()["compilations"],
                         before["compilations"] + 2)
        # Another function object, the same computation: lowered again but
        # not compiled (the module's fingerprint is in the memory cache).
        g = hloc.jit(chain, platform=_PLATFORM)
        g(x)
        stats = hloc.cache_stats()
        self.assertEqual(stats["compilations"], before["compilations"] + 2)
        self.assertEqual(stats["memory_hits"], before["memory_hits"] + 1)
        print(f"  cache: {hloc.cache_stats()}", flush=True)

    def test_mlp_training_steps(self):
        sizes = [32, 128, 128, 8]
        batch = 256
        x = self.put(_random((batch, sizes[0]), 60))
        target = self.put(np.sin(_random((batch, sizes[-1]), 61)))
        ours_step = hloc.jit(train_step, platform=_PLATFORM,
                             static_argnums=(3,))
        their_step = jax.jit(train_step, static_argnums=(3,))
        ours = jax.tree_util.tree_map(self.put, _mlp_init(62, sizes))
        theirs = jax.tree_util.tree_map(self.put, _mlp_init(62, sizes))
        compilations = hloc.cache_stats()["compilations"]
        losses = []
        steps = 8
        for step in range(steps):
            start = time.perf_counter()
            ours, our_loss = _ready(ours_step(ours, x, target, 0.1))
            if step == 0:
                first_call = time.perf_counter() - start
            theirs, their_loss = their_step(theirs, x, target, 0.1)
            losses.append((float(our_loss), float(their_loss)))
            self.check_result(f"training step {step}", (ours, our_loss),
                              (theirs, their_loss), 1e-2)
        # One lowering, one compilation for all the steps.
        self.assertEqual(ours_step.lowerings, 1)
        self.assertEqual(hloc.cache_stats()["compilations"], compilations + 1)
        # And it learns.
        self.assertLess(losses[-1][0], losses[0][0])
        step_time = _median(lambda: _ready(ours_step(ours, x, target, 0.1)),
                            repeats=20)
        their_time = _median(
            lambda: _ready(their_step(theirs, x, target, 0.1)), repeats=20)
        _TIMINGS["train_step"] = (first_call, step_time, their_time)
        print("  mlp training, loss per step (hloc, jax.jit): " +
              ", ".join(f"{a:.4f}/{b:.4f}" for a, b in losses), flush=True)
        print(f"  train_step: first call {first_call:.3f} s, then "
              f"{step_time * 1e6:.1f} us (jax.jit {their_time * 1e6:.1f} us)",
              flush=True)


def _summary():
    if not _TIMINGS:
        return
    print("\n| function | hloc.jit first call (lower+compile+load) | "
          "hloc.jit later call | jax.jit call |")
    print("|---|---|---|---|")
    for name, (first, ours, theirs) in _TIMINGS.items():
        print(f"| {name} | {first * 1e3:.0f} ms | {ours * 1e6:.1f} us | "
              f"{theirs * 1e6:.1f} us |")
    print(f"cache: {hloc.cache_stats()}")


if __name__ == "__main__":
    print(f"jax {jax.__version__}, platform {_PLATFORM}, device {_DEVICE}, "
          f"compiler {'yes' if hloc._program._hloc is not None else 'no'}",
          flush=True)
    result = unittest.main(verbosity=2, exit=False).result
    _summary()
    raise SystemExit(0 if result.wasSuccessful() else 1)
