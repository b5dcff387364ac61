"""Registry entries: torch.fft (issue 13). The three YAML primitives (_fft_c2c, _fft_r2c,
_fft_c2r; torchlite exposes them as torchlite._C._fft_*, PyTorch as torch._fft_*) and every
torchlite.fft function (yaml=False), against numpy.fft.

Sizes cover 1, 2^k, mixed radices (12, 60, 360), primes for the generic radix (7, 17) and for
Bluestein (97, 1009), odd and even lengths for the real transforms. Large samples skip gradcheck
(finite differences cost two calls per element); out= forms and bad inputs are tested in
tests/test_fft.py."""

import dataclasses

import numpy as np

import torchlite as tl
from opinfo.complex import COMPLEX, crand
from opinfo.core import FLOATING, OpInfo, SampleInput

_NORM_MODE = {0: None, 1: "ortho", 2: "forward"}  # primitive normalization -> numpy's forward norm
_SIZES = (1, 2, 7, 12, 16, 17, 60, 97, 360, 1009, 1024)


def _to_complex(dtype):
    return {tl.float32: tl.complex64, tl.float64: tl.complex128}.get(dtype, dtype)


def _to_real(dtype):
    return {tl.complex64: tl.float32, tl.complex128: tl.float64}.get(dtype, dtype)


def _prim(name):
    return lambda lib, *a, **k: getattr(lib._C if lib is tl else lib, name)(*a, **k)


def _np_norm(mode, forward):
    """The numpy norm string that gives primitive normalization `mode` in this direction."""
    if mode == 1:
        return "ortho"
    return "backward" if (mode == 0) == forward else "forward"


def _np_c2c(x, dim, normalization, forward):
    f = np.fft.fftn if forward else np.fft.ifftn
    return f(x, axes=dim, norm=_np_norm(normalization, forward))


