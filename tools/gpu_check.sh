#!/usr/bin/env bash
# Build torchlite with CUDA on a machine with a GPU and run what only a GPU can check:
# tests/test_cuda.py, every registry sample on CUDA against the CPU (test_ops.py's
# test_cuda_matches_cpu), benchmarks/bench_cuda.py, compute-sanitizer on a few kernels and the
# whole suite against the CUDA build. Logs go to $OUT (the device tool's folder) or ./gpu-check.
#   tools/gpu_check.sh            (uses python3, which must hold numpy, pytest, pybind11,
#                                  scikit-build-core, pyyaml and jinja2; wheels in .whl/, such
#                                  as scipy-openblas32 for torchlite.linalg, are installed first)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-check}
mkdir -p "$out"
py=${PYTHON:-python3}
nvidia-smi -L
if ls .whl/*.whl >/dev/null 2>&1; then
  $py -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
fi
start=$(date +%s)
if ! CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) TORCHLITE_CUDA=ON $py -m pip install -v --no-build-isolation --no-deps -e . >"$out/build.log" 2>&1; then
  grep -E "error|Error" "$out/build.log" | head -40
  exit 1
fi
echo "== build: $(( $(date +%s) - start )) s"
$py -c "import torchlite.cuda as c; print('CUDA available:', c.is_available(), c.get_device_name())"
timeout 150 $py -m pytest -q -rs -p no:cacheprovider tests/test_cuda.py 2>&1 | tee "$out/test_cuda.log" | tail -60
echo "== test_cuda: $(( $(date +%s) - start )) s"
timeout 150 $py -m pytest -q -rP -n 8 -p no:cacheprovider tests/test_ops.py -k cuda_matches_cpu 2>&1 \
  | tee "$out/cuda_registry.log" | grep -v "^\[gw" | tail -80
echo "== cuda registry: $(( $(date +%s) - start )) s"
timeout 80 $py benchmarks/bench_cuda.py 2>&1 | tee "$out/bench_cuda.log"
echo "== bench: $(( $(date +%s) - start )) s"
timeout 60 compute-sanitizer --tool memcheck --print-limit 20 $py -m pytest -q -p no:cacheprovider \
  tests/test_cuda.py -k "add_matches_cpu or sum_over or unary_ops_match or binary_ops_match" 2>&1 \
  | tee "$out/memcheck.log" | tail -15
echo "== memcheck: $(( $(date +%s) - start )) s"
# The whole suite gets what is left of a 9-minute budget.
timeout $(( 540 - ($(date +%s) - start) )) $py -m pytest -q --maxfail=50 -n 12 -p no:cacheprovider tests 2>&1 | tee "$out/suite.log" | tail -15
echo "== total: $(( $(date +%s) - start )) s"
