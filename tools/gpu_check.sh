#!/usr/bin/env bash
# Build torchlite with CUDA on a machine with a GPU and run what only a GPU can check:
# tests/test_cuda.py, the whole suite against the CUDA build, compute-sanitizer on a few kernels,
# and benchmarks/bench_cuda.py. Logs go to $OUT (the device tool's folder) or ./gpu-check.
#   tools/gpu_check.sh            (uses python3, which must hold numpy, pytest, pybind11,
#                                  scikit-build-core, pyyaml and jinja2)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-check}
mkdir -p "$out"
py=${PYTHON:-python3}
nvidia-smi -L
start=$(date +%s)
if ! CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) TORCHLITE_CUDA=ON $py -m pip install -v --no-build-isolation --no-deps -e . >"$out/build.log" 2>&1; then
  grep -E "error|Error" "$out/build.log" | head -40
  exit 1
fi
echo "== build: $(( $(date +%s) - start )) s"
$py -c "import torchlite.cuda as c; print('CUDA available:', c.is_available(), c.get_device_name())"
timeout 150 $py -m pytest -q -rs -p no:cacheprovider tests/test_cuda.py 2>&1 | tee "$out/test_cuda.log" | tail -60
echo "== test_cuda: $(( $(date +%s) - start )) s"
timeout 150 $py -m pytest -q --maxfail=50 -n 8 -p no:cacheprovider tests 2>&1 | tee "$out/suite.log" | tail -15
echo "== suite: $(( $(date +%s) - start )) s"
timeout 90 compute-sanitizer --tool memcheck --print-limit 20 $py -m pytest -q -p no:cacheprovider \
  tests/test_cuda.py -k "add_matches_cpu or sum_over or unary_ops_match or binary_ops_match" 2>&1 \
  | tee "$out/memcheck.log" | tail -15
echo "== memcheck: $(( $(date +%s) - start )) s"
timeout 120 $py benchmarks/bench_cuda.py 2>&1 | tee "$out/bench_cuda.log"
echo "== total: $(( $(date +%s) - start )) s"
