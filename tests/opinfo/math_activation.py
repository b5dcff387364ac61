"""Registry entries: activations and their backward operators, pointwise math (erf, atan2,
fmod, lerp, addcmul, isnan, nan_to_num...) and the random operators.

The nn operators are called through torch.nn.functional / torch._C._nn, as PyTorch exposes
them; their out= and in-place forms are tested in tests/test_math_activation.py."""

import math

import numpy as np

import torchlite as tl
from opinfo.core import OpInfo, SampleInput, positive, rand

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _like(x, y):
    return np.asarray(y).astype(np.result_type(x, np.float32))


def _unary(low=-3.0, high=3.0, kwargs=({},)):
    def samples(dtype, rng):
        for kw in kwargs:
            yield SampleInput((rand((2, 3), dtype, rng, low, high),), dict(kw))
        yield SampleInput((rand((5,), dtype, rng, low, high),))
        yield SampleInput((rand((0, 3), dtype, rng, low, high),), grad=False)  # empty
        yield SampleInput((rand((1, 1), dtype, rng, low, high),))  # size-1 dims
        yield SampleInput((rand((), dtype, rng, low, high),))  # 0-dim
    return samples


def _backward(nargs=(), low=-3.0, high=3.0):
    """(grad_output, self, *nargs) samples for the *_backward operators."""
    def samples(dtype, rng):
        yield SampleInput((rand((2, 3), dtype, rng), rand((2, 3), dtype, rng, low, high), *nargs))
        yield SampleInput((rand((4,), dtype, rng), rand((4,), dtype, rng, low, high), *nargs))
        yield SampleInput((rand((0, 2), dtype, rng), rand((0, 2), dtype, rng, low, high), *nargs), grad=False)
    return samples


# ---- NumPy references -----------------------------------------------------------------------

def _phi(x):
    return np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def _gelu(x, approximate="none"):
    if approximate == "tanh":
        return _like(x, 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))))
    return _like(x, 0.5 * x * (1 + _erf(x / math.sqrt(2))))


def _gelu_grad(x, approximate="none"):
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        t = np.tanh(k * (x + 0.044715 * x ** 3))
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x)
    return 0.5 * (1 + _erf(x / math.sqrt(2))) + x * _phi(x)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _elu(x, alpha=1.0, scale=1.0, input_scale=1.0):
    return _like(x, np.where(x > 0, x * scale, np.expm1(x * input_scale) * alpha * scale))


def _elu_backward(g, alpha, scale, input_scale, is_result, x):
    neg = input_scale * (x + alpha * scale) if is_result else input_scale * alpha * scale * np.exp(x * input_scale)
    return _like(x, g * np.where(x > 0, scale, neg))


def _softplus(x, beta=1.0, threshold=20.0):
    return _like(x, np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta))


def _selu(x):
    return _elu(x, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946)


def _hardswish_grad(x):
    return np.where(x < -3, 0.0, np.where(x <= 3, x / 3 + 0.5, 1.0))


def _mish_grad(x):
    t = np.tanh(np.logaddexp(0, x))
    return t + x * _sigmoid(x) * (1 - t * t)


def _softplus_backward(g, x, beta, threshold):
    return _like(x, g * np.where(x * beta > threshold, 1.0, _sigmoid(x * beta)))


def _erfinv(y):
    # Newton on erf from the bisection-free starting point sign(y) * 1: converges for |y| < 1.
    x = np.zeros_like(y, dtype=np.float64)
    for _ in range(60):
        x = x - (_erf(x) - y) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
    return _like(y, x)


def _lerp(s, e, w):
    return _like(s, s + w * (e - s))


def _addcmul(s, a, b, value=1):
    return np.asarray(s + value * a * b).astype(np.result_type(s, a, b))


def _addcdiv(s, a, b, value=1):
    # The quotient first, as PyTorch computes it: value * a alone may overflow.
    return np.asarray(s + value * (a / b)).astype(np.result_type(s, a, b))


# ---- samples --------------------------------------------------------------------------------

def _binary(low=-3.0, high=3.0, olow=-3.0, ohigh=3.0):
    def samples(dtype, rng):
        a = lambda s: rand(s, dtype, rng, low, high)
        b = lambda s: rand(s, dtype, rng, olow, ohigh)
        yield SampleInput((a((2, 3)), b((2, 3))))
        yield SampleInput((a((2, 3)), b((3,))))  # broadcast
        yield SampleInput((a((2, 1, 3)), b((2, 1))))
        yield SampleInput((a((2, 3)), b(())))
        yield SampleInput((a((0, 3)), b((3,))), grad=False)
    return samples


