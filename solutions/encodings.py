"""Reference pieces of the positional-encoding problem sets (PS2–PS4) that the model does not
need: the sinusoidal shift map, the T5 bias matrix, RoPE's relative score, and ALiBi's causal
bias and attention. The encodings themselves come from ``solutions.positional`` (tested in
tests/solutions/test_positional.py); the identities used here are proved in
``solutions.derivations.positional_proofs``. Positions are 0-based; float64 where it is cheap.
"""

from __future__ import annotations

import math

import torch

from solutions.attention import attention_weights, causal_mask
from solutions.positional import alibi_bias, apply_rope, rope_frequencies, t5_relative_bucket

__all__ = [
    "sinusoidal_frequencies",
    "sinusoidal_shift_matrix",
    "sinusoidal_wavelengths",
    "sinusoidal_similarity",
    "position_interpolation",
    "t5_bias_matrix",
    "rope_score_from_offset",
    "rope_attention",
    "alibi_causal_bias",
    "alibi_attention",
    "alibi_last_row_weights",
]


# ------------------------------------------------------------------ sinusoidal (PS2)
def sinusoidal_frequencies(d: int, base: float = 10000.0):
    """ω_i = 1 / base^(2i/d), i = 0 … d/2 − 1: PE[p, 2i] = sin(p·ω_i), PE[p, 2i+1] = cos(p·ω_i)."""
    return rope_frequencies(d, base)  # the same numbers as RoPE's θ_{i+1}


def sinusoidal_shift_matrix(k: int, d: int, base: float = 10000.0):
    """(d, d) M_k with PE(p + k) = M_k · PE(p) for every p: block i is
    [[cos kω_i, sin kω_i], [−sin kω_i, cos kω_i]] on (sin, cos) (positional_proofs.shift_block)."""
    ang = k * sinusoidal_frequencies(d, base)
    c, s = ang.cos(), ang.sin()
    out = torch.zeros(d, d, dtype=torch.float64)
    ev = torch.arange(0, d, 2)
    out[ev, ev], out[ev, ev + 1], out[ev + 1, ev], out[ev + 1, ev + 1] = c, s, -s, c
    return out


def sinusoidal_wavelengths(d: int, base: float = 10000.0):
    """λ_i = 2π·base^(2i/d), i = 0 … d/2 − 1: the period (in positions) of pair i. Document 001
    prints base^(2i/d) itself as the "period" (i = 255 → 9646.62 for d = 512); that is the
    divisor of p, and the period of sin(p / base^(2i/d)) is 2π times it."""
    return 2 * math.pi / sinusoidal_frequencies(d, base)


def sinusoidal_similarity(p: int, distances, d: int, base: float = 10000.0):
    """PE(p)·PE(p + Δ) for each Δ in ``distances`` (float64), by the direct dot product of
    ``sinusoidal_encoding`` rows. It equals Σ_i cos(Δ·ω_i), whatever p
    (tests/solutions/test_encodings.py proves the identity with SymPy)."""
    dist = torch.as_tensor(distances).to(torch.float64).reshape(-1)
    w = sinusoidal_frequencies(d, base)

    def pe(pos):  # (len, d) interleaved sin/cos, at real-valued positions
        ang = pos[:, None] * w
        return torch.stack([ang.sin(), ang.cos()], dim=-1).flatten(-2)

    return (pe(torch.full_like(dist, float(p))) * pe(float(p) + dist)).sum(-1)


# ------------------------------------------------------------------ learned PE (PS2)
def position_interpolation(table, n_new: int):
    """(n_new, d) rows for positions 0 … n_new − 1 of a learned table (L, d) trained on L
    positions (document 001 credits it to Chen et al. 2023, whose Position Interpolation rescales
    RoPE's position indices; this is the same idea on a learned table): position p is mapped to
    x = p·L/n_new and the rows ⌊x⌋ and ⌊x⌋ + 1 are mixed linearly, P[⌊x⌋] + (x − ⌊x⌋)(P[⌊x⌋+1] − P[⌊x⌋]). For the last
    positions x lies past row L − 1, where document 001's formula would read the row P[L] that
    does not exist; there the last row is held (as numpy.interp does at the ends)."""
    table = torch.as_tensor(table).to(torch.float64)
    n_train = table.shape[0]
    x = torch.arange(n_new, dtype=torch.float64) * n_train / n_new
    lo = x.floor().long().clamp(max=n_train - 1)
    hi = (lo + 1).clamp(max=n_train - 1)
    frac = (x - lo).clamp(max=1.0)[:, None]
    return table[lo] + frac * (table[hi] - table[lo])


# ------------------------------------------------------------------ T5 (PS2)
def t5_bias_matrix(
    table, t_q: int, t_k: int, bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128
):
    """(n_heads, t_q, t_k) bias: table[bucket(j − i), h] for query position i and key position j
    (both from 0, as Hugging Face T5's ``compute_bias``); ``table`` is (num_buckets, n_heads)."""
    table = torch.as_tensor(table)
    rel = torch.arange(t_k)[None, :] - torch.arange(t_q)[:, None]
    buckets = t5_relative_bucket(rel, bidirectional, num_buckets, max_distance)
    return table[buckets].permute(2, 0, 1)


# ------------------------------------------------------------------ RoPE (PS3)
def rope_score_from_offset(q, k, offset: int, base: float = 10000.0):
    """(R_m q)·(R_n k) for any m, n with n − m = offset (interleaved): q at 0, k at ``offset``."""
    q, k = torch.as_tensor(q, dtype=torch.float64), torch.as_tensor(k, dtype=torch.float64)
    qm = apply_rope(q[None], torch.tensor([0]), base, "interleaved")[0]
    kn = apply_rope(k[None], torch.tensor([int(offset)]), base, "interleaved")[0]
    return (qm * kn).sum()


def rope_attention(q, k, v, positions, base: float = 10000.0, causal: bool = True):
    """softmax((R q)(R k)ᵀ/√d) v with q, k rotated at ``positions`` (interleaved); v is not
    rotated. ``causal``: query t sees keys 0 … t."""
    qr = apply_rope(q.double(), positions, base, "interleaved")
    kr = apply_rope(k.double(), positions, base, "interleaved")
    mask = causal_mask(q.shape[-2]) if causal else None
    return (attention_weights(qr, kr, mask) @ v.double()).to(q.dtype)


# ------------------------------------------------------------------ ALiBi (PS4)
def alibi_causal_bias(n_heads: int, t: int):
    """(n_heads, t, t): m_h·(j − i) for keys j ≤ i, −inf above the diagonal."""
    bias = alibi_bias(n_heads, t).double()
    return bias.masked_fill(~causal_mask(t), float("-inf"))


def alibi_attention(q, k, v):
    """Causal attention with ALiBi: q, k, v (..., n_heads, T, d); head h uses slope m_h."""
    n_heads, t = q.shape[-3], q.shape[-2]
    bias = alibi_bias(n_heads, t).double()
    weights = attention_weights(q.double(), k.double(), causal_mask(t), bias=bias)
    return (weights @ v.double()).to(q.dtype)


def alibi_last_row_weights(slope: float, length: int):
    """Attention weights of the last query over ``length`` keys when every content score is 0:
    softmax_j(slope·(j − (length−1))), j = 0 … length−1 (a geometric profile)."""
    j = torch.arange(length, dtype=torch.float64)
    return torch.softmax(slope * (j - (length - 1)), dim=0)
