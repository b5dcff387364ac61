"""The vector math layer (aten/native/cpu/VecMath.cpp) and half-precision loops.

Accuracy is measured in ulps of the result dtype against NumPy's long double (x87, 64-bit
mantissa: 11 bits more than float64) over wide ranges and the special values; float32 gets
at most 1 ulp, float64 at most 2. Contiguous inputs take the vectorised path, strided ones
the scalar functor (libm).
"""

import math

import numpy as np
import pytest

import torchlite as torch

LD = np.longdouble
pytestmark = pytest.mark.skipif(np.finfo(LD).nmant < 63, reason="needs x87 long double as the reference")


def _mish(x):
    return x * np.tanh(np.log1p(np.exp(x)))


# name -> (long double reference, sample range)
UNARY = {
    "exp": (np.exp, 720),
    "exp2": (np.exp2, 1100),
    "expm1": (np.expm1, 720),
    "log": (np.log, 1e300),
    "log2": (np.log2, 1e300),
    "log10": (np.log10, 1e300),
    "log1p": (np.log1p, 1e300),
    "sin": (np.sin, 1e6),
    "cos": (np.cos, 1e6),
    "tan": (np.tan, 1e6),
    "tanh": (np.tanh, 30),
    "atan": (np.arctan, 1e6),
    "asin": (np.arcsin, 1.0),
    "acos": (np.arccos, 1.0),
    "sinh": (np.sinh, 720),
    "cosh": (np.cosh, 720),
    "erf": (np.vectorize(math.erf), 6),
    "erfc": (np.vectorize(math.erfc), 12),
    "mish": (_mish, 800),
}
SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324, 1e-310, 1e-40, -1e-40, 1.0, -1.0, 0.5, -0.5,
           2.0, 1e-8, -1e-8, 700.0, -700.0, 88.5, -88.5, 1e300, -1e300, 3.4e38, -3.4e38,
           # the float32 cores' range edges (aten/native/cpu/VecMath.cpp)
           87.29, 87.31, 88.72, 88.73, 88.8, 88.81, -79.99, -80.01, -103.8, -104.0, 89.41, 89.42, 89.5, 89.51,
           126.9, 127.5, 128.0, -114.9, -115.1, -149.0, -151.0, 8191.99, 8192.01, 0.55, -0.55, 0.75, 2.4142137,
           0.41421357, 0.99999994, 5.9604645e-08]


def _inputs(bound, dtype):
    rng = np.random.default_rng(0)
    n = 1500
    wide = np.exp(rng.uniform(-40, math.log(bound) if bound > 1 else 0, n)) * rng.choice([-1, 1], n)
    parts = [rng.uniform(-bound, bound, n), rng.uniform(-4, 4, n), rng.uniform(-1e-3, 1e-3, 200), wide, SPECIAL]
    with np.errstate(over="ignore"):
        return np.concatenate([np.asarray(p, dtype=np.float64) for p in parts]).astype(dtype)


def _ulp_error(got, ref, dtype):
    """|got - ref| in ulps of dtype at ref; inf where only one side is NaN, inf or has the wrong sign of zero."""
    fi = np.finfo(dtype)
    with np.errstate(all="ignore"):
        ref_r = ref.astype(dtype)  # where ref overflows dtype, the rounded value is what must come out
        exp = np.maximum(np.frexp(np.abs(ref))[1] - 1, fi.minexp)
        ulp = np.ldexp(LD(1), exp - fi.nmant)
        err = np.abs(got.astype(LD) - ref) / ulp
    special = ~np.isfinite(ref_r) | ~np.isfinite(got) | (ref_r == 0)
    same = (got == ref_r) | (np.isnan(got) & np.isnan(ref_r))
    same &= (np.signbit(got) == np.signbit(ref_r)) | np.isnan(got) | (ref_r != 0)
    err = np.where(special, np.where(same, 0.0, np.where(np.isfinite(got) & (np.abs(err) < 4), err, np.inf)), err)
    return err


