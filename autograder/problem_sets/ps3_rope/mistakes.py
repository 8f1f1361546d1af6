"""PS3 known-wrong answers: one parametrised RoPE with a switch per mistake, and the wrong
versions of each graded function built from it. Each must fail and be recognised by the
grader (``autograder selftest ps3``)."""
import math

import torch

from solutions.encodings import rope_score_from_offset
from solutions.attention import attention_weights, causal_mask
from solutions.positional import rope_half_permutation


def thetas(d, base, *, sign=-1, factor=2, start=1):
    """θ_i = base^(sign·factor·(i − start)/d), i = 1 … d/2. Right: sign −1, factor 2, start 1."""
    i = torch.arange(1, d // 2 + 1, dtype=torch.float64)
    return float(base) ** (sign * factor * (i - start) / d)


def angles(positions, d, base, *, degrees=False, m_times_i=False, **theta_kw):
    """(T, d/2) angles m·θ_i in radians, or with one of the mistakes."""
    pos = torch.as_tensor(positions).to(torch.float64).reshape(-1)
    th = torch.arange(1, d // 2 + 1, dtype=torch.float64) if m_times_i else thetas(d, base, **theta_kw)
    ang = pos[:, None] * th
    return ang * math.pi / 180 if degrees else ang


def rope(x, positions, base=10000.0, convention="interleaved", *, pairing=None, layout=None,
         backwards=False, **angle_kw):
    """RoPE with switches: ``pairing`` the coordinates rotated together ("interleaved" |
    "half"), ``layout`` how the frequencies are laid out along d (same choices), ``backwards``
    rotate by −mθ_i. By default both follow ``convention`` (the right answer)."""
    d = x.shape[-1]
    pairing, layout = pairing or convention, layout or convention
    ang = angles(positions, d, base, **angle_kw)
    ang = ang.repeat_interleave(2, -1) if layout == "interleaved" else torch.cat([ang, ang], -1)
    xd = x.to(torch.float64)
    if pairing == "interleaved":
        turned = torch.stack([-xd[..., 1::2], xd[..., 0::2]], -1).flatten(-2)
    else:
        turned = torch.cat([-xd[..., d // 2:], xd[..., : d // 2]], -1)
    s = -ang.sin() if backwards else ang.sin()
    return (xd * ang.cos() + turned * s).to(x.dtype)


def matrix(m, d, base=10000.0, **kw):
    """The d×d matrix of ``rope`` at position m (columns = images of the basis vectors)."""
    return rope(torch.eye(d, dtype=torch.float64), torch.full((d,), m), base, "interleaved", **kw).T


# ---- rope_thetas(d, base)
def thetas_exponent_sign(d, base):
    return thetas(d, base, sign=+1)


def thetas_no_factor_two(d, base):
    return thetas(d, base, factor=1)


def thetas_off_by_one(d, base):
    return thetas(d, base, start=0)


# ---- R_worked (base 100, d = 4, m = 0, 1, 2)
def worked(**kw):
    return torch.stack([matrix(m, 4, 100.0, **kw) for m in range(3)])


def worked_same_position():
    return torch.stack([torch.eye(4, dtype=torch.float64)] * 3)


# ---- rope_matrix(m, d, base)
def matrix_variant(**kw):
    def wrong(m, d, base=10000.0):
        return matrix(m, d, base, **kw)
    return wrong


# ---- apply_rope(x, positions, base, convention)
def apply_variant(**kw):
    def wrong(x, positions, base=10000.0, convention="interleaved"):
        return rope(x, positions, base, convention, **kw)
    return wrong


def apply_swapped_conventions(x, positions, base=10000.0, convention="interleaved"):
    return rope(x, positions, base, "half" if convention == "interleaved" else "interleaved")


def apply_convention_ignored(x, positions, base=10000.0, convention="interleaved"):
    return rope(x, positions, base, "interleaved")


def apply_mixed(x, positions, base=10000.0, convention="interleaved"):
    """The pairing of the asked convention with the frequency layout of the other one."""
    return rope(x, positions, base, convention, layout="half" if convention == "interleaved" else "interleaved")


# ---- rope_permutation(d)
def permutation_inverse(d):
    return torch.argsort(rope_half_permutation(d))


def permutation_odd_first(d):
    return torch.cat([torch.arange(1, d, 2), torch.arange(0, d, 2)])


# ---- score_from_offset(q, k, offset, base)
def score_offset_sign(q, k, offset, base=10000.0):
    return rope_score_from_offset(q, k, -int(offset), base)


def score_no_rotation(q, k, offset, base=10000.0):
    return (q.double() * k.double()).sum()


# ---- rope_attention(q, k, v, positions, base)
def _attention(q, k, v, positions, base, rotate=("q", "k")):
    def turn(t, name):
        return rope(t.double(), positions, base) if name in rotate else t.double()
    w = attention_weights(turn(q, "q"), turn(k, "k"), causal_mask(q.shape[-2]))
    return (w @ turn(v, "v")).to(q.dtype)


def attention_rotates_v(q, k, v, positions, base=10000.0):
    return _attention(q, k, v, positions, base, rotate=("q", "k", "v"))


def attention_only_q(q, k, v, positions, base=10000.0):
    return _attention(q, k, v, positions, base, rotate=("q",))


def attention_no_rope(q, k, v, positions, base=10000.0):
    return _attention(q, k, v, positions, base, rotate=())
