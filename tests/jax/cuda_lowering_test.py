#!/usr/bin/env python3
"""JAX programs whose CUDA lowering differs from their CPU lowering.

The zoo lowers for the CPU, so it never hands hloc what JAX emits only for
GPUs. Each case here is lowered for CUDA (without a GPU), checked to hold
what the CUDA lowering emits (so the test cannot quietly exercise the CPU
form), its expected outputs computed by JAX on the CPU, and the module run
by hlo-run on the cpu backend (and on the evaluator where it computes the
instruction itself), and through the cuda pipeline's passes with the
verifier after every one (hlo-opt --platform=cuda --stage=hlo):

  lax.ragged_dot      the ragged-dot instruction (JAX expands it itself on
                      the CPU), which the evaluator computes directly and
                      every compiling pipeline expands (passes/
                      ragged_dot_expander.h). Ragged rows (MoE experts) and
                      ragged contraction (their weight gradients; JAX
                      lowers a ragged batch dimension as a plain dot, so
                      passes/ragged_dot_expander_test.cc covers that mode),
                      groups that cover fewer or more rows than there are,
                      empty groups, group sizes per batch ([b, g]), bf16
                      operands with f32 results, vmap, the gradients, and a
                      top-1 MoE layer whose tokens are sorted by expert.
  tridiagonal_solve   cuSPARSE's gtsv2 call (LAPACK's gtsv on the CPU), which
                      every pipeline expands into cyclic reduction (passes/
                      tridiagonal_solve_expander.h): batches, one and many
                      right-hand sides, f64 and c64, three equations (JAX
                      solves two or one itself), a cubic spline's system
                      and the gradient through it.
                      Not on the evaluator, which has no cuSPARSE call.
  cuhybrid_*          jaxlib's host-LAPACK calls (this JAX's jnp.linalg.eig
                      and QR with column pivoting, which cuSOLVER lacks),
                      which the cuda runtime runs on the host
                      (runtime/lapack_step.h) and the CPU backend as its
                      own LAPACK calls: real and complex eig with right,
                      left or both eigenvectors, eigenvalues only (and
                      jnp.roots), batches, f32 to c128; pivoted QR's R and
                      pivots (mode="r": the Q of the other modes is
                      cuSOLVER's orgqr, which no host backend runs), tall
                      and wide. Here also compiled for cuda and run on the
                      simulated GPU (simt-run --expect) against JAX's
                      outputs; pivoted QR on the evaluator too (it has no
                      geev).
  gpu_lowered/        modules a newer JAX lowered on the GPU machine, with
                      XLA:GPU's outputs (gpu_lowered/README.md): eig as
                      cuSOLVER's Xgeev (cusolver_geev_ffi), which hloc
                      computes with LAPACK's geev on the host; on the cpu
                      backend and the simulated GPU against those outputs.

usage: cuda_lowering_test.py --hlo-run HLO_RUN --hlo-opt HLO_OPT
                             --simt-run SIMT_RUN
"""

import argparse
import functools
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Importing the harness selects the CPU and turns on 64-bit types.
from jax_harness import floats, hlo_opt_verify, hlo_run, run_tool  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402


def sizes_summing_to(rng, groups, total):
    """group sizes (int32) that sum to `total`, some of them zero."""
    cuts = np.sort(rng.integers(0, total + 1, size=groups - 1))
    return np.diff(np.concatenate([[0], cuts, [total]])).astype(np.int32)


def ragged(lhs, rhs, gs):
    return lax.ragged_dot(lhs, rhs, gs)


def general(lhs, rhs, gs, lc, rc, lb, rb, ragged_dims, group_dims, **kw):
    dn = lax.RaggedDotDimensionNumbers(
        dot_dimension_numbers=((lc, rc), (lb, rb)),
        lhs_ragged_dimensions=ragged_dims, rhs_group_dimensions=group_dims)
    return lax.ragged_dot_general(lhs, rhs, gs, dn, **kw)


def moe_layer(x, router, w_up, w_down):
    # Top-1 routing: tokens sorted by expert, each expert's rows one group.
    experts = w_up.shape[0]
    choice = jnp.argmax(x @ router, axis=-1)
    order = jnp.argsort(choice)
    sizes = jnp.bincount(choice, length=experts).astype(jnp.int32)
    h = jax.nn.gelu(lax.ragged_dot(x[order], w_up, sizes))
    y = lax.ragged_dot(h, w_down, sizes)
    return jnp.zeros_like(x).at[order].set(y)


