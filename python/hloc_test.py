#!/usr/bin/env python3
"""Tests of the hloc package against JAX's own XLA:CPU, in one process.

The JAX live test's functions (tests/jax/jax_live_test.py, CASES) run
through hloc.jit and jax.jit on the same inputs; then pytrees, static
arguments, dtypes, a training step iterated with its parameters fed back,
the compilation cache (memory and disk), and bad input, which must raise
Python exceptions with clear messages.

usage: hloc_test.py SITE/hloc/__init__.py LIVE_TEST.py [unittest args]
"""

import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

# The package as Bazel built it (python:site), not whatever is installed.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    sys.argv.pop(1)))))
_LIVE_TEST = sys.argv.pop(1)

import hloc  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

# Importing the live test also turns on x64 (its cases use f64 and s64).
_spec = importlib.util.spec_from_file_location("jax_live_test", _LIVE_TEST)
live = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(live)

# rtol, atol per float type: hlo-run's accumulating column (README), since
# these functions reduce, dot and convolve.
_TOLERANCES = {
    np.dtype(np.float64): (1e-6, 1e-8),
    np.dtype(np.float32): (1e-4, 1e-5),
    np.dtype(np.float16): (2e-2, 1e-2),
    np.dtype(ml_dtypes.bfloat16): (5e-2, 5e-2),
    # One ulp of the 8-bit floats (a value computed in another order in f32
    # may round to the neighbour).
    np.dtype(ml_dtypes.float8_e4m3fn): (0.125, 1e-2),
    np.dtype(ml_dtypes.float8_e5m2): (0.25, 1e-2),
    np.dtype(np.complex64): (1e-4, 1e-5),
    # FFTs (FFTW here, DUCC in XLA) round differently.
    np.dtype(np.complex128): (1e-6, 1e-8),
}


def assert_matches(test, actual, expected, what, computed_in=()):
    """hloc's result against XLA's: same tree, dtypes and shapes; floats
    within tolerance (NaN matches NaN), everything else exactly.

    computed_in: the dtypes of the arguments. A float result gets the
    tolerance of the least precise of them and its own dtype, as hlo-run
    gives a module's outputs (runtime/compare.h): an f32 result of f16
    arithmetic carries f16 roundings, and XLA:CPU rounds f16 arithmetic
    differently on CPUs with AVX512-FP16 (fused, natively in f16)."""
    actual_leaves, actual_tree = jax.tree_util.tree_flatten(actual)
    expected_leaves, expected_tree = jax.tree_util.tree_flatten(expected)
    test.assertEqual(actual_tree, expected_tree, what)
    for i, (a, e) in enumerate(zip(actual_leaves, expected_leaves)):
        e = np.asarray(e)
        test.assertIsInstance(a, np.ndarray, f"{what} leaf {i}")
        test.assertEqual(a.dtype, e.dtype, f"{what} leaf {i}")
        test.assertEqual(a.shape, e.shape, f"{what} leaf {i}")
        if e.dtype in _TOLERANCES:
            rows = [e.dtype]
            if e.dtype.kind == "f":
                rows += [d for d in map(np.dtype, computed_in)
                         if d in _TOLERANCES]
            rtol, atol = max(_TOLERANCES[d] for d in rows)
            # A sum's rounding error scales with the terms summed, not with
            # the (possibly near-zero) partial sum: as runtime/compare.h,
            # atol is at least the elementwise rtol times max |expected|.
            if e.size and e.dtype.kind == "f":
                finite = np.abs(e[np.isfinite(e)].astype(np.float64))
                if finite.size:
                    atol = max(atol, rtol / 10 * float(finite.max()))
            np.testing.assert_allclose(
                a.astype(np.float64) if e.dtype.kind == "f" else a,
                e.astype(np.float64) if e.dtype.kind == "f" else e,
                rtol=rtol, atol=atol, equal_nan=True,
                err_msg=f"{what} leaf {i}")
        else:
            np.testing.assert_array_equal(a, e, err_msg=f"{what} leaf {i}")


