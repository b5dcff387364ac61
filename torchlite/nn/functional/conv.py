"""torchlite.nn.functional: convolutions.

The convolutions are the generated operators; fold/unfold are compositions."""

from torchlite import _C
from torchlite.nn.modules.utils import _pair

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "conv_tbc", "fold",
           "unfold", "assert_int_or_pair"]


# As in PyTorch, the operators themselves (each with its padding="same"/"valid" overload).
conv1d = _C.conv1d
conv_tbc = _C.conv_tbc
conv2d = _C.conv2d
conv3d = _C.conv3d
conv_transpose1d = _C.conv_transpose1d
conv_transpose2d = _C.conv_transpose2d
conv_transpose3d = _C.conv_transpose3d


def _blocks(size, kernel, dilation, padding, stride):
    """Sliding blocks along each of the two spatial dims."""
    return [(size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(2)]


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: the sliding kernel_size blocks of a (N, C, H, W) or (C, H, W) input as the columns
    of a (N, C * kh * kw, L) tensor, L the number of blocks (row-major over the output grid)."""
    k, d, p, s = (_pair(v) for v in (kernel_size, dilation, padding, stride))
    if input.dim() not in (3, 4):
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    oh, ow = _blocks(x.shape[2:], k, d, p, s)
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input with spatial size {tuple(x.shape[2:])}, kernel_size={k}, dilation={d}, "
                           f"padding={p}, calculated shape of the array of sliding blocks as ({oh}, {ow}), but its "
                           "components must be at least one.")
    x = _C.constant_pad_nd(x, [p[1], p[1], p[0], p[0]], 0)
    # windows of the dilated extent, then every d-th element of each: (N, C, oh, ow, kh, kw)
    blocks = x.unfold(2, d[0] * (k[0] - 1) + 1, s[0]).unfold(3, d[1] * (k[1] - 1) + 1, s[1])[..., ::d[0], ::d[1]]
    n, c = x.shape[:2]
    cols = blocks.permute(0, 1, 4, 5, 2, 3).reshape(n, c * k[0] * k[1], oh * ow)
    return cols if batched else cols.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, the adjoint of unfold: the columns of a (N, C * kh * kw, L) or (C * kh * kw, L)
    input summed back into a (N, C, *output_size) image (overlapping blocks add up)."""
    size, k, d, p, s = (_pair(v) for v in (output_size, kernel_size, dilation, padding, stride))
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                           f"(got {input.dim()}D)")
    batched = input.dim() == 3
    cols = input if batched else input.unsqueeze(0)
    window = k[0] * k[1]
    if cols.shape[1] % window:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={cols.shape[1]} and kernel_size={k}.")
    oh, ow = _blocks(size, k, d, p, s)
    if cols.shape[2] != oh * ow:
        raise RuntimeError(f"Given output_size={size}, kernel_size={k}, dilation={d}, padding={p}, stride={s}, "
                           f"expected size of input's dimension 2 to match the calculated number of sliding blocks "
                           f"{oh} * {ow} = {oh * ow}, but got input.size(2)={cols.shape[2]}.")
    n, c = cols.shape[0], cols.shape[1] // window
    hp, wp = size[0] + 2 * p[0], size[1] + 2 * p[1]
    # Where each column entry lands in the padded plane: unfold applied to the plane's positions.
    where = unfold(_C.arange(hp * wp, dtype=_C.float64, device=input.device).reshape(1, 1, hp, wp), k, d, 0, s)
    out = _C.zeros((n, c, hp * wp), dtype=input.dtype, device=input.device)
    out = out.index_add(2, where.reshape(-1).to(_C.int64), cols.reshape(n, c, window * oh * ow))
    out = out.reshape(n, c, hp, wp)[:, :, p[0]:p[0] + size[0], p[1]:p[1] + size[1]]
    return out if batched else out.squeeze(0)


def assert_int_or_pair(arg, arg_name, message):
    """AssertionError(message.format(arg_name)) unless arg is an int or has two elements."""
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))
