"""Adamax: Adam with the infinity norm in place of the second moment."""

from __future__ import annotations

from typing import Any

import torchlite as _tl
from torchlite.optim.optimizer import (
    _as_float,
    _check_args,
    _check_no_differentiable,
    _ElementwiseOptimizer,
    _new_step,
    _signed_grad,
)

__all__ = ["Adamax"]


class Adamax(_ElementwiseOptimizer):
    """Implements Adamax, as torch.optim.Adamax:

        m = lerp(m, g, 1 - beta1);  u = max(beta2 * u, |g| + eps)
        param -= lr / (1 - beta1^t) * m / u

    foreach=True runs one `_fused_adamax_` call per group; `capturable` changes nothing here.
    """

    _fused_kernel = "_fused_adamax_"
    _fused_state = ("exp_avg", "exp_inf", "step")

    def __init__(
        self,
        params: Any,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_args(lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        _check_no_differentiable(defaults)
        super().__init__(params, defaults)

    def _init_state(self, param: Any, group: dict[str, Any], state: dict[str, Any]) -> None:
        state["step"] = _new_step()
        state["exp_avg"] = _tl.zeros_like(param)
        state["exp_inf"] = _tl.zeros_like(param)

    def _update(self, param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        step = state["step"].add_(1).item()
        grad = _signed_grad(param, grad, group["maximize"], group["weight_decay"])
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.lerp_(grad, 1 - beta1)
        _tl.maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"]), out=exp_inf)
        clr = _as_float(group["lr"]) / (1 - beta1**step)
        param.addcdiv_(exp_avg, exp_inf, value=-clr)

    def _fused_options(self, group: dict[str, Any]) -> dict[str, Any]:
        beta1, beta2 = group["betas"]
        return dict(lr=_as_float(group["lr"]), beta1=float(beta1), beta2=float(beta2), eps=float(group["eps"]),
                    weight_decay=float(group["weight_decay"]), maximize=bool(group["maximize"]))
