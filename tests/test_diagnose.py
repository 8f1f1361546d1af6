"""Automatic diagnosis: for each kind, a wrong answer of that kind gets that diagnosis (and its
feedback names the cause, not the expected value). Questions are the course's own with their
named misconceptions removed, so the diagnosis is what speaks, or small ones built here."""
import dataclasses

import numpy as np
import pytest
import torch

from autograder.judge import judge, public_label
from autograder.runner import Outcome
from autograder.selftest import known_wrong_outcome
from autograder.spec import FunctionSource, Probe, Question, load_assignment
from solutions.attention import scaled_dot_product_attention as sdpa_ref

STUDENT = "diagnose-student"


def bare(ps: str, grade_id: str):
    assignment = load_assignment(ps)
    return dataclasses.replace(assignment.question(grade_id), misconceptions=()), assignment


def verdict(question, assignment, wrong):
    probes = question.probes_for(STUDENT, assignment)
    return judge(question, probes, known_wrong_outcome(question, probes, wrong))


def attention(q, k, v, mask=None, *, scale=None, dim=-1, mask_mode="keep"):
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    scores = q @ k.transpose(-2, -1) * scale
    if mask is not None and mask_mode != "drop":
        scores = scores.masked_fill(mask if mask_mode == "invert" else ~mask, float("-inf"))
    return torch.nan_to_num(torch.softmax(scores, dim=dim), nan=0.0) @ v


def softmax_over_queries(q, k, v, m=None):
    """Only the softmax's axis differs from the reference: rows with no allowed key are handled as
    the reference does (a diagnosis is claimed only when it holds on every failing probe, and a
    second difference on those rows would rightly prevent it)."""
    if m is None:
        return attention(q, k, v, None, dim=-2)
    no_key = ~m.any(-1, keepdim=True)
    return attention(q, k, v, m | no_key, dim=-2).masked_fill(no_key, 0.0)


SDPA_WRONGS = {
    "sign": (lambda q, k, v, m=None: -sdpa_ref(q, k, v, m), "opposite sign"),
    "factor": (lambda q, k, v, m=None: sdpa_ref(q, k, v, m) * q.shape[-1], "d_k"),
    "axes": (lambda q, k, v, m=None: sdpa_ref(q, k, v, m).transpose(-2, -1), "axes -2 and -1 swapped"),
    "zeros": (lambda q, k, v, m=None: torch.zeros_like(sdpa_ref(q, k, v, m)), "all zeros"),
    "mask_missing": (lambda q, k, v, m=None: attention(q, k, v, m, mask_mode="drop"), "without any mask"),
    "mask_inverted": (lambda q, k, v, m=None: attention(q, k, v, m, mask_mode="invert"), "opposite mask"),
    "softmax_scale": (lambda q, k, v, m=None: attention(q, k, v, m, scale=1.0), "times √d_k"),
    "softmax_axis": (softmax_over_queries, "axis -2"),
    "precision": (lambda q, k, v, m=None: sdpa_ref(q.half().float(), k.half().float(), v, m), "only precision"),
    "nan": (lambda q, k, v, m=None: sdpa_ref(q, k, v, m) * float("nan"), "NaN"),
    "masked_rows": (lambda q, k, v, m=None: attention(q, k, v, m) if m is None or m.any(-1).all()
                    else torch.where(m.any(-1, keepdim=True), attention(q, k, v, m), v.mean(-2, keepdim=True)),
                    "allows no position"),
}


@pytest.mark.parametrize("kind", list(SDPA_WRONGS))
def test_attention_mistakes_are_diagnosed(kind):
    question, assignment = bare("ps1_attention", "sdpa")
    wrong, words = SDPA_WRONGS[kind]
    res = verdict(question, assignment, wrong)
    assert res.status == "failed" and res.score == 0
    assert res.diagnosis == kind, res.feedback
    assert words in res.feedback, res.feedback
    assert "does not match the reference:" in res.feedback


def test_layer_norm_over_tokens_is_a_normalisation_axis():
    question, assignment = bare("ps6_build", "layer_norm")

    def over_last_two(x, gamma, beta, eps):
        mean = x.mean((-2, -1), keepdim=True)
        var = x.var((-2, -1), unbiased=False, keepdim=True)
        return (x - mean) / torch.sqrt(var + eps) * gamma + beta
    res = verdict(question, assignment, over_last_two)
    assert res.diagnosis == "norm_axis" and "last 2 axes" in res.feedback, res.feedback


def _vector_question(reference, **extra):
    def probes(rng):
        return [Probe((rng.standard_normal(8),), "eight numbers"), Probe((rng.standard_normal(6),), "six numbers")]
    return Question(grade_id="vec", answer="vec", points=1, reference=reference, probes=probes, args_as="numpy",
                    **extra)


def _vector_verdict(question, wrong):
    from autograder.spec import student_rng

    probes = list(question.probes(student_rng(STUDENT, "vec", "vec")))
    return judge(question, probes, known_wrong_outcome(question, probes, wrong))


