"""Stochastic gradient descent (optionally with momentum, Nesterov momentum and weight decay)."""

from __future__ import annotations

from typing import Any

import torchlite as _tl
from torchlite import _C
from torchlite.optim.optimizer import Optimizer, _as_float, _check_no_differentiable, _use_grad

__all__ = ["SGD"]


class SGD(Optimizer):
    """Implements stochastic gradient descent, as torch.optim.SGD:

        g = grad (+ weight_decay * param);  buf = momentum * buf + (1 - dampening) * g
        g = g + momentum * buf (nesterov) or buf;  param -= lr * g

    The update of all parameters of a group is one `_fused_sgd_` call.
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if isinstance(lr, _tl.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            foreach=foreach,
            differentiable=differentiable,
            fused=fused,
        )
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        _check_no_differentiable(defaults)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    @_use_grad
    def step(self, closure: Any = None) -> Any:
        """Performs a single optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            params, grads = self._params_with_grad(group)
            if not params:
                continue
            momentum = group["momentum"]
            kwargs = dict(
                weight_decay=float(group["weight_decay"]),
                momentum=float(momentum),
                lr=_as_float(group["lr"]),
                dampening=float(group["dampening"]),
                nesterov=bool(group["nesterov"]),
                maximize=bool(group["maximize"]),
            )
            if momentum == 0:
                _C._fused_sgd_(params, grads, [], is_first_step=False, **kwargs)
                continue
            # Parameters seen before continue their buffer; new ones start it from their gradient.
            old_p, old_g, old_b, new_p, new_g, new_b = [], [], [], [], [], []
            for p, g in zip(params, grads):
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = _tl.empty_like(p)
                    state["momentum_buffer"] = buf
                    new_p.append(p), new_g.append(g), new_b.append(buf)
                else:
                    old_p.append(p), old_g.append(g), old_b.append(buf)
            if old_p:
                _C._fused_sgd_(old_p, old_g, old_b, is_first_step=False, **kwargs)
            if new_p:
                _C._fused_sgd_(new_p, new_g, new_b, is_first_step=True, **kwargs)
        self._run_post_hooks()
        return loss
