"""The coverage rules for ranges a question's text names (issue 38): a declared range wants a
hidden probe at each end, one inside and one past the end where the text allows it, each missing
case named; the declaration's words must stand in the question's text; and an argument the text
bounds (`k` ≥ 0, "`k` … is allowed") without a declared range is named."""

import nbformat
import torch

from autograder.judging.compare.comparators import AllClose
from autograder.proving import coverage, stated_ranges
from autograder.spec import Assignment, Misconception, Probe, Question, StatedRange

TEXT = "Every `k` $\\ge 0$ is allowed (`n` or more: all of them)."
RANGE = StatedRange(text=TEXT, low=0, high="n", above=True)


def first_k(n, k):
    return torch.arange(n)[:k].sum()


def _question(probes, ranges=None):
    return Question(
        grade_id="q",
        answer="f",
        points=1,
        reference=first_k,
        probes=lambda rng: [Probe(args) for args in probes],
        compare=AllClose(),
        misconceptions=(Misconception("zero", "all zero", lambda *a: torch.zeros(())),),
        stated_ranges={"k": RANGE} if ranges is None else ranges,
    )


def _problems(q):
    assignment = Assignment(name="synthetic_ranges", notebook="x.ipynb", questions=[q])
    return [p for p in coverage.question_problems(q, {"a": q.probes_for("a", assignment)}) if "`k`" in p]


def test_every_case_of_a_stated_range_probed_passes():
    assert not _problems(_question([(5, 0), (5, 2), (5, 5), (5, 8), (7, 1)]))


def test_each_missing_case_is_named_with_the_texts_words():
    problems = _problems(_question([(5, 0), (5, 2), (5, 5), (7, 3)]))
    assert len(problems) == 1 and "a value past 'n'" in problems[0] and TEXT in problems[0], problems
    problems = _problems(_question([(5, 2), (5, 8), (7, 3)]))
    assert any("the low end 0" in p for p in problems) and any("the high end 'n'" in p for p in problems)
    assert not any("past" in p for p in problems)


def test_an_end_named_by_another_argument_is_read_from_the_same_call():
    # k = 5 is n's value in one call only: past n = 3, not at it
    problems = _problems(_question([(3, 0), (3, 1), (3, 5), (5, 4)]))
    assert any("the high end 'n'" in p for p in problems) and not any("past" in p for p in problems)


def _notebook(markdown):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("## Part 1\n\nSomething else, `n` > 0 there."),
        nbformat.v4.new_code_cell("# autograder: visible checks for other"),
        nbformat.v4.new_markdown_cell(markdown),
        nbformat.v4.new_code_cell("def f(n, k):\n    ..."),
        nbformat.v4.new_code_cell("# autograder: visible checks for q"),
    ]
    return nb


def _text_problems(q, markdown):
    assignment = Assignment(name="synthetic_ranges", notebook="x.ipynb", questions=[q])
    return stated_ranges.text_problems(assignment, [q], _notebook(markdown))


def test_a_declared_range_matches_the_questions_own_text():
    q = _question([], ranges={"k": RANGE})
    assert not _text_problems(q, f"Write `f(n, k)`.\n{TEXT}")
    assert any("is not in the question's text" in p for p in _text_problems(q, "Write `f(n, k)`; any `k` works."))


def test_an_argument_the_text_bounds_without_a_declared_range_is_named():
    q = _question([], ranges={})
    assert any("the text bounds `k`" in p for p in _text_problems(q, f"Write `f(n, k)`.\n{TEXT}"))
    assert any("the text bounds `k`" in p for p in _text_problems(q, "`k` $\\le$ `n`."))
    # `n` is bounded in another question's text only, and "`n` or more" bounds nothing
    assert not any("`n`" in p for p in _text_problems(q, f"Write `f(n, k)`.\n{TEXT}"))
