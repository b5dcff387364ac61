"""Muon: momentum SGD whose update is orthogonalized by a Newton-Schulz iteration (2-D parameters)."""

from __future__ import annotations

import math
from typing import Any

import torchlite as _tl
from torchlite.optim.optimizer import _as_float, _ElementwiseOptimizer

__all__ = ["Muon"]


def _orthogonalize(update: Any, ns_coefficients: tuple[float, float, float], ns_steps: int, eps: float) -> Any:
    """ns_steps quintic Newton-Schulz iterations X <- a X + (b A + c A^2) X with A = X X^T, run in
    bfloat16 as PyTorch does, on the wide orientation of the matrix normalised to unit norm."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if update.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = update.size(0) > update.size(1)
    x = update.bfloat16()
    if tall:
        x = x.T
    x.div_(x.norm().clamp(min=eps))
    for _ in range(ns_steps):
        # PyTorch's bfloat16 addmm accumulates and scales in float32 and rounds once; torchlite's
        # rounds its product first, so each addmm runs in float32 on the bfloat16 values here.
        x32 = x.float()
        gram = (x @ x.T).float()
        update = _tl.addmm(gram, gram, gram, beta=b, alpha=c).bfloat16().float()
        x = _tl.addmm(x32, update, x32, beta=a).bfloat16()
    return x.T if tall else x


def _adjusted_lr(lr: float, adjust_lr_fn: str | None, shape: Any) -> float:
    """Scales lr so that updates of rectangular matrices have a comparable RMS."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    return lr * 0.2 * math.sqrt(max(rows, cols))


class Muon(_ElementwiseOptimizer):
    """Implements Muon, as torch.optim.Muon:

        B = lerp(B, g, 1 - momentum);  U = lerp(g, B, momentum) (nesterov) or B
        param *= 1 - lr * weight_decay;  param -= adjusted_lr * NewtonSchulz(U)

    Only 2-D parameters are accepted.
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = (3.4445, -4.775, 2.0315),
        eps: float = 1e-07,
        ns_steps: int = 5,
        adjust_lr_fn: str | None = None,
    ) -> None:
        if isinstance(lr, _tl.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(
            lr=lr,
            weight_decay=weight_decay,
            momentum=momentum,
            nesterov=nesterov,
            ns_coefficients=ns_coefficients,
            eps=eps,
            ns_steps=ns_steps,
            adjust_lr_fn=adjust_lr_fn,
        )
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError(
                        f"Muon only supports 2D parameters whereas we found a parameter with size: {p.size()}"
                    )

    def _init_state(self, param: Any, group: dict[str, Any], state: dict[str, Any]) -> None:
        state["momentum_buffer"] = _tl.zeros_like(param.grad)

    def _update(self, param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        if grad.dim() != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        lr, momentum = _as_float(group["lr"]), group["momentum"]
        buf = state["momentum_buffer"]
        buf.lerp_(grad, 1 - momentum)
        update = grad.lerp(buf, momentum) if group["nesterov"] else buf
        update = _orthogonalize(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
        param.mul_(1 - lr * group["weight_decay"])
        param.add_(update, alpha=-_adjusted_lr(lr, group["adjust_lr_fn"], param.shape))