class LiveCasesTest(unittest.TestCase):
    """Every case of the JAX live test, hloc.jit against jax.jit."""

    def check_platform(self, platform, names):
        for name in names:
            fn, make_args = live.CASES[name]
            rng = np.random.default_rng([7, sum(map(ord, name))])
            inputs = make_args(rng)
            with self.subTest(case=name, platform=platform):
                actual = hloc.jit(fn, platform=platform)(*inputs)
                assert_matches(self, actual, jax.jit(fn)(*inputs),
                               f"{name} on {platform}",
                               computed_in=[np.asarray(x).dtype for x in
                                            jax.tree_util.tree_leaves(
                                                inputs)])

    def test_cpu(self):
        self.check_platform("cpu", live.CASES)

    def test_interpreter(self):
        self.check_platform("interpreter", ["chain5", "softmax", "f16_bf16",
                                            "while_cond_switch", "mlp"])


class PytreeAndStaticTest(unittest.TestCase):

    def test_pytrees_both_ways(self):
        def f(params, batch, *, scale):
            h = jnp.tanh(batch["x"] @ params["w"] + params["b"]) * scale
            return {"h": h, "stats": (params["b"] * 2,
                                      [batch["x"].sum(axis=0)])}

        params, batch = self.tree_inputs()
        for platform in ("cpu", "interpreter"):
            assert_matches(
                self, hloc.jit(f, platform=platform)(params, batch, scale=0.5),
                jax.jit(f)(params, batch, scale=0.5), f"pytree on {platform}")

    @staticmethod
    def tree_inputs():
        rng = np.random.default_rng(1)
        params = {"w": rng.standard_normal((5, 3), np.float32),
                  "b": rng.standard_normal((3,), np.float32)}
        batch = {"x": rng.standard_normal((4, 5), np.float32)}
        return params, batch

    # Multi-output fusion around reductions of a value that is also
    # returned (h.mean/max/min with h) once left an operand after its user.
    def test_sibling_reductions_of_a_returned_value(self):
        def f(params, batch):
            h = jnp.tanh(batch["x"] @ params["w"] + params["b"]) * 0.5
            return {"h": h, "stats": (h.mean(), [h.max(), h.min()])}

        params, batch = self.tree_inputs()
        assert_matches(self, hloc.jit(f, platform="interpreter")(
            params, batch), jax.jit(f)(params, batch), "interpreter")
        assert_matches(self, hloc.jit(f)(params, batch),
                       jax.jit(f)(params, batch), "cpu")

    def test_static_argnums_and_argnames(self):
        def f(x, n, *, mode):
            for _ in range(n):
                x = jnp.sin(x) if mode == "sin" else jnp.cos(x)
            return x

        x = np.linspace(-1, 1, 7, dtype=np.float32)
        for jitted in (hloc.jit(f, static_argnums=1, static_argnames="mode"),
                       hloc.jit(f, static_argnames=("n", "mode"))):
            before = hloc.cache_stats()["compilations"]
            for n, mode in ((2, "sin"), (3, "sin"), (2, "cos"), (2, "sin")):
                assert_matches(
                    self, jitted(x, n, mode=mode),
                    jax.jit(f, static_argnums=1, static_argnames="mode")(
                        x, n, mode=mode), f"n={n} mode={mode}")
            # Three distinct static values, three lowerings; the repeat
            # is served from the function's dispatch table.
            self.assertEqual(jitted.lowerings, 3)
            self.assertLessEqual(hloc.cache_stats()["compilations"] - before,
                                 3)

    def test_unhashable_static_argument(self):
        f = hloc.jit(lambda x, n: x * len(n), static_argnums=1)
        with self.assertRaisesRegex(TypeError, "hashable"):
            f(np.ones(3, np.float32), [1, 2])

    def test_dtypes(self):
        def f(a, b):
            return a * b + a, jnp.maximum(a, b), (a > b)

        rng = np.random.default_rng(2)
        for dtype in (np.float32, np.float64, ml_dtypes.bfloat16, np.int32,
                      ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2):
            with self.subTest(dtype=np.dtype(dtype).name):
                a = rng.uniform(-4, 4, (3, 9)).astype(dtype)
                b = rng.uniform(-4, 4, (3, 9)).astype(dtype)
                assert_matches(self, hloc.jit(f)(a, b), jax.jit(f)(a, b),
                               np.dtype(dtype).name)
        p = rng.integers(0, 2, (17,)).astype(bool)
        q = rng.integers(0, 2, (17,)).astype(bool)
        g = lambda p, q: (p & ~q, jnp.logical_xor(p, q).sum())  # noqa: E731
        assert_matches(self, hloc.jit(g)(p, q), jax.jit(g)(p, q), "bool")

    def test_sub_byte_integers_and_microscaling_floats(self):
        """int4 weight-only quantization (an int4 weight dequantized into a
        bf16 matmul, int4 arithmetic) and the MX conversions, taking and
        returning ml_dtypes arrays."""
        def f(w, s, x):
            deq = w.astype(jnp.bfloat16) * s
            return (x.astype(jnp.bfloat16) @ deq, w >> 1,
                    jnp.maximum(w, jnp.int4(-3)), w.astype(jnp.uint4),
                    x.astype(jnp.float4_e2m1fn),
                    jnp.abs(x).astype(jnp.float8_e8m0fnu))

        w = np.array([[-8, -1, 0, 7, 2], [3, -3, 5, -6, 1]],
                     ml_dtypes.int4).T.copy()
        s = np.array(0.125, ml_dtypes.bfloat16)
        x = np.array([[1.0, 2.5, -3.1, 7.0, 0.3]], np.float32)
        for platform in ("cpu", "interpreter"):
            with self.subTest(platform=platform):
                assert_matches(self, hloc.jit(f, platform=platform)(w, s, x),
                               jax.jit(f)(w, s, x), platform)

    def test_jax_arrays_and_python_scalars(self):
        f = lambda x, s: x * s + 1  # noqa: E731
        x = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)
        assert_matches(self, hloc.jit(f)(x, 2.5), jax.jit(f)(x, 2.5),
                       "jax array and a Python float")

    def test_training_step(self):
        """value_and_grad of an MLP's loss, five SGD steps with the
        parameters fed back, against the same steps under jax.jit."""
        def loss(params, x, y):
            h = jax.nn.relu(x @ params["w1"] + params["b1"])
            out = h @ params["w2"] + params["b2"]
            return jnp.mean((out - y) ** 2)

        def step(params, x, y):
            value, grads = jax.value_and_grad(loss)(params, x, y)
            new = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params,
                                         grads)
            return new, value

        rng = np.random.default_rng(3)
        params = {
            "w1": rng.standard_normal((8, 16), np.float32) * 0.3,
            "b1": np.zeros(16, np.float32),
            "w2": rng.standard_normal((16, 2), np.float32) * 0.3,
            "b2": np.zeros(2, np.float32),
        }
        x = rng.standard_normal((32, 8), np.float32)
        y = rng.standard_normal((32, 2), np.float32)
        ours, theirs = params, params
        hloc_step, jax_step = hloc.jit(step), jax.jit(step)
        losses = []
        for i in range(5):
            ours, our_loss = hloc_step(ours, x, y)
            theirs, their_loss = jax_step(theirs, x, y)
            assert_matches(self, (ours, our_loss), (theirs, their_loss),
                           f"step {i}")
            losses.append(float(our_loss))
        self.assertLess(losses[-1], losses[0])
        self.assertEqual(hloc_step.lowerings, 1)


