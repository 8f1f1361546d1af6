"""Build student notebooks from the release: the solution, or chosen cells replaced.

Used by the demo, the self-test, the benchmark and the tests, so every sample submission is
the real released notebook with only its solution cells changed — as a student would hand in.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat

from autograder.releasing.stages import released_notebook
from autograder.spec import Assignment


def _solution_cells(nb) -> dict[str, object]:
    return {
        c.metadata["nbgrader"]["grade_id"]: c
        for c in nb.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("solution")
    }


def solution_sources(assignment: Assignment) -> dict[str, str]:
    """grade_id -> the instructor's solution cell source (from the course's source notebook, trusted side only)."""
    source = nbformat.read(assignment.source_dir / assignment.notebook, as_version=4)
    return {gid: cell.source for gid, cell in _solution_cells(source).items()}


def make_notebook(assignment: Assignment, replacements: dict[str, str] | None = None, *, solved: bool = True):
    """The released notebook with solution cells filled in (solved) and/or replaced."""
    nb = nbformat.read(released_notebook(assignment), as_version=4)
    answers = solution_sources(assignment) if solved else {}
    answers.update(replacements or {})
    for gid, cell in _solution_cells(nb).items():
        if gid in answers:
            cell.source = answers[gid]
    return nb


def write_submission(root: Path, student: str, assignment: Assignment, nb) -> Path:
    folder = Path(root) / student / assignment.name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / assignment.notebook
    nbformat.write(nb, path)
    # what a student's folder holds beside the notebook (the formula grammar helper, ...)
    for extra in released_notebook(assignment).parent.iterdir():
        if extra.is_file() and extra.name != assignment.notebook:
            shutil.copy2(extra, folder / extra.name)
    return path
