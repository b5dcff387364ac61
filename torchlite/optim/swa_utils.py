"""Stochastic weight averaging and exponential moving averages of a model's weights (as
torch.optim.swa_utils): AveragedModel, the averaging functions, SWALR and update_bn."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any, Literal

import torchlite as _tl
from torchlite.nn.modules.module import Module
from torchlite.nn.modules.normalization import _BatchNorm
from torchlite.optim.lr_scheduler import LRScheduler, _format_param
from torchlite.optim.optimizer import Optimizer

__all__ = [
    "AveragedModel",
    "update_bn",
    "SWALR",
    "get_ema_multi_avg_fn",
    "get_swa_multi_avg_fn",
    "get_ema_avg_fn",
    "get_swa_avg_fn",
]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """An in-place update of lists of averaged tensors: ema = decay * ema + (1 - decay) * current."""
    _check_decay(decay)

    def ema_update(ema_param_list: list[Any], current_param_list: list[Any], _: Any) -> None:
        with _tl.no_grad():
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                if p_ema.is_floating_point() or p_ema.is_complex():
                    p_ema.lerp_(p_model, 1 - decay)
                else:
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """An in-place update of lists of averaged tensors to the running mean of num_averaged + 1 models."""

    def swa_update(averaged_param_list: list[Any], current_param_list: list[Any], num_averaged: Any) -> None:
        with _tl.no_grad():
            weight = 1 / (num_averaged + 1)
            for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
                if p_avg.is_floating_point() or p_avg.is_complex():
                    p_avg.lerp_(p_model, float(weight))
                else:
                    p_avg.copy_(p_avg + (p_model - p_avg) / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """ema_fn(ema, current, num_averaged) -> decay * ema + (1 - decay) * current."""
    _check_decay(decay)

    def ema_update(ema_param: Any, current_param: Any, num_averaged: Any) -> Any:
        with _tl.no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable:
    """swa_fn(avg, current, num_averaged) -> the running mean of num_averaged + 1 models."""

    def swa_update(averaged_param: Any, current_param: Any, num_averaged: Any) -> Any:
        with _tl.no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of `model` whose parameters (and, with use_buffers=True, buffers) hold a running
    average of the models passed to `update_parameters`: the equal-weight mean (SWA) by default, or
    the average `avg_fn` (per tensor) or `multi_avg_fn` (in place, per list of tensors) computes.
    The first update copies the model; `n_averaged` counts the updates."""

    def __init__(
        self,
        model: Module,
        device: Any = None,
        avg_fn: Callable[[Any, Any, Any], Any] | None = None,
        multi_avg_fn: Callable[[list[Any], list[Any], Any], None] | None = None,
        use_buffers: bool = False,
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _tl.tensor(0, dtype=_tl.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Folds `model`'s current weights into the average."""
        if self.use_buffers:
            averaged = itertools.chain(self.module.parameters(), self.module.buffers())
            current = itertools.chain(model.parameters(), model.buffers())
        else:
            averaged, current = self.parameters(), model.parameters()
        averaged_list, current_list = [], []
        first = bool(self.n_averaged == 0)
        for p_avg, p_model in zip(averaged, current):
            p_model_ = p_model.detach().to(p_avg.device)
            averaged_list.append(p_avg.detach())
            current_list.append(p_model_)
            if first:
                p_avg.detach().copy_(p_model_)
        if not first:
            if self.multi_avg_fn is not None:
                # The in-place function sees tensors of one device and dtype at a time, as in PyTorch.
                groups: dict[tuple[Any, Any], tuple[list[Any], list[Any]]] = {}
                for p_avg, p_model in zip(averaged_list, current_list):
                    pair = groups.setdefault((p_avg.device, p_avg.dtype), ([], []))
                    pair[0].append(p_avg)
                    pair[1].append(p_model)
                for (dev, _), (avg_group, model_group) in groups.items():
                    self.multi_avg_fn(avg_group, model_group, self.n_averaged.to(dev))
            else:
                avg_fn = self.avg_fn if self.avg_fn is not None else get_swa_avg_fn()
                for p_avg, p_model in zip(averaged_list, current_list):
                    p_avg.copy_(avg_fn(p_avg, p_model, self.n_averaged.to(p_avg.device)))
        if not self.use_buffers:
            # Buffers are not averaged: they follow the latest model.
            for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recomputes the running statistics of every batch norm layer of `model` as the plain average
    over one pass of `loader` (each batch a tensor, or a list/tuple whose first item is the input)."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None  # a cumulative average over the batches
    with _tl.no_grad():
        for batch in loader:
            if isinstance(batch, list | tuple):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to its swa_lr over anneal_epochs steps ("cos" or "linear"), then
    keeps it there."""

    def __init__(
        self,
        optimizer: Optimizer,
        swa_lr: float,
        anneal_epochs: int = 10,
        anneal_strategy: Literal["cos", "linear"] = "cos",
        last_epoch: int = -1,
    ) -> None:
        for lr, group in zip(_format_param("swa_lr", optimizer, swa_lr), optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: Any, swa_lr: Any, alpha: float) -> Any:
        """The lr the annealing started from, given the lr it reached at progress alpha."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def get_lr(self) -> list[Any]:
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def state_dict(self) -> dict[str, Any]:
        """Every attribute except the optimizer and the annealing function."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
