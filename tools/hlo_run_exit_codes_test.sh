#!/bin/bash
# Runs the hlo-run binary itself and checks its exit statuses: 0 when the
# outputs match, 1 on a mismatch, 2 on bad input.
set -u
HLO_RUN="$1"
CASE="$2"  # a directory with module.hlo, in<i>.npy and out<i>.npy
source "$(dirname "$0")/shell_expect.sh"

expect_status 0 "$HLO_RUN" "$CASE/module.hlo" --inputs "$CASE" --expect "$CASE"
expect_match stdout "all outputs match"

# Expected outputs that differ: out0 replaced by an input of the same shape.
mkdir -p "$TMP/wrong"
cp "$CASE"/out*.npy "$TMP/wrong/"
cp "$CASE/in0.npy" "$TMP/wrong/out0.npy"
expect_status 1 "$HLO_RUN" "$CASE/module.hlo" --inputs="$CASE" --expect="$TMP/wrong"
expect_match stdout "MISMATCH"

expect_status 2 "$HLO_RUN" "$CASE/module.hlo" --inputs "$CASE" --no-such-flag
expect_match stderr "unknown flag '--no-such-flag'"
expect_status 2 "$HLO_RUN" "$TMP/missing.hlo" --random-inputs=1
expect_status 2 "$HLO_RUN" "$CASE/module.hlo" --inputs "$TMP/wrong"
expect_status 2 "$HLO_RUN" "$CASE/module.hlo"
expect_status 0 "$HLO_RUN" --help

# Values larger than the host's memory: a clear message naming the value,
# exit 2, no abort (std::bad_alloc used to end hlo-run with exit 134).
cat >"$TMP/huge_result.hlo" <<'HLO'
HloModule huge_result
ENTRY e {
  p = f32[] parameter(0)
  ROOT a = f32[100000,100000,4] broadcast(p), dimensions={}
}
HLO
expect_status 2 "$HLO_RUN" "$TMP/huge_result.hlo" --platform=interpreter --random-inputs=1
expect_match stderr "the result of a: f32\[100000,100000,4\].* needs 160.0 GB, more than this host's"
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
# The same loop nested in the body of a loop of three iterations: the
# inner one is named, and the outer one stops too.
cat >"$TMP/nested.hlo" <<'HLO'
HloModule nested
inner_cond {
  s = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}
inner_body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}
outer_cond {
  s = s32[] parameter(0)
  three = s32[] constant(3)
  ROOT lt = pred[] compare(s, three), direction=LT
}
outer_body {
  s = s32[] parameter(0)
  endless = s32[] while(s), condition=inner_cond, body=inner_body
  one = s32[] constant(1)
  ROOT n = s32[] add(endless, one)
}
ENTRY e {
  z = s32[] parameter(0)
  ROOT outer = s32[] while(z), condition=outer_cond, body=outer_body
}
HLO
# A loop of exactly five iterations: it finishes within a limit of five,
# not four.
cat >"$TMP/five.hlo" <<'HLO'
HloModule five
cond {
  s = s32[] parameter(0)
  n = s32[] constant(5)
  ROOT lt = pred[] compare(s, n), direction=LT
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}
ENTRY e {
  z = s32[] parameter(0)
  ROOT counted = s32[] while(z), condition=cond, body=body
}
HLO
mkdir -p "$TMP/zero"
# in0.npy: a little-endian int32 scalar 0 (numpy's format 1.0: magic,
# version, a 118-byte header padded with spaces so the data starts at 128).
header="{'descr': '<i4', 'fortran_order': False, 'shape': (), }"
header="$header$(printf '%*s' $((128 - 10 - ${#header} - 1)) '')"
{ printf '\x93NUMPY\x01\x00\x76\x00'; printf '%s\n' "$header"; printf '\x00\x00\x00\x00'; } \
  >"$TMP/zero/in0.npy"
for platform in interpreter cpu; do
  expect_status 3 "$HLO_RUN" "$TMP/forever.hlo" --platform=$platform --max-while-iterations=1000
  expect_match stderr "$platform failed to run .*while loop w did not finish within 1000 iterations"
  expect_status 3 "$HLO_RUN" "$TMP/nested.hlo" --platform=$platform --inputs="$TMP/zero" \
    --max-while-iterations=50
  expect_match stderr "while loop endless did not finish within 50 iterations"
  expect_status 0 "$HLO_RUN" "$TMP/five.hlo" --platform=$platform --inputs="$TMP/zero" \
    --max-while-iterations=5
  expect_match stdout "^out0 s32\[\] 5$"
  expect_status 3 "$HLO_RUN" "$TMP/five.hlo" --platform=$platform --inputs="$TMP/zero" \
    --max-while-iterations=4
  expect_match stderr "while loop counted did not finish within 4 iterations"
done
expect_status 2 "$HLO_RUN" "$TMP/forever.hlo" --max-while-iterations=0
# AArch64 object code asks its driver, which sets no limit: the loop links
# and runs there, and the flag is refused rather than ignored.
expect_status 0 "$HLO_RUN" "$TMP/five.hlo" --platform=cpu --target=aarch64 --inputs="$TMP/zero"
expect_match stdout "^out0 s32\[\] 5$"
expect_status 2 "$HLO_RUN" "$TMP/forever.hlo" --platform=cpu --target=aarch64 --max-while-iterations=10
# Platforms without a limit refuse the flag rather than ignore it.
expect_status 2 "$HLO_RUN" "$TMP/forever.hlo" --platform=cuda --max-while-iterations=10
expect_match stderr "flag --max-while-iterations: --platform=cuda has no while-loop limit"
for platform in interpreter cpu; do
  expect_status 2 "$HLO_RUN" "$TMP/huge_input.hlo" --platform=$platform --random-inputs=1
  expect_match stderr "parameter 0 (p: f32\[100000,100000,4\]): random values: .* needs 160.0 GB"
done

finish
