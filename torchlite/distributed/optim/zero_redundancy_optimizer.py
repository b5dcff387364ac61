"""ZeroRedundancyOptimizer: each rank keeps optimizer state for a shard of the parameters only.

Parameters are partitioned per group, largest first, to the rank holding the fewest elements so
far, so every rank computes the same partition. step() runs a local optimizer_class over this
rank's shard (its gradients must already be synchronised, e.g. by DDP) and then every rank
broadcasts the parameters it owns. The full state dict is gathered with consolidate_state_dict.
"""

from __future__ import annotations

import torchlite.distributed as dist
from torchlite.distributed.algorithms.join import Joinable, JoinHook
from torchlite.nn.parallel.distributed import broadcast_coalesced
from torchlite.optim.optimizer import Optimizer

__all__ = ["ZeroRedundancyOptimizer"]


class ZeroRedundancyOptimizer(Optimizer, Joinable):
    """Wraps optimizer_class(params, **defaults) so that its state is sharded across process_group."""

    def __init__(self, params, optimizer_class, process_group=None, parameters_as_bucket_view=False,
                 overlap_with_ddp=False, **defaults):
        if overlap_with_ddp:
            raise NotImplementedError("ZeroRedundancyOptimizer: overlap_with_ddp is not supported")
        Optimizer.__init__(self, params, defaults)
        Joinable.__init__(self)
        self.process_group = dist.group.WORLD if process_group is None else process_group
        self.rank = dist.get_rank(self.process_group)
        self.world_size = dist.get_world_size(self.process_group)
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self._optimizer_class = optimizer_class
        self._all_state_dicts = None
        self._build_local_optimizer()

    def _build_local_optimizer(self):
        self._owner = self._partition()
        self.optim = self._optimizer_class(self._local_groups(), **self.defaults)
        self.state = self.optim.state
        _copy_options(self.optim.param_groups, self.param_groups)  # the options optimizer_class filled in

    def _partition(self):
        """{id(param): owning group rank}: per group, largest parameters first to the lightest rank."""
        owner, load = {}, [0] * self.world_size
        for group in self.param_groups:
            for p in sorted(group["params"], key=lambda p: -p.numel()):
                r = min(range(self.world_size), key=lambda r: load[r])
                owner[id(p)] = r
                load[r] += p.numel()
        return owner

    def _local_groups(self, rank=None):
        rank = self.rank if rank is None else rank
        return [dict(g, params=[p for p in g["params"] if self._owner[id(p)] == rank]) for g in self.param_groups]

    def add_param_group(self, param_group):
        super().add_param_group(param_group)
        if hasattr(self, "optim"):  # after construction: repartition, as PyTorch does
            self._build_local_optimizer()

    def step(self, closure=None, **kwargs):
        """A step of the local optimizer on this rank's shard, then every shard broadcast by its owner."""
        self._run_closure(None)  # step pre-hooks
        _copy_options(self.param_groups, self.optim.param_groups)  # what an lr scheduler changed
        loss = self.optim.step(closure, **kwargs)
        self._sync_params()
        self._run_post_hooks()
        return loss

    def _sync_params(self):
        for r in range(self.world_size):
            owned = [p for g in self._local_groups(r) for p in g["params"]]
            if owned:
                broadcast_coalesced(owned, dist.get_global_rank(self.process_group, r), self.process_group)

    # --- state dicts ------------------------------------------------------------------------------

    def _global_index(self):
        """{id(param): its index in the full state dict} (the order of self.param_groups)."""
        return {id(p): i for i, p in enumerate(p for g in self.param_groups for p in g["params"])}

    def consolidate_state_dict(self, to=0):
        """Gathers every rank's shard of the state on rank `to` (a collective: all ranks call it)."""
        index = self._global_index()
        local = [p for g in self.optim.param_groups for p in g["params"]]
        mine = {index[id(p)]: self.optim.state[p] for p in local if p in self.optim.state}
        gathered = [None] * self.world_size if self.rank == dist.get_group_rank(self.process_group, to) else None
        dist.gather_object(mine, gathered, dst=to, group=self.process_group)
        self._all_state_dicts = gathered

    def state_dict(self):
        """The full state dict, on the rank consolidate_state_dict gathered it to."""
        if self._all_state_dicts is None:
            raise RuntimeError("Optimizer state has not been consolidated on this rank. Please call "
                               "`consolidate_state_dict(to)` on all ranks beforehand.")
        full = Optimizer.state_dict(self)  # param_groups with global indices; state filled below
        full["state"] = {i: s for shard in self._all_state_dicts for i, s in shard.items()}
        return full

    def load_state_dict(self, state_dict):
        """Loads a full state dict: each rank keeps the state of the parameters it owns."""
        Optimizer.load_state_dict(self, {"state": {}, "param_groups": state_dict["param_groups"]})
        index = self._global_index()
        local_groups = []
        state = {}
        for g, saved in zip(self.optim.param_groups, state_dict["param_groups"]):
            packed = {k: v for k, v in saved.items() if k != "params"}
            packed["params"] = [len(state) + j for j in range(len(g["params"]))]
            for j, p in enumerate(g["params"]):
                if index[id(p)] in state_dict["state"]:
                    state[packed["params"][j]] = state_dict["state"][index[id(p)]]
            local_groups.append(packed)
        self.optim.load_state_dict({"state": state, "param_groups": local_groups})
        self.state = self.optim.state

    # --- Join -------------------------------------------------------------------------------------

    def join_hook(self, **kwargs):
        return _ZeROJoinHook(self)

    @property
    def join_device(self):
        return self.param_groups[0]["params"][0].device

    @property
    def join_process_group(self):
        return self.process_group


def _copy_options(src_groups, dst_groups):
    for src, dst in zip(src_groups, dst_groups):
        dst.update({k: v for k, v in src.items() if k != "params"})


class _ZeROJoinHook(JoinHook):
    """A joined rank still steps its shard (with the gradients DDP's join hook reduced) and
    broadcasts it, as the ranks still training expect."""

    def __init__(self, zero):
        self.zero = zero

    def main_hook(self):
        self.zero.step()
