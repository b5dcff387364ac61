"""ASGD: averaged stochastic gradient descent."""

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

__all__ = ["ASGD"]


class ASGD(_ElementwiseOptimizer):
    """Implements averaged SGD, as torch.optim.ASGD:

        param *= 1 - lambd * eta;  param -= eta * g;  ax += mu * (param - ax)  (ax = param while mu == 1)
        eta = lr / (1 + lambd * lr * t)^alpha;  mu = 1 / max(1, t - t0)

    eta and mu are 0-dim state tensors (PyTorch's scalar dtype), as in PyTorch. foreach=True runs
    one `_fused_asgd_` call per group; `capturable` changes nothing here.
    """

    _fused_kernel = "_fused_asgd_"
    _fused_state = ("ax", "mu", "eta")

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_args(lr, weight_decay=weight_decay)
        defaults = dict(
            lr=lr,
            lambd=lambd,
            alpha=alpha,
            t0=t0,
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
        state["eta"] = _new_scalar(_as_float(group["lr"]))
        state["mu"] = _new_scalar(1.0)
        state["ax"] = _tl.zeros_like(param)

    @staticmethod
    def _schedule(state: dict[str, Any], group: dict[str, Any]) -> None:
        """Sets eta and mu for the next step from the step just taken."""
        lr, step = _as_float(group["lr"]), state["step"].item()
        # Through a tensor of the scalar dtype, as PyTorch does: a float64 eta (loaded into float64
        # parameters' state) still takes float32-rounded values under a float32 default dtype.
        state["eta"].copy_(_new_scalar(lr / ((1 + group["lambd"] * lr * step) ** group["alpha"])))
        state["mu"].copy_(_new_scalar(1 / max(1, step - group["t0"])))

    def _update(self, param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        state["step"].add_(1)
        grad = _signed_grad(param, grad, group["maximize"], group["weight_decay"])
        mu, ax = state["mu"], state["ax"]
        eta_value = state["eta"].item()
        param.mul_(1 - group["lambd"] * eta_value)
        param.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        self._schedule(state, group)

    def _fused_options(self, group: dict[str, Any]) -> dict[str, Any]:
        return dict(lambd=float(group["lambd"]), weight_decay=float(group["weight_decay"]),
                    maximize=bool(group["maximize"]))

    def _foreach_update(
        self, params: list[Any], grads: list[Any], states: list[dict[str, Any]], group: dict[str, Any]
    ) -> None:
        super()._foreach_update(params, grads, states, group)
        for state in states:
            self._schedule(state, group)
