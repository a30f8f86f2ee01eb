#!/usr/bin/env python3
"""hloc's cuda runtime from Python on a GPU, against jax.jit on the same GPU.

The executables are compiled where hloc has its compiler
(make_executables.py; the GPU machine has no LLVM) and named by
$HLOC_GPU_EXECUTABLES; without it, and with a compiler, they are compiled
into a temporary folder. Without a GPU visible to JAX every test skips,
saying why.

Checked: results equal jax.jit's on fresh random inputs (two rounds, so a
stale result from an earlier call cannot pass); JAX GPU arrays are read in
place (the address the executor read is the JAX buffer's) with no host
transfer, and results are imported by JAX without a copy (the JAX array's
address is the one the executor wrote); NumPy arguments are copied in (one
host transfer each); a producer's pending work is ordered before the run
(DLPack stream); hloc.jit's dispatch with a saved executable; clear errors.

usage: HLOC_GPU_EXECUTABLES=DIR python3 tests/gpu_python/gpu_python_test.py
"""

import os
import sys
import tempfile
import unittest

import jax
import jax.numpy as jnp
import numpy as np

import hloc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402


def _gpu():
    try:
        return jax.devices("gpu")[0]
    except RuntimeError as e:
        return str(e)


_GPU = _gpu()
_SKIP = None if not isinstance(_GPU, str) else (
    f"no GPU visible to JAX ({_GPU}): these tests run on the GPU machine")


def _relative_error(out, ref):
    out = np.asarray(out).astype(np.float64)
    ref = np.asarray(ref).astype(np.float64)
    scale = np.linalg.norm(ref.ravel())
    return np.linalg.norm((out - ref).ravel()) / (scale if scale else 1.0)


