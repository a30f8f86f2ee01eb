#!/usr/bin/env bash
# Issue 10's whole programs and dots (tools/gpu_bench/models_bench.py) as
# one command here and one there: compiles every module JAX lowered for
# cuda (tools/gpu_bench/lowered/NAME.pb) into the bundle, with the Python
# half that times them beside XLA:GPU and cuBLAS.
#
#   scripts/gpu_models.sh [--relower] [-o DIR] [--gpu-arch=sm_90]   # here
#   python3 DIR/gpu_bench/models_bench.py run DIR --out "$OUT"     # there
#
# JAX lowers for the GPU on this CPU-only machine (lowering_platforms=
# ("cuda",)), so the stored modules are the ones XLA:GPU compiles; they are
# small, the inputs are made from a seed there. --relower lowers them again
# first (after changing models.py or dots.py). Without a bundle (no
# DIR/hlo-run-gpu) scripts/gpu_bundle.sh makes one; in an existing one,
# hlo-run-gpu is replaced by a fresh build. A module that does not compile
# is listed in DIR/models/compile.txt with hlo-opt's message; the table
# shows it as FAIL with that message.
set -euo pipefail
cd "$(dirname "$0")/.."

out=gpu-bundle
arch=sm_90
relower=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    -o) out="$2"; shift 2 ;;
    --gpu-arch=*) arch="${1#--gpu-arch=}"; shift ;;
    --relower) relower=1; shift ;;
    *) echo "gpu_models: unknown argument $1" >&2; exit 2 ;;
  esac
done
lowered=tools/gpu_bench/lowered
if [[ $relower == 1 ]]; then
  rm -rf "$lowered"
  python3 tools/gpu_bench/models_bench.py lower "$lowered" >&2
fi
if [[ -x "$out/hlo-run-gpu" ]]; then
  # The bundle may predate the hlo-run-gpu flags models_bench.py uses
  # (--time-run); its libraries stay.
  bazel build //tools:hlo-run-gpu >&2
  install -m 755 bazel-bin/tools/hlo-run-gpu "$out/"
else
  scripts/gpu_bundle.sh -o "$out"
fi
bazel build //tools:hlo-opt >&2

rm -rf "$out/models"
mkdir -p "$out/models" "$out/gpu_bench"
: > "$out/models/compile.txt"
count=0
for module in "$lowered"/*.pb; do
  name="$(basename "$module" .pb)"
  mkdir -p "$out/models/$name"
  count=$((count + 1))
  if ! bazel-bin/tools/hlo-opt "$module" --platform=cuda --gpu-arch="$arch" \
      --stage=executable -o "$out/models/$name/m.hloexe" \
      > "$out/models/$name/log" 2>&1; then
    echo "$name: $(tail -1 "$out/models/$name/log" | sed 's/^ *//')" \
      >> "$out/models/compile.txt"
    rm -rf "${out:?}/models/$name"
    continue
  fi
  rm -f "$out/models/$name/log"
  # The prologue dots again without dot-prologue-fusion: what its flops
  # limit trades (models_bench.py times both).
  if [[ $name == dot_prologue_* ]]; then
    bazel-bin/tools/hlo-opt "$module" --platform=cuda --gpu-arch="$arch" \
      --disable-passes=dot-prologue-fusion --stage=executable \
      -o "$out/models/$name/m_unfused.hloexe" >&2
  fi
done
failed=$(wc -l < "$out/models/compile.txt")
echo "gpu_models: $((count - failed)) of $count modules compiled for $arch" >&2
[[ $failed == 0 ]] || cat "$out/models/compile.txt" >&2
cp tools/gpu_bench/*.py "$out/gpu_bench/"
du -sh "$out" >&2
