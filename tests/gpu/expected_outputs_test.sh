#!/bin/bash
# The GPU cases' expected outputs (tests/gpu/*/out<i>.npy, which
# gpu-bundle/run.sh compares the GPU's results with) are still the
# reference evaluator's: each case runs here on the interpreter against
# them, with its own flags file, keeping denormals as the cuda backend
# does. A change to the evaluator's semantics, or a case edited without
# writing its outputs again, fails here instead of on the GPU machine.
set -u
HLO_RUN="$1"
shift
failures=0
count=0
for module in "$@"; do
  case_dir="$(dirname "$module")"
  args=(--platform=interpreter --denormals=keep --expect="$case_dir")
  ls "$case_dir"/in*.npy > /dev/null 2>&1 && args+=(--inputs="$case_dir")
  [[ -f "$case_dir/flags" ]] && mapfile -t -O "${#args[@]}" args < "$case_dir/flags"
  count=$((count + 1))
  if ! out=$("$HLO_RUN" "$module" "${args[@]}" 2>&1); then
    echo "FAIL: $case_dir"
    echo "$out" | tail -12
    failures=$((failures + 1))
  fi
done
echo "expected outputs: $((count - failures)) of $count GPU cases match the evaluator"
[[ $count -gt 0 && $failures -eq 0 ]]
