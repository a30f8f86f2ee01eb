#!/usr/bin/env bash
# Runs every libFuzzer target (fuzz/) for a bounded time, then the
# differential fuzzer (fuzz/differential). Fails on any crash, leak, hang
# (an input running longer than FUZZ_INPUT_TIMEOUT), out-of-memory or
# sanitizer report, or any disagreement between the cpu backend and the
# evaluator. Findings land in FUZZ_OUT (default fuzz-out/, ignored by git):
# crash-*, leak-*, timeout-*, oom-* inputs and diff-<seed>.hlo modules.
#
#   scripts/fuzz.sh [TARGET...]      default: all of them
#   FUZZ_SECONDS=60                  per libFuzzer target
#   DIFF_FUZZ_SECONDS=60             the differential fuzzer (0: skip it)
#   FUZZ_INPUT_TIMEOUT=60            seconds one input may take
#   DIFF_FUZZ_SEED=N                 its first seed (default: from the clock,
#                                    printed, so a failure can be replayed)
#   FUZZ_SEED=N                      libFuzzer's -seed (default: its own
#                                    random one, printed in each target's log)
#
# Seeds: fuzz/seeds/<target>, the repository's .hlo files, and the JAX
# corpus beside the checkout (../shared/corpus: module.hlo, xla_gpu_opt.hlo,
# module.pb, the small .npy files); executables are compiled from corpus
# modules with hlo-opt. A target's own corpus grows in FUZZ_OUT/corpus and
# is kept between runs there.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
DIFF_FUZZ_SECONDS="${DIFF_FUZZ_SECONDS:-60}"
# The cpu pipeline with the verifier after every pass takes 2 s of CPU on
# the largest corpus modules (700 lines) unsanitized and over 20 s under
# ASan on a loaded 2-core machine: a hang is an input past a minute.
FUZZ_INPUT_TIMEOUT="${FUZZ_INPUT_TIMEOUT:-60}"
FUZZ_OUT="${FUZZ_OUT:-fuzz-out}"
CORPUS="../shared/corpus"
ALL_TARGETS=(hlo_text_fuzzer hlo_proto_fuzzer npy_fuzzer executable_fuzzer
             cpu_pipeline_fuzzer)
targets=("$@")
((${#targets[@]})) || targets=("${ALL_TARGETS[@]}")

log() { echo "[fuzz] $*" >&2; }

mkdir -p "$FUZZ_OUT"
FUZZ_OUT="$(cd "$FUZZ_OUT" && pwd)"

log "building the fuzz targets (bazel build --config=fuzz //fuzz:all)"
bazel build --config=fuzz --noshow_progress //fuzz:all
fuzz_bin="$(bazel info --config=fuzz bazel-bin 2>/dev/null)/fuzz"
bazel build --noshow_progress //tools:hlo-opt //fuzz/differential:hlo-diff-fuzz
bin="$(bazel info bazel-bin 2>/dev/null)"

# --- seed folders, rebuilt every run (cheap) --------------------------------
seeds="$FUZZ_OUT/seeds"
rm -rf "$seeds"
for t in "${ALL_TARGETS[@]}"; do mkdir -p "$seeds/$t"; done
n=0
while IFS= read -r f; do
  n=$((n + 1))
  cp "$f" "$seeds/hlo_text_fuzzer/repo-$n.hlo"
  cp "$f" "$seeds/cpu_pipeline_fuzzer/repo-$n.hlo"
done < <(git ls-files '*.hlo')
if [[ -d "$CORPUS" ]]; then
  for f in "$CORPUS"/jax/*/*.hlo; do
    name="$(basename "$(dirname "$f")")-$(basename "$f")"
    cp "$f" "$seeds/hlo_text_fuzzer/$name"
    cp "$f" "$seeds/cpu_pipeline_fuzzer/$name"
  done
  for f in "$CORPUS"/jax/*/*.pb; do
    cp "$f" "$seeds/hlo_proto_fuzzer/$(basename "$(dirname "$f")").pb"
  done
  # Headers are what the reader parses; large arrays only slow the fuzzer.
  find "$CORPUS/jax" -name '*.npy' -size -16k | while IFS= read -r f; do
    cp "$f" "$seeds/npy_fuzzer/$(basename "$(dirname "$f")")-$(basename "$f")"
  done
  # Executables: whole files (first byte even) and bare payloads (odd),
  # see fuzz/executable_fuzzer.cc.
  for case in chain5 softmax dot_bias_relu dynamic_update; do
    m="$CORPUS/jax/$case/module.hlo"
    [[ -f "$m" ]] || continue
    exe="$FUZZ_OUT/$case.hloexe"
    "$bin/tools/hlo-opt" "$m" --platform=cpu --stage=executable -o "$exe"
    { printf '\0'; cat "$exe"; } >"$seeds/executable_fuzzer/$case-file"
    { printf '\1'; tail -c +33 "$exe"; } >"$seeds/executable_fuzzer/$case-payload"
    rm -f "$exe"
  done
else
  log "no $CORPUS: seeding from the repository only"
fi
cp runtime/testdata/*.npy "$seeds/npy_fuzzer/"

# --- libFuzzer targets -------------------------------------------------------
failed=()
for t in "${targets[@]}"; do
  corpus="$FUZZ_OUT/corpus/$t"
  mkdir -p "$corpus"
  log "$t: ${FUZZ_SECONDS}s"
  start=$SECONDS
  # The first folder collects new inputs; the others are read only (and
  # must exist: libFuzzer stops at a missing one).
  dirs=("$corpus")
  for d in "$seeds/$t" "fuzz/seeds/$t" "fuzz/regressions/$t"; do
    [[ -d "$d" ]] && dirs+=("$d")
  done
  seed_flag=()
  [[ -n "${FUZZ_SEED:-}" ]] && seed_flag=(-seed="$FUZZ_SEED")
  if "$fuzz_bin/$t" -max_total_time="$FUZZ_SECONDS" "${seed_flag[@]}" \
      -timeout="$FUZZ_INPUT_TIMEOUT" -rss_limit_mb=2560 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$FUZZ_OUT/$t-" "${dirs[@]}" \
      >"$FUZZ_OUT/$t.log" 2>&1; then
    log "$t: ok ($((SECONDS - start))s, $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$FUZZ_OUT/$t.log" | grep -o '[0-9]*$') runs)"
  else
    log "$t: FAILED; the report (from $FUZZ_OUT/$t.log):"
    grep -E -A40 '^==[0-9]+==|runtime error|ERROR: libFuzzer|^(SUMMARY|artifact_prefix)' \
      "$FUZZ_OUT/$t.log" | head -80 >&2 || tail -40 "$FUZZ_OUT/$t.log" >&2
    failed+=("$t")
  fi
done

# --- the differential fuzzer -------------------------------------------------
if [[ "$DIFF_FUZZ_SECONDS" != 0 ]]; then
  seed="${DIFF_FUZZ_SEED:-$(date +%s)}"
  log "differential: ${DIFF_FUZZ_SECONDS}s from seed $seed (DIFF_FUZZ_SEED=$seed replays it)"
  if ! "$bin/fuzz/differential/hlo-diff-fuzz" --seed="$seed" \
      --seconds="$DIFF_FUZZ_SECONDS" --out="$FUZZ_OUT"; then
    failed+=(differential)
  fi
fi

if ((${#failed[@]})); then
  log "FAILED: ${failed[*]} (inputs in $FUZZ_OUT)"
  exit 1
fi
log "all fuzzers ran clean"
