"""Adam (and, with decoupled_weight_decay=True, AdamW)."""

from __future__ import annotations

from typing import Any

import torchlite as _tl
from torchlite import _C
from torchlite.optim.optimizer import Optimizer, _as_float, _check_no_differentiable, _new_step, _use_grad

__all__ = ["Adam"]


class Adam(Optimizer):
    """Implements Adam, as torch.optim.Adam:

        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g  (v_max = max(v_max, v) with amsgrad)
        param -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)

    with weight decay added to the gradient (Adam) or applied to the parameter as
    param *= 1 - lr * weight_decay (decoupled_weight_decay=True, which is AdamW). The update of all
    parameters of a group is one `_fused_adam_` / `_fused_adamw_` call.
    """

    _decoupled_default = False

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if isinstance(lr, _tl.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=decoupled_weight_decay,
        )
        _check_no_differentiable(defaults)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)
            group.setdefault("decoupled_weight_decay", self._decoupled_default)

    def _init_group(self, group: dict[str, Any]) -> tuple[list[Any], ...]:
        params, grads = self._params_with_grad(group)
        exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps = [], [], [], []
        amsgrad = group["amsgrad"]
        for p in params:
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _new_step()
                state["exp_avg"] = _tl.zeros_like(p)
                state["exp_avg_sq"] = _tl.zeros_like(p)
                if amsgrad:
                    state["max_exp_avg_sq"] = _tl.zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if amsgrad:
                if "max_exp_avg_sq" not in state:  # amsgrad turned on after the first steps
                    state["max_exp_avg_sq"] = _tl.zeros_like(p)
                max_exp_avg_sqs.append(state["max_exp_avg_sq"])
            steps.append(state["step"])
        return params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps

    @_use_grad
    def step(self, closure: Any = None) -> Any:
        """Performs a single optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps = self._init_group(group)
            if not params:
                continue
            _C._foreach_add_(steps, 1)
            beta1, beta2 = group["betas"]
            kernel = _C._fused_adamw_ if group["decoupled_weight_decay"] else _C._fused_adam_
            kernel(
                params,
                grads,
                exp_avgs,
                exp_avg_sqs,
                max_exp_avg_sqs,
                steps,
                lr=_as_float(group["lr"]),
                beta1=_as_float(beta1, "beta1"),
                beta2=_as_float(beta2, "beta2"),
                weight_decay=float(group["weight_decay"]),
                eps=float(group["eps"]),
                amsgrad=bool(group["amsgrad"]),
                maximize=bool(group["maximize"]),
            )
        self._run_post_hooks()
        return loss
