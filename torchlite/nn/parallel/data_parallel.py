"""DataParallel / data_parallel.

Without a GPU, DataParallel runs the wrapped module as it is (PyTorch does the same); with GPUs
the module lives on device_ids[0] and the inputs are moved there. torchlite does not split a
batch across several GPUs: with more than one device id, the whole batch runs on the first (the
result is the same, computed on one device), and a warning says so once.
"""

import warnings
from itertools import chain

from torchlite import _C, cuda
from torchlite.nn.modules.module import Module

__all__ = ["DataParallel", "data_parallel"]

_warned_single_device = False


def _device_index(device):
    if isinstance(device, int):
        return device
    device = _C.device(device)
    if device.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {device}")
    return 0 if device.index is None else device.index


def _resolve_devices(device_ids, output_device):
    if device_ids is None:
        device_ids = list(range(cuda.device_count()))
    if not device_ids:
        raise RuntimeError("no available devices were found")
    device_ids = [_device_index(d) for d in device_ids]
    output_device = device_ids[0] if output_device is None else _device_index(output_device)
    if len(device_ids) > 1:
        global _warned_single_device
        if not _warned_single_device:
            warnings.warn("torchlite's DataParallel does not split batches across GPUs: the module runs on "
                          f"cuda:{device_ids[0]} only", stacklevel=3)
            _warned_single_device = True
    return device_ids, output_device


def _to_device(obj, device):
    """obj with every tensor in it (through tuples, lists and dicts) moved to device."""
    if isinstance(obj, _C.Tensor):
        return obj.to(device)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # namedtuple
        return type(obj)(*(_to_device(o, device) for o in obj))
    if isinstance(obj, (tuple, list)):
        return type(obj)(_to_device(o, device) for o in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _to_device(v, device)) for k, v in obj.items())
    return obj


def _check_module_device(module, device):
    for t in chain(module.parameters(), module.buffers()):
        if t.device != device:
            raise RuntimeError(f"module must have its parameters and buffers on device {device} (device_ids[0]) "
                               f"but found one of them on device: {t.device}")


class DataParallel(Module):
    """Wraps `module` (as `self.module`, so state_dict keys gain a `module.` prefix) to run on the
    GPUs in device_ids; on a machine without GPUs it calls the module unchanged."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not cuda.is_available():
            self.module = module
            self.device_ids = []
            return
        self.dim = dim
        self.module = module
        self.device_ids, self.output_device = _resolve_devices(device_ids, output_device)
        self.src_device_obj = _C.device("cuda", self.device_ids[0])
        self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        _check_module_device(self.module, self.src_device_obj)
        out = self.module(*_to_device(inputs, self.src_device_obj), **_to_device(kwargs, self.src_device_obj))
        return _to_device(out, _C.device("cuda", self.output_device))


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """The functional DataParallel: module(*inputs, **module_kwargs) on device_ids[0], whose device must
    hold the module's parameters and buffers; the result on output_device. Needs a GPU, as in PyTorch."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    if not cuda.is_available():
        raise RuntimeError("device type could not be determined")
    device_ids, output_device = _resolve_devices(device_ids, output_device)
    device = _C.device("cuda", device_ids[0])
    _check_module_device(module, device)
    out = module(*_to_device(inputs, device), **_to_device(module_kwargs or {}, device))
    return _to_device(out, _C.device("cuda", output_device))
