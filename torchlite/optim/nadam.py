"""NAdam: Adam with Nesterov momentum and a momentum-decay schedule."""

from __future__ import annotations

from typing import Any

import torchlite as _tl
from torchlite.optim.optimizer import (
    _as_float,
    _check_args,
    _check_no_differentiable,
    _ElementwiseOptimizer,
    _new_scalar,
    _new_step,
    _signed_grad,
)

__all__ = ["NAdam"]


class NAdam(_ElementwiseOptimizer):
    """Implements NAdam, as torch.optim.NAdam:

        mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay));  prod *= mu_t
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g;  d = sqrt(v / (1 - beta2^t)) + eps
        param -= lr * (1 - mu_t) / (1 - prod) * g / d + lr * mu_{t+1} / (1 - prod * mu_{t+1}) * m / d

    Weight decay is added to the gradient, or with decoupled_weight_decay=True applied as
    param *= 1 - lr * weight_decay. foreach=True runs one `_fused_nadam_` call per group;
    `capturable` changes nothing here.
    """

    _fused_kernel = "_fused_nadam_"
    _fused_state = ("exp_avg", "exp_avg_sq", "mu_product", "step")

    def __init__(
        self,
        params: Any,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_args(lr, eps=eps, betas=betas, weight_decay=weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            momentum_decay=momentum_decay,
            decoupled_weight_decay=decoupled_weight_decay,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
        )
        _check_no_differentiable(defaults)
        super().__init__(params, defaults)

    def _init_state(self, param: Any, group: dict[str, Any], state: dict[str, Any]) -> None:
        state["step"] = _new_step()
        state["mu_product"] = _new_scalar(1.0)
        state["exp_avg"] = _tl.zeros_like(param)
        state["exp_avg_sq"] = _tl.zeros_like(param)

    def _update(self, param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        lr, weight_decay, momentum_decay = _as_float(group["lr"]), group["weight_decay"], group["momentum_decay"]
        step = state["step"].add_(1).item()
        if group["decoupled_weight_decay"]:
            param.mul_(1 - lr * weight_decay)
            grad = _signed_grad(param, grad, group["maximize"])
        else:
            grad = _signed_grad(param, grad, group["maximize"], weight_decay)
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
        mu_product = state["mu_product"].mul_(mu).item()
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(1 - beta2**step).sqrt().add_(group["eps"])
        param.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product))
        param.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - mu_product * mu_next))

    def _fused_options(self, group: dict[str, Any]) -> dict[str, Any]:
        beta1, beta2 = group["betas"]
        return dict(lr=_as_float(group["lr"]), beta1=float(beta1), beta2=float(beta2), eps=float(group["eps"]),
                    weight_decay=float(group["weight_decay"]), momentum_decay=float(group["momentum_decay"]),
                    decoupled_weight_decay=bool(group["decoupled_weight_decay"]), maximize=bool(group["maximize"]))
