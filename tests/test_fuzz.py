"""A short fuzz campaign over the operator registry (tests/fuzz/): every call returns NumPy's
answer or raises a Python exception; none crashes the process. A long campaign:
`python -m tests.fuzz --calls 100000`."""

import pytest

pytest.importorskip("hypothesis")

from tests.fuzz.report import format_report  # noqa: E402
from tests.fuzz.runner import run_campaign  # noqa: E402

CALLS = 1500  # about 30 s on 2 cores


def test_fuzz_short_campaign():
    results = run_campaign(CALLS, seed=0, batch=250, jobs=2)
    assert len(results) >= CALLS * 0.9, f"only {len(results)} of {CALLS} calls ran"
    bad = [r for r in results if r.outcome in ("crash", "wrong")]
    assert not bad, "\n" + format_report(results)
