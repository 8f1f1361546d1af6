"""Record results in nbgrader's gradebook, so formgrader shows them and manual grading works.

The assignment's structure (notebooks, grade cells, solution cells) is written by nbgrader's
own generate_assignment (its SaveCells stage) into the given database; submissions and
auto-scores go through ``nbgrader.api.Gradebook``. Re-recording updates, never duplicates.
Any SQLAlchemy URL nbgrader accepts works (SQLite file by default, PostgreSQL tested).

What formgrader then shows, as after ``nbgrader autograde``:

* every autograded cell is graded (``auto_score`` set, ``needs_manual_grade`` False), so the
  manual-grading queue holds exactly the hand-graded cells (the proofs and paragraphs);
* the assignment is filed under the course's id: ``--course-id``, else
  ``CourseDirectory.course_id`` from ``nbgrader_config.py`` in the working directory or beside
  an SQLite gradebook (nbgrader's own ``default_course`` only when there is no config);
* only students who handed in a notebook become students;
* given the course directory, each submitted notebook is copied to
  ``autograded/{student}/{assignment}/`` — the file formgrader's grading view opens — with each
  autograded test cell's output the grader's verdict and feedback (formgrader_notebooks.py);
* a hand-graded answer left as released scores 0 and leaves the manual queue, as nbgrader's
  autograde does; the others wait for a grader;
* given a roster, students carry its names, e-mail and LMS id (formgrader lists them by name).

nbgrader's ``add_submission`` builds the submission's rows while SQLAlchemy 2's autoflush is on:
reading ``submission.assignment.notebooks`` flushes objects not yet added to the session, and
SQLAlchemy warns (SAWarning "… not in session, add operation along … will not proceed") on
every new submission. It is called under ``no_autoflush`` here, so the rows are added together
when nbgrader adds the submission.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from autograder.errors import AutograderError
from autograder.grading.hand_graded import PENDING, hand_graded
from autograder.intake.roster import Roster
from autograder.outputs.formgrader_notebooks import unanswered, write_annotated
from autograder.releasing.stages import (
    ReleaseContext,
    alembic_on_path,
    copy_source,
    fill_visible_checks,
    nbgrader_generate,
)
from autograder.spec import Assignment

NBGRADER_DEFAULT_COURSE = "default_course"


class GradebookConfigError(AutograderError):
    """The course's nbgrader_config.py, which names the gradebook's course, cannot be read."""


def as_db_url(db: str) -> str:
    """A bare path means an SQLite file; a relative SQLite path is made absolute (nbgrader's
    generate_assignment changes directory, and would otherwise write the cells elsewhere)."""
    if "://" not in db:
        return f"sqlite:///{Path(db).resolve()}"
    prefix = "sqlite:///"
    if db.startswith(prefix) and not db.startswith(prefix + "/") and db[len(prefix) :] not in ("", ":memory:"):
        return f"{prefix}{Path(db[len(prefix) :]).resolve()}"
    return db


@dataclass(frozen=True)
class Course:
    course_id: str
    root: Path | None  # the nbgrader course directory (where autograded/ lives), when known
    source: str  # where the id came from, for the log line


def _sqlite_dir(db_url: str) -> Path | None:
    prefix = "sqlite:///"
    return Path(db_url[len(prefix) :]).parent if db_url.startswith(prefix) else None


def find_course(db_url: str, course_id: str | None = None, search: list[Path] | None = None) -> Course:
    """The course this gradebook belongs to (see the module docstring for the order)."""
    from traitlets.config.loader import PyFileConfigLoader

    places = search if search is not None else [Path.cwd(), _sqlite_dir(db_url)]
    for place in (p for p in places if p is not None):
        if not (place / "nbgrader_config.py").is_file():
            continue
        try:
            cfg = PyFileConfigLoader("nbgrader_config.py", path=str(place)).load_config()
        except Exception as exc:  # an instructor's file: say which and why
            raise GradebookConfigError(f"{place / 'nbgrader_config.py'}: cannot be read ({exc!r})") from None
        cd = cfg.get("CourseDirectory", {})
        root = Path(cd.get("root") or place)
        found = course_id or cd.get("course_id") or ""
        if found:
            return Course(found, root, "--course-id" if course_id else str(place / "nbgrader_config.py"))
    if course_id:
        return Course(course_id, None, "--course-id")
    return Course(NBGRADER_DEFAULT_COURSE, None, "no nbgrader_config.py found: nbgrader's default")


def ensure_assignment(assignment: Assignment, db_url: str, course_id: str = NBGRADER_DEFAULT_COURSE) -> None:
    """The assignment, its notebook and cells in the gradebook, filed under ``course_id``."""
    from nbgrader.api import Gradebook, MissingEntry

    alembic_on_path()
    with Gradebook(db_url, course_id) as gb:
        try:
            row = gb.find_assignment(assignment.name)
        except MissingEntry:
            row = gb.add_assignment(assignment.name)  # filed under course_id before nbgrader sees it
        else:
            if row.notebooks:
                if row.course_id != course_id:  # recorded before the course id was read from the config
                    row.course_id = course_id
                    gb.db.commit()
                return
    with tempfile.TemporaryDirectory(prefix="autograder-gradebook-") as tmp:
        ctx = ReleaseContext(assignment, Path(tmp), db_url=db_url)
        copy_source(ctx)
        fill_visible_checks(ctx)
        nbgrader_generate(ctx)  # updates the row above (its course stays), adds notebook and cells
    _drop_empty_default_course(db_url, course_id)


def _drop_empty_default_course(db_url: str, course_id: str) -> None:
    """nbgrader's Gradebook() creates a ``default_course`` row whenever it is opened without one."""
    from nbgrader.api import Assignment as AssignmentRow
    from nbgrader.api import Course as CourseRow
    from nbgrader.api import Gradebook

    if course_id == NBGRADER_DEFAULT_COURSE:
        return
    with Gradebook(db_url, course_id) as gb:
        stray = gb.db.query(CourseRow).filter(CourseRow.id == NBGRADER_DEFAULT_COURSE).one_or_none()
        used = gb.db.query(AssignmentRow).filter(AssignmentRow.course_id == NBGRADER_DEFAULT_COURSE).count()
        if stray is not None and not used:
            gb.db.delete(stray)
            gb.db.commit()


