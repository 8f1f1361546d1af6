"""The reference transformer: encoder-decoder (Vaswani et al. 2017) and decoder-only (GPT).

Batch-first: tokens (B, T) int64, activations (B, T, d_model), logits (B, T, vocab).
Masks are bool, True = may attend (``solutions/attention.py``); key padding comes from
``pad_id`` (token == pad_id is padding) unless ``pad_id`` is None.

Positions (``TransformerConfig.pos``):
  "sinusoidal" | "learned"  added to the token embeddings (absolute);
  "rope"                    q and k rotated in every self-attention (``rope_convention``);
  "alibi"                   −slope·distance added to self-attention scores (symmetric in the encoder);
  "t5"                      learned bucketed bias, one table per stack, shared by its layers;
  "none"                    nothing (the model is then permutation-equivariant).
Cross-attention never gets positional terms (as in T5 and RoPE encoder-decoders).

Weight init (``_init_weights``, nanoGPT/GPT-2 style): every nn.Linear and nn.Embedding weight
~ N(0, 0.02²), biases 0, LayerNorm γ = 1, β = 0; the residual-branch output projections
(``out_proj`` and ``linear2``) ~ N(0, (0.02/√(2·n_layers))²) so the residual stream's variance
does not grow with depth. The output head is tied to the target embedding when
``tie_embeddings``; embeddings are multiplied by √d_model when ``scale_embeddings`` (2017 paper).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

from solutions.attention import causal_mask, decoder_self_mask, padding_mask
from solutions.layers import DecoderLayer, EncoderLayer
from solutions.positional import AbsolutePositional, T5RelativeBias, alibi_bias, rope_cos_sin

POSITIONS = ("sinusoidal", "learned", "rope", "alibi", "t5", "none")


@dataclass
class TransformerConfig:
    vocab_size: int = 32
    src_vocab_size: int | None = None  # encoder vocabulary; None = shared with the decoder
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2  # default for both stacks
    n_encoder_layers: int | None = None
    n_decoder_layers: int | None = None
    d_ff: int = 256
    dropout: float = 0.0
    activation: str = "relu"  # "relu" | "gelu"
    norm_first: bool = True  # True: Pre-LN; False: Post-LN (2017 paper)
    final_norm: bool = True  # LayerNorm after each stack (nn.Transformer always has one)
    norm_eps: float = 1e-5
    bias: bool = True
    max_len: int = 512  # learned/sinusoidal table size
    pos: str = "sinusoidal"
    pos_base: float = 10000.0  # sinusoidal and RoPE base
    rope_convention: str = "half"  # "half" (rotate_half) | "interleaved" (RoFormer)
    t5_num_buckets: int = 32
    t5_max_distance: int = 128
    pad_id: int | None = None
    tie_embeddings: bool = True
    scale_embeddings: bool = True

    def __post_init__(self):
        if self.pos not in POSITIONS:
            raise ValueError(f"pos must be one of {POSITIONS}, not {self.pos!r}")
        if self.d_model % self.n_heads:
            raise ValueError("d_model must be divisible by n_heads")

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads


class AttentionPositions(nn.Module):
    """What a stack's self-attention needs for t_q new queries over t_k keys: (bias, rope)."""

    def __init__(self, cfg: TransformerConfig, bidirectional: bool):
        super().__init__()
        self.cfg, self.bidirectional = cfg, bidirectional
        self.t5 = (
            T5RelativeBias(cfg.n_heads, bidirectional, cfg.t5_num_buckets, cfg.t5_max_distance)
            if cfg.pos == "t5"
            else None
        )

    def forward(self, t_q: int, t_k: int, like: torch.Tensor):
        cfg, bias, rope = self.cfg, None, None
        if cfg.pos == "t5":
            bias = self.t5(t_q, t_k)
        elif cfg.pos == "alibi":
            bias = alibi_bias(cfg.n_heads, t_q, t_k, symmetric=self.bidirectional, device=like.device)[None]
        elif cfg.pos == "rope":
            cos, sin = rope_cos_sin(
                torch.arange(t_k - t_q, t_k), cfg.d_head, cfg.pos_base, cfg.rope_convention, dtype=like.dtype
            )
            rope = (cos.to(like.device), sin.to(like.device), cfg.rope_convention)
        return bias, rope


