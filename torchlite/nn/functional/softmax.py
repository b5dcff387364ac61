"""torchlite.nn.functional: softmax, softmin, log_softmax and gumbel_softmax."""

import warnings

from torchlite import _C

__all__ = ["gumbel_softmax", "log_softmax", "softmax", "softmin"]


def _get_softmax_dim(name, ndim, stacklevel):
    # PyTorch's legacy rule for dim=None: dim 0 for 0-, 1- and 3-d inputs, else dim 1.
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. "
                  "Change the call to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return _C.softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return _C.softmax(-input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _C.log_softmax(input, dim, dtype=dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax (Concrete) distribution over `dim`: softmax((logits + g) / tau)
    with g ~ Gumbel(0, 1). hard=True returns the one-hot of the sample's argmax in the forward pass
    and the soft sample's gradient in the backward pass (straight-through). eps is unused, as in
    PyTorch."""
    gumbels = _C.empty_like(logits).exponential_().log().neg()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = _C.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
