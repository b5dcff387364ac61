"""Registry entries: elementwise arithmetic, comparison, logical, bitwise and unary operators."""

import numpy as np

import torchlite as tl
from opinfo.core import FLOATING, NP_DTYPE, OpInfo, SampleInput, positive, rand

INTEGRAL = (tl.int32, tl.int64)
BOOL_AND_INT = (tl.bool, tl.uint8, tl.int64)


def _unary(low=-3.0, high=3.0):
    def samples(dtype, rng):
        yield SampleInput((rand((2, 3), dtype, rng, low, high),))
        yield SampleInput((rand((4,), dtype, rng, low, high),))
        yield SampleInput((rand((0, 3), dtype, rng, low, high),), grad=False)  # empty
        yield SampleInput((rand((), dtype, rng, low, high),))  # 0-dim
    return samples


def _binary(low=-3.0, high=3.0, other_low=None, other_high=None, scalar=2.5):
    """Same-shape, broadcast, size-1 and 0-dim pairs, and a Python number as `other`."""
    olo = low if other_low is None else other_low
    ohi = high if other_high is None else other_high

    def samples(dtype, rng):
        a = lambda s: rand(s, dtype, rng, low, high)
        b = lambda s: rand(s, dtype, rng, olo, ohi)
        yield SampleInput((a((2, 3)), b((2, 3))))
        yield SampleInput((a((2, 3)), b((3,))))
        yield SampleInput((a((2, 1, 3)), b((2, 1))))
        yield SampleInput((a((2, 3)), b(())))
        yield SampleInput((a((0, 3)), b((3,))), grad=False)
        if scalar is not None:
            yield SampleInput((a((2, 3)), scalar if dtype in FLOATING else int(scalar)))
    return samples


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _unary_op(name, ref, low=-3.0, high=3.0, dtypes=FLOATING, inplace=True, out=True, **kw):
    return OpInfo(name, _unary(low, high), ref=ref, dtypes=dtypes, inplace=inplace, supports_out=out, **kw)


def _arith_samples_with_alpha(dtype, rng):
    yield from _binary()(dtype, rng)
    yield SampleInput((rand((2, 3), dtype, rng), rand((3,), dtype, rng)), {"alpha": 2})


def _div_samples(dtype, rng):
    yield from _binary(other_low=0.5, other_high=3.0)(dtype, rng)
    for mode in ("trunc", "floor"):
        yield SampleInput((rand((2, 3), dtype, rng), positive((3,), dtype, rng)), {"rounding_mode": mode})


def _div_ref(a, b, rounding_mode=None):
    q = np.true_divide(a, b)
    if rounding_mode == "trunc":
        return np.trunc(q)
    return np.floor_divide(a, b) if rounding_mode == "floor" else q


def _round_samples(dtype, rng):
    yield from _unary()(dtype, rng)
    for decimals in (0, 2, -1):  # round.decimals: 10^|decimals| scaling, halves to even
        yield SampleInput((rand((2, 3), dtype, rng, -300, 300),), {"decimals": decimals})
    yield SampleInput((np.array([0.125, 2.5, -0.375, 125.0, 250.0], NP_DTYPE[dtype]),), {"decimals": 2},
                      grad=False)  # halfway points: round is discontinuous there


def _pow_samples(dtype, rng):
    yield SampleInput((positive((2, 3), dtype, rng), rand((2, 3), dtype, rng, -2, 2)))
    yield SampleInput((positive((2, 3), dtype, rng), rand((3,), dtype, rng, -2, 2)))
    yield SampleInput((rand((2, 3), dtype, rng), 3))
    yield SampleInput((rand((2, 3), dtype, rng), 2.0))
    yield SampleInput((2.0, rand((2, 3), dtype, rng)))  # pow.Scalar


def _where_samples(dtype, rng):
    cond = lambda s: rng.random(s) > 0.5
    yield SampleInput((cond((2, 3)), rand((2, 3), dtype, rng), rand((2, 3), dtype, rng)))
    yield SampleInput((cond((2, 1)), rand((3,), dtype, rng), rand((2, 3), dtype, rng)))
    yield SampleInput((cond((2, 3)), rand((2, 3), dtype, rng), 0.5))  # ScalarOther
    yield SampleInput((cond((2, 3)), -1.5, rand((2, 3), dtype, rng)))  # ScalarSelf


def _clamp_samples(dtype, rng):
    x = lambda: rand((2, 3), dtype, rng)
    yield SampleInput((x(),), {"min": -1.0, "max": 1.0})
    yield SampleInput((x(),), {"min": -0.5})
    yield SampleInput((x(),), {"max": 0.5})


def _clamp_bound(name):
    def samples(dtype, rng):
        yield SampleInput((rand((2, 3), dtype, rng), 0.5))
        yield SampleInput((rand((4,), dtype, rng), -1.0))
    return samples


def _rsub_samples(dtype, rng):
    yield SampleInput((rand((2, 3), dtype, rng), rand((3,), dtype, rng)))
    yield SampleInput((rand((2, 3), dtype, rng), rand((2, 3), dtype, rng)), {"alpha": 2})
    yield SampleInput((rand((2, 3), dtype, rng), 1.5))


def _rsub_ref(a, b, alpha=1):
    return np.subtract(b, np.multiply(alpha, a))


def _logical_samples(dtype, rng):
    yield SampleInput((rand((2, 3), dtype, rng, -1, 2), rand((2, 3), dtype, rng, -1, 2)))
    yield SampleInput((rand((2, 3), dtype, rng, -1, 2), rand((3,), dtype, rng, -1, 2)))