class CacheTest(unittest.TestCase):

    def test_same_shapes_do_not_compile_again(self):
        def f(x):
            return jnp.exp(x) * 3 - x
        jitted = hloc.jit(f)
        before = hloc.cache_stats()["compilations"]
        jitted(np.ones(5, np.float32))
        self.assertEqual(hloc.cache_stats()["compilations"], before + 1)
        jitted(np.zeros(5, np.float32))
        jitted(jnp.ones(5, jnp.float32))
        self.assertEqual(hloc.cache_stats()["compilations"], before + 1)
        self.assertEqual(jitted.lowerings, 1)
        jitted(np.ones(6, np.float32))  # a new shape
        self.assertEqual(hloc.cache_stats()["compilations"], before + 2)
        jitted(np.ones(6, np.float64))  # a new dtype
        self.assertEqual(hloc.cache_stats()["compilations"], before + 3)
        # Another wrapper of the same function lowers to the same module:
        # the program comes from the compilation cache.
        hits = hloc.cache_stats()["memory_hits"]
        hloc.jit(f)(np.ones(5, np.float32))
        self.assertEqual(hloc.cache_stats()["compilations"], before + 3)
        self.assertEqual(hloc.cache_stats()["memory_hits"], hits + 1)

    def test_disk_cache(self):
        f = lambda x, y: jnp.tanh(x) @ y  # noqa: E731
        x = np.ones((4, 3), np.float32)
        y = np.full((3, 2), 0.5, np.float32)
        with tempfile.TemporaryDirectory() as cache_dir:
            hloc.set_cache_dir(cache_dir)
            try:
                hloc.clear_cache()
                first = hloc.jit(f)(x, y)
                self.assertEqual(hloc.cache_stats()["compilations"], 1)
                self.assertEqual(hloc.cache_stats()["disk_writes"], 1)
                hloc.clear_cache()  # as a new process would start
                second = hloc.jit(f)(x, y)
                stats = hloc.cache_stats()
                self.assertEqual(stats["compilations"], 0)
                self.assertEqual(stats["disk_hits"], 1)
                np.testing.assert_array_equal(first, second)
            finally:
                hloc.set_cache_dir(None)


