#!/usr/bin/env python3
"""The model zoo as GPU cases: every zoo program lowered for cuda.

  python3 tests/jax/zoo_gpu_cases.py DIR [--themes=T,...]  # here
  python3 tests/jax/zoo_gpu_cases.py --xla-gpu BUNDLE [--time]  # on the GPU

The first form writes DIR/NAME/{module.pb, in<i>.npy, out<i>.npy} for each
program of zoo/ (zoo_test.py checks them on the CPU targets; with
--themes, only the programs of those themes, zoo.THEMES' keys): the
HloModuleProto JAX hands XLA:GPU (lowered for cuda on this CPU-only
machine, so the GPU's own lowering rules apply: threefry unrolled, not the
CPU's loop), the inputs, and XLA:CPU's outputs of the same function.
scripts/gpu_check.sh compiles them for cuda into the bundle as zoo.NAME.

The second form, run on the GPU machine before the bundle's run.sh,
replaces each zoo.NAME case's expected outputs with XLA:GPU's (jax.jit on
the GPU, on the same inputs, which it makes from the program's seed where
the bundle was carried without them; with --time it also times those
calls into zoo.NAME/xla_gpu_seconds for tools/gpu_bench/zoo_speed.py):
the GPU's semantics, not the CPU's, are what hloc's cuda executables
must match. They differ where XLA:GPU is allowed to: f32 dots in TF32,
and f32 -> f16 -> f32 conversion pairs removed under excess precision
(XLA's SimplifyFPConversions), which XLA:CPU keeps. KEEP_XLA_CPU lists
the programs where XLA:GPU's outputs are not the reference, and why.
"""

import contextlib
import glob
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import jax_harness  # noqa: E402,F401  (selects the CPU backend, enables x64)
import jax  # noqa: E402
import numpy as np  # noqa: E402
import zoo  # noqa: E402


# Programs whose default-precision f32 dots and convolutions feed each
# other through several layers (gradients of deep stacks): TF32's rounding
# compounds past the one-contraction allowance of --expect-tf32, and two
# correct TF32 computations (hloc's cuBLAS/cuDNN calls and XLA:GPU's) differ
# by more than it (measured on an H200: up to 0.3% in checkpoint_mlp_grad,
# 0.02 absolute in cnn_grad's filter gradients, 0.2% in one of
# unet_groupnorm_silu_grad's group-norm scales, behind two 3x3 convolutions).
# Both sides compute these at precision HIGHEST (full f32), so the
# comparison stays tight.
# complex_reductions, complex_arith_reductions: XLA:GPU's c64 dot is in
# TF32 too (0.1% off full precision on the H200; 2.5% in one element of
# complex_arith_reductions' 4x4 product, session 18), and --expect-tf32
# allows only f32 outputs.
# ensemble_vmap_adam, flash_attention_scan_grad, hvp_grad_of_grad,
# lstm_scan_grad, moe_capacity_routing: the same through recurrences (an
# LSTM's and a flash-attention scan's gradients, conjugate-gradient
# Hessian-vector products) and Adam's division by the root of small second
# moments: on the H200 (session 19) 1 to 136 elements past the allowance,
# lstm_scan_grad's one element flipping between runs as cuBLAS's choice of
# algorithm does.
# The seventh hunt's, on the H200 (session 22): mlp_grad and
# checkpoint_policies_grad (one element each 9% past the allowance, where
# hloc's and XLA:GPU's TF32 results straddle XLA:CPU's full-f32 one),
# complex64_end_to_end (XLA:GPU's c64 dots in TF32, 0.1-2% off; hloc's
# equal XLA:CPU's). gnn_message_passing_grad (session 24: 1 to 5 elements
# of three gradients 0.2-0.5% apart, past the allowance, after three
# layers of message passing). int8_kv_cache_decode (H100, session 38: 3 of
# 480 cached int8 values one apart, where the key and value projections,
# hloc's and XLA:GPU's TF32 products, fall on either side of a rounding
# boundary before round(t / scale); every float output matched).
FULL_F32 = {"checkpoint_mlp_grad", "checkpoint_policies_grad", "cnn_grad",
            "complex64_end_to_end", "complex_arith_reductions",
            "complex_reductions", "ensemble_vmap_adam",
            "flash_attention_scan_grad", "gnn_message_passing_grad",
            "gpt_adam_step", "hvp_grad_of_grad", "int8_kv_cache_decode",
            "lstm_scan_grad", "mlp_grad", "mlp_value_and_grad",
            "moe_capacity_routing", "unet_groupnorm_silu_grad"}

