"""Record results in nbgrader's gradebook, so formgrader shows them and manual grading works.

The assignment's structure (notebooks, grade cells, solution cells) is written by nbgrader's
own generate_assignment (its SaveCells stage) into the given database; submissions and
auto-scores go through ``nbgrader.api.Gradebook``. Re-recording updates, never duplicates.
Any SQLAlchemy URL nbgrader accepts works (SQLite file by default, PostgreSQL tested).
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from autograder.release import ReleaseContext, alembic_on_path, copy_source, fill_visible_checks, nbgrader_generate
from autograder.spec import Assignment


def as_db_url(db: str) -> str:
    """A bare path means an SQLite file."""
    return db if "://" in db else f"sqlite:///{Path(db).resolve()}"


def ensure_assignment(assignment: Assignment, db_url: str) -> None:
    from nbgrader.api import Gradebook, MissingEntry

    alembic_on_path()
    with Gradebook(db_url) as gb:
        try:
            gb.find_assignment(assignment.name)
            return
        except MissingEntry:
            pass
    with tempfile.TemporaryDirectory(prefix="autograder-gradebook-") as tmp:
        ctx = ReleaseContext(assignment, Path(tmp), db_url=db_url)
        copy_source(ctx)
        fill_visible_checks(ctx)
        nbgrader_generate(ctx)


def _timestamp(text: str | None):
    """nbgrader's timestamp.txt format (``2024-01-31 12:00:00.123456 UTC``) as a naive UTC datetime."""
    from nbgrader.utils import parse_utc

    if not text:
        return None
    try:
        return parse_utc(text)
    except (ValueError, OverflowError, TypeError):
        return None


def record_results(assignment: Assignment, results: dict, db: str) -> int:
    """Write every student's auto-scores; returns the number of grades written."""
    from nbgrader.api import Gradebook, MissingEntry

    db_url = as_db_url(db)
    ensure_assignment(assignment, db_url)
    notebook_id = Path(assignment.notebook).stem
    written = 0
    with Gradebook(db_url) as gb:
        for student, rec in results["students"].items():
            gb.update_or_create_student(student)
            submitted_at = _timestamp(rec.get("submitted_at"))
            try:
                submission = gb.find_submission(assignment.name, student)
            except MissingEntry:
                submission = gb.add_submission(assignment.name, student)
            if submitted_at is not None:  # formgrader shows it; late penalties use it
                submission.timestamp = submitted_at
            for grade_id, q in rec["questions"].items():
                try:
                    grade = gb.find_grade(grade_id, notebook_id, assignment.name, student)
                except MissingEntry:
                    continue
                grade.auto_score = float(q["score"])
                written += 1
            gb.db.commit()
    return written
