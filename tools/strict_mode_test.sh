#!/bin/bash
# hlo-opt and hlo-run with --fallback / --no-fallback, run as a user would:
# exit statuses (0 ok, 2 bad usage, 3 cannot compile), what each prints,
# and that a failed compilation writes no file. Custom calls a backend does
# not implement are refused by target name whatever the choice.
set -u
HLO_OPT="$1"
HLO_RUN="$2"
DATA="$3"  # tools/testdata/strict
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

fail() {
  echo "FAIL: $*"
  cat "$TMP/stderr"
  failures=$((failures + 1))
}

# expect_status WANT TOOL ARGS...: runs TOOL, output in $TMP/stdout, stderr.
expect_status() {
  local want="$1" tool="$2"
  shift 2
  "$tool" "$@" >"$TMP/stdout" 2>"$TMP/stderr"
  local got=$?
  [[ "$got" == "$want" ]] || fail "$(basename "$tool") $* exited $got, expected $want"
}

# expect_stderr TEXT: a line of the last stderr contains TEXT (fixed string).
expect_stderr() {
  grep -qF -- "$1" "$TMP/stderr" || fail "stderr lacks: $1"
}

# expect_lines N PATTERN: exactly N lines of the last stderr match PATTERN.
expect_lines() {
  local n
  n=$(grep -c -- "$2" "$TMP/stderr")
  [[ "$n" == "$1" ]] || fail "$n lines match '$2', expected $1"
}

expect_no_file() {
  [[ ! -e "$1" ]] || fail "$1 was written"
  rm -f "$1"
}

# --- Unsupported custom calls: exit 3, target named, nothing written. ---
for choice in "" --fallback --no-fallback; do
  expect_status 3 "$HLO_OPT" "$DATA/custom_call.hlo" --platform=cpu \
    --stage=executable -o "$TMP/cc.hloexe" $choice
  expect_stderr 'c (custom-call): custom_call_target="lapack_sgesvd_ffi" has no cpu implementation'
  expect_no_file "$TMP/cc.hloexe"
done
expect_status 3 "$HLO_OPT" "$DATA/custom_call.hlo" --platform=cuda \
  --stage=executable -o "$TMP/cc.hloexe"
expect_stderr 'c (custom-call): custom_call_target="lapack_sgesvd_ffi" has no cuda implementation'
expect_no_file "$TMP/cc.hloexe"
expect_status 3 "$HLO_OPT" "$DATA/custom_call.hlo" --platform=cpu \
  --target=aarch64 --stage=object -o "$TMP/cc.o" --fallback
expect_stderr 'custom_call_target="lapack_sgesvd_ffi" has no aarch64 AOT implementation'
expect_no_file "$TMP/cc.o"
expect_status 3 "$HLO_RUN" "$DATA/custom_call.hlo" --platform=cpu --random-inputs=1
expect_stderr 'custom_call_target="lapack_sgesvd_ffi"'

# --- x86 host: fallback allowed by default, one warning line each. ---
expect_status 0 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cpu \
  --stage=executable -o "$TMP/f.hloexe"
expect_lines 2 '^hloc cpu: '
expect_stderr 'hloc cpu: r (all-reduce) runs in the evaluator: all-reduce r: to_apply sub'
expect_stderr 'hloc cpu: i (all-reduce) runs in the evaluator: all-reduce i: to_apply sub'
[[ -s "$TMP/f.hloexe" ]] || fail "no executable written with fallback allowed"
expect_status 0 "$HLO_RUN" "$DATA/fallback.hlo" --platform=cpu --random-inputs=1 --fallback
expect_lines 2 '^hloc cpu: '
# A saved executable is compiled already: strict refuses its evaluator steps.
expect_status 0 "$HLO_RUN" "$TMP/f.hloexe" --platform=cpu --random-inputs=1
expect_status 3 "$HLO_RUN" "$TMP/f.hloexe" --platform=cpu --random-inputs=1 --no-fallback
expect_stderr 'strict mode (--no-fallback): the saved executable runs 2 instructions in the reference evaluator:'
expect_stderr '  r: all-reduce r: to_apply sub is not a sum, product, min or max'

# --- Strict: exit 3, every instruction and its reason, nothing written. ---
expect_status 3 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cpu \
  --stage=executable -o "$TMP/strict.hloexe" --no-fallback
expect_stderr 'cpu strict mode (--no-fallback): 2 instructions would need the reference evaluator:'
expect_stderr '  r (all-reduce): all-reduce r: to_apply sub is not a sum, product, min or max'
expect_stderr '  i (all-reduce): all-reduce i: to_apply sub is not a sum, product, min or max'
expect_lines 0 '^hloc cpu: '
expect_no_file "$TMP/strict.hloexe"
expect_status 3 "$HLO_RUN" "$DATA/fallback.hlo" --platform=cpu --random-inputs=1 --no-fallback
expect_stderr 'cpu strict mode (--no-fallback): 2 instructions'

# --- AArch64 and cuda are strict by default. ---
expect_status 3 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cpu \
  --target=aarch64 --stage=object -o "$TMP/a.o"
expect_stderr 'aarch64 AOT strict mode (--no-fallback): 2 instructions'
expect_no_file "$TMP/a.o"
expect_status 0 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cpu \
  --target=aarch64 --stage=object -o "$TMP/a.o" --fallback
expect_lines 2 '^hloc aarch64 AOT: .* has no generated code, so the object has no entry'
rm -f "$TMP/a.o"
expect_status 3 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cuda --stage=llvm
expect_stderr 'r (all-reduce)'

# --- Sharding annotations are removed: strict compilation succeeds. ---
expect_status 0 "$HLO_OPT" "$DATA/sharding.hlo" --platform=cpu \
  --stage=executable -o "$TMP/s.hloexe" --no-fallback
expect_status 0 "$HLO_RUN" "$DATA/sharding.hlo" --platform=cpu --random-inputs=1 --no-fallback

# --- Bad usage: exit 2 with what is wrong. ---
expect_status 2 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cpu \
  --stage=executable --fallback --no-fallback
expect_stderr 'give --fallback or --no-fallback, not both'
expect_status 2 "$HLO_OPT" "$DATA/fallback.hlo" --no-fallback
expect_stderr '--fallback and --no-fallback choose how a backend stage compiles'
expect_status 2 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cpu --stage=llvm --fallback
expect_stderr '--fallback and --no-fallback choose how a backend stage compiles'
expect_status 2 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cuda --stage=ptx --fallback
expect_stderr '--fallback: the cuda backend has no evaluator fallback'
expect_status 2 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cpu --stage=executable --no-fallback=yes
expect_status 2 "$HLO_RUN" "$DATA/fallback.hlo" --platform=cpu --random-inputs=1 --fallback --no-fallback
expect_stderr 'give --fallback or --no-fallback, not both'
expect_status 2 "$HLO_RUN" "$DATA/fallback.hlo" --random-inputs=1 --no-fallback
expect_stderr 'flag --no-fallback: --platform=interpreter compiles nothing'
expect_status 2 "$HLO_RUN" "$DATA/fallback.hlo" --platform=cuda --random-inputs=1 --fallback
expect_stderr 'flag --fallback: the cuda backend has no evaluator fallback'

# --- A dump folder that cannot be made is bad input (2), as elsewhere. ---
touch "$TMP/a_file"
expect_status 2 "$HLO_OPT" "$DATA/fallback.hlo" --passes=simplify \
  --dump-dir="$TMP/a_file/dumps"
expect_stderr "--dump-dir: cannot create '$TMP/a_file/dumps'"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
