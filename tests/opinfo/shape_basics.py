"""Registry entries: views, reshapes, joins and splits, copies and conversions."""

import numpy as np

import torchlite as tl
from opinfo.core import FLOATING, OpInfo, SampleInput, rand

WITH_INT = (*FLOATING, tl.int64)


def _x(*shapes, contiguous_only=False):
    def samples(dtype, rng):
        for s in shapes:
            yield SampleInput((rand(s, dtype, rng),), noncontiguous=not contiguous_only)
    return samples


def _method(name, *args, **kwargs):
    return lambda lib, x: getattr(x, name)(*args, **kwargs)


def _shape_op(name, call, ref, shapes=((2, 3, 4),), contiguous_only=False, **kw):
    return OpInfo(name, _x(*shapes, contiguous_only=contiguous_only), op=call, ref=ref, dtypes=WITH_INT, **kw)


def _two(shape_a, shape_b):
    def samples(dtype, rng):
        yield SampleInput((rand(shape_a, dtype, rng), rand(shape_b, dtype, rng)))
    return samples


def _list_samples(shapes_list, dim_first=False):
    def samples(dtype, rng):
        for shapes, dim in shapes_list:
            yield SampleInput(([rand(s, dtype, rng) for s in shapes], dim))
    return samples


def _copy(lib, dst, src):
    return dst.clone().copy_(src)


OPS = [
    _shape_op("view", _method("view", 3, 8), lambda x: x.reshape(3, 8), contiguous_only=True),
    _shape_op("view_as", lambda lib, x: x.view(-1).view_as(x.view(4, 6)), lambda x: x.reshape(4, 6),
              contiguous_only=True),
    _shape_op("reshape", _method("reshape", 4, -1), lambda x: x.reshape(4, -1)),
    _shape_op("flatten", _method("flatten", 1), lambda x: x.reshape(2, 12)),
    _shape_op("unflatten", _method("unflatten", 2, (2, 2)), lambda x: x.reshape(2, 3, 2, 2)),
    _shape_op("permute", _method("permute", 2, 0, 1), lambda x: x.transpose(2, 0, 1)),
    _shape_op("transpose", _method("transpose", 0, 2), lambda x: np.swapaxes(x, 0, 2)),
    _shape_op("swapaxes", _method("swapaxes", 0, 1), lambda x: np.swapaxes(x, 0, 1)),
    _shape_op("swapdims", _method("swapdims", -1, 1), lambda x: np.swapaxes(x, -1, 1)),
    _shape_op("t", _method("t"), lambda x: x.T, shapes=((2, 3), (3,))),
    _shape_op("movedim", _method("movedim", 0, -1), lambda x: np.moveaxis(x, 0, -1)),
    _shape_op("moveaxis", _method("moveaxis", (0, 1), (2, 0)), lambda x: np.moveaxis(x, (0, 1), (2, 0))),
    _shape_op("squeeze", lambda lib, x: (x.squeeze(), x.squeeze(1), x.squeeze((0, 2))),
              lambda x: (x.squeeze(), x.squeeze(1), x.squeeze((0, 2))), shapes=((1, 1, 1, 3),)),
    _shape_op("unsqueeze", _method("unsqueeze", -2), lambda x: np.expand_dims(x, -2)),
    _shape_op("expand", _method("expand", 2, -1, 4), lambda x: np.broadcast_to(x, (2, 3, 4)), shapes=((3, 1),)),
    OpInfo("expand_as", _two((3, 1), (2, 3, 4)), op=lambda lib, x, y: x.expand_as(y),
           ref=lambda x, y: np.broadcast_to(x, y.shape), grad_args=(0,)),
    _shape_op("narrow", _method("narrow", 1, 1, 2), lambda x: x[:, 1:3]),
    _shape_op("select", lambda lib, x: x[:, -1], lambda x: x[:, -1], covers=("select_backward",)),
    _shape_op("slice", lambda lib, x: x[:, 1::2, :3], lambda x: x[:, 1::2, :3], covers=("slice_backward",)),
    _shape_op("as_strided", _method("as_strided", (2, 2), (1, 3), 1), lambda x: np.lib.stride_tricks.as_strided(
        x.ravel()[1:], (2, 2), (x.itemsize, 3 * x.itemsize)), shapes=((2, 3),), contiguous_only=True),
    _shape_op("chunk", _method("chunk", 2, 1), lambda x: tuple(np.array_split(x, 2, 1))),
    _shape_op("split", lambda lib, x: (x.split(2, 1), lib.split(x, [1, 3], -1),
                                       lib.split(tensor=x, split_size_or_sections=2, dim=1)),
              lambda x: (tuple(np.split(x, [2], 1)), tuple(np.split(x, [1], -1)), tuple(np.split(x, [2], 1))),
              covers=("split_with_sizes",)),
    _shape_op("unbind", _method("unbind", 1), lambda x: tuple(np.moveaxis(x, 1, 0))),
    OpInfo("cat", _list_samples([([(2, 3), (1, 3)], 0), ([(2, 1), (2, 3)], -1), ([(2, 3), (0, 3)], 0)]),
           ref=lambda ts, dim: np.concatenate(ts, dim), dtypes=WITH_INT, supports_out=True),
    OpInfo("stack", _list_samples([([(2, 3), (2, 3)], 0), ([(2,), (2,), (2,)], 1)]),
           ref=lambda ts, dim: np.stack(ts, dim), dtypes=WITH_INT, supports_out=True),
    _shape_op("clone", _method("clone"), np.copy),
    _shape_op("contiguous", lambda lib, x: x.contiguous(), lambda x: np.ascontiguousarray(x).reshape(x.shape)),  # 0-d stays 0-d
    _shape_op("detach", _method("detach"), np.copy, differentiable=False),
    OpInfo("copy", _two((2, 3), (3,)), op=_copy, ref=lambda d, s: np.broadcast_to(s, d.shape), dtypes=WITH_INT),
    # (float32 round trips are left to tests/test_tensor_core.py: finite differences need float64)
    _shape_op("to", lambda lib, x: (x.to(lib.float64), x.to(x), x.to(str(x.device)), x.to(x.dtype, copy=True)),
              lambda x: (x.astype(np.float64), x, x, x)),
    OpInfo("type_as", _two((2, 3), (2,)), op=lambda lib, x, y: x.type_as(y), ref=lambda x, y: x.astype(y.dtype),
           grad_args=(0,)),
]
