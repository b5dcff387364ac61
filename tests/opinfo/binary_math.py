"""Registry entries: binary pointwise math (hypot, logaddexp, copysign, nextafter, ldexp,
heaviside, gcd, lcm, float_power, xlogy, the bit shifts) and PyTorch's alias names (arctan2,
clip, divide, multiply, subtract, true_divide, absolute, greater, less_equal, ...).

Edge cases the samples cannot express (out-of-range shifts, infinities, dtype errors, the
shift operators) and the overloads with a number first (xlogy.Scalar_Self,
float_power.Scalar: the in-place test needs a tensor first) are in tests/test_binary_math.py."""

import numpy as np

import torchlite as tl
from helpers import NP_DTYPE
from opinfo.core import FLOATING, OpInfo, SampleInput, positive, rand
from opinfo.elementwise import (
    _arith_samples_with_alpha,
    _binary,
    _clamp_samples,
    _comparison,
    _div_ref,
    _div_samples,
    _unary_op,
)

INTEGRAL = (tl.int32, tl.int64)


def _float_like(x, y):
    """y in the dtype torchlite computes x's op in (integer inputs: the default float dtype)."""
    return np.asarray(y).astype(np.result_type(x, np.float32))


def _with_extremes(dtype, rng):
    """_binary's pairs plus large and equal arguments (logaddexp must not overflow)."""
    yield from _binary(scalar=None)(dtype, rng)
    big = np.array([[500.0, -500.0, 3.0], [80.0, 1e-3, -2.0]], dtype=NP_DTYPE[dtype])
    yield SampleInput((big, big[::-1].copy()), grad=False)
    yield SampleInput((big, big.copy()), grad=False)


def _copysign_samples(dtype, rng):
    yield from _binary()(dtype, rng)
    # signed zeros in `other` pick the sign too
    yield SampleInput((rand((4,), dtype, rng), np.array([0.0, -0.0, 1.0, -1.0]).astype(NP_DTYPE[dtype])),
                      grad=False)


def _ldexp_samples(dtype, rng):
    # Integer exponents are non-negative here: PyTorch's ldexp gradient computes 2^e in the
    # integer dtype, so it is 0 for e < 0 (tests/test_binary_math.py checks ours there).
    e = lambda s: rng.integers(0, 5, size=s).astype(np.int64)
    yield SampleInput((rand((2, 3), dtype, rng), e((2, 3))))
    yield SampleInput((rand((2, 3), dtype, rng), e((3,))))
    yield SampleInput((rand((2, 1, 3), dtype, rng), e((2, 1))))
    yield SampleInput((rand((2, 3), dtype, rng), rand((3,), dtype, rng, -4, 4)))  # a float exponent
    yield SampleInput((rand((0, 3), dtype, rng), e((3,))), grad=False)


def _ldexp_ref(x, e):
    return _float_like(x, x * np.exp2(e))


def _heaviside_samples(dtype, rng):
    x = lambda s: rand(s, dtype, rng, -2, 3).round()  # many exact zeros
    yield SampleInput((x((2, 3)), rand((2, 3), dtype, rng)))
    yield SampleInput((x((2, 3)), rand((3,), dtype, rng)))
    yield SampleInput((x((4,)), rand((), dtype, rng)))


def _integer_samples(dtype, rng):
    v = lambda s: rand(s, dtype, rng, -60, 60)
    yield SampleInput((v((2, 3)), v((2, 3))))
    yield SampleInput((v((2, 3)), v((3,))))
    yield SampleInput((v((2, 1, 3)), v((2, 1))))
    yield SampleInput((v((0, 3)), v((3,))))


def _shift_samples(dtype, rng):
    v = lambda s: rand(s, dtype, rng, -1000, 1000)
    amount = lambda s: rand(s, dtype, rng, 0, 20)
    yield SampleInput((v((2, 3)), amount((2, 3))))
    yield SampleInput((v((2, 3)), amount((3,))))
    yield SampleInput((v((2, 3)), 3))  # Tensor_Scalar


