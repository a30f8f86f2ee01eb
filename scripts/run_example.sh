#!/usr/bin/env bash
# The README's main job: set up (idempotent), build the tools, and run the
# example module: parse, verify and print it, show what the cuda pipeline
# fuses it into, then run it with random inputs on the reference evaluator.
# Later issues switch the run to the compiled CPU backend.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh
bazel build //tools:hlo-opt //tools:hlo-run
bin="$(bazel info bazel-bin 2>/dev/null)/tools"
example="${1:-tools/examples/softmax.hlo}"

echo "== hlo-opt ${example} (parsed, verified, printed)"
"${bin}/hlo-opt" "${example}" --print-metadata=false
echo "== hlo-opt ${example} --platform=cuda (optimised and fused)"
"${bin}/hlo-opt" "${example}" --platform=cuda --print-metadata=false
echo "== hlo-run ${example} --random-inputs=1 (reference evaluator)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"${bin}/hlo-run" "${example}" --random-inputs=1 --output "${out}"
