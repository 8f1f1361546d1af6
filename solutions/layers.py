"""Transformer building blocks: attention with positions and a KV cache, feed-forward network,
encoder layer, decoder layer.

Parameter names follow ``torch.nn.TransformerEncoderLayer`` / ``TransformerDecoderLayer``
(``self_attn``, ``multihead_attn`` → ``cross_attn``, ``linear1``, ``linear2``, ``norm1..3``) so
weights copy across one to one (see ``solutions/interop.py``). Each sub-layer is

    Pre-LN  (norm_first=True):   x + Dropout(Sublayer(LayerNorm(x)))
    Post-LN (norm_first=False):  LayerNorm(x + Dropout(Sublayer(x)))

Dropout sits where PyTorch puts it: on each sub-layer's output and inside the FFN after the
activation (the attention output dropout is the MultiHeadAttention's own).
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from solutions.attention import AttentionConfig, MultiHeadAttention, scaled_dot_product_attention
from solutions.positional import rotate


class Attention(MultiHeadAttention):
    """MultiHeadAttention plus what a model needs: RoPE on q and k, an additive score bias
    (ALiBi / T5) and a KV cache.

    ``rope``: (cos, sin, convention) for the positions of the *new* tokens, each (T, d_head).
    ``cache``: a dict owned by the caller. Self-attention appends the new keys/values to it;
    cross-attention (``x_kv`` given) projects the memory once and reuses it afterwards.
    ``mask="causal"``: causal over equally long queries and keys (the SDPA kernel's causal mode).
    """

    def forward(self, x_q, x_kv=None, mask=None, fast=True, *, bias=None, rope=None, cache=None):
        is_causal = isinstance(mask, str)
        if is_causal:
            assert mask == "causal", mask
            mask = None
        h = self.cfg.n_heads
        q = _split(self.q_proj(x_q), h)
        if cache is not None and x_kv is not None and "k" in cache:
            k, v = cache["k"], cache["v"]  # memory projected on an earlier step
        else:
            src = x_q if x_kv is None else x_kv
            k, v = _split(self.k_proj(src), h), _split(self.v_proj(src), h)
            if rope is not None:
                cos, sin, convention = rope
                q, k = rotate(q, cos, sin, convention), rotate(k, cos, sin, convention)
            if cache is not None:
                if x_kv is None and "k" in cache:
                    k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
                cache["k"], cache["v"] = k, v
        out = scaled_dot_product_attention(q, k, v, mask, fast=fast, bias=bias, is_causal=is_causal)
        return self.dropout(self.out_proj(_merge(out)))


def _split(x, n_heads):
    b, t, d = x.shape
    return x.view(b, t, n_heads, d // n_heads).transpose(1, 2)  # (B, h, T, d_head)


def _merge(x):
    b, h, t, d_head = x.shape
    return x.transpose(1, 2).reshape(b, t, h * d_head)


class FeedForward(nn.Module):
    """linear2(dropout(act(linear1(x)))), d_model → d_ff → d_model."""

    def __init__(self, d_model, d_ff, activation="relu", dropout=0.0, bias=True):
        super().__init__()
        if activation not in ("relu", "gelu"):
            raise ValueError(f"activation must be 'relu' or 'gelu', not {activation!r}")
        self.linear1 = nn.Linear(d_model, d_ff, bias=bias)
        self.linear2 = nn.Linear(d_ff, d_model, bias=bias)
        self.act = F.relu if activation == "relu" else F.gelu  # exact (erf) GELU, as torch's layers
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.linear2(self.dropout(self.act(self.linear1(x))))


def _attn_cfg(cfg):
    return AttentionConfig(cfg.d_model, cfg.n_heads, bias=cfg.bias, dropout=cfg.dropout)


class EncoderLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.norm_first = cfg.norm_first
        self.self_attn = Attention(_attn_cfg(cfg))
        self.ffn = FeedForward(cfg.d_model, cfg.d_ff, cfg.activation, cfg.dropout, cfg.bias)
        self.norm1 = nn.LayerNorm(cfg.d_model, eps=cfg.norm_eps, bias=cfg.bias)
        self.norm2 = nn.LayerNorm(cfg.d_model, eps=cfg.norm_eps, bias=cfg.bias)
        self.dropout = nn.Dropout(cfg.dropout)

    def forward(self, x, mask=None, *, bias=None, rope=None, fast=True):
        def sa(y):
            return self.self_attn(y, mask=mask, fast=fast, bias=bias, rope=rope)

        if self.norm_first:
            x = x + sa(self.norm1(x))
            return x + self.dropout(self.ffn(self.norm2(x)))
        x = self.norm1(x + sa(x))
        return self.norm2(x + self.dropout(self.ffn(x)))


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention to the encoder memory (if ``cross``), FFN."""

    def __init__(self, cfg, cross=True):
        super().__init__()
        self.norm_first = cfg.norm_first
        self.self_attn = Attention(_attn_cfg(cfg))
        self.cross_attn = Attention(_attn_cfg(cfg)) if cross else None
        self.ffn = FeedForward(cfg.d_model, cfg.d_ff, cfg.activation, cfg.dropout, cfg.bias)
        self.norm1 = nn.LayerNorm(cfg.d_model, eps=cfg.norm_eps, bias=cfg.bias)
        self.norm2 = nn.LayerNorm(cfg.d_model, eps=cfg.norm_eps, bias=cfg.bias) if cross else None
        self.norm3 = nn.LayerNorm(cfg.d_model, eps=cfg.norm_eps, bias=cfg.bias)
        self.dropout = nn.Dropout(cfg.dropout)

    def forward(self, x, memory=None, self_mask=None, memory_mask=None, *, bias=None, rope=None, cache=None, fast=True):
        """``cache``: None or a dict {"self": {...}, "cross": {...}} filled in place."""
        c_self = c_cross = None
        if cache is not None:
            c_self, c_cross = cache.setdefault("self", {}), cache.setdefault("cross", {})

        def sa(y):
            return self.self_attn(y, mask=self_mask, fast=fast, bias=bias, rope=rope, cache=c_self)

        def ca(y):
            return self.cross_attn(y, memory, mask=memory_mask, fast=fast, cache=c_cross)

        ff = lambda y: self.dropout(self.ffn(y))  # noqa: E731
        if self.norm_first:
            x = x + sa(self.norm1(x))
            if self.cross_attn is not None:
                x = x + ca(self.norm2(x))
            return x + ff(self.norm3(x))
        x = self.norm1(x + sa(x))
        if self.cross_attn is not None:
            x = self.norm2(x + ca(x))
        return self.norm3(x + ff(x))
