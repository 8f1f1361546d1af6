"""Sweep for PS6's attention tolerances (issue 36): multi_head_attention and attend_with_cache,
honest variants vs the reference on every student id's hidden probes and the visible ones, and the
same with the attention weights rounded to 4 decimals.
Run: .venv/bin/python scripts/tolerance_sweeps/ps6_attention.py N"""

import math
import sys

import numpy as np
import torch
import torch.nn.functional as F

from autograder.spec import as_args, load_assignment, to_plain


def heads(x, h):
    b, t, d = x.shape
    return x.reshape(b, t, h, d // h).permute(0, 2, 1, 3)


def merge(o):
    b, h, t, dh = o.shape
    return o.permute(0, 2, 1, 3).reshape(b, t, h * dh)


def core_torch(q, k, v, mask, rounded=False):
    s = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    w = torch.nan_to_num(torch.softmax(s, -1), nan=0.0)
    if rounded:
        w = torch.round(w * 1e4) / 1e4
    return w @ v


def core_by_hand(q, k, v, mask, rounded=False):
    s = torch.einsum("bhqd,bhkd->bhqk", q / math.sqrt(q.shape[-1]), k)
    if mask is not None:
        s = torch.where(mask, s, torch.tensor(float("-inf")))
    m = s.amax(-1, keepdim=True)
    e = torch.exp(s - torch.where(torch.isfinite(m), m, torch.zeros_like(m)))
    z = e.sum(-1, keepdim=True)
    w = torch.where(z > 0, e / z.clamp_min(1e-30), torch.zeros_like(e))
    return torch.einsum("bhqk,bhkd->bhqd", w, v)


def core_sdpa(q, k, v, mask, rounded=False):
    if mask is None:
        return F.scaled_dot_product_attention(q, k, v)
    mask = torch.broadcast_to(mask, (*q.shape[:-1], k.shape[-2]))
    any_key = mask.any(-1, keepdim=True)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask | ~any_key) * any_key


def core_per_head_loop(q, k, v, mask, rounded=False):
    outs = []
    for i in range(q.shape[1]):
        m = None if mask is None else torch.broadcast_to(mask, (q.shape[0], q.shape[1], q.shape[2], k.shape[2]))[:, i]
        outs.append(core_torch(q[:, i], k[:, i], v[:, i], m))
    return torch.stack(outs, 1)


def proj_linear(x, w, b):
    return F.linear(x, w, b)


def proj_matmul(x, w, b):
    return x @ w.T + b


def mha(core, proj, dtype=torch.float32, rounded=False):
    def f(x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads, mask):
        t = [a.to(dtype) for a in (x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o)]
        x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o = t
        h = int(n_heads)
        o = core(
            heads(proj(x_q, w_q, b_q), h), heads(proj(x_kv, w_k, b_k), h), heads(proj(x_kv, w_v, b_v), h), mask, rounded
        )
        return proj(merge(o), w_o, b_o).float()

    f.__name__ = f"mha[{core.__name__},{proj.__name__},{dtype}]" + ("ROUNDED" if rounded else "")
    return f


def cache(core, proj, dtype=torch.float32, rounded=False):
    def f(x_new, past_k, past_v, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads):
        x_new, past_k, past_v, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o = [
            a.to(dtype) for a in (x_new, past_k, past_v, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o)
        ]
        h = int(n_heads)
        q = heads(proj(x_new, w_q, b_q), h)
        k = torch.cat([past_k, heads(proj(x_new, w_k, b_k), h)], 2)
        v = torch.cat([past_v, heads(proj(x_new, w_v, b_v), h)], 2)
        t_new, t_all = q.shape[2], k.shape[2]
        allowed = torch.arange(t_all)[None, :] <= (t_all - t_new + torch.arange(t_new))[:, None]
        return proj(merge(core(q, k, v, allowed, rounded)), w_o, b_o).float()

    f.__name__ = f"cache[{core.__name__},{proj.__name__},{dtype}]" + ("ROUNDED" if rounded else "")
    return f


def needed(got, exp):
    got = np.asarray(got, dtype=np.float64)
    exp = np.asarray(exp, dtype=np.float64)
    err = np.abs(got - exp)
    return float(err.max()), float((err / (1 + np.abs(exp))).max())


def sweep(a, grade_id, make, n_ids):
    question = a.question(grade_id)
    honest = [
        make(c, p)
        for c in (core_torch, core_by_hand, core_sdpa, core_per_head_loop)
        for p in (proj_linear, proj_matmul)
    ]
    honest.append(make(core_torch, proj_linear, torch.float64))
    rounded = make(core_torch, proj_linear, rounded=True)
    worst = {f.__name__: [0.0, 0.0] for f in honest}
    r_min, r_id = math.inf, None
    for n in range(n_ids):
        sid = f"student{n:05d}"
        r = 0.0
        for p in question.probes_for(sid, a):
            args = as_args(p.args, question.args_as)
            exp = question.expected(p)
            for f in honest:
                e = needed(to_plain(f(*args)), exp)
                worst[f.__name__] = [max(x, y) for x, y in zip(worst[f.__name__], e)]
            r = max(r, needed(to_plain(rounded(*args)), exp)[1])
        if r < r_min:
            r_min, r_id = r, sid
    vis = 0.0
    for p in question.visible:
        args = as_args(p.args, question.args_as)
        printed = np.vectorize(lambda x: float(f"{x:.7g}"))(np.asarray(question.expected(p), dtype=np.float64))
        vis = max([vis] + [needed(to_plain(f(*args)), printed)[1] for f in honest])
    print(f"== {grade_id}, {n_ids} ids, capability {torch.backends.cpu.get_cpu_capability()}")
    for name, (e_abs, e_t) in worst.items():
        print(f"  {name:55s} worst |err| {e_abs:.3g}  err/(1+|exp|) {e_t:.3g}")
    print(f"  visible probes: honest worst err/(1+|printed|) {vis:.3g}")
    print(f"  rounded weights: smallest err/(1+|exp|) over ids {r_min:.3g} ({r_id})")


if __name__ == "__main__":
    torch.set_num_threads(1)
    a = load_assignment("ps6")
    n = int(sys.argv[1])
    sweep(a, "multi_head_attention", mha, n)
    sweep(a, "attend_with_cache", cache, n)
