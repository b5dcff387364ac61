"""Adagrad."""

from __future__ import annotations

from typing import Any

import torchlite as _tl
from torchlite import _C
from torchlite.optim.optimizer import Optimizer, _as_float, _check_no_differentiable, _new_step, _use_grad

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Implements Adagrad, as torch.optim.Adagrad:

        clr = lr / (1 + (t - 1) * lr_decay);  sum += g * g;  param -= clr * g / (sqrt(sum) + eps)

    The state ('step' and 'sum', which starts at initial_accumulator_value) is created with the
    optimizer, as PyTorch does. The update of all parameters of a group is one `_fused_adagrad_` call.
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if isinstance(lr, _tl.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            eps=eps,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        _check_no_differentiable(defaults)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _new_step()
                state["sum"] = _tl.full_like(p, float(group["initial_accumulator_value"]))

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)

    def share_memory(self) -> None:
        """Moves the accumulated squared gradients into shared memory (for Hogwild-style training)."""
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    @_use_grad
    def step(self, closure: Any = None) -> Any:
        """Performs a single optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            params, grads = self._params_with_grad(group)
            if not params:
                continue
            sums, steps = [], []
            for p in params:
                state = self.state[p]
                if "sum" not in state:  # a group added after construction
                    state["step"] = _new_step()
                    state["sum"] = _tl.full_like(p, float(group["initial_accumulator_value"]))
                sums.append(state["sum"])
                steps.append(state["step"])
            _C._foreach_add_(steps, 1)
            _C._fused_adagrad_(
                params,
                grads,
                sums,
                steps,
                lr=_as_float(group["lr"]),
                lr_decay=float(group["lr_decay"]),
                weight_decay=float(group["weight_decay"]),
                eps=float(group["eps"]),
                maximize=bool(group["maximize"]),
            )
        self._run_post_hooks()
        return loss