class Encoder(nn.Module):
    """Stack of encoder layers on embedded inputs (B, T, d) → memory (B, T, d)."""

    def __init__(self, cfg: TransformerConfig, n_layers: int):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(cfg) for _ in range(n_layers))
        self.norm = nn.LayerNorm(cfg.d_model, eps=cfg.norm_eps, bias=cfg.bias) if cfg.final_norm else None
        self.positions = AttentionPositions(cfg, bidirectional=True)

    def forward(self, x, mask=None, fast=True):
        bias, rope = self.positions(x.shape[1], x.shape[1], x)
        for layer in self.layers:
            x = layer(x, mask, bias=bias, rope=rope, fast=fast)
        return x if self.norm is None else self.norm(x)


class Decoder(nn.Module):
    """Stack of decoder layers. ``cache``: None or a list with one dict per layer; ``start``:
    how many positions the cache already holds (the new tokens sit at start … start+T−1)."""

    def __init__(self, cfg: TransformerConfig, n_layers: int, cross: bool = True):
        super().__init__()
        self.layers = nn.ModuleList(DecoderLayer(cfg, cross) for _ in range(n_layers))
        self.norm = nn.LayerNorm(cfg.d_model, eps=cfg.norm_eps, bias=cfg.bias) if cfg.final_norm else None
        self.positions = AttentionPositions(cfg, bidirectional=False)

    def forward(self, x, memory=None, self_mask="causal", memory_mask=None, *, cache=None, start=0, fast=True):
        t = x.shape[1]
        if isinstance(self_mask, str) and (start > 0 or t == 1):  # "causal" with a KV-cache offset
            self_mask = causal_mask(t, start + t, device=x.device) if t > 1 else None
        bias, rope = self.positions(t, start + t, x)
        for i, layer in enumerate(self.layers):
            x = layer(
                x,
                memory,
                self_mask,
                memory_mask,
                bias=bias,
                rope=rope,
                cache=None if cache is None else cache[i],
                fast=fast,
            )
        return x if self.norm is None else self.norm(x)


class _TokenModel(nn.Module):
    """Embeddings, output head, init and the incremental-decoding protocol shared by both models:
    ``start_state(...)`` → state, ``step(new_tokens, state)`` → logits (B, t, V) (advances the
    KV cache when the state has one), ``reorder_state(state, index)`` for beam search."""

    def _setup_embeddings(self, cfg):
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.abs_pos = (
            AbsolutePositional(cfg.pos, cfg.max_len, cfg.d_model, cfg.pos_base)
            if cfg.pos in ("sinusoidal", "learned")
            else None
        )
        self.emb_dropout = nn.Dropout(cfg.dropout)
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)

    def _finish_init(self, n_layers):
        self.apply(_init_weights)
        for name, p in self.named_parameters():
            if name.endswith(("out_proj.weight", "linear2.weight")):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layers))
        if self.cfg.tie_embeddings:
            self.lm_head.weight = self.tok_emb.weight

    def embed(self, tokens, table, start=0):
        x = table(tokens)
        if self.cfg.scale_embeddings:
            x = x * math.sqrt(self.cfg.d_model)
        if self.abs_pos is not None:
            x = x + self.abs_pos(start, tokens.shape[1]).to(x.dtype)
        return self.emb_dropout(x)

    def key_padding(self, tokens):
        """(B, 1, 1, T) bool may-attend mask from pad_id, or None when nothing is padded."""
        pad = self.padded(tokens)
        return None if pad is None else padding_mask(pad)

    def target_self_mask(self, tokens):
        """The decoder's self-attention mask: causal, and padding where the target is padded."""
        pad = self.padded(tokens)
        return "causal" if pad is None else decoder_self_mask(pad)

    def padded(self, tokens):
        """(B, T) bool, True at pad_id; None when nothing is padded."""
        if self.cfg.pad_id is None:
            return None
        pad = tokens == self.cfg.pad_id
        return pad if bool(pad.any()) else None

    @staticmethod
    def reorder_state(state, index):
        """Select batch rows (beam search): memory, its mask and every cached tensor."""
        for key in ("memory", "memory_mask"):
            if state.get(key) is not None:
                state[key] = state[key].index_select(0, index)
        for layer in state.get("cache") or []:
            for part in layer.values():
                for name, t in part.items():
                    part[name] = t.index_select(0, index)
        return state

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())


