"""Issue 36: a diagnosis names only what the grader has established. The headline mistake of PS7's
token_loss is recognised in any spelling; an axis message needs shapes that really differ; an
assert is not called the student's own; a circumstance is named only when a controlled pair of
probes shows it alone separates right from wrong; a single wrong number is not told its error."""

import dataclasses

import numpy as np
import torch

from autograder.judging.compare.comparators import AllClose
from autograder.judging.diagnosis.crash_messages import find_message
from autograder.judging.instructor_answers import SELFTEST_STUDENTS, known_wrong_outcome
from autograder.judging.outcome import Outcome
from autograder.judging.verdict import judge
from autograder.spec import Probe, Question, load_assignment

PS7 = load_assignment("ps7_tasks")


def _verdict(question, probes, function):
    return judge(question, probes, known_wrong_outcome(question, probes, function))


def _loss_reading_logits_as_probabilities(spelling):
    def loss(logits, tgt, pad_id=None):
        target = tgt[..., 1:].long()
        logits = logits.double()
        log_p = {
            "clamp": lambda x: torch.log(x.clamp_min(1e-12)),
            "eps": lambda x: torch.log(x + 1e-9),
            "bare": torch.log,
        }[spelling](logits)
        picked = log_p.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        keep = torch.ones_like(target, dtype=torch.bool) if pad_id is None else target != pad_id
        return -picked[keep].sum() / keep.sum()

    return loss


def test_logits_read_as_probabilities_is_named_in_every_spelling():
    """The clamp spelling was told "off by a constant factor" (and, in the issue, "an extra last
    axis"): it is the notebook's headline mistake, recognised by what it does."""
    question = PS7.question("token_loss")
    for student in SELFTEST_STUDENTS[:2]:
        probes = question.probes_for(student, PS7)
        for spelling in ("clamp", "eps", "bare"):
            result = _verdict(question, probes, _loss_reading_logits_as_probabilities(spelling))
            assert result.misconception == "logits_as_probabilities", (spelling, result.feedback)
            assert "axis" not in result.feedback and "factor" not in result.feedback


def test_an_axis_of_length_one_is_no_extra_axis():
    question = Question(grade_id="total", answer="total", points=1, reference=lambda x: float(x.sum()), args_as="numpy")
    probes = [Probe((np.arange(4.0),), "four numbers"), Probe((np.ones(3),), "three ones")]
    result = judge(question, probes, Outcome("returned", [{"value": np.array([9.0])} for _ in probes]))
    assert result.status == "failed" and "extra last axis" not in result.feedback, result.feedback


def test_a_failing_assert_is_not_called_the_students_own():
    """The locked cell's `assert scheme in (…)` tripped by a typo: the student wrote no assert."""
    found = find_message(["AssertionError: ", "AssertionError: "], everywhere=True)
    assert found is not None and "of your own" not in found.feedback
    assert "given cell" in found.feedback and "values your code hands it" in found.feedback


def _first_sequence_only(x):
    """Right for one sequence, wrong for a batch: every row gets the first sequence's sum."""
    return np.broadcast_to(x[:1].sum(-1), x.shape[:-1]).copy()


def _batch_question():
    return Question(grade_id="rows", answer="rows", points=1, reference=lambda x: x.sum(-1), args_as="numpy")


def _probe(rng, batch, width):
    return Probe((rng.normal(size=(batch, 3, width)),), f"batch {batch}, width {width}")


def test_a_coincident_circumstance_is_not_named():
    """Wrong exactly on the probes with a batch, which here also have an odd width: before, "the
    last axis of `x` is odd" was named; the probes cannot tell the two apart, so neither is."""
    rng = np.random.default_rng(0)
    probes = [_probe(rng, 2, 5), _probe(rng, 3, 3), _probe(rng, 1, 4), _probe(rng, 1, 6)]
    result = _verdict(_batch_question(), probes, _first_sequence_only)
    assert result.status == "failed" and "odd" not in result.feedback, result.feedback
    assert result.diagnosis != "wrong_when", result.feedback


def test_a_circumstance_a_controlled_pair_separates_is_named():
    """With a probe that differs from a wrong one in the batch alone (same odd width), the batch
    is the cause, and it is named."""
    rng = np.random.default_rng(1)
    probes = [_probe(rng, 2, 5), _probe(rng, 3, 3), _probe(rng, 1, 5), _probe(rng, 1, 4)]
    result = _verdict(_batch_question(), probes, _first_sequence_only)
    assert result.diagnosis == "wrong_when" and "more than one sequence" in result.feedback, result.feedback
    assert "odd" not in result.feedback


def test_a_single_wrong_number_is_not_told_its_error():
    """PS1's growth_when_T_doubles answered 2 was told "largest error 2": 2 + 2 is the answer."""
    ps1_growth = Question(
        grade_id="g", answer="g", points=1, call=False, reference=lambda: 4.0, compare=AllClose(atol=1e-9, rtol=0)
    )
    probes = [Probe((), "your answer")]
    result = judge(ps1_growth, probes, Outcome("returned", [{"value": 2.0}]))
    assert result.status == "failed" and "error" not in result.feedback and "2" not in result.feedback.split("`")[-1]


def test_the_known_wrong_answer_must_match_somewhere():
    """A known-wrong answer undefined (NaN) on every probe matches no finite answer."""
    question = PS7.question("token_loss")
    nan_everywhere = dataclasses.replace(
        question,
        misconceptions=(dataclasses.replace(question.misconceptions[0], wrong=lambda *a, **k: float("nan")),),
    )
    probes = question.probes_for(SELFTEST_STUDENTS[0], PS7)
    result = _verdict(nan_everywhere, probes, lambda *a, **k: 123.0)
    assert result.misconception is None
