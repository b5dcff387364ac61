"""torchlite.fft: PyTorch's torch.fft over three FFT primitives (native_functions.yaml,
"spectral"): _fft_c2c (complex to complex), _fft_r2c (real to onesided complex) and _fft_c2r
(onesided Hermitian complex to real). As in PyTorch, each function resizes its input to the
requested signal sizes (trimming or zero-padding), promotes integer and bool inputs to the
default float dtype (complex for c2c), maps `norm` to the primitives' normalization mode and
calls one or two primitives. Gradients come from the primitives' formulas.
"""

import sys

import torchlite as _tl
from torchlite import _C
from torchlite._dtype_info import cpp_dtype_name as _dtype_name
from torchlite.overrides import _make_overridable

__all__ = [
    "fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "hfft2", "hfftn", "ifft", "ifft2", "ifftn",
    "ifftshift", "ihfft", "ihfft2", "ihfftn", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq",
    "rfftn",
]

Tensor = _C.Tensor  # torch.fft.Tensor: PyTorch's module exposes the class too

_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2  # the primitives' normalization modes


def _norm_mode(norm, forward):
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promote(x, require_complex):
    """PyTorch's promote_tensor_fft: integers and bool become the default float dtype, then
    complex when the transform needs it; Half (and other dtypes) have no FFT."""
    dtype = x.dtype
    if dtype in (_tl.float16, _tl.bfloat16) and _C._autocast_is_enabled(x.device):
        x, dtype = x.float(), _tl.float32  # autocast's fp32 policy, which PyTorch gives every FFT (CPU)
    if not (dtype.is_floating_point or dtype.is_complex):
        x = x.to(_tl.get_default_dtype())
    elif dtype not in (_tl.float32, _tl.float64, _tl.complex64, _tl.complex128):
        raise RuntimeError(f"Unsupported dtype {_dtype_name(dtype)}")
    if require_complex and not x.dtype.is_complex:
        x = x.to(_tl.complex64 if x.dtype == _tl.float32 else _tl.complex128)
    return x


def _require_real(name, x):
    if x.dtype.is_complex:
        raise RuntimeError(f"{name} expects a real input tensor, but got {_dtype_name(x.dtype)}")
    return _promote(x, False)


def _check_points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _resize(x, dims, sizes):
    """x trimmed or zero-padded to sizes[i] along dims[i] (PyTorch's resize_fft_input)."""
    pad = [0] * (2 * x.dim())
    must_pad = False
    for d, n in zip(dims, sizes):
        cur = x.shape[d]
        if n < cur:
            x = x.narrow(d, 0, n)
        elif n > cur:
            pad[2 * (x.dim() - 1 - d) + 1] = n - cur
            must_pad = True
    return _C.constant_pad_nd(x, pad) if must_pad else x


