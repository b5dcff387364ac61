#!/usr/bin/env bash
# Build torchlite with CUDA on a machine with a GPU and run what only a GPU can check, in order of
# value: tests/test_cuda.py, every registry sample on CUDA against the CPU (test_ops.py's
# test_cuda_matches_cpu), benchmarks/bench_cuda.py, the other test files that use a GPU when one
# is present, then (time permitting) compute-sanitizer on a few kernels. Logs go to $OUT (the
# device tool's folder) or ./gpu-check. The steps share a budget of BUDGET seconds (default 480)
# counted from the start, build included, so that the script ends inside the device tool's limit.
#   tools/gpu_check.sh            (uses python3, which must hold numpy, pytest, pytest-xdist,
#                                  pybind11, scikit-build-core, pyyaml and jinja2; wheels in
#                                  .whl/, such as scipy-openblas32 for torchlite.linalg, are
#                                  installed first)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-check}
mkdir -p "$out"
py=${PYTHON:-python3}
budget=${BUDGET:-480}
start=$(date +%s)
left() { echo $(( budget - ($(date +%s) - start) )); }
nvidia-smi -L
if ls .whl/*.whl >/dev/null 2>&1; then
  $py -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
fi
if ! CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) TORCHLITE_CUDA=ON $py -m pip install -v --no-build-isolation --no-deps -e . >"$out/build.log" 2>&1; then
  grep -E "error|Error" "$out/build.log" | head -40
  exit 1
fi
echo "== build: $(( $(date +%s) - start )) s"
$py -c "import torchlite.cuda as c; print('CUDA available:', c.is_available(), c.get_device_name())"
# Synchronous launches: a failing kernel is reported at its own operator, not a later one.
export CUDA_LAUNCH_BLOCKING=1
timeout 100 $py -m pytest -q -rs -n 8 -p no:cacheprovider tests/test_cuda.py 2>&1 | tee "$out/test_cuda.log" | tail -40
echo "== test_cuda: $(( $(date +%s) - start )) s"
timeout 150 $py -m pytest -q -rP -n 12 -p no:cacheprovider tests/test_ops.py -k cuda_matches_cpu 2>&1 \
  | tee "$out/cuda_registry.log" | grep -v "^\[gw" | tail -80
echo "== cuda registry: $(( $(date +%s) - start )) s"
unset CUDA_LAUNCH_BLOCKING
timeout 90 $py benchmarks/bench_cuda.py --repeats 3 2>&1 | tee "$out/bench_cuda.log"
echo "== bench: $(( $(date +%s) - start )) s"
gpu_files=$(grep -l "cuda.is_available()\|requires_gpu\|needs_cuda" tests/test_*.py | grep -v "test_cuda.py\|test_ops.py")
timeout $(( $(left) - 70 )) $py -m pytest -q --maxfail=60 -n 12 -p no:cacheprovider $gpu_files 2>&1 \
  | tee "$out/suite.log" | tail -40
echo "== other GPU test files: $(( $(date +%s) - start )) s"
timeout $(( $(left) - 5 )) compute-sanitizer --tool memcheck --print-limit 20 $py -m pytest -q -p no:cacheprovider \
  tests/test_cuda.py -k "add_matches_cpu or sum_over or unary_ops_match or binary_ops_match or index" 2>&1 \
  | tee "$out/memcheck.log" | tail -15
echo "== total: $(( $(date +%s) - start )) s"
