"""RAdam: Adam with a rectified adaptive learning rate."""

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

__all__ = ["RAdam"]


class RAdam(_ElementwiseOptimizer):
    """Implements RAdam, as torch.optim.RAdam:

        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
        rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
        rho_t > 5: param -= lr * m / (1 - beta1^t) * r_t * sqrt(1 - beta2^t) / (sqrt(v) + eps)
        else:      param -= lr * m / (1 - beta1^t)

    with r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t)). Weight
    decay is added to the gradient, or with decoupled_weight_decay=True applied as
    param *= 1 - lr * weight_decay. foreach=True runs one `_fused_radam_` call per group;
    `capturable` changes nothing here.
    """

    _fused_kernel = "_fused_radam_"
    _fused_state = ("exp_avg", "exp_avg_sq", "step")

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_args(lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            decoupled_weight_decay=decoupled_weight_decay,
            differentiable=differentiable,
        )
        _check_no_differentiable(defaults)
        super().__init__(params, defaults)

    def _init_state(self, param: Any, group: dict[str, Any], state: dict[str, Any]) -> None:
        state["step"] = _new_step()
        state["exp_avg"] = _tl.zeros_like(param)
        state["exp_avg_sq"] = _tl.zeros_like(param)

    def _update(self, param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        lr, weight_decay = _as_float(group["lr"]), group["weight_decay"]
        step = state["step"].add_(1).item()
        if group["decoupled_weight_decay"]:
            param.mul_(1 - lr * weight_decay)
            grad = _signed_grad(param, grad, group["maximize"])
        else:
            grad = _signed_grad(param, grad, group["maximize"], weight_decay)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction2 = 1 - beta2**step
        bias_corrected_exp_avg = exp_avg / (1 - beta1**step)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive_lr = (bias_correction2**0.5) / exp_avg_sq.sqrt().add_(group["eps"])
            param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)

    def _fused_options(self, group: dict[str, Any]) -> dict[str, Any]:
        beta1, beta2 = group["betas"]
        return dict(lr=_as_float(group["lr"]), beta1=float(beta1), beta2=float(beta2), eps=float(group["eps"]),
                    weight_decay=float(group["weight_decay"]),
                    decoupled_weight_decay=bool(group["decoupled_weight_decay"]), maximize=bool(group["maximize"]))
