"""Sequence helpers: pad_sequence and unpad_sequence (PackedSequence is not implemented)."""

from torchlite import _C

__all__ = ["pad_sequence", "unpad_sequence"]


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks tensors of shape (L_i, *) into (L_max, N, *) (or (N, L_max, *)), padding with padding_value."""
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
