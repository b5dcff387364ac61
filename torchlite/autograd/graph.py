"""torchlite.autograd.graph: the backward graph seen from Python.

Nodes (grad_fn objects) are C++ (torchlite/csrc/autograd/function.h); this module adds what
PyTorch's torch.autograd.graph offers around them: gradient edges, multi-tensor gradient hooks,
and the saved tensors hooks that the C++ SavedVariable calls (Note [Saved tensor hooks]) and
allow_mutation_on_saved_tensors, built on them.
"""

import abc
import collections
import contextlib
import functools
import threading
import weakref
from typing import NamedTuple

from torchlite import _C
from torchlite._C import _autograd as _ag
from torchlite.autograd.grad_mode import enable_grad
from torchlite.utils.hooks import RemovableHandle

__all__ = [
    "saved_tensors_hooks",
    "save_on_cpu",
    "disable_saved_tensors_hooks",
    "register_multi_grad_hook",
    "Node",
    "GradientEdge",
    "get_gradient_edge",
    "increment_version",
    "allow_mutation_on_saved_tensors",
    "region_activation_memory_budget",
    "set_warn_on_accumulate_grad_stream_mismatch",
    "set_override_stale_capture_stream",
]


class Node(abc.ABC):
    """The abstract type of grad_fn objects: isinstance(t.grad_fn, Node) holds for every node the
    C++ autograd makes (name(), next_functions, metadata, register_hook, register_prehook)."""

    @abc.abstractmethod
    def name(self) -> str:
        raise NotImplementedError

    @property
    @abc.abstractmethod
    def next_functions(self):
        raise NotImplementedError

    @property
    @abc.abstractmethod
    def metadata(self) -> dict:
        raise NotImplementedError

    @abc.abstractmethod
    def register_hook(self, fn):
        raise NotImplementedError

    @abc.abstractmethod
    def register_prehook(self, fn):
        raise NotImplementedError

    @classmethod
    def __subclasshook__(cls, subclass):
        if cls is Node and issubclass(subclass, _ag.Node):
            return True
        return NotImplemented


def _grad_fn_or_grad_acc(t):
    if isinstance(t, GradientEdge):
        return t.node
    if t.requires_grad and t.grad_fn is None:
        # A leaf's node is its AccumulateGrad, the first input of any op on it.
        with enable_grad():
            return t.view_as(t).grad_fn.next_functions[0][0]
    return t.grad_fn


class GradientEdge(NamedTuple):
    """Where the gradient of a tensor is computed: input `output_nr` of `node`. Accepted by
    autograd.grad as an input in place of the tensor."""

    node: Node
    output_nr: int
    ownership_token: Node | None = None


def get_gradient_edge(tensor):
    """The GradientEdge of `tensor`; grad(loss, get_gradient_edge(x)) equals grad(loss, x)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    return GradientEdge(_grad_fn_or_grad_acc(tensor), tensor.output_nr)


def increment_version(tensor):
    """Bumps the version counter of `tensor` (or of each tensor of an iterable), as an in-place
    change that autograd did not see would: a backward that saved it then refuses to run."""
    _ag._increment_version((tensor,) if isinstance(tensor, _C.Tensor) else tuple(tensor))


class saved_tensors_hooks:
    """saved_tensors_hooks(pack_hook, unpack_hook): inside the block, every tensor an operation
    saves for backward is passed to pack_hook(tensor) and the graph keeps what it returns;
    backward gets the tensor back as unpack_hook(packed). The innermost block wins."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _ag._push_saved_tensors_default_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _ag._pop_saved_tensors_default_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and moved back to their device for backward
    (pin_memory: stage them in pinned memory, when the device is available)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        device_module = getattr(_C, device_type, None)

        def pack_to_cpu(tensor):
            if not pin_memory:
                return tensor.device, tensor.cpu()
            pinnable = device_module is not None and device_module.is_available()
            packed = _C.empty(tensor.size(), dtype=tensor.dtype, pin_memory=pinnable)
            packed.copy_(tensor, non_blocking=pinnable)
            return tensor.device, packed

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Inside the block, using saved tensors hooks raises RuntimeError(error_message)."""
    prev = _ag._saved_tensors_hooks_get_disabled_error_message()
    try:
        _ag._saved_tensors_hooks_disable(error_message)
        yield
    finally:
        if prev is None:
            _ag._saved_tensors_hooks_enable()
        else:
            _ag._saved_tensors_hooks_disable(prev)


class _MultiHandle(RemovableHandle):
    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Calls `fn` once per backward pass over several tensors. mode "all": after the gradients of
    all those the pass computes, with the list of them (None for the others); mode "any": on the
    first gradient computed, with it."""
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    lock = threading.Lock()
    if mode == "all":
        grad_fns = [_grad_fn_or_grad_acc(t) for t in tensors]
        buffers = {}  # per backward pass: [gradients, calls still expected]

        def inner_hook(idx, grad):
            task = _ag._current_graph_task_id()
            with lock:
                if task not in buffers:
                    expected = sum(map(_ag._will_engine_execute_node, grad_fns))
                    buffers[task] = [[None] * len(grad_fns), expected]
                state = buffers[task]
                state[0][idx] = grad
                state[1] -= 1
                done = state[1] == 0
                if done:
                    del buffers[task]
            if done:
                fn(state[0])

        handles = tuple(t.register_hook(functools.partial(inner_hook, i)) for i, t in enumerate(tensors))
    else:
        ran = collections.defaultdict(bool)

        @functools.wraps(fn)
        def wrapped_fn(grad):
            task = _ag._current_graph_task_id()
            with lock:
                first, ran[task] = not ran[task], True
            if first:
                fn(grad)

        handles = tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)


