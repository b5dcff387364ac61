#!/usr/bin/env bash
# Times the three builds issue 12 sets targets for, in a scratch build directory, without ccache:
#   1. a clean build;
#   2. the rebuild after a one-line change in one hand-written kernel .cpp;
#   3. the rebuild after changing one YAML entry (a default argument of a function-only overload);
#   4. the rebuild after adding a function-only operator whose kernel exists (amax_out's), so
#      that it measures the generated code alone.
# Each line gives wall and CPU (user+sys of the compilers) seconds and the number of files
# compiled. Both edits are reverted, also on failure or Ctrl-C.
#
#   tools/measure_rebuilds.sh [BUILD_DIR]      (default /tmp/torchlite-rebuilds, wiped first)
#   TORCHLITE_CUDA=auto|ON|OFF                 as for pip install (default auto)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/torchlite-rebuilds}
python=${PYTHON:-$root/.venv/bin/python}
kernel=aten/native/cpu/ReduceOpsKernel.cpp
yaml=native_functions.yaml
yaml_from='func: logsumexp.out(Tensor self, int[1] dim, bool keepdim=False,'
yaml_to='func: logsumexp.out(Tensor self, int[1] dim, bool keepdim=True,'

cd "$root"
grep -qF "$yaml_from" "$yaml" || { echo "$yaml: '$yaml_from' not found; update this script" >&2; exit 1; }
backup=$(mktemp -d)
cp "$kernel" "$yaml" "$backup/"
restore() { cp "$backup/$(basename "$kernel")" "$kernel"; cp "$backup/$yaml" "$yaml"; rm -rf "$backup"; }
trap restore EXIT
trap 'exit 130' INT TERM  # so that the EXIT trap restores the files

build() {  # build LABEL: runs ninja, prints the line for LABEL
  local log
  log=$(mktemp)
  /usr/bin/time -f "%e %U %S" -o "$log.time" ninja -C "$dir" > "$log"
  local files
  files=$(grep -c -E 'Building (CXX|CUDA) object' "$log" || true)
  read -r wall user sys < "$log.time"
  awk -v l="$1" -v w="$wall" -v u="$user" -v s="$sys" -v f="$files" \
    'BEGIN { printf "%-50s %7.1f s wall %7.1f s CPU %4d files compiled\n", l, w, u + s, f }'
  rm -f "$log" "$log.time"
}

rm -rf "$dir"
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTORCHLITE_CUDA="${TORCHLITE_CUDA:-auto}" \
  -DCMAKE_CXX_COMPILER_LAUNCHER= -DCMAKE_CUDA_COMPILER_LAUNCHER= \
  -Dpybind11_DIR="$("$python" -m pybind11 --cmakedir)" -DPython_EXECUTABLE="$python" | grep -E '^-- torchlite'
echo "nproc: $(nproc), load: $(cut -d' ' -f1-3 /proc/loadavg)"

build "clean build"

echo "// measure_rebuilds.sh: one-line change" >> "$kernel"
build "one-line change in $(basename "$kernel")"
cp "$backup/$(basename "$kernel")" "$kernel"
ninja -C "$dir" > /dev/null  # back to the clean state, untimed

sed -i "s/$(printf '%s' "$yaml_from" | sed 's/[][\.*^$/]/\\&/g')/$yaml_to/" "$yaml"
build "one default changed in $yaml"
cp "$backup/$yaml" "$yaml"
ninja -C "$dir" > /dev/null

printf '\n- func: rebuild_probe.out(Tensor self, int[1] dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch:\n    CPU: amax_out\n' >> "$yaml"
build "one function-only operator added to $yaml"
cp "$backup/$yaml" "$yaml"
ninja -C "$dir" > /dev/null
