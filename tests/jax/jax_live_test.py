#!/usr/bin/env python3
"""JAX as a live client: the real frontend and the real XLA check hloc.

Each case is a JAX function. For a few seeded random shapes and inputs the
test lowers it with jax.jit(f).lower(...) to a serialized HloModuleProto (and
to HLO text), computes the expected outputs with XLA:CPU in this process,
writes everything as .npy, and runs `hlo-run` on the proto (and the text) on
the reference evaluator and on the compiled CPU backend. Every run must exit
0 (all outputs within hlo-run's documented default tolerances). With
--hlo-opt, every proto also goes through the cpu and cuda pipelines with the
verifier after every pass (`hlo-opt --platform=... --stage=hlo`).

usage: jax_live_test.py HLO_RUN [--hlo-opt HLO_OPT] [--seed N] [--trials N]
                        [--only SUBSTRING] [--set core|complex_random]
"""

import argparse
import os
import sys
import tempfile

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

# The cases and the shared harness kept beside this file (also when
# python/hloc_test.py loads it by path).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fft_linalg_cases  # noqa: E402
# Importing the harness selects the CPU and turns on 64-bit types.
from jax_harness import (complexes, dims, floats, hlo_opt_verify,  # noqa: E402
                         hlo_run, ints, prng_key, shapes_of, write_case)


def rbg_key_data(rng):
    return np.asarray(jax.random.key_data(
        jax.random.key(int(rng.integers(0, 2**31)), impl="rbg")))


def rbg_key(data):
    return jax.random.wrap_key_data(data, impl="rbg")


def mlp_loss(params, x, y):
    w1, b1, w2, b2 = params
    logits = jnp.tanh(x @ w1 + b1) @ w2 + b2
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))