@unittest.skipIf(_SKIP is not None, _SKIP)
class GpuPythonTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        folder = os.environ.get("HLOC_GPU_EXECUTABLES")
        if folder is None:
            cls._tmp = tempfile.TemporaryDirectory()
            folder = cls._tmp.name
            import make_executables
            sys.argv = ["make_executables", folder]
            make_executables.main()
        cls.folder = folder
        cls.programs = {}

    def executable(self, name):
        if name not in self.programs:
            self.programs[name] = hloc.load(
                os.path.join(self.folder, name + ".hloexe"))
        return self.programs[name]

    def on_gpu(self, arrays):
        return [jax.device_put(a, _GPU) for a in arrays]

    def check_close(self, name, ours, theirs, tolerance):
        ours = jax.tree_util.tree_leaves(ours)
        theirs = jax.tree_util.tree_leaves(theirs)
        self.assertEqual(len(ours), len(theirs), name)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            self.assertEqual(a.shape, b.shape, f"{name} result {i}")
            self.assertEqual(a.dtype, b.dtype, f"{name} result {i}")
            error = _relative_error(a, b)
            self.assertFalse(np.isnan(error), f"{name} result {i}: NaN")
            self.assertLessEqual(error, tolerance, f"{name} result {i}")

    def test_cases_match_jax_zero_copy(self):
        for name, (fn, specs, tolerance) in cases.CASES.items():
            exe = self.executable(name)
            program = exe.program
            reference = jax.jit(fn)
            for seed in (1, 2):
                xs = self.on_gpu(cases.random_inputs(specs, seed))
                transfers = program.host_transfers
                out = exe.run(*xs)
                out = out if isinstance(out, tuple) else (out,)
                imported = [jax.dlpack.from_dlpack(r) for r in out]
                self.assertEqual(program.host_transfers, transfers,
                                 f"{name}: a host transfer in a device run")
                self.assertEqual(
                    list(program.last_parameter_addresses),
                    [x.unsafe_buffer_pointer() for x in xs],
                    f"{name}: the executor did not read the JAX buffers")
                self.assertEqual(
                    [r.unsafe_buffer_pointer() for r in imported],
                    list(program.last_result_addresses),
                    f"{name}: JAX copied hloc's results")
                for r in imported:
                    self.assertEqual(r.devices(), {_GPU})
                self.check_close(name, imported, reference(*xs), tolerance)
                # Released: the next round may get the same block back.
                del out, imported, r
            print(f"  {name}: matches jax.jit, zero-copy in and out, "
                  f"{program.loaded_code}; result blocks reused so far: "
                  f"{program.reused_result_blocks}", flush=True)

    def test_a_reused_result_block_is_rewritten(self):
        # A released block comes back for the next call of the same size:
        # fresh inputs must give fresh results in it.
        fn, specs, tolerance = cases.CASES["chain"]
        exe = self.executable("chain")
        xs = self.on_gpu(cases.random_inputs(specs, 11))
        first = exe.run(*xs)
        address = exe.program.last_result_addresses[0]
        del first
        reused = exe.program.reused_result_blocks
        xs = self.on_gpu(cases.random_inputs(specs, 12))
        out = jax.dlpack.from_dlpack(exe.run(*xs))
        self.assertEqual(exe.program.reused_result_blocks, reused + 1)
        self.assertEqual(out.unsafe_buffer_pointer(), address)
        self.check_close("chain in a reused block", out,
                         jax.jit(fn)(*xs), tolerance)

    def test_numpy_arguments_are_copied_in(self):
        fn, specs, tolerance = cases.CASES["mlp"]
        exe = self.executable("mlp")
        xs = cases.random_inputs(specs, 3)
        transfers = exe.program.host_transfers
        out = jax.dlpack.from_dlpack(exe.run(*xs))
        self.assertEqual(exe.program.host_transfers - transfers, len(xs))
        self.check_close("mlp", out, jax.jit(fn)(*self.on_gpu(xs)),
                         tolerance)

    def test_pending_producer_work_is_ordered(self):
        # JAX returns before its kernels finish; hloc asks for the array
        # with __dlpack__(stream=its stream), so its run waits on the
        # device, not on the host, for the producer.
        fn, specs, tolerance = cases.CASES["chain"]
        exe = self.executable("chain")
        m = jax.device_put(
            cases.random_inputs([((1024, 1024), np.float32)], 4)[0] / 32, _GPU)

        @jax.jit
        def slow(x):
            return jax.lax.fori_loop(0, 300, lambda i, y: jnp.tanh(y @ m), x)

        for seed in (5, 6):
            x = self.on_gpu(cases.random_inputs(specs, seed))[0]
            produced = slow(x)  # Not waited for.
            out = jax.dlpack.from_dlpack(exe.run(produced))
            self.check_close("chain after slow", out, jax.jit(fn)(produced),
                             tolerance)
        print("  producers that refused __dlpack__(stream=...): "
              f"{hloc._cuda.stats['dlpack_without_stream']}", flush=True)

    def test_jit_with_a_saved_executable(self):
        fn, specs, tolerance = cases.CASES["row_sums"]
        f = hloc.jit(fn, platform="cuda")
        xs = self.on_gpu(cases.random_inputs(specs, 7))
        f.use_executable(os.path.join(self.folder, "row_sums.hloexe"), *xs)
        for seed in (8, 9):
            xs = self.on_gpu(cases.random_inputs(specs, seed))
            out = f(*xs)
            self.assertIsInstance(out, tuple)
            self.assertIsInstance(out[0], jax.Array)
            self.check_close("hloc.jit row_sums", out, jax.jit(fn)(*xs),
                             tolerance)
        self.assertEqual(f.lowerings, 1)

    def test_results_for_torch(self):
        try:
            import torch
        except ImportError:
            self.skipTest("no PyTorch")
        fn, specs, tolerance = cases.CASES["small"]
        xs = cases.random_inputs(specs, 10)
        t = torch.from_dlpack(self.executable("small").run(
            torch.from_numpy(xs[0]).cuda()))
        self.assertTrue(t.is_cuda)
        self.check_close("small via torch", t.cpu().numpy(), fn(xs[0]),
                         tolerance)

    def test_clear_errors(self):
        exe = self.executable("small")
        x = jax.device_put(np.ones(8, np.int32), _GPU)
        with self.assertRaisesRegex(hloc.HlocError,
                                    "does not match parameter 0"):
            exe.run(x)
        with self.assertRaisesRegex(TypeError, "takes 1 arguments"):
            exe.run(x, x)
        # A GPU array given to a host program: refused, not copied.
        with self.assertRaisesRegex(ValueError, "is on cuda:0"):
            hloc._cuda.check_on_host(x, 0, "f")
        if hloc._program._hloc is None:
            with self.assertRaisesRegex(hloc.HlocError, "has no compiler"):
                hloc.jit(jnp.sin, platform="cuda")(x.astype(jnp.float32))


if __name__ == "__main__":
    print(f"jax {jax.__version__}, device {_GPU}", flush=True)
    unittest.main(verbosity=2)