def _timestamp(text: str | None):
    """nbgrader's timestamp.txt format (``2024-01-31 12:00:00.123456 UTC``) as a naive UTC datetime."""
    from nbgrader.utils import parse_utc

    if not text:
        return None
    try:
        return parse_utc(text)
    except (ValueError, OverflowError, TypeError):
        return None


def _mark_autograded(grade, score: float) -> None:
    """As nbgrader's SaveAutoGrades: graded unless a grader's manual score wants a second look."""
    changed = grade.auto_score is None or float(grade.auto_score) != score
    grade.auto_score = score
    if grade.manual_score is None:
        grade.needs_manual_grade = False
    elif changed:
        grade.needs_manual_grade = True  # the auto score moved under a manual override: review it


def record_results(
    assignment: Assignment,
    results: dict,
    db: str,
    *,
    students: list[str] | None = None,
    course_id: str | None = None,
    notebooks: dict[str, Path] | None = None,
    course: Course | None = None,
    roster: str | Path | None = None,
) -> int:
    """Write the auto-scores of ``students`` (default: all in results who handed in a notebook).

    Returns the number of grades written. ``notebooks`` (student -> submitted notebook) tell the
    hand-graded cells left unanswered, and are copied (annotated) to the course's ``autograded/``
    folder when the course directory is known. ``roster`` (a CSV) names the students.
    """
    from nbgrader.api import Gradebook, MissingEntry

    db_url = as_db_url(db)
    course = course or find_course(db_url, course_id)
    print(f"gradebook: course {course.course_id!r} ({course.source})", file=sys.stderr)
    ensure_assignment(assignment, db_url, course.course_id)
    notebook_id = Path(assignment.notebook).stem
    wanted = (
        students
        if students is not None
        else [s for s, rec in results["students"].items() if not _nothing_handed_in(rec)]
    )
    people = Roster.read(Path(roster)) if roster else None
    notebooks = notebooks or {}
    written = 0
    with Gradebook(db_url, course.course_id) as gb:
        checksums = _hand_graded_checksums(gb, assignment, notebook_id)
        for student in wanted:
            rec = results["students"].get(student)
            if rec is None:
                continue
            gb.update_or_create_student(student, **_person(people, student))
            submitted_at = _timestamp(rec.get("submitted_at"))
            try:
                submission = gb.find_submission(assignment.name, student)
            except MissingEntry:
                with gb.db.no_autoflush:  # see the module docstring: no SAWarning
                    submission = gb.add_submission(assignment.name, student)
            if submitted_at is not None:  # formgrader shows it; late penalties use it
                submission.timestamp = submitted_at
            left_blank = unanswered(notebooks[student], checksums) if student in notebooks else set()
            for grade_id, q in rec["questions"].items():
                try:
                    grade = gb.find_grade(grade_id, notebook_id, assignment.name, student)
                except MissingEntry:
                    continue
                if q.get("status") != PENDING:
                    _mark_autograded(grade, float(q["score"]))
                    if rec.get("flag"):
                        _say_in_formgrader(gb, grade_id, notebook_id, assignment.name, student, q.get("feedback"))
                elif student not in notebooks:
                    continue  # no notebook to tell: as recorded before (the manual queue's)
                elif grade_id in left_blank:
                    _mark_autograded(grade, 0.0)  # nbgrader's determine_grade: no response, 0
                else:
                    _wait_for_grader(grade)  # answered: formgrader's manual queue keeps it
                written += 1
            gb.db.commit()
    if course.root is not None and notebooks:
        copy_autograded(
            assignment,
            course.root,
            {s: p for s, p in notebooks.items() if s in set(wanted)},
            {s: rec["questions"] for s, rec in results["students"].items()},
        )
    return written


