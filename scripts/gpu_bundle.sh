#!/usr/bin/env bash
# Builds hlo-run-gpu (no LLVM) and puts it, with every shared library it
# needs that a Linux machine with a GPU may lack (abseil, protobuf, ...),
# into one folder to carry to the GPU machine: that machine has glibc and
# libstdc++ but no Debian abseil/protobuf and no LLVM (../shared/TOOLCHAIN.md).
#
#   scripts/gpu_bundle.sh [-o DIR] [--tests] [CASE_DIR ...]
#
# -o DIR   the bundle folder (default gpu-bundle/, ignored by git)
# --tests  also the CUDA runtime's test binaries (they skip without a GPU)
# CASE_DIR a folder with m.hloexe (hlo-opt --platform=cuda
#          --stage=executable -o m.hloexe), in<i>.npy and, to compare,
#          out<i>.npy, and optionally `flags` (more hlo-run flags, one a
#          line, e.g. a tolerance), and for XLA:GPU's side of the
#          corpus benchmark (tools/gpu_bench/corpus_bench.py) the source
#          HloModuleProto as xla_module.pb; copied to DIR/cases/<name>/
#
# On the GPU machine, one command runs everything in the bundle:
#   DIR/run.sh
# (each case with --expect when it has outputs, then the tests; a summary
# last; exit status non-zero if anything failed). HLOC_RUN_JOBS=N runs N
# cases at once (default 1): a device lease is short and each case spends
# most of its time starting a process and a CUDA context, but the
# per-kernel profiles of cases run together share the GPU, so read them
# from a run of one job.
set -euo pipefail
cd "$(dirname "$0")/.."

out=gpu-bundle
tests=0
cases=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -o) out="$2"; shift 2 ;;
    --tests) tests=1; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) cases+=("$1"); shift ;;
  esac
done

targets=(//tools:hlo-run-gpu //tools/gpu_bench:allreduce-bench)
test_names=(cuda_driver_test cuda_executor_test cudnn_conv_test
            hlo_run_cuda_test)
if [[ $tests == 1 ]]; then
  targets+=(//runtime:cuda_driver_test //runtime:cuda_executor_test
            //runtime:cudnn_conv_test //tools:hlo_run_cuda_test)
fi
bazel build "${targets[@]}" >&2

rm -rf "$out"
mkdir -p "$out/cases"
binaries=(bazel-bin/tools/hlo-run-gpu bazel-bin/tools/gpu_bench/allreduce-bench)
if [[ $tests == 1 ]]; then
  binaries+=(bazel-bin/runtime/cuda_driver_test
             bazel-bin/runtime/cuda_executor_test
             bazel-bin/runtime/cudnn_conv_test
             bazel-bin/tools/hlo_run_cuda_test)
  mkdir -p "$out/tests"
fi
for binary in "${binaries[@]}"; do
  dest="$out"
  [[ $(basename "$binary") == *_test ]] && dest="$out/tests"
  install -m 755 "$binary" "$dest/"
done

# Every library ldd resolves, except the C runtime every Linux has (and
# must not be replaced: a bundled older libstdc++ would also be used by the
# driver's own libraries, loaded later with dlopen).
system_library='^(linux-vdso|ld-linux|libc|libm|libdl|librt|libpthread|libresolv|libstdc\+\+|libgcc_s)\.so'
# LAPACK and BLAS (the cuda runtime's host LAPACK calls, runtime/
# lapack_step.h) travel as Debian's reference builds, which need nothing
# else, not the OpenBLAS that Debian's alternatives may point them at here
# (36 MB more for the few small matrices JAX's host calls see).
reference_lapack=/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3
reference_blas=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3
for binary in "${binaries[@]}"; do
  ldd "$binary" | awk '/=> \// {print $1, $3}'
done | sort -u | while read -r name path; do
  if [[ $name =~ $system_library ]]; then continue; fi
  if [[ -f $reference_lapack && -f $reference_blas ]]; then
    case "$name" in
      libopenblas.so.*) continue ;;
      liblapack.so.3) path=$reference_lapack ;;
      libblas.so.3) path=$reference_blas ;;
    esac
  fi
  install -m 644 "$path" "$out/$name"
done

for dir in "${cases[@]}"; do
  [[ -f "$dir/m.hloexe" ]] || { echo "gpu_bundle: $dir has no m.hloexe" >&2; exit 2; }
  mkdir -p "$out/cases/$(basename "$dir")"
  cp "$dir"/m.hloexe "$dir"/*.npy "$out/cases/$(basename "$dir")/" 2>/dev/null || true
  [[ -f "$dir/flags" ]] && cp "$dir/flags" "$out/cases/$(basename "$dir")/"
  [[ -f "$dir/xla_module.pb" ]] && cp "$dir/xla_module.pb" "$out/cases/$(basename "$dir")/"
done

cat > "$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs every case and test in this bundle on this machine's GPU.
here="$(cd "$(dirname "$0")" && pwd)"
export LD_LIBRARY_PATH="$here${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
summary=()
failed=0
"$here/hlo-run-gpu" --help > /dev/null || { echo "hlo-run-gpu does not start"; exit 2; }
jobs="${HLOC_RUN_JOBS:-1}"
logs="$(mktemp -d)"
# run_case CASE_DIR: its output and exit status into $logs/<name>.{log,code}.
# A case runs as a user runs it, its steps in CUDA graphs (captured on
# several streams); HLOC_RUN_PROFILE=1 times every step instead (no graphs)
# and prints the per-kernel table.
run_case() {
  local case="$1" name
  name=$(basename "$case")
  local args=("$case/m.hloexe" --platform=cuda)
  [[ "${HLOC_RUN_PROFILE:-0}" == 1 ]] && args+=(--profile)
  ls "$case"/in*.npy > /dev/null 2>&1 && args+=(--inputs="$case")
  ls "$case"/out*.npy > /dev/null 2>&1 && args+=(--expect="$case")
  [[ -f "$case/flags" ]] && mapfile -t -O "${#args[@]}" args < "$case/flags"
  "$here/hlo-run-gpu" "${args[@]}" > "$logs/$name.log" 2>&1
  echo $? > "$logs/$name.code"
}
names=()
for case in "$here"/cases/*/; do
  [[ -f "$case/m.hloexe" ]] || continue
  names+=("$(basename "$case")")
  while (( $(jobs -rp | wc -l) >= jobs )); do wait -n; done
  run_case "$case" &
done
wait
for name in "${names[@]}"; do
  echo "=== case $name"
  cat "$logs/$name.log"
  code=$(cat "$logs/$name.code")
  summary+=("case $name: exit $code")
  [[ $code == 0 ]] || failed=1
done
rm -rf "$logs"
for test in "$here"/tests/*_test; do
  [[ -x "$test" ]] || continue
  echo "=== test $(basename "$test")"
  (cd "$here/tests" && TEST_TMPDIR="$(mktemp -d)" "$test")
  code=$?
  summary+=("test $(basename "$test"): exit $code")
  [[ $code == 0 ]] || failed=1
done
echo "=== summary ($(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1))"
printf '%s\n' "${summary[@]}"
passed=$(printf '%s\n' "${summary[@]}" | grep -c ': exit 0$' || true)
echo "${passed} of ${#summary[@]} passed"
if [[ -s "$here/compile.txt" ]]; then
  echo "not compiled ($(wc -l < "$here/compile.txt")):"
  cat "$here/compile.txt"
fi
exit $failed
RUN
chmod 755 "$out/run.sh"
du -sh "$out" >&2
echo "bundle: $out (run $out/run.sh on the GPU machine)" >&2
