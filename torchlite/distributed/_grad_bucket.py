"""GradBucket: what DistributedDataParallel hands a communication hook (torch.distributed.GradBucket)."""

from __future__ import annotations

__all__ = ["GradBucket"]


class GradBucket:
    """One bucket of gradients: a flat buffer holding the gradients of some parameters, in
    bucket order. A hook reduces buffer() and returns a Future of the reduced tensor."""

    def __init__(self, index, buffer, gradients, parameters, is_last):
        self._index = index
        self._buffer = buffer
        self._gradients = gradients
        self._parameters = parameters
        self._is_last = is_last

    def index(self) -> int:
        return self._index

    def buffer(self):
        """The flattened gradients."""
        return self._buffer

    def gradients(self):
        """Each parameter's gradient, as a view into buffer()."""
        return list(self._gradients)

    def parameters(self):
        return list(self._parameters)

    def is_last(self) -> bool:
        """Whether this is the last bucket to be reduced in the iteration."""
        return self._is_last

    def set_buffer(self, buffer):
        """Replaces the bucket's buffer (its reduction result is read from the hook's Future)."""
        self._buffer = buffer
