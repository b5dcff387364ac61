"""How tensors cross processes: by a handle on their shared memory, not by their bytes.

The reduction registered with multiprocessing's ForkingPickler (what Queue, Pipe, Pool and
Process arguments pickle with) moves a CPU tensor's storage into shared memory in place (Note
[Shared memory storages] in aten/core/SharedMemory.h) and sends a duplicate of its memfd; the
receiver maps the same pages, so both processes see each other's writes, as with PyTorch's
file_descriptor strategy. Plain pickle.dumps still copies the data (Tensor.__reduce_ex__).
"""

import pickle
from multiprocessing.reduction import DupFd, ForkingPickler

from torchlite import _C
from torchlite.nn.parameter import Parameter

__all__ = ["init_reductions", "reduce_tensor", "rebuild_tensor"]


def rebuild_tensor(cls, fd_handle, nbytes, dtype, size, stride, storage_offset, requires_grad):
    """The receiving side of reduce_tensor: a tensor of class `cls` over the shared memory."""
    t = _C._tensor_from_shared_fd(fd_handle.detach(), nbytes, dtype, size, stride, storage_offset)
    if cls is not _C.Tensor:
        return _C.Tensor._make_subclass(cls, t, requires_grad)
    return t.requires_grad_(requires_grad)


def reduce_tensor(tensor):
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does "
                           "not support crossing process boundaries.  If you just want to transfer the data, call "
                           "detach() on the tensor before serializing (e.g., putting it on the queue).")
    if not tensor.is_cpu:  # no CUDA IPC: a CUDA tensor travels as a copy of its data
        return tensor.__reduce_ex__(pickle.HIGHEST_PROTOCOL)
    tensor.share_memory_()
    return rebuild_tensor, (type(tensor), DupFd(tensor._shared_fd()), tensor._storage_nbytes(), tensor.dtype,
                            tuple(tensor.shape), tensor.stride(), tensor.storage_offset(), tensor.requires_grad)


def init_reductions():
    """Registers reduce_tensor with ForkingPickler for torchlite's tensor classes."""
    for cls in (_C.Tensor, Parameter):
        ForkingPickler.register(cls, reduce_tensor)