# Programs that keep XLA:CPU's outputs, and why.
KEEP_XLA_CPU = {
    # lax.dot_general of s8 x s8 to s32: XLA:GPU returns exactly twice the
    # product (as for the GPU case jax.dot_mixed_int, scripts/gpu_check.sh).
    "int8_matmul_dequant": "XLA:GPU's s8 dot is twice the product",
    # The same in integer dots of other layouts and einsums (H200,
    # session 18: every s32 result of an s8 product exactly doubled).
    "dot_general_layouts": "XLA:GPU's s8 dot is twice the product",
    "einsum_odd_contractions": "XLA:GPU's s8 dot is twice the product",
    # Scatter with duplicate indices and no combiner: which update lands is
    # unspecified; hloc's GPU scatter applies them in order, as XLA:CPU does.
    "scatter_set_max_min": "duplicate scatter indices (update order)",
    # The same through mode="clip": clipped indices collide.
    "scatter_modes": "clipped scatter indices collide (update order)",
    # .at[idx].set(mode="clip") with duplicate rows and jnp.put with
    # clipped indices that collide (the other combiners are compared).
    "scatter_combiners_2d": "duplicate scatter indices (update order)",
    # The sixth hunt's .at[].set / jnp.put with duplicate (and clipped)
    # indices in every mode (H200, session 20: XLA:GPU kept another of
    # the colliding updates at 3 of 10 elements; the combiners agree).
    "at_update_modes": "duplicate scatter indices (update order)",
    "take_along_put": "clipped jnp.put indices collide (update order)",
    # lax.scatter with windows wider than one element (FILL_OR_DROP and
    # CLIP) whose windows overlap: XLA:GPU kept another of the overlapping
    # updates at 6 of 30 elements (H200, session 22); hloc's GPU scatter
    # equals XLA:CPU's there, and the combiners (add, max, mul) agree.
    "lax_windows_partly_out": "overlapping scatter windows (update order)",
    # digamma at its pole 0: XLA:GPU returned -inf (H200, session 20);
    # XLA:CPU, the evaluator and hloc's cuda code give JAX's NaN.
    "special_functions_api": "XLA:GPU's digamma(0) is -inf, not NaN",
    # XLA:GPU drops f32 -> f8 -> f32 round trips under excess precision;
    # hloc keeps every rounding to an 8-bit float, a quantisation the
    # program asked for (passes/simplify_fp_conversions.h).
    "fp8_conversions": "XLA:GPU drops fp8 round trips; hloc keeps them",
    "fp8_and_bitcasts": "XLA:GPU drops fp8 round trips; hloc keeps them",
    # lax.top_k over a row with NaNs and infinities: XLA:GPU returned
    # infinities at positions 1, 23, 34, 45 and a NaN at 4095 (H200,
    # session 16), skipping the infinity at 12 and the NaNs before; the
    # TopK semantics, XLA:CPU and hloc put the first NaNs first.
    "long_sorts": "XLA:GPU's top_k misorders NaNs and infinities",
    # jnp.argmax/argmin of a flattened array with NaNs: XLA:GPU returned
    # index 8 (H200, session 18), not the first NaN (1) that JAX's
    # semantics, XLA:CPU and hloc give; the per-axis ones agree.
    "argmax_nan_ties": "XLA:GPU's flattened argmax over NaNs is not the "
                       "first NaN",
}


