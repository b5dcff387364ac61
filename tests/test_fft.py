"""torch.fft beyond the registry (tests/opinfo/spectral.py): out= forms, dtype promotion, the
primitives' own checks, and accuracy against numpy.fft (in complex128) at large sizes, where
errors of a poor plan (twiddle rounding, Bluestein's chirp) would show."""

import numpy as np
import pytest

import torchlite as tl


def _rel_err(got, expected):
    return np.abs(got - expected).max() / np.abs(expected).max()


# The max error relative to the largest magnitude, for random complex inputs; pocketfft's own
# float32 errors at these sizes are ~1e-7 and torchlite's stay below 1e-6 (float64: 1e-15).
@pytest.mark.parametrize("n", [1024, 1000, 1009, 2 ** 16])
@pytest.mark.parametrize("dtype,bound", [(np.complex64, 2e-6), (np.complex128, 5e-15)])
def test_accuracy_against_numpy(n, dtype, bound):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    expected = np.fft.fft(x.astype(np.complex128))
    assert _rel_err(tl.fft.fft(tl.tensor(x)).numpy(), expected) < bound
    # ifft(fft(x)) returns x
    assert _rel_err(tl.fft.ifft(tl.fft.fft(tl.tensor(x))).numpy(), x.astype(np.complex128)) < bound
    real = x.real.copy()
    assert _rel_err(tl.fft.rfft(tl.tensor(real)).numpy(), np.fft.rfft(real.astype(np.float64))) < bound


@pytest.mark.parametrize("fn,dtype", [("fft", tl.complex64), ("rfft", tl.complex64), ("irfft", tl.float32),
                                      ("fft2", tl.complex64), ("ihfft", tl.complex64), ("hfft", tl.float32)])
def test_out_form(fn, dtype):
    x = tl.tensor(np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32))
    if fn in ("irfft", "hfft"):
        x = tl.fft.rfft(x)
    expected = getattr(tl.fft, fn)(x)
    out = tl.empty(0, dtype=dtype)
    assert getattr(tl.fft, fn)(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), expected.numpy())


def test_freq_out_and_requires_grad():
    out = tl.empty(0)
    assert tl.fft.fftfreq(5, out=out) is out
    np.testing.assert_allclose(out.numpy(), np.fft.fftfreq(5), rtol=1e-6)
    assert tl.fft.rfftfreq(6, requires_grad=True).requires_grad


@pytest.mark.parametrize("dtype,expected", [(tl.int64, tl.complex64), (tl.bool, tl.complex64),
                                            (tl.float64, tl.complex128), (tl.complex64, tl.complex64)])
def test_promotion(dtype, expected):
    x = tl.ones(4, dtype=dtype)
    assert tl.fft.fft(x).dtype == expected
    if not dtype.is_complex:
        assert tl.fft.rfft(x).dtype == expected
        assert tl.fft.irfft(tl.fft.rfft(x)).dtype == (tl.float64 if expected == tl.complex128 else tl.float32)


def test_input_unchanged_and_noncontiguous():
    x = tl.tensor(np.arange(24.0).reshape(4, 6) + 1j)
    before = x.numpy().copy()
    y = tl.fft.fft(x.t(), dim=0)
    np.testing.assert_allclose(x.numpy(), before)
    np.testing.assert_allclose(y.numpy(), np.fft.fft(before.T, axis=0), atol=1e-12)


def test_empty_batch():
    assert tuple(tl.fft.fft(tl.ones(0, 8, dtype=tl.complex64)).shape) == (0, 8)
    assert tuple(tl.fft.irfft(tl.ones(0, 5, dtype=tl.complex64)).shape) == (0, 8)


def test_primitive_checks():
    c = tl.ones(4, dtype=tl.complex64)
    with pytest.raises(RuntimeError, match="expects a complex input tensor"):
        tl._C._fft_c2c(tl.ones(4), [0], 0, True)
    with pytest.raises(RuntimeError, match="expects a floating point input tensor"):
        tl._C._fft_r2c(c, [0], 0, True)
    with pytest.raises(RuntimeError, match="Invalid normalization mode: 3"):
        tl._C._fft_c2c(c, [0], 3, True)
    with pytest.raises(RuntimeError, match="FFT dims must be unique"):
        tl._C._fft_c2c(tl.ones(2, 2, dtype=tl.complex64), [0, -2], 0, True)
    with pytest.raises(RuntimeError, match="last_dim_size / 2 \\+ 1"):
        tl._C._fft_c2r(c, [0], 0, 10)
