#!/usr/bin/env bash
# The GPU check as one command here and one there: compiles every corpus
# module (module.hlo and xla_gpu_opt.hlo, ../shared/corpus/jax) and every
# case JAX lowered for the GPU (tests/jax/gpu_cases) for cuda, with their
# inputs and XLA's outputs, into the bundle (scripts/gpu_bundle.sh); also
# the hand-written odd-size cases of tests/gpu (expected outputs from the
# evaluator), the kernels' odd-size cases of tests/gpu_kernels and the
# model zoo's programs lowered for cuda (tests/jax/zoo_gpu_cases.py; both
# made by JAX, where it is installed), and the differential fuzzer's
# generated modules (expected outputs from the evaluator, bit for bit).
#
#   scripts/gpu_check.sh [--tests] [--gpu-arch=sm_90] [--zoo-themes=T,...]
#                                                       # here -> gpu-bundle/
#   python3 tests/jax/zoo_gpu_cases.py --xla-gpu gpu-bundle \
#     && gpu-bundle/run.sh                              # on the GPU machine
#
# --zoo-themes: only those themes of the zoo (tests/jax/zoo/__init__.py's
# THEMES), for a quick check of new programs; every other case is built.
#
# The corpus cases also carry JAX's HloModuleProto (xla_module.pb), which
# tools/gpu_bench/corpus_bench.py times on XLA:GPU beside hloc's
# executable (issue 10's small modules, per call).
#
# With the device tool: run `gpu-bundle/run.sh` with carry ["gpu-bundle"].
# A module that does not compile is listed in gpu-bundle/compile.txt (and
# by run.sh) with the compiler's message; it is not a pass.
#
# XLA:GPU computed these outputs with TF32 f32 dots and convolutions, so
# modules with default-precision f32 contractions are compared with the
# TF32 allowance (hlo-run --expect-tf32), as runtime/compare.h describes.
set -euo pipefail
cd "$(dirname "$0")/.."

bundle_flags=()
arch=sm_90
zoo_flags=()
for arg in "$@"; do
  case "$arg" in
    --tests) bundle_flags+=(--tests) ;;
    --gpu-arch=*) arch="${arg#--gpu-arch=}" ;;
    --zoo-themes=*) zoo_flags+=("--themes=${arg#--zoo-themes=}") ;;
    *) echo "gpu_check: unknown argument $arg" >&2; exit 2 ;;
  esac
done

bazel build //tools:hlo-opt //tools:hlo-run >&2
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
: > "$stage/compile.txt"
: > "$stage/notes.txt"

# Cases whose recorded XLA:GPU outputs are wrong, checked against the
# reference evaluator instead (its outputs computed here). dot_mixed_int:
# lax.dot_general of s8 x s8 with preferred_element_type=s32; XLA:GPU (JAX
# 0.11.2, H100) returned exactly twice the product that NumPy, XLA:CPU and
# the evaluator agree on.
xla_gpu_wrong=(jax.dot_mixed_int.0 jax.dot_mixed_int.1)

# compile NAME MODULE DATA_DIR [HLO-OPT FLAG...]: one case folder in the
# stage; DATA_DIR/hlo_opt_flags (one a line) adds flags of the case's own.
compile() {
  local name="$1" module="$2" data="$3" dir="$stage/cases/$1"
  shift 3
  if [[ -f "$data/hlo_opt_flags" ]]; then
    local flag
    while IFS= read -r flag; do set -- "$@" "$flag"; done \
      < "$data/hlo_opt_flags"
  fi
  mkdir -p "$dir"
  if ! bazel-bin/tools/hlo-opt "$module" --platform=cuda --gpu-arch="$arch" \
      --stage=executable "$@" -o "$dir/m.hloexe" > "$dir/log" 2>&1; then
    echo "$name: $(tail -1 "$dir/log")" >> "$stage/compile.txt"
    rm -rf "$dir"
    return 0
  fi
  cp "$data"/in*.npy "$dir/" 2>/dev/null || true
  if [[ " ${xla_gpu_wrong[*]} " == *" $name "* ]]; then
    bazel-bin/tools/hlo-run "$module" --inputs="$data" --output="$dir" \
      > /dev/null
    echo "$name: compared with the evaluator (XLA:GPU's outputs are wrong)" \
      >> "$stage/notes.txt"
  else
    cp "$data"/out*.npy "$dir/" 2>/dev/null || true
  fi
  echo "--expect-tf32" > "$dir/flags"
  # A case's own flags (tests/gpu/*/flags: e.g. --rtol=0 --atol=0 where
  # the outputs must be bit for bit).
  [[ -f "$data/flags" ]] && cat "$data/flags" >> "$dir/flags"
  rm -f "$dir/log"
}

