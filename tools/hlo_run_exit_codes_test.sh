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

# Values larger than the host's memory: a clear message naming the value,
# exit 2, no abort (std::bad_alloc used to end hlo-run with exit 134).
cat >"$TMP/huge_result.hlo" <<'HLO'
HloModule huge_result
ENTRY e {
  p = f32[] parameter(0)
  ROOT a = f32[100000,100000,4] broadcast(p), dimensions={}
}
HLO
expect_status 2 "$TMP/huge_result.hlo" --platform=interpreter --random-inputs=1
grep -q "the result of a: f32\[100000,100000,4\].* needs 160.0 GB, more than this host's" "$TMP/stderr" ||
  { echo "FAIL: no clear message for a huge result"; cat "$TMP/stderr"; failures=$((failures + 1)); }
cat >"$TMP/huge_input.hlo" <<'HLO'
HloModule huge_input
ENTRY e {
  p = f32[100000,100000,4] parameter(0)
  ROOT n = f32[100000,100000,4] negate(p)
}
HLO
# A loop that never ends, stopped by the iteration limit: exit 3 (failed
# to run), the loop named.
cat >"$TMP/forever.hlo" <<'HLO'
HloModule forever
cond {
  s = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}
ENTRY e {
  z = s32[] constant(0)
  ROOT w = s32[] while(z), condition=cond, body=body
}
HLO
expect_status 3 "$TMP/forever.hlo" --max-while-iterations=1000
grep -q "while loop w did not finish within 1000 iterations" "$TMP/stderr" ||
  { echo "FAIL: the endless loop was not named"; cat "$TMP/stderr"; failures=$((failures + 1)); }
expect_status 2 "$TMP/forever.hlo" --max-while-iterations=0
for platform in interpreter cpu; do
  expect_status 2 "$TMP/huge_input.hlo" --platform=$platform --random-inputs=1
  grep -q "parameter 0 (p: f32\[100000,100000,4\]): random values: .* needs 160.0 GB" "$TMP/stderr" ||
    { echo "FAIL: no clear message for a huge input ($platform)"; cat "$TMP/stderr"; failures=$((failures + 1)); }
done

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
