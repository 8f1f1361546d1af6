"""Build student notebooks from the release: the solution, or chosen cells replaced.

Used by the demo, the self-test, the benchmark and the tests, so every sample submission is
the real released notebook with only its solution cells changed — as a student would hand in.
The demo's PS1 cohort (``SAMPLES``: a right answer and four kinds of wrong one) lives here too,
for the demo, both benchmarks and the tests.
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


# ---------------------------------------------------------------- the demo's PS1 cohort

MISSING_SCALE = """def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1)            # forgot the 1/sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v
"""

RAISES = """def scaled_dot_product_attention(q, k, v, mask=None):
    raise ValueError("I did not get to this one")
"""

CHEATS = """import numpy
numpy.testing.assert_allclose = lambda *a, **k: None   # silence the visible checks
torch.allclose = lambda *a, **k: True
def scaled_dot_product_attention(q, k, v, mask=None):
    return torch.zeros(*q.shape[:-1], v.shape[-1])
"""

SAMPLES = {
    "alice": ("correct", {}),
    "bob": ("forgets 1/sqrt(d_k)", {"sdpa_impl": MISSING_SCALE}),
    "carol": ("raises an exception", {"sdpa_impl": RAISES}),
    "dave": ("hands in the release unchanged", None),
    "eve": ("monkeypatches the checks, returns zeros", {"sdpa_impl": CHEATS}),
}


def make_samples(root: Path) -> None:
    """The demo's cohort, one PS1 notebook per entry of SAMPLES, in nbgrader's layout under root."""
    from autograder.spec import load_assignment

    assignment = load_assignment("ps1_attention")
    for student, (_, replacements) in SAMPLES.items():
        nb = (
            make_notebook(assignment, solved=False) if replacements is None else make_notebook(assignment, replacements)
        )
        write_submission(root, student, assignment, nb)
