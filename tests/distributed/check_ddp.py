"""Run by tests/test_distributed.py under the launcher: DistributedDataParallel (bucketed, with
gradient views, unused parameters, no_sync, Join over uneven inputs), DistributedSampler and the
ZeroRedundancyOptimizer, each against one process training on the global batch; communication
hooks, static_graph, and Join over no_sync accumulation."""

import copy

import torchlite as torch
import torchlite.distributed as dist
from torchlite.distributed.algorithms import Join
from torchlite.distributed.algorithms.ddp_comm_hooks import default_hooks
from torchlite.distributed.optim import ZeroRedundancyOptimizer
from torchlite.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, n = dist.get_rank(), dist.get_world_size()
nn, F = torch.nn, torch.nn.functional
B, D = 4, 5  # per-rank batch, features


class Net(nn.Module):
    def __init__(self, unused=False):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(D, 8), nn.Linear(8, 3)
        self.unused = nn.Linear(3, 3) if unused else None

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def batch(step, r):
    g = torch.Generator().manual_seed(1000 * step + r)
    return torch.randn(B, D, generator=g), torch.randint(0, 3, (B,), generator=g)


def global_batch(step, ranks):
    xs, ys = zip(*(batch(step, r) for r in ranks))
    return torch.cat(xs), torch.cat(ys)


def close(a, b, what, tol=1e-5):
    for (name, p), q in zip(a.named_parameters(), b.parameters()):
        assert torch.allclose(p, q, atol=tol, rtol=tol), f"{what}: {name} differs by {(p - q).abs().max()}"


torch.manual_seed(rank)  # different on each rank: DDP must broadcast rank 0's parameters
for options in ({}, {"gradient_as_bucket_view": True}, {"find_unused_parameters": True}):
    model = DDP(Net(unused="find_unused_parameters" in options), bucket_cap_mb=1e-4, **options)
    assert len(model._buckets) > 1
    reference = copy.deepcopy(model.module)
    opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.5, momentum=0.9)
    for step in range(3):
        x, y = batch(step, rank)
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
        gx, gy = global_batch(step, range(n))
        ref_opt.zero_grad()
        F.cross_entropy(reference(gx), gy).backward()
        ref_opt.step()
    close(model.module, reference, f"DDP {options}")
    if options.get("gradient_as_bucket_view"):
        assert model.module.fc1.weight.grad.data_ptr() == model._view_of[id(model.module.fc1.weight)].data_ptr()
assert list(model.state_dict())[:2] == ["module.fc1.weight", "module.fc1.bias"]

# no_sync: two local backward passes, then a synced one, equal three global ones
model = DDP(Net())
reference = copy.deepcopy(model.module)
with model.no_sync():
    for step in range(2):
        x, y = batch(step, rank)
        F.cross_entropy(model(x), y).backward()
local = model.module.fc1.weight.grad.clone()
x, y = batch(2, rank)
F.cross_entropy(model(x), y).backward()
for step in range(3):
    gx, gy = global_batch(step, range(n))
    F.cross_entropy(reference(gx), gy).backward()
for p, q in zip(model.module.parameters(), reference.parameters()):
    assert torch.allclose(p.grad, q.grad, atol=1e-5), "no_sync accumulation differs"
assert n == 1 or not torch.allclose(local, reference.fc1.weight.grad, atol=1e-5)  # the first two stayed local

# a parameter without a gradient and no find_unused_parameters: the next forward says so
model = DDP(Net(unused=True))
x, y = batch(0, rank)
F.cross_entropy(model(x), y).backward()
try:
    model(x)
    raise AssertionError("a missed reduction went unnoticed")
except RuntimeError as e:
    assert "find_unused_parameters=True" in str(e)

# Join: rank r has 2 + r batches; the ranks that run out answer with zero gradients
model = DDP(Net(), bucket_cap_mb=1e-4)
reference = copy.deepcopy(model.module)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
ref_opt = torch.optim.SGD(reference.parameters(), lr=0.5)
with Join([model]):
    for step in range(2 + rank):
        x, y = batch(step, rank)
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
for step in range(2 + n - 1):
    ref_opt.zero_grad()
    active = [r for r in range(n) if step < 2 + r]
    sum(F.cross_entropy(reference(batch(step, r)[0]), batch(step, r)[1]) for r in active).div(n).backward()
    ref_opt.step()
close(model.module, reference, "Join")

# ZeroRedundancyOptimizer: Adam's state sharded, the same training as one unsharded Adam; with Join
# over uneven inputs the joined ranks keep stepping their shards
for uneven in (False, True):
    model = DDP(Net(), bucket_cap_mb=1e-4)
    reference = copy.deepcopy(model.module)
    zero = ZeroRedundancyOptimizer(model.parameters(), torch.optim.Adam, lr=0.05)
    ref_opt = torch.optim.Adam(reference.parameters(), lr=0.05)
    owned = [p for g in zero.optim.param_groups for p in g["params"]]
    assert 0 < len(owned) < len(list(model.parameters())) or n == 1
    steps = 2 + rank if uneven else 3
    with Join([model, zero], enable=uneven):
        for step in range(steps):
            x, y = batch(step, rank)
            zero.zero_grad()
            F.cross_entropy(model(x), y).backward()
            zero.step()
    for step in range(2 + n - 1 if uneven else 3):
        ref_opt.zero_grad()
        active = [r for r in range(n) if not uneven or step < 2 + r]
        sum(F.cross_entropy(reference(batch(step, r)[0]), batch(step, r)[1]) for r in active).div(n).backward()
        ref_opt.step()
    close(model.module, reference, f"ZeRO uneven={uneven}", tol=1e-4)
