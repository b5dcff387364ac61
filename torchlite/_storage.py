"""Tensor.untyped_storage() and Tensor.storage(): read-only handles on the memory a tensor views.

They answer what programs ask of a storage (its address and size, whether two tensors share it,
whether it is in shared memory, its elements) and can move it into shared memory, but cannot be
passed back to torchlite to build tensors: torchlite's factories and set_ take tensors, not
storages.
"""

import warnings

from torchlite import _C

Tensor = _C.Tensor


class _StorageBase:
    def __init__(self, tensor):
        # every element of the storage, in the tensor's dtype, from its start
        n = tensor._storage_nbytes() // tensor.element_size()
        self._elements = tensor.detach().as_strided((n,), (1,), 0)

    @property
    def device(self):
        return self._elements.device

    def data_ptr(self):
        """The address of the storage's first byte."""
        return self._elements.data_ptr()

    def nbytes(self):
        """The storage's size in bytes."""
        return self._elements.numel() * self._elements.element_size()

    def __len__(self):
        return self.size()

    def is_shared(self):
        return self._elements.is_shared()

    def share_memory_(self):
        """Moves the storage into shared memory in place (every tensor viewing it follows)."""
        self._elements.share_memory_()
        return self

    def is_pinned(self, device=None):
        return False

    def __eq__(self, other):
        # PyTorch compares storages by identity; two handles on one memory block are the same storage here
        return type(other) is type(self) and other._elements._shares_storage(self._elements)

    def __hash__(self):
        return self._elements._storage_id()


class UntypedStorage(_StorageBase):
    """The bytes of a storage (Tensor.untyped_storage())."""

    def _bytes(self):
        return self._elements.numpy(force=True).view("uint8")

    def size(self):
        return self.nbytes()

    def element_size(self):
        return 1

    def __getitem__(self, i):
        return int(self._bytes()[i])

    def tolist(self):
        return self._bytes().tolist()

    def __repr__(self):
        return f"{self.tolist()}\n[torchlite.storage.UntypedStorage(device={self.device}) of size {self.size()}]"


class TypedStorage(_StorageBase):
    """The elements of a storage in a dtype (Tensor.storage(), deprecated in PyTorch)."""

    @property
    def dtype(self):
        return self._elements.dtype

    def size(self):
        return self._elements.numel()

    def element_size(self):
        return self._elements.element_size()

    def __getitem__(self, i):
        return self._elements[i].item()

    def tolist(self):
        return self._elements.tolist()

    def untyped(self):
        return UntypedStorage(self._elements)

    def __repr__(self):
        return (f"{self.tolist()}\n[torchlite.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size "
                f"{self.size()}]")


def _untyped_storage(self):
    """x.untyped_storage(): a read-only handle on the bytes of the memory x views (see torchlite/_storage.py).

    >>> a = torchlite.zeros(4); a[1:].untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
    True
    """
    return UntypedStorage(self)


def _storage(self):
    """x.storage(): deprecated; a read-only handle on the memory x views, as elements of x's dtype."""
    warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
                  "storage class. This should only matter to you if you are using storages directly.  To access "
                  "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()", UserWarning,
                  stacklevel=2)
    return TypedStorage(self)


Tensor.untyped_storage = _untyped_storage
Tensor.storage = _storage
