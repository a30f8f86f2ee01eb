#!/usr/bin/env bash
# Idempotent set-up for building and testing hloc on Debian 12 (run as root,
# or with sudo available). Installs only what is missing; silent when all is
# there. Safe to run on every test run (scripts/test.sh does).
set -euo pipefail

# --- Debian packages ----------------------------------------------------------
# (No python3-lit package exists on Debian 12: lit ships with llvm-19-tools at
# /usr/lib/llvm-19/build/utils/lit/lit.py, FileCheck at /usr/lib/llvm-19/bin.)
APT_PACKAGES=(
  bazel-bootstrap bazel-rules-java
  llvm-19-dev clang-19 lld-19 llvm-19-tools libomp-19-dev libzstd-dev
  libprotobuf-dev protobuf-compiler libabsl-dev libgtest-dev pkg-config
  rocm-device-libs gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user
  # Sanitizer and fuzzing builds (.bazelrc --config=asan/fuzz/tsan,
  # third_party/clang19): clang-19's runtimes (ASan, UBSan, TSan,
  # libFuzzer) and LLVM's binutils (llvm-ar-19 and friends).
  libclang-rt-19-dev llvm-19
  # hlo-bench's dot column compares with OpenBLAS (dlopen of
  # libopenblas.so.0, the threaded build).
  libopenblas0-pthread
  # The CPU backend's fft steps (FFTW) and LAPACK steps (jnp.linalg's
  # custom calls, cholesky, triangular-solve); linked, so required to build.
  libfftw3-dev liblapack-dev
  # hlo-opt --emit=html lays graphs out with Graphviz's dot; the graph tests
  # render with it and open the page in headless Chromium (tools/graph).
  graphviz chromium-headless-shell
)

# --- Python packages (pinned; for the Python that is first on PATH) ------------
# JAX with its CPU jaxlib is a real XLA on this machine: the live-client
# tests lower JAX functions to HloModuleProtos and compare with XLA:CPU.
# 0.10.2 is the newest jaxlib published for Python 3.11.
PIP_PACKAGES=(
  "numpy==2.4.6"
  "ml_dtypes==0.6.0"
  "scipy==1.17.1"
  "jaxlib==0.10.2"
  "jax==0.10.2"
  # The Python package's bindings (python/): headers and sources that
  # third_party/python.bzl hands to Bazel.
  "nanobind==3.1.0"
)

log() { echo "[setup] $*" >&2; }

SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  SUDO=(sudo)
fi

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  status="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
  if [[ "$status" != "installed" ]]; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq
  "${SUDO[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PYTHON="${PYTHON:-python3}"
pip_missing=()
for spec in "${PIP_PACKAGES[@]}"; do
  name="${spec%%==*}"
  want="${spec#*==}"
  have="$("$PYTHON" -c 'import sys, importlib.metadata as m
try: print(m.version(sys.argv[1]))
except m.PackageNotFoundError: pass' "$name" 2>/dev/null || true)"
  if [[ "$have" != "$want" ]]; then
    pip_missing+=("$spec")
  fi
done
if ((${#pip_missing[@]})); then
  log "installing Python packages: ${pip_missing[*]}"
  "$PYTHON" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore "${pip_missing[@]}"
fi

# --- Bazel disk cache (see .bazelrc): Bazel 4 never evicts, so drop entries
# unused for 30 days (Bazel refreshes an entry's mtime when it is used).
DISK_CACHE="${HOME}/.cache/hloc-bazel-disk-cache"
if [[ -d "$DISK_CACHE" ]]; then
  find "$DISK_CACHE" -type f -mtime +30 -delete 2>/dev/null || true
fi

# --- The Python package (python/): built by Bazel, then made importable by
# that python3 from any directory through a .pth file in its site-packages
# naming the built package's folder (rewritten only when it changes).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_log="$(mktemp)"
if ! (cd "$ROOT" && bazel build --noshow_progress //python:site) \
    >"$build_log" 2>&1; then
  cat "$build_log" >&2
  rm -f "$build_log"
  log "building the Python package (bazel build //python:site) failed"
  exit 1
fi
rm -f "$build_log"
site_dir="$(cd "$ROOT" && bazel info bazel-bin 2>/dev/null)/python/site"
site_packages="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
pth="$site_packages/hloc.pth"
if [[ "$(cat "$pth" 2>/dev/null || true)" != "$site_dir" ]]; then
  log "making hloc importable: $pth -> $site_dir"
  echo "$site_dir" >"$pth"
fi
