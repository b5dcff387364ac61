"""The Optimizer base class: parameter groups, per-parameter state and PyTorch's state_dict format.

Subclasses gather, per parameter group, the parameters that have a gradient and their state, and
hand the lists to one multi-tensor kernel (`torchlite._C._fused_<name>_`, Note [Fused optimizer
kernels] in native_functions.yaml): one pass over memory per parameter and step.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

import torchlite as _tl
from torchlite import _C
from torchlite.utils.hooks import RemovableHandle

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj: Any) -> str:
    if isinstance(obj, _tl.Tensor):
        return "torchlite.Tensor"
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


def _use_grad(step: Callable) -> Callable:
    """Runs an optimizer's step under no_grad (the closure, if any, runs with grad enabled)."""

    @functools.wraps(step)
    def wrapper(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        with _tl.no_grad():
            return step(self, *args, **kwargs)

    return wrapper


def _scalar_dtype() -> Any:
    return _tl.float64 if _tl.get_default_dtype() == _tl.float64 else _tl.float32


def _new_scalar(value: float) -> Any:
    """A 0-dim state tensor of PyTorch's scalar dtype (step counters, ASGD's eta/mu, NAdam's mu_product)."""
    return _tl.tensor(float(value), dtype=_scalar_dtype())


def _new_step() -> Any:
    """The per-parameter step counter PyTorch keeps in the state: a 0-dim float tensor."""
    return _new_scalar(0.0)


def _as_float(v: Any, name: str = "lr") -> float:
    if isinstance(v, _tl.Tensor):
        if v.numel() != 1:
            raise ValueError(f"Tensor {name} must be 1-element")
        return float(v.item())
    return float(v)


# The hook tables of an optimizer: step, state_dict and load_state_dict, each before and after.
_HOOK_TABLES = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
               "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
               "_optimizer_load_state_dict_post_hooks")