# Outputs (flattened indices) that keep XLA:CPU's values in programs whose
# other outputs expect XLA:GPU's, and why.
KEEP_XLA_CPU_OUTPUTS = {
    # jnp.sinc(+-inf) (out18): sin(pi x) / (pi x) is NaN (NumPy, XLA:CPU,
    # the evaluator and hloc's cuda code); XLA:GPU returned 0 (H200,
    # session 22). The rest follow XLA:GPU, which keeps f32 denormals
    # (heaviside(+-1e-45, 0.5) in out23) where XLA:CPU flushes them.
    "float_edges": ({18}, "XLA:GPU's sinc(+-inf) is 0, not NaN"),
    # jnp.argmax and argmin along the rows of f32[2048, 64] (out4, out5)
    # where row 9 holds NaNs at 3 and 40: XLA:GPU returned 40 for both
    # (H200, session 24), not the first NaN (3) that JAX's semantics,
    # XLA:CPU, the evaluator and hloc give; and argmin down its columns
    # (out24), where columns 3 and 40 hold NaNs in rows 5 and 9, 9 for
    # both, not 5. Its rows and columns with one NaN agree.
    "row_argmax_variadic": ({4, 5, 24}, "XLA:GPU's argmax/argmin over two "
                                        "NaNs is not the first NaN"),
    # jnp.argmax(m, axis=0) of f32[100, 60] (out10): column 40 holds NaNs in
    # rows 41 and 66; XLA:GPU returned 66 (H100, session 34), not the first
    # NaN, 41, that XLA:CPU, the evaluator and hloc give.
    "long_nan_scans_reductions": ({10}, "XLA:GPU's argmax over two NaNs is "
                                        "not the first NaN"),
    # The thirteenth hunt's 8-bit float round trips (H100, session 43), as
    # fp8_conversions above: XLA:GPU drops the f32 -> 8-bit float -> f32
    # round trips of all seven types (out12-out25) and e5m2 -> e4m3fn ->
    # f32 under excess precision, returning 57344 where e4m3fn has NaN and
    # 1e6 where e5m2 has inf. hloc's cuda code gave XLA:CPU's NaNs and
    # infinities.
    "float_conversion_rounding": (set(range(12, 26)),
                                  "XLA:GPU drops fp8 round trips"),
    "fp8_scaled_matmuls": ({5}, "XLA:GPU drops the e5m2 -> e4m3fn round "
                                "trip"),
    # The filter gradient of an f32 convolution at precision HIGHEST
    # (out2, f32[3,3,16,32], sums of 4608 products up to 71 in size): at
    # [0,0,13,18] XLA:GPU returned -0.02786 (H100, session 43), 1.7e-3 from
    # XLA:CPU's -0.02617; hloc's cuDNN call gave -0.02616.
    "evaluator_scale_ops": ({2}, "XLA:GPU's filter gradient is 1.7e-3 off "
                                 "at one element"),
    # Anchor matching forces each ground-truth box's best anchor positive
    # with best_gt.at[forced].set(arange(4)), and anchor 0 is the best for
    # two of them (forced = [0, 14, 0, 17]): a scatter of two values to one
    # index, whose order HLO leaves open. XLA:CPU and hloc (scatter-winners
    # keeps the serial order: the last update wins) set 2; XLA:GPU set 0
    # (H100, session 44). out3 is best_gt, out4 and out5 the boxes encoded
    # and decoded from it.
    "detection_boxes_nms": ({3, 4, 5}, "a repeated index of a scatter-set: "
                                       "XLA:GPU's winner is not the last"),
    # The fifteenth and sixteenth hunts against XLA:GPU (H100, session 44):
    # in each output listed here hloc's cuda code gave XLA:CPU's values and
    # XLA:GPU others. The 8-bit float programs are fp8_conversions' case:
    # XLA:GPU drops f32 -> 8-bit float -> f32 round trips (x.astype(f8) + y
    # in f8e4m3fn is 0 in hloc and XLA:CPU, -0.25 in XLA:GPU; an f64 past
    # e4m3fn's range is NaN in hloc and XLA:CPU, 448 in XLA:GPU).
    "f8_arith_every_format": (
        {0, 2, 5, 6, 8, 12, 14, 17, 18, 20, 24, 26, 29, 32, 35, 36, 38, 41,
         42, 44, 46, 47, 55, 56, 58, 59, 66, 67, 68, 69, 70, 71, 72, 73, 74,
         75, 76, 77, 79, 81},
        "XLA:GPU drops fp8 round trips"),
    "convert_double_rounding": ({3, 7, 11, 14, 16, 17},
                                "XLA:GPU drops fp8 round trips"),
    "mx_block_scaling_fp8": ({2, 3, 4}, "XLA:GPU drops fp8 round trips"),
    # An s8 x s8 dot_general with two batch and two contracting dimensions
    # in the operands' middle (preferred_element_type s32): XLA:GPU
    # returned twice XLA:CPU's sums at every element (-32104 where XLA:CPU
    # and hloc give -16052). int8_training_stochastic_rounding's int8
    # forward product (out1) and the gradient through it (out2) alike.
    "dot_general_many_dims": ({1}, "XLA:GPU's s8 dot is twice XLA:CPU's"),
    "int8_training_stochastic_rounding": ({1, 2},
                                          "XLA:GPU's s8 dot is twice "
                                          "XLA:CPU's"),
    # One element of 56 of a gradient through a long FFT convolution:
    # 0.00213 in XLA:CPU and hloc, -0.0265 in XLA:GPU.
    "hyena_long_conv": ({1}, "XLA:GPU's gradient is 0.029 off at one "
                             "element"),
    # digamma(0), its pole: NaN in XLA:CPU and hloc, -inf in XLA:GPU (as
    # special_functions_api above).
    "special_function_edges": ({9}, "XLA:GPU's digamma at its pole is "
                                    "-inf, not NaN"),
    # Default-precision complex64 products (the scan's input projection
    # and readout): hloc and XLA:CPU multiply in f32 (4e-7 apart); XLA:GPU
    # was up to 0.4% off, as from TF32 products, in every output.
    "s5_complex_assoc_scan": (set(range(6)), "XLA:GPU's c64 products are "
                                             "TF32-rounded"),
}


