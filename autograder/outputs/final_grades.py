"""A course's final grades: the kit's autograded results joined with nbgrader's gradebook.

``autograder grade`` knows the autograded points; the gradebook (``--db``) also knows what
graders did in formgrader: the hand-graded scores and comments, and overrides of autograded
scores. :func:`final_results` reads both and returns a results.json-shaped dict whose numbers
are the gradebook's own, the ones ``nbgrader export`` writes:

* a student's ``score`` is export's ``score``: ``max(0, raw_score - late_submission_penalty)``
  with ``raw_score`` the submission's sum of grades (a grader's manual score where there is one,
  else the auto score); ``max_score`` is the assignment's, hand-graded points included;
* each question's ``score`` is its gradebook grade; an autograded question a grader overrode
  keeps its status and feedback and says ``"override": true`` with the ``auto_score``;
* a hand-graded question is ``graded`` (a grader's score, their comment as the feedback),
  ``unanswered`` (left as released: 0, as nbgrader's autograde scores it) or still ``pending``
  (listed in ``incomplete``: the final grades are not complete until a grader scores it);
* a student with no submission in the gradebook scores 0 of the assignment's maximum, as export;
* ``stale`` lists what the gradebook and results.json disagree on (an auto score, a question the
  gradebook lacks): run ``grade --db`` again;
* every comment a grader typed in formgrader reaches the record: a hand-graded cell's as its
  feedback, one under an autograded answer (nbgrader files it under the answer's solution cell)
  or its test cell as the question's ``grader_comment``;
* a flagged record (unreadable, another assignment's notebook) keeps the kit's "not graded"
  entries and is listed in ``flagged``: the LMS exports leave its grade blank, the report leaves it
  out of its statistics;
* the record keeps the kit's ``autograded_score``, the LMS's ``late`` marker and the intake's
  ``flag`` / ``flag_reason`` (read with ``get``), and gains the roster's ``name``.
"""

from __future__ import annotations

import functools
from pathlib import Path

from autograder.errors import AutograderError
from autograder.grading.hand_graded import PENDING, UNANSWERED, UNANSWERED_FEEDBACK, hand_graded
from autograder.i18n import Message
from autograder.intake.roster import Roster
from autograder.outputs.gradebook import as_db_url, find_course
from autograder.spec import Assignment

GRADED = "graded"
HAND_GRADED_FEEDBACK = Message("graded by hand")
NOT_HANDED_IN = "nothing was handed in for this question"


def final_results(
    assignment: Assignment,
    results: dict,
    db: str,
    *,
    course_id: str | None = None,
    roster: str | Path | None = None,
) -> dict:
    """The final grades of every student in ``results`` (see the module docstring)."""
    from nbgrader.api import Gradebook, MissingEntry

    db_url = as_db_url(db)
    course = find_course(db_url, course_id)
    people = Roster.read(Path(roster)) if roster else None
    hand = {h.grade_id for h in hand_graded(assignment)}
    final = {"assignment": assignment.name, "final": True, "course_id": course.course_id, "students": {}}
    incomplete, stale = [], []
    with Gradebook(db_url, course.course_id) as gb:
        try:
            row = gb.find_assignment(assignment.name)
        except MissingEntry:
            raise FinalGradesError(
                f"the gradebook {db_url} has no {assignment.name!r} in course {course.course_id!r}: "
                f"run `autograder grade {assignment.name} … --db {db}` first"
            ) from None
        final["max_score"] = float(row.max_score)
        for student, rec in sorted(results["students"].items()):
            try:
                submission = gb.find_submission(assignment.name, student)
            except MissingEntry:
                out = _not_handed_in(rec, hand, final["max_score"])
            else:
                out = _from_gradebook(gb, assignment, submission, rec, hand, stale)
                out["max_score"] = final["max_score"]
            out.update(_identity(people, student, rec))
            incomplete += [(student, gid) for gid, q in out["questions"].items() if q["status"] == PENDING]
            final["students"][student] = out
    final["incomplete"] = [f"{s}: {gid}" for s, gid in incomplete]
    final["flagged"] = [
        f"{s}: {rec['flag']}: {rec.get('flag_reason') or ''}" for s, rec in final["students"].items() if rec.get("flag")
    ]
    final["stale"] = stale
    return final


class FinalGradesError(AutograderError):
    """The gradebook cannot give final grades (the assignment was never recorded there)."""


def _grade_entries(gb, submission) -> dict:
    entries = {}
    for notebook in submission.notebooks:
        for grade in notebook.grades:
            entries[grade.name] = (grade, _comment(gb, notebook, grade.name))
    return entries


def _comment(gb, notebook, name: str) -> str:
    for comment in notebook.comments:
        if comment.name == name:
            return (comment.manual_comment or "").strip()
    return ""


def _answer_comments(submission, assignment: Assignment) -> dict[str, list[str]]:
    """grade id -> the comments a grader typed under the question's answer cells in formgrader
    (nbgrader keeps a comment per solution cell; an answer cell belongs to the grade cell after it)."""
    owner = answer_cells(assignment)
    found: dict[str, list[str]] = {}
    for notebook in submission.notebooks:
        for comment in notebook.comments:
            text = (comment.manual_comment or "").strip()
            gid = owner.get(comment.name)
            if text and gid:
                found.setdefault(gid, []).append(text)
    return found


