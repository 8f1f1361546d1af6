"""A location diagnosis ("agree up to index 0 along axis -2", "only the last position along axis
-3", "only the entries off the diagonal") is true of these wrong answers but misleads: a relation
explains them — a scale, a mask, −∞ — and the feedback names it (issue 27). The course's own
questions, named misconceptions removed, so the diagnosis is what speaks."""

import dataclasses
import math

import pytest
import torch
import torch.nn.functional as F

from autograder.judging.instructor_answers import known_wrong_outcome
from autograder.judging.verdict import judge
from autograder.spec import load_assignment
from solutions.attention import attention_weights, causal_mask
from solutions.encodings import alibi_bias

LOCATION_WORDS = ("agree up to", "only the last", "only the first", "off the diagonal", "on the diagonal", "half of")


def verdict(ps, grade_id, wrong):
    assignment = load_assignment(ps)
    question = dataclasses.replace(assignment.question(grade_id), misconceptions=())
    probes = question.probes_for("mechanism-student", assignment)
    return judge(question, probes, known_wrong_outcome(question, probes, wrong))


def alibi_attention_without_scale(q, k, v):
    h, t = q.shape[-3], q.shape[-2]
    weights = attention_weights(q.double(), k.double(), causal_mask(t), scale=1.0, bias=alibi_bias(h, t).double())
    return (weights @ v.double()).to(q.dtype)


def bidirectional_alibi_bias(n_heads, t):
    return -alibi_bias(n_heads, t).double().abs()  # −m·|j − i| everywhere: no −∞ above the diagonal


def causal_bias_zero_above(n_heads, t):
    return alibi_bias(n_heads, t).double().tril()  # 0, not −∞, for the keys after the query


def causal_bias_blocks_diagonal(n_heads, t):
    bias = alibi_bias(n_heads, t).double()
    return bias.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(-1), float("-inf"))


def mha_uniform_for_masked_rows(x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads, mask):
    """Masked keys at −1e9, not −∞: a query whose keys are all masked gets uniform weights."""
    n_heads = int(n_heads)

    def split(x):
        b, t, d = x.shape
        return x.view(b, t, n_heads, d // n_heads).transpose(1, 2)

    q = split(F.linear(x_q, w_q, b_q))
    k, v = split(F.linear(x_kv, w_k, b_k)), split(F.linear(x_kv, w_v, b_v))
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e9)
    out = torch.softmax(scores, -1) @ v
    b, h, t, d_head = out.shape
    return F.linear(out.transpose(1, 2).reshape(b, t, h * d_head), w_o, b_o)


CASES = {
    "alibi without 1/√d": ("ps4_alibi", "alibi_attention", alibi_attention_without_scale, "input_scale", "√d_k"),
    "bidirectional alibi bias": ("ps4_alibi", "alibi_causal_bias", bidirectional_alibi_bias, "mask_finite", "−∞"),
    "causal bias 0 above": ("ps4_alibi", "alibi_causal_bias", causal_bias_zero_above, "mask_finite", "−∞"),
    "causal bias blocks the diagonal": (
        "ps4_alibi",
        "alibi_causal_bias",
        causal_bias_blocks_diagonal,
        "mask_blocks_too_much",
        "blocks positions it should not",
    ),
    "uniform weights on a fully masked row": (
        "ps6_build",
        "multi_head_attention",
        mha_uniform_for_masked_rows,
        "masked_rows",
        "uniform weights",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_mechanism_is_named_not_a_location(case):
    ps, grade_id, wrong, kind, words = CASES[case]
    result = verdict(ps, grade_id, wrong)
    assert result.status == "failed" and result.score == 0
    assert result.diagnosis == kind, result.feedback
    assert words in result.feedback, result.feedback
    assert not any(w in result.feedback for w in LOCATION_WORDS), result.feedback
