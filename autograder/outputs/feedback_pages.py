"""Student feedback pages: one self-contained HTML file per student (``OUT/feedback/<student>.html``),
handed to students as is (nbgrader's release_feedback, the grading service's feedback view).

The page shows each question's points, status and feedback in the problem set's order, then the
hand-graded questions: graded (with the grader's comment), unanswered (0), or still to come; and
the record's notes (an error, flags, the LMS's late marker). A final record (``autograder
final-grades``) shows the final score, hand-graded points and overrides included; never a probe
or a hidden test.
"""

from __future__ import annotations

from pathlib import Path

from autograder.grading.hand_graded import PENDING, hand_graded
from autograder.grading.storage import safe_name
from autograder.outputs.exports import question_titles, record_notes
from autograder.outputs.templating import render
from autograder.spec import Assignment


def feedback_page(assignment: Assignment, student: str, rec: dict, *, final: bool = False) -> str:
    """The page of one student's record (a results.json entry, a final record, or the service's
    student view)."""
    titles = dict(question_titles(assignment)) | {h.grade_id: h.title for h in hand_graded(assignment)}
    order = list(titles)
    rows = [
        dict(q, title=titles.get(gid, gid))
        for gid, q in sorted(
            rec["questions"].items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)
        )
    ]
    graded = [row for row in rows if row.get("status") != PENDING]
    pending = [row for row in rows if row.get("status") == PENDING]
    return render(
        "feedback.html",
        title=f"{assignment.name} — {'final grade' if final else 'feedback'} for {student}",
        final=final,
        score=rec["score"],
        max_score=rec["max_score"],
        graded=graded,
        pending=pending,
        pending_points=sum(q["max_score"] for q in pending),
        notes=([rec["error"]] if rec.get("error") else []) + rec.get("flags", []) + record_notes(rec),
    )


def write_feedback_pages(assignment: Assignment, results: dict, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    final = bool(results.get("final"))
    for student, rec in results["students"].items():
        page = feedback_page(assignment, student, rec, final=final)
        (folder / f"{safe_name(student)}.html").write_text(page, encoding="utf-8")
