"""Grades out to an LMS: a Canvas gradebook CSV to import (Grades → Import).

Canvas reads the columns ``Student, ID, SIS User ID, SIS Login ID, Section`` and then one column
per assignment titled ``<Assignment name> (<Canvas assignment id>)``; a title without the id
makes Canvas create a new assignment. The row after the header is ``Points Possible``.
Canvas matches students by ``ID`` (its user id) or, failing that, the SIS ids, so these come
from the roster (a Canvas gradebook export works as one) or, without one, from the student
ids themselves when they are Canvas user ids (a Canvas submissions zip is named by them).
The score is the record's: the autograded total after ``autograder grade``, the final grade
(hand-graded points and overrides included, as ``nbgrader export``) after ``autograder
final-grades``; ``Points Possible`` is the results' ``max_score`` likewise. A flagged
student (a notebook that could not be graded) gets an empty cell, which Canvas imports as no
grade: never a 0 they did not score (``grade`` and ``final-grades`` list who and why).
"""

from __future__ import annotations

import csv
from pathlib import Path

from autograder.intake.roster import Roster
from autograder.spec import Assignment

CANVAS_FIXED = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"


def canvas_rows(
    assignment: Assignment, results: dict, roster: Roster | None = None, column: str | None = None
) -> list[list[str]]:
    title = column or assignment.name
    rows = [
        CANVAS_FIXED + [title],
        ["    Points Possible", "", "", "", "", _number(results.get("max_score", assignment.max_score))],
    ]
    for student in sorted(results["students"]):
        rec = results["students"][student]
        person = roster.people.get(student) if roster else None
        lms = person.lms if person else {}
        canvas_id = lms.get("ID") or lms.get("canvas_id") or lms.get("lms_id") or (student if student.isdigit() else "")
        sis_login = lms.get("SIS Login ID") or ("" if student.isdigit() else student)  # a login-style id
        rows.append(
            [
                person.name if person and person.name else student,
                canvas_id,
                lms.get("SIS User ID", ""),
                sis_login,
                person.section if person else "",
                "" if rec.get("flag") else _number(rec["score"]),  # not graded: no grade, never a 0
            ]
        )
    return rows


def write_canvas_csv(
    assignment: Assignment, results: dict, path: Path, *, roster: str | Path | None = None, column: str | None = None
) -> Path:
    """Write the Canvas import file; ``column`` is e.g. ``"PS1 attention (4567)"``."""
    people = Roster.read(Path(roster)) if roster else None
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(canvas_rows(assignment, results, people, column))
    return path
