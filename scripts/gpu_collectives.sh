#!/usr/bin/env bash
# The multi-GPU check as one command here and one there: every collective
# op and JAX's pmap programs (tests/gpu_collectives/make_cases.py) compiled
# for a run of N GPUs, with their expected outputs, and f32 all-reduces of
# 1 MiB to 1 GiB for the bandwidth table, into one bundle.
#
#   scripts/gpu_collectives.sh [--devices=N] [-o DIR]   # here -> gpu-bundle-multi/
#   DIR/run.sh                        # there: every case on N GPUs (NCCL)
#   DIR/allreduce-bench DIR/allreduce/*.hloexe   # there: the bandwidth table
#
# With the device tool: a kind with N GPUs (nvidia-h100-x2 for N=2), carry
# ["gpu-bundle-multi"], and NCCL_NVLS_ENABLE=0 in the command's environment
# (the runtime sets it too unless it is set).
set -euo pipefail
cd "$(dirname "$0")/.."

devices=2
out=gpu-bundle-multi
while [[ $# -gt 0 ]]; do
  case "$1" in
    --devices=*) devices="${1#--devices=}"; shift ;;
    -o) out="$2"; shift 2 ;;
    *) echo "gpu_collectives: unknown argument $1" >&2; exit 2 ;;
  esac
done

bazel build //tools:hlo-opt //tools:hlo-run >&2
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
python3 tests/gpu_collectives/make_cases.py bazel-bin/tools/hlo-opt \
  bazel-bin/tools/hlo-run "$devices" "$stage/cases" >&2
scripts/gpu_bundle.sh -o "$out" "$stage"/cases/*/

# The bandwidth table's all-reduces: a sum of f32[n] over every device.
mkdir -p "$out/allreduce"
for mib in 1 2 4 8 16 32 64 128 256 512 1024; do
  n=$((mib * 262144))
  name=$(printf 'allreduce_%04dMiB' "$mib")
  cat > "$stage/$name.hlo" <<HLO
HloModule $name, replica_count=$devices

add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }

ENTRY e {
  p = f32[$n] parameter(0)
  ROOT r = f32[$n] all-reduce(p), to_apply=add
}
HLO
  bazel-bin/tools/hlo-opt "$stage/$name.hlo" --platform=cuda \
    --stage=executable -o "$out/allreduce/$name.hloexe"
done
du -sh "$out" >&2
