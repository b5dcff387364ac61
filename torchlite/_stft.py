"""torch.stft and torch.istft (and the Tensor methods), composed from torchlite.fft: frames
are a strided view (Tensor.unfold) times the window, transformed along their last dim;
istft inverts each frame and overlap-adds them (index_add), dividing by the summed squared
window as PyTorch does."""

import torchlite as _tl
from torchlite import _C, fft as _fft
from torchlite._C import Tensor
from torchlite.nn import functional as _F

__all__ = ["istft", "stft"]


def _window(window, n_fft, win_length, like):
    """The window, zero-padded on both sides to n_fft (rectangular when None)."""
    if window is None:
        window = _tl.ones(win_length, dtype=like.dtype if like.dtype.is_floating_point else _tl.get_default_dtype(),
                          device=like.device)
    elif window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length={win_length}, but got "
                           f"window with size {list(window.shape)}")
    left = (n_fft - win_length) // 2
    return _C.constant_pad_nd(window, [left, n_fft - win_length - left]) if left or win_length < n_fft else window


def _lengths(n_fft, hop_length, win_length):
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if hop_length <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop_length}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win_length}")
    return hop_length, win_length


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """Short-time Fourier transform: (..., L) -> (..., n_fft // 2 + 1 or n_fft, n_frames)."""
    if return_complex is None:
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                           "require that return_complex=True in a future PyTorch release.")
    if align_to_window:
        raise NotImplementedError("stft: align_to_window=True is not supported by torchlite")
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.dim()}D tensor")
    hop_length, win_length = _lengths(n_fft, hop_length, win_length)
    x = input.unsqueeze(0) if input.dim() == 1 else input
    if center:
        pad = n_fft // 2
        x = _F.pad(x.unsqueeze(1), [pad, pad], mode=pad_mode).squeeze(1)
    length = x.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    win = _window(window, n_fft, win_length, x)
    frames = x.unfold(-1, n_fft, hop_length) * win  # (B, n_frames, n_fft)
    if onesided is None:
        onesided = not (frames.is_complex())
    norm = "ortho" if normalized else "backward"
    if onesided:
        if frames.is_complex():
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        spec = _fft.rfft(frames, dim=-1, norm=norm)
    else:
        spec = _fft.fft(frames, dim=-1, norm=norm)
    spec = spec.transpose(-1, -2)
    if input.dim() == 1:
        spec = spec.squeeze(0)
    return spec if return_complex else _C.view_as_real(spec.contiguous())


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """The inverse of stft: overlap-add of the inverse transforms of the frames."""
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex, but got {input.dim()}")
    hop_length, win_length = _lengths(n_fft, hop_length, win_length)
    spec = (input.unsqueeze(0) if input.dim() == 2 else input).transpose(-1, -2)  # (B, n_frames, fft_size)
    fft_size = spec.shape[-1]
    if onesided is None:
        onesided = fft_size != n_fft
    if onesided and fft_size != n_fft // 2 + 1:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = _fft.ifft(spec, n=n_fft, dim=-1, norm=norm)
    else:
        frames = _fft.irfft(spec if onesided else spec.narrow(-1, 0, n_fft // 2 + 1), n=n_fft, dim=-1, norm=norm)
    win = _window(window, n_fft, win_length, frames.real if frames.is_complex() else frames)
    frames = frames * win
    n_frames = frames.shape[1]
    total = n_fft + hop_length * (n_frames - 1)
    device = frames.device
    starts = _tl.arange(n_frames, device=device).unsqueeze(1) * hop_length
    index = (starts + _tl.arange(n_fft, device=device)).reshape(-1)
    y = _tl.zeros(frames.shape[0], total, dtype=frames.dtype, device=device).index_add(
        1, index, frames.reshape(frames.shape[0], -1))
    envelope = _tl.zeros(total, dtype=win.dtype, device=device).index_add(
        0, index, (win * win.conj()).real.repeat(n_frames))
    start = n_fft // 2 if center else 0
    end = total - (n_fft // 2 if center else 0)
    if length is not None:
        end = start + length
    y, envelope = y[:, start:end], envelope[start:end]
    if envelope.numel() and float(envelope.abs().min()) < 1e-11:
        raise RuntimeError("istft(...): window overlap add min: " + f"{float(envelope.abs().min()):g}")
    y = y / envelope
    if length is not None and y.shape[-1] < length:
        y = _C.constant_pad_nd(y, [0, length - y.shape[-1]])
    return y.squeeze(0) if input.dim() == 2 else y


def _stft_method(self, *args, **kwargs):
    return stft(self, *args, **kwargs)


def _istft_method(self, *args, **kwargs):
    return istft(self, *args, **kwargs)


_stft_method.__doc__ = "x.stft(...): torchlite.stft(x, ...)."
_istft_method.__doc__ = "x.istft(...): torchlite.istft(x, ...)."
Tensor.stft = _stft_method
Tensor.istft = _istft_method
