"""Positional information: absolute (sinusoidal, learned), relative (T5 bucketed bias, ALiBi)
and rotary (RoPE, both conventions).

Pure functions first — the graders import them by name — then the two small modules the
model uses (``AbsolutePositional``, ``T5RelativeBias``). Positions are 0-based throughout;
the RoPE frequencies are θ_i = base^(−2(i−1)/d) for the 1-based pair index i = 1 … d/2,
i.e. ``base ** (-2 * arange(d // 2) / d)`` in code.

RoPE conventions (same frequencies, different pairing of the d coordinates):
  * ``"interleaved"`` (RoFormer paper, Q4 of the homework): pairs (x_0, x_1), (x_2, x_3), …
  * ``"half"`` (GPT-NeoX, Hugging Face ``rotate_half``): pairs (x_i, x_{i+d/2}). Meta's LLaMA
    code pairs interleaved (complex products of adjacent pairs); Hugging Face's LLaMA port uses
    ``rotate_half`` after permuting W_Q/W_K's rows once.
They are related by the fixed permutation ``rope_half_permutation(d)`` = [0, 2, 4, …, 1, 3, …]:
``apply_rope(x[..., P], pos, convention="half") == apply_rope(x, pos, "interleaved")[..., P]``.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn


# --------------------------------------------------------------------------- absolute
def sinusoidal_encoding(n_pos: int, d: int, base: float = 10000.0, *, device=None, dtype=torch.float32):
    """(n_pos, d): PE[p, 2i] = sin(p / base^(2i/d)), PE[p, 2i+1] = cos(p / base^(2i/d))."""
    assert d % 2 == 0, "d must be even"
    pos = torch.arange(n_pos, device=device, dtype=torch.float64)[:, None]
    inv_freq = base ** (-torch.arange(0, d, 2, device=device, dtype=torch.float64) / d)
    pe = torch.zeros(n_pos, d, device=device, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos * inv_freq)
    pe[:, 1::2] = torch.cos(pos * inv_freq)
    return pe.to(dtype)


# --------------------------------------------------------------------------- RoPE
def rope_frequencies(d: int, base: float = 10000.0, *, device=None):
    """θ_i = base^(−2(i−1)/d), i = 1 … d/2 (float64)."""
    assert d % 2 == 0, "RoPE needs an even head dimension"
    return base ** (-torch.arange(0, d, 2, device=device, dtype=torch.float64) / d)


def rope_angles(positions, d: int, base: float = 10000.0):
    """(T, d/2) angles m·θ_i; ``positions`` is an int, a list or a (T,) tensor of positions m."""
    if isinstance(positions, int):
        positions = torch.arange(positions)
    positions = torch.as_tensor(positions)
    return positions.to(torch.float64)[:, None] * rope_frequencies(d, base, device=positions.device)


def rope_cos_sin(positions, d: int, base: float = 10000.0, convention: str = "half", *, dtype=torch.float32):
    """cos and sin of the angles laid out to multiply a (…, T, d) tensor element-wise."""
    ang = rope_angles(positions, d, base)
    if convention == "interleaved":
        ang = ang.repeat_interleave(2, dim=-1)  # θ_1 θ_1 θ_2 θ_2 …
    elif convention == "half":
        ang = torch.cat([ang, ang], dim=-1)  # θ_1 … θ_{d/2} θ_1 … θ_{d/2}
    else:
        raise ValueError(f"unknown RoPE convention {convention!r}")
    return ang.cos().to(dtype), ang.sin().to(dtype)


def rotate_half(x):
    """(x_1, x_2) -> (−x_2, x_1) on the two halves of the last dimension (Hugging Face)."""
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([-x2, x1], dim=-1)


def rotate_interleaved(x):
    """(x_0, x_1, x_2, x_3, …) -> (−x_1, x_0, −x_3, x_2, …)."""
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack([-x2, x1], dim=-1).flatten(-2)


def rotate(x, cos, sin, convention: str = "half"):
    """x·cos + R(x)·sin with precomputed tables from ``rope_cos_sin`` (the model's hot path)."""
    turned = rotate_half(x) if convention == "half" else rotate_interleaved(x)
    return x * cos + turned * sin


def apply_rope(x, positions, base: float = 10000.0, convention: str = "interleaved"):
    """Rotate every 2-D pair of x (…, T, d) at position m by the angle m·θ_i."""
    cos, sin = rope_cos_sin(positions, x.shape[-1], base, convention, dtype=x.dtype)
    return rotate(x, cos.to(x.device), sin.to(x.device), convention)


def apply_rope_complex(x, positions, base: float = 10000.0):
    """001's complex form, RoPE(x, m) = x ⊙ e^{imθ}, with one θ_i per pair: the adjacent pairs
    (x_{2i-2}, x_{2i-1}) read as complex numbers, each multiplied by e^{i m θ_i} (float64 inside)."""
    z = torch.view_as_complex(x.to(torch.float64).reshape(*x.shape[:-1], -1, 2).contiguous())
    angle = rope_angles(positions, x.shape[-1], base)
    turned = z * torch.polar(torch.ones_like(angle), angle)  # e^{i m θ_i}
    return torch.view_as_real(turned).flatten(-2).to(x.dtype)


def interpolated_positions(length: int, train_length: int):
    """Position interpolation for RoPE (Chen et al., 2023): past the training length, token m sits
    at m·L_train/T (001's α = L_train/L_inference), every position inside what training saw."""
    scale = min(1.0, train_length / length)
    return torch.arange(length, dtype=torch.float64) * scale


def rope_interpolated(x, train_length: int, base: float = 10000.0):
    """Interleaved RoPE of x (…, T, d) at the positions 0 … T−1, interpolated past train_length."""
    return apply_rope(x, interpolated_positions(x.shape[-2], train_length), base, "interleaved")


def rope_matrix(m: int, d: int, base: float = 10000.0, *, dtype=torch.float64):
    """(d, d) block-diagonal rotation R_m (interleaved convention): block i is
    [[cos mθ_i, −sin mθ_i], [sin mθ_i, cos mθ_i]], so ``R_m @ x == apply_rope(x, [m])``."""
    ang = rope_angles([m], d, base)[0]
    r = torch.zeros(d, d, dtype=torch.float64)
    c, s = ang.cos(), ang.sin()
    i = torch.arange(0, d, 2)
    r[i, i], r[i, i + 1], r[i + 1, i], r[i + 1, i + 1] = c, -s, s, c
    return r.to(dtype)


def rope_half_permutation(d: int):
    """Index P with half(x[P]) = interleaved(x)[P]: the even coordinates, then the odd ones."""
    return torch.cat([torch.arange(0, d, 2), torch.arange(1, d, 2)])


# --------------------------------------------------------------------------- ALiBi
def alibi_slopes(n_heads: int) -> torch.Tensor:
    """Per-head slopes of Press et al. (2022). n a power of two: m_h = 2^(−8h/n), h = 1 … n.
    Otherwise the reference rule: the slopes for the closest smaller power of two c, then every
    other slope of the 2c-head sequence for the remaining n − c heads
    (n = 12: 2^−1 … 2^−8, then 2^−0.5, 2^−1.5, 2^−2.5, 2^−3.5)."""

    def power_of_two(n):
        return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]

    if math.log2(n_heads).is_integer():
        slopes = power_of_two(n_heads)
    else:
        c = 2 ** math.floor(math.log2(n_heads))
        slopes = power_of_two(c) + alibi_slopes(2 * c).tolist()[0::2][: n_heads - c]
    return torch.tensor(slopes, dtype=torch.float64)


