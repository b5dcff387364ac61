"""float16 / bfloat16 arithmetic in registers (Note [Half arithmetic in registers],
aten/native/cpu/HalfArithmetic.h): add, sub, mul, div, neg, abs, sqrt and relu of contiguous
operands convert each vector to float32, compute and round once. Checked bit for bit against
NumPy (float32 arithmetic on the half values, rounded to nearest even) over every 16-bit
pattern (subnormals, infinities, NaN, both zeros) paired with random partners, over every tail
length of the vector loop, with a broadcast operand, in place, and at every CPU capability."""

import os
import subprocess
import sys

import numpy as np
import pytest

import torchlite as tl

HALF_DTYPES = ["float16", "bfloat16"]
BINARY = ["add", "sub", "mul", "div"]
UNARY = ["neg", "abs", "sqrt", "relu"]
# Powers of two: alpha * b is exact in float32, so a + alpha * b has one rounding with or
# without a fused multiply-add, and NumPy's float32 result is the expected one.
ALPHAS = {"add": 2.0, "sub": -0.5}


def _round(x, dtype):
    """float32 values rounded to nearest even in dtype, as float32 (NaN for NaN)."""
    x = np.asarray(x, dtype=np.float32)
    if dtype == "float16":
        with np.errstate(over="ignore"):
            return x.astype(np.float16).astype(np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = (((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), rounded)


def _reference(op, a, b=None, alpha=1.0):
    """op on float32 copies of the half values a, b, rounded once to the half type."""
    with np.errstate(all="ignore"):
        if op == "add":
            r = a + np.float32(alpha) * b
        elif op == "sub":
            r = a - np.float32(alpha) * b
        elif op == "mul":
            r = a * b
        elif op == "div":
            r = a / b
        elif op == "neg":
            r = -a
        elif op == "abs":
            r = np.abs(a)
        elif op == "sqrt":
            r = np.sqrt(a)
        else:  # relu: x where x > 0 or NaN, else +0
            r = np.where((a > 0) | np.isnan(a), a, np.float32(0))
    return r.astype(np.float32)


def _every_value(dtype):
    """Every value of dtype once (as float32), NaN patterns included, in bit order."""
    patterns = np.arange(2**16, dtype=np.uint32)
    if dtype == "float16":
        return patterns.astype(np.uint16).view(np.float16).astype(np.float32)
    return (patterns << 16).view(np.float32)


def _operands(dtype):
    """a: every value of dtype; b: the same values shuffled."""
    a = _every_value(dtype)
    return a, np.random.default_rng(0).permutation(a)


def _tensor(values, dtype):
    return tl.tensor(np.ascontiguousarray(values, dtype=np.float32)).to(getattr(tl, dtype))


def _assert_bits(got, expected, dtype):
    """Equal bit for bit as dtype values (signed zeros included); NaN where NaN (any payload)."""
    got = got.float().numpy() if isinstance(got, tl.Tensor) else np.asarray(got, np.float32)
    expected = _round(expected, dtype)
    assert got.shape == expected.shape
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(got), nan)
    bad = np.flatnonzero(got[~nan].view(np.uint32) != expected[~nan].view(np.uint32))
    assert bad.size == 0, f"{bad.size} differ, first {got[~nan][bad[:5]]} vs {expected[~nan][bad[:5]]}"


def _run(op, a, b=None, alpha=None):
    f = getattr(tl, op)
    if b is None:
        return f(a)
    return f(a, b) if alpha is None else f(a, b, alpha=alpha)


@pytest.mark.parametrize("dtype", HALF_DTYPES)
@pytest.mark.parametrize("op", BINARY)
def test_binary_every_value(op, dtype):
    a, b = _operands(dtype)
    ta, tb = _tensor(a, dtype), _tensor(b, dtype)
    _assert_bits(_run(op, ta, tb), _reference(op, a, b), dtype)
    if op in ALPHAS:
        _assert_bits(_run(op, ta, tb, ALPHAS[op]), _reference(op, a, b, ALPHAS[op]), dtype)
    # One operand a broadcast 0-d tensor, on either side.
    for k in (0x3C01, 0x0001, 0x8000, 0x7C00):
        _assert_bits(_run(op, ta, tb[k]), _reference(op, a, b[k]), dtype)
        _assert_bits(_run(op, ta[k], tb), _reference(op, a[k], b), dtype)
    # In place, and into an out= tensor.
    c = ta.clone()
    getattr(c, op + "_")(tb)
    _assert_bits(c, _reference(op, a, b), dtype)
    out = tl.empty(a.shape, dtype=getattr(tl, dtype))
    getattr(tl, op)(ta, tb, out=out)
    _assert_bits(out, _reference(op, a, b), dtype)


@pytest.mark.parametrize("dtype", HALF_DTYPES)
@pytest.mark.parametrize("op", UNARY)
def test_unary_every_value(op, dtype):
    a, _ = _operands(dtype)
    ta = _tensor(a, dtype)
    _assert_bits(_run(op, ta), _reference(op, a), dtype)
    c = ta.clone()
    getattr(c, op + "_")()
    _assert_bits(c, _reference(op, a), dtype)


@pytest.mark.parametrize("dtype", HALF_DTYPES)
def test_every_tail_length_and_offset(dtype):
    # The vector loop takes 16, 8 or 1 lanes; the rest goes through a padded vector.
    a, b = _operands(dtype)
    ta, tb = _tensor(a, dtype), _tensor(b, dtype)
    for n in list(range(1, 40)) + [1037]:
        for start in (0, 3):
            s = slice(start, start + n)
            for op in BINARY:
                _assert_bits(_run(op, ta[s], tb[s]), _reference(op, a[s], b[s]), dtype)
                _assert_bits(_run(op, ta[s], tb[7]), _reference(op, a[s], b[7]), dtype)
            for op in UNARY:
                _assert_bits(_run(op, tb[s]), _reference(op, b[s]), dtype)


@pytest.mark.parametrize("dtype", HALF_DTYPES)
def test_two_threads_split_the_loop(dtype):
    a, b = _operands(dtype)
    a, b = np.tile(a, 4), np.tile(b[::-1], 4)  # 256K elements: several chunks per thread
    ta, tb = _tensor(a, dtype), _tensor(b, dtype)
    threads = tl.get_num_threads()
    tl.set_num_threads(2)
    try:
        for op in BINARY:
            _assert_bits(_run(op, ta, tb), _reference(op, a, b), dtype)
        _assert_bits(tl.sqrt(ta), _reference("sqrt", a), dtype)
    finally:
        tl.set_num_threads(threads)


# Computes every op on the operands of argv[1] (a .npz of float32 arrays) and writes the
# results, as float32, to argv[2].
CHILD = r"""
import sys, numpy as np, torchlite as tl
inputs = np.load(sys.argv[1])
out = {"capability": np.array(tl.backends.cpu.get_cpu_capability())}
for dt in ("float16", "bfloat16"):
    a, b = (tl.tensor(inputs[f"{k}_{dt}"]).to(getattr(tl, dt)) for k in "ab")
    for op in ("add", "sub", "mul", "div"):
        out[f"{op}_{dt}"] = getattr(tl, op)(a, b).float().numpy()
        out[f"{op}_b0_{dt}"] = getattr(tl, op)(a, b[5]).float().numpy()
        out[f"{op}_a0_{dt}"] = getattr(tl, op)(a[5], b).float().numpy()
        out[f"{op}_tail_{dt}"] = getattr(tl, op)(a[3:40], b[3:40]).float().numpy()
    out[f"add_alpha_{dt}"] = tl.add(a, b, alpha=2.0).float().numpy()
    for op in ("neg", "abs", "sqrt", "relu"):
        out[f"{op}_{dt}"] = getattr(tl, op)(a).float().numpy()
        out[f"{op}_tail_{dt}"] = getattr(tl, op)(a[3:40]).float().numpy()
np.savez(sys.argv[2], **out)
"""


@pytest.mark.parametrize("capability", ["default", "avx2", "avx512"])
def test_every_cpu_capability(tmp_path, capability):
    inputs = {}
    for dt in HALF_DTYPES:
        inputs[f"a_{dt}"], inputs[f"b_{dt}"] = _operands(dt)
    np.savez(tmp_path / "in.npz", **inputs)
    env = dict(os.environ, TORCHLITE_CPU_CAPABILITY=capability)
    proc = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "in.npz"), str(tmp_path / "out.npz")],
                          env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    res = np.load(tmp_path / "out.npz")
    for dt in HALF_DTYPES:
        a, b = inputs[f"a_{dt}"], inputs[f"b_{dt}"]
        for op in BINARY:
            _assert_bits(res[f"{op}_{dt}"], _reference(op, a, b), dt)
            _assert_bits(res[f"{op}_b0_{dt}"], _reference(op, a, b[5]), dt)
            _assert_bits(res[f"{op}_a0_{dt}"], _reference(op, a[5], b), dt)
            _assert_bits(res[f"{op}_tail_{dt}"], _reference(op, a[3:40], b[3:40]), dt)
        _assert_bits(res[f"add_alpha_{dt}"], _reference("add", a, b, 2.0), dt)
        for op in UNARY:
            _assert_bits(res[f"{op}_{dt}"], _reference(op, a), dt)
            _assert_bits(res[f"{op}_tail_{dt}"], _reference(op, a[3:40]), dt)
