#!/bin/bash
# Debugging a module as run_hlo_module users expect (issue 14), run as a
# user would: hlo-run --reference (two platforms compared in one call) and
# --iterations (repeated runs timed), --disable-passes in hlo-opt and
# hlo-run, --dump-dir with --dump-changed-only, StableHLO text refused with
# a hint, and a saved executable compiled for a baseline CPU run here.
set -u
HLO_OPT="$1"
HLO_RUN="$2"
CASE="$3"  # tools/testdata/add_mul: module.hlo, in<i>.npy, out<i>.npy
source "$(dirname "$0")/shell_expect.sh"

# --- --reference: --platform's outputs against another platform's. ---
expect_status 0 "$HLO_RUN" "$CASE/module.hlo" --inputs="$CASE" \
  --platform=cpu --reference=interpreter
expect_in stdout "cpu against the reference interpreter:"
expect_count 3 stdout "  ok"
expect_in stdout "all outputs match"
# A real difference is found and reported per output: the cpu pipeline
# keeps excess precision (a bf16 add feeding a bf16 multiply stays in f32,
# as XLA's default does), the interpreter rounds each result to bf16; with
# zero tolerances only out0 differs.
cat >"$TMP/bf16.hlo" <<'HLO'
HloModule bf16_excess_precision
ENTRY e {
  x = bf16[64] parameter(0)
  y = bf16[64] parameter(1)
  z = bf16[64] parameter(2)
  a = bf16[64] add(x, y)
  c = bf16[64] multiply(a, z)
  r = f32[64] convert(c)
  w = f32[64] convert(x)
  ROOT t = (f32[64], f32[64]) tuple(r, w)
}
HLO
expect_status 1 "$HLO_RUN" "$TMP/bf16.hlo" --random-inputs=3 --platform=cpu \
  --reference=interpreter --rtol=0 --atol=0
expect_in stdout "MISMATCH"
grep -qE '^out0 .* MISMATCH$' "$TMP/stdout" || fail "out0 not reported as a mismatch"
grep -qE '^out1 .* ok$' "$TMP/stdout" || fail "out1 not reported ok"
expect_status 0 "$HLO_RUN" "$TMP/bf16.hlo" --random-inputs=3 --platform=cpu \
  --reference=interpreter --rtol=0 --atol=0 --allow-excess-precision=false
# The reference of a saved executable is its own module.
expect_status 0 "$HLO_OPT" "$CASE/module.hlo" --platform=cpu --stage=executable \
  -o "$TMP/m.hloexe"
expect_status 0 "$HLO_RUN" "$TMP/m.hloexe" --inputs="$CASE" --platform=cpu \
  --reference=interpreter
expect_in stdout "all outputs match"
expect_status 2 "$HLO_RUN" "$CASE/module.hlo" --inputs="$CASE" --reference=gpu9
expect_in stderr "--reference: unknown platform 'gpu9' (available: interpreter, cpu"
expect_status 2 "$HLO_RUN" "$CASE/module.hlo" --inputs="$CASE" \
  --reference=interpreter --expect="$CASE"
expect_in stderr "give either --expect (files) or --reference (a platform), not both"

# --- --iterations: N more runs timed, nothing recompiled. ---
expect_status 0 "$HLO_RUN" "$CASE/module.hlo" --inputs="$CASE" --expect="$CASE" \
  --iterations=4
expect_in stderr "interpreter: 4 more runs: median "
expect_status 0 "$HLO_RUN" "$CASE/module.hlo" --inputs="$CASE" --expect="$CASE" \
  --platform=cpu --iterations=3
expect_in stderr "cpu: 3 more runs: median "
expect_count 1 stderr "cpu: compiled in"
expect_status 0 "$HLO_RUN" "$TMP/m.hloexe" --inputs="$CASE" --expect="$CASE" \
  --platform=cpu --iterations=2
expect_in stderr "cpu: 2 more runs: median "
expect_status 2 "$HLO_RUN" "$CASE/module.hlo" --inputs="$CASE" --iterations=0
expect_status 2 "$HLO_RUN" "$CASE/module.hlo" --inputs="$CASE" --platform=cpu \
  --iterations=2 --time-run
expect_in stderr "flag --time-run: CUDA timing"

# --- --disable-passes. ---
expect_status 0 "$HLO_OPT" "$CASE/module.hlo" --platform=cpu
expect_in stdout "fusion("
expect_status 0 "$HLO_OPT" "$CASE/module.hlo" --platform=cpu \
  --disable-passes=instruction-fusion,multi-output-fusion,row-reduction-fusion
expect_not_in stdout "fusion("
expect_in stdout "multiply("
expect_status 2 "$HLO_OPT" "$CASE/module.hlo" --platform=cpu \
  --disable-passes=dce,bogus-pass