# name -> (function, make_args(rng) -> list of arrays). Shapes vary with the
# trial (the rng's seed) so each run sees several sizes.
CASES = {
    "chain5": (lambda x, y: jnp.maximum(x * y + 1.0, 0.0) - jnp.exp(x),
               lambda r: [floats(r, dims(r, (1, 64), (1, 130)))] * 2),
    "transcendental": (
        lambda x: jnp.tanh(x) + jax.scipy.special.erf(x) + jnp.log1p(jnp.abs(x))
        + jnp.sin(x) * jnp.cos(x) + jax.nn.sigmoid(x) + jnp.expm1(x / 4),
        lambda r: [floats(r, dims(r, (1, 300)))]),
    "pow_rsqrt_cbrt": (
        lambda x, y: jnp.power(jnp.abs(x) + 0.5, y) + lax.rsqrt(jnp.abs(x) + 1)
        + jnp.cbrt(x),
        lambda r: [floats(r, (37,)), floats(r, (37,))]),
    "int_div_rem_by_zero": (
        lambda a, b: (a // b, a % b, lax.div(a, b), lax.rem(a, b)),
        lambda r: [ints(r, (200,), -50, 50), ints(r, (200,), -3, 4)]),
    "shifts_bits": (
        lambda a, s: (lax.shift_left(a, s), lax.shift_right_logical(a, s),
                      lax.shift_right_arithmetic(a, s),
                      lax.population_count(a), lax.clz(a), ~a ^ (a & 7)),
        lambda r: [ints(r, (64,), -1000, 1000), ints(r, (64,), 0, 40)]),
    "convert_saturate": (
        lambda x: (x.astype(jnp.int8), x.astype(jnp.uint8), x.astype(jnp.int32),
                   jnp.round(x), jnp.floor(x), jnp.ceil(x), jnp.sign(x)),
        lambda r: [np.concatenate([floats(r, (50,)) * 300,
                                   np.array([np.nan, np.inf, -np.inf, 0.5,
                                             -0.5, 2.5, -0.0], np.float32)])]),
    "compare_select_clamp": (
        lambda x, y: (jnp.where(x > y, x, y), jnp.clip(x, -0.5, 0.5),
                      x == y, jnp.isfinite(x / y), jnp.minimum(x, y)),
        lambda r: [floats(r, (8, 9)), floats(r, (8, 9))]),
    "softmax": (lambda x: jax.nn.softmax(x, axis=-1),
                lambda r: [floats(r, dims(r, (1, 40), (1, 300)))]),
    "layernorm": (
        lambda x, g, b: (x - x.mean(-1, keepdims=True))
        / jnp.sqrt(x.var(-1, keepdims=True) + 1e-5) * g + b,
        lambda r: (lambda s: [floats(r, s), floats(r, s[-1:]),
                              floats(r, s[-1:])])(dims(r, (1, 16), (2, 200)))),
    "logsumexp_argmax": (
        lambda x: (jax.nn.logsumexp(x, axis=0), jnp.argmax(x, axis=1),
                   jnp.argmin(x, axis=0)),
        lambda r: [floats(r, dims(r, (1, 50), (1, 50)))]),
    "reductions": (
        lambda x: (x.sum(axis=(0, 2)), x.max(axis=1), x.prod(axis=0),
                   jnp.any(x > 1, axis=2), jnp.all(x > -3, axis=0)),
        lambda r: [floats(r, dims(r, (1, 9), (1, 17), (1, 13)))]),
    "cumsum_cumprod": (
        lambda x: (jnp.cumsum(x, axis=0), jnp.cumprod(x * 0.1 + 1, axis=1),
                   lax.cummax(x, axis=1)),
        lambda r: [floats(r, dims(r, (1, 20), (1, 20)))]),
    "dot_batched": (
        lambda a, b: jnp.einsum("bij,bjk->bik", a, b,
                                precision=lax.Precision.HIGHEST),
        lambda r: (lambda b, i, j, k: [floats(r, (b, i, j)),
                                       floats(r, (b, j, k))])(
                                           *dims(r, (1, 3), (1, 20), (1, 20),
                                                 (1, 20)))),
    "dot_mixed_int": (
        lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())),
                                     preferred_element_type=jnp.int32),
        lambda r: [ints(r, (7, 5), -9, 9, np.int8),
                   ints(r, (5, 3), -9, 9, np.int8)]),
    "conv2d": (
        lambda x, w: lax.conv_general_dilated(
            x, w, window_strides=(2, 1), padding=((1, 0), (2, 1)),
            lhs_dilation=(1, 2), rhs_dilation=(2, 1),
            dimension_numbers=("NHWC", "HWIO", "NHWC"),
            feature_group_count=2, precision=lax.Precision.HIGHEST),
        lambda r: [floats(r, (2, 9, 7, 4)), floats(r, (3, 2, 2, 6))]),
    "maxpool_avgpool": (
        lambda x: (lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1),
                                     (1, 2, 2, 1), "SAME"),
                   lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1),
                                     (1, 1, 1, 1), "VALID")),
        lambda r: [floats(r, (2,) + dims(r, (2, 12), (2, 12)) + (3,))]),
    # The max-pool gradient: JAX emits select-and-scatter. Inputs rounded to
    # one decimal so windows hold ties (select is ge: the first max wins).
    "maxpool_grad": (
        lambda x, g: jax.vjp(
            lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1),
                                        (1, 2, 2, 1), "SAME"), x)[1](g)[0],
        lambda r: (lambda h, w: [
            np.round(floats(r, (2, h, w, 3)), 1),
            floats(r, (2, (h + 1) // 2, (w + 1) // 2, 3))])(
                *dims(r, (2, 12), (2, 12)))),
    "sort_argsort_topk": (
        lambda x: (jnp.sort(x, axis=-1), jnp.argsort(x, axis=0, stable=True),
                   lax.top_k(x, 3)),
        lambda r: [np.round(floats(r, dims(r, (1, 8), (3, 40))), 1)]),
    "gather_scatter": (
        lambda x, i, u: (x[i], x.at[i].add(u), x.at[i].set(u),
                         x[:, i % x.shape[1]]),
        lambda r: (lambda n, m, k: [floats(r, (n, m)), ints(r, (k,), -n, n),
                                    floats(r, (k, m))])(
                                        *dims(r, (2, 20), (1, 8), (1, 12)))),
    "dynamic_slices": (
        lambda x, i, u: (lax.dynamic_slice(x, (i, i), (3, 2)),
                         lax.dynamic_update_slice(x, u, (i, 1 - i))),
        lambda r: [floats(r, (6, 5)), np.int32(r.integers(-2, 8)),
                   floats(r, (2, 3))]),
    "pad_reverse_concat_transpose": (
        lambda x: (lax.pad(x, np.float32(0.5), ((1, -1, 1), (-2, 3, 2))),
                   jnp.flip(x, (0, 1)), jnp.concatenate([x, x * 2], 1),
                   jnp.transpose(x[None], (2, 0, 1))),
        lambda r: [floats(r, dims(r, (2, 9), (3, 9)))]),
    "iota_broadcast_reshape": (
        lambda x: (jnp.arange(x.shape[0])[:, None] * x
                   + x.reshape(-1)[: x.shape[1]][None, :]),
        lambda r: [floats(r, dims(r, (1, 30), (1, 30)))]),
    "f16_bf16": (
        lambda x, y: ((x * x + 1).astype(jnp.float32),
                      jnp.exp(y) * y, x.sum(), (y.astype(jnp.float16) + x)),
        lambda r: [floats(r, (33,), np.float16),
                   floats(r, (33,), ml_dtypes.bfloat16)]),
    "u8_s64_pred": (
        lambda a, b, p: ((a + b) * a, jnp.where(p, a.astype(jnp.int64), -1),
                         jnp.logical_xor(p, a > 100)),
        lambda r: [ints(r, (40,), 0, 255, np.uint8),
                   ints(r, (40,), 0, 255, np.uint8),
                   r.integers(0, 2, size=(40,)).astype(bool)]),
    "while_cond_switch": (
        lambda x, n: (lax.fori_loop(0, n, lambda i, c: c * 0.9 + i, x),
                      lax.cond(n > 3, jnp.sin, jnp.cos, x),
                      lax.switch(n, [jnp.exp, jnp.tanh, jnp.abs], x)),
        lambda r: [floats(r, (5,)), np.int32(r.integers(-1, 6))]),
    "f64_s64": (
        lambda x, a: (jnp.exp(x) / (1 + x * x), a * a - (a >> 3),
                      (x * 1e10).astype(jnp.int64), a.astype(jnp.float64)),
        lambda r: [floats(r, (21,), np.float64),
                   ints(r, (21,), -2**40, 2**40, np.int64)]),
    "mlp": (
        lambda x, w1, b1, w2: jax.nn.gelu(
            jnp.dot(x, w1, precision=lax.Precision.HIGHEST) + b1)
        @ w2.astype(jnp.float32),
        lambda r: [floats(r, (8, 16)), floats(r, (16, 32)), floats(r, (32,)),
                   floats(r, (32, 4))]),
    # Issue 14's bugs, one case each.
    # Multi-output fusion once stored a merged slice after its user.
    "multi_output_order": (
        lambda k: (k[1], k[0] + k[1], k[0]),
        lambda r: [floats(r, (2,))]),
    "random_normal_bits": (
        lambda k: (jax.random.normal(k, ()), jax.random.bits(k, (1,)),
                   jax.random.uniform(k, (3,))),
        lambda r: [prng_key(r)]),
    "mlp_grad": (
        lambda w1, b1, w2, b2, x, y: jax.grad(mlp_loss)((w1, b1, w2, b2), x,
                                                        y),
        lambda r: (lambda n, i, h, o: [
            floats(r, (i, h)), floats(r, (h,)), floats(r, (h, o)),
            floats(r, (o,)), floats(r, (n, i)),
            jax.nn.one_hot(r.integers(0, o, size=n), o).astype(np.float32)])(
                *dims(r, (1, 16), (1, 12), (1, 32), (2, 10)))),
    # Long cumulative sums: partial sums of O(1) terms near zero, summed in
    # another order by XLA.
    "cumsum_long_rows": (
        lambda x: jnp.cumsum(x, axis=1),
        lambda r: [floats(r, (dims(r, (1, 8))[0], 1000))]),
    # XLA keeps a bf16 dot's result in f32 where it is widened.
    "bf16_dot_widened_sum": (
        lambda a, b: (a @ b).astype(jnp.float32).sum(axis=1),
        lambda r: (lambda m, k, n: [floats(r, (m, k), ml_dtypes.bfloat16),
                                    floats(r, (k, n), ml_dtypes.bfloat16)])(
                                        *dims(r, (1, 16), (8, 64), (1, 32)))),
    # An f32 dot judged as f32, though its outputs are f64.
    "f32_dot_to_f64": (
        lambda a, b: (a @ b).astype(jnp.float64),
        lambda r: (lambda m, k, n: [floats(r, (m, k)), floats(r, (k, n))])(
            *dims(r, (1, 16), (1, 64), (1, 16)))),
    # XLA flushes f32 denormals: sqrt(-1e-40) = -0, log(1e-39) = -inf.
    "denormals": (
        lambda x: (jnp.sqrt(x), jnp.log(x), x * 1e30, x + 1e-45),
        lambda r: [np.concatenate([
            np.array([-1e-40, 1e-39, 1e-45, -0.0, 1e-30], np.float32),
            np.abs(floats(r, (3,)))])]),
}

# Issue 16's complex numbers and random bits: a second set (its own Bazel
# test, --set=complex_random), so that neither run nears its time limit.
COMPLEX_RANDOM_CASES = {
    # Complex numbers: compiled, never run in the evaluator.
    "complex64_arith": (
        lambda x, y, p: (x + y, x - y, x * y, x / y, -x, jnp.abs(x),
                         jnp.exp(x), jnp.log(x), jnp.sqrt(x), lax.rsqrt(x),
                         jnp.sign(x), x.real, jnp.imag(y),
                         lax.complex(x.real, y.imag), jnp.conj(x), x == y,
                         x != y, jnp.where(p, x, y), x.astype(jnp.complex128),
                         x * 2.5),
        lambda r: (lambda s: [complexes(r, s), complexes(r, s),
                              r.integers(0, 2, size=s).astype(bool)])(
                                  dims(r, (1, 9), (1, 40)))),
    "complex128_math": (
        lambda x, f: (jnp.sin(x), jnp.cos(x), jnp.tanh(x), jnp.expm1(x),
                      jnp.log1p(x), jnp.tan(x), x / f,
                      (f + 1j * f) * x, jnp.abs(x) ** 2,
                      jnp.sqrt(-x.real.astype(jnp.complex128))),
        lambda r: [complexes(r, (29,), np.complex128),
                   floats(r, (29,), np.float64)]),
    # Zeros, infinities and NaNs through divide, abs, sqrt and log.
    "complex_special_values": (
        lambda x, y: (x / y, jnp.abs(x), jnp.sqrt(x), jnp.log(x), jnp.exp(x),
                      jnp.sign(x)),
        lambda r: (lambda v: [v, np.roll(v, 3)])(np.array(
            [complex(a, b) for a in (0.0, -0.0, 1.5, -2.0, np.inf, -np.inf,
                                     np.nan)
             for b in (0.0, -0.0, 0.5, -3.0, np.inf, np.nan)],
            np.complex64))),
    "complex_dot_sum": (
        lambda a, b, c: (jnp.dot(a, b, precision=lax.Precision.HIGHEST),
                         a.sum(axis=0), a.sum(), jnp.einsum(
                             "bij,bjk->bik", c, c.transpose(0, 2, 1).conj()),
                         (a @ b).real.sum(axis=1)),
        lambda r: (lambda m, k, n: [complexes(r, (m, k)),
                                    complexes(r, (k, n)),
                                    complexes(r, (2, m, k), np.complex128)])(
                                        *dims(r, (1, 12), (1, 20), (1, 9)))),
    # jax.random with the rbg generator: rng-bit-generator (rng_default,
    # which XLA computes with Philox), and lax.rng_bit_generator with each
    # algorithm; bits must match XLA's exactly.
    "random_rbg": (
        lambda k: (jax.random.bits(rbg_key(k), (5, 7)),
                   jax.random.uniform(rbg_key(k), (3, 4)),
                   jax.random.normal(rbg_key(k), (9,)),
                   jax.random.bits(rbg_key(k), (4,), jnp.uint64),
                   jax.random.bits(rbg_key(k), (3, 3), jnp.uint8)),
        lambda r: [rbg_key_data(r)]),
    "rng_bit_generator_algorithms": (
        lambda k: tuple(
            lax.rng_bit_generator(k, shape, dtype=dtype, algorithm=algorithm)
            for algorithm in (lax.RandomAlgorithm.RNG_DEFAULT,
                              lax.RandomAlgorithm.RNG_THREE_FRY,
                              lax.RandomAlgorithm.RNG_PHILOX)
            for shape, dtype in (((3, 5), jnp.uint32), ((7,), jnp.uint64),
                                 ((2, 3, 1), jnp.uint16), ((), jnp.uint32),
                                 ((5, 3), jnp.uint8))),
        lambda r: [rbg_key_data(r)]),
    # The default (threefry) jax.random: iota, shifts, xors on u32.
    "random_threefry": (
        lambda k: (jax.random.uniform(k, (6, 5)), jax.random.normal(k, (11,)),
                   jax.random.randint(k, (4, 4), -5, 9),
                   jax.random.bits(jax.random.split(k, 3)[1], (7,))),
        lambda r: [prng_key(r)]),
}

# Cases whose every instruction must compile on the CPU backend: hlo-run
# --platform=cpu runs them with --no-fallback (and names any step that runs
# in the evaluator on stderr). rng-bit-generator compiles through
# rng-bit-generator-expander, topk as a library call (runtime/cpu_topk.h),
# the cumulative ops through reduce-window-to-scan (the CPU scan kernel).
COMPILED = {"complex64_arith", "complex128_math", "complex_special_values",
            "complex_dot_sum", "random_threefry", "random_normal_bits",
            "random_rbg", "rng_bit_generator_algorithms",
            "sort_argsort_topk", "cumsum_cumprod", "cumsum_long_rows"}


# fft and linear algebra (jnp.fft, jnp.linalg's LAPACK custom calls), kept
# in their own file.
CASES.update(fft_linalg_cases.CASES)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("hlo_run")
    parser.add_argument("--hlo-opt", default="")
    parser.add_argument("--seed", type=int, default=20261121)
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--only", default="")
    parser.add_argument("--platforms", default="interpreter,cpu")
    parser.add_argument("--set", default="core",
                        choices=["core", "complex_random"])
    args = parser.parse_args()
    platforms = args.platforms.split(",")

    failures = []
    runs = 0
    with tempfile.TemporaryDirectory() as tmp:
        cases = CASES if args.set == "core" else COMPLEX_RANDOM_CASES
        for name, (fn, make_args) in cases.items():
            if args.only not in name:
                continue
            for trial in range(args.trials):
                rng = np.random.default_rng([args.seed, trial,
                                             sum(map(ord, name))])
                inputs = make_args(rng)
                case_dir = os.path.join(tmp, f"{name}.{trial}")
                write_case(case_dir, fn, inputs)
                shapes = shapes_of(inputs)
                if args.hlo_opt:
                    for pipeline in ("cpu", "cuda"):
                        rc, out = hlo_opt_verify(args.hlo_opt, case_dir,
                                                 pipeline)
                        runs += 1
                        status = "ok" if rc == 0 else f"FAIL (exit {rc})"
                        print(f"{name}.{trial} [{shapes}] module.pb hlo-opt "
                              f"--platform={pipeline}: {status}")
                        if rc != 0:
                            failures.append(f"{name}.{trial} hlo-opt "
                                            f"--platform={pipeline}:\n{out}")
                runs_of_case = (
                    [("module.pb", p) for p in platforms]
                    + [("module.hlo", "interpreter")])
                if name in fft_linalg_cases.CPU_ONLY:
                    runs_of_case = [(m, "cpu") for m in
                                    ("module.pb", "module.hlo")
                                    if "cpu" in platforms]
                for module, platform in runs_of_case:
                    strict = (["--no-fallback"] if platform == "cpu"
                              and name in COMPILED else [])
                    rc, out = hlo_run(args.hlo_run, case_dir, platform,
                                      module, strict)
                    runs += 1
                    if (rc == 0 and platform == "cpu" and name in COMPILED
                            and "runs in the evaluator" in out):
                        rc = "evaluator fallback"
                    status = "ok" if rc == 0 else f"FAIL (exit {rc})"
                    print(f"{name}.{trial} [{shapes}] {module} "
                          f"{platform}: {status}")
                    if rc != 0:
                        failures.append(f"{name}.{trial} {module} {platform}"
                                        f" inputs [{shapes}]:\n{out}")
    print(f"\n{runs - len(failures)} of {runs} runs pass (hlo-run: match "
          f"XLA:CPU; hlo-opt: valid after every pass) "
          f"(jax {jax.__version__})")
    for failure in failures:
        print("\n" + failure)
    return 1 if failures or runs == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
