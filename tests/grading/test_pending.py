"""Hand-graded questions appear in results.json and on feedback pages as pending, with their
points, and never count in the autograded score."""

from autograder.grading.hand_graded import hand_graded
from autograder.outputs.feedback_pages import feedback_page
from autograder.outputs.gradescope import gradescope_results
from autograder.spec import load_assignment


def test_hand_graded_cells_are_found_in_every_problem_set():
    found = {
        ps: [(h.grade_id, h.points) for h in hand_graded(load_assignment(ps))]
        for ps in ("ps1", "ps2", "ps3", "ps4", "ps5")
    }
    assert found["ps1"] == [("attention_paragraph", 2.0)]
    assert all(found.values())
    assert hand_graded(load_assignment("ps6")) == ()


def test_pending_in_results_and_pages(ps1, demo_results):
    for student, rec in demo_results["students"].items():
        pending = rec["questions"]["attention_paragraph"]  # the demo's samples leave it as released
        assert pending["status"] in ("pending", "unanswered") and pending["max_score"] == 2.0 and pending["score"] == 0
        assert rec["score"] == sum(q["score"] for g, q in rec["questions"].items() if g != "attention_paragraph")
        assert rec["max_score"] == ps1.max_score  # the autograded maximum
        page = feedback_page(ps1, student, rec)
        if pending["status"] == "pending":
            assert "pending" in page and "2 points graded by hand, still to come" in page
        else:  # handed in as released: 0, as nbgrader scores it
            assert "unanswered" in page and "still to come" not in page
        assert "graded by hand" in gradescope_results(ps1, rec)["output"]
        assert "attention_paragraph" not in {t["number"] for t in gradescope_results(ps1, rec)["tests"]}
