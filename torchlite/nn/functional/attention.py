"""torchlite.nn.functional: scaled_dot_product_attention and multi_head_attention_forward (composites of
matmul and softmax)."""

import math
import warnings

import torchlite
from torchlite import _C
from torchlite.nn.functional.dropout import dropout
from torchlite.nn.functional.linear import linear
from torchlite.nn.functional.softmax import softmax
from torchlite.nn.functional.vision import pad

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


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
        weights = dropout(weights, dropout_p, training=True)
    return weights.matmul(value)


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A boolean mask (True = not allowed to attend) as a -inf/0 mask of target_type; float masks as they are."""
    if mask is None:
        return None
    if mask.dtype != torchlite.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if mask.is_floating_point():
        return mask
    return _C.zeros_like(mask, dtype=target_type).masked_fill_(mask, -math.inf)


def _none_or_dtype(input):
    return None if input is None else input.dtype


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the input is batched; raises PyTorch's AssertionErrors on inconsistent ranks."""
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                             "tensor")
    batched = query.dim() == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {query.dim()}-D but found "
                             f"{key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != query.dim() - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or {query.dim() - 1}-D "
                             f"but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.dim()}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {tuple(attn_mask.shape)}")
    return batched


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Multi-head attention over (L, N, E) query and (S, N, E_k/E_v) key/value (or unbatched (L, E)):
    returns (output, attention weights or None), the weights averaged over heads unless
    average_attn_weights=False. Boolean masks mark the positions that may not be attended."""
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the causal hint alone drives the attention kernel, as in PyTorch
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
                                 f"{tuple(value.shape[:2])}")
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
    # Self-attention with the packed weight: one projection for q, k and v, split into heads by
    # one copy (no bias_k/static_k: those act on k and v before the head split).
    packed = (not use_separate_proj_weight and query is key and key is value and bias_k is None
              and static_k is None and static_v is None)
    # (L, N, E) input that is the transpose of a contiguous (N, L, E) one (batch_first): the
    # projections run over its rows in that order, so no copy goes in.
    batch_major = query.transpose(0, 1).is_contiguous()
    if packed:
        q, k, v = _packed_heads(query, in_proj_weight, in_proj_bias, num_heads, batch_major)
    else:
        weights = ((q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight
                   else in_proj_weight.chunk(3))
        biases = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = (linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                               f"{(bsz * num_heads, tgt_len, src_len)}.")
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k is set but bias_v is None" if bias_v is None else
                             "bias_v is set but bias_k is None")
    if bias_k is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError(f"bias cannot be added to static {'key' if static_k is not None else 'value'}.")
        k = _C.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _C.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    if not packed:
        q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
        k, v = (_static_or_heads(t, static, bsz * num_heads, head_dim, name)
                for t, static, name in ((k, static_k, "static_k"), (v, static_v, "static_v")))
    if add_zero_attn:
        zeros = _C.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype, device=k.device)
        k = _C.cat([k, zeros], 1)
        v = _C.cat([v, zeros.to(v.dtype)], 1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len)
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(head_dim))
        scores = q_scaled.bmm(k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        attn = softmax(scores, dim=-1)
        if dropout_p > 0.0:
            attn = dropout(attn, p=dropout_p)
        out = _out_projection(attn.bmm(v).view(bsz, num_heads, tgt_len, head_dim), out_proj_weight, out_proj_bias)
        attn = attn.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            attn = attn.mean(dim=1)
        if not batched:
            out, attn = out.squeeze(1), attn.squeeze(0)
        return out, attn
    if attn_mask is not None:
        attn_mask = attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1 else attn_mask.reshape(bsz, num_heads, -1,
                                                                                           src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = _out_projection(out, out_proj_weight, out_proj_bias)
    return (out if batched else out.squeeze(1)), None


def _packed_heads(x, in_proj_weight, in_proj_bias, num_heads, batch_major):
    """q, k and v of self-attention over x (L, N, E), each (N * heads, L, head_dim) and contiguous:
    one linear with the packed (3E, E) weight, then one copy into head-major order."""
    tgt_len, bsz, embed_dim = x.shape
    head_dim = embed_dim // num_heads
    if batch_major:
        proj = linear(x.transpose(0, 1), in_proj_weight, in_proj_bias)
        proj = proj.view(bsz, tgt_len, 3, num_heads, head_dim).permute(2, 0, 3, 1, 4)
    else:
        proj = linear(x, in_proj_weight, in_proj_bias)
        proj = proj.view(tgt_len, bsz, 3, num_heads, head_dim).permute(2, 1, 3, 0, 4)
    return proj.reshape(3, bsz * num_heads, tgt_len, head_dim).unbind(0)


def _out_projection(heads, out_proj_weight, out_proj_bias):
    """The output projection of heads (N, heads, L, head_dim) as a contiguous (L, N, E), as PyTorch
    returns it whatever the input's layout."""
    bsz, num_heads, tgt_len, head_dim = heads.shape
    rows = heads.permute(2, 0, 1, 3).reshape(tgt_len * bsz, num_heads * head_dim)
    return linear(rows, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)


def _static_or_heads(t, static, batch_heads, head_dim, name):
    """t (S, N, E) split into heads (N * heads, S, head_dim), or the given precomputed static tensor."""
    if static is None:
        return t.reshape(t.shape[0], batch_heads, head_dim).transpose(0, 1)
    if static.shape[0] != batch_heads:
        raise AssertionError(f"expecting {name}.size(0) of {batch_heads}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}")
    return static
