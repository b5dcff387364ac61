"""torchlite.Size: the type of Tensor.shape, a tuple of ints (as torch.Size)."""


class Size(tuple):
    __slots__ = ()

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self) -> str:
        return f"torchlite.Size([{', '.join(str(s) for s in self)}])"

    def __getitem__(self, key):
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    # concatenation and repetition stay a Size, as torch.Size's do (shape + (n,) is a shape)
    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(other + tuple(self))

    def __mul__(self, n):
        out = tuple.__mul__(self, n)
        return out if out is NotImplemented else Size(out)

    __rmul__ = __mul__
