#!/bin/bash
# hlo-opt and hlo-run with --fallback / --no-fallback, run as a user would:
# exit statuses (0 ok, 2 bad usage, 3 cannot compile), what each prints,
# and that a failed compilation writes no file. Custom calls a backend does
# not implement are refused by target name whatever the choice.
set -u
HLO_OPT="$1"
HLO_RUN="$2"
DATA="$3"  # tools/testdata/strict
source "$(dirname "$0")/shell_expect.sh"

# --- Unsupported custom calls: exit 3, target named, nothing written. ---
for choice in "" --fallback --no-fallback; do
  expect_status 3 "$HLO_OPT" "$DATA/custom_call.hlo" --platform=cpu \
    --stage=executable -o "$TMP/cc.hloexe" $choice
  expect_in stderr 'c (custom-call): custom_call_target="lapack_sgesvd_ffi" has no cpu implementation'
  expect_no_file "$TMP/cc.hloexe"
done
expect_status 3 "$HLO_OPT" "$DATA/custom_call.hlo" --platform=cuda \
  --stage=executable -o "$TMP/cc.hloexe"
expect_in stderr 'c (custom-call): custom_call_target="lapack_sgesvd_ffi" has no cuda implementation'
expect_no_file "$TMP/cc.hloexe"
expect_status 3 "$HLO_OPT" "$DATA/custom_call.hlo" --platform=cpu \
  --target=aarch64 --stage=object -o "$TMP/cc.o" --fallback
expect_in stderr 'custom_call_target="lapack_sgesvd_ffi" has no aarch64 AOT implementation'
expect_no_file "$TMP/cc.o"
expect_status 3 "$HLO_RUN" "$DATA/custom_call.hlo" --platform=cpu --random-inputs=1
expect_in stderr 'custom_call_target="lapack_sgesvd_ffi"'

# --- x86 host: fallback allowed by default, one warning line each. ---
expect_status 0 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cpu \
  --stage=executable -o "$TMP/f.hloexe"
expect_matches 2 stderr '^hloc cpu: '
expect_in stderr 'hloc cpu: r (all-reduce) runs in the evaluator: all-reduce r: to_apply sub'
expect_in stderr 'hloc cpu: i (all-reduce) runs in the evaluator: all-reduce i: to_apply sub'
[[ -s "$TMP/f.hloexe" ]] || fail "no executable written with fallback allowed"
expect_status 0 "$HLO_RUN" "$DATA/fallback.hlo" --platform=cpu --random-inputs=1 --fallback
expect_matches 2 stderr '^hloc cpu: '
# A saved executable is compiled already: strict refuses its evaluator steps.
expect_status 0 "$HLO_RUN" "$TMP/f.hloexe" --platform=cpu --random-inputs=1
expect_status 3 "$HLO_RUN" "$TMP/f.hloexe" --platform=cpu --random-inputs=1 --no-fallback
expect_in stderr 'strict mode (--no-fallback): the saved executable runs 2 instructions in the reference evaluator:'
expect_in stderr '  r: all-reduce r: to_apply sub is not a sum, product, min or max'

# --- Strict: exit 3, every instruction and its reason, nothing written. ---
expect_status 3 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cpu \
  --stage=executable -o "$TMP/strict.hloexe" --no-fallback
expect_in stderr 'cpu strict mode (--no-fallback): 2 instructions would need the reference evaluator:'
expect_in stderr '  r (all-reduce): all-reduce r: to_apply sub is not a sum, product, min or max'
expect_in stderr '  i (all-reduce): all-reduce i: to_apply sub is not a sum, product, min or max'
expect_matches 0 stderr '^hloc cpu: '
expect_no_file "$TMP/strict.hloexe"
expect_status 3 "$HLO_RUN" "$DATA/fallback.hlo" --platform=cpu --random-inputs=1 --no-fallback
expect_in stderr 'cpu strict mode (--no-fallback): 2 instructions'

# --- AArch64 and cuda are strict by default. ---
expect_status 3 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cpu \
  --target=aarch64 --stage=object -o "$TMP/a.o"
expect_in stderr 'aarch64 AOT strict mode (--no-fallback): 2 instructions'
expect_no_file "$TMP/a.o"
expect_status 0 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cpu \
  --target=aarch64 --stage=object -o "$TMP/a.o" --fallback
expect_matches 2 stderr '^hloc aarch64 AOT: .* has no generated code, so the object has no entry'
rm -f "$TMP/a.o"
expect_status 3 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cuda --stage=llvm
expect_in stderr 'r (all-reduce)'

# --- Sharding annotations are removed: strict compilation succeeds. ---
expect_status 0 "$HLO_OPT" "$DATA/sharding.hlo" --platform=cpu \
  --stage=executable -o "$TMP/s.hloexe" --no-fallback
expect_status 0 "$HLO_RUN" "$DATA/sharding.hlo" --platform=cpu --random-inputs=1 --no-fallback

# --- Bad usage: exit 2 with what is wrong. ---
expect_status 2 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cpu \
  --stage=executable --fallback --no-fallback
expect_in stderr 'give --fallback or --no-fallback, not both'
expect_status 2 "$HLO_OPT" "$DATA/fallback.hlo" --no-fallback
expect_in stderr '--fallback and --no-fallback choose how a backend stage compiles'
expect_status 2 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cpu --stage=llvm --fallback
expect_in stderr '--fallback and --no-fallback choose how a backend stage compiles'
expect_status 2 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cuda --stage=ptx --fallback
expect_in stderr '--fallback: the cuda backend has no evaluator fallback'
expect_status 2 "$HLO_OPT" "$DATA/fallback.hlo" --platform=cpu --stage=executable --no-fallback=yes
expect_status 2 "$HLO_RUN" "$DATA/fallback.hlo" --platform=cpu --random-inputs=1 --fallback --no-fallback
expect_in stderr 'give --fallback or --no-fallback, not both'
expect_status 2 "$HLO_RUN" "$DATA/fallback.hlo" --random-inputs=1 --no-fallback
expect_in stderr 'flag --no-fallback: --platform=interpreter compiles nothing'
expect_status 2 "$HLO_RUN" "$DATA/fallback.hlo" --platform=cuda --random-inputs=1 --fallback
expect_in stderr 'flag --fallback: the cuda backend has no evaluator fallback'

# --- A dump folder that cannot be made is bad input (2), as elsewhere. ---
touch "$TMP/a_file"
expect_status 2 "$HLO_OPT" "$DATA/fallback.hlo" --passes=simplify \
  --dump-dir="$TMP/a_file/dumps"
expect_in stderr "--dump-dir: cannot create '$TMP/a_file/dumps'"

finish
