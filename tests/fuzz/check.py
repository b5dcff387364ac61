"""Running one case and judging it. The outcome is one of "matched" (returned what NumPy gives),
"torch" (returned what PyTorch gives, where NumPy's reference differs, raises or is missing),
"rounding" (differs from both only where float32 rounding of the inputs moves NumPy's float64
answer as much), "returned" (returned; nothing to compare with), "raised" (a Python exception, which is always
allowed) or "wrong" (a wrong value, or a return where only raising is right). PyTorch, where
installed, is the arbiter: the specification torchlite follows is PyTorch's behaviour, and NumPy
references are a stand-in for it that can differ on edge cases (dtype promotion, non-finite
values, out-of-domain inputs). Crashes and hangs are seen by the parent (runner.py)."""

import dataclasses
import math
import signal
import warnings

import numpy as np

import torchlite as tl
from helpers import TORCH, _compare, _to_numpy, tolerances
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


def _setup(case, namespace):
    for line in case["setup"]:
        exec(line, namespace)


def _call(case, namespace):
    """Make the call in `namespace`; what it gives (case["got"] or the call's value)."""
    with np.errstate(all="ignore"):
        result = eval(case["call"], namespace)
        return eval(case["got"], namespace) if case.get("got") else result


def _pytorch(case):
    """PyTorch's answer as NumPy, or None when it is not installed, the entry has no PyTorch
    counterpart or unspecified values, or PyTorch raises."""
    info = OPS[case["op"]]
    if TORCH is None or not info.torch or not info.values:
        return None
    try:
        namespace = {**repro.names(TORCH), "math": math}
        _setup(case, namespace)
        return _to_numpy(_call(case, namespace))
    except Exception:
        return None


def _tolerances(case, got, expected):
    """(the entry with its tolerances for this case, the dtype that sets the default ones)."""
    dtype = _tolerance_dtype(case, got, expected)
    info = OPS[case["op"]]
    if dtype == tl.bfloat16:  # an entry's own tolerances are set for float32/float64 samples
        info = dataclasses.replace(info, rtol=max(info.rtol or 0, 1e-2), atol=max(info.atol or 0, 1e-2))
    return info, dtype


def _bracketed(got, expected, theirs, case):
    """Whether every float element of `got` lies between NumPy's and PyTorch's answers (give or
    take the tolerance). Where the two references themselves differ beyond the tolerance the
    element is ill-conditioned (an Adagrad step over a near-zero root, say) and any value between
    them is as right as either."""
    got, expected, theirs = ([_to_numpy(v) for v in _flat(x)] for x in (got, expected, theirs))
    if not len(got) == len(expected) == len(theirs):
        return False
    info, dtype = _tolerances(case, got, expected)
    rtol, atol = tolerances(info, dtype)
    for g, e, t in zip(got, expected, theirs):
        g, e, t = (np.asarray(x) for x in (g, e, t))
        if g.shape != e.shape or e.shape != t.shape or g.dtype.kind != "f":
            if not (np.array_equal(g, e, equal_nan=True) or np.array_equal(g, t, equal_nan=True)):
                return False
            continue
        g, e, t = (x.astype(np.float64) for x in (g, e, t))
        tol = atol + rtol * np.maximum(np.abs(e), np.abs(t))
        with np.errstate(invalid="ignore"):
            inside = (g >= np.fmin(e, t) - tol) & (g <= np.fmax(e, t) + tol)
        same = (g == e) | (g == t) | (np.isnan(g) & (np.isnan(e) | np.isnan(t)))
        if not np.all(inside | same):
            return False
    return True


def _within_rounding(got, case, namespace):
    """Whether each float element of `got` is as close to NumPy's float64 answer as float32
    rounding allows: the reference is run in float64 on the case's arrays and on copies nudged by
    16 roundings of their own dtype (three random nudges); an element may then differ by the
    largest change a nudge made, plus the tolerance. For ill-conditioned elements (an Adagrad step
    over a near-zero root, a log-softmax gradient cancelling to near zero) every float32 answer,
    PyTorch's included, is off by that much."""
    low = [k for k, v in namespace.items() if isinstance(v, np.ndarray) and v.dtype in (np.float16, np.float32)]
    if not low:
        return False

    def reference(seed, nudge):
        rng = np.random.default_rng(seed)
        ns = dict(namespace)
        for k in low:
            x = namespace[k].astype(np.float64)
            ns[k] = x * (1 + nudge * np.finfo(namespace[k].dtype).eps * rng.uniform(-1, 1, x.shape))
        answer, ok = _reference(case, ns)
        return [np.asarray(a, np.float64) for a in _flat(answer)] if ok else None

    truth = reference(0, 0.0)
    # 16 roundings: a fused optimizer step or a normalisation runs about that many float32
    # operations on each element, and each can round.
    nudged = [reference(seed, 16.0) for seed in (1, 2, 3)]
    got = [_to_numpy(v) for v in _flat(got)]
    if truth is None or any(n is None or len(n) != len(truth) for n in nudged) or len(got) != len(truth):
        return False
    info, dtype = _tolerances(case, got, truth)
    rtol, atol = tolerances(info, dtype)
    for k, (g, t) in enumerate(zip(got, truth)):
        g = np.asarray(g)
        if g.shape != t.shape or g.dtype.kind != "f":
            return False
        answers = np.stack([t, *(n[k] for n in nudged)])
        # Where a nudge turns NaN (a root of a difference that rounding makes negative), NaN
        # and any number are both within rounding.
        undefined = np.isnan(answers).any(axis=0)
        spread = np.max(np.abs(answers - t), axis=0)
        with np.errstate(invalid="ignore"):
            close = np.abs(g.astype(np.float64) - t) <= atol + rtol * np.abs(t) + spread
        if not np.all(close | undefined | (g == t)):
            return False
    return True


def _judge(got, expected, case):
    """None when `got` matches the NumPy nest `expected`, else why not."""
    info, dtype = _tolerances(case, got, expected)
    try:
        _compare(got, _to_numpy(expected), info, dtype)
    except MemoryError:  # comparing needs more memory than a child has: no verdict (see run)
        raise
    except Exception as e:
        return f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"
    return None


def run(case):
    """(outcome, detail): detail is the exception type for "raised", the reason for "wrong"."""
    namespace = {**repro.names(tl), "math": math}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            _setup(case, namespace)
        except Exception as e:  # the inputs themselves could not be made: not torchlite's call
            return "raised", f"setup:{type(e).__name__}"
        try:
            got = _call(case, namespace)
        except Exception as e:
            return "raised", type(e).__name__
        if case["expect"] == "raise":
            return "wrong", "returned instead of raising"
        try:
            return _verdict(case, namespace, got)
        except MemoryError:  # a result too large for the references to be computed or compared
            return "returned", ""


def _verdict(case, namespace, got):
    """The outcome of a call that returned `got`: compared with NumPy, then PyTorch, then rounding."""
    expected, ok = _reference(case, namespace) if case["ref"] is not None else (None, False)
    why = _judge(got, expected, case) if ok else "no NumPy answer"
    if why is None:
        return "matched", ""
    theirs = _pytorch(case)
    if theirs is not None:
        differs = _judge(got, theirs, case)
        if differs is None or (ok and _bracketed(got, expected, theirs, case)):
            return "torch", ""
    if ok and _within_rounding(got, case, namespace):
        return "rounding", ""
    if theirs is not None:
        return "wrong", f"{why}; PyTorch: {differs}"
    return ("wrong", why) if ok else ("returned", "")
