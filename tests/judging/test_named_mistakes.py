"""Issue 36, named mistakes seen on held-out notebooks: attention weights rounded before use are
diagnosed as such (from the reference re-run with its softmax's output rounded, on any question
whose reference takes a softmax), and a misconception's other spellings (``also_wrong``) are
recognised — weight tying ignored with two or three tables, the factor's bounds at any d. The
misconceptions' own wrong answers are proved by the self-test."""

import math

import numpy as np
import torch

from autograder.judging.instructor_answers import SELFTEST_STUDENTS, known_wrong_outcome
from autograder.judging.verdict import judge
from autograder.spec import load_assignment

STUDENT = SELFTEST_STUDENTS[0]


def _verdict(assignment, grade_id, function):
    question = assignment.question(grade_id)
    probes = question.probes_for(STUDENT, assignment)
    return judge(question, probes, known_wrong_outcome(question, probes, function))


def test_weights_rounded_before_use_are_named_on_a_value_and_on_a_function(ps1):
    from assignments.ps1_attention.dense import sparsity_measures, weights_002

    measured = _verdict(ps1, "attention_sparsity", lambda: sparsity_measures(np.round(weights_002(), 4)))
    assert measured.diagnosis == "rounded_weights", measured
    assert "rounded" in measured.feedback and "largest error" not in measured.feedback

    def sdpa(q, k, v, mask=None):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        return torch.round(torch.nan_to_num(torch.softmax(scores, -1)), decimals=2) @ v

    assert _verdict(ps1, "sdpa", sdpa).diagnosis == "rounded_weights"


def test_weight_tying_ignored_is_named_with_two_tables_too_many(ps1):
    from assignments.ps1_attention.document_000_counts import counts_with
    from assignments.ps1_attention.parameter_counts import model_counts
    from assignments.ps1_attention.real_models import _with_transformer_tables

    def three_tables(**params):
        return model_counts(**params, extra_tables=2)

    assert _verdict(ps1, "param_counts", three_tables).misconception == "untied_output"
    assert _verdict(ps1, "doc000_counts", lambda: counts_with(embeddings=3)).misconception == "doc000_untied_output"
    real = _verdict(ps1, "real_models", lambda: _with_transformer_tables(3))
    assert real.misconception == "transformer_base_untied" and "37000" not in real.feedback


def test_the_factors_bounds_are_named_for_any_d():
    ps2 = load_assignment("ps2_positional")
    for d in (64, 512):
        found = _verdict(ps2, "wavelength_range", lambda d=d: [1.0, 10000.0 ** ((d - 2) / d)])
        assert found.misconception == "factor_not_period", found
        assert "2π times" not in found.feedback
