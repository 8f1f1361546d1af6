"""Hand-graded questions: the notebook's manual grade cells (nbgrader ``grade`` and ``solution``,
no autograder spec) — proofs and paragraphs an instructor grades in formgrader.

They appear in ``results.json`` and on feedback pages as ``pending`` with their points, so a
student reads "13/15 autograded, 3 points graded by hand still to come" rather than a bare 13/15;
one handed in as released ("YOUR ANSWER HERE") is ``unanswered``, 0 points, as nbgrader scores it.
Their entry's ``score`` is 0 and never counts in the record's ``score`` (the autograded total);
``autograder final-grades`` adds the graders' scores from the gradebook.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

from autograder.i18n import Message
from autograder.spec import Assignment

PENDING = "pending"
PENDING_FEEDBACK = Message("graded by hand — these points are still to come")
UNANSWERED = "unanswered"
UNANSWERED_FEEDBACK = Message("No response: this answer was handed in as released, which scores 0.")


@dataclass(frozen=True)
class HandGraded:
    grade_id: str
    points: float
    title: str


def _heading(source: str) -> str | None:
    for line in source.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip()
            return re.sub(r"\s*\(\s*\d+(\.\d+)?\s*points?[^)]*\)\s*$", "", title) or None
    return None


@functools.lru_cache(maxsize=32)
def _read(path: str, mtime: float, autograded: frozenset) -> tuple[HandGraded, ...]:
    cells = json.loads(Path(path).read_text(encoding="utf-8")).get("cells", [])
    found, title = [], None
    for cell in cells:
        source = "".join(cell.get("source", ""))
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") == "markdown" and not meta.get("solution"):
            title = _heading(source) or title
        if meta.get("grade") and meta.get("solution") and meta.get("grade_id") not in autograded:
            gid = str(meta.get("grade_id"))
            found.append(HandGraded(gid, float(meta.get("points") or 0), title or gid))
    return tuple(found)


def hand_graded(assignment: Assignment) -> tuple[HandGraded, ...]:
    """The problem set's hand-graded cells, read from its source notebook (in notebook order)."""
    path = assignment.source_dir / assignment.notebook
    if not path.is_file():
        return ()
    return _read(str(path), path.stat().st_mtime, frozenset(q.grade_id for q in assignment.questions))


def left_unanswered(notebook: Path) -> set[str]:
    """Grade ids of the hand-gradable cells handed in as released: the cell's nbgrader checksum
    (written by the release) still equals the cell's — nbgrader's ``determine_grade`` rule, which
    scores such a cell 0 without a grader. An unreadable notebook has none."""
    import nbformat
    from nbgrader.utils import compute_checksum

    try:
        cells = nbformat.read(str(notebook), as_version=4).cells  # sources joined, as nbgrader reads them
    except Exception:  # noqa: BLE001 - a student's file: unreadable is reported by the grading itself
        return set()
    found = set()
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution") and meta.get("checksum"):
            try:
                same = compute_checksum(cell) == meta["checksum"]
            except (KeyError, TypeError, AttributeError):
                continue
            if same:
                found.add(str(meta.get("grade_id")))
    return found


def pending_entries(assignment: Assignment, notebook: Path | None = None) -> dict[str, dict]:
    """results.json ``questions`` entries for the hand-graded cells: ``pending`` for a grader, or,
    given the submitted ``notebook``, ``unanswered`` (0, as nbgrader scores it) for a cell
    handed in as released."""
    blank = left_unanswered(notebook) if notebook is not None else set()
    said = {
        h.grade_id: UNANSWERED_FEEDBACK if h.grade_id in blank else PENDING_FEEDBACK for h in hand_graded(assignment)
    }
    return {
        h.grade_id: {
            "score": 0.0,
            "max_score": h.points,
            "status": UNANSWERED if h.grade_id in blank else PENDING,
            "feedback": str(said[h.grade_id]),
            "message": said[h.grade_id].to_json(),  # said in the student's language on the feedback page
            "misconception": None,
        }
        for h in hand_graded(assignment)
    }


def autograded(questions: dict) -> dict:
    """The entries that are not hand-graded (what the autograded totals are made of)."""
    return {gid: q for gid, q in questions.items() if q.get("status") not in (PENDING, UNANSWERED)}