class DispatchTest(unittest.TestCase):
    """A repeated call's fast path (hloc/_program.host_arguments: NumPy
    arrays and host JAX arrays passed as they are; the extension reads any
    host buffer) gives what the full conversion gives, and every argument
    it cannot take in place still takes the checked path."""

    @staticmethod
    def step_inputs():
        rng = np.random.default_rng(5)
        params = {"w": rng.standard_normal((6, 4), np.float32),
                  "b": rng.standard_normal((4,), np.float32)}
        return params, rng.standard_normal((3, 6), np.float32)

    @staticmethod
    def step(params, x, scale):
        h = jnp.tanh(x @ params["w"] + params["b"]) * scale
        return {"w": params["w"] - 0.1 * h.sum(), "b": params["b"] * scale}, h

    def test_cached_calls_take_any_host_array(self):
        params, x = self.step_inputs()
        jitted = hloc.jit(self.step)
        expected = jax.jit(self.step)(params, x, 0.5)
        assert_matches(self, jitted(params, x, 0.5), expected, "first call")
        jax_params = jax.tree_util.tree_map(jnp.asarray, params)
        wide = np.zeros((3, 12), np.float32)
        wide[:, ::2] = x  # x again, as a view with a stride of 2 elements
        read_only = x.copy()
        read_only.flags.writeable = False
        unaligned = np.frombuffer(b"\0" + x.tobytes(), np.float32,
                                  offset=1).reshape(3, 6)
        for what, p, arg in (
                ("JAX arrays", jax_params, jnp.asarray(x)),
                ("read-only NumPy", params, read_only),
                ("non-contiguous NumPy", params, wide[:, ::2]),
                ("Fortran-ordered NumPy", params, np.asfortranarray(x)),
                ("unaligned NumPy", params, unaligned),
                ("NumPy views of JAX arrays",
                 jax.tree_util.tree_map(np.asarray, jax_params),
                 np.asarray(jnp.asarray(x)))):
            with self.subTest(what):
                assert_matches(self, jitted(p, arg, 0.5), expected, what)
        self.assertEqual(jitted.lowerings, 1)

    def test_a_new_signature_lowers_again(self):
        params, x = self.step_inputs()
        jitted = hloc.jit(self.step)
        jitted(params, x, 0.5)
        wider = np.ones((3, 6, 1), np.float32)[..., 0]  # same shape, a view
        jitted(params, wider, 0.5)
        self.assertEqual(jitted.lowerings, 1)
        for what, p, arg in (
                ("another batch", params, np.ones((5, 6), np.float32)),
                ("another dtype", jax.tree_util.tree_map(
                    lambda a: a.astype(np.float64), params),
                 x.astype(np.float64)),
                ("a NumPy scalar for the Python one", params, x)):
            with self.subTest(what):
                scale = np.float32(0.5) if what.startswith("a NumPy") else 0.5
                assert_matches(self, jitted(p, arg, scale),
                               jax.jit(self.step)(p, arg, scale), what)
        self.assertEqual(jitted.lowerings, 4)

    def test_bf16_on_the_cached_path(self):
        f = hloc.jit(lambda a, b: (a * b, a + 1))
        a = np.linspace(-2, 2, 12).astype(ml_dtypes.bfloat16).reshape(3, 4)
        b = np.full((3, 4), 1.5, ml_dtypes.bfloat16)
        for _ in range(2):
            assert_matches(self, f(a, b), jax.jit(lambda a, b: (a * b, a + 1))(
                a, b), "bf16")

    def test_donation_is_accepted_and_arguments_stay_valid(self):
        # A jax.jit call site with donate_argnums ports unchanged; hloc
        # does not reuse the donated buffers, so they keep their values.
        def step(params, grads):
            return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params,
                                          grads)
        params = {"w": np.ones((4, 3), np.float32),
                  "b": np.arange(3, dtype=np.float32)}
        grads = {"w": np.full((4, 3), 2, np.float32),
                 "b": np.ones(3, np.float32)}
        before = jax.tree_util.tree_map(np.copy, params)
        want = jax.jit(step)(params, grads)
        for jitted in (hloc.jit(step, donate_argnums=0),
                       hloc.jit(donate_argnames="params")(step)):
            got = jitted(params, grads)
            for key in want:
                np.testing.assert_allclose(got[key], want[key], rtol=1e-6)
                np.testing.assert_array_equal(params[key], before[key])
        with self.assertRaises(TypeError):
            hloc.jit(step, donate_argnums="params")

    def test_inputs_are_not_written_or_aliased(self):
        # hloc.jit has no donation: a result never shares an argument's
        # memory, and the arguments keep their values.
        params, x = self.step_inputs()
        before = jax.tree_util.tree_map(np.copy, (params, x))
        jitted = hloc.jit(lambda p, x: (p, x, p["w"] * 2))
        for inputs in ((params, x), jax.tree_util.tree_map(jnp.asarray,
                                                           (params, x))):
            results = jitted(*inputs)
            for leaf in jax.tree_util.tree_leaves(results):
                for arg in jax.tree_util.tree_leaves(inputs):
                    self.assertFalse(np.shares_memory(leaf, np.asarray(arg)))
            assert_matches(self, results[:2], before, "identity")
        assert_matches(self, (params, x), before, "arguments after the calls")

    def test_a_gpu_array_is_refused_on_a_cached_signature(self):
        class GpuDevice:
            platform = "gpu"

        class GpuSharding:
            device_set = frozenset([GpuDevice()])

        class OnGpu:
            # Looks like a JAX array on a GPU to the signature and the fast
            # path; must never be read through the host.
            shape, dtype, weak_type = (3,), np.dtype(np.float32), False
            sharding = GpuSharding()

            def __dlpack_device__(self):
                return (2, 0)  # kDLCUDA, device 0

            def __array__(self, dtype=None, copy=None):
                raise AssertionError("copied through the host")

        f = hloc.jit(lambda a, b: a + b, platform="cpu")
        f(np.ones(3, np.float32), np.ones(3, np.float32))
        with self.assertRaisesRegex(ValueError, "argument 1 of <lambda> is "
                                    "on cuda:0, and this program runs on "
                                    "the host"):
            f(np.ones(3, np.float32), OnGpu())

    def test_a_jax_array_over_several_cpu_devices_is_gathered(self):
        # Its own process: the device count is fixed when JAX starts.
        script = """
import numpy as np, jax, jax.numpy as jnp, hloc
from jax.sharding import Mesh, NamedSharding, PartitionSpec
mesh = Mesh(np.array(jax.devices()), ("d",))
x = jax.device_put(jnp.arange(8, dtype=jnp.float32).reshape(4, 2),
                   NamedSharding(mesh, PartitionSpec("d")))
assert len(x.sharding.device_set) == 2
expected = np.arange(8, dtype=np.float32).reshape(4, 2) * 2
f = hloc.jit(lambda a: a * 2)
for _ in range(2):  # the first call and the cached one
    np.testing.assert_array_equal(f(x), expected)
exe = f.lower(x).compile()
np.testing.assert_array_equal(exe.run(x), expected)
print("gathered")
"""
        env = dict(os.environ,
                   XLA_FLAGS="--xla_force_host_platform_device_count=2",
                   PYTHONPATH=os.pathsep.join(sys.path))
        result = subprocess.run([sys.executable, "-c", script], env=env,
                                capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("gathered", result.stdout)

    def test_the_extension_checks_what_it_is_given(self):
        exe = hloc.compile(jax.jit(lambda a, b: a * b).lower(
            np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
            .compiler_ir("hlo").as_serialized_hlo_module_proto(), name="mul")
        run = exe.program.run
        ones = np.ones((2, 3), np.float32)
        np.testing.assert_array_equal(run([ones, ones * 2])[0], ones * 2)
        # What it cannot view in place it copies: another layout, a
        # reversed view, a JAX array's buffer.
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        for what, arg in (("Fortran order", np.asfortranarray(a)),
                          ("reversed", a[::-1, ::-1].copy()[::-1, ::-1]),
                          ("JAX array", jnp.asarray(a))):
            with self.subTest(what):
                np.testing.assert_array_equal(run([arg, ones * 2])[0], a * 2)
        # A parameter in another layout than row-major still reads the
        # argument as row-major (the executor lays it out).
        transposed = hloc.compile("""
HloModule layout
ENTRY e {
  p = f32[2,3]{0,1} parameter(0)
  q = f32[2,3]{1,0} parameter(1)
  ROOT r = f32[2,3]{1,0} subtract(p, q)
}""")
        for arg in (a, np.asfortranarray(a)):
            np.testing.assert_array_equal(
                transposed.program.run([arg, ones])[0], a - 1)
        for what, arrays, message in (
                ("count", [ones], "the program takes 2 arguments, given 1"),
                ("dtype", [ones, ones.astype(np.float64)],
                 r"argument 1 does not match parameter 1 \(f32\[2,3\]\{1,0\}\): "
                 r"given 2-d array of 64-bit elements \(format 'd'\)"),
                ("kind", [ones.astype(np.int32), ones],
                 r"argument 0 does not match parameter 0 .*format 'i'"),
                ("shape", [ones, np.ones((3, 2), np.float32)],
                 "argument 1 does not match parameter 1"),
                ("no buffer", [ones, "abc"],
                 r"argument 1 \(str\) is not a host array"),
                ("not a sequence", 7, "must be a sequence of arrays")):
            with self.subTest(what):
                with self.assertRaisesRegex(hloc.HlocError, message):
                    run(arrays)


class CompileAndLowerTest(unittest.TestCase):

    def test_compile_text_and_proto(self):
        text = """
HloModule axpy
ENTRY e {
  a = f32[] parameter(0)
  x = f32[3] parameter(1)
  y = f32[3] parameter(2)
  b = f32[3] broadcast(a), dimensions={}
  ax = f32[3] multiply(b, x)
  s = f32[3] add(ax, y)
  ROOT r = (f32[3], f32[3]) tuple(s, x)
}"""
        exe = hloc.compile(text)
        x = np.array([1, 2, 3], np.float32)
        s, same = exe.run(np.float32(2), x, np.ones(3, np.float32))
        np.testing.assert_array_equal(s, [3, 5, 7])
        np.testing.assert_array_equal(same, x)
        proto = jax.jit(jnp.sin).lower(x).compiler_ir(
            "hlo").as_serialized_hlo_module_proto()
        for platform in ("cpu", "interpreter"):
            np.testing.assert_allclose(
                hloc.compile(proto, platform=platform).run(x), np.sin(x),
                rtol=1e-6)

    def test_results_own_their_memory(self):
        out = hloc.jit(lambda x: x + 1)(np.zeros((64, 64), np.float32))
        self.assertTrue(out.flags.writeable)
        self.assertTrue(out.flags.c_contiguous)
        out += 1  # the caller's to change
        self.assertEqual(out[5, 5], 2)
        self.assertNotIsInstance(out.base, np.ndarray)

    def test_lower_shows_the_stages(self):
        def f(x, w):
            return jnp.tanh(x @ w) * 2 + 1
        x = np.ones((4, 8), np.float32)
        w = np.ones((8, 3), np.float32)
        lowered = hloc.jit(f).lower(x, w)
        text = lowered.as_text()
        self.assertIn("ENTRY", text)
        self.assertIn("fusion", text)
        self.assertIn("FUSED", lowered.fusion_report())
        self.assertIn("define", lowered.stage("llvm"))
        self.assertIn("ret", lowered.stage("asm"))
        self.assertIsInstance(lowered.stage("object"), bytes)
        self.assertEqual(hloc.stages()[0], "hlo")
        assert_matches(self, lowered.compile().run(x, w), jax.jit(f)(x, w),
                       "Lowered.compile")

        cuda = hloc.jit(f, platform="cuda").lower(x, w)
        self.assertIn("ENTRY", cuda.as_text())  # the cuda pipeline runs
        # The cuda backend's own stages (no GPU needed to compile).
        self.assertIn(".target sm_90", cuda.stage("ptx"))
        self.assertIn("ptx", hloc.stages("cuda"))
        with self.assertRaisesRegex(hloc.HlocError,
                                    "unknown stage 'asm' for platform 'cuda'"):
            cuda.stage("asm")

    def test_compiled_is_called_like_jax_compiled(self):
        # jax.jit(f).lower(*args).compile() is called with the function's
        # own arguments (pytrees, keywords, statics as lowered) and returns
        # its result pytree; so is hloc's.
        def f(params, x, *, n):
            return {"y": jnp.tanh(x @ params["w"]) ** n, "s": x.sum()}
        params = {"w": np.ones((8, 3), np.float32)}
        x = np.arange(32, dtype=np.float32).reshape(4, 8) / 32
        jitted = hloc.jit(f, static_argnames="n")
        compiled = jitted.lower(params, x, n=3).compile()
        self.assertIsInstance(compiled, hloc.Compiled)
        got = compiled(params, x, n=3)
        want = jax.jit(f, static_argnames="n")(params, x, n=3)
        self.assertEqual(sorted(got), ["s", "y"])
        assert_matches(self, got["y"], want["y"], "Compiled y")
        assert_matches(self, got["s"], want["s"], "Compiled s")
        with self.assertRaisesRegex(TypeError, "compiled for other arguments"):
            compiled(params, x, n=2)
        with self.assertRaisesRegex(TypeError, "compiled for other arguments"):
            compiled(params, x[:2], n=3)


class BadInputTest(unittest.TestCase):

    def test_unsupported_op_names_the_instruction(self):
        text = """
HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  ROOT y = f32[4] custom-call(x), custom_call_target="my_kernel"
}"""
        # Neither a kernel nor the evaluator runs an unknown custom call:
        # the compilation raises, naming the instruction and its target.
        with self.assertRaisesRegex(
                hloc.HlocError,
                r'y \(custom-call\): custom_call_target="my_kernel" has no '
                r"cpu implementation"):
            hloc.compile(text).run(np.ones(4, np.float32))

    def test_debug_callbacks(self):
        def f(x):
            jax.debug.print("x sum {}", jnp.sum(x))
            return x * 2

        def g(x):
            shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
            return jax.pure_callback(np.sin, shape, x) * 2

        x = np.arange(4, dtype=np.float32)
        # hloc runs no Python: every platform refuses the print, naming it
        # and its line, and says how to drop it. (Under bazel this file
        # runs as python/hloc_test, without .py.)
        for platform in ("cpu", "interpreter"):
            with self.assertRaisesRegex(
                    hloc.HlocError,
                    r"debug_print\.1: jax\.debug\.print at \S*hloc_test(\.py)?:"
                    r"\d+ in \S*f \(custom-call xla_ffi_python_cpu_callback\)"
                    r"(.|\n)*--drop-debug-callbacks \(Python: "
                    r"drop_debug_callbacks=True\) drops it"):
                hloc.jit(f, platform=platform)(x)
            dropped = hloc.jit(f, platform=platform,
                               drop_debug_callbacks=True)
            np.testing.assert_array_equal(dropped(x), 2 * x)
            np.testing.assert_array_equal(dropped.lower(x).compile()(x),
                                          2 * x)
        proto = jax.jit(f).lower(x).compiler_ir(
            "hlo").as_serialized_hlo_module_proto()
        np.testing.assert_array_equal(
            hloc.compile(proto, drop_debug_callbacks=True).run(x), 2 * x)
        # A callback whose result is used is never dropped.
        with self.assertRaisesRegex(
                hloc.HlocError, r"pure_callback\.1: jax\.pure_callback at "
                r"(.|\n)*its results are used, so it cannot be dropped"):
            hloc.jit(g, drop_debug_callbacks=True)(x)

    def test_fallback_choice(self):
        text = """
HloModule replica
sub {
  a = u32[] parameter(0)
  b = u32[] parameter(1)
  ROOT s = u32[] subtract(a, b)
}
ENTRY e {
  p = u32[4] parameter(0)
  r = u32[4] all-reduce(p), replica_groups={}, to_apply=sub
  ROOT a = u32[4] add(p, r)
}"""
        # An all-reduce whose to_apply is no sum, product, min or max has no
        # runtime step: by default the evaluator runs it on cpu (one device:
        # a copy); strict compilation raises, naming it and why.
        p = np.arange(4, dtype=np.uint32)
        np.testing.assert_array_equal(hloc.compile(text).run(p), 2 * p)
        with self.assertRaisesRegex(
                hloc.HlocError,
                r"cpu strict mode \(--no-fallback\): 1 instruction would "
                r"need the reference evaluator:\n  r \(all-reduce\): "):
            hloc.compile(text, fallback=False)
        # An ordinary JAX function has code for everything: strict is fine.
        f = hloc.jit(lambda x: jnp.tanh(x) * 2, fallback=False)
        x = np.linspace(-1, 1, 5, dtype=np.float32)
        np.testing.assert_allclose(f(x), np.tanh(x) * 2, rtol=1e-6)
        np.testing.assert_allclose(f.lower(x).compile().run(x),
                                   np.tanh(x) * 2, rtol=1e-6)
        with self.assertRaisesRegex(hloc.HlocError,
                                    "the cuda backend has no evaluator"):
            hloc.compile(text, platform="cuda", fallback=True)

    def test_parse_error_has_line_and_column(self):
        with self.assertRaisesRegex(hloc.HlocError, r"<module>:\d+:\d+"):
            hloc.compile("HloModule m\nENTRY e {\n  ROOT x = f32[ parameter(0)\n}")

    def test_wrong_arguments_to_an_executable(self):
        exe = hloc.compile(jax.jit(lambda a, b: a + b).lower(
            np.ones(3, np.float32), np.ones(3, np.float32)).compiler_ir(
                "hlo").as_serialized_hlo_module_proto(), name="add")
        with self.assertRaisesRegex(TypeError, "add takes 2 arguments, "
                                    "given 1"):
            exe.run(np.ones(3, np.float32))
        with self.assertRaisesRegex(ValueError, r"argument 1 of add: the "
                                    r"parameter is f32\[3\].*\(4,\)"):
            exe.run(np.ones(3, np.float32), np.ones(4, np.float32))
        with self.assertRaisesRegex(TypeError, r"argument 0 of add.*int32"):
            exe.run(np.ones(3, np.int32), np.ones(3, np.float32))

    def test_wrong_arguments_to_a_jitted_function(self):
        f = hloc.jit(lambda x, y: x @ y)
        with self.assertRaises(TypeError):
            f(np.ones((2, 3), np.float32))
        with self.assertRaisesRegex(TypeError, "dot_general"):
            f(np.ones((2, 3), np.float32), np.ones((4, 2), np.float32))

    def test_cuda_is_not_available(self):
        with self.assertRaisesRegex(hloc.HlocError,
                                    "the cuda platform is not available: "):
            hloc.jit(jnp.sin, platform="cuda")(np.ones(3, np.float32))

    def test_a_gpu_array_is_refused_by_host_programs(self):
        # What jax.jit does with an array committed to another device: an
        # error naming the argument, not a silent copy through the host.
        class OnGpu:
            shape, dtype = (3,), np.dtype(np.float32)

            def __dlpack_device__(self):
                return (2, 0)  # kDLCUDA, device 0

            def __array__(self, dtype=None, copy=None):
                raise AssertionError("copied through the host")

        exe = hloc.compile(jax.jit(lambda a, b: a + b).lower(
            np.ones(3, np.float32), np.ones(3, np.float32)).compiler_ir(
                "hlo").as_serialized_hlo_module_proto(), name="add")
        with self.assertRaisesRegex(ValueError, "argument 1 of add is "
                                    "on cuda:0, and this program runs on "
                                    "the host"):
            exe.run(np.ones(3, np.float32), OnGpu())

    def test_saved_executables_load(self):
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        with tempfile.TemporaryDirectory() as tmp:
            cpu_path = os.path.join(tmp, "cpu.hloexe")
            with open(cpu_path, "wb") as f:
                f.write(hloc.jit(jnp.sin).lower(x).executable())
            np.testing.assert_allclose(hloc.load(cpu_path).run(x), np.sin(x),
                                       rtol=1e-6)
            # The cuda executable is compiled here (no GPU needed) and
            # loading it says why it cannot run.
            cuda_path = os.path.join(tmp, "cuda.hloexe")
            with open(cuda_path, "wb") as f:
                f.write(hloc.jit(jnp.sin, platform="cuda").lower(x)
                        .executable())
            self.assertEqual(hloc._cuda.executable_platform(cuda_path),
                             "cuda")
            with self.assertRaisesRegex(hloc.HlocError,
                                        "the cuda platform is not "
                                        "available: "):
                hloc.load(cuda_path)
            # A jitted function refuses another platform's executable.
            f = hloc.jit(jnp.sin, platform="cuda")
            with self.assertRaisesRegex(hloc.HlocError, "is a cpu "
                                        "executable, this function runs "
                                        "on cuda"):
                f.use_executable(cpu_path, x)
        with self.assertRaisesRegex(hloc.HlocError, "the interpreter "
                                    "platform has no executable"):
            hloc.jit(jnp.sin, platform="interpreter").lower(x).executable()

    def test_unknown_platform(self):
        with self.assertRaisesRegex(ValueError, "unknown platform 'tpu'"):
            hloc.jit(jnp.sin, platform="tpu")


if __name__ == "__main__":
    unittest.main(verbosity=2)
