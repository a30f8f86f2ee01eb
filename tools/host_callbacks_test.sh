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

expect_stdout() {
  grep -qF -- "$1" "$TMP/stdout" || fail "stdout lacks: $1"
}

# expect_lines N TEXT: exactly N lines of the last stderr contain TEXT.
expect_lines() {
  local n
  n=$(grep -cF -- "$2" "$TMP/stderr")
  [[ "$n" == "$1" ]] || fail "$n lines contain '$2', expected $1"
}

PRINT="$DATA/debug_print.pb"
PURE="$DATA/pure_callback.pb"
SRC="tools/testdata/host_callbacks/make_protos.py"
PRINT_LINE="debug_print.1: jax.debug.print at $SRC:24 in debug_print (custom-call xla_ffi_python_cpu_callback)"
NOTICE="hloc: dropped Python host callback $PRINT_LINE; it will not run (--drop-debug-callbacks)"

# --- Default: every platform refuses, naming the callback (exit 3). ---
for platform in interpreter cpu; do
  expect_status 3 "$HLO_RUN" "$PRINT" --platform=$platform --inputs="$DATA"
  expect_stderr "module jit_debug_print has 1 Python host callback"
  expect_stderr "which hloc cannot run: hloc runs no Python, and the callback's function lives in the JAX process that traced the module:"
  expect_stderr "  $PRINT_LINE"
  expect_stderr "--drop-debug-callbacks (Python: drop_debug_callbacks=True) drops it"
  expect_lines 0 "has no cpu implementation"
done
for platform in cpu cuda rocm; do
  expect_status 3 "$HLO_OPT" "$PRINT" --platform=$platform
  expect_stderr "pass 'host-callbacks' failed: module jit_debug_print has 1 Python host callback"
  expect_stderr "  $PRINT_LINE"
done
expect_status 3 "$HLO_OPT" "$PRINT" --platform=cpu --target=aarch64 \
  --stage=object -o "$TMP/print.o"
expect_stderr "  $PRINT_LINE"
[[ ! -e "$TMP/print.o" ]] || fail "an object was written"
# A stage past the pipeline, the pipeline's pass skipped: the backend says
# the same.
expect_status 3 "$HLO_OPT" "$PRINT" --platform=cpu --stage=executable \
  -o "$TMP/print.hloexe" --disable-passes=host-callbacks
expect_stderr "  $PRINT_LINE"
expect_lines 0 "has no cpu implementation"

# --- --drop-debug-callbacks: runs, computes what JAX computed, says so. ---
for platform in interpreter cpu; do
  expect_status 0 "$HLO_RUN" "$PRINT" --platform=$platform --inputs="$DATA" \
    --expect="$DATA" --drop-debug-callbacks
  expect_stdout "all outputs match"
  expect_lines 1 "$NOTICE"
done
expect_status 0 "$HLO_RUN" "$PRINT" --platform=cpu --reference=interpreter \
  --random-inputs=1 --drop-debug-callbacks
expect_lines 1 "hloc: dropped Python host callback"
for platform in cpu cuda rocm; do
  expect_status 0 "$HLO_OPT" "$PRINT" --platform=$platform --drop-debug-callbacks
  expect_lines 1 "$NOTICE"
  grep -q "custom-call" "$TMP/stdout" && fail "$platform kept a custom-call"
done
expect_status 0 "$HLO_OPT" "$PRINT" --passes=drop-host-callbacks,dce
expect_lines 1 "$NOTICE"
# Dropped when saved: the executable runs as compiled.
expect_status 0 "$HLO_OPT" "$PRINT" --platform=cpu --stage=executable \
  -o "$TMP/print.hloexe" --drop-debug-callbacks
expect_status 0 "$HLO_RUN" "$TMP/print.hloexe" --platform=cpu \
  --inputs="$DATA" --expect="$DATA"
expect_status 2 "$HLO_RUN" "$TMP/print.hloexe" --platform=cpu \
  --inputs="$DATA" --drop-debug-callbacks
expect_stderr "is compiled already (give hlo-opt --drop-debug-callbacks when saving it)"
expect_status 2 "$HLO_OPT" "$PRINT" --drop-debug-callbacks
expect_stderr "--drop-debug-callbacks needs --platform"

# --- A callback whose result is used is never dropped. ---
PURE_LINE="pure_callback.1: jax.pure_callback at $SRC:30 in pure_callback (custom-call xla_ffi_python_cpu_callback): its results are used, so it cannot be dropped"
expect_status 3 "$HLO_RUN" "$PURE" --platform=cpu --inputs="$DATA"
expect_stderr "module jit_pure_callback has 2 Python host callbacks"
expect_stderr "  debug_print.1: jax.debug.print at $SRC:29 in pure_callback"
expect_stderr "  $PURE_LINE"
expect_stderr "drops the 1 whose results are unused"
for args in "$HLO_RUN --inputs=$DATA" "$HLO_OPT"; do
  expect_status 3 $args "$PURE" --platform=cpu --drop-debug-callbacks
  expect_stderr "module jit_pure_callback has 1 Python host callback whose results are used, which hloc cannot run (it runs no Python) and --drop-debug-callbacks cannot drop:"
  expect_stderr "  $PURE_LINE"
  expect_stderr "compute its value with JAX operations instead"
  expect_lines 0 "debug_print.1"
  expect_lines 0 "hloc: dropped"
done

for tool in "$HLO_RUN" "$HLO_OPT"; do
  "$tool" --help >"$TMP/stdout" 2>&1
  expect_stdout "--drop-debug-callbacks"
done

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
