"""PS4's content against document 000 and the stated contract: 000's slope is quoted as it is
(a constant "e.g. 0.4" that differs per head), the share of attention past the training length
is a graded value whose numbers the hand-graded rubric quotes, the bias-difference feedback never
holds its formula, and the stated return types of `alibi_profile` are the ones accepted — in the
grader and in every locked cell — and every `train_length` the text allows is probed (issue 38)."""

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from autograder.spec import REPO_ROOT, load_assignment, problem_set_module

ASSIGNMENT = load_assignment("ps4_alibi")
MODULE = problem_set_module(ASSIGNMENT)
RELEASE = json.loads((REPO_ROOT / "release/ps4_alibi/ps4_alibi.ipynb").read_text())
TEXT = "".join("".join(c["source"]) for c in RELEASE["cells"])


def test_000_is_quoted_as_per_head_and_no_missing_file_is_named():
    assert "different for each head" in TEXT and "single constant slope" not in TEXT
    assert "solutions/" not in TEXT and "No model is trained" in TEXT


def test_heads_past_the_training_length_are_computed_and_match_the_rubric():
    beyond = MODULE.beyond
    assert beyond.heads_past_training_length() == [7, 8]
    shares = [beyond.share_unseen(m, 2048, 512) for m in (2.0**-7, 2.0**-8)]
    assert 0.015 < shares[0] < 0.025 and 0.12 < shares[1] < 0.14  # "about 2 % and 13 %"
    assert beyond.share_unseen(0.5, 7, 0) == 1.0 and beyond.share_unseen(0.5, 7, 7) == 0.0


def test_no_bias_difference_feedback_holds_the_expected_formula():
    q = ASSIGNMENT.question("bias_difference")
    for m in q.misconceptions:
        flat = m.feedback.replace(" ", "").replace("−", "-").replace("·", "*")
        assert "-m*i" not in flat and "differby" not in flat, m.name
        assert q.compare("-m*i", q.reference()).ok and not q.compare(str(m.wrong()), q.reference()).ok


def test_the_formula_forms_the_notebook_promises_are_accepted():
    q = ASSIGNMENT.question("bias_difference")
    for form in ("-m*i", "-(m*i)", "m*(-i)", "-i*m", "−m·i", "m*(j - i) - m*j"):
        assert q.compare(form, q.reference()).ok, form


def test_alibi_profile_accepts_the_stated_return_types_only():
    q = ASSIGNMENT.question("alibi_profile")
    expected = np.asarray(q.reference(0.5, 6))
    assert q.compare(expected.tolist(), expected).ok and q.compare(expected.astype(np.float32), expected).ok
    assert not q.compare(expected[None, :], expected).ok


def test_the_bidirectional_answer_is_derived_row_by_row():
    shift = MODULE.shift_invariance
    assert shift.rows_with_same_softmax(t=4) == [3] and shift.bidirectional_choice() == "B"


# ---- issue 38: what the text of parts 6 and 7 allows, kept

# Every return form the notebook's text accepts, per answer: part 6 "a 1-D torch.Tensor … (a NumPy
# array or a list of floats of that shape is accepted too; float32 or float64)", part 7 "a Python
# float (or a 0-d tensor)".
ACCEPTED_FORMS = {
    "alibi_profile": {
        "tensor float64": lambda w: torch.as_tensor(w, dtype=torch.float64),
        "tensor float32": lambda w: torch.as_tensor(w, dtype=torch.float32),
        "numpy float64": lambda w: np.asarray(w, dtype=np.float64),
        "numpy float32": lambda w: np.asarray(w, dtype=np.float32),
        "list of floats": lambda w: np.asarray(w, dtype=np.float64).tolist(),
    },
    "alibi_share_unseen": {
        "float": float,
        "0-d tensor float64": lambda s: torch.tensor(float(s), dtype=torch.float64),
        "0-d tensor float32": lambda s: torch.tensor(float(s), dtype=torch.float32),
    },
}
SOURCE = json.loads((ASSIGNMENT.source_dir / ASSIGNMENT.notebook).read_text())


def _returning(form, function):
    return lambda *args: form(function(*args))


def _run_release(forms: dict) -> str:
    """Every code cell of the release in order, each answer cell replaced by the instructor's
    solution and the answers named in ``forms`` returning that form from then on; what it printed."""
    solutions = {
        c["metadata"]["nbgrader"]["grade_id"]: "".join(c["source"])
        for c in SOURCE["cells"]
        if c["metadata"].get("nbgrader", {}).get("solution")
    }
    namespace, printed = {}, io.StringIO()
    with contextlib.redirect_stdout(printed):
        for cell in RELEASE["cells"]:
            meta = cell["metadata"].get("nbgrader", {})
            if cell["cell_type"] != "code" or meta.get("grade_id") in ("extrapolation",):
                continue
            exec(solutions.get(meta.get("grade_id"), "".join(cell["source"])), namespace)  # noqa: S102
            for name, form in forms.items():
                if name in namespace and not getattr(namespace[name], "wrapped", False):
                    namespace[name] = _returning(form, namespace[name])
                    namespace[name].wrapped = True
    return printed.getvalue()


