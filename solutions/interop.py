"""Copy weights from PyTorch's own transformer modules into the reference ones, so the two can
be compared output for output (tests) and timed at identical configurations (bench).

PyTorch packs q, k, v into ``in_proj_weight`` (3d, d) / ``in_proj_bias`` (3d,), in that order;
the reference keeps ``q_proj``, ``k_proj``, ``v_proj`` separate.
"""

from __future__ import annotations

import warnings

import torch
import torch.nn as nn

from solutions.model import Decoder, Encoder, TransformerConfig


@torch.no_grad()
def copy_mha(ours, theirs: nn.MultiheadAttention) -> None:
    for proj, w in zip((ours.q_proj, ours.k_proj, ours.v_proj), theirs.in_proj_weight.chunk(3)):
        proj.weight.copy_(w)
    ours.out_proj.weight.copy_(theirs.out_proj.weight)
    if theirs.in_proj_bias is not None:
        for proj, b in zip((ours.q_proj, ours.k_proj, ours.v_proj), theirs.in_proj_bias.chunk(3)):
            proj.bias.copy_(b)
        ours.out_proj.bias.copy_(theirs.out_proj.bias)


@torch.no_grad()
def _copy_same(ours: nn.Module, theirs: nn.Module) -> None:
    for p, q in zip(ours.parameters(), theirs.parameters(), strict=True):
        p.copy_(q)


def copy_encoder_layer(ours, theirs: nn.TransformerEncoderLayer) -> None:
    copy_mha(ours.self_attn, theirs.self_attn)
    _copy_same(ours.ffn.linear1, theirs.linear1), _copy_same(ours.ffn.linear2, theirs.linear2)
    _copy_same(ours.norm1, theirs.norm1), _copy_same(ours.norm2, theirs.norm2)


def copy_decoder_layer(ours, theirs: nn.TransformerDecoderLayer) -> None:
    copy_mha(ours.self_attn, theirs.self_attn)
    copy_mha(ours.cross_attn, theirs.multihead_attn)
    _copy_same(ours.ffn.linear1, theirs.linear1), _copy_same(ours.ffn.linear2, theirs.linear2)
    for n in ("norm1", "norm2", "norm3"):
        _copy_same(getattr(ours, n), getattr(theirs, n))


def copy_transformer(encoder: Encoder, decoder: Decoder, theirs: nn.Transformer) -> None:
    """nn.Transformer always ends each stack with a LayerNorm: use ``final_norm=True``."""
    for o, t in zip(encoder.layers, theirs.encoder.layers, strict=True):
        copy_encoder_layer(o, t)
    for o, t in zip(decoder.layers, theirs.decoder.layers, strict=True):
        copy_decoder_layer(o, t)
    _copy_same(encoder.norm, theirs.encoder.norm), _copy_same(decoder.norm, theirs.decoder.norm)


def torch_transformer_for(cfg: TransformerConfig, **kw) -> nn.Transformer:
    """The nn.Transformer with the same sizes as cfg (batch_first)."""
    with warnings.catch_warnings():  # "enable_nested_tensor is True, but ... norm_first was True"
        warnings.simplefilter("ignore", UserWarning)
        return nn.Transformer(
            d_model=cfg.d_model,
            nhead=cfg.n_heads,
            num_encoder_layers=cfg.n_encoder_layers or cfg.n_layers,
            num_decoder_layers=cfg.n_decoder_layers or cfg.n_layers,
            dim_feedforward=cfg.d_ff,
            dropout=cfg.dropout,
            activation=cfg.activation,
            layer_norm_eps=cfg.norm_eps,
            batch_first=True,
            norm_first=cfg.norm_first,
            bias=cfg.bias,
            **kw,
        )


def stacks_like_torch(theirs: nn.Transformer, cfg: TransformerConfig):
    """Reference (Encoder, Decoder) stacks carrying theirs' weights (positions: none)."""
    cfg = TransformerConfig(**{**cfg.__dict__, "pos": "none", "final_norm": True})
    enc = Encoder(cfg, cfg.n_encoder_layers or cfg.n_layers)
    dec = Decoder(cfg, cfg.n_decoder_layers or cfg.n_layers, cross=True)
    copy_transformer(enc, dec, theirs)
    return enc.to(theirs.encoder.norm.weight.device), dec.to(theirs.encoder.norm.weight.device)