# Programs whose integer results hang on rounding bf16 products: floor,
# round and ceil of them (floor(-0.800781 * 10) is -8 with the product
# rounded to bf16, -9 without). XLA:GPU rounds them (sm_90 multiplies bf16
# natively); hloc's cuda pipeline keeps the f32 product under excess
# precision (xla_allow_excess_precision's default, which keeps bf16
# elementwise chains from being bound by conversions). Compiled with
# --allow-excess-precision=false, the way a user asks for every rounding,
# floor_of_bf16_products matches XLA:GPU exactly (H200, session 17).
# half_transcendentals' jnp.round(v * 100) on bf16 differs the same way
# (25 against 24 at one element) but is not listed: strict rounding moves
# its other outputs away from XLA:GPU (arctanh(tanh(v) * 0.9) near 1, v %
# 0.7), which keeps f32 between its widened transcendental operations; it
# is the GPU check's one known difference.
# clamp_round_nextafter's jnp.round(v * 37, -1) on bf16 v = +-5 (out21) is
# the same: 185 * 0.1 rounds to 18.5 in bf16 and then to 18 (XLA:GPU
# rounded 180), but is 18.5000007 in f32, which rounds to 19 (hloc: 190,
# H100, session 43).
STRICT_PRECISION = {"clamp_round_nextafter", "floor_of_bf16_products"}


