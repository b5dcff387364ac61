"""benchmarks/run_all.py: a --quick smoke run of three tiny rows writes the side-by-side table."""

import math
import os
import re
import subprocess
import sys

import pytest

RUN_ALL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "run_all.py")


@pytest.mark.slow
def test_run_all_quick_table(tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "RESULTS.md"
    rows = ["per-op overhead", "add out=", "train step: MLP"]
    r = subprocess.run([sys.executable, RUN_ALL, "--quick", "--repeats", "1", "--only", *rows, "--output", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert "Machine:" in text and "PyTorch 2." in text
    table = [line.split(" | ") for line in text.splitlines() if line.startswith("| ") and "case" not in line]
    assert [cells[0][2:] for cells in table] == ["per-op overhead: a + b, 4 floats", "add out=, 16M",
                                                 "train step: MLP 784-256-256-10, b128"]
    # Columns: case, then 1 thread: torchlite, torch, numpy, ratio, load; 2 threads: torchlite, torch, ratio, load.
    ratios = [float(cells[i].strip("*")) for cells in table for i in (4, 8)]
    assert all(r > 0 for r in ratios)
    assert all(re.fullmatch(r"[\d.e+-]+ (s|ms|us)", cells[i]) for cells in table for i in (1, 2, 6, 7))
    assert table[0][3] != "-" and table[2][3] == "-"  # NumPy has a + b but no MLP step
    mean = float(re.search(r"all 6 ratios \*\*([\d.]+)\*\*", text).group(1))
    assert mean == pytest.approx(math.exp(sum(map(math.log, ratios)) / 6), rel=0.02, abs=0.01)