def _float_power_samples(dtype, rng):
    yield SampleInput((positive((2, 3), dtype, rng), rand((2, 3), dtype, rng, -2, 2)))
    yield SampleInput((positive((2, 3), dtype, rng), rand((3,), dtype, rng, -2, 2)))
    yield SampleInput((rand((2, 3), dtype, rng), 3))  # Tensor_Scalar
    yield SampleInput((positive((2, 3), dtype, rng), 0.5 if dtype in FLOATING else 2))


def _float_power_ref(a, b):
    return np.power(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))


def _xlogy_samples(dtype, rng):
    x = lambda s: rand(s, dtype, rng, -2, 3).round()  # exact zeros
    yield SampleInput((x((2, 3)), positive((2, 3), dtype, rng)))
    yield SampleInput((x((2, 3)), positive((3,), dtype, rng)))
    yield SampleInput((x((2, 3)), 2.5))  # Scalar_Other
    yield SampleInput((x((0, 3)), positive((3,), dtype, rng)), grad=False)


def _xlogy_ref(x, y):
    x, y = np.asarray(x), np.asarray(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(x == 0, 0.0, x * np.log(y))
    return r.astype(np.result_type(x, y, np.float32))


OPS = [
    OpInfo("arctan2", _binary(scalar=None), ref=lambda a, b: _float_like(a, np.arctan2(a, b)), supports_out=True,
           inplace=True),
    OpInfo("hypot", _binary(scalar=None), ref=np.hypot, supports_out=True, inplace=True),
    OpInfo("logaddexp", _with_extremes, ref=np.logaddexp, supports_out=True),
    OpInfo("logaddexp2", _with_extremes, ref=np.logaddexp2, supports_out=True),
    OpInfo("copysign", _copysign_samples, ref=lambda a, b: _float_like(a, np.copysign(a, b)),
           dtypes=(*FLOATING, tl.int64), supports_out=True, inplace=True),
    OpInfo("nextafter", _binary(scalar=None), ref=np.nextafter, supports_out=True, inplace=True,
           differentiable=False),
    OpInfo("ldexp", _ldexp_samples, ref=_ldexp_ref, supports_out=True, inplace=True),
    OpInfo("heaviside", _heaviside_samples, ref=np.heaviside, dtypes=(*FLOATING, tl.int64), supports_out=True,
           inplace=True, differentiable=False),
    OpInfo("gcd", _integer_samples, ref=np.gcd, dtypes=INTEGRAL, supports_out=True, inplace=True,
           differentiable=False),
    OpInfo("lcm", _integer_samples, ref=np.lcm, dtypes=INTEGRAL, supports_out=True, inplace=True,
           differentiable=False),
    OpInfo("float_power", _float_power_samples, ref=_float_power_ref, dtypes=(tl.float64, tl.float32, tl.int64),
           supports_out=True, inplace=True),
    OpInfo("xlogy", _xlogy_samples, ref=_xlogy_ref, dtypes=(*FLOATING, tl.int64), supports_out=True, inplace=True),
    OpInfo("bitwise_left_shift", _shift_samples, ref=np.left_shift, dtypes=INTEGRAL, supports_out=True,
           inplace=True, differentiable=False),
    OpInfo("bitwise_right_shift", _shift_samples, ref=np.right_shift, dtypes=INTEGRAL, supports_out=True,
           inplace=True, differentiable=False),
    # aliases
    _comparison("not_equal", np.not_equal),
    _comparison("greater", np.greater),
    _comparison("greater_equal", np.greater_equal),
    _comparison("less", np.less),
    _comparison("less_equal", np.less_equal),
    OpInfo("clip", _clamp_samples, ref=lambda x, min=None, max=None: np.clip(x, min, max), supports_out=True,
           inplace=True),
    OpInfo("divide", _div_samples, ref=_div_ref, supports_out=True, inplace=True),
    OpInfo("true_divide", _binary(other_low=0.5, other_high=3.0), ref=np.true_divide, supports_out=True,
           inplace=True),
    OpInfo("multiply", _binary(), ref=np.multiply, dtypes=(*FLOATING, tl.int64), supports_out=True, inplace=True),
    OpInfo("subtract", _arith_samples_with_alpha, ref=lambda a, b, alpha=1: np.subtract(a, np.multiply(alpha, b)),
           dtypes=(*FLOATING, tl.int64), supports_out=True, inplace=True),
    _unary_op("absolute", np.abs, dtypes=(*FLOATING, tl.int64)),
]
