#!/usr/bin/env bash
# The cuSOLVER check (jnp.linalg on the GPU) in one device call: the cases
# of tests/jax/jax_linalg_gpu_export.py lowered for CUDA here (JAX needs
# no GPU to lower), compiled by hloc for cuda, bundled with the export
# script; there, the script runs the same functions on the same inputs
# with XLA:GPU, puts its outputs beside each case and the bundle's runner
# compares.
#
#   scripts/gpu_linalg_check.sh [-o DIR]   # here -> gpu-linalg-bundle/
#   DIR/linalg_run.sh                      # on the GPU machine
#
# With the device tool the bundle must be inside the checkout the tool
# sends (a helper's worktree is not sent): see the results file.
set -euo pipefail
cd "$(dirname "$0")/.."
out=gpu-linalg-bundle
[[ "${1:-}" == -o ]] && out="$2"
bazel build //tools:hlo-opt >&2
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
python3 tests/jax/jax_linalg_gpu_export.py --lower-only "$stage/cases" >&2
: > "$stage/compile.txt"
for dir in "$stage"/cases/*/; do
  if ! bazel-bin/tools/hlo-opt "$dir/module.pb" --platform=cuda \
      --stage=executable -o "$dir/m.hloexe" > "$dir/log" 2>&1; then
    echo "$(basename "$dir"): $(tail -1 "$dir/log")" >> "$stage/compile.txt"
    rm -rf "$dir"
  fi
done
[[ -s "$stage/compile.txt" ]] && cat "$stage/compile.txt" >&2
scripts/gpu_bundle.sh -o "$out" "$stage"/cases/*/
cp "$stage/compile.txt" "$out/compile.txt"
cp tests/jax/jax_linalg_gpu_export.py "$out/"
cat > "$out/linalg_run.sh" <<'RUN'
#!/usr/bin/env bash
# XLA:GPU's outputs for every case (the same inputs, checked), then run.sh.
here="$(cd "$(dirname "$0")" && pwd)"
xla="${1:-$here/xla}"
python3 "$here/jax_linalg_gpu_export.py" "$xla" || exit 2
for case in "$here"/cases/*/; do
  name=$(basename "$case")
  for input in "$case"/in*.npy; do
    cmp -s "$input" "$xla/$name/$(basename "$input")" ||
      echo "$name: $(basename "$input") differs from the one XLA:GPU ran"
  done
  cp "$xla/$name"/out*.npy "$case/"
done
exec "$here/run.sh"
RUN
chmod 755 "$out/linalg_run.sh"
