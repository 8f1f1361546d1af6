"""PS2 known-wrong answers: a parametrised sinusoidal encoding, interpolation, T5 bucketing and
bias with one switch per mistake, and the wrong version of each graded function built from
them. Each must fail and be recognised by the grader (``autograder selftest ps2``)."""
import math

import torch

from solutions.encodings import sinusoidal_shift_matrix


# ---------------------------------------------------------------- sinusoidal
def omegas(d, base, *, sign=-1, factor=2, dim_index=False):
    """Frequencies ω_i = base^(sign·factor·i/d), i = 0 … d/2 − 1 (right: sign −1, factor 2).
    ``dim_index``: one frequency per coordinate j = 0 … d − 1, base^(sign·factor·j/d)."""
    i = torch.arange(d if dim_index else d // 2, dtype=torch.float64)
    return float(base) ** (sign * factor * i / d)


def pe(n_pos, d, base=10000.0, *, swap=False, layout="interleaved", cos_typo=False, **omega_kw):
    """(n_pos, d) float64 sinusoidal table with switches: ``swap`` cos on even / sin on odd
    columns, ``layout="half"`` all sines then all cosines, ``cos_typo`` document 000's cosine
    cos(p / (base^(2i) / d)), ``dim_index`` each column j its own frequency base^(−2j/d)."""
    pos = torch.arange(n_pos, dtype=torch.float64)[:, None]
    if omega_kw.get("dim_index"):
        ang = pos * omegas(d, base, **omega_kw)
        out = ang.sin()
        out[:, 1::2] = ang[:, 1::2].cos()
        return out
    ang = pos * omegas(d, base, **omega_kw)
    first, second = (ang.cos(), ang.sin()) if swap else (ang.sin(), ang.cos())
    if cos_typo:
        i = torch.arange(d // 2, dtype=torch.float64)
        second = (pos / (float(base) ** (2 * i) / d)).cos()
    if layout == "half":
        return torch.cat([first, second], dim=-1)
    return torch.stack([first, second], dim=-1).flatten(-2)


def pe_variant(**kw):
    def wrong(n_pos, d, base=10000.0):
        return pe(n_pos, d, base, **kw)
    return wrong


def factors_001(**kw):
    """Document 001's numbers: the factor for i = 0, 128, 255 at d = 512, base 10000."""
    return omegas(512, 10000.0, **kw)[[0, 128, 255]]


def wavelength_variant(two_pi=True, **kw):
    def wrong(d, base=10000.0):
        w = 1 / omegas(d, base, **kw)
        return 2 * math.pi * w if two_pi else w
    return wrong


# ---------------------------------------------------------------- shift map
def shift_transposed(k, d, base=10000.0):
    return sinusoidal_shift_matrix(k, d, base).T


def shift_variant(**kw):
    """M_k built from the wrong frequencies (``omega_one``: every block turns by k)."""
    def wrong(k, d, base=10000.0):
        w = torch.ones(d // 2, dtype=torch.float64) if kw.get("omega_one") else omegas(d, base, **kw)
        c, s = (k * w).cos(), (k * w).sin()
        out = torch.zeros(d, d, dtype=torch.float64)
        ev = torch.arange(0, d, 2)
        out[ev, ev], out[ev, ev + 1], out[ev + 1, ev], out[ev + 1, ev + 1] = c, s, -s, c
        return out
    return wrong


# ---------------------------------------------------------------- learned table
def interpolate(table, n_new, *, mode="linear", alpha=None):
    """Rows for positions 0 … n_new − 1 of an (L, d) table: ``mode`` "floor" | "round" (no
    mixing), "clamp" (P[min(p, L−1)]), "wrap" (P[p mod L]), "unheld" (001's formula verbatim, no
    last row held); ``alpha`` "corners" maps 0 → 0 and n_new − 1 → L − 1."""
    table = torch.as_tensor(table).to(torch.float64)
    L = table.shape[0]
    p = torch.arange(n_new, dtype=torch.float64)
    if mode == "clamp":
        return table[p.long().clamp(max=L - 1)]
    if mode == "wrap":
        return table[p.long() % L]
    x = p * ((L - 1) / max(n_new - 1, 1) if alpha == "corners" else L / n_new)
    if mode == "floor":
        return table[x.floor().long().clamp(max=L - 1)]
    if mode == "round":
        return table[torch.round(x).long().clamp(max=L - 1)]
    lo = x.floor().long().clamp(max=L - 1)
    hi = lo + 1 if mode == "unheld" else (lo + 1).clamp(max=L - 1)  # "unheld": IndexError at the end
    return table[lo] + (x - lo).clamp(max=1.0)[:, None] * (table[hi] - table[lo])


def interpolate_variant(**kw):
    def wrong(table, n_new):
        return interpolate(table, n_new, **kw)
    return wrong


# ---------------------------------------------------------------- T5 buckets
def bucket(rel_pos, bidirectional=True, num_buckets=32, max_distance=128, *, flip=False, causal_abs=False,
           top=-1, exact_end=0, rounding=False, halve=True):
    """T5 bucketing with switches: ``flip`` uses query − key, ``causal_abs`` causal keeps |rel|
    (future keys not sent to bucket 0), ``top`` the last bucket is num_buckets + top,
    ``exact_end`` shifts the end of the exact range, ``rounding`` rounds the log bucket,
    ``halve=False`` does not split the buckets between the two directions."""
    rel = torch.as_tensor(rel_pos).to(torch.long)
    rel = -rel if flip else rel
    out = torch.zeros_like(rel)
    if bidirectional:
        if halve:
            num_buckets //= 2
        out = out + (rel > 0).long() * num_buckets
        n = rel.abs()
    else:
        n = rel.abs() if causal_abs else (-rel).clamp(min=0)
    max_exact = num_buckets // 2
    scaled = torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    large = max_exact + (torch.round(scaled) if rounding else scaled).long()
    large = large.clamp(max=num_buckets + top)
    return out + torch.where(n < max_exact + exact_end, n, large)


def bucket_variant(**kw):
    def wrong(rel_pos, bidirectional=True, num_buckets=32, max_distance=128):
        return bucket(rel_pos, bidirectional, num_buckets, max_distance, **kw)
    return wrong


def bias(table, t_q, t_k, bidirectional=True, *, flip=False, heads_last=False, end_aligned=False,
         always_bidirectional=False, **bucket_kw):
    """The bias table[bucket(j − i), h] with switches; ``bucket_kw`` passes a mistake on to the
    buckets (a right t5_bias built on a wrong t5_bucket)."""
    table = torch.as_tensor(table)
    q_pos = torch.arange(t_q) + (t_k - t_q if end_aligned else 0)
    rel = torch.arange(t_k)[None, :] - q_pos[:, None]
    b = bucket(-rel if flip else rel, True if always_bidirectional else bidirectional, table.shape[0], **bucket_kw)
    out = table[b]
    return out if heads_last else out.permute(2, 0, 1)


def bias_variant(**kw):
    def wrong(table, t_q, t_k, bidirectional=True):
        return bias(table, t_q, t_k, bidirectional, **kw)
    return wrong


# ---------------------------------------------------------------- similarity experiment
def similarity(p, distances, d, base=10000.0, *, normalised=False, offset_as_position=False, **omega_kw):
    dist = torch.as_tensor(distances).to(torch.float64).reshape(-1)
    w = omegas(d, base, **omega_kw)

    def enc(pos):
        ang = pos[:, None] * w
        return torch.stack([ang.sin(), ang.cos()], dim=-1).flatten(-2)

    other = dist if offset_as_position else float(p) + dist
    out = (enc(torch.full_like(dist, float(p))) * enc(other)).sum(-1)
    return out / (d / 2) if normalised else out


def similarity_variant(**kw):
    def wrong(p, distances, d, base=10000.0):
        return similarity(p, distances, d, base, **kw)
    return wrong



def similarity_from_table(**pe_kw):
    """A right pe_similarity built on a wrong sinusoidal_pe (``pe``'s switches)."""
    def wrong(p, distances, d, base=10000.0):
        dist = torch.as_tensor(distances).long()
        table = pe(p + int(dist.max()) + 1, d, base, **pe_kw)
        return table[p + dist] @ table[p]
    return wrong
