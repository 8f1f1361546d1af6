"""The verdict: known mistakes are named whether they return a wrong value or crash."""

import numpy as np

from autograder.judging.compare.comparators import AllClose
from autograder.judging.instructor_answers import known_wrong_outcome
from autograder.judging.outcome import Outcome
from autograder.judging.verdict import judge
from autograder.spec import Misconception, Probe, Question

TABLE = np.arange(8.0)


def lookup(i):
    return TABLE[min(int(i), 7)]  # positions past the table hold the last row


def lookup_without_clamp(i):
    return TABLE[int(i)]  # IndexError at i = 8


QUESTION = Question(
    grade_id="lookup",
    answer="lookup",
    title="t",
    points=1,
    reference=lookup,
    probes=lambda rng: [Probe((3,), "inside"), Probe((8,), "past the end")],
    compare=AllClose(),
    misconceptions=(
        Misconception("no_clamp", "Positions past the table must hold the last row.", lookup_without_clamp),
        Misconception("off_by_one", "Row i is TABLE[i], not TABLE[i + 1].", lambda i: TABLE[min(int(i) + 1, 7)]),
    ),
)
PROBES = QUESTION.probes(None)


def test_a_crashing_known_mistake_is_named_with_its_error():
    res = judge(QUESTION, PROBES, known_wrong_outcome(QUESTION, PROBES, lookup_without_clamp))
    assert (res.status, res.misconception, res.score) == ("error", "no_clamp", 0.0)
    assert "last row" in res.feedback and "IndexError" in res.feedback


def test_an_unknown_crash_keeps_the_plain_error():
    outcome = Outcome("returned", [{"value": np.float64(3.0)}, {"error": "KeyError: 8"}])
    res = judge(QUESTION, PROBES, outcome)
    assert res.status == "error" and res.misconception is None and "KeyError" in res.feedback


def test_values_still_match_misconceptions_and_the_reference_passes():
    res = judge(QUESTION, PROBES, known_wrong_outcome(QUESTION, PROBES, QUESTION.misconceptions[1].wrong))
    assert (res.status, res.misconception) == ("failed", "off_by_one")
    assert judge(QUESTION, PROBES, known_wrong_outcome(QUESTION, PROBES, lookup)).status == "passed"
