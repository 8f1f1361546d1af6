"""Sweep for PS1 sdpa's tolerance (issue 36): honest variants vs the reference on every
student id's hidden probes (and the visible ones), and the 4-decimal rounding finding.
Run: .venv/bin/python scripts/tolerance_sweeps/ps1_sdpa.py N  [under ATEN_CPU_CAPABILITY=avx2 too]
Prints, per variant, the worst |err| and the worst err/(1+|expected|) (the t with atol = rtol = t
at which it would just pass), and for the rounded one the smallest such t over ids (it fails on an
id whenever the tolerance is below that id's value)."""

import math
import sys

import numpy as np
import torch
import torch.nn.functional as F

from autograder.spec import as_args, load_assignment, to_plain


def einsum(q, k, v, mask=None):
    s = torch.einsum("...qd,...kd->...qk", q, k) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    w = torch.nan_to_num(torch.softmax(s, -1), nan=0.0)
    return torch.einsum("...qk,...kv->...qv", w, v)


def scale_q_first(q, k, v, mask=None):
    s = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)
    if mask is not None:
        s = torch.where(mask, s, torch.tensor(float("-inf")))
    w = torch.softmax(s, dim=-1)
    w = torch.where(torch.isnan(w), torch.zeros_like(w), w)
    return w @ v


def softmax_by_hand(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    m = s.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(s - m)
    z = e.sum(-1, keepdim=True)
    w = torch.where(z > 0, e / z, torch.zeros_like(e))
    return w @ v


def softmax_no_max(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    e = torch.exp(s)
    if mask is not None:
        e = e * mask
    z = e.sum(-1, keepdim=True)
    return torch.where(z > 0, e / torch.where(z > 0, z, torch.ones_like(z)), torch.zeros_like(e)) @ v


def loops(q, k, v, mask=None):
    lead = q.shape[:-2]
    out = torch.zeros(*torch.broadcast_shapes(lead, k.shape[:-2]), q.shape[-2], v.shape[-1])
    full_mask = None if mask is None else torch.broadcast_to(mask, (*out.shape[:-2], q.shape[-2], k.shape[-2]))
    qb = torch.broadcast_to(q, (*out.shape[:-2], *q.shape[-2:]))
    kb = torch.broadcast_to(k, (*out.shape[:-2], *k.shape[-2:]))
    vb = torch.broadcast_to(v, (*out.shape[:-2], *v.shape[-2:]))
    for idx in np.ndindex(*out.shape[:-2]):
        for i in range(q.shape[-2]):
            scores = []
            for j in range(k.shape[-2]):
                allowed = True if full_mask is None else bool(full_mask[idx + (i, j)])
                scores.append(
                    float(torch.dot(qb[idx + (i,)], kb[idx + (j,)])) / math.sqrt(q.shape[-1]) if allowed else -math.inf
                )
            m = max(scores)
            if m == -math.inf:
                continue
            e = [math.exp(s - m) for s in scores]
            z = sum(e)
            for j in range(k.shape[-2]):
                out[idx + (i,)] += (e[j] / z) * vb[idx + (j,)]
    return out


def float64(q, k, v, mask=None):
    return einsum(q.double(), k.double(), v.double(), mask).float()


def numpy_impl(q, k, v, mask=None):
    qn, kn, vn = q.numpy(), k.numpy(), v.numpy()
    s = qn @ np.swapaxes(kn, -1, -2) / np.sqrt(np.float32(qn.shape[-1]))
    if mask is not None:
        s = np.where(mask.numpy(), s, -np.inf)
    m = s.max(-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    e = np.exp(s - m)
    z = e.sum(-1, keepdims=True)
    w = np.divide(e, z, out=np.zeros_like(e), where=z > 0)
    return torch.from_numpy((w @ vn).astype(np.float32))


def torch_sdpa(q, k, v, mask=None):
    if mask is None:
        return F.scaled_dot_product_attention(q, k, v)
    any_key = mask.any(-1, keepdim=True)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask | ~any_key)
    return out * any_key


def rounded_weights(q, k, v, mask=None):
    s = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = s.masked_fill(torch.logical_not(mask), float("-inf"))
    w = torch.softmax(s, dim=-1)
    w = torch.where(torch.isnan(w), torch.zeros_like(w), w)
    w = torch.round(w * 1e4) / 1e4
    return torch.matmul(w, v)


HONEST = [einsum, scale_q_first, softmax_by_hand, softmax_no_max, loops, float64, numpy_impl, torch_sdpa]


def needed(got, exp):
    got = np.asarray(got, dtype=np.float64)
    exp = np.asarray(exp, dtype=np.float64)
    err = np.abs(got - exp)
    return float(err.max()), float((err / (1 + np.abs(exp))).max())


def main(n_ids, grade_id="sdpa", start=0):
    a = load_assignment("ps1_attention")
    question = a.question(grade_id)
    worst = {f.__name__: [0.0, 0.0] for f in HONEST}
    rounded_min = math.inf
    rounded_worst_id = None
    for n in range(start, start + n_ids):
        sid = f"student{n:05d}"
        probes = question.probes_for(sid, a)
        r_needed = 0.0
        for p in probes:
            args = as_args(p.args, question.args_as)
            exp = to_plain(question.reference(*args))
            for f in HONEST:
                if f is loops and n % 10:  # the python loops are slow: every tenth id
                    continue
                e_abs, e_t = needed(f(*args), exp)
                worst[f.__name__][0] = max(worst[f.__name__][0], e_abs)
                worst[f.__name__][1] = max(worst[f.__name__][1], e_t)
            r_needed = max(r_needed, needed(rounded_weights(*args), exp)[1])
        if r_needed < rounded_min:
            rounded_min, rounded_worst_id = r_needed, sid
    # the visible checks: each variant against the values as printed into the release (7 digits)
    vis = {f.__name__: 0.0 for f in HONEST}
    for p in question.visible:
        args = as_args(p.args, question.args_as)
        printed = np.vectorize(lambda x: float(f"{x:.7g}"))(
            np.asarray(to_plain(question.reference(*args)), dtype=np.float64)
        )
        for f in HONEST:
            vis[f.__name__] = max(vis[f.__name__], needed(f(*args), printed)[1])
        print(f"visible {p.label!r}: rounded needs {needed(rounded_weights(*args), printed)[1]:.3g}")
    print("visible checks, worst err/(1+|printed|) of the honest variants:", {k: f"{v:.3g}" for k, v in vis.items()})
    for name, (e_abs, e_t) in worst.items():
        print(f"{name:16s} worst |err| {e_abs:.3g}   worst err/(1+|exp|) {e_t:.3g}")
    print(f"rounded_weights: smallest err/(1+|exp|) over ids {rounded_min:.3g} ({rounded_worst_id})")


if __name__ == "__main__":
    main(int(sys.argv[1]), *(sys.argv[2:3] or ["sdpa"]))