def _person(people: Roster | None, student: str) -> dict:
    """The gradebook's Student fields from the roster (nothing without one: names stay)."""
    person = people.people.get(student) if people else None
    if person is None:
        return {}
    first, last = person.first_last
    fields = {"first_name": first or None, "last_name": last or None, "email": person.email or None}
    fields["lms_user_id"] = person.lms_id("ID", "canvas_id", "lms_id", "moodle_id", "SIS User ID") or None
    return {k: v for k, v in fields.items() if v}


def _hand_graded_checksums(gb, assignment: Assignment, notebook_id: str) -> dict[str, str]:
    """grade id -> the released cell's nbgrader checksum, for the hand-graded cells."""
    from nbgrader.api import MissingEntry

    found = {}
    for hand in hand_graded(assignment):
        try:
            found[hand.grade_id] = gb.find_source_cell(hand.grade_id, notebook_id, assignment.name).checksum
        except MissingEntry:
            continue
    return found


def _say_in_formgrader(gb, grade_id: str, notebook_id: str, assignment_id: str, student: str, text) -> None:
    """The comment formgrader shows under a cell (a flagged notebook's: why it was not graded)."""
    from nbgrader.api import MissingEntry

    try:
        gb.find_comment(grade_id, notebook_id, assignment_id, student).auto_comment = text
    except MissingEntry:
        pass  # a test cell: nbgrader keeps comments for answer cells only


def _wait_for_grader(grade) -> None:
    """An answered hand-graded cell: no auto score; it needs a grader unless one has scored it."""
    grade.auto_score = None
    grade.needs_manual_grade = grade.manual_score is None


def _nothing_handed_in(rec: dict) -> bool:
    return bool(rec.get("error")) and all(q.get("status") in ("missing", "pending") for q in rec["questions"].values())


def copy_autograded(
    assignment: Assignment, course_root: Path, notebooks: dict[str, Path], questions: dict[str, dict] | None = None
) -> None:
    """``autograded/{student}/{assignment}/{notebook}``: what formgrader's grading view opens,
    each autograded test cell carrying the grader's verdict (``questions``: student -> results)."""
    from autograder.grading.storage import safe_name

    for student, path in notebooks.items():
        if safe_name(student) != student:
            continue  # not a name nbgrader could have a folder for
        target = Path(course_root) / "autograded" / student / assignment.name / assignment.notebook
        write_annotated(Path(path), target, (questions or {}).get(student, {}))
        stamp = Path(path).parent / "timestamp.txt"
        if stamp.is_file():
            shutil.copyfile(stamp, target.parent / "timestamp.txt")