def precision_for(name):
    return (jax.default_matmul_precision("highest") if name in FULL_F32
            else contextlib.nullcontext())


def inputs_of(name):
    """The inputs zoo_test.py gives the program (its default seed)."""
    _, make_inputs = zoo.ALL[name]
    return make_inputs(np.random.default_rng([20261125, sum(map(ord, name))]))


def save_inputs(case_dir, inputs):
    for i, x in enumerate(jax.tree_util.tree_leaves(inputs)):
        np.save(os.path.join(case_dir, f"in{i}.npy"), np.asarray(x))


def write_cuda_case(case_dir, fn, inputs):
    """As jax_harness.write_case, but the module is lowered for cuda."""
    os.makedirs(case_dir, exist_ok=True)
    jitted = jax.jit(fn, keep_unused=True)
    lowered = jitted.trace(*inputs).lower(lowering_platforms=("cuda",))
    with open(os.path.join(case_dir, "module.pb"), "wb") as f:
        f.write(lowered.compiler_ir("hlo").as_serialized_hlo_module_proto())
    save_inputs(case_dir, inputs)
    for i, y in enumerate(jax.tree_util.tree_leaves(jitted(*inputs))):
        np.save(os.path.join(case_dir, f"out{i}.npy"), np.asarray(y))


def programs_of(themes):
    """The zoo's program names, or those of `themes` (None: all)."""
    if themes is None:
        return sorted(zoo.ALL)
    unknown = [t for t in themes if t not in zoo.THEMES]
    if unknown:
        sys.exit(f"zoo_gpu_cases: no zoo theme {', '.join(unknown)} "
                 f"(themes: {', '.join(zoo.THEMES)})")
    return sorted(name for t in themes for name in zoo.THEMES[t])


def write_cases(out, themes=None):
    names = programs_of(themes)
    unlowerable = []
    for name in names:
        try:
            with precision_for(name):
                write_cuda_case(os.path.join(out, name), zoo.ALL[name][0],
                                inputs_of(name))
        except NotImplementedError as e:
            # JAX has no cuda lowering for some primitives (schur, and
            # eig without magma): there is no GPU module to compile, so
            # the program is not a GPU case; say which.
            shutil.rmtree(os.path.join(out, name), ignore_errors=True)
            print(f"zoo.{name}: JAX cannot lower it for cuda "
                  f"({' '.join(str(e).split())[:120]}); not a GPU case")
            unlowerable.append(name)
            continue
        if name in STRICT_PRECISION:
            # More hlo-opt flags for the case (scripts/gpu_check.sh).
            with open(os.path.join(out, name, "hlo_opt_flags"), "w") as f:
                f.write("--allow-excess-precision=false\n")
    print(f"{len(names) - len(unlowerable)} zoo programs lowered for cuda "
          f"in {out}, {len(unlowerable)} not lowerable")


def time_xla_gpu(jitted, args):
    """Seconds per call of `jitted` back to back from Python, as a JAX user
    calls it (dispatch included): the median of 5 rounds of 10 calls."""
    from gpu_bench import time_calls  # tools/gpu_bench, on sys.path
    last = []

    def call():
        last[:] = jax.tree_util.tree_leaves(jitted(*args))

    def sync():
        for out in last:
            out.block_until_ready()
    return time_calls(call, sync, rounds=5, calls=10, warmup=2)


