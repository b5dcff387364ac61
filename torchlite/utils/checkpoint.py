"""torchlite.utils.checkpoint: activation checkpointing (PyTorch's torch.utils.checkpoint).

A checkpointed function keeps none of the tensors its operations save for backward; backward
runs it again to get them. Two ways, as in PyTorch:

- reentrant (use_reentrant=True): the function runs under no_grad inside an autograd.Function;
  that Function's backward reruns it with grad on and calls backward on the rerun graph.
- non-reentrant (use_reentrant=False): the function runs with grad on, so its graph is the real
  one, but under saved_tensors_hooks that keep a numbered placeholder in place of each saved
  tensor; the first unpack of a backward pass reruns the function under hooks that collect the
  saved tensors in the same order (Note [Checkpoint recomputation]).

Both restore the RNG and autocast state of the forward for the rerun, so dropout draws the same
mask.
"""

import contextlib
import warnings

import torchlite
from torchlite import _C
from torchlite._C import _autograd as _ag
from torchlite.autograd.function import Function
from torchlite.autograd.grad_mode import enable_grad, no_grad
from torchlite.autograd.graph import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "noop_context_fn",
           "detach_variable", "check_backward_validity"]

_DEFAULT_DETERMINISM_MODE = "default"
_DETERMINISM_MODES = ("default", "none")


class CheckpointError(RuntimeError):
    """The rerun of a checkpointed function did not save the tensors the first run saved."""


def noop_context_fn():
    """The default context_fn: no context around the forward nor around the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """The tuple `inputs` with each tensor detached, keeping its requires_grad."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if isinstance(inp, _C.Tensor):
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            inp = x
        out.append(inp)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, _C.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


class _ForwardState:
    """What a rerun must restore to compute what the forward computed: the RNG state (CPU, and the
    devices of the tensor arguments) and the autocast state."""

    def __init__(self, preserve_rng_state, args):
        devices = {a.device for a in args if isinstance(a, _C.Tensor) and not a.is_cpu}
        self.device_type = next(iter(devices)).type if devices else "cpu"
        self.autocast = {dt: (torchlite.is_autocast_enabled(dt), torchlite.get_autocast_dtype(dt))
                         for dt in {"cpu", self.device_type}}
        self.preserve_rng_state = preserve_rng_state
        # device generators are restored where the device module exposes their state (as fork_rng)
        get_state = getattr(getattr(torchlite, self.device_type, None), "get_rng_state", None)
        self.device_indices = sorted({d.index or 0 for d in devices}) if preserve_rng_state and get_state else []
        self.device_rng = [get_state(i) for i in self.device_indices]
        if preserve_rng_state:
            self.cpu_rng = torchlite.get_rng_state()

    @contextlib.contextmanager
    def restored(self):
        with torchlite.random.fork_rng(devices=self.device_indices, enabled=self.preserve_rng_state,
                                       device_type=self.device_type), contextlib.ExitStack() as stack:
            if self.preserve_rng_state:
                torchlite.set_rng_state(self.cpu_rng)
                device_module = getattr(torchlite, self.device_type, None)
                for i, state in zip(self.device_indices, self.device_rng):
                    device_module.set_rng_state(state, i)
            for dt, (enabled, dtype) in self.autocast.items():
                stack.enter_context(torchlite.autocast(dt, dtype=dtype, enabled=enabled))
            yield


