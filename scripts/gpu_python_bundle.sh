#!/usr/bin/env bash
# The Python package for the GPU machine, which has CPython 3.12 and JAX
# but no LLVM, abseil or protobuf (../shared/TOOLCHAIN.md): hloc's Python
# sources with the runtime-only extension built for 3.12 (_hloc_cuda, no
# compiler) and the shared libraries it needs beside it (its rpath is
# $ORIGIN), the GPU Python test with its executables compiled here, and the
# overhead benchmark.
#
#   scripts/gpu_python_bundle.sh [-o DIR]     (default gpu-python-bundle/)
#
# On the GPU machine: DIR/run.sh (the test, then the cuda overhead table).
set -euo pipefail
cd "$(dirname "$0")/.."

out=gpu-python-bundle
[[ ${1:-} == -o ]] && out="$2"
extension="bazel-bin/python/gpu_runtime_py312/_hloc_cuda.cpython-312-x86_64-linux-gnu.so"
bazel build //python:site "//python:gpu_runtime_py312/_hloc_cuda.cpython-312-x86_64-linux-gnu.so" >&2

rm -rf "$out"
mkdir -p "$out/site/hloc" "$out/executables" "$out/tests"
cp python/hloc/*.py "$out/site/hloc/"
install -m 755 "$extension" "$out/site/hloc/"
# Every library ldd resolves except the C runtime every Linux has (a
# bundled libstdc++ would also serve the driver's own libraries).
system_library='^(linux-vdso|ld-linux|libc|libm|libdl|librt|libpthread|libresolv|libstdc\+\+|libgcc_s)\.so'
ldd "$extension" | awk '/=> \// {print $1, $3}' | while read -r name path; do
  if [[ ! $name =~ $system_library ]]; then
    install -m 644 "$path" "$out/site/hloc/$name"
  fi
done

PYTHONPATH=bazel-bin/python/site python3 tests/gpu_python/make_executables.py \
  "$out/executables" >&2
cp tests/gpu_python/*.py "$out/tests/"
cp python/benchmarks/jit_overhead.py "$out/"

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
