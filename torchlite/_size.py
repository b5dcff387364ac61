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
