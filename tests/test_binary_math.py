"""Binary pointwise math beyond the registry (tests/opinfo/binary_math.py): the shift
operators, shifts past the width, special values, half-precision nextafter, integer edge cases,
the overloads with a number first, dtype rules and error paths."""

import numpy as np
import pytest

import torchlite as tl
from helpers import assert_close

NAMES = [
    "arctan2", "hypot", "logaddexp", "logaddexp2", "copysign", "nextafter", "ldexp", "heaviside", "gcd", "lcm",
    "float_power", "xlogy", "bitwise_left_shift", "bitwise_right_shift", "greater", "greater_equal", "less",
    "less_equal", "not_equal", "clip", "divide", "multiply", "subtract", "true_divide", "absolute",
]
METHODS = NAMES + [
    "arctan2_", "hypot_", "copysign_", "nextafter_", "ldexp_", "heaviside_", "gcd_", "lcm_", "float_power_",
    "xlogy_", "bitwise_left_shift_", "bitwise_right_shift_", "greater_", "less_equal_", "not_equal_", "clip_",
    "divide_", "multiply_", "subtract_", "true_divide_", "absolute_", "__lshift__", "__rshift__", "__ilshift__",
    "__irshift__", "__rlshift__", "__rrshift__",
]


def test_names_exist():
    assert [n for n in NAMES if not hasattr(tl, n)] == []
    assert [n for n in METHODS if not hasattr(tl.Tensor, n)] == []
    # PyTorch has these in-place forms as functions too
    assert all(hasattr(tl, n) for n in ("gcd_", "lcm_", "ldexp_", "xlogy_", "clip_"))


# ---- shifts ----------------------------------------------------------------------------------

def test_shift_operators():
    a = tl.tensor([1, -8, 100])
    assert (a << 2).tolist() == [4, -32, 400]
    assert (a >> 1).tolist() == [0, -4, 50]
    assert (a << tl.tensor([0, 1, 2])).tolist() == [1, -16, 400]
    assert (3 << tl.tensor([1, 2])).tolist() == [6, 12]
    assert (64 >> tl.tensor([1, 2])).tolist() == [32, 16]
    b = a.clone()
    b <<= 1
    assert b.tolist() == [2, -16, 200]
    b >>= tl.tensor([1, 1, 2])
    assert b.tolist() == [1, -8, 50]


@pytest.mark.parametrize("dtype,bits", [(tl.int8, 8), (tl.int32, 32), (tl.int64, 64), (tl.uint8, 8)])
def test_shifts_past_the_width(dtype, bits):
    # PyTorch's rule: a negative amount or one of the width or more shifts everything out.
    signed = dtype != tl.uint8
    vals = [5, -5, 1] if signed else [5, 200, 1]
    a = tl.tensor(vals, dtype=dtype)
    for amount in [bits, bits + 3] + ([-1] if signed else []):
        s = tl.tensor([amount] * 3, dtype=dtype)
        assert tl.bitwise_left_shift(a, s).tolist() == [0, 0, 0]
        assert tl.bitwise_right_shift(a, s).tolist() == [0, -1 if signed else 0, 0]


def test_shift_dtypes():
    # uint8 << int64 tensor promotes; an int8 tensor << a number stays int8
    assert (tl.tensor([1, 2], dtype=tl.uint8) << tl.tensor([7, 9])).tolist() == [128, 1024]
    assert (tl.tensor([1, 2], dtype=tl.int8) << 300).dtype == tl.int8
    assert (tl.tensor([True]) << 1).tolist() == [2]


@pytest.mark.parametrize("fn", [
    lambda a, b: tl.gcd(a, b), lambda a, b: tl.lcm(a, b),
    lambda a, b: tl.bitwise_left_shift(a, b), lambda a, b: tl.bitwise_right_shift(a, b),
])
@pytest.mark.parametrize("dtype", [tl.float32, tl.bool])
def test_integer_ops_reject_float_and_bool(fn, dtype):
    a = tl.ones(3, dtype=dtype)
    with pytest.raises(NotImplementedError, match="not implemented for"):
        fn(a, a)