def cases(rng):
    f = floats
    out = {}
    out["rows_partial"] = (ragged, [f(rng, (96, 32)), f(rng, (5, 32, 24)),
                                    sizes_summing_to(rng, 5, 80)])
    out["rows_overfull"] = (ragged, [f(rng, (40, 16)), f(rng, (3, 16, 8)),
                                     np.array([20, 0, 35], np.int32)])
    out["rows_empty_groups"] = (ragged, [
        f(rng, (33, 17)), f(rng, (6, 17, 9)),
        np.array([0, 11, 0, 0, 22, 0], np.int32)])
    out["rows_bf16_to_f32"] = (
        lambda a, b, g: lax.ragged_dot(a, b, g,
                                       preferred_element_type=jnp.float32),
        [f(rng, (64, 48), jnp.bfloat16), f(rng, (4, 48, 40), jnp.bfloat16),
         sizes_summing_to(rng, 4, 64)])
    out["rows_per_batch_sizes"] = (
        lambda a, b, g: general(a, b, g, [2], [2], [0], [1], [1], [0]),
        [f(rng, (3, 20, 12)), f(rng, (4, 3, 12, 7)),
         np.stack([sizes_summing_to(rng, 4, 20) for _ in range(3)])])
    out["contracting"] = (
        lambda a, b, g: general(a, b, g, [1], [0], [], [], [1], []),
        [f(rng, (10, 50)), f(rng, (50, 6)), sizes_summing_to(rng, 4, 45)])
    out["contracting_batched"] = (
        lambda a, b, g: general(a, b, g, [2], [1], [0], [0], [2], []),
        [f(rng, (2, 9, 30)), f(rng, (2, 30, 5)),
         np.stack([sizes_summing_to(rng, 3, 30) for _ in range(2)])])
    out["vmapped"] = (jax.vmap(ragged),
                      [f(rng, (3, 24, 16)), f(rng, (3, 4, 16, 8)),
                       np.stack([sizes_summing_to(rng, 4, 24)
                                 for _ in range(3)])])
    out["gradients"] = (
        jax.grad(lambda a, b, g, c: jnp.sum(ragged(a, b, g) * c),
                 argnums=(0, 1)),
        [f(rng, (48, 16)), f(rng, (3, 16, 12)), sizes_summing_to(rng, 3, 44),
         f(rng, (48, 12))])
    out["moe_layer_grad"] = (
        jax.value_and_grad(lambda x, r, u, d: jnp.sum(moe_layer(x, r, u, d)
                                                      ** 2),
                           argnums=(0, 2, 3)),
        [f(rng, (64, 32)), f(rng, (32, 4)), f(rng, (4, 32, 48)) * 0.2,
         f(rng, (4, 48, 32)) * 0.2])
    return out


def tridiagonal(rng, batch, n, k, dtype=np.float32, dominance=3.0):
    """A diagonally dominant system: dl, d, du [batch.., n], b [.., n, k]."""
    def draw(shape):
        x = rng.standard_normal(shape)
        if np.issubdtype(dtype, np.complexfloating):
            x = x + 1j * rng.standard_normal(shape)
        return x.astype(dtype)
    dl, du = draw(batch + (n,)), draw(batch + (n,))
    d = draw(batch + (n,))
    d = (d + dominance * np.sign(d.real + 0.5) * 2).astype(dtype)
    return [dl, d, du, draw(batch + (n, k))]


def spline_second_derivatives(x, y):
    # Natural cubic spline through (x, y): its second derivatives solve a
    # tridiagonal system; the loss differentiates through the solve.
    h = jnp.diff(x)
    rhs = 6.0 * jnp.diff(jnp.diff(y) / h)
    dl = jnp.concatenate([jnp.zeros(1, h.dtype), h[1:-1]])
    du = jnp.concatenate([h[1:-1], jnp.zeros(1, h.dtype)])
    d = 2.0 * (h[:-1] + h[1:])
    m = lax.linalg.tridiagonal_solve(dl, d, du, rhs[:, None])[:, 0]
    return jnp.sum(m ** 2)


def tridiagonal_cases(rng):
    solve = lax.linalg.tridiagonal_solve
    x = np.sort(rng.uniform(0, 10, 40)).astype(np.float32)
    return {
        "gtsv_one_rhs": (solve, tridiagonal(rng, (), 100, 1)),
        "gtsv_batched": (solve, tridiagonal(rng, (3, 2), 37, 5)),
        "gtsv_long_f64": (solve, tridiagonal(rng, (), 1000, 3, np.float64)),
        "gtsv_c64": (solve, tridiagonal(rng, (2,), 64, 2, np.complex64)),
        "gtsv_three_equations": (solve, tridiagonal(rng, (4,), 3, 2)),
        "gtsv_spline_grad": (jax.value_and_grad(spline_second_derivatives,
                                                argnums=(0, 1)),
                             [x, np.sin(x).astype(np.float32)]),
    }


