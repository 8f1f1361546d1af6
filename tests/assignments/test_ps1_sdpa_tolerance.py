"""PS1 `sdpa`'s hidden tolerance (issue 36): honest float32 implementations pass on every student's
probes, an sdpa that rounds its attention weights to 4 decimals fails on every one and is told so.
A small slice of the sweep in scripts/tolerance_sweeps/ps1_sdpa.py (300 ids, more variants, both
kernels); in process, no sandbox."""

import math

import numpy as np
import torch

from autograder.judging.instructor_answers import known_wrong_outcome
from autograder.judging.verdict import judge
from autograder.spec import as_args, to_plain

IDS = [f"tolerance-{n}" for n in range(30)]


def _masked_scores(q, k, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return scores if mask is None else scores.masked_fill(~mask, float("-inf"))


def einsum_sdpa(q, k, v, mask=None):
    s = torch.einsum("...qd,...kd->...qk", q, k) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return torch.einsum("...qk,...kv->...qv", torch.nan_to_num(torch.softmax(s, -1), nan=0.0), v)


def softmax_without_max(q, k, v, mask=None):
    e = torch.exp(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]))
    if mask is not None:
        e = e * mask
    z = e.sum(-1, keepdim=True)
    return torch.where(z > 0, e / torch.where(z > 0, z, torch.ones_like(z)), torch.zeros_like(e)) @ v


def in_float64(q, k, v, mask=None):
    return einsum_sdpa(q.double(), k.double(), v.double(), mask).float()


def numpy_sdpa(q, k, v, mask=None):
    s = _masked_scores(q, k, mask).numpy()
    m = s.max(-1, keepdims=True)
    e = np.exp(s - np.where(np.isfinite(m), m, 0))
    z = e.sum(-1, keepdims=True)
    return torch.from_numpy(np.divide(e, z, out=np.zeros_like(e), where=z > 0) @ v.numpy())


def weights_rounded_to_4_decimals(q, k, v, mask=None):
    weights = torch.nan_to_num(torch.softmax(_masked_scores(q, k, mask), dim=-1), nan=0.0)
    return torch.round(weights * 1e4) / 1e4 @ v


def test_honest_implementations_pass_on_every_id(ps1):
    question = ps1.question("sdpa")
    for student in IDS[:8]:
        for probe in question.probes_for(student, ps1):
            expected = question.expected(probe)
            for honest in (einsum_sdpa, softmax_without_max, in_float64, numpy_sdpa):
                got = to_plain(honest(*as_args(probe.args, question.args_as)))
                assert question.compare(got, expected).ok, (student, honest.__name__, probe.label)


def test_weights_rounded_to_4_decimals_fail_on_every_id_and_are_named(ps1):
    question = ps1.question("sdpa")
    for student in IDS:
        probes = question.probes_for(student, ps1)
        got = [to_plain(weights_rounded_to_4_decimals(*as_args(p.args, question.args_as))) for p in probes]
        assert not all(question.compare(g, question.expected(p)).ok for g, p in zip(got, probes)), student
    probes = question.probes_for(IDS[0], ps1)
    verdict = judge(question, probes, known_wrong_outcome(question, probes, weights_rounded_to_4_decimals))
    assert verdict.score == 0 and verdict.diagnosis == "rounded_weights", str(verdict.feedback)