def _fmod_samples(dtype, rng):
    yield from _binary(olow=1.0, ohigh=3.0)(dtype, rng)
    yield SampleInput((rand((2, 3), dtype, rng), rand((2, 3), dtype, rng, -3.0, -1.0)))
    yield SampleInput((rand((2, 3), dtype, rng), 1.5 if dtype.is_floating_point else 2))  # fmod.Scalar


def _lerp_samples(dtype, rng):
    r = lambda s, lo=-3.0, hi=3.0: rand(s, dtype, rng, lo, hi)
    yield SampleInput((r((2, 3)), r((2, 3)), 0.3))
    yield SampleInput((r((2, 3)), r((3,)), 0.8))  # weight >= 0.5 takes the other branch
    yield SampleInput((r((2, 3)), r((2, 3)), r((2, 3), 0.0, 1.0)))
    yield SampleInput((r((2, 1)), r((3,)), r((1, 3), 0.0, 1.0)))  # broadcast
    yield SampleInput((r((0, 3)), r((0, 3)), 0.5), grad=False)


def _addc_samples(positive_divisor):
    def samples(dtype, rng):
        b = (lambda s: positive(s, dtype, rng)) if positive_divisor else (lambda s: rand(s, dtype, rng))
        yield SampleInput((rand((2, 3), dtype, rng), rand((2, 3), dtype, rng), b((2, 3))))
        value = 0.5 if dtype.is_floating_point else 3
        yield SampleInput((rand((2, 3), dtype, rng), rand((3,), dtype, rng), b((2, 1))), {"value": value})
        yield SampleInput((rand((3,), dtype, rng), rand((2, 3), dtype, rng), b((1, 3))), {"value": -2})
        yield SampleInput((rand((0, 3), dtype, rng), rand((0, 3), dtype, rng), b((3,))), grad=False)
    return samples


def _special_values(dtype):
    return np.array([[0.0, -1.5, np.nan, np.inf], [-np.inf, 2.0, -0.0, 1e30]], dtype=np.float32 if dtype == tl.float32
                    else np.float64)


def _classify_samples(dtype, rng):
    yield SampleInput((_special_values(dtype),))
    yield SampleInput((np.array([np.nan, 1.0, -np.inf]),))
    yield SampleInput((rand((0, 2), dtype, rng),))
    yield SampleInput((np.array([1, -2, 3], dtype=np.int64),))  # integers: always finite


def _nan_to_num_samples(dtype, rng):
    yield SampleInput((_special_values(dtype),), grad=False)
    yield SampleInput((_special_values(dtype),), {"nan": 0.5, "posinf": 10.0, "neginf": -10.0}, grad=False)
    yield SampleInput((_special_values(dtype),), {"posinf": 1e300}, grad=False)  # rounds to inf in float32
    yield SampleInput((rand((2, 3), dtype, rng),))
    yield SampleInput((np.array([1, -2, 3], dtype=np.int64),), grad=False)


def _nan_to_num_ref(x, nan=0.0, posinf=None, neginf=None):
    with np.errstate(over="ignore"):
        return np.nan_to_num(x, nan=nan, posinf=posinf if posinf is None else x.dtype.type(posinf),
                             neginf=neginf if neginf is None else x.dtype.type(neginf))


def _nn(name):
    return lambda lib, *a, **k: getattr(lib.nn.functional, name)(*a, **k)


def _c_nn(name):
    # PyTorch binds the backward operators only under torch.ops.aten.
    return lambda lib, *a, **k: (getattr(lib._C._nn, name, None) or getattr(lib.ops.aten, name))(*a, **k)


def _random_samples(dtype, rng):
    """Shapes only: values are checked statistically in tests/test_random_ops.py."""
    yield SampleInput((rand((3, 4), dtype, rng, 0.0, 1.0),))


def _threshold_samples(dtype, rng):
    yield SampleInput((rand((2, 3), dtype, rng), 0.1, 20.0))
    yield SampleInput((rand((5,), dtype, rng), -1.0, -2.0))
    yield SampleInput((rand((0, 3), dtype, rng), 0.5, 1.0), grad=False)
    yield SampleInput((rand((), dtype, rng), 0.5, 1.0))


