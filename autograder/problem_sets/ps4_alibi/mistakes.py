"""PS4 known-wrong answers: ALiBi with a switch per mistake. Each must fail and be recognised
by the grader (``autograder selftest ps4``)."""
import math

import torch

from solutions.attention import attention_weights, causal_mask
from solutions.positional import alibi_slopes


# ---- alibi_slopes(n_heads)
def slopes_free_constant(n_heads):
    """Document 000: "a predefined constant, e.g. 0.4", the same for every head."""
    return torch.full((n_heads,), 0.4, dtype=torch.float64)


def slopes_reversed(n_heads):
    return alibi_slopes(n_heads).flip(0)


def slopes_linear(n_heads):
    return torch.linspace(2.0 ** (-8.0 / n_heads), 2.0 ** -8, n_heads, dtype=torch.float64)


def slopes_naive_rule(n_heads):
    """2^(−8h/n) for every n, also when n is not a power of two."""
    return torch.tensor([2.0 ** (-8.0 * h / n_heads) for h in range(1, n_heads + 1)], dtype=torch.float64)


def slopes_start_at_one(n_heads):
    return torch.tensor([2.0 ** (-8.0 * h / n_heads) for h in range(n_heads)], dtype=torch.float64)


SLOPES = {"right": alibi_slopes, "free_constant": slopes_free_constant, "wrong_order": slopes_reversed,
          "linear_spacing": slopes_linear, "naive_rule": slopes_naive_rule}


# ---- alibi_causal_bias(n_heads, t)
def bias(n_heads, t, *, slopes="right", sign=+1, masked=float("-inf"), key_only=False):
    """m_h·sign·(j − i) for j ≤ i and ``masked`` above the diagonal (None: no mask);
    ``key_only``: m_h·j instead."""
    m = SLOPES[slopes](n_heads).to(torch.float64)
    dist = (torch.arange(t)[None, :] - (0 if key_only else torch.arange(t)[:, None])).to(torch.float64)
    dist = dist.expand(t, t)
    out = m[:, None, None] * sign * dist
    if masked is not None:
        out = out.masked_fill(~causal_mask(t), masked)
    return out


def bias_variant(**kw):
    def wrong(n_heads, t):
        return bias(n_heads, t, **kw)
    return wrong


# ---- alibi_attention(q, k, v)
def attention(q, k, v, *, use_bias=True, scale_bias=False, **bias_kw):
    n_heads, t = q.shape[-3], q.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    b = bias(n_heads, t, masked=None, **bias_kw) if use_bias else None
    if scale_bias:  # (q·k + bias)/√d: the bias added before the scaling
        b = b * scale
    w = attention_weights(q.double(), k.double(), causal_mask(t), scale=scale, bias=b)
    return (w @ v.double()).to(q.dtype)


def attention_variant(**kw):
    def wrong(q, k, v):
        return attention(q, k, v, **kw)
    return wrong


# ---- alibi_profile(slope, length)
def profile_sign(slope, length):
    j = torch.arange(length, dtype=torch.float64)
    return torch.softmax(-slope * (j - (length - 1)), dim=0)


def profile_uniform(slope, length):
    return torch.full((length,), 1.0 / length, dtype=torch.float64)


def profile_overflow(slope, length):
    """exp(m·j) / Σ exp(m·j): NaN once m·(length − 1) > 709."""
    w = torch.exp(slope * torch.arange(length, dtype=torch.float64))
    return w / w.sum()


def profile_unnormalised(slope, length):
    j = torch.arange(length, dtype=torch.float64)
    return torch.exp(slope * (j - (length - 1)))
