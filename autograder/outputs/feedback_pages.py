"""Student feedback pages: one self-contained HTML file per student (``OUT/feedback/<student>.html``),
handed to students as is (nbgrader's release_feedback, the grading service's feedback view).

The page shows each question's points, status and feedback in the problem set's order, then the
hand-graded questions: graded (with the grader's comment), unanswered (0), or still to come; and
the record's notes (an error, flags, the LMS's late marker). A final record (``autograder
final-grades``) shows the final score, hand-graded points and overrides included; never a probe
or a hidden test.

A page is in one language (``lang``; ``write_feedback_pages`` takes one per student: the run's
``--lang``, the roster's ``language`` column, the course's): the page's own words from the
engine's catalogue, each question's feedback from the structured ``message`` results.json keeps
beside the English ``feedback`` (``autograder.i18n``), titles from the problem set's catalogue.
Scores and statuses are the record's, whatever the language.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from autograder.grading.hand_graded import PENDING, hand_graded
from autograder.grading.storage import safe_name
from autograder.i18n import Message, say
from autograder.outputs.exports import question_titles, record_notes
from autograder.outputs.templating import render
from autograder.spec import Assignment


def feedback_text(question: dict, lang: str, problem_set: str) -> str:
    """A question's feedback in ``lang``: its stored message said there (a misconception in
    ``problem_set``'s catalogue), else the English text."""
    message = question.get("message")
    return say(message, lang, problem_set) if message and lang != "en" else question.get("feedback", "")


def feedback_page(
    assignment: Assignment, student: str, rec: dict, *, final: bool = False, lang: str | None = None
) -> str:
    """The page of one student's record (a results.json entry, a final record, or the service's
    student view), in ``lang`` (default English)."""
    lang = lang or "en"
    titles = dict(question_titles(assignment)) | {h.grade_id: h.title for h in hand_graded(assignment)}
    order = list(titles)
    rows = [
        dict(q, title=titles.get(gid, gid))
        for gid, q in sorted(
            rec["questions"].items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)
        )
    ]
    for row in rows:
        row["title"] = say(Message(row["title"], assignment.name), lang) if lang != "en" else row["title"]
    graded = [row for row in rows if row.get("status") != PENDING]
    pending = [row for row in rows if row.get("status") == PENDING]
    if final:
        title = Message("{ps} — final grade for {student}", ps=assignment.name, student=student)
    else:
        title = Message("{ps} — feedback for {student}", ps=assignment.name, student=student)
    return render(
        "feedback.html",
        lang=lang,
        title=say(title, lang),
        feedback=lambda row: feedback_text(row, lang, assignment.name),
        final=final,
        score=rec["score"],
        max_score=rec["max_score"],
        graded=graded,
        pending=pending,
        pending_points=sum(q["max_score"] for q in pending),
        notes=([rec["error"]] if rec.get("error") else []) + rec.get("flags", []) + record_notes(rec),
    )


def write_feedback_pages(
    assignment: Assignment, results: dict, folder: Path, language_of: Callable[[str], str] | None = None
) -> None:
    """One page per student, each in ``language_of(student)`` (default: English)."""
    folder.mkdir(parents=True, exist_ok=True)
    final = bool(results.get("final"))
    for student, rec in results["students"].items():
        page = feedback_page(assignment, student, rec, final=final, lang=language_of(student) if language_of else None)
        (folder / f"{safe_name(student)}.html").write_text(page, encoding="utf-8")
