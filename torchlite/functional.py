"""torchlite.functional: the variadic forms of PyTorch's top-level functions
(torch.functional), which take tensors as *args where the operators take a list."""

from torchlite import _C

__all__ = ["broadcast_tensors", "einsum", "meshgrid", "norm", "split"]


def einsum(*args):
    """einsum("ij,jk->ik", a, b), einsum("ij,jk->ik", [a, b]), or the sublist form
    einsum(a, [0, 1], b, [1, 2], [0, 2]) (subscripts 0-51, Ellipsis for `...`)."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = operands[0]
    else:
        operands = args[0::2][: len(args) // 2]
        terms = [_sublist_subscripts(s) for s in args[1::2]]
        equation = ",".join(terms)
        if len(args) % 2:
            equation += "->" + _sublist_subscripts(args[-1])
    return _C.einsum(equation, list(operands))


def _sublist_subscripts(sublist):
    """[0, 1, Ellipsis] -> "AB...": PyTorch's letters for sublist subscripts (0-25 A-Z, 26-51 a-z)."""
    out = ""
    for s in sublist:
        if s is Ellipsis:
            out += "..."
        elif isinstance(s, int) and 0 <= s < 52:
            out += chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26)
        else:
            raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")
    return out


def split(tensor, split_size_or_sections, dim=0):
    """Pieces of `tensor` along `dim`: of split_size_or_sections elements each (an int; the last
    may be smaller), or of the sizes it lists. Views of `tensor`.

    >>> torchlite.split(torchlite.arange(5), 2)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    """
    return tensor.split(split_size_or_sections, dim)


def broadcast_tensors(*tensors):
    """The tensors expanded (as views) to their common broadcast shape."""
    return tuple(_C.broadcast_tensors(list(tensors)))


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors; indexing 'ij' (the default) or 'xy'."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    return tuple(_C.meshgrid(list(tensors), indexing=indexing or "ij"))


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.norm: 'fro' (or None) is the 2-norm over `dim` (all dims by default), a number p the
    vector p-norm over `dim`; see torchlite.linalg for matrix norms."""
    if isinstance(dim, int):
        dim = (dim,)
    if p == "nuc":
        raise NotImplementedError("norm: the nuclear norm needs singular values, which torchlite lacks")
    ord = 2 if p in ("fro", None) else p
    if out is None:
        return _C._linalg.linalg_vector_norm(input, ord, dim, keepdim, dtype=dtype)
    return _C._linalg.linalg_vector_norm(input, ord, dim, keepdim, dtype=dtype, out=out)


def _tensor_norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    return norm(self, p, dim, keepdim, dtype=dtype)


_C.Tensor.norm = _tensor_norm  # torch.Tensor.norm is torch.norm
