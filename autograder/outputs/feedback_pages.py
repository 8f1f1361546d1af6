"""Student feedback pages: one self-contained HTML file per student (``OUT/feedback/<student>.html``),
handed to students as is (nbgrader's release_feedback, the grading service's feedback view).

The page shows each question's points, status and feedback in the problem set's order, the
hand-graded questions still to come, and the record's notes; never a probe or a hidden test.
"""

from __future__ import annotations

from pathlib import Path

from autograder.grading.storage import safe_name
from autograder.outputs.exports import in_notebook_order, pending_hand_graded, question_titles
from autograder.outputs.templating import render
from autograder.spec import Assignment


def feedback_page(assignment: Assignment, student: str, rec: dict) -> str:
    """The page of one student's record (a results.json entry, or the service's student view)."""
    titles = dict(question_titles(assignment))
    graded = [dict(q, title=titles[gid]) for gid, q in in_notebook_order(assignment, rec["questions"])]
    pending = [dict(q, title=title) for _, title, q in pending_hand_graded(assignment, rec["questions"])]
    return render(
        "feedback.html",
        title=f"{assignment.name} — feedback for {student}",
        score=rec["score"],
        max_score=rec["max_score"],
        graded=graded,
        pending=pending,
        pending_points=sum(q["max_score"] for q in pending),
        notes=([rec["error"]] if rec.get("error") else []) + rec.get("flags", []),
    )


def write_feedback_pages(assignment: Assignment, results: dict, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for student, rec in results["students"].items():
        (folder / f"{safe_name(student)}.html").write_text(feedback_page(assignment, student, rec), encoding="utf-8")
