"""Adafactor: Adam-like updates with a factored (row x column) second moment for matrices."""

from __future__ import annotations

from typing import Any

import torchlite as _tl
from torchlite.optim.optimizer import _as_float, _ElementwiseOptimizer, _new_step, _signed_grad

__all__ = ["Adafactor"]


class Adafactor(_ElementwiseOptimizer):
    """Implements Adafactor, as torch.optim.Adafactor:

        beta2_t = 1 - t^beta2_decay;  rho_t = min(lr, 1 / sqrt(t));  alpha = max(eps2, rms(param)) * rho_t
        param *= 1 - lr * weight_decay
        matrices: R = lerp(R, mean_cols(g^2), 1 - beta2_t), C = lerp(C, mean_rows(g^2), 1 - beta2_t),
                  v = R @ C / max(mean(R), eps1)  (over the last two dims)
        vectors:  v = lerp(v, g^2, 1 - beta2_t)
        u = g / sqrt(max(v, eps1^2));  param -= alpha / max(1, rms(u) / d) * u

    eps1=None means the parameter dtype's machine epsilon. `foreach` selects no other code path here.
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if isinstance(lr, _tl.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(
            lr=lr,
            beta2_decay=beta2_decay,
            eps=eps,
            d=d,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    def _init_state(self, param: Any, group: dict[str, Any], state: dict[str, Any]) -> None:
        grad = param.grad
        state["step"] = _new_step()
        if grad.dim() > 1:
            row_shape, col_shape = list(grad.shape), list(grad.shape)
            row_shape[-1] = 1
            col_shape[-2] = 1
            state["row_var"] = grad.new_zeros(row_shape)
            state["col_var"] = grad.new_zeros(col_shape)
        else:
            state["variance"] = _tl.zeros_like(grad)

    def _update(self, param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr = _as_float(group["lr"])
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = _tl.finfo(param.dtype).eps
        grad = _signed_grad(param, grad, group["maximize"])
        step = state["step"].add_(1).item()
        one_minus_beta2_t = step ** group["beta2_decay"]
        rho_t = min(lr, 1 / (step**0.5))
        alpha = max(eps2, param.norm(2).item() / (param.numel() ** 0.5)) * rho_t
        if group["weight_decay"] != 0:
            param.mul_(1 - lr * group["weight_decay"])
        if grad.dim() > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            row_var.lerp_(_tl.norm(grad, dim=-1, keepdim=True).square_().div_(grad.size(-1)), one_minus_beta2_t)
            col_var.lerp_(_tl.norm(grad, dim=-2, keepdim=True).square_().div_(grad.size(-2)), one_minus_beta2_t)
            var_estimate = row_var @ col_var
            var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            variance = state["variance"]
            variance.lerp_(grad * grad, one_minus_beta2_t)
            var_estimate = variance.clone()
        update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
        denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * group["d"]))
        param.add_(update, alpha=-alpha / denom)
