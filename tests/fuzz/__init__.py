"""A fuzzer for the operator registry (tests/opinfo/), driven by hypothesis.

Modules: `repro` (the names a generated call and its one-line reproducer use), `strategies`
(shapes, dtypes, layouts and odd values), `cases` (calls built from registry samples and from
scratch), `check` (running one call and judging it), `worker` (a child process running a batch),
`runner` (batches in child processes, crash isolation) and `report` (counts and findings).
Run `python -m tests.fuzz --calls 100000` from the repository root; tests/test_fuzz.py runs a
short budget.
"""

import sys
from pathlib import Path

# tests/ modules import each other as top-level modules (`helpers`, `opinfo`), as under pytest.
_TESTS = str(Path(__file__).resolve().parent.parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
