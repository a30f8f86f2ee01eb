#!/usr/bin/env bash
# The project's test command: set up (idempotent), then build and run every
# test. Extra arguments go to `bazel test` (e.g. scripts/test.sh --config=asserts).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
rc=0
bazel test //... --test_output=errors "$@" 2>&1 | tee "$log" || rc=$?
# A plain summary line for CI log readers (Bazel prints one status per test).
passed="$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log" || true)"
failed="$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|FLAKY|INCOMPLETE|REMOTE FAILURE|FAILED TO BUILD)' "$log" || true)"
echo "${passed} passed, ${failed} failed"
exit "$rc"