class CheckpointFunction(Function):
    """The reentrant checkpoint: forward under no_grad, backward reruns and backpropagates."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.state = _ForwardState(preserve_rng_state, args)
        ctx.inputs = [None if isinstance(a, _C.Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_indices))
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grad_outputs):
        if not _ag._is_checkpoint_valid():
            raise RuntimeError("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                               "passing an `inputs` parameter to .backward(). To resolve this error, you can either "
                               "set use_reentrant=False, or call .backward() without passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with ctx.state.restored():
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, _C.Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if isinstance(o, _C.Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        torchlite.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, _C.Tensor) else None for x in detached)


class _StopRecomputation(Exception):
    pass


# Note [Checkpoint recomputation]: the forward's pack hook numbers the saved tensors (0, 1, ...)
# and records each one's shape, dtype and device. The first unpack of a backward pass reruns the
# function under a pack hook that stores its i-th saved tensor as number i (stopping after the
# last one with early_stop); each unpack takes its own, so the rerun's tensors live only until the
# node that needs them runs. A later backward pass over the same graph (retain_graph) reruns again.
class _CheckpointFrame:
    def __init__(self, function, args, kwargs, state, recompute_context, determinism_check, debug, early_stop):
        self.function, self.args, self.kwargs, self.state = function, args, kwargs, state
        self.recompute_context = recompute_context
        self.determinism_check, self.debug, self.early_stop = determinism_check, debug, early_stop
        self.metadata = []  # (shape, dtype, device) of each tensor the forward saved
        self.recomputed = {}  # graph task id -> {index: tensor}

    @staticmethod
    def _metadata(t):
        return tuple(t.shape), t.dtype, t.device

    def pack(self, tensor):
        self.metadata.append(self._metadata(tensor))
        return len(self.metadata) - 1

    def unpack(self, index):
        task = _ag._current_graph_task_id()
        if index not in self.recomputed.get(task, {}):
            self.recomputed[task] = self._recompute()
        found = self.recomputed[task]
        tensor = found.pop(index)
        if not found:
            del self.recomputed[task]
        return tensor

    def _recompute(self):
        found = {}
        seen = []

        def pack(tensor):
            i = len(seen)
            seen.append(self._metadata(tensor))
            if i < len(self.metadata) and self.determinism_check == "default" and seen[i] != self.metadata[i]:
                raise self._error(f"tensor at position {i}:\nsaved metadata: {self._describe(self.metadata[i])}\n"
                                  f"recomputed metadata: {self._describe(seen[i])}", seen)
            found[i] = tensor.detach()  # the rerun's graph is not needed: the forward's is used
            if self.early_stop and len(seen) == len(self.metadata):
                raise _StopRecomputation
            return None

        args = detach_variable(tuple(self.args))
        try:
            with self.state.restored(), enable_grad(), self.recompute_context, saved_tensors_hooks(pack, _no_unpack):
                self.function(*args, **self.kwargs)
        except _StopRecomputation:
            pass
        if len(seen) != len(self.metadata) and self.determinism_check == "default":
            raise self._error(f"Number of tensors saved during forward: {len(self.metadata)}\n"
                              f"Number of tensors saved during recomputation: {len(seen)}", seen)
        return found

    @staticmethod
    def _describe(meta):
        shape, dtype, device = meta
        return f"{{'shape': {torchlite.Size(shape)}, 'dtype': {dtype}, 'device': {device}}}"

    def _error(self, what, seen):
        msg = ("torch.utils.checkpoint: Recomputed values for the following tensors have different metadata than "
               f"during the forward pass.\n{what}\n")
        if self.debug:
            forward = "\n".join(map(self._describe, self.metadata))
            rerun = "\n".join(map(self._describe, seen))
            msg += f"\nTensors saved during the forward, in order:\n{forward}\nand during the recomputation:\n{rerun}\n"
        else:
            msg += "\nTo see the tensors saved by each run, pass debug=True to checkpoint.\n"
        return CheckpointError(msg)


def _no_unpack(_):
    raise CheckpointError("torch.utils.checkpoint: a tensor saved during recomputation was unpacked; backward through "
                          "the recomputed graph is not supported")


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check=_DEFAULT_DETERMINISM_MODE, debug=False, early_stop=True, **kwargs):
    """Runs function(*args, **kwargs) without keeping the tensors its operations save for backward;
    backward recomputes them by running the function again (with the forward's RNG state when
    preserve_rng_state=True, the default). See the module docstring for the two variants.

    >>> lin = torchlite.nn.Linear(3, 3); x = torchlite.ones(2, 3, requires_grad=True)
    >>> checkpoint(lin, x, use_reentrant=False).sum().backward(); x.grad.shape
    torchlite.Size([2, 3])
    """
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
                      "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
                      "two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if determinism_check not in _DETERMINISM_MODES:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM_MODES)}, but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    frame = _CheckpointFrame(function, args, kwargs, _ForwardState(preserve, args), recompute_context,
                             determinism_check, debug, early_stop)
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs the modules (or functions) of `functions` one after the other on `input`, split into
    `segments` chunks of which all but the last are checkpointed."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
                      "two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if isinstance(functions, torchlite.nn.Sequential):
        functions = list(functions.children())

    def run_segment(start, end):
        def forward(x):
            for f in functions[start:end]:
                x = f(x)
            return x

        return forward

    size = len(functions) // segments
    end = 0
    for start in range(0, size * (segments - 1), size):
        end = start + size
        input = checkpoint(run_segment(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_segment(end, len(functions))(input)
