"""Views of results.json: the terminal table, CSV, JUnit (the student feedback pages are
:mod:`autograder.outputs.feedback_pages`, Gradescope's schema :mod:`autograder.outputs.gradescope`)."""

from __future__ import annotations

import csv
from pathlib import Path
from xml.etree import ElementTree as ET

from autograder.grading.hand_graded import PENDING, UNANSWERED, hand_graded
from autograder.spec import Assignment


def question_titles(assignment: Assignment):
    return [(q.grade_id, q.title or q.grade_id) for q in assignment.questions]


def in_notebook_order(assignment: Assignment, questions: dict):
    """(grade_id, result) in the problem set's order, not results.json's sorted keys."""
    return [(q.grade_id, questions[q.grade_id]) for q in assignment.questions if q.grade_id in questions]


def pending_hand_graded(assignment: Assignment, questions: dict):
    """(grade_id, title, result) of the hand-graded questions still to be graded."""
    titles = {h.grade_id: h.title for h in hand_graded(assignment)}
    return [(gid, titles.get(gid, gid), q) for gid, q in questions.items() if q.get("status") == PENDING]


def record_notes(rec: dict) -> list[str]:
    """What a record's reader is told besides the scores: the LMS's late marker, the intake's
    flag (unreadable, another assignment's notebook), a late-submission penalty."""
    said = []
    if rec.get("late"):
        said.append("handed in late (the LMS marked this submission LATE)")
    if rec.get("flag"):
        reason = rec.get("flag_reason") or ""
        said.append(f"flagged {rec['flag']}" + (f": {reason}" if reason and reason != rec.get("error") else ""))
    if rec.get("late_submission_penalty"):
        said.append(f"late-submission penalty: −{float(rec['late_submission_penalty']):g} points")
    return said


def table(assignment: Assignment, results: dict, shown: int = 3) -> str:
    """One line per student, then one indented line per question that did not pass."""
    n = len(assignment.questions)
    width = max([len(s) for s in results["students"]] + [7])
    lines = [f"{'student':<{width}}  {'score':>7}  passed  feedback on what did not pass"]
    for student, rec in sorted(results["students"].items()):
        failing = [
            (q.grade_id, rec["questions"][q.grade_id])
            for q in assignment.questions
            if rec["questions"].get(q.grade_id, {}).get("status") != "passed"
        ]
        score = f"{rec['score']:g}/{rec['max_score']:g}"
        lines.append(
            f"{student:<{width}}  {score:>7}  {n - len(failing):>2}/{n:<3}  " + ("all correct" if not failing else "")
        )
        for gid, q in failing[:shown]:
            lines.append(f"{'':<{width}}    {gid} ({q['status']}): {q['feedback']}")
        if len(failing) > shown:
            lines.append(f"{'':<{width}}    … and {len(failing) - shown} more not passed")
    return "\n".join(lines)


def write_csv(assignment: Assignment, results: dict, path: Path) -> None:
    ids = [gid for gid, _ in question_titles(assignment)]
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student", "score", "max_score", *ids])
        for student, rec in sorted(results["students"].items()):
            w.writerow([student, rec["score"], rec["max_score"], *[rec["questions"][g]["score"] for g in ids]])


def write_junit(assignment: Assignment, results: dict, path: Path) -> None:
    suites = ET.Element("testsuites", name=assignment.name)
    for student, rec in sorted(results["students"].items()):
        qs = rec["questions"]
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=student,
            tests=str(len(qs)),
            skipped=str(sum(q["status"] == PENDING for q in qs.values())),
            failures=str(sum(q["status"] in ("failed", UNANSWERED) for q in qs.values())),
            errors=str(sum(q["status"] in ("error", "timeout", "missing") for q in qs.values())),
        )
        for gid, q in qs.items():
            case = ET.SubElement(suite, "testcase", classname=f"{assignment.name}.{student}", name=gid)
            if q["status"] == PENDING:
                ET.SubElement(case, "skipped", message=q["feedback"][:500])
            elif q["status"] in ("failed", UNANSWERED):
                ET.SubElement(case, "failure", message=q["feedback"][:500])
            elif q["status"] != "passed":
                ET.SubElement(case, "error", message=f"{q['status']}: {q['feedback']}"[:500])
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)
