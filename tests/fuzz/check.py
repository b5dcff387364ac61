"""Running one case and judging it. The outcome is one of "matched" (returned what NumPy gives),
"returned" (returned; nothing to compare with: no reference, or the reference raised too),
"raised" (a Python exception, which is always allowed) or "wrong" (a wrong value, or a return
where only raising is right). Crashes and hangs are seen by the parent (runner.py)."""

import dataclasses
import math
import signal
import warnings

import numpy as np

import torchlite as tl
from helpers import _compare, _to_numpy
from tests.fuzz import repro
from tests.fuzz.repro import OPS

REF_SECONDS = 5  # a reference slower than this (Python loops on a large input) is skipped


def reproducer(case):
    """A shell one-liner, run from the repository root, that makes the call and prints the result."""
    got = case.get("got")
    lines = [*case["setup"], f"r = {case['call']}" if got else f"print({case['call']})"]
    if got:
        lines.append(f"print({got})")
    code = "; ".join(["from tests.fuzz.repro import *", *lines])
    return f'python -c "{code}"' if '"' not in code else f"python -c '{code}'"


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


def _reference(case, namespace):
    """NumPy's answer, or None when the reference raises or takes too long."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(REF_SECONDS)
    try:
        with np.errstate(all="ignore"):
            return eval(case["ref"], namespace), True
    except (Exception, _Timeout):
        return None, False
    finally:
        signal.alarm(0)


def _flat(x):
    return [y for item in x for y in _flat(item)] if isinstance(x, (list, tuple)) else [x]


def _tolerance_dtype(case, got, expected):
    """The least precise float dtype of the case, its results and NumPy's (float16 as bfloat16:
    NumPy rounds each step of a composite reference in float16)."""
    dtypes = [getattr(tl, case["dtype"])] if case["dtype"] else []
    dtypes += [t.dtype for t in _flat(got) if isinstance(t, tl.Tensor)]
    dtypes += [{np.float16: tl.float16, np.float32: tl.float32}.get(np.asarray(e).dtype.type) for e in _flat(expected)]
    order = [tl.float16, tl.float32]
    least = min((d for d in dtypes if d in order), key=order.index, default=tl.float64)
    return tl.bfloat16 if least == tl.float16 else least


def run(case):
    """(outcome, detail): detail is the exception type for "raised", the reason for "wrong"."""
    namespace = {name: getattr(repro, name) for name in repro.__all__}
    namespace["math"] = math
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for line in case["setup"]:
                exec(line, namespace)
        except Exception as e:  # the inputs themselves could not be made: not torchlite's call
            return "raised", f"setup:{type(e).__name__}"
        try:
            with np.errstate(all="ignore"):
                result = eval(case["call"], namespace)
                got = eval(case["got"], namespace) if case.get("got") else result
        except Exception as e:
            return "raised", type(e).__name__
        if case["expect"] == "raise":
            return "wrong", "returned instead of raising"
        if case["ref"] is None:
            return "returned", ""
        expected, ok = _reference(case, namespace)
        if not ok:
            return "returned", ""
        dtype = _tolerance_dtype(case, got, expected)
        info = OPS[case["op"]]
        if dtype == tl.bfloat16:  # an entry's own tolerances are set for float32/float64 samples
            info = dataclasses.replace(info, rtol=max(info.rtol or 0, 1e-2), atol=max(info.atol or 0, 1e-2))
        try:
            _compare(got, _to_numpy(expected), info, dtype)
        except Exception as e:
            return "wrong", f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"
    return "matched", ""
