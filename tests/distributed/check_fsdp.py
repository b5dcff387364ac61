"""Run by tests/test_distributed.py: FullyShardedDataParallel trains like one unsharded process,
keeps 1/world of the parameters, gradients and Adam state per rank, and round-trips its full
state dict."""

import copy

import torchlite as torch
import torchlite.distributed as dist
from torchlite.distributed.fsdp import FullyShardedDataParallel as FSDP
from torchlite.distributed.fsdp import fully_sharded_data_parallel as fsdp_impl

dist.init_process_group()
rank, n = dist.get_rank(), dist.get_world_size()
nn, F = torch.nn, torch.nn.functional
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 3))
reference = copy.deepcopy(net)
full_numel = sum(p.numel() for p in net.parameters())
model = FSDP(net)
assert [name for name, _ in model.named_parameters()] == ["_flat_param"] and list(net.parameters()) == []
opt = torch.optim.Adam(model.parameters(), lr=0.02)
ref_opt = torch.optim.Adam(reference.parameters(), lr=0.02)


def batch(step, r):
    g = torch.Generator().manual_seed(100 * step + r)
    return torch.randn(5, 6, generator=g), torch.randint(0, 3, (5,), generator=g)


gathers = []
gather = fsdp_impl._gather
fsdp_impl._gather = lambda *a: gathers.append(1) or gather(*a)
for step in range(3):
    x, y = batch(step, rank)
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    assert len(gathers) == 2 * step + 1
    loss.backward()
    # backward gathered the parameters again (forward's copy was not kept) and freed them at the end
    assert len(gathers) == 2 * step + 2 and model._regathered is None
    opt.step()
    ref_opt.zero_grad()
    xs, ys = zip(*(batch(step, r) for r in range(n)))
    F.cross_entropy(reference(torch.cat(xs)), torch.cat(ys)).backward()
    ref_opt.step()
state = model.state_dict()
assert list(state) == list(reference.state_dict())
for name, value in reference.state_dict().items():
    assert torch.allclose(state[name], value, atol=1e-5), f"FSDP {name} differs by {(state[name] - value).abs().max()}"


def nbytes(tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


shard = model._flat_param
sharded = nbytes([shard, shard.grad, *opt.state[shard].values()]) - opt.state[shard]["step"].numel() * 4
unsharded = nbytes([*reference.parameters(), *(p.grad for p in reference.parameters())])
unsharded += sum(nbytes([s["exp_avg"], s["exp_avg_sq"]]) for s in ref_opt.state.values())
assert shard.numel() == -(-full_numel // n) and sharded * n <= unsharded + 4 * 4 * n
print(f"per-rank parameters+gradients+Adam state: {sharded} bytes sharded over {n}, {unsharded} unsharded")

fresh = FSDP(nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 3)))
fresh.load_state_dict(state)
assert torch.equal(fresh._flat_param, model._flat_param)
print("OK fsdp", flush=True)
