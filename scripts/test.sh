#!/usr/bin/env bash
# The project's test command (what CI runs): set up (idempotent), then
#   1. build and run every test (extra arguments go to this `bazel test`,
#      e.g. scripts/test.sh --config=asserts);
#   2. the cpu backend's tests again with the JIT compiling for a baseline
#      x86-64 CPU (--config=baseline-cpu), so a host dependency cannot hide;
#   3. the unit tests under ASan+UBSan (--config=asan; ASAN_TESTS below);
#   4. every fuzzer for a bounded time (scripts/fuzz.sh; FUZZ_SECONDS,
#      DIFF_FUZZ_SECONDS).
# Every stage runs even if an earlier one failed; the exit status is
# non-zero if any failed. Set HLOC_TEST_STAGES (e.g. "suite asan") to run
# only some of suite, baseline, asan, fuzz, tsan. The tsan stage (the
# thread-heavy tests under ThreadSanitizer, TSAN_TESTS below) is not a
# default stage: run it with HLOC_TEST_STAGES=tsan scripts/test.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh

STAGES="${HLOC_TEST_STAGES:-suite baseline asan fuzz}"

# The baseline-CPU pass: the cpu backend's tests, which compile and run JIT
# code for the host CPU without naming one (its lit tests pin their CPUs
# and cost little). 25 tests, 5.5 min on the 2-core machine under load.
BASELINE_TESTS=(//backends/cpu/...)

# The ASan+UBSan pass: the front end (hlo/: IR, parser, proto bridge,
# verifier, evaluator; passes/) and the fuzz targets' regressions: what the
# fuzz build below compiles anyway (.bazelrc: --config=fuzz reuses
# --config=asan's objects), so the pass costs little beyond it. Not
# runtime/ or the backends: their LLVM-heavy files made a cold asan build
# of hlo/, passes/, runtime/ and fuzz/ take about 78 minutes on the 2-core
# machine while other builds ran (fuzz/README.md, "CI cost"), more than a
# cold CI run can add. `bazel test --config=asan //...` runs everything.
ASAN_TESTS=(//hlo/... //passes/... //fuzz:all)

# The ThreadSanitizer pass (--config=tsan; fuzz/README.md, "TSan"): every
# test whose code runs on several threads: the literal allocator's shared
# cache, the evaluator's parallel loops and replica threads with their
# rendezvous, the host collectives' device threads, the CPU executor's
# concurrent runs, the OpenMP library calls (topk, GOMP_parallel's
# denormal mode) and the JIT's parallel kernels (cpu_test, dot_test,
# scatter_test) and replicated runs on device threads (collectives_test;
# hlo-run's --replicas uses the same runner but would pull the GPU
# backends into the TSan build).
# Not a default stage: a cold clang-19 TSan build of these took about 45
# minutes on the loaded 2-core machine, more than CI's 90-minute limit
# leaves; once built, the tests run in 89 s (fuzz/README.md, "TSan").
TSAN_TESTS=(
  //third_party/tsan:openmp_race_test
  //hlo:large_block_allocator_test
  //hlo/evaluator:collective_test
  //hlo/evaluator:dot_conv_test
  //hlo/evaluator:elementwise_test
  //hlo/evaluator:reduce_test
  //runtime:cpu_executor_test
  //runtime:cpu_topk_test
  //runtime:denormals_test
  //runtime:host_collectives_test
  //backends/cpu:collectives_test
  //backends/cpu:cpu_test
  //backends/cpu:dot_test
  //backends/cpu:scatter_test
)

# CI's fuzzing: bounded (30 s a target) and seeded, so that a run is
# repeatable and a red CI means a bug a replay finds again; longer and
# clock-seeded runs are `scripts/fuzz.sh` by hand.
export FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
export DIFF_FUZZ_SECONDS="${DIFF_FUZZ_SECONDS:-30}"
export FUZZ_SEED="${FUZZ_SEED:-1}"
export DIFF_FUZZ_SEED="${DIFF_FUZZ_SEED:-1}"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
failed=()

# Runs `bazel test ARGS...`, prints CI's one-line summary and the time taken.
run_tests() {
  local name="$1"
  shift
  local start=$SECONDS rc=0
  echo "=== ${name}: bazel test $*" >&2
  bazel test --test_output=errors "$@" 2>&1 | tee "$log" || rc=$?
  # A plain summary line for CI log readers (Bazel prints one status per test).
  local passed failed_count
  passed="$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log" || true)"
  failed_count="$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|FLAKY|INCOMPLETE|REMOTE FAILURE|FAILED TO BUILD)' "$log" || true)"
  echo "${name}: ${passed} passed, ${failed_count} failed ($((SECONDS - start)) s)"
  ((rc == 0)) || failed+=("$name")
}

for stage in $STAGES; do
  case "$stage" in
    suite) run_tests suite //... "$@" ;;
    baseline) run_tests baseline-cpu --config=baseline-cpu "${BASELINE_TESTS[@]}" ;;
    asan) run_tests asan --config=asan "${ASAN_TESTS[@]}" ;;
    tsan) run_tests tsan --config=tsan "${TSAN_TESTS[@]}" ;;
    fuzz)
      start=$SECONDS
      echo "=== fuzz: scripts/fuzz.sh" >&2
      if scripts/fuzz.sh; then
        echo "fuzz: clean ($((SECONDS - start)) s)"
      else
        echo "fuzz: FAILED ($((SECONDS - start)) s)"
        failed+=(fuzz)
      fi
      ;;
    *) echo "unknown stage '$stage' in HLOC_TEST_STAGES" >&2; exit 2 ;;
  esac
done

if ((${#failed[@]})); then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
