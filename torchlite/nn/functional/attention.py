"""torchlite.nn.functional: scaled_dot_product_attention (a composite of matmul and softmax)."""

import math

import torchlite
from torchlite import _C

__all__ = ["scaled_dot_product_attention"]


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    L, S = query.shape[-2], key.shape[-2]
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if enable_gqa:
        groups = query.shape[-3] // key.shape[-3]
        if groups > 1:  # each key/value head serves `groups` query heads
            key = key.unsqueeze(-3).expand(*key.shape[:-2], groups, S, key.shape[-1]).flatten(-4, -3)
            value = value.unsqueeze(-3).expand(*value.shape[:-2], groups, S, value.shape[-1]).flatten(-4, -3)
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = query.matmul(key.transpose(-2, -1)) * scale
    if is_causal:
        attn_mask = torchlite.arange(L).unsqueeze(-1) >= torchlite.arange(S).unsqueeze(0)  # lower triangle
    if attn_mask is not None:
        if attn_mask.dtype == torchlite.bool:  # True = take part in attention
            scores = _C.where(attn_mask, scores, -math.inf)
        else:
            scores = scores + attn_mask
    weights = _C.softmax(scores, -1)
    if dropout_p > 0.0:
        dropout = getattr(torchlite.nn.functional, "dropout", None)  # another module may still be adding it
        if not callable(dropout):
            raise NotImplementedError("scaled_dot_product_attention with dropout_p > 0 needs F.dropout")
        weights = dropout(weights, dropout_p, training=True)
    return weights.matmul(value)
