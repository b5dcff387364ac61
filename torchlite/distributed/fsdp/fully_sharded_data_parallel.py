"""FullyShardedDataParallel: each rank keeps 1/world of the parameters, their gradients and
(through an optimizer over fsdp.parameters()) their optimizer state.

The wrapped module's parameters are flattened, padded to a multiple of the world size and cut
into one shard per rank, kept as the Parameter `_flat_param`; the module's own parameters are
dropped. Forward all-gathers the full flat tensor and runs the module with views of it. The
views autograd saves for backward are packed as (offset, shape, stride) only, so the full
tensor is freed when forward returns; backward all-gathers it again at the first use and frees
it at the end. The gradient of the full tensor is reduce-scattered (averaged) into the shard's.
state_dict() gathers the full parameters under their original names.
"""

from __future__ import annotations

import enum
from collections import OrderedDict

import torchlite
import torchlite.distributed as dist
from torchlite.autograd import Function
from torchlite.autograd.graph import saved_tensors_hooks
from torchlite.nn.modules.module import Module, _IncompatibleKeys
from torchlite.nn.parallel.distributed import broadcast_coalesced
from torchlite.nn.parameter import Parameter
from torchlite.nn.utils.stateless import _reparametrize_module

__all__ = ["BackwardPrefetch", "FullyShardedDataParallel", "ShardingStrategy"]


class ShardingStrategy(enum.Enum):
    FULL_SHARD = 1
    SHARD_GRAD_OP = 2
    NO_SHARD = 3
    HYBRID_SHARD = 4
    _HYBRID_SHARD_ZERO2 = 5


class BackwardPrefetch(enum.Enum):
    BACKWARD_PRE = 1
    BACKWARD_POST = 2


def _gather(shard, group):
    full = torchlite.empty(shard.numel() * dist.get_world_size(group), dtype=shard.dtype)
    dist.all_gather_into_tensor(full, shard.detach(), group=group)
    return full


class _AllGatherShards(Function):
    """full = all_gather(shard); the gradient of full is averaged and reduce-scattered to shard."""

    @staticmethod
    def forward(ctx, shard, fsdp):
        ctx.fsdp = fsdp
        return _gather(shard, fsdp.process_group)

    @staticmethod
    def backward(ctx, grad_full):
        fsdp = ctx.fsdp
        fsdp._regathered = None  # every saved view is unpacked by now: free the re-gathered parameters
        grad_shard = torchlite.empty(fsdp._flat_param.numel(), dtype=grad_full.dtype)
        dist.reduce_scatter_tensor(grad_shard, grad_full.contiguous(), op=dist.ReduceOp.AVG,
                                   group=fsdp.process_group)
        return grad_shard, None


