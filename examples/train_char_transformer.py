"""Train a character-level transformer language model on the bundled Shakespeare, then sample.

Plain PyTorch code: runs on torchlite by default and on PyTorch with --torch. A causal
TransformerEncoder over learned token and position embeddings predicts the next character.
It reports the held-out loss against the unigram baseline (the entropy of the character
frequencies), saves a checkpoint and the loss curve, and prints a sample.

    python examples/train_char_transformer.py [--steps 600] [--torch] [--autocast]

--autocast runs the forward pass and the loss under bfloat16 autocast on the CPU (the weights,
gradients and optimizer stay float32), as torch.autocast("cpu") does.
"""

import math

import numpy as np

from common import DATA, Progress, load_library, output_dir, parse_args, plot_losses

args = parse_args(__doc__.splitlines()[0], steps=600, batch_size=32, context=64, d_model=128, heads=4, layers=2,
                  lr=3e-3, sample_chars=400, autocast=False)
torch = load_library(args)
nn, F = torch.nn, torch.nn.functional


class CharTransformer(nn.Module):
    def __init__(self, vocab, context, d_model, heads, layers):
        super().__init__()
        self.tokens = nn.Embedding(vocab, d_model)
        self.positions = nn.Embedding(context, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=4 * d_model, dropout=0.1,
                                           activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)
        self.register_buffer("causal", torch.triu(torch.full((context, context), float("-inf")), 1),
                             persistent=False)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tokens(idx) + self.positions(torch.arange(t))
        x = self.encoder(x, mask=self.causal[:t, :t])
        return self.head(self.norm(x))


class Windows(torch.utils.data.Dataset):
    """(input, target) pairs: `context` characters and the same shifted by one."""

    def __init__(self, ids, context):
        self.ids, self.context = ids, context

    def __len__(self):
        return len(self.ids) - self.context - 1

    def __getitem__(self, i):
        chunk = self.ids[i:i + self.context + 1]
        return chunk[:-1], chunk[1:]


text = (DATA / "shakespeare.txt").read_text()
chars = sorted(set(text))
ids = torch.tensor([chars.index(c) for c in text], dtype=torch.long)
split = int(0.9 * len(ids))
counts = np.bincount(ids[:split].numpy(), minlength=len(chars)) + 1e-12
unigram = float(-(counts / counts.sum() * np.log(counts / counts.sum())).sum())  # nats per character

loader = torch.utils.data.DataLoader(Windows(ids[:split], args.context), batch_size=args.batch_size, shuffle=True,
                                     drop_last=True, generator=torch.Generator().manual_seed(args.seed))
model = CharTransformer(len(chars), args.context, args.d_model, args.heads, args.layers)
optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, total_steps=args.steps)


def heldout_loss(n_batches=8):
    model.eval()
    val = Windows(ids[split:], args.context)
    starts = np.linspace(0, len(val) - 1, n_batches * args.batch_size).astype(int)
    with torch.no_grad():
        losses = []
        for b in range(n_batches):
            x, y = zip(*(val[i] for i in starts[b * args.batch_size:(b + 1) * args.batch_size]))
            logits = model(torch.stack(x))
            losses.append(F.cross_entropy(logits.reshape(-1, len(chars)), torch.stack(y).reshape(-1)).item())
    model.train()
    return float(np.mean(losses))


def sample(n, prompt="MACBETH.\n"):
    model.eval()
    idx = torch.tensor([[chars.index(c) for c in prompt]], dtype=torch.long)
    gen = torch.Generator().manual_seed(args.seed)
    with torch.no_grad():
        for _ in range(n):
            probs = F.softmax(model(idx[:, -args.context:])[:, -1] / 0.8, dim=-1)
            idx = torch.cat([idx, torch.multinomial(probs, 1, generator=gen)], dim=1)
    return "".join(chars[i] for i in idx[0].tolist())


steps, losses = [], []
progress = Progress(args.steps, "char", "char transformer")
batches = iter(loader)
while len(steps) < args.steps:
    x, y = next(batches)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.autocast):
        loss = F.cross_entropy(model(x).reshape(-1, len(chars)), y.reshape(-1))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    scheduler.step()
    steps.append(len(steps))
    losses.append(loss.item())
    progress.step(losses[-1], x.numel())
seconds = progress.close()

val_loss = heldout_loss()
out = output_dir(args, "char_transformer")
torch.save({"model": model.state_dict(), "chars": chars}, out / "checkpoint.pt")
plot_losses(out / "loss.png", {"train loss": (steps, losses), "unigram baseline": ([0, steps[-1]], [unigram] * 2)},
            "character transformer")

print(f"library: {'PyTorch ' + torch.__version__ if args.torch else 'torchlite'}")
print(f"steps: {len(steps)}  time: {seconds:.1f} s  ({1000 * seconds / len(steps):.1f} ms/step)")
print(f"held-out loss: {val_loss:.3f} nats/char ({val_loss / math.log(2):.2f} bits); "
      f"unigram baseline: {unigram:.3f} nats/char")
print(f"checkpoint and loss curve: {out}/")
print("sample:\n" + sample(args.sample_chars))
