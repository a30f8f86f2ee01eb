#!/usr/bin/env bash
# The GPU benchmark (issue 10's tables) as one command here and one there:
# lowers every case of tools/gpu_bench/cases.py with JAX, compiles each for
# cuda, and adds the executables and the benchmark's Python half to a
# bundle made by scripts/gpu_bundle.sh or scripts/gpu_check.sh.
#
#   scripts/gpu_check.sh --tests && scripts/gpu_bench.sh [-o DIR]  # here
#   python3 DIR/gpu_bench/gpu_bench.py table DIR [--markdown F]   # there
#
# There, the table runs hloc's executables (hlo-run-gpu --random-inputs
# --iterations --time-run: random inputs made once, the median time per run
# of 20 runs back to back from CUDA events), XLA:GPU and torch.compile on
# the same functions, timed alike, and a 1 GiB device-to-device copy, all
# in the same process run.
set -euo pipefail
cd "$(dirname "$0")/.."

out=gpu-bundle
arch=sm_90
while [[ $# -gt 0 ]]; do
  case "$1" in
    -o) out="$2"; shift 2 ;;
    --gpu-arch=*) arch="${1#--gpu-arch=}"; shift ;;
    *) echo "gpu_bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -x "$out/hlo-run-gpu" ]] || {
  echo "gpu_bench: $out has no hlo-run-gpu; run scripts/gpu_bundle.sh first" >&2
  exit 2
}
bazel build //tools:hlo-opt >&2
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
python3 tools/gpu_bench/gpu_bench.py lower "$stage" >&2
rm -rf "$out/bench" "$out/gpu_bench"
mkdir -p "$out/bench" "$out/gpu_bench"
for dir in "$stage"/*/; do
  name="$(basename "$dir")"
  mkdir -p "$out/bench/$name"
  if ! bazel-bin/tools/hlo-opt "$dir/module.pb" --platform=cuda \
      --gpu-arch="$arch" --stage=executable \
      -o "$out/bench/$name/m.hloexe" > "$stage/$name.log" 2>&1; then
    echo "gpu_bench: $name does not compile: $(tail -1 "$stage/$name.log")" >&2
    rm -rf "${out:?}/bench/$name"
  fi
done
# Every module of the Python half: models_bench.py (scripts/gpu_models.sh)
# shares this folder.
cp tools/gpu_bench/*.py "$out/gpu_bench/"
du -sh "$out" >&2
