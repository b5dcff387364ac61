"""DistributedDataParallel: data-parallel training over a torchlite.distributed process group.

At construction rank 0's parameters and buffers are broadcast, so every rank starts alike.
Parameters are packed, in reverse registration order (roughly the order backward produces their
gradients), into buckets of at most bucket_cap_mb. Each parameter's post-accumulate-grad hook
(Tensor.register_post_accumulate_grad_hook) copies its gradient into its bucket; when a bucket is
full its averaging all-reduce (or the registered communication hook) starts asynchronously while
backward goes on. Buckets start in index order on every rank (MPI needs the same order
everywhere). The hook of the last gradient waits for all of them and writes the averages back into
.grad (or leaves .grad as a view of its bucket with gradient_as_bucket_view).

static_graph=True: the first iteration finds the parameters that get no gradient (as
find_unused_parameters does) and later iterations reuse that set without walking the autograd
graph. Unlike PyTorch's, it does not support a parameter whose gradient is accumulated more than
once in one backward (reentrant activation checkpointing): that raises a RuntimeError.
"""

from __future__ import annotations

import inspect
from contextlib import contextmanager

import torchlite
import torchlite.distributed as dist
from torchlite.autograd.graph import get_gradient_edge
from torchlite.distributed._grad_bucket import GradBucket
from torchlite.distributed.algorithms.join import Join, Joinable, JoinHook
from torchlite.futures import Future
from torchlite.nn.modules.module import Module

__all__ = ["DistributedDataParallel"]

_DEFAULT_BUCKET_CAP_MB = 25


def broadcast_coalesced(tensors, src, group):
    """Broadcasts tensors from src in one message per dtype."""
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    for same in by_dtype.values():
        flat = torchlite.cat([t.detach().reshape(-1) for t in same])
        dist.broadcast(flat, src=src, group=group)
        with torchlite.no_grad():
            for t, piece in zip(same, flat.split([t.numel() for t in same])):
                t.copy_(piece.view(t.shape))


class _Bucket:
    """A flat gradient buffer for some parameters of one dtype, and its reduction in flight (a
    Future of the averaged buffer)."""

    def __init__(self, index, params):
        self.index = index
        self.params = params
        self.buffer = torchlite.zeros(sum(p.numel() for p in params), dtype=params[0].dtype)
        sizes = [p.numel() for p in params]
        self.views = [v.view(p.shape) for v, p in zip(self.buffer.split(sizes), params)]
        self.pending = len(params)
        self.future = None


