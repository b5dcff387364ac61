"""Train a small CNN on the bundled handwritten digits (UCI, 1797 8x8 images, 10 classes).

The program is plain PyTorch: it runs on torchlite by default and on PyTorch with --torch.
It trains with Adam and a cosine schedule, reports held-out accuracy, saves a checkpoint,
reloads it into a fresh model and checks it predicts the same, and writes the loss curve.

    python examples/train_digits_cnn.py [--epochs 15] [--torch]

With --ddp it trains data-parallel (DistributedDataParallel, each rank a share of every batch),
started by the launcher (torchrun's flags; with --torch, start it with torchrun instead):

    python -m torchlite.distributed.run --nproc-per-node 2 examples/train_digits_cnn.py --ddp
"""

import numpy as np

from common import DATA, Progress, load_library, output_dir, parse_args, plot_losses

args = parse_args(__doc__.splitlines()[0], epochs=15, batch_size=64, lr=2e-3, ddp=False)
torch = load_library(args)
nn, F = torch.nn, torch.nn.functional
from_data = torch.utils.data  # Dataset / DataLoader
if args.ddp:
    torch.distributed.init_process_group("gloo")
rank, world = (torch.distributed.get_rank(), torch.distributed.get_world_size()) if args.ddp else (0, 1)


class DigitsCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 4 * 4, 128), nn.ReLU(),
                                        nn.Linear(128, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def load_digits():
    raw = np.load(DATA / "digits.npz")
    images = (raw["images"].astype(np.float32) / 16.0 - 0.5)[:, None]  # N, 1, 8, 8 in [-0.5, 0.5]
    labels = raw["labels"].astype(np.int64)
    order = np.random.default_rng(0).permutation(len(labels))  # the same split for both libraries
    test, train = order[:360], order[360:]
    as_set = lambda idx: from_data.TensorDataset(torch.from_numpy(images[idx]), torch.from_numpy(labels[idx]))
    return as_set(train), as_set(test)


def accuracy(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += len(y)
    model.train()
    return correct / total


train_set, test_set = load_digits()
# with --ddp each rank loads its share of the data, batch_size / world at a time: the same global batch
sampler = from_data.DistributedSampler(train_set, seed=args.seed) if args.ddp else None
loader = from_data.DataLoader(train_set, batch_size=args.batch_size // world, shuffle=sampler is None,
                              sampler=sampler, generator=torch.Generator().manual_seed(args.seed))
test_loader = from_data.DataLoader(test_set, batch_size=256)
net = DigitsCNN()
model = nn.parallel.DistributedDataParallel(net) if args.ddp else net
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(loader))

steps, losses = [], []
progress = Progress(args.epochs * len(loader), "img", "digits CNN", show=rank == 0)
for epoch in range(args.epochs):
    if sampler is not None:
        sampler.set_epoch(epoch)
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        steps.append(len(steps))
        losses.append(loss.item())
        progress.step(losses[-1], len(y))
seconds = progress.close()
if rank != 0:  # rank 0 evaluates, saves and reports; the model is the same on every rank
    torch.distributed.destroy_process_group()
    raise SystemExit

test_acc = accuracy(net, test_loader)
out = output_dir(args, "digits_cnn")
torch.save({"model": net.state_dict(), "optimizer": optimizer.state_dict(), "epochs": args.epochs},
           out / "checkpoint.pt")
restored = DigitsCNN()
restored.load_state_dict(torch.load(out / "checkpoint.pt")["model"])
assert accuracy(restored, test_loader) == test_acc, "the reloaded checkpoint predicts differently"
plot_losses(out / "loss.png", {"train loss": (steps, losses)}, "digits CNN")

print(f"library: {'PyTorch ' + torch.__version__ if args.torch else 'torchlite'}"
      + (f", DistributedDataParallel over {world} ranks" if args.ddp else ""))
print(f"steps: {len(steps)}  time: {seconds:.1f} s  ({1000 * seconds / len(steps):.1f} ms/step)")
print(f"final train loss (mean of last 20 steps): {np.mean(losses[-20:]):.4f}")
print(f"held-out accuracy: {test_acc:.4f} ({len(test_set)} images)")
print(f"checkpoint and loss curve: {out}/")
if args.ddp:
    torch.distributed.destroy_process_group()
