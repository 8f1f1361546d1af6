"""Shared by the question modules: the feedback for the frequency mistakes that show in every
part built on ω_i = base^(−2i/d) (the exponent's sign, i for 2i, one frequency per column,
document 000's cosine typo), a parametrised frequency and sinusoidal table with a switch per
mistake, and the probes' random tables."""

import numpy as np
import torch

EXPONENT_SIGN = (
    "The frequencies must shrink along the vector: ω_i = base^(−2i/d), i.e. PE[p, 2i] = "
    "sin(p / base^(2i/d)). With the exponent's sign lost (base^(+2i/d), document 000's error "
    "in its RoPE angles) the last pairs spin fastest and the long wavelengths that tell far "
    "positions apart are gone."
)
I_NOT_2I = (
    "The exponent is 2i/d for the pair index i = 0 … d/2 − 1 (it runs over the even column "
    "numbers 2i from 0 to d − 2). With i/d the frequencies only reach base^(−1/2): the factor 2 is "
    "missing."
)
DIM_INDEX = (
    "There are d/2 frequencies, one per (sin, cos) pair — not d, one per column. Column 2i and "
    "column 2i+1 share ω_i = base^(−2i/d); using the column index j in base^(−2j/d) gives the "
    "cosine column a different frequency from its sine partner."
)
COS_TYPO = (
    "Your cosine columns compute cos(p·d / base^(2i)) — document 000's formula has this typo, "
    "n^{2i}/d instead of n^{2i/d}. Both columns of pair i use the same divisor base^(2i/d); "
    "000's own table (cos(1/1), cos(1/10)) is computed with the right one."
)

ODD_EXPONENT = (
    "Your exponents are odd, (2i+1)/d — the cosine column's number 2i+1 (or 2i − 1 with i counted from 1) — "
    "for every pair: both columns of pair i share one frequency, and its exponent is the pair's even column "
    "number 2i over d (2i = 0, 2, …, d − 2), so the first pair's frequency is base^0."
)
ONE_FREQUENCY_TOO_MANY = (
    "Your sum runs over one frequency too many: there are d/2 pairs, i = 0 … d/2 − 1, and yours also takes "
    "i = d/2 (exponent 1, the frequency 1/base) — a range that includes its end, as torch.arange(0, d + 1, 2) "
    "or range(d // 2 + 1) does."
)


def randn(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


# ---- the frequencies and the sinusoidal table, right by default, one switch per mistake
def omegas(d, base, *, sign=-1, factor=2, dim_index=False, odd=False, extra=0):
    """Frequencies ω_i = base^(sign·factor·i/d), i = 0 … d/2 − 1 (right: sign −1, factor 2).
    ``dim_index``: one frequency per coordinate j = 0 … d − 1, base^(sign·factor·j/d); ``odd``:
    the exponent (factor·i + 1)/d; ``extra``: that many more pairs, i = 0 … d/2 − 1 + extra."""
    i = torch.arange(d if dim_index else d // 2 + extra, dtype=torch.float64)
    return float(base) ** (sign * (factor * i + (1 if odd else 0)) / d)


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
