"""Issue 36: nothing INFERRED from feedback. A text that says "opposite sign", "too small" or
"−m·j is not part of the answer" leaves one step to the answer without writing it; the inference
scan applies such steps to the wrong answer and fails when that yields the expected one. The
old texts are found; the new ones name the concept, and no wrong answer to PS4's bias_difference
— nor any feedback a student collects over several of them — leads to −m·i."""

import dataclasses

import sympy

from autograder.judging.instructor_answers import SELFTEST_STUDENTS
from autograder.judging.outcome import Outcome
from autograder.judging.verdict import judge
from autograder.proving.inference_scan import follows, inferred_leaks, pair_leaks
from autograder.spec import load_assignment

M, I, J = sympy.symbols("m i j", positive=True)
D, D_FF = sympy.symbols("d d_ff", positive=True)
PS4 = load_assignment("ps4_alibi")
BIAS = PS4.question("bias_difference")
STUDENT = SELFTEST_STUDENTS[0]


def feedback(question, answer, assignment, misconceptions=True):
    q = question if misconceptions else dataclasses.replace(question, misconceptions=())
    probes = q.probes_for(STUDENT, assignment)
    return judge(q, probes, Outcome("returned", [{"value": answer} for _ in probes]))


def test_the_scan_finds_what_the_old_feedback_let_a_student_infer():
    """The issue's three texts: each is one or two steps from the answer."""
    old = [
        (M * I, "Expand m·(j − i) and subtract m·j term by term: your result has the opposite sign."),
        (M * I - M * J, "your term of the answer's kind has the wrong sign; −m·j is not part of the answer."),
    ]
    for answer, text in old:
        assert follows(answer, text, -M * I, ("m", "i", "j")) is not None, text
    slip = 4 * D**2 + D * D_FF / 2 + 9 * D + D_FF
    text = "your d², d_ff, d terms agree; your d·d_ff term (1/2·d·d_ff) is too small."
    assert follows(slip, text, 4 * D**2 + 2 * D * D_FF + 9 * D + D_FF, ("d", "h", "d_ff")) is not None
    # a concept to revisit is no step
    assert follows(M * I, "expand m·(j − i), then subtract m·j and simplify.", -M * I, ("m", "i", "j")) is None


def test_bias_difference_feedback_names_the_concept_not_the_fix():
    """m·i and m·(i − j), with and without the question's misconceptions: no sign, no term named."""
    for answer in ("m*i", "m*(i-j)", "-2*m*i", "-m*i + m"):
        for with_misconceptions in (True, False):
            result = feedback(BIAS, answer, PS4, with_misconceptions)
            assert result.status == "failed", answer
            text = result.feedback.lower()
            assert "sign" not in text and "opposite" not in text and "too " not in text, text
            assert "not part of" not in text, text


def test_no_sequence_of_wrong_bias_differences_reveals_the_answer():
    """Any feedback a student collects (from a pool of plausible wrong answers, as serve would give
    them) applied to any of the answers handed in: −m·i never follows."""
    pool = [
        "0", "m*i", "-m*j", "m*j", "m*(i-j)", "m*(j-i)", "2*m*i", "-2*m*i", "m*i - m*j", "-m*i - m*j",
        "-m*i + m*j", "i", "-i", "m", "-m", "m*i*j", "-m*i*j", "m*(j-i) + m*j", "-m*i + m", "-m*i + i",
    ]  # fmt: skip
    pairs = [(sympy.sympify(a).subs({"m": M, "i": I, "j": J}), feedback(BIAS, a, PS4).feedback) for a in pool]
    bare = [(a, feedback(BIAS, str(a), PS4, misconceptions=False).feedback) for a, _ in pairs]
    assert pair_leaks(BIAS, pairs + bare, -M * I) == []


def test_a_one_coefficient_slip_is_located_without_a_direction():
    """PS1: a d·d_ff term half what it should be is named, not called "too small"."""
    ps1 = load_assignment("ps1_attention")
    result = feedback(ps1.question("encoder_layer_formula"), "4*d**2 + d*d_ff/2 + 9*d + d_ff", ps1, False)
    assert "d·d_ff term" in result.feedback and "does not count what it should" in result.feedback
    assert "too small" not in result.feedback and "too large" not in result.feedback


def test_no_answer_follows_from_the_feedback():
    """The self-test's inference scan on PS4 (every set's runs in `autograder selftest`)."""
    assert inferred_leaks(PS4, STUDENT) == []
