"""Registry entries: complex numbers (issue 13 item 3): the real/complex views, real/imag,
complex/polar, conj and friends, angle, isreal.

Entries that take complex inputs list complex64/complex128 in `dtypes`; the harness then also
gradchecks them with complex128 leaves (gradcheck checks complex gradients through the inputs'
real views). Complex variants of the existing math ops (exp, mul, sum, mm, ...) are tested in
tests/test_complex.py against PyTorch, since their registry entries live in other modules."""

import numpy as np

import torchlite as tl
from helpers import NP_DTYPE
from opinfo.core import FLOATING, OpInfo, SampleInput

COMPLEX = (tl.complex64, tl.complex128)
_TO_COMPLEX = {tl.float32: tl.complex64, tl.float64: tl.complex128}


def crand(shape, dtype, rng, low=-3.0, high=3.0):
    """A NumPy array of `dtype`: complex values with both parts in [low, high) for a complex
    dtype, real values otherwise."""
    re = rng.uniform(low, high, size=shape)
    if dtype.is_complex:
        re = re + 1j * rng.uniform(low, high, size=shape)
    return np.asarray(re, dtype=NP_DTYPE[dtype])


def _complex_dtype(dtype):
    return _TO_COMPLEX.get(dtype, dtype)


def _unary_samples(shapes=((3, 4), (5,), ())):
    def samples(dtype, rng):
        for shape in shapes:
            yield SampleInput((crand(shape, dtype, rng),))
    return samples


def _complex_only(shapes=((3, 4), (5,), ())):
    def samples(dtype, rng):
        for shape in shapes:
            yield SampleInput((crand(shape, _complex_dtype(dtype), rng),))
    return samples


def _pairs(dtype, rng):
    yield SampleInput((rand_pair(dtype, rng, (2, 3), 2, 5)), {})
    yield SampleInput((rand_pair(dtype, rng, (), 0.5, 2)), {})
    # broadcasting
    yield SampleInput((crand((3, 1), dtype, rng, 0.5, 2), crand((4,), dtype, rng)))


def rand_pair(dtype, rng, shape, low, high):
    return crand(shape, dtype, rng, low, high), crand(shape, dtype, rng)


def _view_as_complex_samples(dtype, rng):
    for shape in ((3, 2), (2, 4, 2), (2,)):
        yield SampleInput((crand(shape, dtype, rng),), noncontiguous=False)


def _matrix_samples(dtype, rng):
    for shape in ((2, 3), (2, 3, 4)):
        yield SampleInput((crand(shape, dtype, rng),))


def _isreal_samples(dtype, rng):
    a = crand((6,), dtype, rng)
    if dtype.is_complex:
        a[::2] = a[::2].real
    yield SampleInput((a,))


def _angle_ref(a):
    out = np.angle(a)
    return out.astype(np.float32 if a.dtype in (np.float32, np.complex64) else np.float64)


OPS = [
    OpInfo("view_as_real", _complex_only(), ref=lambda a: np.stack([a.real, a.imag], -1), dtypes=COMPLEX),
    OpInfo("view_as_complex", _view_as_complex_samples, ref=lambda a: a[..., 0] + 1j * a[..., 1]),
    OpInfo("real", _unary_samples(), ref=lambda a: np.real(a), dtypes=(*FLOATING, *COMPLEX)),
    OpInfo("imag", _complex_only(), ref=lambda a: np.imag(a), dtypes=COMPLEX),
    OpInfo("complex", _pairs, ref=lambda a, b: (a + 1j * b), supports_out=True),
    OpInfo("polar", _pairs, ref=lambda r, t: r * np.exp(1j * t), supports_out=True),
    OpInfo("conj", _unary_samples(), ref=np.conj, dtypes=(*FLOATING, *COMPLEX),
           covers=("resolve_conj", "resolve_neg"),
           op=lambda lib, a: a.conj().resolve_conj().resolve_neg()),
    OpInfo("conj_physical", _unary_samples(), ref=np.conj, dtypes=(*FLOATING, *COMPLEX), supports_out=True,
           inplace=True),
    OpInfo("adjoint", _matrix_samples, ref=lambda a: np.conj(np.swapaxes(a, -1, -2)), dtypes=(*FLOATING, *COMPLEX)),
    OpInfo("angle", _unary_samples(), ref=_angle_ref, dtypes=(*FLOATING, *COMPLEX), supports_out=True),
    OpInfo("isreal", _isreal_samples, ref=np.isreal, dtypes=(*FLOATING, *COMPLEX), differentiable=False),
]
