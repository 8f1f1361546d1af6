"""Scaled dot-product and multi-head attention — the reference the grader judges against.

Mask convention (one, everywhere in the course): a bool tensor broadcastable to
(..., T_q, T_k) where **True means "may attend"** — the convention of the boolean
``attn_mask`` of ``torch.nn.functional.scaled_dot_product_attention``.
A query whose keys are all masked gets a **zero output row** (defined, never NaN).
Device and dtype are the caller's: nothing here moves tensors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class AttentionConfig:
    d_model: int
    n_heads: int
    bias: bool = True
    dropout: float = 0.0


def attention_weights(q, k, mask=None, *, scale=None, bias=None):
    """softmax(q kᵀ · scale + bias) over the keys; rows with no allowed key are all zero.
    ``bias``: optional additive float scores (ALiBi, T5 relative bias) broadcastable to (..., T_q, T_k)."""
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = (q @ k.transpose(-2, -1)) * scale
    if bias is not None:
        scores = scores + bias
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return torch.nan_to_num(weights, nan=0.0)  # softmax of an all -inf row is NaN


def scaled_dot_product_attention(q, k, v, mask=None, *, scale=None, fast=True, bias=None, is_causal=False):
    """softmax(q kᵀ / √d_k + bias) v.  q (..., T_q, d_k), k (..., T_k, d_k), v (..., T_k, d_v).
    ``bias`` (optional, additive float) is how ALiBi and T5 relative positions enter.
    ``is_causal``: AND ``causal_mask(T_q, T_k)`` into the mask (the kernel's own causal mode
    when nothing else is masked — what nn.Transformer uses for a causal target)."""
    if is_causal:
        if fast and mask is None and bias is None and q.shape[-2] == k.shape[-2]:
            return F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale)
        causal = causal_mask(q.shape[-2], k.shape[-2], device=q.device)
        mask = causal if mask is None else mask & causal
    if not fast:
        return attention_weights(q, k, mask, scale=scale, bias=bias) @ v
    bias = None if bias is None else bias.to(q.dtype)
    if mask is None:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=scale)
    # Fully masked rows: some torch backends return NaN there (and NaN gradients); let those
    # rows attend everywhere so every kernel is defined, then zero them as the course defines.
    no_key = ~mask.any(dim=-1, keepdim=True)
    attn_mask = mask | no_key
    if bias is not None:
        attn_mask = bias.masked_fill(~attn_mask, float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, scale=scale)
    return out.masked_fill(no_key, 0.0)


def causal_mask(t_q, t_k=None, *, device=None):
    """(t_q, t_k) bool, True on and below the diagonal, aligned to the end for a KV cache:
    query i may see keys j <= i + (t_k - t_q)."""
    t_k = t_q if t_k is None else t_k
    return torch.ones(t_q, t_k, dtype=torch.bool, device=device).tril(diagonal=t_k - t_q)


def padding_mask(key_is_pad):
    """(B, T_k) bool, True = padding  ->  (B, 1, 1, T_k) bool, True = may attend."""
    return (~key_is_pad)[:, None, None, :]


def decoder_self_mask(key_is_pad):
    """The decoder's self-attention mask, 001's "Padding-Maske + Causal-Maske": (B, T) bool,
    True at target padding  ->  (B, 1, T, T) bool, True where query i may attend key j: j <= i
    and key j is not padding (the padding mask hides keys, the last axis, as in the encoder)."""
    return causal_mask(key_is_pad.shape[-1], device=key_is_pad.device) & padding_mask(key_is_pad)


def _split_heads(x, n_heads):
    b, t, d = x.shape
    return x.view(b, t, n_heads, d // n_heads).transpose(1, 2)  # (B, h, T, d_head)


def _merge_heads(x):
    b, h, t, d_head = x.shape
    return x.transpose(1, 2).reshape(b, t, h * d_head)


def multi_head_attention(x_q, x_kv, weights: dict, n_heads: int, mask=None, *, fast=True):
    """Functional MHA: weights {"w_q","b_q","w_k","b_k","w_v","b_v","w_o","b_o"} in nn.Linear
    layout (out, in); any b_* may be None. x: (B, T, d_model)."""
    x_kv = x_q if x_kv is None else x_kv
    q = _split_heads(F.linear(x_q, weights["w_q"], weights.get("b_q")), n_heads)
    k = _split_heads(F.linear(x_kv, weights["w_k"], weights.get("b_k")), n_heads)
    v = _split_heads(F.linear(x_kv, weights["w_v"], weights.get("b_v")), n_heads)
    out = scaled_dot_product_attention(q, k, v, mask, fast=fast)
    return F.linear(_merge_heads(out), weights["w_o"], weights.get("b_o"))


class MultiHeadAttention(nn.Module):
    def __init__(self, cfg: AttentionConfig):
        super().__init__()
        assert cfg.d_model % cfg.n_heads == 0, "d_model must split evenly across heads"
        self.cfg = cfg
        self.q_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=cfg.bias)
        self.k_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=cfg.bias)
        self.v_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=cfg.bias)
        self.out_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=cfg.bias)
        self.dropout = nn.Dropout(cfg.dropout)

    def weights(self) -> dict:
        return {
            "w_q": self.q_proj.weight,
            "b_q": self.q_proj.bias,
            "w_k": self.k_proj.weight,
            "b_k": self.k_proj.bias,
            "w_v": self.v_proj.weight,
            "b_v": self.v_proj.bias,
            "w_o": self.out_proj.weight,
            "b_o": self.out_proj.bias,
        }

    def forward(self, x_q, x_kv=None, mask=None, fast=True):
        return self.dropout(multi_head_attention(x_q, x_kv, self.weights(), self.cfg.n_heads, mask, fast=fast))