def affine(x):
    return 2.0 * x + 1.0


def _changed(where):
    def wrong(x):
        out = affine(x).copy()
        out[where(len(out))] += 5.0
        return out
    return wrong


VECTOR_WRONGS = {
    "reversed": (lambda x: affine(x)[::-1].copy(), "reverse order"),
    "permuted": (lambda x: affine(x)[[3, 1, 2, 0, *range(4, len(x))]], "another order"),
    "shift": (lambda x: np.roll(affine(x), 1), "shifted by one"),
    "edge": (_changed(lambda n: n - 1), "only the last entry"),
    "stripes": (_changed(lambda n: slice(1, n, 2)), "odd index"),
    "location": (_changed(lambda n: slice(2, n)), "agree up to index 1"),
    "shape": (lambda x: np.append(affine(x), 0.0), "one entry too many"),
    "which_inputs": (lambda x: affine(x) if len(x) == 8 else np.cos(x * 3.7) * 11.0, "right on eight numbers"),
}


@pytest.mark.parametrize("kind", list(VECTOR_WRONGS))
def test_where_and_how_a_vector_is_wrong(kind):
    wrong, words = VECTOR_WRONGS[kind]
    res = _vector_verdict(_vector_question(affine), wrong)
    assert res.status == "failed" and res.diagnosis == kind, res.feedback
    assert words in res.feedback, res.feedback


def test_an_ignored_argument_is_named():
    def shifted(x, offset=1.0):
        return x + offset

    def probes(rng):
        return [Probe((rng.standard_normal(5), 2.5), "offset 2.5"), Probe((rng.standard_normal(4), -0.5), "offset -0.5")]
    question = Question(grade_id="vec", answer="vec", points=1, reference=shifted, probes=probes, args_as="numpy")
    res = _vector_verdict(question, lambda x, offset=1.0: x + 1.0)
    assert res.diagnosis == "argument" and "`offset`" in res.feedback and "default" in res.feedback, res.feedback


def test_only_the_diagonal_wrong():
    def gram(a):
        return a @ a.T

    def probes(rng):
        return [Probe((rng.standard_normal((4, 3)),), "4 × 3"), Probe((rng.standard_normal((5, 2)),), "5 × 2")]
    question = Question(grade_id="vec", answer="vec", points=1, reference=gram, probes=probes, args_as="numpy")
    res = _vector_verdict(question, lambda a: gram(a) + 3 * np.eye(len(a)))
    assert res.diagnosis == "diagonal" and "on the diagonal" in res.feedback, res.feedback


def test_a_named_factor_is_named_by_its_size():
    question, assignment = bare("ps1_attention", "sdpa")
    res = verdict(question, assignment, lambda q, k, v, m=None: sdpa_ref(q, k, v, m) * q.shape[-1] ** 0.5)
    assert res.diagnosis == "factor" and "√d_k" in res.feedback, res.feedback


def test_formula_terms_compared_without_the_expected_formula():
    assignment = load_assignment("ps1_attention")
    question = assignment.question("mha_params_formula")
    res = judge(question, question.probes_for(STUDENT, assignment), Outcome("returned", [{"value": "4*d**2 + d"}]))
    assert res.diagnosis == "formula_terms"
    assert "d² term agrees" in res.feedback and "d term (d) is too small" in res.feedback, res.feedback
    assert "4*d" not in res.feedback and "4d" not in res.feedback and "4·d" not in res.feedback
    missing = judge(question, question.probes_for(STUDENT, assignment), Outcome("returned", [{"value": "4*d**2"}]))
    assert missing.misconception == "biases_missing"  # a named misconception still comes first


def test_named_misconceptions_come_first():
    assignment = load_assignment("ps1_attention")
    question = assignment.question("sdpa")
    res = verdict(question, assignment, lambda q, k, v, m=None: attention(q, k, v, m, scale=1.0))
    assert res.misconception == "missing_scale" and res.diagnosis is None


def test_a_scalar_value_gets_no_relation_that_would_give_it_away():
    assignment = load_assignment("ps1_attention")
    question = assignment.question("growth_when_T_doubles")
    res = judge(question, question.probes_for(STUDENT, assignment), Outcome("returned", [{"value": 8.0}]))
    assert res.diagnosis is None and res.status == "failed"


def test_probe_labels_lose_seeds_and_hidden_function_names():
    fn = FunctionSource("def secret_model(x):\n    return x\n", "secret_model")
    assert public_label(Probe((fn, 1), "secret_model"), 2) == "probe 3"
    assert public_label(Probe((1,), "temperature 0.5, seed 1234, 20 draws"), 0) == "temperature 0.5, 20 draws"
    assert public_label(Probe((1,), "500 held-out sequences (seed 99, time budget 90 s)"), 0) == \
        "500 held-out sequences (time budget 90 s)"
    assert public_label(Probe((1,), "tiny model 4821, prompt [3, 1]"), 0) == "tiny model, prompt [3, 1]"
