#!/bin/bash
# Bad input, end to end (issue 11): hlo-opt, hlo-run and the saved
# executable runners (hlo-run on .hloexe files, hlo-run-gpu) given malformed HLO text, truncated and corrupted protos and
# executables, modules that fail verification, .npy inputs of the wrong
# shape or type or with a broken header, missing files and unknown flags.
# Each must end with one clear message on stderr that names the file (and,
# for text, line:col) or the flag, exit status 2, no crash, and no output
# file or folder left behind.
set -u
HLO_OPT="$1"
HLO_RUN="$2"
CASE="$3"  # tools/testdata/add_mul: module.hlo, in<i>.npy, out<i>.npy
HLO_RUN_GPU="$4"  # runs saved cuda executables; no GPU needed to refuse one
source "$(dirname "$0")/shell_expect.sh"
export LC_ALL=C

# bad TOOL MESSAGE ARGS...: TOOL exits 2 (not a signal, not 1 or 3), its
# stderr has MESSAGE (a fixed string), stdout is empty, and neither -o
# $TMP/out.* nor --output=$TMP/outdir was created.
bad() {
  local tool="$1" message="$2"
  shift 2
  rm -rf "$TMP/out.hlo" "$TMP/out.hloexe" "$TMP/outdir"
  "$tool" "$@" >"$TMP/stdout" 2>"$TMP/stderr"
  local got=$?
  local what
  what="$(basename "$tool") $*"
  [[ "$got" == 2 ]] || fail "$what exited $got, expected 2"
  grep -qF -- "$message" "$TMP/stderr" || fail "$what: stderr lacks: $message"
  [[ ! -s "$TMP/stdout" ]] || fail "$what wrote to stdout: $(head -c 200 "$TMP/stdout")"
  [[ $(wc -l <"$TMP/stderr") -le 3 ]] || fail "$what: more than a short message"
  for out in "$TMP/out.hlo" "$TMP/out.hloexe" "$TMP/outdir"; do
    [[ ! -e "$out" ]] || fail "$what left $out behind"
  done
}