def test_shift_float_operator_raises():
    with pytest.raises(NotImplementedError):
        tl.tensor([1.5]) << 1


# ---- gcd / lcm -------------------------------------------------------------------------------

def test_gcd_lcm_edges():
    lo = np.iinfo(np.int64).min
    assert tl.gcd(tl.tensor([-4, 0, lo]), tl.tensor([6, 0, 0])).tolist() == [2, 0, lo]
    assert tl.lcm(tl.tensor([-4, 0, 6]), tl.tensor([6, 0, -4])).tolist() == [12, 0, 12]
    a = tl.tensor([12, -18, 7], dtype=tl.int8)
    assert tl.gcd(a, tl.tensor([8, 12, 0], dtype=tl.int8)).tolist() == [4, 6, 7]
    a.gcd_(tl.tensor([8, 12, 0], dtype=tl.int8))
    assert a.tolist() == [4, 6, 7]
    assert tl.gcd_(tl.tensor([9]), tl.tensor([6])).tolist() == [3]


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint8", "int32", "int64"])
def test_lcm_overflow_wraps_like_pytorch(dtype):
    # found by the fuzz campaign: int8/int16 take |a / gcd * b| in int before the wrap (PyTorch's
    # C++ promotes them), wider types after it
    torch = pytest.importorskip("torch")
    big = np.iinfo(dtype).max
    a = np.array([42, big - 1, 100, 7, big], dtype=dtype)
    b = np.array([big // 3 + 1, 3, big // 2, 9, big - 2], dtype=dtype)
    if np.issubdtype(a.dtype, np.signedinteger):
        a, b = a * np.array([1, -1, 1, -1, 1], dtype=dtype), b * np.array([-1, 1, 1, 1, -1], dtype=dtype)
    np.testing.assert_array_equal(tl.lcm(tl.tensor(a), tl.tensor(b)).numpy(),
                                  torch.lcm(torch.tensor(a), torch.tensor(b)).numpy())


# ---- floating special values -------------------------------------------------------------------

def test_logaddexp_special_values():
    inf, nan = float("inf"), float("nan")
    a = tl.tensor([inf, -inf, nan, 1.0, -inf, 1000.0])
    b = tl.tensor([inf, -inf, 1.0, nan, 2.0, 1000.0])
    with np.errstate(invalid="ignore"):
        assert_close(tl.logaddexp(a, b), np.logaddexp(a.numpy(), b.numpy()))
        assert_close(tl.logaddexp2(a, b), np.logaddexp2(a.numpy(), b.numpy()))


def test_hypot_no_overflow():
    assert_close(tl.hypot(tl.tensor([3e30, 3e-30]), tl.tensor([4e30, 4e-30])), np.array([5e30, 5e-30], np.float32))


@pytest.mark.parametrize("dtype,np_dtype", [(tl.float16, np.float16), (tl.float32, np.float32), (tl.float64, np.float64)])
def test_nextafter_steps_one_ulp(dtype, np_dtype):
    x = np.array([1.0, 1.0, 0.0, -0.0, -2.5, 3.0, 0.0], np_dtype)
    y = np.array([2.0, 0.0, 1.0, -1.0, 0.0, 3.0, -1.0], np_dtype)
    got = tl.nextafter(tl.tensor(x, dtype=dtype), tl.tensor(y, dtype=dtype))
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.numpy(), np.nextafter(x, y))


def test_nextafter_bfloat16():
    torch = pytest.importorskip("torch")
    x = [1.0, 1.0, 0.0, -2.5, 100.0]
    y = [2.0, 0.0, -1.0, 0.0, 100.0]
    got = tl.nextafter(tl.tensor(x, dtype=tl.bfloat16), tl.tensor(y, dtype=tl.bfloat16)).float().tolist()
    want = torch.nextafter(torch.tensor(x, dtype=torch.bfloat16), torch.tensor(y, dtype=torch.bfloat16)).float()
    assert got == want.tolist()


def test_xlogy_nan_and_zero():
    nan = float("nan")
    got = tl.xlogy(tl.tensor([0.0, 0.0, 2.0, 0.0]), tl.tensor([nan, 0.0, 0.0, -1.0]))
    assert_close(got, np.array([nan, 0.0, -np.inf, 0.0], np.float32))


def test_heaviside():
    x = tl.tensor([-1.5, 0.0, 2.0, float("nan")])
    assert_close(tl.heaviside(x, tl.tensor([0.5])), np.array([0.0, 0.5, 1.0, np.nan], np.float32))
    assert tl.heaviside(tl.tensor([True, False]), tl.tensor([False, True])).tolist() == [True, True]
    with pytest.raises(RuntimeError, match="different dtypes"):
        tl.heaviside(x, tl.tensor([1]))


# ---- overloads with a number first, dtypes and errors -------------------------------------------

def test_number_first_overloads():
    y = tl.tensor([0.5, 1.0, 4.0], dtype=tl.float64)
    assert_close(tl.xlogy(2.0, y), 2.0 * np.log(y.numpy()))
    out = tl.empty(0, dtype=tl.float64)
    assert tl.xlogy(2.0, y, out=out) is out
    assert_close(out, 2.0 * np.log(y.numpy()))
    e = tl.tensor([1, 2, 3])
    r = tl.float_power(2, e)
    assert r.dtype == tl.float64 and r.tolist() == [2.0, 4.0, 8.0]
    assert tl.float_power(2.5, e, out=out) is out
    assert_close(out, 2.5 ** e.numpy().astype(np.float64))


def test_float_power_dtype_rules():
    x = tl.tensor([1.5, 2.0])
    assert tl.float_power(x, 2).dtype == tl.float64
    with pytest.raises(RuntimeError, match="requires dtype Double"):
        tl.float_power(x, 2, out=tl.empty(2))
    with pytest.raises(RuntimeError, match="requires dtype Double"):
        x.float_power_(2)
    # the gradient flows back to the float32 input in its dtype
    x.requires_grad_()
    tl.float_power(x, 3).sum().backward()
    assert x.grad.dtype == tl.float32
    assert_close(x.grad, 3 * np.array([1.5, 2.0], np.float32) ** 2)


def test_float_inputs_only():
    i = tl.tensor([1, 2])
    for fn in (tl.hypot, tl.logaddexp, tl.logaddexp2, tl.nextafter):
        with pytest.raises(NotImplementedError):
            fn(i, i)
    # integer inputs of copysign, xlogy, ldexp and arctan2 compute in the default float dtype
    for fn in (tl.copysign, tl.xlogy, tl.ldexp, tl.arctan2):
        assert fn(i, i).dtype == tl.float32


def test_ldexp_gradient_negative_integer_exponent():
    # d/dx x 2^e = 2^e, also for e < 0 (PyTorch 2.13 computes 2^e in the integer dtype: 0)
    x = tl.tensor([1.5, 2.0, 3.0], dtype=tl.float64, requires_grad=True)
    tl.ldexp(x, tl.tensor([-4, 0, 3])).sum().backward()
    assert x.grad.tolist() == [0.0625, 1.0, 8.0]


def test_not_differentiable():
    x = tl.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    assert not tl.heaviside(x, tl.tensor([0.5])).requires_grad
    assert not tl.nextafter(x, tl.tensor([0.0])).requires_grad


def test_copysign_gradient_at_zero():
    x = tl.tensor([0.0, 2.0, -3.0], requires_grad=True)
    tl.copysign(x, tl.tensor([-1.0, -1.0, 1.0])).sum().backward()
    assert x.grad.tolist() == [0.0, -1.0, -1.0]