def expect_xla_gpu(bundle, timed=False):
    """Rewrites the bundle's zoo.NAME/out<i>.npy with XLA:GPU's outputs;
    timed, writes zoo.NAME/xla_gpu_seconds too."""
    gpu = jax.devices("cuda")[0]
    done = 0
    unknown = []
    refused = []
    for case_dir in sorted(glob.glob(os.path.join(bundle, "cases", "zoo.*"))):
        name = os.path.basename(case_dir)[len("zoo."):]
        if name not in zoo.ALL:
            unknown.append(name)
            continue
        if name in KEEP_XLA_CPU:
            print(f"zoo.{name}: XLA:CPU's outputs kept ({KEEP_XLA_CPU[name]})")
            continue
        fn = zoo.ALL[name][0]
        inputs = inputs_of(name)
        if not glob.glob(os.path.join(case_dir, "in*.npy")):
            # A bundle carried without the zoo's inputs (they are most of
            # its bytes): the same seeded inputs, made here. The programs
            # of KEEP_XLA_CPU and KEEP_XLA_CPU_OUTPUTS must be carried
            # whole: their expected outputs are XLA:CPU's, made there.
            save_inputs(case_dir, inputs)
        # The bundle's own inputs, in the structure the function takes.
        leaves, tree = jax.tree_util.tree_flatten(inputs)
        # .npy keeps bf16 and the 8-bit floats as raw 2- and 1-byte
        # records: read back as the leaf's own type.
        saved = [np.load(os.path.join(case_dir, f"in{i}.npy")).view(
                     np.asarray(leaf).dtype) for i, leaf in enumerate(leaves)]
        args = jax.tree_util.tree_unflatten(
            tree, [jax.device_put(x, gpu) for x in saved])
        jitted = jax.jit(fn, keep_unused=True)
        try:
            with precision_for(name):
                outputs = jax.tree_util.tree_leaves(jitted(*args))
                if timed:
                    with open(os.path.join(case_dir, "xla_gpu_seconds"),
                              "w") as f:
                        f.write(f"{time_xla_gpu(jitted, args)!r}\n")
        except jax.errors.JaxRuntimeError as e:
            # XLA:GPU cannot run every program hloc's cuda backend runs
            # (an s32 convolution is no cuDNN idiom): the case keeps
            # XLA:CPU's outputs, and says so.
            reason = " ".join(str(e).split())[:160]
            print(f"zoo.{name}: XLA:GPU cannot run it ({reason}); "
                  f"XLA:CPU's outputs kept")
            refused.append(name)
            continue
        kept, why = KEEP_XLA_CPU_OUTPUTS.get(name, (set(), ""))
        for i, y in enumerate(outputs):
            if i not in kept:
                np.save(os.path.join(case_dir, f"out{i}.npy"), np.asarray(y))
        if kept:
            print(f"zoo.{name}: XLA:CPU's outputs kept for "
                  f"{', '.join(f'out{i}' for i in sorted(kept))} ({why})")
        done += 1
    print(f"{done} zoo cases now expect XLA:GPU's outputs ({gpu}), "
          f"{len(KEEP_XLA_CPU)} keep XLA:CPU's, {len(refused)} XLA:GPU "
          f"cannot run")
    if unknown:
        # A bundle made from another checkout: these cases still hold
        # XLA:CPU's outputs, so say so rather than let them fail obscurely.
        sys.exit(f"zoo cases not in this checkout's zoo (is the bundle from "
                 f"another commit?): {', '.join(unknown)}")


if __name__ == "__main__":
    if (len(sys.argv) in (3, 4) and sys.argv[1] == "--xla-gpu"
            and sys.argv[3:] in ([], ["--time"])):
        # jax_harness chose the CPU; no backend has started yet.
        jax.config.update("jax_platforms", "cuda,cpu")
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
            __file__)), "..", "..", "tools", "gpu_bench"))
        expect_xla_gpu(sys.argv[2], timed=len(sys.argv) == 4)
    elif len(sys.argv) == 2 and not sys.argv[1].startswith("-"):
        write_cases(sys.argv[1])
    elif (len(sys.argv) == 3 and not sys.argv[1].startswith("-")
          and sys.argv[2].startswith("--themes=")):
        write_cases(sys.argv[1],
                    sys.argv[2][len("--themes="):].split(","))
    else:
        sys.exit("usage: zoo_gpu_cases.py DIR [--themes=T,...] | "
                 "--xla-gpu BUNDLE [--time]")
