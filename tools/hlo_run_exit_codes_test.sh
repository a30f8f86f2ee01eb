#!/bin/bash
# Runs the hlo-run binary itself and checks its exit statuses: 0 when the
# outputs match, 1 on a mismatch, 2 on bad input.
set -u
HLO_RUN="$1"
CASE="$2"  # a directory with module.hlo, in<i>.npy and out<i>.npy
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

expect_status() {
  local want="$1"
  shift
  "$HLO_RUN" "$@" >"$TMP/stdout" 2>"$TMP/stderr"
  local got=$?
  if [[ "$got" != "$want" ]]; then
    echo "FAIL: hlo-run $* exited $got, expected $want"
    cat "$TMP/stdout" "$TMP/stderr"
    failures=$((failures + 1))
  fi
}

expect_status 0 "$CASE/module.hlo" --inputs "$CASE" --expect "$CASE"
grep -q "all outputs match" "$TMP/stdout" || { echo "FAIL: no summary"; failures=$((failures + 1)); }

# Expected outputs that differ: out0 replaced by an input of the same shape.
mkdir -p "$TMP/wrong"
cp "$CASE"/out*.npy "$TMP/wrong/"
cp "$CASE/in0.npy" "$TMP/wrong/out0.npy"
expect_status 1 "$CASE/module.hlo" --inputs="$CASE" --expect="$TMP/wrong"
grep -q "MISMATCH" "$TMP/stdout" || { echo "FAIL: no MISMATCH line"; failures=$((failures + 1)); }

expect_status 2 "$CASE/module.hlo" --inputs "$CASE" --no-such-flag
grep -q "unknown flag '--no-such-flag'" "$TMP/stderr" || { echo "FAIL: unclear flag error"; failures=$((failures + 1)); }
expect_status 2 "$TMP/missing.hlo" --random-inputs=1
expect_status 2 "$CASE/module.hlo" --inputs "$TMP/wrong"
expect_status 2 "$CASE/module.hlo"
expect_status 0 --help

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
