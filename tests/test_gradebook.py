"""Results land in nbgrader's gradebook, read back through nbgrader's own API."""
from autograder.gradebook import record_results


def test_results_recorded_in_nbgrader_gradebook(ps1, demo_results, tmp_path):
    from nbgrader.api import Gradebook

    db = tmp_path / "gradebook.db"
    n = record_results(ps1, demo_results, str(db))
    assert n == len(demo_results["students"]) * len(ps1.questions)
    record_results(ps1, demo_results, str(db))  # again: updates, no duplicates
    with Gradebook(f"sqlite:///{db}") as gb:
        subs = {s.student.id: s for s in gb.assignment_submissions("ps1_attention")}
        assert set(subs) == set(demo_results["students"])
        for student, rec in demo_results["students"].items():
            assert subs[student].score == rec["score"]
            # nbgrader's maximum also counts the hand-graded paragraph (2 points)
            assert subs[student].max_score == ps1.max_score + 2
        assert len(gb.students) == len(demo_results["students"])
        grade = gb.find_grade("sdpa", "ps1_attention", "ps1_attention", "alice")
        assert grade.auto_score == 4 and grade.max_score == 4
        paragraph = gb.find_grade("attention_paragraph", "ps1_attention", "ps1_attention", "alice")
        assert paragraph.auto_score is None and paragraph.needs_manual_grade  # formgrader's queue