corpus=../shared/corpus/jax
count=0
if [[ -d $corpus ]]; then
  for case in "$corpus"/*/; do
    name="$(basename "$case")"
    compile "corpus.$name" "$case/module.hlo" "$case"
    # JAX's own proto of the module: XLA:GPU's side of the per-call
    # comparison (tools/gpu_bench/corpus_bench.py).
    if [[ -d "$stage/cases/corpus.$name" && -f "$case/module.pb" ]]; then
      cp "$case/module.pb" "$stage/cases/corpus.$name/xla_module.pb"
    fi
    compile "corpus_xla_opt.$name" "$case/xla_gpu_opt.hlo" "$case"
    count=$((count + 2))
  done
else
  echo "gpu_check: no corpus at $corpus; skipping it" >&2
fi
for case in tests/jax/gpu_cases/*/; do
  compile "jax.$(basename "$case")" "$case/module.pb" "$case"
  count=$((count + 1))
done
for case in tests/gpu/*/; do
  compile "gpu.$(basename "$case")" "$case/module.hlo" "$case"
  count=$((count + 1))
done
# The kernels' odd-size cases (tests/gpu_kernels/make_cases.py), made here
# with JAX on the CPU (XLA:CPU's outputs are the expected ones).
if python3 -c "import jax, ml_dtypes" 2> /dev/null; then
  python3 tests/gpu_kernels/make_cases.py "$stage/kernel_cases" >&2
  for case in "$stage"/kernel_cases/*/; do
    compile "kernel.$(basename "$case")" "$case/module.pb" "$case"
    count=$((count + 1))
  done
  # The model zoo (tests/jax/zoo: the programs zoo_test checks on the CPU
  # targets), lowered for cuda, with XLA:CPU's outputs; on the GPU machine
  # `zoo_gpu_cases.py --xla-gpu` replaces them with XLA:GPU's.
  python3 tests/jax/zoo_gpu_cases.py "$stage/zoo_cases" "${zoo_flags[@]}" >&2
  for case in "$stage"/zoo_cases/*/; do
    compile "zoo.$(basename "$case")" "$case/module.pb" "$case"
    count=$((count + 1))
  done
else
  echo "gpu_check: no JAX here; skipping tests/gpu_kernels and the zoo" >&2
fi
# The differential fuzzer's modules (fuzz/differential: exact arithmetic by
# construction over f32, f16, bf16, s32 and pred, with layouts, slices,
# transposes, reductions and dots), without float divides and with dots at
# precision HIGHEST (ForExactTarget, differential_check.h, says why), every
# bf16/f16 rounding kept: each must match the evaluator bit for bit.
diff_cases=${HLOC_GPU_DIFF_CASES:-300}
bazel build //fuzz/differential:hlo-diff-fuzz >&2
bazel-bin/fuzz/differential/hlo-diff-fuzz --write-cases="$stage/diff_cases" \
  --seed=1 --count="$diff_cases"
for case in "$stage"/diff_cases/*/; do
  bazel-bin/tools/hlo-run "$case/module.hlo" --platform=interpreter \
    --inputs="$case" --output="$case" --denormals=keep > /dev/null
  printf -- '--rtol=0\n--atol=0\n' > "$case/flags"
  compile "diff.$(basename "$case")" "$case/module.hlo" "$case" \
    --allow-excess-precision=false
  count=$((count + 1))
done
failed=$(wc -l < "$stage/compile.txt")
echo "gpu_check: $((count - failed)) of $count modules compiled for $arch" >&2
[[ $failed == 0 ]] || cat "$stage/compile.txt" >&2

scripts/gpu_bundle.sh "${bundle_flags[@]}" "$stage"/cases/*/
cp "$stage/compile.txt" gpu-bundle/compile.txt
cat "$stage/notes.txt" >&2