# --- Inputs: a good module, its proto and a saved executable. ---
cp "$CASE"/*.npy "$TMP/"
mkdir -p "$TMP/good"
cp "$CASE"/in*.npy "$TMP/good/"
"$HLO_OPT" "$CASE/module.hlo" --emit=pb -o "$TMP/m.pb" || fail "no proto"
"$HLO_OPT" "$CASE/module.hlo" --platform=cpu --stage=executable \
  -o "$TMP/m.hloexe" 2>/dev/null || fail "no executable"
pb_size=$(wc -c <"$TMP/m.pb")
exe_size=$(wc -c <"$TMP/m.hloexe")

# --- Missing files. ---
bad "$HLO_OPT" "$TMP/missing.hlo" "$TMP/missing.hlo" -o "$TMP/out.hlo"
bad "$HLO_RUN" "$TMP/missing.hlo" "$TMP/missing.hlo" --random-inputs=1 \
  --output="$TMP/outdir"
bad "$HLO_RUN" "$TMP/missing.hloexe" "$TMP/missing.hloexe" --platform=cpu \
  --random-inputs=1
bad "$HLO_RUN" "--inputs: $TMP/no_such_dir is not a directory" "$CASE/module.hlo" \
  --inputs="$TMP/no_such_dir"
mkdir -p "$TMP/one_input"
cp "$CASE/in0.npy" "$TMP/one_input/"
bad "$HLO_RUN" "parameter 1 (y: f32[2,3])" "$CASE/module.hlo" \
  --inputs="$TMP/one_input" --output="$TMP/outdir"
grep -qF "in1.npy" "$TMP/stderr" || fail "the missing input file is not named"

# --- Unknown flags and bad values. ---
bad "$HLO_OPT" "unknown flag '--no-such-flag'" "$CASE/module.hlo" --no-such-flag
bad "$HLO_RUN" "unknown flag '--no-such-flag'" "$CASE/module.hlo" --no-such-flag
bad "$HLO_RUN" "unknown flag '--no-such-flag'" "$TMP/m.hloexe" --platform=cpu \
  --no-such-flag
bad "$HLO_OPT" "unknown stage 'nope'" "$CASE/module.hlo" --stage=nope
bad "$HLO_RUN" "flag --rtol: 'abc' is not a non-negative number" \
  "$CASE/module.hlo" --inputs="$CASE" --rtol=abc
bad "$HLO_RUN" "flag --max-while-iterations: 'x' is not a positive integer" \
  "$CASE/module.hlo" --inputs="$CASE" --max-while-iterations=x
bad "$HLO_RUN" "unknown platform 'tpu'" "$CASE/module.hlo" --inputs="$CASE" \
  --platform=tpu
bad "$HLO_RUN" "flag --graph-streams: '0' is not an integer in [1, 32]" \
  "$CASE/module.hlo" --inputs="$CASE" --graph-streams=0
bad "$HLO_RUN" "flag --graph-streams: 'many' is not an integer in [1, 32]" \
  "$CASE/module.hlo" --inputs="$CASE" --graph-streams=many

# --- Malformed and truncated HLO text: file:line:col. ---
sed 's/multiply(x, y)/multiply(x, y/' "$CASE/module.hlo" >"$TMP/unclosed.hlo"
bad "$HLO_OPT" "$TMP/unclosed.hlo:13:" "$TMP/unclosed.hlo" -o "$TMP/out.hlo"
bad "$HLO_RUN" "$TMP/unclosed.hlo:13:" "$TMP/unclosed.hlo" --inputs="$CASE" \
  --output="$TMP/outdir"
head -c 400 "$CASE/module.hlo" >"$TMP/truncated.hlo"
bad "$HLO_OPT" "$TMP/truncated.hlo:" "$TMP/truncated.hlo"
bad "$HLO_RUN" "$TMP/truncated.hlo:" "$TMP/truncated.hlo" --inputs="$CASE"
printf 'HloModule m\nENTRY e {\n  ROOT x = f32[2] frobnicate()\n}\n' >"$TMP/opcode.hlo"
bad "$HLO_OPT" "$TMP/opcode.hlo:3:" "$TMP/opcode.hlo"
printf '\x00\x01\x02binary\xff\xfe' >"$TMP/binary.hlo"
bad "$HLO_OPT" "$TMP/binary.hlo:1:" "$TMP/binary.hlo"
: >"$TMP/empty.hlo"
bad "$HLO_OPT" "$TMP/empty.hlo" "$TMP/empty.hlo"
bad "$HLO_RUN" "$TMP/empty.hlo" "$TMP/empty.hlo" --random-inputs=1

# --- Modules that fail verification: the instruction named. ---
cat >"$TMP/unverified.hlo" <<'HLO'
HloModule unverified
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[3] parameter(1)
  ROOT s = f32[2] add(a, b)
}
HLO
bad "$HLO_OPT" "$TMP/unverified.hlo: the module does not verify" \
  "$TMP/unverified.hlo" --platform=cpu -o "$TMP/out.hlo"
grep -qF "instruction s: operand 1 has shape f32[3]" "$TMP/stderr" ||
  fail "the failing instruction is not named"
bad "$HLO_RUN" "the module does not verify" "$TMP/unverified.hlo" \
  --random-inputs=1 --platform=cpu --output="$TMP/outdir"

# --- Truncated and corrupted protos. ---
head -c $((pb_size / 2)) "$TMP/m.pb" >"$TMP/half.pb"
bad "$HLO_OPT" "$TMP/half.pb" "$TMP/half.pb" -o "$TMP/out.hlo"
bad "$HLO_RUN" "$TMP/half.pb" "$TMP/half.pb" --inputs="$CASE" --output="$TMP/outdir"
head -c 7 "$TMP/m.pb" >"$TMP/seven.pb"
bad "$HLO_OPT" "$TMP/seven.pb" "$TMP/seven.pb"
# Random bytes and a text module given as a proto.
head -c 300 /dev/urandom >"$TMP/random.pb" 2>/dev/null ||
  printf '\x8f\xff\x01\x02garbage\x00\x10' >"$TMP/random.pb"
bad "$HLO_OPT" "$TMP/random.pb" "$TMP/random.pb"
bad "$HLO_OPT" "module.hlo" "$CASE/module.hlo" --format=pb
# Every byte of the proto's second half overwritten in turn would be slow;
# a few spread positions, each flipped: an error or a module that verifies
# and runs, never a crash.
for pos in 3 11 $((pb_size / 3)) $((pb_size / 2)) $((pb_size - 5)); do
  cp "$TMP/m.pb" "$TMP/flip.pb"
  printf '\xa5' | dd of="$TMP/flip.pb" bs=1 seek="$pos" conv=notrunc 2>/dev/null
  "$HLO_OPT" "$TMP/flip.pb" -o "$TMP/flip_out.hlo" >/dev/null 2>"$TMP/stderr"
  got=$?
  [[ "$got" == 0 || "$got" == 2 ]] || fail "hlo-opt on a proto flipped at byte $pos exited $got"
  if [[ "$got" == 2 ]]; then
    [[ ! -e "$TMP/flip_out.hlo" ]] || fail "output written for a proto flipped at byte $pos"
    grep -qF "flip.pb" "$TMP/stderr" || fail "flip at $pos: the file is not named"
  fi
  rm -f "$TMP/flip_out.hlo"
done

# --- Truncated and corrupted saved executables. ---
head -c $((exe_size / 2)) "$TMP/m.hloexe" >"$TMP/half.hloexe"
bad "$HLO_RUN" "$TMP/half.hloexe" "$TMP/half.hloexe" --platform=cpu \
  --inputs="$CASE" --output="$TMP/outdir"
head -c 5 "$TMP/m.hloexe" >"$TMP/five.hloexe"
bad "$HLO_RUN" "$TMP/five.hloexe" "$TMP/five.hloexe" --platform=cpu --inputs="$CASE"
cp "$TMP/m.hloexe" "$TMP/flip.hloexe"
printf '\x5a' | dd of="$TMP/flip.hloexe" bs=1 seek=$((exe_size / 2)) conv=notrunc 2>/dev/null
bad "$HLO_RUN" "checksum" "$TMP/flip.hloexe" --platform=cpu --inputs="$CASE" \
  --output="$TMP/outdir"
bad "$HLO_RUN" "not an hloc executable" "$CASE/module.hlo" --format=hloexe \
  --platform=cpu --inputs="$CASE"
bad "$HLO_RUN" "cannot run a saved executable" "$TMP/m.hloexe" --inputs="$CASE"

# hlo-run-gpu: the same checks before any device is touched.
bad "$HLO_RUN_GPU" "$TMP/half.hloexe: truncated" "$TMP/half.hloexe" \
  --platform=cuda --inputs="$CASE" --output="$TMP/outdir"
bad "$HLO_RUN_GPU" "checksum" "$TMP/flip.hloexe" --platform=cuda --inputs="$CASE"
bad "$HLO_RUN_GPU" "the executable is for platform 'cpu', not cuda" \
  "$TMP/m.hloexe" --platform=cuda --inputs="$CASE"
bad "$HLO_RUN_GPU" "$TMP/missing.hloexe" "$TMP/missing.hloexe" --platform=cuda \
  --inputs="$CASE"
bad "$HLO_RUN_GPU" "unknown flag '--no-such-flag'" "$TMP/m.hloexe" \
  --platform=cuda --no-such-flag
bad "$HLO_RUN_GPU" "$TMP/unclosed.hlo:13:" "$TMP/unclosed.hlo" --inputs="$CASE"

# --- .npy inputs: wrong shape, wrong type, broken headers, short data. ---
bad_npy() {  # bad_npy MESSAGE: $TMP/npy/in0.npy replaced by the caller
  bad "$HLO_RUN" "$1" "$CASE/module.hlo" --inputs="$TMP/npy" --output="$TMP/outdir"
  grep -qF "parameter 0 (x: f32[2,3])" "$TMP/stderr" || fail "the parameter is not named"
  bad "$HLO_RUN" "$1" "$TMP/m.hloexe" --platform=cpu --inputs="$TMP/npy"
  bad "$HLO_RUN_GPU" "$1" "$CASE/module.hlo" --inputs="$TMP/npy"
}
mkdir -p "$TMP/npy"
cp "$CASE/in1.npy" "$TMP/npy/"
sed 's/(2, 3)/(3, 2)/' "$CASE/in0.npy" >"$TMP/npy/in0.npy"
bad_npy "holds f32[3,2]"
sed "s/'<f4'/'<i4'/" "$CASE/in0.npy" >"$TMP/npy/in0.npy"
bad_npy "in0.npy"
sed "s/'<f4'/'<f8'/" "$CASE/in0.npy" >"$TMP/npy/in0.npy"
bad_npy "in0.npy"
sed 's/NUMPY/NUMPX/' "$CASE/in0.npy" >"$TMP/npy/in0.npy"
bad_npy "in0.npy"
sed "s/'descr'/'dascr'/" "$CASE/in0.npy" >"$TMP/npy/in0.npy"
bad_npy "in0.npy"
sed "s/'shape': (2, 3)/'shape': (2, -3)/" "$CASE/in0.npy" >"$TMP/npy/in0.npy"
bad_npy "in0.npy"
head -c 60 "$CASE/in0.npy" >"$TMP/npy/in0.npy"
bad_npy "in0.npy"
head -c $(($(wc -c <"$CASE/in0.npy") - 4)) "$CASE/in0.npy" >"$TMP/npy/in0.npy"
bad_npy "in0.npy"
cp "$CASE/in0.npy" "$TMP/npy/in0.npy"
printf 'xxxx' >>"$TMP/npy/in0.npy"
bad_npy "in0.npy"
# A header length past the end of the file.
cp "$CASE/in0.npy" "$TMP/npy/in0.npy"
printf '\xff\x7f' | dd of="$TMP/npy/in0.npy" bs=1 seek=8 conv=notrunc 2>/dev/null
bad_npy "in0.npy"
# An extra input file is an error too.
cp "$CASE/in0.npy" "$TMP/npy/in0.npy"
cp "$CASE/in0.npy" "$TMP/npy/in2.npy"
bad "$HLO_RUN" "in2.npy exists, but the entry computation has 2 parameters" \
  "$CASE/module.hlo" --inputs="$TMP/npy"
rm "$TMP/npy/in2.npy"
# Expected outputs that do not fit: exit 2 as well.
mkdir -p "$TMP/expect"
cp "$CASE"/out*.npy "$TMP/expect/"
sed 's/(2, 3)/(3, 2)/' "$CASE/out0.npy" >"$TMP/expect/out0.npy"
"$HLO_RUN" "$CASE/module.hlo" --inputs="$CASE" --expect="$TMP/expect" \
  >"$TMP/stdout" 2>"$TMP/stderr"
got=$?
[[ "$got" == 1 ]] || fail "a wrong-shaped expected output exited $got, expected 1 (a shape mismatch)"
grep -qF "SHAPE MISMATCH" "$TMP/stdout" || fail "no SHAPE MISMATCH row"
sed 's/NUMPY/NUMPX/' "$CASE/out0.npy" >"$TMP/expect/out0.npy"
bad "$HLO_RUN" "expected output 0" "$CASE/module.hlo" --inputs="$CASE" \
  --expect="$TMP/expect"

# --- An unwritable output: exit 2, nothing half-written. ---
touch "$TMP/a_file"
bad "$HLO_OPT" "$TMP/a_file/out.hlo" "$CASE/module.hlo" -o "$TMP/a_file/out.hlo"
bad "$HLO_RUN" "$TMP/a_file/outdir" "$CASE/module.hlo" --inputs="$CASE" \
  --output="$TMP/a_file/outdir"

# A write that fails after the file was opened (a full device): exit 2,
# not a silent success.
if [[ -w /dev/full ]]; then
  bad "$HLO_OPT" "cannot write /dev/full" "$CASE/module.hlo" -o /dev/full
  "$HLO_OPT" "$CASE/module.hlo" >/dev/full 2>"$TMP/stderr"
  [[ $? == 2 ]] || fail "hlo-opt to a full stdout did not exit 2"
  grep -qF "cannot write to standard output" "$TMP/stderr" || fail "no message for a full stdout"
  "$HLO_RUN" "$CASE/module.hlo" --inputs="$CASE" >/dev/full 2>"$TMP/stderr"
  [[ $? == 2 ]] || fail "hlo-run to a full stdout did not exit 2"
fi
# A failed write leaves no temporary file beside the destination.
mkdir -p "$TMP/ro"
chmod 555 "$TMP/ro"
if ! touch "$TMP/ro/probe" 2>/dev/null; then
  bad "$HLO_OPT" "cannot write $TMP/ro/out.hlo" "$CASE/module.hlo" -o "$TMP/ro/out.hlo"
  [[ -z "$(ls "$TMP/ro")" ]] || fail "files left in $TMP/ro: $(ls "$TMP/ro")"
fi
chmod 755 "$TMP/ro"

finish