def alibi_bias(n_heads: int, t: int, t_k: int | None = None, *, symmetric: bool = False, device=None):
    """(n_heads, t, t_k) additive bias m_h·(j − i) for query i and key j (keys aligned to the end,
    as for a KV cache: query i sits at absolute position i + t_k − t). With a causal mask only
    j ≤ i survives, so the bias is ≤ 0 and grows linearly with distance. ``symmetric=True``
    gives −m_h·|j − i| for bidirectional (encoder) attention."""
    t_k = t if t_k is None else t_k
    q_pos = torch.arange(t_k - t, t_k, device=device)[:, None]
    k_pos = torch.arange(t_k, device=device)[None, :]
    dist = (k_pos - q_pos).to(torch.float64)
    if symmetric:
        dist = -dist.abs()
    return (alibi_slopes(n_heads).to(device)[:, None, None] * dist).float()


# --------------------------------------------------------------------------- T5
def t5_relative_bucket(rel_pos, bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128):
    """Bucket of rel_pos = key_position − query_position, as in T5 / Hugging Face.
    Half the buckets (when bidirectional) are for keys after the query. Of the rest, the first
    half are exact offsets 0 … max_exact−1; larger offsets share log-spaced buckets up to
    max_distance, beyond which everything lands in the last bucket. Causal (bidirectional=False)
    maps every future key to bucket 0."""
    rel_pos = torch.as_tensor(rel_pos)
    bucket = torch.zeros_like(rel_pos, dtype=torch.long)
    if bidirectional:
        num_buckets //= 2
        bucket = bucket + (rel_pos > 0).long() * num_buckets
        n = rel_pos.abs()
    else:
        n = (-rel_pos).clamp(min=0)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    # float32, like the T5 and Hugging Face code, so bucket boundaries agree with them exactly
    large = (
        max_exact
        + (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)).long()
    )
    large = large.clamp(max=num_buckets - 1)
    return bucket + torch.where(is_small, n, large)


class T5RelativeBias(nn.Module):
    """One learned scalar per (bucket, head), shared by all layers of a stack."""

    def __init__(self, n_heads: int, bidirectional: bool, num_buckets: int = 32, max_distance: int = 128):
        super().__init__()
        self.bidirectional, self.num_buckets, self.max_distance = bidirectional, num_buckets, max_distance
        self.embedding = nn.Embedding(num_buckets, n_heads)

    def forward(self, t_q: int, t_k: int):
        """(1, h, t_q, t_k) bias; queries aligned to the end of the keys (KV cache)."""
        dev = self.embedding.weight.device
        rel = torch.arange(t_k, device=dev)[None, :] - torch.arange(t_k - t_q, t_k, device=dev)[:, None]
        buckets = t5_relative_bucket(rel, self.bidirectional, self.num_buckets, self.max_distance)
        return self.embedding(buckets).permute(2, 0, 1).unsqueeze(0)


class AbsolutePositional(nn.Module):
    """Adds a position vector to the token embeddings: fixed sinusoidal or learned."""

    def __init__(self, kind: str, max_len: int, d_model: int, base: float = 10000.0):
        super().__init__()
        self.kind = kind
        if kind == "learned":
            self.table = nn.Embedding(max_len, d_model)
        else:
            self.register_buffer("table_fixed", sinusoidal_encoding(max_len, d_model, base), persistent=False)

    def forward(self, start: int, t: int):
        if self.kind == "learned":
            return self.table.weight[start : start + t]
        return self.table_fixed[start : start + t]
