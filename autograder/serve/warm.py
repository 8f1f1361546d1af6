"""Warm sandboxed workers: the service's (each of its own, or each of a Dask worker's) grades
every problem set's solution once before the first student's notebook."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from autograder.grading.submission import grade_one
from autograder.intake.submission import Submission
from autograder.sandbox.pool import Worker


def warm_up(worker: Worker, assignments, log=sys.stderr) -> None:
    """Grade each problem set's solution once (not stored): the first student's grading then
    finds the judging code, SymPy and the references' first calls already paid for."""
    import nbformat

    from autograder.releasing.sample_submissions import make_notebook
    from autograder.releasing.stages import released_notebook

    worker.start()
    with tempfile.TemporaryDirectory(prefix="autograder-warm-") as tmp:
        for assignment in assignments:
            try:
                try:
                    path = Path(tmp) / f"{assignment.name}.ipynb"
                    nbformat.write(make_notebook(assignment), path)
                except Exception:  # no solutions at hand: the unsolved release warms most of it
                    path = released_notebook(assignment)
                grade_one(worker, assignment, Submission("warm-up", path))
            except Exception as exc:  # a missing release is reported when students submit
                print(f"warm-up of {assignment.name} failed: {exc}", file=log, flush=True)