@functools.cache
def _answer_cells(path: str, mtime: float) -> dict[str, str]:
    import json

    owner, waiting = {}, []
    for cell in json.loads(Path(path).read_text(encoding="utf-8")).get("cells", []):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        gid = meta.get("grade_id")
        if meta.get("solution") and not meta.get("grade"):
            waiting.append(gid)
        elif meta.get("grade") and gid:
            owner.update({answer: gid for answer in waiting})
            waiting = []
    return owner


def answer_cells(assignment: Assignment) -> dict[str, str]:
    """answer (solution) cell id -> the grade id of the autograded question that checks it."""
    path = assignment.source_dir / assignment.notebook
    return _answer_cells(str(path), path.stat().st_mtime) if path.is_file() else {}


def grader_comments(rec: dict) -> list[str]:
    """Every comment graders wrote for a final record, each after its question's id."""
    said = []
    for gid, q in rec.get("questions", {}).items():
        if q.get("grader_comment"):
            said.append(f"{gid}: {q['grader_comment']}")
        elif q.get("status") == GRADED and q.get("feedback") not in (None, "", HAND_GRADED_FEEDBACK):
            said.append(f"{gid}: {q['feedback']}")
    return said


def _from_gradebook(gb, assignment: Assignment, submission, rec: dict, hand: set[str], stale: list) -> dict:
    questions = {}
    answer_comments = _answer_comments(submission, assignment)
    for gid, (grade, comment) in _grade_entries(gb, submission).items():
        kit = dict(rec["questions"].get(gid) or {"status": "missing", "feedback": "", "max_score": grade.max_score})
        score = float(grade.score or 0.0)
        if rec.get("flag") and grade.manual_score is None:
            pass  # not graded, and the kit says why (the flag), not "no response"
        elif gid in hand or kit.get("status") in (PENDING, UNANSWERED):
            kit.update(_hand_graded(grade, comment))
        else:
            if grade.auto_score is not None and float(grade.auto_score) != float(kit.get("score", 0.0)):
                stale.append(
                    f"{submission.student.id}: {gid}: the gradebook's auto score {grade.auto_score:g} "
                    f"is not results.json's {float(kit.get('score', 0.0)):g}"
                )
            if grade.manual_score is not None and grade.manual_score != grade.auto_score:
                kit.update(override=True, auto_score=grade.auto_score)
            said = [c for c in [comment, *answer_comments.get(gid, [])] if c]
            if said:  # typed in formgrader under the answer (or the test cell): the student reads it
                kit["grader_comment"] = "\n\n".join(dict.fromkeys(said))
        kit.update(score=score, max_score=float(grade.max_score))
        questions[gid] = kit
    stale += [
        f"{submission.student.id}: {gid} is not in the gradebook" for gid in rec["questions"] if gid not in questions
    ]
    raw = float(submission.score or 0.0)
    penalty = float(submission.late_submission_penalty or 0.0)
    return {
        "score": max(0.0, raw - penalty),
        "raw_score": raw,
        "late_submission_penalty": penalty,
        "autograded_score": rec.get("score", 0.0),
        "questions": _in_order(assignment, questions),
        **({"error": rec["error"]} if rec.get("error") else {}),
        **({"flags": rec["flags"]} if rec.get("flags") else {}),
        **({"submitted_at": rec["submitted_at"]} if rec.get("submitted_at") else {}),
    }


def _hand_graded(grade, comment: str) -> dict:
    if grade.manual_score is not None:
        if comment:  # the grader's own words, as written
            return {"status": GRADED, "feedback": comment, "message": None}  # not the pending note's
        return {"status": GRADED, "feedback": str(HAND_GRADED_FEEDBACK), "message": HAND_GRADED_FEEDBACK.to_json()}
    if grade.auto_score is not None:
        return {"status": UNANSWERED, "feedback": str(UNANSWERED_FEEDBACK), "message": UNANSWERED_FEEDBACK.to_json()}
    return {"status": PENDING}


def _not_handed_in(rec: dict, hand: set[str], max_score: float) -> dict:
    questions = {gid: dict(q) for gid, q in rec["questions"].items()}
    for gid in hand & set(questions):
        questions[gid].update(score=0.0, status=UNANSWERED, feedback=NOT_HANDED_IN)
    return {
        "score": 0.0,
        "raw_score": 0.0,
        "late_submission_penalty": 0.0,
        "autograded_score": rec.get("score", 0.0),
        "max_score": max_score,
        "questions": questions,
        **({"error": rec["error"]} if rec.get("error") else {}),
        **({"flags": rec["flags"]} if rec.get("flags") else {}),
    }


def _in_order(assignment: Assignment, questions: dict) -> dict:
    order = [q.grade_id for q in assignment.questions] + [h.grade_id for h in hand_graded(assignment)]
    return {
        gid: questions[gid] for gid in sorted(questions, key=lambda g: order.index(g) if g in order else len(order))
    }


def _identity(people: Roster | None, student: str, rec: dict) -> dict:
    person = people.people.get(student) if people else None
    out = {"late": bool(rec.get("late", False)), "flag": rec.get("flag"), "flag_reason": rec.get("flag_reason")}
    if person is not None and person.name:
        out["name"] = person.name
    return out
