#!/usr/bin/env bash
# The Python package for the GPU machine, which has CPython 3.12 and JAX
# but no LLVM, abseil or protobuf (../shared/TOOLCHAIN.md): hloc's Python
# sources with an extension built here for 3.12 and every shared library it
# needs beyond glibc and libstdc++, the GPU Python tests and the overhead
# benchmark.
#
#   scripts/gpu_python_bundle.sh [--compiler] [-o DIR]  (default gpu-python-bundle/)
#
# Without --compiler: the runtime-only extension _hloc_cuda (no compiler;
# abseil and protobuf beside it, rpath $ORIGIN) and the test's executables,
# compiled here. On the GPU machine DIR/run.sh runs gpu_python_test.py on
# them, then the cuda overhead table.
#
# With --compiler: the full extension _hloc (the compiler too), so that
# hloc.jit(f, platform="cuda") lowers, compiles and runs there in one
# process. Its libraries (libLLVM and its dependencies, abseil, protobuf,
# BLAS, FFTW, libgomp; ~250 MB) travel xz-compressed in DIR/compiler.tar.xz
# (~50 MB: the device tool carries 64 MiB in all), with libdevice for a
# machine whose CUDA has none. On the GPU machine DIR/run.sh unpacks it
# into DIR/site/hloc (the extension, lib/ beside it) once, then runs
# gpu_python_jit_test.py, gpu_python_test.py (its executables compiled
# there) and the overhead table; DIR/site on PYTHONPATH is then the
# package (after DIR/unpack.sh, which run.sh calls).
set -euo pipefail
cd "$(dirname "$0")/.."

out=gpu-python-bundle
compiler=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --compiler) compiler=1; shift ;;
    -o) out="$2"; shift 2 ;;
    *) echo "usage: $0 [--compiler] [-o DIR]" >&2; exit 2 ;;
  esac
done

if [[ $compiler == 1 ]]; then
  target="//python:gpu_py312/_hloc.cpython-312-x86_64-linux-gnu.so"
else
  target="//python:gpu_runtime_py312/_hloc_cuda.cpython-312-x86_64-linux-gnu.so"
fi
extension="bazel-bin/python/${target#//python:}"
bazel build //python:site "$target" >&2

rm -rf "$out"
mkdir -p "$out/site/hloc" "$out/tests"
cp python/hloc/*.py "$out/site/hloc/"
cp tests/gpu_python/*.py "$out/tests/"
cp python/benchmarks/jit_overhead.py "$out/"

# Every library ldd resolves, except the C runtime every Linux has (a
# bundled libstdc++ would also serve the driver's own libraries), into
# $1, named by soname.
system_library='^(linux-vdso|ld-linux|libc|libm|libdl|librt|libpthread|libresolv|libstdc\+\+|libgcc_s)\.so'
copy_libraries() {
  ldd "$extension" | awk '/=> \// {print $1, $3}' | while read -r name path; do
    if [[ ! $name =~ $system_library ]]; then
      install -m 644 "$path" "$1/$name"
    fi
  done
}

if [[ $compiler == 0 ]]; then
  install -m 755 "$extension" "$out/site/hloc/"
  copy_libraries "$out/site/hloc"
  mkdir -p "$out/executables"
  PYTHONPATH=bazel-bin/python/site python3 tests/gpu_python/make_executables.py \
    "$out/executables" >&2
  cat > "$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# The GPU Python test, then the per-call overhead table, on this machine.
here="$(cd "$(dirname "$0")" && pwd)"
export PYTHONPATH="$here/site${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
HLOC_GPU_EXECUTABLES="$here/executables" python3 "$here/tests/gpu_python_test.py"
test_status=$?
python3 "$here/jit_overhead.py" --platform=cuda \
  --cuda-executables="$here/executables"
exit $test_status
RUN
  chmod 755 "$out/run.sh"
  du -sh "$out" >&2
  exit 0
fi

# --compiler: the extension in site/hloc, its libraries in site/hloc/lib
# (the extension's rpath is $ORIGIN/lib, and libLLVM's RUNPATH
# $ORIGIN/../lib names the same folder), libdevice in cuda/.
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/site/hloc/lib" "$stage/cuda/nvvm/libdevice"
install -m 755 "$extension" "$stage/site/hloc/"
copy_libraries "$stage/site/hloc/lib"
cuda_path="${CUDA_PATH:-/usr/local/cuda}"
install -m 644 "$cuda_path/nvvm/libdevice/libdevice.10.bc" \
  "$stage/cuda/nvvm/libdevice/"
du -sh "$stage" >&2
tar -C "$stage" -cf - site cuda | xz -9 -T2 > "$out/compiler.tar.xz"

cat > "$out/unpack.sh" <<'UNPACK'
#!/usr/bin/env bash
# Unpacks the compiler (the extension and its libraries) into site/hloc
# once. Then PYTHONPATH=<this folder>/site makes `import hloc` the package
# with its compiler; if this machine's CUDA has no libdevice, also
# export CUDA_PATH=<this folder>/cuda (ptxas is linked into it from
# /usr/local/cuda/bin or PATH; without one, the driver JIT-compiles PTX).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [[ ! -e "$here/site/hloc/lib/libLLVM.so.19.1" ]]; then
  tar -C "$here" -xJf "$here/compiler.tar.xz"
fi
ptxas="$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)"
if [[ -x $ptxas && ! -e "$here/cuda/bin/ptxas" ]]; then
  mkdir -p "$here/cuda/bin" && ln -s "$ptxas" "$here/cuda/bin/ptxas"
fi
UNPACK

cat > "$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# hloc.jit(platform="cuda") compiling here: the jit test (no executables
# from elsewhere), the runtime test with its executables compiled here,
# then the per-call overhead table. Exit status: the two tests'.
here="$(cd "$(dirname "$0")" && pwd)"
start=$(date +%s%N)
"$here/unpack.sh" || exit 1
echo "unpacked in $(( ($(date +%s%N) - start) / 1000000 )) ms"
export PYTHONPATH="$here/site${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
if [[ -z ${CUDA_PATH:-} && ! -e /usr/local/cuda/nvvm/libdevice/libdevice.10.bc ]]; then
  echo "no /usr/local/cuda/nvvm/libdevice: CUDA_PATH=$here/cuda"
  export CUDA_PATH="$here/cuda"
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ls -l "${CUDA_PATH:-/usr/local/cuda}/bin/ptxas" 2>&1
# The compiler must load: say why if it does not (a skip would hide it).
python3 -c 'import time; t = time.perf_counter(); from hloc import _hloc
print(f"hloc._hloc loaded in {time.perf_counter() - t:.2f} s:", _hloc.__file__)' || exit 1
status=0
python3 "$here/tests/gpu_python_jit_test.py" || status=1
python3 "$here/tests/gpu_python_test.py" || status=1
python3 "$here/jit_overhead.py" --platform=cuda --repeats=200
exit $status
RUN
chmod 755 "$out/run.sh" "$out/unpack.sh"
du -sh "$out" >&2