zero.consolidate_state_dict(to=0)
if rank == 0:
    full, want = zero.state_dict(), ref_opt.state_dict()
    assert full["param_groups"] == want["param_groups"], (full["param_groups"], want["param_groups"])
    assert sorted(full["state"]) == sorted(want["state"]), (sorted(full["state"]), sorted(want["state"]))
    for i, s in want["state"].items():
        assert torch.allclose(full["state"][i]["exp_avg_sq"], s["exp_avg_sq"], atol=1e-6)
else:
    try:
        zero.state_dict()
        raise AssertionError("state_dict without consolidation")
    except RuntimeError as e:
        assert "consolidate_state_dict" in str(e)
fresh = ZeroRedundancyOptimizer(model.parameters(), torch.optim.Adam, lr=0.05)
fresh.load_state_dict(ref_opt.state_dict())
for p in (p for g in fresh.optim.param_groups for p in g["params"]):
    index = [id(q) for q in model.parameters()].index(id(p))
    assert torch.equal(fresh.state[p]["exp_avg"], ref_opt.state_dict()["state"][index]["exp_avg"])

# communication hooks: the default ones give DDP's averages (fp16 to half precision); a custom hook
# sees every bucket once, in order, and what it returns becomes the gradients
def train(options, hook=None, state=None, steps=2):
    torch.manual_seed(0)
    model = DDP(Net(unused=options.pop("unused", False)), bucket_cap_mb=1e-4, **options)
    if hook is not None:
        model.register_comm_hook(state, hook)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    for step in range(steps):
        x, y = batch(step, rank)
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    return model


plain = train({})
close(train({}, default_hooks.allreduce_hook), plain.module, "allreduce_hook")
close(train({}, default_hooks.fp16_compress_hook, dist.group.WORLD), plain.module, "fp16_compress_hook", tol=2e-3)
close(train({}, default_hooks.bf16_compress_hook), plain.module, "bf16_compress_hook", tol=3e-2)
seen = []


def summing_hook(state, bucket):
    seen.append((bucket.index(), bucket.is_last(), len(bucket.parameters()), state))
    assert bucket.gradients()[0].data_ptr() == bucket.buffer().data_ptr()
    fut = torch.futures.Future()
    dist.all_reduce(bucket.buffer())
    fut.set_result(bucket.buffer())  # the sum, not the average: n times the step
    return fut


summed = train({}, summing_hook, "st", steps=1)
buckets = len(summed._buckets)
assert [s[:2] for s in seen] == [(i, i == buckets - 1) for i in range(buckets)] and seen[0][3] == "st", seen
once = train({}, steps=1)
for p, q in zip(summed.module.parameters(), once.module.parameters()):
    assert torch.allclose(p.grad, q.grad * n, atol=1e-5), "a hook's result must become the gradients"
for bad, error in ((lambda bucket: None, ValueError), (lambda s, b: b.buffer(), RuntimeError)):
    m = DDP(Net())
    try:
        m.register_comm_hook(None, bad)
        F.cross_entropy(m(batch(0, rank)[0]), batch(0, rank)[1]).backward()
        raise AssertionError(f"a bad hook was accepted: {error}")
    except error as e:
        assert "Communication hook" in str(e), e
try:
    plain.register_comm_hook(None, default_hooks.allreduce_hook)
    plain.register_comm_hook(None, default_hooks.allreduce_hook)
    raise AssertionError("a second hook was accepted")
except RuntimeError as e:
    assert "only be called once" in str(e)

# static_graph: the unused parameter found in the first iteration is remembered, training matches
static = train({"static_graph": True, "unused": True}, steps=3)
assert [id(p) for p in static._static_unused] == [id(p) for p in static.module.unused.parameters()]
close(static.module, train({"find_unused_parameters": True, "unused": True}, steps=3).module, "static_graph")

# Join with no_sync: rank r runs 2 + r iterations of (one no_sync backward, one synced backward)
model = DDP(Net())
reference = copy.deepcopy(model.module)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
ref_opt = torch.optim.SGD(reference.parameters(), lr=0.5)
with Join([model]):
    for step in range(2 + rank):
        opt.zero_grad()
        with model.no_sync():
            x, y = batch(2 * step, rank)
            F.cross_entropy(model(x), y).backward()
        x, y = batch(2 * step + 1, rank)
        F.cross_entropy(model(x), y).backward()
        opt.step()
for step in range(2 + n - 1):
    ref_opt.zero_grad()
    active = [r for r in range(n) if step < 2 + r]
    loss = sum(F.cross_entropy(reference(batch(s, r)[0]), batch(s, r)[1]) for r in active for s in (2 * step, 2 * step + 1))
    loss.div(n).backward()
    ref_opt.step()
close(model.module, reference, "Join with no_sync")

# DistributedSampler takes its replicas and rank from the process group
sampler = torch.utils.data.DistributedSampler(range(10), seed=1)
explicit = torch.utils.data.DistributedSampler(range(10), num_replicas=n, rank=rank, seed=1)
assert (sampler.num_replicas, sampler.rank) == (n, rank) and list(sampler) == list(explicit)
print("OK ddp", flush=True)
