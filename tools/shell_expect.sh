# Checks for the tools' end-to-end shell tests (tools/*_test.sh), which run
# hlo-opt, hlo-run and hlo-run-gpu as a user would and look at what they
# did: exit status, what stdout and stderr say, files left behind. Sourced,
# not run:
#
#   source "$(dirname "$0")/shell_expect.sh"
#   expect_status 2 "$HLO_RUN" missing.hlo
#   expect_in stderr "missing.hlo"
#   ...
#   finish
#
# A failed check prints FAIL with the last run's stdout and stderr and
# counts; the test goes on, so one run reports every broken check, and
# finish exits non-zero if any failed.

TMP="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

# fail MESSAGE: counts a failure, showing the last run's output.
fail() {
  echo "FAIL: $*"
  cat "$TMP/stdout" "$TMP/stderr" 2>/dev/null
  failures=$((failures + 1))
}

# expect_status WANT TOOL ARGS...: runs TOOL with ARGS, its output in
# $TMP/stdout and $TMP/stderr (what the expect_* below read), and checks
# its exit status.
expect_status() {
  local want="$1" tool="$2"
  shift 2
  "$tool" "$@" >"$TMP/stdout" 2>"$TMP/stderr"
  local got=$?
  [[ "$got" == "$want" ]] ||
    fail "$(basename "$tool") $* exited $got, expected $want"
}

# expect_in stdout|stderr TEXT: a line of the last run's stream contains
# TEXT (a fixed string). expect_not_in: none does.
expect_in() { grep -qF -- "$2" "$TMP/$1" || fail "$1 lacks: $2"; }
expect_not_in() { ! grep -qF -- "$2" "$TMP/$1" || fail "$1 has: $2"; }

# expect_count N stdout|stderr TEXT: exactly N lines contain TEXT (fixed).
expect_count() {
  local n
  n=$(grep -cF -- "$3" "$TMP/$2")
  [[ "$n" == "$1" ]] || fail "$n lines of $2 contain '$3', expected $1"
}

# expect_match stdout|stderr REGEX: a line of the last run's stream matches
# REGEX (grep's basic regular expressions).
expect_match() { grep -q -- "$2" "$TMP/$1" || fail "$1 has no line matching: $2"; }

# expect_matches N stdout|stderr REGEX: exactly N lines match REGEX.
expect_matches() {
  local n
  n=$(grep -c -- "$3" "$TMP/$2")
  [[ "$n" == "$1" ]] || fail "$n lines of $2 match '$3', expected $1"
}

# expect_no_file PATH: the last run did not write PATH (removed if it did).
expect_no_file() {
  [[ ! -e "$1" ]] || fail "$1 was written"
  rm -rf "$1"
}

# finish: the verdict, as the test's exit status.
finish() {
  if ((failures)); then
    echo "$failures failure(s)"
    exit 1
  fi
  echo "PASS"
  exit 0
}