class EncoderDecoderTransformer(_TokenModel):
    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.cfg = cfg
        n_enc, n_dec = cfg.n_encoder_layers or cfg.n_layers, cfg.n_decoder_layers or cfg.n_layers
        self._setup_embeddings(cfg)
        self.src_emb = (
            nn.Embedding(cfg.src_vocab_size, cfg.d_model)
            if cfg.src_vocab_size not in (None, cfg.vocab_size)
            else self.tok_emb
        )
        self.encoder = Encoder(cfg, n_enc)
        self.decoder = Decoder(cfg, n_dec, cross=True)
        self._finish_init(n_enc + n_dec)

    def encode(self, src, fast=True):
        """src (B, S) → (memory (B, S, d), memory mask or None)."""
        mask = self.key_padding(src)
        return self.encoder(self.embed(src, self.src_emb), mask, fast=fast), mask

    def decode(self, tgt, memory, memory_mask=None, *, cache=None, start=0, fast=True):
        self_mask = self.target_self_mask(tgt) if cache is None else "causal"  # generation never pads the target
        x = self.decoder(
            self.embed(tgt, self.tok_emb, start), memory, self_mask, memory_mask, cache=cache, start=start, fast=fast
        )
        return self.lm_head(x)

    def forward(self, src, tgt, fast=True):
        """Teacher forcing: logits (B, T, V) for every position of tgt."""
        memory, memory_mask = self.encode(src, fast=fast)
        return self.decode(tgt, memory, memory_mask, fast=fast)

    def start_state(self, src, use_cache=True):
        memory, memory_mask = self.encode(src)
        cache = [{} for _ in self.decoder.layers] if use_cache else None
        return {"memory": memory, "memory_mask": memory_mask, "cache": cache, "pos": 0}

    def step(self, tokens, state):
        logits = self.decode(tokens, state["memory"], state["memory_mask"], cache=state["cache"], start=state["pos"])
        if state["cache"] is not None:
            state["pos"] += tokens.shape[1]
        return logits


class DecoderOnlyTransformer(_TokenModel):
    """GPT-style language model: causal self-attention only."""

    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.cfg = cfg
        n = cfg.n_decoder_layers or cfg.n_layers
        self._setup_embeddings(cfg)
        self.decoder = Decoder(cfg, n, cross=False)
        self._finish_init(n)

    def forward(self, idx, *, cache=None, start=0, fast=True):
        self_mask = self.target_self_mask(idx) if cache is None else "causal"
        x = self.decoder(self.embed(idx, self.tok_emb, start), None, self_mask, cache=cache, start=start, fast=fast)
        return self.lm_head(x)

    def start_state(self, src=None, use_cache=True):
        return {"cache": [{} for _ in self.decoder.layers] if use_cache else None, "pos": 0}

    def step(self, tokens, state):
        logits = self(tokens, cache=state["cache"], start=state["pos"])
        if state["cache"] is not None:
            state["pos"] += tokens.shape[1]
        return logits


def _init_weights(module):
    if isinstance(module, (nn.Linear, nn.Embedding)):
        nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if getattr(module, "bias", None) is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, nn.LayerNorm):
        nn.init.ones_(module.weight)
        if module.bias is not None:
            nn.init.zeros_(module.bias)


def sequence_loss(logits, targets, ignore_index=-100):
    """Mean token cross-entropy over (B, T, V) logits and (B, T) targets."""
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=ignore_index)