def _np_r2c(x, dim, normalization, onesided):
    full = np.fft.fftn(x, axes=dim, norm=_np_norm(normalization, True))
    return full[(slice(None),) * (dim[-1] % x.ndim) + (slice(0, x.shape[dim[-1]] // 2 + 1),)] if onesided else full


def _np_c2r(x, dim, normalization, last_dim_size):
    s = [x.shape[d] for d in dim[:-1]] + [last_dim_size]
    return np.fft.irfftn(x, s=s, axes=dim, norm=_np_norm(normalization, False))


def _c2c_samples(dtype, rng):
    dtype = _to_complex(dtype)  # gradcheck asks for float64 too
    for n in _SIZES:
        yield SampleInput((crand((2, n), dtype, rng), [1], n % 3, n % 2 == 0), grad=n <= 17)
    yield SampleInput((crand((3, 4, 5), dtype, rng), [0, 2], 2, False))
    yield SampleInput((crand((3, 4, 5), dtype, rng), [2, 0, 1], 1, True))  # PyTorch wants wrapped dims


def _r2c_samples(dtype, rng):
    for n in _SIZES:
        yield SampleInput((crand((2, n), dtype, rng), [1], n % 3, n % 2 == 1), grad=n <= 17)
    yield SampleInput((crand((3, 4, 5), dtype, rng), [2, 0], 1, True))
    yield SampleInput((crand((3, 4, 6), dtype, rng), [1, 2], 0, False))


def _c2r_samples(dtype, rng):
    dtype = _to_complex(dtype)
    for n in _SIZES:
        yield SampleInput((crand((2, n // 2 + 1), dtype, rng), [1], n % 3, n), grad=n <= 17)
    yield SampleInput((crand((3, 4, 3), dtype, rng), [0, 2], 2, 5))
    yield SampleInput((crand((3, 4, 4), dtype, rng), [1, 2], 1, 6))


def _fft_fn(name):
    return lambda lib, *a, **k: getattr(lib.fft, name)(*a, **k)


def _one_dim_samples(real_input):
    """Samples of fft/ifft/rfft/...: sizes, n (trim and pad), dim and each norm."""
    def samples(dtype, rng):
        dt = _to_real(dtype) if real_input else dtype
        for n in (2, 7, 12, 97, 1009, 64):
            yield SampleInput((crand((2, n), dt, rng),), grad=n <= 12)
        yield SampleInput((crand((2, 1), dt, rng),), {"n": 1})  # irfft's default n would be 0
        yield SampleInput((crand((4, 6), dt, rng),), {"n": 4, "dim": 0, "norm": "ortho"})
        yield SampleInput((crand((4, 5), dt, rng),), {"n": 9, "norm": "forward"})
        yield SampleInput((crand((3, 5), dt, rng),), {"dim": 0, "norm": "backward"})
    return samples


def _n_dim_samples(real_input, two_d):
    def samples(dtype, rng):
        dt = _to_real(dtype) if real_input else dtype
        yield SampleInput((crand((3, 4, 5), dt, rng),))
        yield SampleInput((crand((3, 4, 6), dt, rng),), {"s": (5, 3), "norm": "ortho"})
        yield SampleInput((crand((4, 6, 3), dt, rng),), {"s": (3, 4), "dim": (2, 0), "norm": "forward"})
        yield SampleInput((crand((2, 60, 7), dt, rng),), {"dim": (1, 2)}, grad=False)
        if not two_d:
            yield SampleInput((crand((4, 5), dt, rng),), {"dim": (-1,)})
    return samples


def _ref_1d(np_fn):
    return lambda x, n=None, dim=-1, norm=None: np_fn(x, n=n, axis=dim, norm=norm)


def _ref_nd(np_fn, two_d):
    def ref(x, s=None, dim=None, norm=None):
        if two_d and dim is None:
            dim = (-2, -1)
        if dim is None and s is not None:
            dim = tuple(range(x.ndim - len(s), x.ndim))
        return np_fn(x, s=s, axes=dim, norm=norm)
    return ref


def _np_hfftn(x, s=None, axes=None, norm=None):
    """hfftn(x) = irfftn(conj(x)) with the forward transform's normalization (numpy has no hfftn)."""
    inv_norm = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    return np.fft.irfftn(np.conj(x), s=s, axes=axes, norm=inv_norm)


def _np_ihfftn(x, s=None, axes=None, norm=None):
    inv_norm = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    return np.conj(np.fft.rfftn(x, s=s, axes=axes, norm=inv_norm))


_ONE_D = {"fft": (np.fft.fft, False), "ifft": (np.fft.ifft, False), "rfft": (np.fft.rfft, True),
          "irfft": (np.fft.irfft, False), "hfft": (np.fft.hfft, False), "ihfft": (np.fft.ihfft, True)}
_N_D = {"fftn": (np.fft.fftn, False), "ifftn": (np.fft.ifftn, False), "rfftn": (np.fft.rfftn, True),
        "irfftn": (np.fft.irfftn, False), "hfftn": (_np_hfftn, False), "ihfftn": (_np_ihfftn, True)}


def _freq_samples(dtype, rng):
    for n in (1, 4, 5, 10):
        yield SampleInput((n,), {"d": 0.5, "dtype": dtype})


def _freq_fn(name):
    """The call with `dtype` as the library's own dtype object."""
    return lambda lib, n, d, dtype: getattr(lib.fft, name)(n, d, dtype=getattr(lib, str(dtype).split(".")[-1]))


def _shift_samples(dtype, rng):
    yield SampleInput((crand((4, 5), dtype, rng),))
    yield SampleInput((crand((4, 5, 3), dtype, rng),), {"dim": 1})
    yield SampleInput((crand((4, 5, 3), dtype, rng),), {"dim": (0, -1)})


def _stft_samples(dtype, rng):
    yield SampleInput((crand((40,), dtype, rng), crand((8,), dtype, rng, 0.5, 1.0)), {"n_fft": 8, "hop_length": 3})
    yield SampleInput((crand((2, 30), dtype, rng), crand((6,), dtype, rng, 0.5, 1.0)),
                      {"n_fft": 8, "win_length": 6, "normalized": True})
    yield SampleInput((crand((2, 30), dtype, rng), crand((7,), dtype, rng, 0.5, 1.0)), {"n_fft": 7, "center": False})


def _np_stft(x, window, n_fft, hop_length=None, win_length=None, center=True, normalized=False):
    """numpy's version of stft(return_complex=True) with a reflect-padded signal."""
    hop_length = n_fft // 4 if hop_length is None else hop_length
    left = (n_fft - len(window)) // 2
    window = np.pad(window, (left, n_fft - len(window) - left))
    if center:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(n_fft // 2, n_fft // 2)], mode="reflect")
    n_frames = 1 + (x.shape[-1] - n_fft) // hop_length
    frames = np.stack([x[..., i * hop_length:i * hop_length + n_fft] for i in range(n_frames)], -2) * window
    return np.swapaxes(np.fft.rfft(frames, axis=-1, norm="ortho" if normalized else "backward"), -1, -2)


def _istft_samples(dtype, rng):
    dtype = _to_complex(dtype)
    real = _to_real(dtype)
    yield SampleInput((crand((5, 9), dtype, rng), crand((8,), real, rng, 0.5, 1.0)), {"n_fft": 8, "hop_length": 2})
    yield SampleInput((crand((2, 5, 7), dtype, rng), crand((8,), real, rng, 0.5, 1.0)),
                      {"n_fft": 8, "hop_length": 3, "length": 20, "normalized": True})


OPS = [
    # On CUDA the c2c transforms go through the cuFFT plan cache, whose ops (no tensors to sample)
    # tests/test_cuda_host_fallback.py exercises.
    OpInfo("_fft_c2c", _c2c_samples, ref=_np_c2c, op=_prim("_fft_c2c"), dtypes=COMPLEX, atol=1e-4, rtol=1e-5,
           covers=("_cufft_get_plan_cache_size", "_cufft_get_plan_cache_max_size", "_cufft_set_plan_cache_max_size",
                   "_cufft_clear_plan_cache")),
    OpInfo("_fft_r2c", _r2c_samples, ref=_np_r2c, op=_prim("_fft_r2c"), atol=1e-4, rtol=1e-5),
    OpInfo("_fft_c2r", _c2r_samples, ref=_np_c2r, op=_prim("_fft_c2r"), dtypes=COMPLEX, atol=1e-4, rtol=1e-5),
    *[OpInfo(f"fft.{name}", _one_dim_samples(real), ref=_ref_1d(np_fn), op=_fft_fn(name), yaml=False,
             dtypes=FLOATING if real else (*FLOATING, *COMPLEX), atol=1e-4, rtol=1e-5)
      for name, (np_fn, real) in _ONE_D.items()],
    *[OpInfo(f"fft.{name}", _n_dim_samples(real, False), ref=_ref_nd(np_fn, False), op=_fft_fn(name), yaml=False,
             dtypes=FLOATING if real else (*FLOATING, *COMPLEX), atol=1e-4, rtol=1e-5)
      for name, (np_fn, real) in _N_D.items()],
    *[OpInfo(f"fft.{name[:-1]}2", _n_dim_samples(real, True), ref=_ref_nd(np_fn, True),
             op=_fft_fn(name[:-1] + "2"), yaml=False, dtypes=FLOATING if real else (*FLOATING, *COMPLEX),
             atol=1e-4, rtol=1e-5)
      for name, (np_fn, real) in _N_D.items()],
    OpInfo("fft.fftfreq", _freq_samples, ref=lambda n, d, dtype: np.fft.fftfreq(n, d), op=_freq_fn("fftfreq"),
           yaml=False, differentiable=False),
    OpInfo("fft.rfftfreq", _freq_samples, ref=lambda n, d, dtype: np.fft.rfftfreq(n, d), op=_freq_fn("rfftfreq"),
           yaml=False, differentiable=False),
    OpInfo("fft.fftshift", _shift_samples, ref=lambda x, dim=None: np.fft.fftshift(x, axes=dim),
           op=_fft_fn("fftshift"), yaml=False, dtypes=(*FLOATING, *COMPLEX)),
    OpInfo("fft.ifftshift", _shift_samples, ref=lambda x, dim=None: np.fft.ifftshift(x, axes=dim),
           op=_fft_fn("ifftshift"), yaml=False, dtypes=(*FLOATING, *COMPLEX)),
    OpInfo("stft", _stft_samples, ref=_np_stft, yaml=False, atol=1e-4, rtol=1e-5,
           op=lambda lib, x, w, **k: lib.stft(x, window=w, return_complex=True, **k)),
    OpInfo("istft", _istft_samples, yaml=False, dtypes=COMPLEX, atol=1e-4, rtol=1e-5,
           op=lambda lib, x, w, **k: lib.istft(x, window=w, **k)),
]

# No inf/NaN from the fuzz campaign (OpInfo.nonfinite): where a transform of non-finite input has
# NaN rather than inf depends on the FFT's order of operations, which differs between libraries.
OPS = [dataclasses.replace(info, nonfinite=False) for info in OPS]
