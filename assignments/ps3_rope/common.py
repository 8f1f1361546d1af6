"""Shared by the question modules: the feedback for the mistakes that show in every part built
on the rotation (θ_i's sign, degrees, m·i, the transposed block), and one parametrised RoPE
with a switch per mistake, from which each part's known-wrong answers are made."""

import math

import numpy as np
import torch

EXPONENT_SIGN = (
    "θ_i must shrink with i: the exponent is −2(i−1)/d, θ_i = base^(−2(i−1)/d). "
    "With the sign lost (θ_i = base^(+2(i−1)/d), as in document 000's answer) base 100 "
    "and d = 4 give θ_2 = 10 instead of 0.1, and the fastest rotations land on the last pairs."
)
DEGREES = (
    "The angles m·θ_i are in radians — torch.cos and math.cos take radians; do not convert "
    "from degrees (cos 1 ≈ 0.540, while cos 1° ≈ 0.99985)."
)
M_TIMES_I = (
    "Pair i rotates by m·θ_i, not by m·i: the frequency θ_i = base^(−2(i−1)/d) is what "
    "makes the far pairs turn slowly (for base 100, d = 4, θ_2 = 0.1, not 2)."
)
BACKWARDS = (
    "Each 2×2 block is [[cos mθ_i, −sin mθ_i], [sin mθ_i, cos mθ_i]] — the −sin is in the "
    "upper right. Yours is the transpose, a rotation by −mθ_i."
)


def randn(rng, *shape, scale=1.0):
    return (scale * rng.standard_normal(shape)).astype(np.float32)


# ---- one parametrised RoPE: the right one by default, one switch per mistake
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


def rope(
    x, positions, base=10000.0, convention="interleaved", *, pairing=None, layout=None, backwards=False, **angle_kw
):
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
        turned = torch.cat([-xd[..., d // 2 :], xd[..., : d // 2]], -1)
    s = -ang.sin() if backwards else ang.sin()
    return (xd * ang.cos() + turned * s).to(x.dtype)


def matrix(m, d, base=10000.0, **kw):
    """The d×d matrix of ``rope`` at position m (columns = images of the basis vectors)."""
    return rope(torch.eye(d, dtype=torch.float64), torch.full((d,), m), base, "interleaved", **kw).T
