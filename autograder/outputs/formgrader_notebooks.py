"""The notebooks formgrader's grading view opens, and what the gradebook learns from them.

nbgrader's ``autograde`` runs the tests inside the student's notebook, so a failed test cell
carries its traceback and formgrader shows why it scored 0. This grader runs nothing of the
kind there, so each autograded test cell (the check cell whose grade id is a question's) is
given one output instead: the grader's verdict and feedback, the text the student reads —
never the expected answer or a hidden probe. A question that did not pass writes to stderr
(formgrader shows it as an error, as it would a traceback), one that passed to stdout.

A hand-graded answer left as released (nbgrader's checksum of the cell unchanged: "YOUR ANSWER
HERE") is what nbgrader's ``determine_grade`` scores 0 without a grader; :func:`unanswered`
finds those cells, so the gradebook records them as nbgrader would.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from autograder.grading.hand_graded import PENDING

VERDICT_TITLE = "autograder"
VERDICT_WIDTH = 100  # formgrader shows a stream output as preformatted text: it does not wrap


def verdict_text(entry: dict) -> str:
    """The output of one autograded test cell: status, points, then the student's feedback,
    wrapped at ``VERDICT_WIDTH`` (formgrader's grading view would show one long line)."""
    head = f"{VERDICT_TITLE}: {entry.get('status', '?')} — {float(entry.get('score', 0)):g} / "
    head += f"{float(entry.get('max_score', 0)):g} points"
    feedback = "\n".join(
        textwrap.fill(line, VERDICT_WIDTH, break_long_words=False, break_on_hyphens=False) if line else line
        for line in (entry.get("feedback") or "").strip().splitlines()
    )
    return head + ("\n" + feedback if feedback else "") + "\n"


def annotate(nb, questions: dict) -> int:
    """Give each autograded test cell of ``nb`` (nbformat v4) its verdict as its only output;
    returns how many cells were annotated. Hand-graded cells are left as the student wrote them."""
    import nbformat

    annotated = 0
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        entry = questions.get(str(meta.get("grade_id")))
        if cell.get("cell_type") != "code" or not meta.get("grade") or meta.get("solution") or entry is None:
            continue
        if entry.get("status") == PENDING:
            continue
        stream = "stdout" if entry.get("status") == "passed" else "stderr"
        cell.outputs = [nbformat.v4.new_output("stream", name=stream, text=verdict_text(entry))]
        annotated += 1
    return annotated


def write_annotated(source: Path, target: Path, questions: dict) -> None:
    """``target``: the submitted notebook ``source`` with its test cells annotated; an
    unreadable notebook is copied as it is (formgrader then shows what the student handed in)."""
    import shutil

    import nbformat

    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        nb = nbformat.read(source, as_version=4)
    except Exception:  # noqa: BLE001 - a student's file: not a notebook nbformat can read
        shutil.copyfile(source, target)
        return
    annotate(nb, questions)
    nbformat.write(nb, target)


def unanswered(notebook: Path, checksums: dict[str, str]) -> set[str]:
    """Grade ids of the cells in ``notebook`` whose nbgrader checksum equals the release's
    (``checksums``: grade id -> the gradebook's source-cell checksum), i.e. left unanswered."""
    import nbformat
    from nbgrader.utils import compute_checksum

    try:
        nb = nbformat.read(notebook, as_version=4)
    except Exception:  # noqa: BLE001 - unreadable: nothing can be said to be unanswered
        return set()
    found = set()
    for cell in nb.cells:
        gid = str(cell.get("metadata", {}).get("nbgrader", {}).get("grade_id"))
        if gid in checksums and checksums[gid] and compute_checksum(cell) == checksums[gid]:
            found.add(gid)
    return found
