"""LinearCrossEntropyOptions: the settings PyTorch's chunked linear_cross_entropy takes.

torchlite validates them as PyTorch does and keeps them for interchange, but always computes the
reference result (linear, then cross_entropy): the chunking is a memory optimisation of PyTorch's
that does not change the value.
"""

import dataclasses

from torchlite import _C

__all__ = ["LinearCrossEntropyOptions"]

_ACC_POLICIES = {"auto", "accurate", "balanced", "compact"}


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """allow_retain_graph, batch_chunk_size (rows per chunk, None for one chunk), chunking_method
    ("auto", "aspect_ratio" or "aspect_ratio:N", None to use batch_chunk_size), acc_policy
    ("auto", "accurate", "balanced", "compact") and acc_dtype (None or a floating dtype)."""

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: _C.dtype | None = None

    def __post_init__(self):
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            factor = factor if sep else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None
                or (isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in (_C.float16, _C.bfloat16, _C.float32, _C.float64):
            raise ValueError("acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, "
                             f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick "
                             "automatically.")
