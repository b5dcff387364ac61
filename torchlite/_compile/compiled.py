"""What `torchlite.compile` returns: capture with fx, guard, fuse, run.

Guards: a call's key is, per positional argument, the tensor's dtype, exact shape, device and
requires_grad (or the value of a plain Python argument), with grad mode and whether the
module's parameters require grad. A new key re-traces and re-fuses; the generated C++ does not
depend on sizes, so a new shape of the same chain reuses the built library (in memory and on
disk) and costs only the trace.
"""

import warnings

import torchlite
from torchlite._compile.fusion import NEEDS_GRAD, DeviceShapeProp, fuse_graph
from torchlite.nn import Module

__all__ = ["CompiledFunction", "OptimizedModule", "BACKENDS"]

BACKENDS = ("inductor", "eager", "aot_eager")
RECOMPILE_LIMIT = 8  # torch._dynamo.config.recompile_limit's default


class _Entry:
    """One guard key's compiled graph and what explain() reports about it."""

    def __init__(self, gm, regions, breaks, cached):
        # gm: what runs for this key; cached: whether its library came from the disk cache
        self.gm, self.regions, self.breaks, self.cached = gm, regions, breaks, cached


class CompiledFunction:
    """fn run through fused kernels. Autograd: a value that needs a gradient is computed by the
    eager operators (fused forward with eager backward is not done yet), so gradients are eager's."""

    def __init__(self, fn, backend="inductor", fullgraph=False, recompile_limit=None):
        self._fn = fn
        self._backend = backend
        self._fullgraph = fullgraph
        self._limit = RECOMPILE_LIMIT if recompile_limit is None else recompile_limit
        self._cache = {}
        self._eager_reason = None  # why everything runs eagerly (a graph break for the whole callable)
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)
        self.__doc__ = getattr(fn, "__doc__", None)

    def _key(self, args):
        key = [torchlite.is_grad_enabled()]
        if isinstance(self._fn, Module):
            key.append(any(p.requires_grad for p in self._fn.parameters()))
        for a in args:
            if isinstance(a, torchlite.Tensor):
                key.append((a.dtype, tuple(a.shape), a.device.type, a.requires_grad))
            else:
                try:
                    hash(a)
                except TypeError:
                    return None
                key.append((type(a), a))
        return tuple(key)

    def __call__(self, *args, **kwargs):
        if self._eager_reason is not None or kwargs:
            return self._fn(*args, **kwargs)
        key = self._key(args)
        entry = self._cache.get(key) if key is not None else None
        if entry is not None:
            return entry.gm(*args)
        if key is None or len(self._cache) >= self._limit:
            self._break_all("recompile limit reached" if key is not None else "an argument cannot be guarded")
            return self._fn(*args)
        try:
            gm = torchlite.fx.symbolic_trace(self._fn)
        except Exception as e:  # noqa: BLE001 (any failure of capture means: run eagerly)
            if self._fullgraph:
                raise RuntimeError(f"torchlite.compile(fullgraph=True) could not capture {self.__name__}: {e}") from e
            self._break_all(f"capture failed ({type(e).__name__}: {e})")
            return self._fn(*args)
        result = DeviceShapeProp(gm).propagate(*args)  # this call's result, computed eagerly
        regions, breaks, cached = [], [], None
        if callable(self._backend):  # PyTorch's custom backend protocol
            gm = self._backend(gm, list(args))
        elif self._backend == "inductor":
            try:
                regions, breaks, cached = fuse_graph(gm)
            except (OSError, RuntimeError) as e:  # no C++ compiler, or it failed: gm is left unfused
                warnings.warn(f"torchlite.compile: fused kernels unavailable, {self.__name__} runs its graph "
                              f"eagerly: {e}", stacklevel=2)
        self._cache[key] = _Entry(gm, regions, breaks, cached)
        return result

    def _break_all(self, reason):
        self._eager_reason = reason
        warnings.warn(f"torchlite.compile: {reason}; {self.__name__} runs eagerly (a graph break for the whole "
                      "callable)", stacklevel=3)

    def explain(self):
        """A report of every compiled guard key: its fused regions and its graph breaks."""
        if self._eager_reason is not None:
            return f"{self.__name__}: runs eagerly: {self._eager_reason}\n"
        lines = [f"{self.__name__}: {len(self._cache)} graph(s) compiled"]
        for key, entry in self._cache.items():
            shapes = [k[1] for k in key if isinstance(k, tuple) and len(k) == 4]
            lines.append(f"graph for input shapes {shapes}: {len(entry.regions)} fused region(s), "
                         f"{len(entry.breaks)} graph break(s)")
            lines += [f"  {r.describe()}" for r in entry.regions]
            grad = sum(why == NEEDS_GRAD for _, why in entry.breaks)
            if grad:
                lines.append(f"  autograd: {grad} pointwise op(s) need gradients and run eagerly, forward and "
                             "backward (no fused backward is generated)")
            lines += [f"  break: {n.format_node()}  ({why})" for n, why in entry.breaks]
        return "\n".join(lines) + "\n"


class OptimizedModule(Module):
    """A compiled Module: the original is `_orig_mod` (its parameters, state_dict keys prefixed
    `_orig_mod.`, as in PyTorch); calls go through the compiled forward."""

    def __init__(self, mod, compiled):
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, "_compiled", compiled)

    def forward(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def explain(self):
        return self._compiled.explain()