def host_lapack_cases(rng):
    eig = lax.linalg.eig
    qr_r = functools.partial(jax.scipy.linalg.qr, pivoting=True, mode="r")

    def complex_floats(shape, dtype):
        return (floats(rng, shape) + 1j * floats(rng, shape)).astype(dtype)

    return {
        "eig_f32": (jnp.linalg.eig, [floats(rng, (5, 5))]),
        "eig_f64_batch": (jnp.linalg.eig,
                          [floats(rng, (2, 3, 4, 4)).astype(np.float64)]),
        "eig_left_c64": (functools.partial(
            eig, compute_left_eigenvectors=True,
            compute_right_eigenvectors=False),
                         [complex_floats((6, 6), np.complex64)]),
        "eig_both_c128": (functools.partial(
            eig, compute_left_eigenvectors=True),
                          [complex_floats((2, 3, 3), np.complex128)]),
        "eigvals_f64": (jnp.linalg.eigvals,
                        [floats(rng, (7, 7)).astype(np.float64)]),
        "roots_f32": (functools.partial(jnp.roots, strip_zeros=False),
                      [floats(rng, (6,))]),
        "qr_pivoting_tall_f64": (qr_r,
                                 [floats(rng, (7, 4)).astype(np.float64)]),
        "qr_pivoting_wide_c64": (qr_r, [complex_floats((3, 5),
                                                       np.complex64)]),
    }


def write_cuda_case(case_dir, fn, inputs):
    """Lowers fn for CUDA (without a GPU) into case_dir, with the inputs
    and JAX's outputs on the CPU. Returns the module's HLO text."""
    os.makedirs(case_dir, exist_ok=True)
    jitted = jax.jit(fn, keep_unused=True)
    lowered = jitted.trace(*inputs).lower(lowering_platforms=("cuda",))
    with open(os.path.join(case_dir, "module.pb"), "wb") as out:
        out.write(lowered.compiler_ir("hlo").as_serialized_hlo_module_proto())
    text = lowered.as_text(dialect="hlo")
    for i, x in enumerate(inputs):
        np.save(os.path.join(case_dir, f"in{i}.npy"), np.asarray(x))
    for i, y in enumerate(jax.tree_util.tree_leaves(jitted(*inputs))):
        np.save(os.path.join(case_dir, f"out{i}.npy"), np.asarray(y))
    return text


def simulated_gpu(args, case_dir):
    """simt-run of case_dir's module.pb on its inputs against its outputs:
    (exit status, output)."""
    return run_tool([args.simt_run, os.path.join(case_dir, "module.pb"),
                     f"--inputs={case_dir}", f"--expect={case_dir}"])


def report(name, label, runs, failures):
    """Prints each target's result of case `name`; a failed one goes into
    `failures` under `label`, with the end of its output."""
    for target, (rc, output) in runs.items():
        status = "ok" if rc == 0 else f"exit {rc}"
        print(f"{name:24s} {target:12s} {status}")
        if rc != 0:
            failures.append(f"{label} on {target}: exit {rc}\n"
                            f"{output[-2000:]}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlo-run", required=True)
    parser.add_argument("--hlo-opt", required=True)
    parser.add_argument("--simt-run", required=True)
    args = parser.parse_args()
    failures = []
    rng = np.random.default_rng(7)
    groups = [("ragged-dot(", True, cases(rng)),
              ('custom_call_target="cusparse_gtsv2_ffi"', False,
               tridiagonal_cases(rng)),
              ('custom_call_target="cuhybrid_', False,
               host_lapack_cases(rng))]
    with tempfile.TemporaryDirectory() as tmp:
        for marker, on_evaluator, group in groups:
            for name, (fn, inputs) in group.items():
                case_dir = os.path.join(tmp, name)
                text = write_cuda_case(case_dir, fn, inputs)
                if marker not in text:
                    failures.append(f"{name}: the CUDA lowering holds no "
                                    f"{marker}")
                    continue
                runs = {"cpu": hlo_run(args.hlo_run, case_dir, "cpu"),
                        "cuda passes": hlo_opt_verify(args.hlo_opt, case_dir,
                                                      "cuda")}
                if on_evaluator or "cuhybrid_geqp3" in text:
                    runs["evaluator"] = hlo_run(args.hlo_run, case_dir,
                                                "interpreter")
                if "cuhybrid_" in text:
                    runs["simulated gpu"] = simulated_gpu(args, case_dir)
                report(name, name, runs, failures)
        # Lowered by a newer JAX on the GPU machine, with XLA:GPU's outputs.
        lowered_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                   "gpu_lowered")
        for name in sorted(os.listdir(lowered_dir)):
            case_dir = os.path.join(lowered_dir, name)
            if not os.path.isdir(case_dir):
                continue
            module = os.path.join(case_dir, "module.pb")
            runs = {"cpu": run_tool([args.hlo_run, module, "--platform=cpu",
                                     f"--inputs={case_dir}",
                                     f"--expect={case_dir}"]),
                    "simulated gpu": simulated_gpu(args, case_dir)}
            report(name, f"gpu_lowered/{name}", runs, failures)
        # The expansions must leave nothing for the code generators.
        for name, leftover in [("moe_layer_grad", "ragged-dot("),
                               ("gtsv_spline_grad", "custom-call(")]:
            rc, output = run_tool([args.hlo_opt,
                                   os.path.join(tmp, name, "module.pb"),
                                   "--platform=cuda", "--stage=hlo"])
            if rc != 0 or leftover in output:
                failures.append(f"the cuda pipeline's HLO of {name} still "
                                f"holds {leftover}")
    for failure in failures:
        print("FAILED:", failure)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