def _canonical_dims(x, s, dim, default_dim=None):
    """(dims, sizes) for an n-dimensional transform: PyTorch's canonicalize_fft_shape_and_dim_args."""
    ndim = x.dim()
    if dim is None and default_dim is not None:
        dim = default_dim
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        dims = [_wrap(d, ndim) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = list(s)
        if dim is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
        if dim is None:
            dims = list(range(ndim - len(s), ndim))
        sizes = [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
        for n in sizes:
            _check_points(n)
    else:
        if dim is None:
            dims = list(range(ndim))
        sizes = [x.shape[d] for d in dims]
    return dims, sizes


def _wrap(d, ndim):
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -ndim <= d < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
    return d % ndim


def _one_dim(x, n, dim):
    d = _wrap(dim, x.dim())
    if n is not None:
        _check_points(n)
    return d, (x.shape[d] if n is None else n)


def _finish(result, out):
    if out is None:
        return result
    out.resize_(result.shape)
    return out.copy_(result)


# ---- complex to complex ----------------------------------------------------------------------------


def _c2c(x, dims, sizes, norm, forward, out):
    x = _resize(_promote(x, True), dims, sizes)
    mode = _norm_mode(norm, forward)
    if out is None:
        return _C._fft_c2c(x, dims, mode, forward)
    return _C._fft_c2c(x, dims, mode, forward, out=out)


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    d, size = _one_dim(input, n, dim)
    return _c2c(input, [d], [size], norm, True, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    d, size = _one_dim(input, n, dim)
    return _c2c(input, [d], [size], norm, False, out)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    dims, sizes = _canonical_dims(input, s, dim)
    return _c2c(input, dims, sizes, norm, True, out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    dims, sizes = _canonical_dims(input, s, dim)
    return _c2c(input, dims, sizes, norm, False, out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return fftn(input, s, dim, norm, out=out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return ifftn(input, s, dim, norm, out=out)


# ---- real to onesided complex, and back ------------------------------------------------------------


def _r2c(name, x, dims, sizes, norm, forward):
    """The onesided transform of real x; forward=False is ihfft's: the conjugate of the transform,
    with the inverse's normalization."""
    x = _resize(_require_real(name, x), dims, sizes)
    mode = _norm_mode(norm, forward)
    result = _C._fft_r2c(x, dims[-1:], mode, True)
    if len(dims) > 1:
        result = _C._fft_c2c(result, dims[:-1], mode, True)
    return result if forward else result.conj()


def _c2r(x, dims, sizes, last_size, norm, forward):
    """The real signal of length last_size along dims[-1] whose onesided spectrum is x; forward=True
    is hfft's: the same of the conjugate input, with the forward transform's normalization."""
    x = _promote(x, True)
    x = _resize(x, dims, [*sizes[:-1], last_size // 2 + 1])
    mode = _norm_mode(norm, forward)
    if forward:
        x = x.conj()
    if len(dims) > 1:
        x = _C._fft_c2c(x, dims[:-1], mode, False)
    return _C._fft_c2r(x, dims[-1:], mode, last_size)


def _last_size(x, dims, s):
    """irfft's output length along the last dim: s's last entry, else 2 * (m - 1)."""
    if s is not None and s[-1] != -1:
        return s[-1]
    n = 2 * (x.shape[dims[-1]] - 1)
    _check_points(n)
    return n


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    d, size = _one_dim(input, n, dim)
    return _finish(_r2c("rfft", input, [d], [size], norm, True), out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    d, size = _one_dim(input, n, dim)
    return _finish(_r2c("ihfft", input, [d], [size], norm, False), out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    dims, sizes = _canonical_dims(input, s, dim)
    return _finish(_r2c("rfftn", input, dims, sizes, norm, True), out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    dims, sizes = _canonical_dims(input, s, dim)
    return _finish(_r2c("ihfftn", input, dims, sizes, norm, False), out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return rfftn(input, s, dim, norm, out=out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return ihfftn(input, s, dim, norm, out=out)


def _c2r_1d(input, n, dim, norm, forward, out):
    d, _ = _one_dim(input, n, dim)
    last = _last_size(input, [d], None if n is None else [n])
    return _finish(_c2r(input, [d], [last], last, norm, forward), out)


def _c2r_nd(input, s, dim, norm, forward, out):
    dims, sizes = _canonical_dims(input, s, dim)
    last = _last_size(input, dims, s)
    return _finish(_c2r(input, dims, sizes, last, norm, forward), out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _c2r_1d(input, n, dim, norm, False, out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _c2r_1d(input, n, dim, norm, True, out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _c2r_nd(input, s, dim, norm, False, out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _c2r_nd(input, s, dim, norm, True, out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return irfftn(input, s, dim, norm, out=out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return hfftn(input, s, dim, norm, out=out)


# ---- frequencies and shifts ------------------------------------------------------------------------


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=_tl.strided, device=None, requires_grad=False):
    """The sample frequencies [0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (d * n)."""
    result = _C.arange(n, dtype=dtype or _tl.get_default_dtype(), device=device)
    result = _C.cat([result[: (n + 1) // 2], result[(n + 1) // 2:] - n]) * (1.0 / (n * d))
    return _freq_result(result, out, requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=_tl.strided, device=None, requires_grad=False):
    """The sample frequencies [0, 1, ..., n//2] / (d * n) of rfft."""
    result = _C.arange(n // 2 + 1, dtype=dtype or _tl.get_default_dtype(), device=device) * (1.0 / (n * d))
    return _freq_result(result, out, requires_grad)


def _freq_result(result, out, requires_grad):
    result = _finish(result, out)
    return result.requires_grad_(True) if requires_grad else result


def _shift(input, dim, shift_of):
    if dim is None:
        dims = list(range(input.dim()))
    else:
        dims = [_wrap(d, input.dim()) for d in ((dim,) if isinstance(dim, int) else dim)]
    if not dims:
        return input.clone()
    return _C.roll(input, [shift_of(input.shape[d]) for d in dims], dims)


def fftshift(input, dim=None):
    """Moves the zero-frequency term to the centre: a roll by n // 2 along each dim."""
    return _shift(input, dim, lambda n: n // 2)


def ifftshift(input, dim=None):
    """The inverse of fftshift: a roll by (n + 1) // 2 along each dim."""
    return _shift(input, dim, lambda n: (n + 1) // 2)


# These functions, written in Python, honour __torch_function__ as the generated operators do.
_make_overridable(globals(), [sys.modules[__name__]])
