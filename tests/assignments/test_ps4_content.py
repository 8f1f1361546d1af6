"""PS4's content against document 000 and the stated contract: 000's slope is quoted as it is
(a constant "e.g. 0.4" that differs per head), the share of attention past the training length
is a graded value whose numbers the hand-graded rubric quotes, the bias-difference feedback never
holds its formula, and the stated return types of `alibi_profile` are the ones accepted."""

import json

import numpy as np

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
