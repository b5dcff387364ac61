"""swap_in_optimizer_params_and_state: run an optimizer on other parameters and state for a while."""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import torchlite as _tl

__all__ = ["swap_in_optimizer_params_and_state"]


def _swap_in_groups(optimizer: Any, swapin_parameters: dict[str, Any], swapin_optim_state: Any) -> tuple[dict, list]:
    """Checks that swapin_optim_state is a state_dict() of this optimizer's structure and pairs each
    live group with its saved options and the parameters (taken in order) that replace its own."""
    if not optimizer.state:
        raise RuntimeError("swap_in_optimizer_params_and_state requires initialized optimizer state.")
    if not isinstance(swapin_optim_state, dict):
        raise RuntimeError("swap_in_optimizer_params_and_state requires a DCP-style optimizer state_dict.")
    state = swapin_optim_state.get("state")
    if not isinstance(state, dict):
        raise RuntimeError(
            "swap_in_optimizer_params_and_state requires swapin_optim_state['state'] to be a dict mapping "
            f"packed parameter ids to per-param state dicts, got {type(state).__name__}."
        )
    if any(isinstance(k, _tl.Tensor) for k in state):
        raise RuntimeError(
            "swap_in_optimizer_params_and_state requires optimizer.state_dict()-style state keyed by packed "
            "parameter ids."
        )
    if any(isinstance(k, int) and not isinstance(v, dict) for k, v in state.items()):
        raise RuntimeError(
            "swap_in_optimizer_params_and_state requires per-parameter optimizer state entries to be dictionaries."
        )
    saved_groups = swapin_optim_state.get("param_groups")
    if not isinstance(saved_groups, list):
        raise RuntimeError(
            "swap_in_optimizer_params_and_state requires swapin_optim_state['param_groups'] to be a list of "
            f"param-group dicts, got {type(saved_groups).__name__}."
        )
    if len(saved_groups) != len(optimizer.param_groups):
        raise RuntimeError("swapin_optim_state has a different number of parameter groups than the live optimizer.")
    flat_parameters = list(swapin_parameters.values())
    offset = 0
    seen: set[int] = set()
    pairs = []
    for idx, (group, saved) in enumerate(zip(optimizer.param_groups, saved_groups)):
        if not isinstance(saved, dict):
            raise RuntimeError(
                "swap_in_optimizer_params_and_state requires each optimizer param group to be a dictionary."
            )
        ids = saved.get("params")
        if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
            raise RuntimeError(
                "swap_in_optimizer_params_and_state requires optimizer.state_dict()-style param_groups[*]['params'] "
                "entries keyed by packed parameter ids."
            )
        if len(ids) != len(group["params"]):
            raise RuntimeError(
                f"swapin_optim_state param group {idx} has a different number of params than the live optimizer "
                "param group."
            )
        saved_only = [k for k in saved if k not in group]
        live_only = [k for k in group if k not in saved]
        if saved_only or live_only:
            raise RuntimeError(
                "swap_in_optimizer_params_and_state requires optimizer.state_dict()-style param group keys to "
                f"exactly match the live optimizer group keys for group {idx}. Keys only in swap-in: {saved_only}. "
                f"Keys only in live: {live_only}."
            )
        seen.update(ids)
        if offset + len(ids) > len(flat_parameters):
            raise RuntimeError(
                "swap_in_optimizer_params_and_state requires the explicit parameter state to match "
                "optimizer.param_groups ordering."
            )
        pairs.append((group, saved, flat_parameters[offset : offset + len(ids)]))
        offset += len(ids)
    extra = [k for k in state if k not in seen]
    if extra:
        raise RuntimeError(
            "swap_in_optimizer_params_and_state requires swapin_optim_state['state'] to be keyed only by packed "
            f"parameter ids from param_groups[*]['params']; got extra keys {extra!r}."
        )
    return state, pairs


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(
    optimizer: Any, swapin_parameters: dict[str, Any], swapin_optim_state: dict[str, Any]
) -> Iterator[None]:
    """Within the context, `optimizer` works on `swapin_parameters` (in the order of its own
    parameters) with the options and per-parameter state of `swapin_optim_state` (a
    state_dict()); its own parameters, options and state come back on exit. In-place updates of the
    swapped-in state tensors reach `swapin_optim_state`; new entries stay inside the context."""
    state, pairs = _swap_in_groups(optimizer, swapin_parameters, swapin_optim_state)
    original_state = optimizer.state
    snapshots = [dict(g) for g in optimizer.param_groups]
    try:
        swapped: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for group, saved, params in pairs:
            group.update({k: v for k, v in saved.items() if k != "params"})
            group["params"] = params
            for p, pid in zip(params, saved["params"]):
                swapped[p] = dict(state.get(pid, {}))
        optimizer.state = swapped
        yield
    finally:
        for group, snapshot in zip(optimizer.param_groups, snapshots):
            group.clear()
            group.update(snapshot)
        optimizer.state = original_state