expect_in stderr "unknown pass 'bogus-pass' to disable: pipeline cpu-hlo has "
expect_in stderr "instruction-fusion, multi-output-fusion"
expect_status 2 "$HLO_OPT" "$CASE/module.hlo" --disable-passes=dce
expect_in stderr "--disable-passes needs --platform or --passes"
expect_status 2 "$HLO_OPT" "$CASE/module.hlo" --platform=cpu --disable-passes=dce,,cse
expect_in stderr "an empty pass name"
# A sub-pipeline by its name: simplify (and everything in it) skipped.
expect_status 0 "$HLO_OPT" "$CASE/module.hlo" --passes=simplify,dce \
  --disable-passes=simplify --stats
expect_in stderr "dce - runs"
expect_not_in stderr "algebraic-simplifier - runs"
# hlo-run: the cpu platform's pipeline; the module still matches.
expect_status 0 "$HLO_RUN" "$CASE/module.hlo" --inputs="$CASE" --expect="$CASE" \
  --platform=cpu --disable-passes=instruction-fusion,simplify
expect_status 2 "$HLO_RUN" "$CASE/module.hlo" --inputs="$CASE" --platform=cpu \
  --disable-passes=bogus-pass
expect_in stderr "flag --disable-passes: unknown pass 'bogus-pass' to disable"
expect_status 2 "$HLO_RUN" "$CASE/module.hlo" --inputs="$CASE" --disable-passes=dce
expect_in stderr "--platform=interpreter runs no passes"
expect_status 2 "$HLO_RUN" "$TMP/m.hloexe" --inputs="$CASE" --platform=cpu \
  --disable-passes=dce
expect_in stderr "is compiled already"

# --- Dumps: every pass, or only the passes that changed the module. ---
expect_status 0 "$HLO_OPT" "$CASE/module.hlo" --platform=cpu --dump-dir="$TMP/all"
expect_status 0 "$HLO_OPT" "$CASE/module.hlo" --platform=cpu \
  --dump-dir="$TMP/changed" --dump-changed-only
all=$(ls "$TMP/all" | wc -l)
changed=$(ls "$TMP/changed" | wc -l)
((changed < all)) || fail "--dump-changed-only wrote $changed files of $all"
[[ -e "$TMP/all/0002.schedule-remover.hlo" ]] || fail "no schedule-remover dump"
ls "$TMP/changed" | grep -q "schedule-remover" && fail "unchanged pass dumped"
ls "$TMP/changed" | grep -q "instruction-fusion" || fail "changing pass not dumped"
[[ -e "$TMP/changed/0000.input.hlo" ]] || fail "no input dump"
expect_status 2 "$HLO_OPT" "$CASE/module.hlo" --platform=cpu --dump-changed-only
expect_in stderr "--dump-changed-only goes with --dump-dir"

# --- StableHLO text (JAX's default as_text()): a hint, exit 2. ---
cat >"$TMP/stablehlo.hlo" <<'MLIR'
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = ""}) {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
MLIR
cp "$TMP/stablehlo.hlo" "$TMP/stablehlo.mlir"
for input in stablehlo.hlo stablehlo.mlir; do
  expect_status 2 "$HLO_OPT" "$TMP/$input"
  expect_in stderr "this is MLIR text (StableHLO"
  expect_in stderr 'as_text(dialect="hlo")'
  expect_status 2 "$HLO_RUN" "$TMP/$input" --random-inputs=1
  expect_in stderr 'as_text(dialect="hlo")'
done

# --- An executable compiled for a baseline CPU loads and runs here. ---
expect_status 0 "$HLO_OPT" "$CASE/module.hlo" --platform=cpu --stage=executable \
  --cpu=x86-64-v2 -o "$TMP/baseline.hloexe"
expect_status 0 "$HLO_RUN" "$TMP/baseline.hloexe" --platform=cpu \
  --inputs="$CASE" --expect="$CASE"
expect_in stdout "all outputs match"
expect_status 2 "$HLO_OPT" "$CASE/module.hlo" --platform=cpu --stage=executable \
  --cpu=not-a-cpu -o "$TMP/nope.hloexe"
[[ ! -e "$TMP/nope.hloexe" ]] || fail "an executable for an unknown CPU was written"

# --- A saved executable honours the while-loop limit too. ---
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
  z = s32[] parameter(0)
  ROOT w = s32[] while(z), condition=cond, body=body
}
HLO
expect_status 0 "$HLO_OPT" "$TMP/forever.hlo" --platform=cpu --stage=executable \
  -o "$TMP/forever.hloexe"
expect_status 3 "$HLO_RUN" "$TMP/forever.hloexe" --platform=cpu --random-inputs=1 \
  --max-while-iterations=200
expect_in stderr "while loop w did not finish within 200 iterations"

finish
