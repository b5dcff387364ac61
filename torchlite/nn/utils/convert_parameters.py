"""Flattening parameters into one vector and back."""

from torchlite import _C
from torchlite._C import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param, old_param_device):
    device = param.get_device() if param.is_cuda else -1
    if old_param_device is not None and device != old_param_device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return device


def parameters_to_vector(parameters):
    """One 1-D tensor holding all parameters, flattened, in order."""
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.reshape(-1))
    return _C.cat(vec)


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of `vec` into the parameters' data (the inverse of parameters_to_vector)."""
    if not isinstance(vec, Tensor):
        from torchlite.nn.modules.module import _typename

        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param
