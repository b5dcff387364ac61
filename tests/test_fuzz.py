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


# ---- the judge (tests/fuzz/check.py) on hand-made cases -------------------------------------------

def _case(call, ref, op="add"):
    setup = ["a0 = rand((3, 4), 'float32', 7)"]
    return {"op": op, "family": "elementwise", "kind": "values", "dtype": "float32", "setup": setup, "call": call,
            "ref": ref, "expect": "ref"}


def test_judge_matched_and_raised():
    from tests.fuzz.check import run
    assert run(_case("tl.add(contiguous(a0), 1)", "op('add').ref(a0, 1)")) == ("matched", "")
    assert run(_case("tl.add(contiguous(a0), 'x')", "op('add').ref(a0, 1)"))[0] == "raised"


def test_judge_flags_a_value_both_references_refuse():
    # torchlite's side of the call adds 0.5 more than PyTorch's: NumPy and PyTorch agree, torchlite not.
    from tests.fuzz.check import run
    outcome, detail = run(_case("tl.add(contiguous(a0), 1 + (0.5 if tl.__name__ == 'torchlite' else 0))",
                                "op('add').ref(a0, 1)"))
    assert outcome == "wrong", (outcome, detail)


@pytest.mark.skipif(__import__("helpers").TORCH is None, reason="PyTorch is not installed")
def test_judge_defers_to_pytorch_where_numpy_differs():
    from tests.fuzz.check import run
    assert run(_case("tl.add(contiguous(a0), 1)", "op('add').ref(a0, 2)")) == ("torch", "")
