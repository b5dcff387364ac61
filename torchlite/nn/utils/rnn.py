"""Variable-length sequences: PackedSequence and the helpers that pack, pad and unpad batches.

A PackedSequence holds the time steps of a batch of sequences (sorted longest first) one after
another: step t contributes the rows of the batch_sizes[t] sequences still running. The RNN
modules (and torch.lstm/gru/rnn_* in their packed overload) run over it directly.
"""

from collections.abc import Iterable
from typing import NamedTuple

import torchlite
from torchlite import _C
from torchlite._C import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def _maybe(tensor, fn):
    return None if tensor is None else fn(tensor)


class PackedSequence(PackedSequence_):
    """(data, batch_sizes, sorted_indices, unsorted_indices) of a packed batch; build one with
    pack_padded_sequence or pack_sequence. batch_sizes is always an int64 CPU tensor; the index
    tensors live on data's device."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            # PyTorch also accepts the (data, batch_sizes) pair as the first argument.
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be "
                             "created manually. They should be instantiated by functions like pack_sequence and "
                             "pack_padded_sequences in nn.utils.rnn.")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _with_data(self, data):
        """self when data is self.data, else a PackedSequence over data with the indices on its device."""
        if data is self.data:
            return self
        move = lambda t: t.to(data.device)  # noqa: E731
        return type(self)(data, self.batch_sizes, _maybe(self.sorted_indices, move),
                          _maybe(self.unsorted_indices, move))

    def to(self, *args, **kwargs):
        """Converts data like Tensor.to (batch_sizes stays on the CPU); self when nothing changes."""
        return self._with_data(self.data.to(*args, **kwargs))

    def cuda(self, *args, **kwargs):
        return self._with_data(self.data.cuda(*args, **kwargs))

    def cpu(self, *args, **kwargs):
        return self._with_data(self.data.cpu(*args, **kwargs))

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes, _maybe(self.sorted_indices, Tensor.pin_memory),
                          _maybe(self.unsorted_indices, Tensor.pin_memory))

    def double(self):
        return self.to(dtype=torchlite.double)

    def float(self):
        return self.to(dtype=torchlite.float)

    def half(self):
        return self.to(dtype=torchlite.half)

    def long(self):
        return self.to(dtype=torchlite.long)

    def int(self):
        return self.to(dtype=torchlite.int)

    def short(self):
        return self.to(dtype=torchlite.short)

    def char(self):
        return self.to(dtype=torchlite.int8)

    def byte(self):
        return self.to(dtype=torchlite.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def invert_permutation(permutation):
    """The permutation q with q[p[i]] = i (None stays None)."""
    if permutation is None:
        return None
    output = _C.empty_like(permutation)
    return output.scatter_(0, permutation, _C.arange(permutation.numel(), device=permutation.device))


def _pack(input, lengths, batch_first):
    """(data, batch_sizes) of a padded (T, B, *) input (B, T, * when batch_first) whose sequences are sorted
    longest first."""
    if lengths.dim() != 1 or lengths.device.type != "cpu" or lengths.dtype != torchlite.int64:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D "
                           f"{lengths.device} {lengths.dtype} tensor")
    if batch_first:
        input = input.transpose(0, 1)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch = input.shape[1]
    if lengths.shape[0] != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.shape[0]} "
                           f"(batch_size={batch})")
    lens = lengths.tolist()
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if any(a < b for a, b in zip(lens, lens[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    if lens[0] > input.shape[0]:
        raise RuntimeError(f"a sequence length ({lens[0]}) exceeds the padded length {input.shape[0]}")
    sizes = [sum(1 for n in lens if n > t) for t in range(lens[0])]
    data = _C.cat([input[t, :size] for t, size in enumerate(sizes)])
    return data, _C.tensor(sizes, dtype=torchlite.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch (T, B, *) (or (B, T, *)) of sequences with the given lengths. With
    enforce_sorted=False the sequences may come in any order (the result remembers the sort)."""
    if isinstance(lengths, Tensor):
        lengths = lengths.to(dtype=torchlite.int64)
    else:
        lengths = _C.tensor(list(lengths), dtype=torchlite.int64)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = _C.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of pack_padded_sequence: (padded, lengths), padded to total_length steps when given."""
    sizes = sequence.batch_sizes.tolist()
    steps = len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    data = sequence.data
    batch = sizes[0]
    rows = []
    for t, chunk in enumerate(data.split(sizes)):
        if sizes[t] < batch:
            chunk = _C.cat([chunk, data.new_full((batch - sizes[t], *data.shape[1:]), padding_value)])
        rows.append(chunk)
    padded = _C.stack(rows)
    if steps > len(sizes):
        padded = _C.cat([padded, data.new_full((steps - len(sizes), batch, *data.shape[1:]), padding_value)])
    if batch_first:
        padded = padded.transpose(0, 1)
    lengths = _C.tensor([sum(1 for size in sizes if size > b) for b in range(batch)], dtype=torchlite.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.cpu()]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks tensors of shape (L_i, *) into (L_max, N, *) (or (N, L_max, *)), padding with padding_value."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        missing = max_len - s.shape[0]
        if missing:
            fill = _C.full((missing, *s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
            s = _C.cat([s, fill] if padding_side == "right" else [fill, s])
        padded.append(s)
    return _C.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The inverse of pad_sequence for right padding: a list of tensors of the given lengths."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(length)] for seq, length in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of tensors (L_i, *); with enforce_sorted they must come longest first."""
    lengths = _C.tensor([s.shape[0] for s in sequences], dtype=torchlite.int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of tensors a PackedSequence was packed from, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
