"""PS6's attention layers (`multi_head_attention`, `attend_with_cache`) under their tolerance (issue 36):
honest float32 implementations pass on every student's probes, attention weights rounded to 4 decimals
fail on every one. A slice of the sweep in scripts/tolerance_sweeps/ps6_attention.py (300 ids,
nine variants, both kernels); in process, no sandbox."""

import math

import torch
import torch.nn.functional as F

from autograder.spec import as_args, load_assignment, to_plain

IDS = [f"tolerance-{n}" for n in range(20)]


def _heads(x, h):
    b, t, d = x.shape
    return x.reshape(b, t, h, d // h).permute(0, 2, 1, 3)


def _attend(q, k, v, mask, rounded):
    s = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = torch.where(mask, s, torch.tensor(float("-inf")))
    m = s.amax(-1, keepdim=True)
    e = torch.exp(s - torch.where(torch.isfinite(m), m, torch.zeros_like(m)))
    z = e.sum(-1, keepdim=True)
    w = torch.where(z > 0, e / z.clamp_min(1e-30), torch.zeros_like(e))
    if rounded:
        w = torch.round(w * 1e4) / 1e4
    out = torch.einsum("bhqk,bhkd->bhqd", w, v)
    return out.permute(0, 2, 1, 3).reshape(out.shape[0], out.shape[2], -1)


def mha(rounded=False, dtype=torch.float32):
    def answer(x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads, mask):
        x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o = (
            a.to(dtype) for a in (x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o)
        )
        h = int(n_heads)
        q, k, v = (_heads(x @ w.T + b, h) for x, w, b in ((x_q, w_q, b_q), (x_kv, w_k, b_k), (x_kv, w_v, b_v)))
        return F.linear(_attend(q, k, v, mask, rounded), w_o, b_o).float()

    return answer


def cache(rounded=False, dtype=torch.float32):
    def answer(x_new, past_k, past_v, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads):
        x_new, past_k, past_v, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o = (
            a.to(dtype) for a in (x_new, past_k, past_v, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o)
        )
        h = int(n_heads)
        q = _heads(x_new @ w_q.T + b_q, h)
        k = torch.cat([past_k, _heads(x_new @ w_k.T + b_k, h)], 2)
        v = torch.cat([past_v, _heads(x_new @ w_v.T + b_v, h)], 2)
        t_new, t_all = q.shape[2], k.shape[2]
        allowed = torch.arange(t_all)[None, :] <= (t_all - t_new + torch.arange(t_new))[:, None]
        return F.linear(_attend(q, k, v, allowed, rounded), w_o, b_o).float()

    return answer


def test_honest_layers_pass_and_rounded_weights_fail_on_every_id():
    ps6 = load_assignment("ps6")
    for grade_id, make in (("multi_head_attention", mha), ("attend_with_cache", cache)):
        question = ps6.question(grade_id)
        honest, in_float64, rounded = make(), make(dtype=torch.float64), make(rounded=True)
        for n, student in enumerate(IDS):
            probes = question.probes_for(student, ps6)
            expected = [question.expected(p) for p in probes]
            outputs = {f: [to_plain(f(*as_args(p.args, question.args_as))) for p in probes] for f in (rounded,)}
            if n < 5:
                for f in (honest, in_float64):
                    outputs[f] = [to_plain(f(*as_args(p.args, question.args_as))) for p in probes]
                    assert all(question.compare(g, e).ok for g, e in zip(outputs[f], expected)), (grade_id, student)
            assert not all(question.compare(g, e).ok for g, e in zip(outputs[rounded], expected)), (grade_id, student)