def _tensors_in(obj):
    if isinstance(obj, torchlite.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _tensors_in(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _tensors_in(o)


class DistributedDataParallel(Module, Joinable):
    """Wraps module so that backward averages gradients over the process group's ranks."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=None, init_sync=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None,
                 skip_all_reduce_unused_params=False, bucket_cap_mb_list=None, batched_grad_copy=False,
                 forward_sync_buffers=None):
        Module.__init__(self)
        Joinable.__init__(self)
        if not dist.is_initialized() and process_group is None:
            raise ValueError("DistributedDataParallel needs a process group: call "
                             "torchlite.distributed.init_process_group first")
        if device_mesh is not None or mixed_precision is not None:
            raise NotImplementedError("DistributedDataParallel: device_mesh and mixed_precision are not supported")
        self.module = module
        self.process_group = dist.group.WORLD if process_group is None else process_group
        self.dim = dim
        self.broadcast_buffers = True if broadcast_buffers is None else broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((_DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb) * 2**20)
        self._world = dist.get_world_size(self.process_group)
        self._params = list(dict.fromkeys(p for p in module.parameters() if p.requires_grad))
        if not self._params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        if init_sync:
            broadcast_coalesced(list(module.parameters()) + list(module.buffers()), 0, self.process_group)
        self._buckets = self._make_buckets(self._params)
        self._bucket_of = {id(p): b for b in self._buckets for p in b.params}
        self._view_of = {id(p): v for b in self._buckets for p, v in zip(b.params, b.views)}
        self._hook_handles = [p.register_post_accumulate_grad_hook(self._make_hook(p)) for p in self._params]
        # Finding unused parameters compares the graph's AccumulateGrad nodes with these (held, so
        # that the ids stay theirs)
        self._grad_accs = [get_gradient_edge(p).node for p in self._params] if find_unused_parameters or static_graph \
            else None
        self._static_unused = None  # static_graph: the parameters the first iteration left without gradient
        self._comm_hook = None  # (state, hook) from register_comm_hook
        self._expect_sync = False
        self._ready = set()
        self._next_bucket = 0

    def _make_buckets(self, params):
        buckets, current, size = [], [], 0
        for p in reversed(params):
            nbytes = p.numel() * p.element_size()
            if current and (size + nbytes > self.bucket_bytes_cap or p.dtype != current[0].dtype):
                buckets.append(_Bucket(len(buckets), current))
                current, size = [], 0
            current.append(p)
            size += nbytes
        buckets.append(_Bucket(len(buckets), current))
        return buckets

    def register_comm_hook(self, state: object, hook):
        """Replaces each bucket's averaging all-reduce by hook(state, bucket), which returns a
        torchlite.futures.Future of the averaged bucket (see
        torchlite.distributed.algorithms.ddp_comm_hooks.default_hooks)."""
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        if not callable(hook):
            raise TypeError(f"Communication hook must be callable, got {type(hook).__name__}")
        if len(inspect.signature(hook).parameters) != 2:
            raise ValueError("Communication hook must take two arguments: hook(state, bucket)")
        self._comm_hook = (state, hook)

    # --- forward ---------------------------------------------------------------------------------

    def forward(self, *inputs, **kwargs):
        if self._expect_sync:
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. Some "
                "parameters did not receive gradients in the last backward: pass find_unused_parameters=True to "
                "DistributedDataParallel, or make sure every output takes part in the loss.")
        work = Join.notify_join_context(self)
        if work is not None:
            work.wait()
        will_sync = torchlite.is_grad_enabled() and self.require_backward_grad_sync
        if self._join_config.enable:  # tell joined ranks whether this backward reduces (no_sync)
            _all_reduce_flag(will_sync, self.process_group)
        if self.broadcast_buffers and self._world > 1 and self.require_forward_param_sync:
            self._sync_buffers()
        out = self.module(*inputs, **kwargs)
        if will_sync:
            self._prepare_for_backward(out)
        return out

    def _sync_buffers(self):
        buffers = list(self.module.buffers())
        if buffers:
            broadcast_coalesced(buffers, 0, self.process_group)

    def _prepare_for_backward(self, out):
        self._expect_sync = True
        self._ready.clear()
        self._next_bucket = 0
        for b in self._buckets:
            b.pending, b.future = len(b.params), None
        if self.find_unused_parameters or self.static_graph:
            for p in self._unused_parameters(out):  # no gradient will come: it contributes zeros
                self._view_of[id(p)].zero_()
                self._mark_ready(p)

    def _unused_parameters(self, out):
        if self._static_unused is not None:
            return self._static_unused
        used = self._reached_grad_accs(out)
        unused = [p for p, acc in zip(self._params, self._grad_accs) if id(acc) not in used]
        if self.static_graph:
            self._static_unused = unused
        return unused

    @staticmethod
    def _reached_grad_accs(out):
        # ids of nodes kept alive in `seen`: a freed node wrapper's id could be reused by another
        seen, stack = {}, [t.grad_fn for t in _tensors_in(out) if t.grad_fn is not None]
        while stack:
            fn = stack.pop()
            for nxt, _ in fn.next_functions:
                if nxt is not None and id(nxt) not in seen:
                    seen[id(nxt)] = nxt
                    stack.append(nxt)
        return seen

    # --- backward --------------------------------------------------------------------------------

    def _make_hook(self, p):
        def hook(param):
            if not self._expect_sync:  # no_sync(), or a backward not started by our forward
                return
            view = self._view_of[id(p)]
            if p.grad is None:
                view.zero_()
            elif p.grad.data_ptr() != view.data_ptr():
                view.copy_(p.grad)
            self._mark_ready(p)
        return hook

    def _mark_ready(self, p):
        if id(p) in self._ready:
            raise RuntimeError("DistributedDataParallel: a parameter's gradient was accumulated twice in one "
                               "backward (reentrant checkpointing or a parameter used by two backward passes); "
                               "torchlite's DDP reduces each gradient once per iteration")
        self._ready.add(id(p))
        bucket = self._bucket_of[id(p)]
        bucket.pending -= 1
        # launch every full bucket from the next one in order, so all ranks launch in one order
        while self._next_bucket < len(self._buckets) and self._buckets[self._next_bucket].pending == 0:
            self._launch(self._buckets[self._next_bucket])
            self._next_bucket += 1
        for b in self._buckets[:self._next_bucket]:
            b.future.done()  # MPI progresses nonblocking collectives only when asked
        if self._next_bucket == len(self._buckets):
            self._finish_reduction()

    def _launch(self, b):
        if self._comm_hook is None:
            work = dist.all_reduce(b.buffer, op=dist.ReduceOp.AVG, group=self.process_group, async_op=True)
            b.future = work.get_future()
            return
        state, hook = self._comm_hook
        b.future = hook(state, GradBucket(b.index, b.buffer, b.views, b.params, b.index == len(self._buckets) - 1))
        if not isinstance(b.future, Future):
            raise RuntimeError(f"Communication hook must return a torchlite.futures.Future, got "
                               f"{type(b.future).__name__}")

    def _finish_reduction(self):
        self._expect_sync = False
        for b in self._buckets:
            result = b.future.wait()
            if isinstance(result, (list, tuple)):
                result = result[0]
            if result.data_ptr() != b.buffer.data_ptr():
                with torchlite.no_grad():
                    b.buffer.copy_(result)
            for p, view in zip(b.params, b.views):
                if self.gradient_as_bucket_view:
                    p.grad = view
                elif p.grad is None:
                    p.grad = view.clone()
                else:
                    p.grad.copy_(view)

    @contextmanager
    def no_sync(self):
        """Backward passes inside accumulate gradients locally; the first one outside syncs them all."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    # --- Join ------------------------------------------------------------------------------------

    def join(self, divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False):
        """Join([self]) with these options: for loops whose ranks see different numbers of inputs."""
        return Join([self], enable, throw_on_early_termination,
                    divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs):
        return _DDPJoinHook(self, kwargs.get("divide_by_initial_world_size", True))

    @property
    def join_device(self):
        return self._params[0].device

    @property
    def join_process_group(self):
        return self.process_group

    def will_sync_module_buffers(self):
        return self.require_forward_param_sync and self.broadcast_buffers and any(True for _ in self.module.buffers())


def _all_reduce_flag(flag, group):
    """Whether flag is set on any rank of group."""
    t = torchlite.tensor([int(flag)])
    dist.all_reduce(t, op=dist.ReduceOp.MAX, group=group)
    return bool(t.item())


class _DDPJoinHook(JoinHook):
    """For a rank out of inputs: mirrors a training iteration's buffer broadcast and bucket
    all-reduces with zero gradients (keeping the result as .grad); at the end the last rank to
    join broadcasts the model."""

    def __init__(self, ddp, divide_by_initial_world_size):
        if not divide_by_initial_world_size:
            raise NotImplementedError("DDP join: only divide_by_initial_world_size=True is supported")
        self.ddp = ddp

    def main_hook(self):
        ddp = self.ddp
        will_sync = _all_reduce_flag(False, ddp.process_group)  # whether the ranks still training reduce
        if ddp.broadcast_buffers and ddp._world > 1:
            ddp._sync_buffers()
        if not will_sync:  # they are inside no_sync()
            return
        for b in ddp._buckets:
            b.buffer.zero_()
            ddp._launch(b)
        ddp._finish_reduction()  # the other ranks' average lands in .grad, for a ZeroRedundancyOptimizer step

    def post_hook(self, is_last_joiner):
        ddp = self.ddp
        rank = dist.get_rank(ddp.process_group)
        src = torchlite.tensor([rank if is_last_joiner else -1])
        dist.all_reduce(src, op=dist.ReduceOp.MAX, group=ddp.process_group)
        broadcast_coalesced(list(ddp.module.parameters()) + list(ddp.module.buffers()),
                            dist.get_global_rank(ddp.process_group, int(src.item())), ddp.process_group)
