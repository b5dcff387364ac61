"""RMSprop (optionally centered, with momentum)."""

from __future__ import annotations

from typing import Any

import torchlite as _tl
from torchlite import _C
from torchlite.optim.optimizer import Optimizer, _as_float, _check_no_differentiable, _new_step, _use_grad

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Implements RMSprop, as torch.optim.RMSprop:

        v = alpha * v + (1 - alpha) * g * g;  avg = sqrt(v - lerp(m, g, 1 - alpha)^2 if centered else v) + eps
        buf = momentum * buf + g / avg; param -= lr * buf   (param -= lr * g / avg without momentum)

    The update of all parameters of a group is one `_fused_rmsprop_` call.
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if isinstance(lr, _tl.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=weight_decay,
            capturable=capturable,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
        )
        _check_no_differentiable(defaults)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)

    @_use_grad
    def step(self, closure: Any = None) -> Any:
        """Performs a single optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            params, grads = self._params_with_grad(group)
            if not params:
                continue
            momentum, centered = group["momentum"], group["centered"]
            square_avgs, grad_avgs, bufs, steps = [], [], [], []
            for p in params:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _new_step()
                    state["square_avg"] = _tl.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = _tl.zeros_like(p)
                    if centered:
                        state["grad_avg"] = _tl.zeros_like(p)
                if momentum > 0 and "momentum_buffer" not in state:
                    state["momentum_buffer"] = _tl.zeros_like(p)
                if centered and "grad_avg" not in state:
                    state["grad_avg"] = _tl.zeros_like(p)
                square_avgs.append(state["square_avg"])
                if momentum > 0:
                    bufs.append(state["momentum_buffer"])
                if centered:
                    grad_avgs.append(state["grad_avg"])
                steps.append(state["step"])
            _C._foreach_add_(steps, 1)
            _C._fused_rmsprop_(
                params,
                grads,
                square_avgs,
                grad_avgs,
                bufs,
                lr=_as_float(group["lr"]),
                alpha=float(group["alpha"]),
                eps=float(group["eps"]),
                weight_decay=float(group["weight_decay"]),
                momentum=float(momentum),
                centered=bool(centered),
                maximize=bool(group["maximize"]),
            )
        self._run_post_hooks()
        return loss
