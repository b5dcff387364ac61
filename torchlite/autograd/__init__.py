"""torchlite.autograd: reverse-mode automatic differentiation (engine in C++).

backward() / grad() run the C++ engine (torchlite/csrc/autograd/engine.cpp) over the graph
of backward Nodes the generated autograd wrappers record.
"""

from torchlite import _C
from torchlite.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from torchlite.autograd.function import Function, FunctionCtx, NestedIOFunction, once_differentiable
from torchlite.autograd.grad_mode import (
    enable_grad,
    enforce_grad_layout_policy,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    is_multithreading_enabled,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)
from torchlite.autograd.gradcheck import gradcheck, gradgradcheck
from torchlite.autograd.graph import GradientEdge
from torchlite.autograd.variable import Variable

_ag = _C._autograd
Node = _ag.Node
SavedTensor = _ag.SavedTensor  # grad_fn._raw_saved_<name>: register_hooks(pack, unpack) on one saved tensor


def is_view_replay_enabled() -> bool:
    """Whether autograd replays view ops to rebuild views: never in torchlite (views keep their
    base and strides instead)."""
    return False


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, (_C.Tensor, GradientEdge)):
        return (x,)
    return tuple(x)


def _make_grads(outputs, grad_outputs):
    grads = list(_as_tuple(grad_outputs)) if grad_outputs is not None else []
    if grads and len(grads) != len(outputs):
        raise RuntimeError(f"grad_tensors should have the same length as tensors: got {len(grads)} and "
                           f"{len(outputs)}")
    if not grads:
        grads = [None] * len(outputs)
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if g is None and o.requires_grad and o.numel() != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        if isinstance(g, (int, float)):
            grads[i] = _C.tensor(g, dtype=o.dtype, device=o.device)
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulates gradients of `tensors` into the .grad of the leaves (or of `inputs`)."""
    if grad_variables is not None:
        grad_tensors = grad_variables
    tensors = _as_tuple(tensors)
    if inputs is not None and len(_as_tuple(inputs)) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    inputs = _as_tuple(inputs)
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(tensors, grad_tensors)
    _ag._run_backward(tensors, grads, retain_graph, create_graph, inputs, True, True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of `outputs` with respect to `inputs` (returned, not accumulated into .grad)."""
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("grad requires non-empty inputs.")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outputs, grad_outputs)
    result = _ag._run_backward(outputs, grads, retain_graph, create_graph, inputs, allow_unused, False)
    if materialize_grads:
        result = tuple(r if r is not None else _C.zeros_like(i) if hasattr(_C, "zeros_like")
                       else _C.empty_like(i).fill_(0) for r, i in zip(result, inputs))
    return tuple(result)


from torchlite.autograd import forward_ad, functional, graph  # noqa: E402  (they use grad and backward above)
from torchlite.autograd import profiler  # noqa: E402, F401  (torch.autograd.profiler)

__all__ = [
    "Function",
    "FunctionCtx",
    "NestedIOFunction",
    "Node",
    "SavedTensor",
    "Variable",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "enforce_grad_layout_policy",
    "forward_ad",
    "functional",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "is_multithreading_enabled",
    "is_view_replay_enabled",
    "no_grad",
    "once_differentiable",
    "set_detect_anomaly",
    "set_grad_enabled",
    "set_multithreading_enabled",
]