def _bitwise_samples(dtype, rng):
    yield SampleInput((rand((2, 3), dtype, rng, 0, 100), rand((2, 3), dtype, rng, 0, 100)))
    yield SampleInput((rand((2, 3), dtype, rng, 0, 100), rand((3,), dtype, rng, 0, 100)))
    yield SampleInput((rand((2, 3), dtype, rng, 0, 100), True if dtype == tl.bool else 5))


def _comparison(name, ref):
    return OpInfo(name, _binary(-2, 2, scalar=0.0), ref=ref, dtypes=(tl.float32, tl.int64),
                  supports_out=True, differentiable=False)


OPS = [
    # unary math
    _unary_op("abs", np.abs, dtypes=(*FLOATING, tl.int64)),
    _unary_op("neg", np.negative, dtypes=(*FLOATING, tl.int64)),
    _unary_op("sign", np.sign, dtypes=(*FLOATING, tl.int64)),
    _unary_op("ceil", np.ceil),
    _unary_op("floor", np.floor),
    OpInfo("round", _round_samples, ref=np.round, supports_out=True, inplace=True),
    _unary_op("trunc", np.trunc),
    _unary_op("cos", np.cos),
    _unary_op("sin", np.sin),
    _unary_op("tan", np.tan, low=-1.2, high=1.2),
    _unary_op("tanh", np.tanh),
    _unary_op("exp", np.exp),
    _unary_op("exp2", np.exp2),
    _unary_op("expm1", np.expm1),
    _unary_op("sigmoid", _sigmoid),
    _unary_op("log", np.log, low=0.5),
    _unary_op("log1p", np.log1p, low=-0.5),
    _unary_op("sqrt", np.sqrt, low=0.5),
    _unary_op("rsqrt", lambda x: 1 / np.sqrt(x), low=0.5),
    _unary_op("reciprocal", np.reciprocal, low=0.5),
    _unary_op("relu", lambda x: np.maximum(x, 0), out=False, dtypes=(*FLOATING, tl.int64)),
    # binary arithmetic
    OpInfo("add", _arith_samples_with_alpha, ref=lambda a, b, alpha=1: np.add(a, np.multiply(alpha, b)),
           dtypes=(*FLOATING, tl.int64), supports_out=True, inplace=True),
    OpInfo("sub", _arith_samples_with_alpha, ref=lambda a, b, alpha=1: np.subtract(a, np.multiply(alpha, b)),
           dtypes=(*FLOATING, tl.int64), supports_out=True, inplace=True),
    OpInfo("mul", _binary(), ref=np.multiply, dtypes=(*FLOATING, tl.int64), supports_out=True, inplace=True),
    OpInfo("div", _div_samples, ref=_div_ref, supports_out=True, inplace=True),
    OpInfo("remainder", _binary(other_low=0.5, other_high=3.0), ref=np.remainder, supports_out=True,
           inplace=True),
    OpInfo("floor_divide", _binary(other_low=0.5, other_high=3.0), ref=np.floor_divide,
           dtypes=(*FLOATING, tl.int64), supports_out=True, inplace=True, differentiable=False),
    OpInfo("pow", _pow_samples, ref=np.power, supports_out=True),
    OpInfo("rsub", _rsub_samples, ref=_rsub_ref),
    OpInfo("maximum", _binary(scalar=None), ref=np.maximum, dtypes=(*FLOATING, tl.int64), supports_out=True),
    OpInfo("minimum", _binary(scalar=None), ref=np.minimum, dtypes=(*FLOATING, tl.int64), supports_out=True),
    OpInfo("clamp", _clamp_samples, ref=lambda x, min=None, max=None: np.clip(x, min, max),
           supports_out=True, inplace=True),
    OpInfo("clamp_min", _clamp_bound("min"), ref=np.maximum, supports_out=True, inplace=True),
    OpInfo("clamp_max", _clamp_bound("max"), ref=np.minimum, supports_out=True, inplace=True),
    OpInfo("where", _where_samples, ref=np.where),
    # comparisons
    _comparison("eq", np.equal),
    _comparison("ne", np.not_equal),
    _comparison("lt", np.less),
    _comparison("le", np.less_equal),
    _comparison("gt", np.greater),
    _comparison("ge", np.greater_equal),
    # logical and bitwise
    OpInfo("logical_and", _logical_samples, ref=np.logical_and, dtypes=(tl.float32, tl.int64, tl.bool),
           supports_out=True, differentiable=False),
    OpInfo("logical_or", _logical_samples, ref=np.logical_or, dtypes=(tl.float32, tl.int64, tl.bool),
           supports_out=True, differentiable=False),
    OpInfo("logical_xor", _logical_samples, ref=np.logical_xor, dtypes=(tl.float32, tl.int64, tl.bool),
           supports_out=True, differentiable=False),
    OpInfo("logical_not", _unary(-1, 2), ref=np.logical_not, dtypes=(tl.float32, tl.int64, tl.bool),
           supports_out=True, differentiable=False),
    OpInfo("bitwise_and", _bitwise_samples, ref=np.bitwise_and, dtypes=BOOL_AND_INT, supports_out=True,
           inplace=True, differentiable=False),
    OpInfo("bitwise_or", _bitwise_samples, ref=np.bitwise_or, dtypes=BOOL_AND_INT, supports_out=True,
           inplace=True, differentiable=False),
    OpInfo("bitwise_xor", _bitwise_samples, ref=np.bitwise_xor, dtypes=BOOL_AND_INT, supports_out=True,
           inplace=True, differentiable=False),
    OpInfo("bitwise_not", _unary(0, 100), ref=np.invert, dtypes=BOOL_AND_INT, supports_out=True, inplace=True,
           differentiable=False),
]
