"""torchlite.nn: modules, parameters, initialisation and utilities (PyTorch's torch.nn)."""

from torchlite.nn import functional, init  # noqa: F401
from torchlite.nn.modules import *  # noqa: F401, F403
from torchlite.nn.modules.module import Module  # noqa: F401
from torchlite.nn.parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from torchlite.nn import parallel, utils  # noqa: F401, E402
from torchlite.nn.parallel import DataParallel  # noqa: F401, E402


def factory_kwargs(kwargs):
    """The device/dtype/memory_format keywords of `kwargs` (merged with its nested "factory_kwargs"
    dict) as one dict; TypeError on any other key or on a key given twice."""
    if kwargs is None:
        return {}
    simple = {"device", "dtype", "memory_format"}
    unexpected = kwargs.keys() - simple - {"factory_kwargs"}
    if unexpected:
        raise TypeError(f"unexpected kwargs {unexpected}")
    result = dict(kwargs.get("factory_kwargs", {}))
    for key in simple & kwargs.keys():
        if key in result:
            raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
        result[key] = kwargs[key]
    return result