def region_activation_memory_budget(budget):
    """Sets the activation memory budget of a region compiled by torch.compile's partitioner.
    torchlite.compile runs models eagerly, so (as PyTorch outside a compiled region) a valid
    budget raises RuntimeError."""
    if isinstance(budget, bool) or not isinstance(budget, (int, float)):
        raise TypeError("torch.autograd.graph.region_activation_memory_budget: expects a float, got "
                        f"{type(budget).__name__}")
    if not 0.0 <= budget <= 1.0:
        raise ValueError(f"torch.autograd.graph.region_activation_memory_budget: must be in [0, 1], got {budget}")
    raise RuntimeError("torch.autograd.graph.region_activation_memory_budget can only be used inside a torch.compile "
                       "region; it has no effect in eager mode.")


def set_warn_on_accumulate_grad_stream_mismatch(enabled: bool) -> None:
    """Accepted for compatibility: torchlite's engine runs every Node on the current stream, so
    an AccumulateGrad never sees a gradient from another stream to warn about."""


def set_override_stale_capture_stream(enabled: bool) -> None:
    """Accepted for compatibility: torchlite's autograd records no streams, so none can be stale
    during a CUDA graph capture."""


class _Handle:
    """What the graph keeps for a tensor saved under allow_mutation_on_saved_tensors."""


class _AllowMutationOnSavedContext:
    """The state of an allow_mutation_on_saved_tensors block: a copy of each tensor saved in it,
    held as long as the graph holds its handle."""

    def __init__(self):
        self.copies = weakref.WeakKeyDictionary()

    def clear(self):
        self.copies.clear()


_allow_mutation_on_saved_tensors_enabled = False


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Inside the block, tensors saved for backward may be modified in place afterwards: backward
    uses their values at the time they were saved. torchlite copies each saved tensor when it is
    saved (PyTorch copies it on its first in-place change). Run forward and backward inside the
    same block; yields the block's state, cleared on exit."""
    global _allow_mutation_on_saved_tensors_enabled
    ctx = _AllowMutationOnSavedContext()

    def pack(tensor):
        handle = _Handle()
        ctx.copies[handle] = tensor.clone()
        return handle

    def unpack(handle):
        if not _allow_mutation_on_saved_tensors_enabled or handle not in ctx.copies:
            raise AssertionError("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                                 "in which the graph was originally recorded.")
        return ctx.copies[handle]

    with saved_tensors_hooks(pack, unpack):
        try:
            if _allow_mutation_on_saved_tensors_enabled:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _allow_mutation_on_saved_tensors_enabled = True
            yield ctx
        finally:
            ctx.clear()
            _allow_mutation_on_saved_tensors_enabled = False
