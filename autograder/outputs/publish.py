"""One publish step after grading: everything a graded cohort is turned into, in one place.

``autograder grade``, the service (``autograder serve``) and a Gradescope run all call
``publish`` with the results grading returned and what they want written, so each output is
produced one way whoever graded. ``results.json`` itself is not written here: it is the result
store's (``grade_cohort`` assembles it from the per-submission files, and a resumed run
assembles it again), and every output below is a view of it:

* the students' feedback pages, ``OUT/feedback/<student>.html``;
* the exports asked for: CSV, JUnit XML, Gradescope's results schema, a Canvas gradebook CSV;
* nbgrader's gradebook (``--db``), with the submitted notebooks copied for formgrader.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from autograder.outputs import exports
from autograder.outputs.feedback_pages import write_feedback_pages
from autograder.spec import Assignment


@dataclass(frozen=True)
class Outputs:
    """What to write besides results.json (nothing is written for an option left unset)."""

    feedback_pages: bool = True
    csv: Path | None = None
    junit: Path | None = None
    gradescope: Path | None = None
    canvas: Path | None = None
    canvas_column: str | None = None  # the Canvas assignment column (default: the problem set's name)
    roster: Path | None = None  # maps student ids to the LMS's (Canvas)
    db: str | None = None  # nbgrader gradebook URL or SQLite file
    course_id: str | None = None  # the gradebook's course (default: nbgrader_config.py's)
    graded_students: list[str] | None = None  # gradebook: who handed in (default: read from results)
    notebooks: dict[str, Path] = field(default_factory=dict)  # gradebook: copied to autograded/
    language_of: Callable[[str], str] | None = None  # student -> their feedback page's language (English)


def publish(assignment: Assignment, results: dict, out: Path, outputs: Outputs) -> None:
    """Write ``outputs`` for ``results`` (results.json's content; some or all of its students)."""
    if outputs.feedback_pages:
        write_feedback_pages(assignment, results, Path(out) / "feedback", outputs.language_of)
    if outputs.csv:
        exports.write_csv(assignment, results, Path(outputs.csv))
    if outputs.junit:
        exports.write_junit(assignment, results, Path(outputs.junit))
    if outputs.gradescope:
        from autograder.outputs.gradescope import write_gradescope

        write_gradescope(assignment, results, Path(outputs.gradescope))
    if outputs.canvas:
        from autograder.outputs.canvas import write_canvas_csv

        write_canvas_csv(assignment, results, Path(outputs.canvas), roster=outputs.roster, column=outputs.canvas_column)
    if outputs.db:
        from autograder.outputs.gradebook import record_results

        record_results(
            assignment,
            results,
            outputs.db,
            students=outputs.graded_students,
            course_id=outputs.course_id,
            notebooks=outputs.notebooks,
            roster=outputs.roster,
        )
