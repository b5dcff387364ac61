"""Elementwise operators (arithmetic, comparison, logical, bitwise, where, clamp, unary) vs NumPy,
and vs PyTorch on a sample when it is installed."""

import math
import operator

import numpy as np
import pytest

import torchlite as tl
import helpers
from helpers import FLOAT_DTYPES, LAYOUTS, NP_DTYPE, assert_close, random_array

SHAPE = (3, 4)


def _contiguous_strides(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= n
    return tuple(reversed(strides))


def make_tensor(array, layout="contiguous"):
    """helpers.make_tensor, built with as_strided where view ops are not available yet."""
    if hasattr(tl.Tensor, "permute") and hasattr(tl.Tensor, "expand"):
        return helpers.make_tensor(array, layout)
    a = np.asarray(array)
    if layout == "contiguous" or a.ndim == 0:
        return tl.tensor(a)
    if layout == "transposed":
        base = tl.tensor(np.ascontiguousarray(a.T))
        return base.as_strided(a.shape, tuple(reversed(_contiguous_strides(a.T.shape))))
    if layout == "sliced":
        big = np.repeat(a, 2, axis=-1)
        st = _contiguous_strides(big.shape)
        return tl.tensor(big).as_strided(a.shape, st[:-1] + (2,))
    if layout == "expanded":
        if a.shape[0] > 1 and np.all(a == a[:1]):
            return tl.tensor(np.ascontiguousarray(a[:1])).as_strided(a.shape, (0,) + _contiguous_strides(a.shape)[1:])
        return tl.tensor(a)
    raise ValueError(layout)


def arr(dtype, seed=0, low=-5, high=5, shape=SHAPE, nonzero=False):
    a = random_array(shape, dtype, np.random.default_rng(seed), low, high)
    if nonzero:
        a = np.where(a == 0, np.ones_like(a), a)
    return a


def np_of(t):
    return t.numpy(force=True) if t.dtype != tl.bfloat16 else t.to(tl.float32).numpy(force=True)


# ---- binary ops: values over layouts and dtypes ----------------------------------------------

def _np_div_floor(a, b):
    return np.floor_divide(a, b)


# name -> (torchlite callable, numpy callable, dtypes, needs nonzero divisor, result kind)
# result kind: "same" keeps the input dtype, "float" promotes ints to float32, "bool" gives bool.
BINARY = {
    "add": (tl.add, np.add, "all", False, "same"),
    "sub": (tl.sub, np.subtract, "nobool", False, "same"),
    "mul": (tl.mul, np.multiply, "all", False, "same"),
    "div": (tl.div, np.true_divide, "all", True, "float"),
    "div_trunc": (lambda a, b: tl.div(a, b, rounding_mode="trunc"),
                  lambda a, b: np.trunc(a / b) if a.dtype.kind == "f" else (np.abs(a) // np.abs(b)) * np.sign(a) * np.sign(b),
                  "nobool", True, "same"),
    "div_floor": (lambda a, b: tl.div(a, b, rounding_mode="floor"), _np_div_floor, "nobool", True, "same"),
    "floor_divide": (tl.floor_divide, _np_div_floor, "nobool", True, "same"),
    "remainder": (tl.remainder, np.remainder, "nobool", True, "same"),
    "maximum": (tl.maximum, np.maximum, "all", False, "same"),
    "minimum": (tl.minimum, np.minimum, "all", False, "same"),
    "eq": (tl.eq, np.equal, "all", False, "bool"),
    "ne": (tl.ne, np.not_equal, "all", False, "bool"),
    "lt": (tl.lt, np.less, "all", False, "bool"),
    "le": (tl.le, np.less_equal, "all", False, "bool"),
    "gt": (tl.gt, np.greater, "all", False, "bool"),
    "ge": (tl.ge, np.greater_equal, "all", False, "bool"),
    "logical_and": (tl.logical_and, np.logical_and, "all", False, "bool"),
    "logical_or": (tl.logical_or, np.logical_or, "all", False, "bool"),
    "logical_xor": (tl.logical_xor, np.logical_xor, "all", False, "bool"),
    "bitwise_and": (tl.bitwise_and, np.bitwise_and, "int", False, "same"),
    "bitwise_or": (tl.bitwise_or, np.bitwise_or, "int", False, "same"),
    "bitwise_xor": (tl.bitwise_xor, np.bitwise_xor, "int", False, "same"),
}
DTYPE_SETS = {
    "all": [tl.bool, tl.uint8, tl.int32, tl.int64, tl.float32, tl.float64],
    "nobool": [tl.uint8, tl.int32, tl.int64, tl.float32, tl.float64],
    "int": [tl.bool, tl.uint8, tl.int8, tl.int32, tl.int64],
}


def _expected_dtype(kind, dtype):
    if kind == "bool":
        return np.bool_
    if kind == "float" and dtype not in FLOAT_DTYPES:
        return np.float32
    return NP_DTYPE[dtype]


def _binary_cases():
    for name, (_, _, dset, _, _) in BINARY.items():
        for dtype in DTYPE_SETS[dset]:
            yield name, dtype


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name,dtype", list(_binary_cases()))
def test_binary_values(name, dtype, layout):
    fn, npfn, _, nonzero, kind = BINARY[name]
    low = 0 if dtype == tl.uint8 else -5
    a = arr(dtype, 1, low=low)
    b = arr(dtype, 2, low=low, nonzero=nonzero)
    if layout == "expanded":
        a = np.broadcast_to(a[:1], SHAPE).copy()
    with np.errstate(all="ignore"):
        expected = npfn(a, b).astype(_expected_dtype(kind, dtype))
    assert_close(fn(make_tensor(a, layout), make_tensor(b, layout)), expected)


@pytest.mark.parametrize("name", ["add", "mul", "div", "maximum", "remainder", "lt", "logical_xor"])
def test_binary_broadcast(name):
    fn, npfn, _, _, kind = BINARY[name]
    a = arr(tl.float32, 3, shape=(3, 1))
    b = arr(tl.float32, 4, shape=(1, 4), nonzero=True)
    assert_close(fn(make_tensor(a), make_tensor(b)), npfn(a, b).astype(_expected_dtype(kind, tl.float32)))
    # 0-dim tensor with a 2-d one, and the scalar fast path with a strided input.
    s = make_tensor(np.float32(1.5))
    assert_close(fn(make_tensor(b, "transposed"), s), npfn(b, np.float32(1.5)).astype(_expected_dtype(kind, tl.float32)))


@pytest.mark.parametrize("da,db,expected", [
    (tl.int32, tl.float64, np.float64),
    (tl.uint8, tl.int8, np.int16),
    (tl.bool, tl.int32, np.int32),
    (tl.float16, tl.float32, np.float32),
    (tl.int64, tl.float16, np.float16),
])
@pytest.mark.parametrize("name", ["add", "mul", "maximum"])
def test_binary_mixed_dtypes(name, da, db, expected):
    fn, npfn, *_ = BINARY[name]
    a = arr(da, 5, low=0)
    b = arr(db, 6, low=0)
    got = fn(make_tensor(a), make_tensor(b))
    assert_close(got, npfn(a.astype(expected), b.astype(expected)))


def test_half_types():
    a = arr(tl.float32, 7, low=0.5, high=4)
    b = arr(tl.float32, 8, low=0.5, high=4)
    for dt in (tl.float16, tl.bfloat16):
        ta, tb = tl.tensor(a).to(dt), tl.tensor(b).to(dt)
        ra, rb = np_of(ta).astype(np.float32), np_of(tb).astype(np.float32)
        for got, exp in [(ta * tb, ra * rb), (ta / tb, ra / rb), (tl.exp(ta), np.exp(ra)), (tl.sqrt(ta), np.sqrt(ra)),
                         (ta - tb, ra - rb), (tl.maximum(ta, tb), np.maximum(ra, rb))]:
            assert got.dtype == dt
            np.testing.assert_allclose(np_of(got), exp, rtol=1e-2, atol=1e-2)


# ---- Python scalars: weak promotion and the Scalar overloads ---------------------------------

@pytest.mark.parametrize("expr,expected_dtype", [
    (lambda t: t * 2.5, tl.float32),
    (lambda t: t + True, tl.int32),
    (lambda t: t + 2, tl.int32),
    (lambda t: t / 2, tl.float32),
    (lambda t: t // 2, tl.int32),
    (lambda t: t % 3, tl.int32),
    (lambda t: t ** 2, tl.int32),
    (lambda t: t ** 0.5, tl.float32),
    (lambda t: t - 1.5, tl.float32),
    (lambda t: 2 - t, tl.int32),
    (lambda t: 2.5 - t, tl.float32),
    (lambda t: 2 / t, tl.float32),
    (lambda t: 7 // t, tl.int32),
    (lambda t: 7 % t, tl.int32),
    (lambda t: 2 ** t, tl.int32),
    (lambda t: 2.0 ** t, tl.float32),
    (lambda t: 3 * t, tl.int32),
    (lambda t: t == 2, tl.bool),
    (lambda t: t < 2.5, tl.bool),
    (lambda t: t & 6, tl.int32),
    (lambda t: 6 | t, tl.int32),
])
def test_python_scalar_promotion(expr, expected_dtype):
    a = np.array([[1, 2, 3], [4, 5, 7]], dtype=np.int32)
    got = expr(tl.tensor(a))
    assert got.dtype == expected_dtype
    with np.errstate(all="ignore"):
        exp = expr(a.astype(np.float64) if expected_dtype == tl.float32 else a)
    assert_close(got, np.asarray(exp).astype(NP_DTYPE[expected_dtype]))


def test_scalar_promotion_small_types():
    u = tl.tensor(np.array([1, 2, 250], dtype=np.uint8))
    assert (u + 1).dtype == tl.uint8
    assert (u * 2.5).dtype == tl.float32
    h = tl.tensor(np.array([1, 2], dtype=np.float16))
    assert (h * 2.5).dtype == tl.float16
    b = tl.tensor(np.array([True, False]))
    assert (b + 1).dtype == tl.int64
    assert (b * True).dtype == tl.bool
    assert (b / 2).dtype == tl.float32
    d = tl.tensor(np.array([1.0, 2.0]))
    assert (d * 2.5).dtype == tl.float64
    # A 0-dim tensor is weaker than a dimensioned one of the same category.
    i32 = tl.tensor(np.array([1, 2], dtype=np.int32))
    assert (i32 + tl.tensor(np.int64(5))).dtype == tl.int32
    assert (i32 + tl.tensor(np.float64(5))).dtype == tl.float64 or (i32 + tl.tensor(np.float64(5))).dtype == tl.float32


def test_reflected_values():
    a = np.array([[1.0, -2.0, 4.0], [0.5, 3.0, -8.0]], dtype=np.float32)
    t = tl.tensor(a)
    assert_close(2 - t, 2 - a)
    assert_close(2 / t, (2 / a).astype(np.float32))
    assert_close(2 ** t, (2.0 ** a).astype(np.float32))
    assert_close(7 // t, np.floor_divide(np.float32(7), a))
    assert_close(7 % t, np.remainder(np.float32(7), a))
    assert_close(3 + t, 3 + a)
    assert_close(3 * t, 3 * a)
    i = tl.tensor(np.array([1, -2, 3]))
    assert_close(1 - i, 1 - np.array([1, -2, 3]))
    assert_close(2 ** i.abs(), np.array([2, 4, 8]))
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor"):
        2 - tl.tensor(np.array([True]))


# ---- Python operators ------------------------------------------------------------------------

@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
                                operator.mod, operator.pow, operator.eq, operator.ne, operator.lt, operator.le,
                                operator.gt, operator.ge])
def test_python_operators_float(op):
    a = arr(tl.float64, 11, low=0.5, high=3)
    b = arr(tl.float64, 12, low=0.5, high=3)
    assert_close(op(tl.tensor(a), tl.tensor(b)), op(a, b))


@pytest.mark.parametrize("op", [operator.and_, operator.or_, operator.xor, operator.add, operator.mul,
                                operator.floordiv, operator.mod])
def test_python_operators_int(op):
    a = arr(tl.int64, 13, low=-9, high=9)
    b = arr(tl.int64, 14, low=1, high=9)
    assert_close(op(tl.tensor(a), tl.tensor(b)), op(a, b))


def test_python_unary_operators():
    a = arr(tl.float32, 15)
    t = tl.tensor(a)
    assert_close(-t, -a)
    assert_close(abs(t), np.abs(a))
    assert_close(+t, a)
    i = arr(tl.int32, 16)
    assert_close(~tl.tensor(i), ~i)
    b = np.array([True, False])
    assert_close(~tl.tensor(b), ~b)


def test_python_inplace_operators():
    a = arr(tl.float32, 17)
    b = arr(tl.float32, 18, low=1, high=4)
    t = tl.tensor(a)
    alias = t
    t += tl.tensor(b)
    t *= 2
    t -= 1
    t /= tl.tensor(b)
    assert t is alias
    assert_close(alias, ((a + b) * 2 - 1) / b)
    i = tl.tensor(np.array([5, 6, 7]))
    i //= 2
    i %= 2
    i &= 1
    i |= 2
    i ^= 1
    i **= 2
    assert_close(i, (((((np.array([5, 6, 7]) // 2) % 2) & 1) | 2) ^ 1) ** 2)


# ---- out= and in-place -----------------------------------------------------------------------

def test_out_resize_and_cast():
    a = arr(tl.float32, 19)
    b = arr(tl.float32, 20)
    out = tl.empty(2, 2)
    r = tl.mul(tl.tensor(a), tl.tensor(b), out=out)
    assert r is out
    assert_close(out, a * b)
    # An out= of a wider dtype receives the cast result.
    i = tl.tensor(np.array([1, 2, 3], dtype=np.int32))
    o64 = tl.empty(3, dtype=tl.float64)
    tl.add(i, i, out=o64)
    assert_close(o64, np.array([2.0, 4.0, 6.0]))
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        tl.mul(i, 2.5, out=tl.empty(3, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        tl.div(i, i, out=tl.empty(3, dtype=tl.int32))
    # Comparisons write bool results into any dtype.
    of = tl.empty(3)
    tl.eq(i, 2, out=of)
    assert_close(of, np.array([0.0, 1.0, 0.0], dtype=np.float32))


@pytest.mark.parametrize("name", ["sub", "div", "remainder", "maximum", "ge", "logical_or", "bitwise_xor"])
def test_out_variants(name):
    fn, npfn, dset, nonzero, kind = BINARY[name]
    dtype = tl.int64 if dset == "int" else tl.float32
    a = arr(dtype, 21)
    b = arr(dtype, 22, nonzero=nonzero)
    out = tl.empty(1, dtype=tl.bool if kind == "bool" else dtype)
    r = fn(make_tensor(a), make_tensor(b, "transposed"), out=out)
    assert r is out
    with np.errstate(all="ignore"):
        assert_close(out, npfn(a, b).astype(_expected_dtype(kind, dtype)))


def test_scalar_out_variants():
    t = tl.tensor(np.array([1.0, -2.0, 3.0]))
    for fn, exp in [(lambda o: tl.add(t, 2, out=o), [3.0, 0.0, 5.0]),
                    (lambda o: tl.sub(t, 2, alpha=2, out=o), [-3.0, -6.0, -1.0]),
                    (lambda o: tl.mul(t, 2, out=o), [2.0, -4.0, 6.0]),
                    (lambda o: tl.div(t, 2, out=o), [0.5, -1.0, 1.5]),
                    (lambda o: tl.div(t, 2, rounding_mode="floor", out=o), [0.0, -1.0, 1.0]),
                    (lambda o: tl.floor_divide(t, 2, out=o), [0.0, -1.0, 1.0]),
                    (lambda o: tl.remainder(t, 2, out=o), [1.0, 0.0, 1.0]),
                    (lambda o: tl.pow(t, 2, out=o), [1.0, 4.0, 9.0]),
                    (lambda o: tl.pow(2, t, out=o), [2.0, 0.25, 8.0])]:
        o = tl.empty(3, dtype=tl.float64)
        assert fn(o) is o
        assert_close(o, np.array(exp))


@pytest.mark.parametrize("method,npfn", [
    ("add_", np.add), ("sub_", np.subtract), ("mul_", np.multiply), ("div_", np.true_divide),
    ("remainder_", np.remainder), ("floor_divide_", np.floor_divide), ("pow_", np.power),
])
def test_inplace_binary(method, npfn):
    a = arr(tl.float64, 23, low=0.5, high=3)
    b = arr(tl.float64, 24, low=0.5, high=3, shape=(4,))
    t = tl.tensor(a)
    r = getattr(t, method)(tl.tensor(b))
    assert r is t
    assert_close(t, npfn(a, b))
    # Scalar form.
    t2 = tl.tensor(a)
    getattr(t2, method)(2)
    assert_close(t2, npfn(a, 2.0))


def test_inplace_errors():
    t = tl.tensor(np.zeros(3))
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        t.add_(tl.tensor(np.zeros((2, 3))))
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        t.mul_(tl.tensor(np.zeros((2, 3))))
    i = tl.tensor(np.array([1, 2, 3]))
    with pytest.raises(RuntimeError, match="can't be cast"):
        i.div_(2)
    with pytest.raises(RuntimeError, match="can't be cast"):
        i.mul_(1.5)
    with pytest.raises(RuntimeError, match="can't be cast"):
        i.exp_()


def test_inplace_comparison_keeps_dtype():
    t = tl.tensor(np.array([1.0, 2.0, 3.0]))
    t.eq_(2)
    assert t.dtype == tl.float64
    assert_close(t, np.array([0.0, 1.0, 0.0]))
    i = tl.tensor(np.array([1, 2]))
    i.lt_(tl.tensor(np.array([1.5, 1.5])))
    assert_close(i, np.array([1, 0]))
    i2 = tl.tensor(np.array([1, 0, 3]))
    i2.logical_and_(tl.tensor(np.array([0.0, 1.0, 1.0])))
    assert_close(i2, np.array([0, 0, 1]))


# ---- op-specific semantics and errors ---------------------------------------------------------

def test_sub_alpha_and_bool_errors():
    a = np.array([1, 2, 3])
    t = tl.tensor(a)
    assert_close(tl.sub(t, t, alpha=2), a - 2 * a)
    assert_close(tl.add(t, t, alpha=3), a + 3 * a)
    assert_close(tl.rsub(t, 10), 10 - a)
    assert_close(tl.rsub(t, tl.tensor(np.array([1])), alpha=2), 1 - 2 * a)
    with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
        tl.sub(t, t, alpha=1.5)
    b = tl.tensor(np.array([True, False]))
    with pytest.raises(RuntimeError, match="with two bool tensors is not supported"):
        b - b
    with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
        tl.tensor(np.array([1, 2])) - b


def test_division_semantics():
    a = np.array([7.0, -7.0, 7.0, -7.0, 0.5, -0.5, 5.0, -5.0])
    b = np.array([2.0, 2.0, -2.0, -2.0, 1.0, 1.0, 0.0, 0.0])
    ta, tb = tl.tensor(a), tl.tensor(b)
    with np.errstate(all="ignore"):
        assert_close(tl.div(ta, tb, rounding_mode="floor"), np.array([3, -4, -4, 3, 0, -1, np.inf, -np.inf]))
        assert_close(tl.div(ta, tb, rounding_mode="trunc"), np.trunc(a / b))
        assert_close(tl.remainder(ta, tb), np.remainder(a, b))
    ia = np.array([7, -7, 7, -7, -9223372036854775808])
    ib = np.array([2, 2, -2, -2, -1])
    ti, tj = tl.tensor(ia), tl.tensor(ib)
    assert_close(tl.div(ti, tj, rounding_mode="floor"), np.array([3, -4, -4, 3, -9223372036854775808]))
    assert_close(tl.div(ti, tj, rounding_mode="trunc"), np.array([3, -3, -3, 3, -9223372036854775808]))
    assert_close(tl.remainder(ti, tj), np.array([1, 1, -1, -1, 0]))
    assert_close(tl.div(ti[:4], tj[:4]), (ia[:4] / ib[:4]).astype(np.float32))
    zero = tl.tensor(np.array([1, 0, 2]))
    for fn in (lambda: tl.div(zero, zero, rounding_mode="floor"), lambda: tl.div(zero, 0, rounding_mode="trunc"),
               lambda: tl.remainder(zero, zero), lambda: zero // 0, lambda: 5 % zero):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            fn()
    with pytest.raises(RuntimeError, match="div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'x'"):
        tl.div(ta, tb, rounding_mode="x")
    b2 = tl.tensor(np.array([True]))
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tl.floor_divide(b2, b2)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_integer_remainders_every_divisor(dtype):
    # Every divisor of the type's range, incl. the all-ones bit pattern (255 for uint8, which
    # once hit the signed `b == -1` guard and gave 0), against NumPy's C and Python remainders.
    info = np.iinfo(dtype)
    b = np.arange(max(info.min, -300), min(info.max, 300) + 1).astype(dtype)
    b = np.concatenate([b, np.array([info.min, info.max], dtype=dtype)])
    b = b[b != 0]
    a = np.array(np.random.default_rng(0).integers(info.min, info.max, size=b.shape, endpoint=True), dtype=dtype)
    ta, tb = tl.tensor(a), tl.tensor(b)
    assert_close(tl.fmod(ta, tb), np.fmod(a, b))
    ok = ~((b == -1) & (a == info.min)) if info.min < 0 else np.ones(b.shape, bool)
    assert_close(tl.remainder(ta, tb)[tl.tensor(ok)], np.remainder(a, b)[ok])


def test_integer_division_by_zero_with_nothing_to_divide():
    # An empty result divides nothing, so a zero in the broadcast divisor is not an error.
    empty = tl.tensor(np.zeros((0, 3), dtype=np.int64))
    divisor = tl.tensor(np.array([[1, 0, 2]]))
    for fn in (tl.fmod, tl.remainder, tl.floor_divide):
        assert tuple(fn(empty, divisor).shape) == (0, 3)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        tl.fmod(tl.tensor(np.ones((1, 3), dtype=np.int64)), divisor)


def test_pow_semantics():
    base = np.array([2, -3, 1, -1, 0, 5])
    exp = np.array([3, 2, -2, -3, 0, -1])
    got = tl.pow(tl.tensor(base), tl.tensor(exp))
    assert_close(got, np.array([8, 9, 1, -1, 1, 0]))
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        tl.pow(tl.tensor(base), -1)
    assert_close(tl.pow(tl.tensor(base), 2), base ** 2)
    assert_close(tl.pow(tl.tensor(np.array([4.0, 9.0])), 0.5), np.array([2.0, 3.0]))
    assert_close(tl.pow(2, tl.tensor(np.array([1, 3]))), np.array([2, 8]))
    assert tl.pow(2.5, tl.tensor(np.array([1, 3]))).dtype == tl.float32
    assert tl.tensor(np.array([1, 2])).pow(2.5).dtype == tl.float32
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tl.pow(tl.tensor(np.array([True])), tl.tensor(np.array([True])))


def test_maximum_minimum_nan():
    a = np.array([1.0, np.nan, 3.0])
    b = np.array([np.nan, 2.0, 1.0])
    assert_close(tl.maximum(tl.tensor(a), tl.tensor(b)), np.maximum(a, b))
    assert_close(tl.minimum(tl.tensor(a), tl.tensor(b)), np.minimum(a, b))


def test_bitwise_and_logical():
    f = tl.tensor(np.array([1.0], dtype=np.float32))
    for fn in (lambda: tl.bitwise_and(f, f), lambda: ~f, lambda: f | 1):
        with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
            fn()
    assert_close(tl.bitwise_and(6, tl.tensor(np.array([3, 5]))), np.array([2, 4]))
    assert_close(tl.bitwise_not(tl.tensor(np.array([0, 5], dtype=np.uint8))), np.array([255, 250], dtype=np.uint8))
    x = np.array([0.0, 2.0, -1.0, 0.0])
    y = np.array([1, 0, 3, 0])
    assert_close(tl.logical_and(tl.tensor(x), tl.tensor(y)), np.logical_and(x, y))
    assert_close(tl.logical_not(tl.tensor(x)), np.logical_not(x))
    o = tl.empty(4)
    tl.logical_or(tl.tensor(x), tl.tensor(y), out=o)
    assert_close(o, np.logical_or(x, y).astype(np.float32))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_where(layout):
    c = np.array([[True, False, True], [False, False, True]])
    a = arr(tl.float32, 25, shape=(2, 3))
    b = arr(tl.int32, 26, shape=(2, 3))
    got = tl.where(make_tensor(c, layout), make_tensor(a, layout), make_tensor(b, layout))
    assert_close(got, np.where(c, a, b.astype(np.float32)))
    assert_close(make_tensor(a, layout).where(make_tensor(c, layout), 0.5), np.where(c, a, np.float32(0.5)))
    assert_close(tl.where(tl.tensor(c), 2, tl.tensor(b)), np.where(c, 2, b))
    assert tl.where(tl.tensor(c), 1, 0).dtype == tl.int64
    assert tl.where(tl.tensor(c), 1.0, 0).dtype == tl.float32
    assert_close(tl.where(tl.tensor(c[:1]), tl.tensor(a), tl.tensor(b[:, :1])), np.where(c[:1], a, b[:, :1].astype(np.float32)))
    o = tl.empty(1)
    tl.where(tl.tensor(c), tl.tensor(a), tl.tensor(b), out=o)
    assert_close(o, np.where(c, a, b.astype(np.float32)))
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor, but got a tensor with dtype Float"):
        tl.where(tl.tensor(a), tl.tensor(a), tl.tensor(a))


def test_clamp():
    a = arr(tl.float32, 27)
    t = tl.tensor(a)
    assert_close(tl.clamp(t, -1, 2), np.clip(a, -1, 2))
    assert_close(tl.clamp(t, min=0.5), np.maximum(a, 0.5))
    assert_close(t.clamp(max=0.5), np.minimum(a, 0.5))
    assert_close(tl.clamp_min(t, 1), np.maximum(a, 1))
    assert_close(tl.clamp_max(t, 1), np.minimum(a, 1))
    assert_close(tl.clamp(t, 3, 2), np.full(a.shape, 2, np.float32))  # min > max gives max
    nan = tl.tensor(np.array([np.nan, 1.0]))
    assert_close(tl.clamp(nan, 0, 0.5), np.array([np.nan, 0.5]))
    o = tl.empty(2, 2)
    tl.clamp(t, -1, 1, out=o)
    assert_close(o, np.clip(a, -1, 1))
    t2 = tl.tensor(a)
    assert t2.clamp_(min=0) is t2
    tl.clamp_(t2, max=1)
    t2.clamp_min_(0.25)
    assert_close(t2, np.clip(a, 0.25, 1))
    i = tl.tensor(np.array([1, 5, 9]))
    assert_close(tl.clamp(i, 2, 6), np.array([2, 5, 6]))
    assert_close(tl.clamp(i, min=1.5), np.array([1.5, 5, 9], dtype=np.float32))
    assert tl.clamp(tl.tensor(np.array([True, False])), min=0).dtype == tl.int64
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        tl.clamp(t)
    with pytest.raises(RuntimeError, match="can't be cast"):
        i.clamp_(min=1.5)


# ---- unary ops --------------------------------------------------------------------------------

# name -> (numpy function, input range, integer inputs promote to float)
UNARY = {
    "neg": (np.negative, (-5, 5), False),
    "abs": (np.abs, (-5, 5), False),
    "sign": (np.sign, (-5, 5), False),
    "floor": (np.floor, (-5, 5), False),
    "ceil": (np.ceil, (-5, 5), False),
    "trunc": (np.trunc, (-5, 5), False),
    "round": (np.round, (-5, 5), False),
    "relu": (lambda x: np.maximum(x, 0).astype(x.dtype), (-5, 5), False),
    "exp": (np.exp, (-5, 5), True),
    "log": (np.log, (0.1, 5), True),
    "log1p": (np.log1p, (-0.5, 5), True),
    "expm1": (np.expm1, (-5, 5), True),
    "sqrt": (np.sqrt, (0, 5), True),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (0.1, 5), True),
    "sin": (np.sin, (-5, 5), True),
    "cos": (np.cos, (-5, 5), True),
    "tan": (np.tan, (-1.5, 1.5), True),
    "tanh": (np.tanh, (-5, 5), True),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), (-5, 5), True),
    "reciprocal": (lambda x: 1 / x, (0.5, 5), True),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_float(name, dtype, layout):
    npfn, (lo, hi), _ = UNARY[name]
    a = arr(dtype, 30, low=lo, high=hi)
    if layout == "expanded":
        a = np.broadcast_to(a[:1], SHAPE).copy()
    t = make_tensor(a, layout)
    assert_close(getattr(tl, name)(t), npfn(a).astype(a.dtype), rtol=1e-5 if dtype == tl.float32 else 1e-12)
    assert_close(getattr(t, name)(), npfn(a).astype(a.dtype), rtol=1e-5 if dtype == tl.float32 else 1e-12)


@pytest.mark.parametrize("dtype", [tl.uint8, tl.int32, tl.int64])
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_int(name, dtype):
    npfn, (lo, hi), to_float = UNARY[name]
    lo = max(math.ceil(lo), 0 if dtype == tl.uint8 else -5)
    lo = max(lo, 1) if name in ("log", "rsqrt", "reciprocal") else lo
    a = arr(dtype, 31, low=lo, high=max(int(hi), lo + 1) + 1)
    got = getattr(tl, name)(tl.tensor(a))
    if to_float:
        assert got.dtype == tl.float32
        assert_close(got, npfn(a.astype(np.float64)).astype(np.float32))
    else:
        assert got.dtype == dtype
        with np.errstate(all="ignore"):
            exp = npfn(a) if name not in ("floor", "ceil", "trunc", "round") else a
        assert_close(got, np.asarray(exp).astype(a.dtype))


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_out_and_inplace(name):
    npfn, (lo, hi), _ = UNARY[name]
    a = arr(tl.float64, 32, low=lo, high=hi)
    out = tl.empty(1, dtype=tl.float64)
    if hasattr(tl, name + "_") or name != "sign":
        t = tl.tensor(a)
        assert getattr(t, name + "_")() is t
        assert_close(t, npfn(a))
    if name != "relu":
        assert getattr(tl, name)(tl.tensor(a), out=out) is out
        assert_close(out, npfn(a))


def test_unary_special_values():
    assert_close(tl.round(tl.tensor(np.array([0.5, 1.5, 2.5, -0.5, -1.5]))), np.array([0.0, 2.0, 2.0, -0.0, -2.0]))
    assert_close(tl.sign(tl.tensor(np.array([np.nan, -0.0, 2.0]))), np.array([0.0, 0.0, 1.0]))
    assert_close(tl.sign(tl.tensor(np.array([True, False]))), np.array([True, False]))
    assert_close(tl.relu(tl.tensor(np.array([np.nan, -1.0]))), np.array([np.nan, 0.0]))
    assert_close(tl.abs(tl.tensor(np.array([-128], dtype=np.int8))), np.array([-128], dtype=np.int8))
    assert_close(tl.neg(tl.tensor(np.array([3, 250], dtype=np.uint8))), np.array([253, 6], dtype=np.uint8))
    assert tl.exp(tl.tensor(np.array([True]))).dtype == tl.float32
    b = tl.tensor(np.array([True, False]))
    with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor is not supported"):
        -b
    with pytest.raises(NotImplementedError, match="\"abs_cpu\" not implemented for 'Bool'"):
        tl.abs(b)
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tl.floor(b)
    with pytest.raises(RuntimeError, match="Boolean inputs not supported for relu"):
        tl.relu(b)
    with pytest.raises(RuntimeError, match="can't be cast"):
        tl.sqrt(tl.tensor(np.array([4])), out=tl.empty(1, dtype=tl.int64))


def test_large_tensor_parallel_path():
    n = 200_003  # above the parallel grain size, odd length
    a = np.random.default_rng(40).standard_normal(n).astype(np.float32)
    b = np.random.default_rng(41).standard_normal(n).astype(np.float32)
    ta, tb = tl.tensor(a), tl.tensor(b)
    assert_close(ta * tb + ta, a * b + a)
    assert_close(tl.exp(ta), np.exp(a))
    assert_close(tl.where(ta > tb, ta, tb), np.where(a > b, a, b))
    assert_close(tl.clamp(ta, -0.5, 0.5), np.clip(a, -0.5, 0.5))


# ---- against PyTorch --------------------------------------------------------------------------

def _torch_pairs():
    return [
        ("add", lambda m, x, y: m.add(x, y, alpha=2)),
        ("sub", lambda m, x, y: x - y),
        ("mul_scalar", lambda m, x, y: x * 2.5),
        ("div", lambda m, x, y: x / y),
        ("div_floor", lambda m, x, y: m.div(x, y, rounding_mode="floor")),
        ("div_trunc", lambda m, x, y: m.div(x, y, rounding_mode="trunc")),
        ("floordiv_scalar", lambda m, x, y: x // 3),
        ("rfloordiv", lambda m, x, y: 7 // y),
        ("rtruediv", lambda m, x, y: 7 / y),
        ("rsub", lambda m, x, y: 2 - x),
        ("remainder", lambda m, x, y: x % y),
        ("rmod", lambda m, x, y: 7 % y),
        ("pow_scalar", lambda m, x, y: x ** 2),
        ("rpow", lambda m, x, y: 2 ** x.abs()),
        ("maximum", lambda m, x, y: m.maximum(x, y)),
        ("lt", lambda m, x, y: x < y),
        ("eq_scalar", lambda m, x, y: x == 1),
        ("where", lambda m, x, y: m.where(x > 0, x, 0.5)),
        ("clamp", lambda m, x, y: m.clamp(x, min=-1, max=2)),
        ("clamp_float_bound", lambda m, x, y: m.clamp(x, min=-1.5)),
        ("exp", lambda m, x, y: m.exp(x)),
        ("sigmoid", lambda m, x, y: m.sigmoid(x)),
        ("abs", lambda m, x, y: x.abs()),
        ("sign", lambda m, x, y: m.sign(x)),
        ("round", lambda m, x, y: m.round(x / 2)),
    ]


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "uint8"])
@pytest.mark.parametrize("name,fn", _torch_pairs())
def test_against_torch(name, fn, dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(50)
    low = 0 if dtype == "uint8" else -6
    a = rng.integers(low, 7, size=(3, 5)).astype(dtype)
    b = rng.integers(1, 7, size=(3, 5)).astype(dtype)
    if dtype.startswith("float"):
        a = a + rng.uniform(-0.5, 0.5, size=a.shape).astype(dtype)
    if name == "clamp" and dtype == "uint8":
        pytest.skip("documented difference: torch wraps min=-1 to 255 for uint8; torchlite saturates it to 0")
    try:
        expected = fn(torch, torch.from_numpy(a), torch.from_numpy(b))
    except Exception as e:  # torch rejects it: so must we, with the same exception type
        with pytest.raises(type(e)):
            fn(tl, tl.tensor(a), tl.tensor(b))
        return
    got = fn(tl, tl.tensor(a), tl.tensor(b))
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(got.numpy(force=True), expected.numpy(), rtol=1e-6, atol=1e-6)


def test_float32_exp_is_accurate_over_its_whole_range():
    # Note [Vectorisable exp]: the polynomial exp must match the correctly rounded result to
    # about an ulp everywhere, including subnormal results, overflow and special values.
    x = np.concatenate([np.linspace(-110, 95, 100001), [np.nan, np.inf, -np.inf, 0.0, -0.0]]).astype(np.float32)
    got = tl.tensor(x).exp().numpy()
    with np.errstate(over="ignore"):
        ref = np.exp(x.astype(np.float64)).astype(np.float32)  # correctly rounded (incl. inf, 0)
    normal = np.isfinite(ref) & (ref > np.finfo(np.float32).tiny)
    np.testing.assert_allclose(got[normal], ref[normal], rtol=2.5e-7)
    np.testing.assert_allclose(got[~normal & ~np.isnan(x)], ref[~normal & ~np.isnan(x)], rtol=0, atol=1e-44)
    assert np.isnan(got[np.isnan(x)]).all()
    assert got[x == np.inf][0] == np.inf and got[x == -np.inf][0] == 0.0
