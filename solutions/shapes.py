"""Tensor shapes through an encoder-decoder transformer, sub-layer by sub-layer.

Batch-first layout as in ``solutions/attention.py``: activations (B, T, d_model), per-head
tensors (B, h, T, d_head) with d_head = d_model / h, attention scores (B, h, T_query, T_key).
Every sub-layer of an encoder or decoder layer maps (B, T, d_model) to itself — the residual
stream never changes width; only the FFN's hidden layer is d_ff wide.
"""

from __future__ import annotations


def encoder_decoder_shapes(
    batch: int, src_len: int, tgt_len: int, d_model: int, n_heads: int, d_ff: int, vocab_size: int
) -> dict[str, tuple[int, ...]]:
    """Every named tensor's shape; ``ffn_hidden`` is the encoder's FFN hidden layer (source
    length S), ``decoder_ffn_hidden`` the decoder's (target length T)."""
    assert d_model % n_heads == 0, "d_model must split evenly across heads"
    B, S, T, d, h = batch, src_len, tgt_len, d_model, n_heads
    return {
        "src_embeddings": (B, S, d),
        "encoder_q_per_head": (B, h, S, d // h),
        "encoder_self_scores": (B, h, S, S),
        "encoder_self_attention_out": (B, S, d),
        "ffn_hidden": (B, S, d_ff),  # the encoder's FFN
        "decoder_ffn_hidden": (B, T, d_ff),
        "encoder_layer_out": (B, S, d),
        "tgt_embeddings": (B, T, d),
        "decoder_self_scores": (B, h, T, T),
        "cross_q_per_head": (B, h, T, d // h),
        "cross_kv_per_head": (B, h, S, d // h),
        "cross_scores": (B, h, T, S),
        "cross_attention_out": (B, T, d),
        "decoder_layer_out": (B, T, d),
        "logits": (B, T, vocab_size),
    }
