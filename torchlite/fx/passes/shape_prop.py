"""ShapeProp: run a GraphModule on example inputs and record each node's tensor metadata."""

from typing import Any, NamedTuple

import torchlite
from torchlite.fx.interpreter import Interpreter
from torchlite.fx.node import map_aggregate

__all__ = ["ShapeProp", "TensorMetadata"]


class TensorMetadata(NamedTuple):
    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple
    memory_format: Any
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result, include_contiguity=True):
    memory_format = None
    if include_contiguity:
        for query_format in (torchlite.contiguous_format, torchlite.channels_last, torchlite.channels_last_3d):
            if result.is_contiguous(memory_format=query_format):
                memory_format = query_format
                break
    # torchlite has no quantized tensors
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, result.stride(), memory_format, False, {})


class ShapeProp(Interpreter):
    """`ShapeProp(gm).propagate(*inputs)` runs gm and stores, on every node that produced
    tensors, node.meta['tensor_meta'] (a TensorMetadata, or the same nesting of them as the
    node's value) and node.meta['type'].
    """

    def __init__(self, gm, fake_mode=None):
        if fake_mode is not None:
            raise NotImplementedError("ShapeProp: torchlite has no fake tensors; run it on real example inputs")
        super().__init__(gm)

    def run_node(self, n):
        result = super().run_node(n)
        found_tensor = False

        def extract_tensor_meta(obj):
            nonlocal found_tensor
            if isinstance(obj, torchlite.Tensor):
                found_tensor = True
                return _extract_tensor_metadata(obj)
            return obj
        meta = map_aggregate(result, extract_tensor_meta)
        if found_tensor:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        """Runs the module on args, recording the metadata; returns its output."""
        return super().run(*args)
