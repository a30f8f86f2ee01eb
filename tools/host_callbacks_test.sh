#!/bin/bash
# JAX's Python host callbacks through hlo-opt and hlo-run, run as a user
# would, on modules JAX wrote (tools/testdata/host_callbacks/make_protos.py):
# refused by default on every platform, naming each callback, its JAX
# construct and source line (exit 3); dropped with --drop-debug-callbacks
# where their results are unused, one notice line each, the rest computing
# what JAX computes; a pure_callback whose result is used refused either way.
set -u
HLO_OPT="$1"
HLO_RUN="$2"
DATA="$3"  # tools/testdata/host_callbacks
source "$(dirname "$0")/shell_expect.sh"

PRINT="$DATA/debug_print.pb"
PURE="$DATA/pure_callback.pb"
SRC="tools/testdata/host_callbacks/make_protos.py"
PRINT_LINE="debug_print.1: jax.debug.print at $SRC:24 in debug_print (custom-call xla_ffi_python_cpu_callback)"
NOTICE="hloc: dropped Python host callback $PRINT_LINE; it will not run (--drop-debug-callbacks)"

# --- Default: every platform refuses, naming the callback (exit 3). ---
for platform in interpreter cpu; do
  expect_status 3 "$HLO_RUN" "$PRINT" --platform=$platform --inputs="$DATA"
  expect_in stderr "module jit_debug_print has 1 Python host callback"
  expect_in stderr "which hloc cannot run: hloc runs no Python, and the callback's function lives in the JAX process that traced the module:"
  expect_in stderr "  $PRINT_LINE"
  expect_in stderr "--drop-debug-callbacks (Python: drop_debug_callbacks=True) drops it"
  expect_count 0 stderr "has no cpu implementation"
done
for platform in cpu cuda rocm; do
  expect_status 3 "$HLO_OPT" "$PRINT" --platform=$platform
  expect_in stderr "pass 'host-callbacks' failed: module jit_debug_print has 1 Python host callback"
  expect_in stderr "  $PRINT_LINE"
done
expect_status 3 "$HLO_OPT" "$PRINT" --platform=cpu --target=aarch64 \
  --stage=object -o "$TMP/print.o"
expect_in stderr "  $PRINT_LINE"
[[ ! -e "$TMP/print.o" ]] || fail "an object was written"
# A stage past the pipeline, the pipeline's pass skipped: the backend says
# the same.
expect_status 3 "$HLO_OPT" "$PRINT" --platform=cpu --stage=executable \
  -o "$TMP/print.hloexe" --disable-passes=host-callbacks
expect_in stderr "  $PRINT_LINE"
expect_count 0 stderr "has no cpu implementation"

# --- --drop-debug-callbacks: runs, computes what JAX computed, says so. ---
for platform in interpreter cpu; do
  expect_status 0 "$HLO_RUN" "$PRINT" --platform=$platform --inputs="$DATA" \
    --expect="$DATA" --drop-debug-callbacks
  expect_in stdout "all outputs match"
  expect_count 1 stderr "$NOTICE"
done
expect_status 0 "$HLO_RUN" "$PRINT" --platform=cpu --reference=interpreter \
  --random-inputs=1 --drop-debug-callbacks
expect_count 1 stderr "hloc: dropped Python host callback"
for platform in cpu cuda rocm; do
  expect_status 0 "$HLO_OPT" "$PRINT" --platform=$platform --drop-debug-callbacks
  expect_count 1 stderr "$NOTICE"
  grep -q "custom-call" "$TMP/stdout" && fail "$platform kept a custom-call"
done
expect_status 0 "$HLO_OPT" "$PRINT" --passes=drop-host-callbacks,dce
expect_count 1 stderr "$NOTICE"
# Dropped when saved: the executable runs as compiled.
expect_status 0 "$HLO_OPT" "$PRINT" --platform=cpu --stage=executable \
  -o "$TMP/print.hloexe" --drop-debug-callbacks
expect_status 0 "$HLO_RUN" "$TMP/print.hloexe" --platform=cpu \
  --inputs="$DATA" --expect="$DATA"
expect_status 2 "$HLO_RUN" "$TMP/print.hloexe" --platform=cpu \
  --inputs="$DATA" --drop-debug-callbacks
expect_in stderr "is compiled already (give hlo-opt --drop-debug-callbacks when saving it)"
expect_status 2 "$HLO_OPT" "$PRINT" --drop-debug-callbacks
expect_in stderr "--drop-debug-callbacks needs --platform"

# --- A callback whose result is used is never dropped. ---
PURE_LINE="pure_callback.1: jax.pure_callback at $SRC:30 in pure_callback (custom-call xla_ffi_python_cpu_callback): its results are used, so it cannot be dropped"
expect_status 3 "$HLO_RUN" "$PURE" --platform=cpu --inputs="$DATA"
expect_in stderr "module jit_pure_callback has 2 Python host callbacks"
expect_in stderr "  debug_print.1: jax.debug.print at $SRC:29 in pure_callback"
expect_in stderr "  $PURE_LINE"
expect_in stderr "drops the 1 whose results are unused"
for args in "$HLO_RUN --inputs=$DATA" "$HLO_OPT"; do
  expect_status 3 $args "$PURE" --platform=cpu --drop-debug-callbacks
  expect_in stderr "module jit_pure_callback has 1 Python host callback whose results are used, which hloc cannot run (it runs no Python) and --drop-debug-callbacks cannot drop:"
  expect_in stderr "  $PURE_LINE"
  expect_in stderr "compute its value with JAX operations instead"
  expect_count 0 stderr "debug_print.1"
  expect_count 0 stderr "hloc: dropped"
done

for tool in "$HLO_RUN" "$HLO_OPT"; do
  "$tool" --help >"$TMP/stdout" 2>&1
  expect_in stdout "--drop-debug-callbacks"
done

finish
