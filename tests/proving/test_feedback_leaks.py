"""Nothing given away: the feedback the self-test produces for every known-wrong answer of every
problem set (and for its killed mutants) never contains the expected value of a value
question, the expected formula, the name of a hidden probe function or a seed; question titles
contain no expected formula either."""

import pytest
import sympy
from conftest import problem_set_params

from autograder.judging.instructor_answers import SELFTEST_STUDENTS
from autograder.judging.outcome import Outcome
from autograder.judging.verdict import judge
from autograder.proving.feedback_audit import FeedbackAudit, audit_known_wrong, audit_mutants
from autograder.proving.leak_scan import answer_forms, judged_wrong_texts, leaks, squash
from autograder.spec import list_assignments, load_assignment

STUDENT = SELFTEST_STUDENTS[0]


def expected_forms(question, assignment) -> set[str]:
    numbers, formulas = answer_forms(assignment, STUDENT)
    if question.grade_id in formulas:
        value = formulas[question.grade_id][0]
        return {squash(str(value)), squash(str(sympy.expand(value)))}
    return numbers.get(question.grade_id, set())


@pytest.mark.parametrize("name", list_assignments())
def test_known_wrong_feedback_gives_nothing_away(name):
    assignment = load_assignment(name)
    audit = FeedbackAudit(assignment.name)
    audit_known_wrong(assignment, audit, STUDENT)
    assert audit.texts
    assert leaks(assignment, audit.texts) == []


@pytest.mark.parametrize("name", list_assignments())
def test_titles_hold_no_expected_formula(name):
    assignment = load_assignment(name)
    titles = [(q.grade_id, q.title) for q in assignment.questions]
    formulas = [
        q for q in assignment.questions if not q.call and not q.personal and isinstance(q.reference(), sympy.Expr)
    ]
    for gid, title in titles:
        for q in formulas:
            assert not any(form in squash(title) for form in expected_forms(q, assignment)), (gid, title)


@pytest.mark.parametrize("name", problem_set_params())
def test_killed_mutants_feedback_gives_nothing_away(name):
    """Every problem set's mutants that the first self-test student's probes reject (a superset of
    the killed ones), with the crash and automatic diagnoses they get."""
    assignment = load_assignment(name)
    audit = FeedbackAudit(assignment.name)
    audit_mutants(assignment, audit, SELFTEST_STUDENTS[:1])
    assert audit.total > 0
    assert leaks(assignment, audit.texts) == []


def test_the_scan_finds_a_leak():
    """The scan is not vacuous: an expected count, a formula, a hidden name and a seed are found."""
    ps1, ps5 = load_assignment("ps1_attention"), load_assignment("ps5_equivariance")
    bert = ps1.question("real_models").reference()["bert_base"]
    texts = [
        ("real_models", f"BERT-base has {bert:,} parameters"),
        ("qk_flops_formula", "count 2 FLOPs per multiply-add: 2·T²·d"),
        ("x", "on probe 3 (seed 1234): wrong"),
    ]
    found = leaks(ps1, texts)
    assert {f.split(":")[0] for f in found} == {"real_models", "qk_flops_formula", "x"}, found
    assert leaks(ps5, [("equivariance_tester", "first_token_special: True is not the expected value")])


def test_the_scan_reads_a_formula_in_any_spelling():
    """−m·i, −i·m, - m * i and i·(−m) are PS4's expected difference; its question's own statement
    m·(j − i) − m·j is not."""
    ps4 = load_assignment("ps4_alibi")
    for text in ("they differ by −m·i here", "it is −i·m.", "so - m * i, a constant", "i·(−m) along each row"):
        assert leaks(ps4, [("bias_difference", text)]), text
    assert not leaks(ps4, [("bias_difference", "m·(j − i) − m·j is what is asked; m·i is not it")])


@pytest.mark.parametrize("name", list_assignments())
def test_misconception_texts_and_diagnoses_give_nothing_away(name):
    """Every misconception text as written (a text is read whether or not its answer is recognised)
    and the diagnosis of each typical wrong answer (0, the opposite sign, twice, a term left out
    or added) to every value or formula question, misconceptions removed."""
    assignment = load_assignment(name)
    texts = judged_wrong_texts(assignment, STUDENT)
    assert texts
    assert leaks(assignment, texts) == []


def test_a_zero_difference_is_not_told_the_difference():
    """Issue 27: PS4's bias_difference answered 0 was told "they differ by −m·i". Its diagnosis,
    misconceptions removed, points to the concept to revisit (issue 36: a short answer gets the
    question's concept, never a direction such as "a term is missing" from which the fix follows)."""
    import dataclasses

    assignment = load_assignment("ps4_alibi")
    question = dataclasses.replace(assignment.question("bias_difference"), misconceptions=())
    probes = question.probes_for(STUDENT, assignment)
    for answer in ("0", "m*i", "-m*j"):
        result = judge(question, probes, Outcome("returned", [{"value": answer}]))
        assert result.status == "failed" and result.diagnosis == "formula_terms", result.feedback
        assert not leaks(assignment, [("bias_difference", result.feedback)]), result.feedback
    zero = judge(question, probes, Outcome("returned", [{"value": "0"}]))
    assert "expand" in zero.feedback and "missing" not in zero.feedback
    assert "m·i" not in zero.feedback and "i·m" not in zero.feedback
