"""torchlite.jit: `trace` captures a function or Module with torchlite.fx and returns the
GraphModule; there is no TorchScript, so `script` raises.

Unlike torch.jit.trace, the capture is symbolic: Python control flow that depends on tensor
values cannot be captured (it raises torchlite.fx's TraceError) instead of being frozen at the
branch the example inputs took.
"""

import torchlite
from torchlite.fx import symbolic_trace
from torchlite.fx.node import map_aggregate

__all__ = ["TracingCheckError", "script", "trace"]


class TracingCheckError(Exception):
    """The traced function's output differs from the original's on the check inputs."""


def _as_tuple(inputs):
    return inputs if isinstance(inputs, tuple) else (inputs,)


def _check_same_outputs(func, traced, args, kwargs, tolerance):
    expected, actual = [], []
    map_aggregate(func(*args, **kwargs), expected.append)
    map_aggregate(traced(*args, **kwargs), actual.append)
    if len(expected) != len(actual):
        raise TracingCheckError("Graphs differed across invocations: the traced function returns a different "
                                "structure than the Python function")
    for e, a in zip(expected, actual):
        if isinstance(e, torchlite.Tensor):
            if not (isinstance(a, torchlite.Tensor) and e.shape == a.shape
                    and torchlite.allclose(a, e, rtol=tolerance, atol=tolerance, equal_nan=True)):
                raise TracingCheckError("Trace had nondeterministic nodes or differs from the Python function: "
                                        "the outputs are not close")
        elif e != a:
            raise TracingCheckError(f"Traced output {a!r} differs from the Python function's {e!r}")


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-05,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None, example_kwarg_inputs=None,
          _store_inputs=True):
    """Captures func (a function or Module) as a torchlite.fx.GraphModule, a callable with the
    same inputs and outputs. With check_trace, the capture is run beside func on the example
    inputs (and each of check_inputs) and must give the same outputs within check_tolerance.
    `optimize`, `strict` and the underscored parameters exist for compatibility and change
    nothing.
    """
    if not callable(func):
        raise TypeError(f"torchlite.jit.trace expects a function or Module, got {type(func).__name__}")
    if example_inputs is None and example_kwarg_inputs is None:
        raise RuntimeError("example_kwarg_inputs and example_inputs shouldn't both be None")
    if example_kwarg_inputs is not None and not isinstance(example_kwarg_inputs, dict):
        raise RuntimeError("example_kwarg_inputs should be a dict")
    traced = symbolic_trace(func)
    if check_trace:
        runs = [_as_tuple(i) for i in check_inputs] if check_inputs else \
            [_as_tuple(example_inputs) if example_inputs is not None else ()]
        for args in runs:
            _check_same_outputs(func, traced, args, example_kwarg_inputs or {}, check_tolerance)
    return traced


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Not supported: torchlite has no TorchScript compiler."""
    raise NotImplementedError("torchlite.jit.script is not supported: torchlite has no TorchScript compiler. "
                              "Use torchlite.jit.trace (or torchlite.fx.symbolic_trace) to capture a graph.")