def _dropout_backward_samples(dtype, rng):
    mask = lambda s: rng.random(s) > 0.5
    yield SampleInput((rand((2, 3), dtype, rng), mask((2, 3)), 2.0))
    yield SampleInput((rand((5,), dtype, rng), mask((5,)), 1.25))
    yield SampleInput((rand((0, 3), dtype, rng), mask((0, 3)), 2.0), grad=False)


def _random(name, op=None, **kw):
    return OpInfo(name, _random_samples, op=op, differentiable=False, torch=False, **kw)


_GELU_KW = ({"approximate": "none"}, {"approximate": "tanh"})

OPS = [
    # activations
    OpInfo("gelu", _unary(kwargs=_GELU_KW), ref=_gelu, op=_nn("gelu")),
    OpInfo("gelu_backward", _backward(), ref=lambda g, x, approximate="none": _like(x, g * _gelu_grad(x, approximate)),
           op=_c_nn("gelu_backward")),
    OpInfo("silu", _unary(), ref=lambda x: _like(x, x * _sigmoid(x)), op=_nn("silu")),
    OpInfo("silu_backward", _backward(), op=_c_nn("silu_backward"), torch=False,  # PyTorch has no derivative for it
           ref=lambda g, x: _like(x, g * _sigmoid(x) * (1 + x * (1 - _sigmoid(x))))),
    OpInfo("elu", _unary(kwargs=({}, {"alpha": 0.5}, {"alpha": 2.0, "scale": 1.5, "input_scale": 0.5})), ref=_elu,
           op=_c_nn("elu")),
    OpInfo("elu_backward", _backward((0.5, 1.5, 2.0, False)), op=lambda lib, g, x, *a: _c_nn("elu_backward")(lib, g, *a, x),
           ref=lambda g, x, *a: _elu_backward(g, *a, x)),
    OpInfo("leaky_relu", _unary(kwargs=({}, {"negative_slope": 0.2})), op=_nn("leaky_relu"),
           ref=lambda x, negative_slope=0.01: _like(x, np.where(x > 0, x, x * negative_slope))),
    OpInfo("leaky_relu_backward", _backward((0.2, False)), op=_c_nn("leaky_relu_backward"),
           ref=lambda g, x, s, _r: _like(x, np.where(x > 0, g, g * s))),
    OpInfo("softplus", _unary(-30, 30, kwargs=({}, {"beta": 2.0, "threshold": 5.0})), ref=_softplus,
           op=_nn("softplus")),
    OpInfo("softplus_backward", _backward((2.0, 5.0)), ref=_softplus_backward, op=_c_nn("softplus_backward")),
    OpInfo("hardtanh", _unary(kwargs=({}, {"min_val": -0.5, "max_val": 2.0})), op=_nn("hardtanh"),
           ref=lambda x, min_val=-1.0, max_val=1.0: np.clip(x, min_val, max_val)),
    OpInfo("hardtanh_backward", _backward((-0.5, 2.0)), op=_c_nn("hardtanh_backward"),
           ref=lambda g, x, lo, hi: _like(x, np.where((x <= lo) | (x >= hi), 0.0, g))),
    OpInfo("relu6", _unary(-3, 9), ref=lambda x: np.clip(x, 0, 6), op=_nn("relu6")),
    OpInfo("log_sigmoid", _unary(-30, 30), ref=lambda x: _like(x, -np.logaddexp(0, -x)), op=_nn("logsigmoid")),
    OpInfo("selu", _unary(), ref=_selu),
    OpInfo("celu", _unary(kwargs=({"alpha": 0.5}, {"alpha": 2.0})),
           ref=lambda x, alpha=1.0: _elu(x, alpha, 1.0, 1.0 / alpha)),
    OpInfo("threshold", _threshold_samples, ref=lambda x, t, v: np.where(x <= t, v, x).astype(x.dtype),
           dtypes=(tl.float32, tl.float64, tl.int64), supports_out=True),
    OpInfo("threshold_backward", _backward((0.1,)), op=_c_nn("threshold_backward"),
           ref=lambda g, x, t: _like(x, np.where(x <= t, 0.0, g))),
    OpInfo("hardshrink", _unary(kwargs=({"lambd": 0.3}, {"lambd": 1.5})), supports_out=True,
           ref=lambda x, lambd=0.5: np.where(np.abs(x) <= lambd, 0.0, x).astype(x.dtype)),
    OpInfo("hardshrink_backward", _backward((0.4,)), op=_c_nn("hardshrink_backward"),
           ref=lambda g, x, lambd: _like(x, np.where(np.abs(x) <= lambd, 0.0, g))),
    OpInfo("softshrink", _unary(kwargs=({"lambd": 0.3}, {"lambd": 1.5})), op=_nn("softshrink"),
           ref=lambda x, lambd=0.5: _like(x, np.where(np.abs(x) <= lambd, 0.0, x - np.sign(x) * lambd))),
    OpInfo("softshrink_backward", _backward((0.4,)), op=_c_nn("softshrink_backward"),
           ref=lambda g, x, lambd: _like(x, np.where(np.abs(x) <= lambd, 0.0, g))),
    OpInfo("hardsigmoid", _unary(-5, 5), op=_nn("hardsigmoid"), ref=lambda x: _like(x, np.clip(x + 3, 0, 6) / 6)),
    OpInfo("hardsigmoid_backward", _backward(low=-5, high=5), op=_c_nn("hardsigmoid_backward"),
           torch=False, ref=lambda g, x: _like(x, np.where((x > -3) & (x < 3), g / 6, 0.0))),  # no PyTorch derivative
    OpInfo("hardswish", _unary(-5, 5), op=_nn("hardswish"), ref=lambda x: _like(x, x * np.clip(x + 3, 0, 6) / 6)),
    OpInfo("hardswish_backward", _backward(low=-5, high=5), op=_c_nn("hardswish_backward"),
           ref=lambda g, x: _like(x, g * _hardswish_grad(x))),
    OpInfo("mish", _unary(-30, 30), op=_nn("mish"), ref=lambda x: _like(x, x * np.tanh(np.logaddexp(0, x)))),
    OpInfo("mish_backward", _backward(), op=_c_nn("mish_backward"), torch=False,  # no PyTorch derivative
           ref=lambda g, x: _like(x, g * _mish_grad(x))),
    # pointwise math
    OpInfo("erf", _unary(), ref=lambda x: _like(x, _erf(x)), supports_out=True, inplace=True),
    OpInfo("erfc", _unary(), ref=lambda x: _like(x, _erfc(x)), supports_out=True, inplace=True),
    OpInfo("erfinv", _unary(-0.99, 0.99), ref=_erfinv, supports_out=True, inplace=True),
    OpInfo("atan2", _binary(), ref=lambda a, b: _like(a, np.arctan2(a, b)), supports_out=True, inplace=True),
    OpInfo("fmod", _fmod_samples, ref=np.fmod, dtypes=(tl.float32, tl.float64, tl.int64), supports_out=True,
           inplace=True),
    OpInfo("lerp", _lerp_samples, ref=_lerp, supports_out=True, inplace=True),
    OpInfo("addcmul", _addc_samples(False), ref=_addcmul, dtypes=(tl.float32, tl.float64, tl.int64),
           supports_out=True, inplace=True),
    OpInfo("addcdiv", _addc_samples(True), ref=_addcdiv, supports_out=True, inplace=True),
    OpInfo("isnan", _classify_samples, ref=np.isnan, differentiable=False, supports_out=True),
    OpInfo("isinf", _classify_samples, ref=np.isinf, differentiable=False, supports_out=True),
    OpInfo("isposinf", _classify_samples, ref=np.isposinf, differentiable=False, supports_out=True),
    OpInfo("isneginf", _classify_samples, ref=np.isneginf, differentiable=False, supports_out=True),
    OpInfo("isfinite", _classify_samples, ref=np.isfinite, differentiable=False),
    OpInfo("nan_to_num", _nan_to_num_samples, ref=_nan_to_num_ref, supports_out=True, inplace=True),
    # random (tests/test_random_ops.py checks the distributions)
    _random("bernoulli"),
    _random("multinomial", op=lambda lib, p: lib.multinomial(p, 2)),
    _random("randperm", op=lambda lib, p: lib.randperm(p.shape[-1], device=p.device)),
    _random("native_dropout", op=lambda lib, x: lib.native_dropout(x, 0.5, True), covers=("dropout",)),
    OpInfo("native_dropout_backward", _dropout_backward_samples, ref=lambda g, m, scale: g * m * scale,
           op=lambda lib, *a: (getattr(lib, "native_dropout_backward", None) or lib.ops.aten.native_dropout_backward)(*a)),
]
