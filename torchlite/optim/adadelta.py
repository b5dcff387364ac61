"""Adadelta."""

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

__all__ = ["Adadelta"]


class Adadelta(_ElementwiseOptimizer):
    """Implements Adadelta, as torch.optim.Adadelta:

        v = rho * v + (1 - rho) * g * g;  delta = sqrt(u + eps) / sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta * delta;  param -= lr * delta

    foreach=True runs one `_fused_adadelta_` call per group; `capturable` changes nothing here.
    """

    _fused_kernel = "_fused_adadelta_"
    _fused_state = ("square_avg", "acc_delta")

    def __init__(
        self,
        params: Any,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_args(lr, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        defaults = dict(
            lr=lr,
            rho=rho,
            eps=eps,
            weight_decay=weight_decay,
            maximize=maximize,
            capturable=capturable,
            foreach=foreach,
            differentiable=differentiable,
        )
        _check_no_differentiable(defaults)
        super().__init__(params, defaults)

    def _init_state(self, param: Any, group: dict[str, Any], state: dict[str, Any]) -> None:
        state["step"] = _new_step()
        state["square_avg"] = _tl.zeros_like(param)
        state["acc_delta"] = _tl.zeros_like(param)

    def _update(self, param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        rho, eps = group["rho"], group["eps"]
        state["step"].add_(1)
        grad = _signed_grad(param, grad, group["maximize"], group["weight_decay"])
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        delta = acc_delta.add(eps).sqrt_().div_(square_avg.add(eps).sqrt_()).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-_as_float(group["lr"]))

    def _fused_options(self, group: dict[str, Any]) -> dict[str, Any]:
        return dict(lr=_as_float(group["lr"]), rho=float(group["rho"]), eps=float(group["eps"]),
                    weight_decay=float(group["weight_decay"]), maximize=bool(group["maximize"]))
