"""The hook-based weight normalization: `weight` recomputed as g * v / ||v|| before each forward
(PyTorch's torch.nn.utils.weight_norm, superseded by parametrizations.weight_norm)."""

import warnings

from torchlite._distance import norm_except_dim
from torchlite.nn.parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _weight_norm(v, g, dim=0):
    """PyTorch's torch._weight_norm: v scaled to norm g along every dimension but `dim` (-1: as a whole)."""
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that sets module.<name> from module.<name>_g and module.<name>_v."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Splits module.<name> into a magnitude <name>_g and a direction <name>_v (norm taken over all dims but
    `dim`; None: over the whole tensor), recombined before every forward."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Folds <name>_g and <name>_v back into one parameter <name> and removes the hook."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