class FullyShardedDataParallel(Module):
    """Shards module's parameters across process_group (FULL_SHARD, one flat parameter)."""

    def __init__(self, module, process_group=None, sharding_strategy=None, cpu_offload=None, auto_wrap_policy=None,
                 backward_prefetch=BackwardPrefetch.BACKWARD_PRE, mixed_precision=None, ignored_modules=None,
                 param_init_fn=None, device_id=None, sync_module_states=False, forward_prefetch=False,
                 limit_all_gathers=True, use_orig_params=False, ignored_states=None, device_mesh=None):
        super().__init__()
        if sharding_strategy not in (None, ShardingStrategy.FULL_SHARD):
            raise NotImplementedError(f"FullyShardedDataParallel supports FULL_SHARD only, not {sharding_strategy}")
        unsupported = {"cpu_offload": cpu_offload, "auto_wrap_policy": auto_wrap_policy,
                       "mixed_precision": mixed_precision, "ignored_modules": ignored_modules,
                       "param_init_fn": param_init_fn, "ignored_states": ignored_states, "device_mesh": device_mesh}
        given = [name for name, value in unsupported.items() if value is not None]
        if given or use_orig_params:
            raise NotImplementedError(f"FullyShardedDataParallel: {', '.join(given or ['use_orig_params'])} "
                                      "not supported (one flat parameter per wrapper)")
        self.process_group = dist.group.WORLD if process_group is None else process_group
        world, rank = dist.get_world_size(self.process_group), dist.get_rank(self.process_group)
        if sync_module_states:
            broadcast_coalesced(list(module.parameters()) + list(module.buffers()), 0, self.process_group)
        named = list(module.named_parameters())
        if len({p.dtype for _, p in named}) > 1:
            raise ValueError("FullyShardedDataParallel: every parameter must have one dtype")
        self._fsdp_wrapped_module = module
        self._meta = []  # (name, shape, offset, numel) of each original parameter in the flat tensor
        offset = 0
        for name, p in named:
            self._meta.append((name, p.shape, offset, p.numel()))
            offset += p.numel()
        chunk = -(-offset // world)
        flat = torchlite.zeros(chunk * world, dtype=named[0][1].dtype)
        with torchlite.no_grad():
            for (_, p), (_, _, off, n) in zip(named, self._meta):
                flat[off:off + n].copy_(p.reshape(-1))
        self._flat_param = Parameter(flat[rank * chunk:(rank + 1) * chunk].clone())
        for name, _ in named:  # the module keeps no full parameters; forward lends it views
            owner, _, leaf = name.rpartition(".")
            del module.get_submodule(owner)._parameters[leaf]
        self._regathered = None

    @property
    def module(self):
        return self._fsdp_wrapped_module

    def _views(self, full):
        return {name: full[off:off + n].view(shape) for name, shape, off, n in self._meta}

    def _pack(self, full):
        def pack(t):
            if t._shares_storage(full):
                return ("flat", t.storage_offset(), tuple(t.shape), tuple(t.stride()))
            return t
        return pack

    def _unpack(self, packed):
        if isinstance(packed, tuple) and packed and packed[0] == "flat":
            if self._regathered is None:
                self._regathered = _gather(self._flat_param, self.process_group)
            _, offset, shape, stride = packed
            return self._regathered.as_strided(shape, stride, offset)
        return packed

    def forward(self, *args, **kwargs):
        full = _AllGatherShards.apply(self._flat_param, self)
        with saved_tensors_hooks(self._pack(full), self._unpack), \
                _reparametrize_module(self._fsdp_wrapped_module, self._views(full)):
            return self._fsdp_wrapped_module(*args, **kwargs)

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """The full state dict under the module's own names (a collective: every rank calls it)."""
        full = _gather(self._flat_param, self.process_group)
        out = OrderedDict() if destination is None else destination
        out.update((prefix + name, full[off:off + n].view(shape).clone()) for name, shape, off, n in self._meta)
        out.update((prefix + name, b if keep_vars else b.detach())
                   for name, b in self._fsdp_wrapped_module.named_buffers())
        return out

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Loads a full state dict (as state_dict() gives): each rank keeps its shard."""
        names = {name for name, *_ in self._meta} | {n for n, _ in self._fsdp_wrapped_module.named_buffers()}
        missing, unexpected = sorted(names - set(state_dict)), sorted(set(state_dict) - names)
        if strict and (missing or unexpected):
            raise RuntimeError(f"Error(s) in loading state_dict for FullyShardedDataParallel: missing keys {missing}, "
                               f"unexpected keys {unexpected}")
        rank, chunk = dist.get_rank(self.process_group), self._flat_param.numel()
        flat = _gather(self._flat_param, self.process_group)
        with torchlite.no_grad():
            for name, _, off, n in self._meta:
                if name in state_dict:
                    flat[off:off + n].copy_(state_dict[name].reshape(-1))
            self._flat_param.copy_(flat[rank * chunk:(rank + 1) * chunk])
            for name, b in self._fsdp_wrapped_module.named_buffers():
                if name in state_dict:
                    b.copy_(state_dict[name])
        return _IncompatibleKeys(missing, unexpected)
