"""The standard DDP communication hooks: hook(process_group, bucket) -> Future of the averaged
bucket. Register one with ddp.register_comm_hook(process_group, hook) (None: the default group)."""

from __future__ import annotations

import torchlite
import torchlite.distributed as dist

__all__ = ["allreduce_hook", "bf16_compress_hook", "fp16_compress_hook"]


def _group(process_group):
    return dist.group.WORLD if process_group is None else process_group


def allreduce_hook(process_group, bucket):
    """Averages the bucket by an all-reduce, as DDP does without a hook."""
    group = _group(process_group)
    tensor = bucket.buffer()
    tensor.div_(group.size())  # before the sum, so that low-precision buffers do not overflow
    return dist.all_reduce(tensor, group=group, async_op=True).get_future().then(lambda fut: fut.value()[0])


def _compress_hook(dtype, process_group, bucket):
    group = _group(process_group)
    buffer = bucket.buffer()
    compressed = buffer.to(dtype).div_(group.size())

    def decompress(fut):
        buffer.copy_(fut.value()[0])  # in place: no second full-precision buffer
        return buffer
    return dist.all_reduce(compressed, group=group, async_op=True).get_future().then(decompress)


def fp16_compress_hook(process_group, bucket):
    """Averages the bucket in float16 (half the bytes on the wire), then casts back."""
    return _compress_hook(torchlite.float16, process_group, bucket)


def bf16_compress_hook(process_group, bucket):
    """Averages the bucket in bfloat16, then casts back."""
    return _compress_hook(torchlite.bfloat16, process_group, bucket)
