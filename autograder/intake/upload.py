"""One student's upload (what Gradescope unpacks into ``/autograder/submission``) -> one Submission.

The upload is whatever the student dragged in: the assignment's notebook is the one named as the
release names it, else the only notebook there is, looked for in every subfolder. It is copied
into the work folder under the release's name, as ``{student}/{ps}/{notebook}``, so that the
notebook graded (and named in the student's feedback) is the same whatever the upload called it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from autograder.intake.submission import Submission
from autograder.spec import Assignment

IGNORED_PARTS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache"}


def find_notebook(folder: Path, assignment: Assignment) -> tuple[Path | None, str]:
    """The assignment's notebook in an upload, or None and why there is none."""
    found = sorted(p for p in Path(folder).rglob("*.ipynb") if not IGNORED_PARTS & set(p.parts))
    exact = [p for p in found if p.name == assignment.notebook]
    if len(exact) == 1:
        return exact[0], ""
    if len(found) == 1:
        return found[0], ""
    return None, (
        f"expected one notebook named {assignment.notebook} in the submission, "
        f"found {len(found)}: {', '.join(p.name for p in found) or 'none'}"
    )


def one_upload(folder: Path, assignment: Assignment, student: str, work_dir: Path) -> Submission:
    """The submission of ``student`` whose upload is ``folder`` (its notebook copied under work_dir)."""
    notebook, problem = find_notebook(folder, assignment)
    if notebook is None:
        return Submission(student, None, problem)
    target = Path(work_dir) / student / assignment.name / assignment.notebook
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(notebook, target)
    return Submission(student, target)