@pytest.mark.parametrize("answer, form", [(answer, form) for answer, forms in ACCEPTED_FORMS.items() for form in forms])
def test_every_locked_cell_runs_on_every_return_form_the_text_accepts(answer, form, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO_ROOT / "release/ps4_alibi"))  # formula_check.py, as released
    printed = _run_release({answer: ACCEPTED_FORMS[answer][form]})
    table = printed[printed.index("keys for 99 %") :].splitlines()[1:9]
    assert [int(row.split()[0]) for row in table] == list(range(1, 9)), printed
    assert "visible checks passed for alibi_profile" in printed
    assert "visible checks passed for alibi_share_unseen" in printed


def test_an_unguarded_slice_past_the_sequence_loses_the_share_with_its_own_feedback():
    from autograder.judging.instructor_answers import known_wrong_outcome
    from autograder.judging.verdict import judge

    q = ASSIGNMENT.question("alibi_share_unseen")
    beyond = MODULE.beyond
    for student in [f"student-{i}" for i in range(40)]:
        probes = q.probes_for(student, ASSIGNMENT)
        assert any(p.args[2] > p.args[1] for p in probes), student
        result = judge(q, probes, known_wrong_outcome(q, probes, beyond.share_negative_slice))
        assert result.status == "failed" and result.misconception == "negative_slice_end", (student, result)
    assert beyond.share_unseen(0.5, 7, 9) == 0.0


def test_without_a_probe_past_the_sequence_the_coverage_rules_name_the_stated_range():
    from dataclasses import replace

    from autograder.proving import coverage

    q = ASSIGNMENT.question("alibi_share_unseen")
    inside = replace(q, probes=lambda rng: [p for p in q.probes(rng) if p.args[2] <= p.args[1]])
    problems = coverage.question_problems(inside, {"s": inside.probes_for("s", ASSIGNMENT)})
    assert any("`train_length` a value past 'length'" in p for p in problems), problems
    assert not coverage.question_problems(q, {"s": q.probes_for("s", ASSIGNMENT)})


def test_the_corpus_student_whose_profile_is_a_numpy_array_runs_every_cell(monkeypatch):
    """tests/assignments/students/ps4_alibi/numpy_profile takes up the text's offer; the grader
    does not stop at a failing locked cell, so its full marks alone would not show the crash."""
    monkeypatch.syspath_prepend(str(REPO_ROOT / "release/ps4_alibi"))
    path = Path(__file__).parent / "students/ps4_alibi/numpy_profile/ps4_alibi/ps4_alibi.ipynb"
    namespace = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "code":
                exec("".join(cell["source"]), namespace)  # noqa: S102
    assert isinstance(namespace["alibi_profile"](0.5, 4), np.ndarray)
    assert "share >= 512 back" in printed.getvalue() and namespace["heads_past_training_length"] == [7, 8]


# ---- issue 36: the slips in the slopes' exponent −8h/n are named, not "values differ"


def _student_slopes(power_of_two):
    """A student's alibi_slopes with the paper's rule for n not a power of two, written around a
    helper ``power_of_two(n)`` (the usual shape), so that a slip in the helper reaches every n."""
    import math

    def alibi_slopes(n_heads):
        c = 2 ** math.floor(math.log2(n_heads))
        slopes = power_of_two(n_heads) if c == n_heads else power_of_two(c) + power_of_two(2 * c)[0::2][: n_heads - c]
        return torch.tensor(slopes, dtype=torch.float64)

    return alibi_slopes


EXPONENT_SLIPS = {
    "exponent_shifted_by_one": lambda n: [2 ** (-8 * h / n) for h in range(2, n + 2)],
    "exponent_fraction_upside_down": lambda n: [2 ** (-h * n / 8) for h in range(1, n + 1)],
    "exponent_without_n": lambda n: [2.0 ** (-8 * h) for h in range(1, n + 1)],
    "exponent_without_h": lambda n: [2 ** (-8 / n)] * n,
    "exponent_sign": lambda n: [2 ** (8 * h / n) for h in range(1, n + 1)],
    "starts_at_one": lambda n: [2 ** (-8 * h / n) for h in range(n)],
}


@pytest.mark.parametrize("name", sorted(EXPONENT_SLIPS))
def test_a_slip_in_the_slopes_exponent_gets_its_own_feedback(name):
    from autograder.judging.instructor_answers import known_wrong_outcome
    from autograder.judging.verdict import judge

    q = ASSIGNMENT.question("alibi_slopes")
    for student in [f"student-{i}" for i in range(5)]:
        probes = q.probes_for(student, ASSIGNMENT)
        result = judge(q, probes, known_wrong_outcome(q, probes, _student_slopes(EXPONENT_SLIPS[name])))
        assert result.status == "failed" and result.misconception == name, (student, result.misconception)
