#!/usr/bin/env bash
# Build torchlite._C with AddressSanitizer + UndefinedBehaviorSanitizer (CPU only) into its own
# build directory (build/asan-<wheel tag>) and virtual environment (.venv-asan), then run a
# representative part of the test suite under both. Any sanitizer report aborts the run, so
# the script fails on the first finding.
#
#   tools/run_sanitized_tests.sh              # build (incremental) + the default test selection
#   tools/run_sanitized_tests.sh tests/test_shape.py -k view   # build + these pytest arguments
#   SKIP_BUILD=1 tools/run_sanitized_tests.sh ...              # reuse the installed build
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv-asan
start=$(date +%s)
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  [[ -x $VENV/bin/python ]] || python3 -m venv $VENV
  # SKBUILD_BUILD_DIR overrides pyproject's build-dir, so the normal build/ tree is untouched.
  TORCHLITE_SANITIZE=address,undefined TORCHLITE_CUDA=OFF SKBUILD_BUILD_DIR="build/asan-{wheel_tag}" \
    $VENV/bin/pip install -q -e ".[test]"
  echo "== sanitized build took $(( $(date +%s) - start )) s"
fi

# CPython is not built with ASan, so the runtimes must be loaded before anything else.
LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
export LD_PRELOAD
# detect_leaks=0: CPython keeps interned strings, module state and arenas alive until exit
# by design; LeakSanitizer would report all of them.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$PWD/tools/sanitizers/ubsan.supp"

if [[ $# -eq 0 ]]; then
  # The representative part (see README, "Sanitizers"): every operator's forward, out= and
  # in-place samples plus the core tensor, indexing, shape and conv/pool tests.
  set -- tests/test_ops.py::test_forward_matches_numpy tests/test_ops.py::test_out_form \
         tests/test_ops.py::test_inplace_form \
         tests/test_tensor_core.py tests/test_indexing.py tests/test_shape.py tests/test_conv_pool.py
fi
t0=$(date +%s)
# --capture=sys: sanitizer reports go to file descriptor 2, which pytest would otherwise swallow.
$VENV/bin/python -m pytest -q -p no:cacheprovider --capture=sys "$@"
echo "== sanitized tests took $(( $(date +%s) - t0 )) s"