class Optimizer:
    """Base class for all optimizers.

    Args:
        params: an iterable of Tensors, or of dicts each defining a parameter group
            (a "params" entry plus options that override `defaults` for that group).
        defaults: default values of the optimization options.
    """

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        for table in _HOOK_TABLES:
            setattr(self, table, OrderedDict())
        self._opt_called = False
        if isinstance(params, _tl.Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                f"but got {_typename(params)}"
            )
        self.state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(dict(group))

    # -- groups -------------------------------------------------------------------------------
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a parameter group; its options not given take the optimizer's defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {_typename(param_group)}")
        params = param_group["params"]
        if isinstance(params, _tl.Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of tensors "
                "in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        # Named parameters (model.named_parameters()): keep the names under 'param_names'.
        tensors, names = [], []
        for p in param_group["params"]:
            if isinstance(p, tuple):
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for p in param_group["params"]:
            if not isinstance(p, _tl.Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {_typename(p)}")
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or getattr(p, "retains_grad", False)):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this will cause an "
                "error; see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # -- gradients ----------------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets the gradients of all optimized tensors (to None by default, else to zero)."""
        to_zero = []
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if g.grad_fn is not None:
                        g = g.detach()
                        p.grad = g
                    else:
                        g.requires_grad_(False)
                    to_zero.append(g)
        if to_zero:
            _C._foreach_zero_(to_zero)

    # -- stepping -----------------------------------------------------------------------------
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        raise NotImplementedError

    def _run_closure(self, closure: Callable[[], Any] | None) -> Any:
        self._opt_called = True
        for hook in list(self._optimizer_step_pre_hooks.values()):
            result = hook(self, (), {})
            if result is not None:
                raise RuntimeError("optimizer step pre-hooks returning new arguments are not supported")
        if closure is None:
            return None
        with _tl.enable_grad():
            return closure()

    def _run_post_hooks(self) -> None:
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, (), {})

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """hook(optimizer, args, kwargs) runs before each step."""
        return self._add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """hook(optimizer, args, kwargs) runs after each step."""
        return self._add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """hook(optimizer) runs before state_dict() builds its dict."""
        return self._add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """hook(optimizer, state_dict) -> None or a dict that replaces it, after state_dict() built it."""
        return self._add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """hook(optimizer, state_dict) -> None or a dict to load instead, before load_state_dict()."""
        return self._add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """hook(optimizer) runs after load_state_dict() has loaded."""
        return self._add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def _add_hook(self, table: OrderedDict, hook: Callable, prepend: bool = False) -> RemovableHandle:
        handle = RemovableHandle(table)
        table[handle.id] = hook
        if prepend:
            table.move_to_end(handle.id, last=False)
        return handle

    # -- state_dict ---------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """{'state': {index: per-parameter state}, 'param_groups': [{..., 'params': [indices]}]}.

        Parameters are numbered in the order they appear across the groups, as PyTorch does; the
        state tensors are the optimizer's own (not copies)."""
        for hook in list(self._optimizer_state_dict_pre_hooks.values()):
            hook(self)
        mapping: dict[int, int] = {}
        start = 0

        def pack(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(mapping[id(k)] if isinstance(k, _tl.Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": state, "param_groups": groups}
        for hook in list(self._optimizer_state_dict_post_hooks.values()):
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _cast_state_value(param: Any, value: Any, key: Any = None) -> Any:
        """State tensors follow their parameter's dtype and device; 'step' keeps its own dtype."""
        if isinstance(value, _tl.Tensor):
            if key == "step":
                return value
            if param.is_floating_point():
                return value.to(dtype=param.dtype, device=param.device)
            return value.to(device=param.device)
        if isinstance(value, dict):
            return {k: Optimizer._cast_state_value(param, v, key=k) for k, v in value.items()}
        if isinstance(value, Iterable) and not isinstance(value, str | bytes):
            return type(value)(Optimizer._cast_state_value(param, v) for v in value)
        return value

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a state_dict() of an optimizer with the same parameter-group structure."""
        state_dict = dict(state_dict)
        for hook in list(self._optimizer_load_state_dict_pre_hooks.values()):
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = list(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        param_lens = (len(g["params"]) for g in groups)
        saved_lens = (len(g["params"]) for g in saved_groups)
        if any(p_len != s_len for p_len, s_len in zip(param_lens, saved_lens)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )
        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = self._cast_state_value(param, v)
            else:
                state[k] = v
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            new_group = dict(saved)
            new_group["params"] = group["params"]
            new_groups.append(new_group)
        self.state = state
        self.param_groups = new_groups
        for hook in list(self._optimizer_load_state_dict_post_hooks.values()):
            hook(self)

    # -- misc ---------------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for table in _HOOK_TABLES:
            self.__dict__.setdefault(table, OrderedDict())
        self.__dict__.setdefault("_opt_called", False)

    def __repr__(self) -> str:
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)

    # -- helpers for subclasses ---------------------------------------------------------------
    def _params_with_grad(self, group: dict[str, Any]) -> tuple[list[Any], list[Any]]:
        params, grads = [], []
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            params.append(p)
            grads.append(g)
        return params, grads


def _check_args(
    lr: Any,
    *,
    eps: float | None = None,
    betas: tuple[Any, Any] | None = None,
    weight_decay: float | None = None,
) -> None:
    """The option checks most optimizers share, with PyTorch's messages."""
    if isinstance(lr, _tl.Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps is not None and not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if betas is not None:
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
    if weight_decay is not None and not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _signed_grad(param: Any, grad: Any, maximize: bool, weight_decay: float = 0.0) -> Any:
    """The gradient an update follows: negated for maximize, plus weight_decay * param (L2 penalty)."""
    if maximize:
        grad = -grad
    if weight_decay != 0:
        grad = grad.add(param, alpha=weight_decay)
    return grad


def _check_no_differentiable(defaults: dict[str, Any]) -> None:
    if defaults.get("differentiable"):
        raise RuntimeError("torchlite optimizers do not support differentiable=True")


class _ElementwiseOptimizer(Optimizer):
    """An optimizer whose update treats each parameter on its own: `step` creates a parameter's
    state on its first gradient (`_init_state`), then applies `_update` to every parameter that has
    a gradient, in group order, as PyTorch's single-tensor path does; for a group with
    foreach=True, subclasses with a multi-tensor kernel update all its parameters in one call of
    it instead (`_foreach_update`)."""

    # The multi-tensor kernel foreach=True calls (Note [Fused optimizer kernels]): its name in _C
    # and the state entries it takes, as lists after the params and grads; `_fused_options(group)`
    # gives its keyword options. None: foreach=True runs the per-parameter path.
    _fused_kernel: str | None = None
    _fused_state: tuple[str, ...] = ()

    def _init_state(self, param: Any, group: dict[str, Any], state: dict[str, Any]) -> None:
        raise NotImplementedError

    def _update(self, param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        raise NotImplementedError

    def _fused_options(self, group: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _foreach_update(
        self, params: list[Any], grads: list[Any], states: list[dict[str, Any]], group: dict[str, Any]
    ) -> None:
        _C._foreach_add_([s["step"] for s in states], 1)
        kernel = getattr(_C, self._fused_kernel)
        kernel(params, grads, *([s[key] for s in states] for key in self._fused_state), **self._fused_options(group))

    @_use_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Performs a single optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            params, grads = self._params_with_grad(group)
            states = []
            for p in params:
                if p.is_complex():
                    raise RuntimeError(f"{type(self).__name__} does not support complex parameters in torchlite")
                state = self.state[p]
                if len(state) == 0:
                    self._init_state(p, group, state)
                states.append(state)
            if self._fused_kernel and group.get("foreach") and params:
                self._foreach_update(params, grads, states, group)
            else:
                for p, g, state in zip(params, grads, states):
                    self._update(p, g, state, group)
        self._run_post_hooks()
        return loss
