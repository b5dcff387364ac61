"""Training steps of small real models, written once for any library with PyTorch's API.

Each `*_step(lib, quick)` builds a model, an SGD optimizer and a fixed random batch in `lib`
(torchlite or torch) and returns a zero-argument callable running one full training step:
zero_grad, forward, cross-entropy loss, backward, optimizer step. `quick` shrinks the batch
for smoke runs. Used by run_all.py for its table and its busy-machine section.
"""

from __future__ import annotations


def _train_step(lib, model, inputs, target):
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad()
        out = model(inputs)
        loss = lib.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), target.reshape(-1))
        loss.backward()
        opt.step()
    return step


def mlp_step(lib, quick=False):
    """MLP 784-256-256-10 on a batch of 128 (32 quick)."""
    nn = lib.nn
    lib.manual_seed(0)
    batch = 32 if quick else 128
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    return _train_step(lib, model, lib.randn(batch, 784), lib.randint(0, 10, (batch,)))


def small_cnn_step(lib, quick=False):
    """Two conv-relu-maxpool blocks (3->32->64 channels) and a linear head, CIFAR 32x32, batch 64 (8 quick)."""
    nn = lib.nn
    lib.manual_seed(0)
    batch = 8 if quick else 64
    model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(64 * 8 * 8, 10))
    return _train_step(lib, model, lib.randn(batch, 3, 32, 32), lib.randint(0, 10, (batch,)))


def resnet18(lib, num_classes=10):
    """ResNet-18 for CIFAR: a 3x3 stem without max-pool, four stages of two basic blocks, 64-512
    channels."""
    nn = lib.nn

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.shortcut = nn.Sequential()
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            h = self.bn1(self.conv1(x)).relu()
            return (self.bn2(self.conv2(h)) + self.shortcut(x)).relu()

    layers = [nn.Conv2d(3, 64, 3, 1, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU()]
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, num_classes)]
    return nn.Sequential(*layers)


def resnet18_step(lib, quick=False):
    """A training step of resnet18(), batch 8 (2 quick)."""
    lib.manual_seed(0)
    model = resnet18(lib)
    batch = 2 if quick else 8
    return _train_step(lib, model, lib.randn(batch, 3, 32, 32), lib.randint(0, 10, (batch,)))


def transformer_step(lib, quick=False):
    """Token embedding, two TransformerEncoderLayers (d_model 128, 4 heads, feed-forward 512) and a
    vocabulary head over 256 tokens; batch 16 x 64 tokens (2 x 16 quick)."""
    nn = lib.nn

    class TinyLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(256, 128)
            self.layers = nn.Sequential(*(nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0, batch_first=True)
                                          for _ in range(2)))
            self.head = nn.Linear(128, 256)

        def forward(self, idx):
            return self.head(self.layers(self.embed(idx)))

    lib.manual_seed(0)
    batch, seq = (2, 16) if quick else (16, 64)
    return _train_step(lib, TinyLM(), lib.randint(0, 256, (batch, seq)), lib.randint(0, 256, (batch, seq)))


def lstm_lm_step(lib, quick=False):
    """Word-level LSTM language model: embedding 128, one LSTM layer of 256, head over 2000 words;
    35 steps x batch 32 (8 x 4 quick)."""
    nn = lib.nn

    class LSTMLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(2000, 128)
            self.lstm = nn.LSTM(128, 256)
            self.head = nn.Linear(256, 2000)

        def forward(self, idx):
            return self.head(self.lstm(self.embed(idx))[0])

    lib.manual_seed(0)
    seq, batch = (8, 4) if quick else (35, 32)
    return _train_step(lib, LSTMLM(), lib.randint(0, 2000, (seq, batch)), lib.randint(0, 2000, (seq, batch)))


STEPS = {"MLP": mlp_step, "small CNN": small_cnn_step, "ResNet-18": resnet18_step,
         "transformer": transformer_step, "LSTM LM": lstm_lm_step}