@pytest.mark.parametrize("dtype,max_ulp", [(np.float32, 1.0), (np.float64, 2.0)], ids=["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ulp(name, dtype, max_ulp):
    ref_fn, bound = UNARY[name]
    x = _inputs(bound, dtype)
    if name in ("erf", "erfc") and dtype == np.float64:
        max_ulp = 3.0  # double erf/erfc are glibc's (VecMath.h); its erfc reaches 2.5 ulp
    if name == "mish" and dtype == np.float64:
        max_ulp = 4.0  # x m / (m + 2) over e^x: three roundings on top of exp's
    with np.errstate(all="ignore"):
        ref = ref_fn(x.astype(LD)).astype(LD)
    fn = torch.nn.functional.mish if name == "mish" else getattr(torch, name)
    got = fn(torch.from_numpy(x)).numpy()
    err = _ulp_error(got, ref, dtype)
    worst = int(np.argmax(err))
    assert err[worst] <= max_ulp, f"{name}({x[worst]!r}) = {got[worst]!r}, want {ref[worst]!r}: {err[worst]:.3g} ulp"


@pytest.mark.parametrize("dtype,kmax,max_ulp", [(np.float32, 5216, 1.0), (np.float64, 254648, 2.0)], ids=["float32", "float64"])
@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_trig_near_multiples_of_half_pi(name, dtype, kmax, max_ulp):
    # The reductions' worst cases: the floats nearest k pi/2 over the whole fast range (float32:
    # |x| <= 8192; float64: 4e5, every k below 5000 and 5000 more), where x - k pi/2 cancels most
    # of x's bits.
    k = np.arange(1, kmax, dtype=LD)
    if kmax > 10000:
        k = np.concatenate([k[:5000], np.random.default_rng(4).choice(k[5000:], 5000, replace=False)])
    near = (k * (LD(np.pi) + LD(1.2246467991473532e-16)) / 2).astype(dtype)
    x = np.concatenate([np.nextafter(near, dtype(np.inf)), near, np.nextafter(near, dtype(0))])
    x = np.concatenate([x, -x])
    ref = getattr(np, name)(x.astype(LD))
    got = getattr(torch, name)(torch.from_numpy(x)).numpy()
    err = _ulp_error(got, ref, dtype)
    worst = int(np.argmax(err))
    assert err[worst] <= max_ulp, f"{name}({x[worst]!r}) = {got[worst]!r}, want {ref[worst]!r}: {err[worst]:.3g} ulp"


def _dense_float32(hi, count=1 << 20):
    """About count float32s of [-hi, hi], evenly spaced in bit pattern: every binade down to 1e-38 equally."""
    top = int(np.array(hi, np.float32).view(np.int32))
    pos = np.arange(0, top + 1, max(1, top // (count // 2)), dtype=np.int32).view(np.float32)
    return np.concatenate([pos, -pos])


@pytest.mark.parametrize("name,hi", [("exp", 88.0), ("tanh", 9.5), ("sigmoid", 87.0), ("sin", 8192.0), ("cos", 8192.0)])
def test_float32_dense(name, hi):
    # exp, tanh, sin and cos are cheap cores (exp: one polynomial, no compensated sums; tanh with
    # AVX-512: a table of 32 intervals above 0.5; sin and cos: a seven-operation reduction and
    # degree 6-8 polynomials; VecMath.cpp) whose error bounds have little slack (every float
    # checked once: 0.88, 0.65, 0.87 and 0.86 ulp; sin and cos up to their fast range's end,
    # 8192): sample their whole range densely, every table interval thousands of times, and for
    # sin and cos also every 64th float of [0.5, 8192], where the reduction works. sigmoid is
    # PyTorch's formula 1 / (1 + e^-x): e^-x's error, the addition and the division add up to
    # 2.5 ulp where e^-x is large.
    x = _dense_float32(hi)
    if name in ("sin", "cos"):
        bits = np.arange(np.float32(0.5).view(np.int32), np.float32(hi).view(np.int32), 64, dtype=np.int32)
        x = np.concatenate([x, bits.view(np.float32)])
    ref_fn = {"exp": np.exp, "tanh": np.tanh, "sigmoid": lambda v: 1 / (1 + np.exp(-v)), "sin": np.sin, "cos": np.cos}[name]
    with np.errstate(all="ignore"):
        ref = ref_fn(x.astype(LD))
    got = getattr(torch, name)(torch.from_numpy(x)).numpy()
    err = _ulp_error(got, ref, np.float32)
    worst = int(np.argmax(err))
    bound = 3.0 if name == "sigmoid" else 1.0
    assert err[worst] <= bound, f"{name}({x[worst]!r}) = {got[worst]!r}, want {ref[worst]!r}: {err[worst]:.3g} ulp"


def test_float32_sigmoid_saturates_like_torch():
    pt = pytest.importorskip("torch")
    x = np.array([-200.0, -104.0, -88.8, -88.7, -88.0, -87.4, -87.2, -80.0, -16.6, 0.0, -0.0, 16.7, 20.0, 88.8, 200.0,
                  np.inf, -np.inf, np.nan], np.float32)
    got = torch.sigmoid(torch.from_numpy(x)).numpy()
    want = pt.sigmoid(pt.from_numpy(x)).numpy()
    np.testing.assert_array_equal(got[:3], [0.0, 0.0, 0.0])  # e^-x overflows: 0, as 1 / (1 + inf)
    np.testing.assert_allclose(got, want, rtol=4e-7, atol=3e-45)  # 2 ulp of the subnormals near -88.7
    assert got[-2] == 0.0 and got[-3] == 1.0 and np.isnan(got[-1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", ["atan2", "pow"])
def test_binary_ulp(name, dtype):
    rng = np.random.default_rng(1)
    n = 3000
    if name == "atan2":
        a = np.concatenate([rng.uniform(-1e3, 1e3, n), np.exp(rng.uniform(-30, 30, n)) * rng.choice([-1, 1], n), SPECIAL])
        b = np.concatenate([rng.uniform(-1e3, 1e3, n), rng.uniform(-2, 2, n), SPECIAL[::-1]])
        ref_fn = np.arctan2
    else:
        a = np.concatenate([np.exp(rng.uniform(-20, 20, n)), rng.uniform(-3, 3, n), SPECIAL])
        b = np.concatenate([rng.uniform(-30, 30, n), rng.integers(-5, 6, n).astype(np.float64), SPECIAL[::-1]])
        ref_fn = np.power
    with np.errstate(all="ignore"):
        a, b = a.astype(dtype), b.astype(dtype)
        ref = ref_fn(a.astype(LD), b.astype(LD))
    got = getattr(torch, name)(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    err = _ulp_error(got, ref, dtype)
    worst = int(np.argmax(err))
    assert err[worst] <= (1.0 if dtype == np.float32 else 2.0), f"{name}({a[worst]!r}, {b[worst]!r}) = {got[worst]!r}"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["sin", "tanh", "sigmoid", "log1p", "asin", "mish", "erf"])
def test_in_place_and_strided_agree(name, dtype):
    # y may alias x in the vectorised loop; the strided loop runs libm; odd lengths hit the tails.
    x = torch.linspace(-0.99, 0.99, 1001, dtype=getattr(torch, dtype))
    fn = torch.nn.functional.mish if name == "mish" else getattr(torch, name)
    want = fn(x)
    y = x.clone()
    if name == "mish":
        y = torch.nn.functional.mish(y, inplace=True)
    else:
        getattr(y, name + "_")()
    assert torch.equal(y, want)
    strided = fn(torch.stack([x, x], 1)[:, 0])
    rtol = 1e-15 if dtype == "float64" else 3e-7
    assert torch.allclose(strided, want, rtol=rtol, atol=0)  # both within 2 ulp


# ---- half precision: computed in float32, rounded once on store -------------------------

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_elementwise_bitwise_matches_torch(dtype):
    pt = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    a = rng.standard_normal(4099).astype(np.float32) * 100
    b = rng.standard_normal(4099).astype(np.float32)
    a[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0]
    ta, tb = pt.from_numpy(a).to(getattr(pt, dtype)), pt.from_numpy(b).to(getattr(pt, dtype))
    la, lb = torch.from_numpy(a).to(getattr(torch, dtype)), torch.from_numpy(b).to(getattr(torch, dtype))

    def same(got, want):
        # half -> float32 is exact: equal float32 values (and signs of zero) are equal bits
        got, want = got.float().numpy(), want.float().numpy()
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got[want == 0]), np.signbit(want[want == 0]))

    for op in (lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y, lambda x, y: x / y,
               lambda x, y: x.add(y, alpha=3), lambda x, y: x.abs().sqrt(), lambda x, y: x.neg()):
        same(op(la, lb), op(ta, tb))
    # float32 -> half rounding over all cases (overflow, subnormals, ties)
    same(torch.from_numpy(a * 1e-5).to(getattr(torch, dtype)), pt.from_numpy(a * 1e-5).to(getattr(pt, dtype)))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_reductions_accumulate_in_float(dtype):
    pt = pytest.importorskip("torch")
    # Small integers: their float32 sums are exact, so any order gives PyTorch's bits, while
    # accumulating in the half type would round off once the sum passes 2048 (fp16) / 256 (bf16).
    x = np.random.default_rng(3).integers(0, 8, (64, 513)).astype(np.float32)
    t, lt = pt.from_numpy(x).to(getattr(pt, dtype)), torch.from_numpy(x).to(getattr(torch, dtype))
    for dim in (None, 0, 1):
        want = t.sum() if dim is None else t.sum(dim)
        got = lt.sum() if dim is None else lt.sum(dim)
        np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
    np.testing.assert_array_equal(lt.mean(1).float().numpy(), t.mean(1).float().numpy())
