"""Rprop: resilient backpropagation (per-element step sizes driven by gradient signs)."""

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

__all__ = ["Rprop"]


class Rprop(_ElementwiseOptimizer):
    """Implements Rprop, as torch.optim.Rprop:

        s = sign(g * prev);  step_size *= etaplus (s > 0), etaminus (s < 0), 1 (s == 0), clamped to step_sizes
        g = 0 where s < 0;  param -= sign(g) * step_size;  prev = g

    foreach=True runs one `_fused_rprop_` call per group; `capturable` changes nothing here.
    """

    _fused_kernel = "_fused_rprop_"
    _fused_state = ("prev", "step_size")

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_args(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(
            lr=lr,
            etas=etas,
            step_sizes=step_sizes,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        _check_no_differentiable(defaults)
        super().__init__(params, defaults)

    def _init_state(self, param: Any, group: dict[str, Any], state: dict[str, Any]) -> None:
        state["step"] = _new_step()
        state["prev"] = _tl.zeros_like(param)
        state["step_size"] = _tl.full_like(param.grad, _as_float(group["lr"]))

    def _update(self, param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        state["step"].add_(1)
        grad = _signed_grad(param, grad, group["maximize"])
        prev, step_size = state["prev"], state["step_size"]
        sign = grad.mul(prev).sign()
        factor = _tl.where(sign.gt(0), etaplus, _tl.where(sign.lt(0), etaminus, sign.new_ones(())))
        step_size.mul_(factor).clamp_(step_size_min, step_size_max)
        # After a sign change the step is skipped and the gradient forgotten.
        grad = _tl.where(sign.lt(0), 0.0, grad)
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)

    def _fused_options(self, group: dict[str, Any]) -> dict[str, Any]:
        (etaminus, etaplus), (step_size_min, step_size_max) = group["etas"], group["step_sizes"]
        return dict(etaminus=float(etaminus), etaplus=float(etaplus), step_size_min=float(step_size_min),
                    step_size_max=float(step_size_max), maximize=bool(group["maximize"]))
