"""The hook-based spectral normalization: `weight` recomputed as weight_orig / sigma before each
forward, sigma estimated by power iteration on the buffers weight_u, weight_v (PyTorch's
torch.nn.utils.spectral_norm, superseded by parametrizations.spectral_norm)."""

from torchlite import _C
from torchlite.autograd.grad_mode import no_grad
from torchlite.nn import functional as F
from torchlite.nn.modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from torchlite.nn.parameter import Parameter

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


def _check_n_power_iterations(n_power_iterations):
    if n_power_iterations <= 0:
        raise ValueError("Expected n_power_iterations to be positive, but got "
                         f"n_power_iterations={n_power_iterations}")


def _default_dim(module, dim):
    """ConvTranspose weights hold output channels in dim 1; every other module's in dim 0."""
    if dim is not None:
        return dim
    return 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0


def _weight_matrix(weight, dim):
    """`weight` as a matrix whose rows run along `dim`."""
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.dim()) if d != dim))
    return weight.reshape(weight.size(0), -1)


class SpectralNorm:
    """The forward pre-hook that sets module.<name> = <name>_orig / sigma."""

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        _check_n_power_iterations(n_power_iterations)
        self.name = name
        self.dim = dim
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        return _weight_matrix(weight, self.dim)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            # u and v are updated in place (they are the buffers); the clones keep the values this
            # forward's backward saw from being overwritten by the next one.
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v = F.normalize(_C.mv(weight_mat.t(), u), dim=0, eps=self.eps, out=v)
                    u = F.normalize(_C.mv(weight_mat, v), dim=0, eps=self.eps, out=u)
                u = u.clone()
                v = v.clone()
        sigma = _C.dot(u, _C.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        # a plain attribute until the first forward computes it (it is not in the state_dict)
        setattr(module, name, weight.data)
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divides module.<name> by its spectral norm (largest singular value), estimated by
    n_power_iterations steps of power iteration per training forward."""
    SpectralNorm.apply(module, name, n_power_iterations, _default_dim(module, dim), eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Makes module.<name> a plain parameter again, holding its current normalized value."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
