"""Grades out to Moodle: the assignment's offline grading worksheet, to upload (View all
submissions → Grading action → Upload grading worksheet; the assignment needs the "Offline
grading worksheet" feedback type).

Moodle's own download has the columns below; on upload it matches each row by ``Identifier``
(``Participant <id>``: the participant id that also names the submission folders of a Moodle
download, ``<Full Name>_<id>_assignsubmission_file_``) and reads ``Grade`` and ``Feedback
comments`` (the late and flag notes and every grader's comment; a flagged student's Grade is left
empty, never a 0). The id is the roster's ``moodle_id`` (or another LMS id column), else the student id
itself when it is a number (a Moodle download is graded under those). Students with neither are
left out and listed by :func:`write_moodle_worksheet`.
"""

from __future__ import annotations

import csv
from pathlib import Path

from autograder.intake.roster import Roster

MOODLE_COLUMNS = [
    "Identifier",
    "Full name",
    "Email address",
    "Status",
    "Grade",
    "Maximum Grade",
    "Grade can be changed",
    "Last modified (submission)",
    "Last modified (grade)",
    "Feedback comments",
]


def participant_id(student: str, people: Roster | None) -> str:
    person = people.people.get(student) if people else None
    found = person.lms_id("moodle_id", "lms_id", "ID", "id") if person else ""
    return found or (student if student.isdigit() else "")


def worksheet_rows(results: dict, people: Roster | None, notes=lambda rec: []) -> tuple[list[list[str]], list[str]]:
    """The worksheet's rows and the students left out (no Moodle participant id)."""
    top = float(results.get("max_score", 0.0))
    rows, left_out = [MOODLE_COLUMNS], []
    for student, rec in sorted(results["students"].items()):
        ident = participant_id(student, people)
        if not ident:
            left_out.append(student)
            continue
        person = people.people.get(student) if people else None
        flagged = bool(rec.get("flag"))  # handed in but not gradable: no grade, and the comment says why
        handed_in = flagged or not rec.get("error") or rec.get("raw_score")
        status = "Submitted for grading" if handed_in else "No submission"
        if rec.get("late"):
            status += " - Late"  # Moodle's own words for a late submission
        rows.append(
            [
                f"Participant {ident}",
                (person.name if person and person.name else rec.get("name") or student),
                person.email if person else "",
                status,
                "" if flagged else f"{float(rec['score']):.2f}",
                f"{top:.2f}",
                "Yes",
                rec.get("submitted_at") or "",
                "",
                "; ".join(notes(rec)),
            ]
        )
    return rows, left_out


def write_moodle_worksheet(
    results: dict, path: Path, *, roster: str | Path | None = None, notes=lambda rec: []
) -> list[str]:
    """Write the worksheet; returns the students left out (no participant id to match)."""
    people = Roster.read(Path(roster)) if roster else None
    rows, left_out = worksheet_rows(results, people, notes)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    return left_out
