#!/usr/bin/env bash
# The README's main job: set up (idempotent), build the tools, and run the
# example module: parse, verify and print it, show what the cpu pipeline
# fuses it into, run it on the reference evaluator, then compile it for the
# CPU (LLVM JIT, OpenMP) and run it there, checked against the evaluator.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh
bazel build //tools:hlo-opt //tools:hlo-run
bin="$(bazel info bazel-bin 2>/dev/null)/tools"
example="${1:-tools/examples/softmax.hlo}"

echo "== hlo-opt ${example} (parsed, verified, printed)"
"${bin}/hlo-opt" "${example}" --print-metadata=false
echo "== hlo-opt ${example} --platform=cpu (optimised and fused)"
"${bin}/hlo-opt" "${example}" --platform=cpu --print-metadata=false
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
echo "== hlo-run ${example} --random-inputs=1 (reference evaluator)"
"${bin}/hlo-run" "${example}" --random-inputs=1 --output "${out}"
echo "== hlo-run ${example} --random-inputs=1 --platform=cpu (compiled)"
"${bin}/hlo-run" "${example}" --random-inputs=1 --platform=cpu
echo "== the same on the CPU, compared with the evaluator's outputs"
"${bin}/hlo-run" "${example}" --random-inputs=1 --platform=cpu \
  --expect "${out}"
