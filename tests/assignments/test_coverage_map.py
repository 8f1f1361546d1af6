"""The curriculum map (assignments/COVERAGE.md) is honest: one row per assessable item of the
source documents 000–004, each naming the grade ids that assess it (every one a grade cell of a
release notebook) or saying why it is not assessed; at least 150 rows, under 10 % not assessed."""

from __future__ import annotations

import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MAP = REPO / "assignments" / "COVERAGE.md"
DOCUMENTS = {"000", "001", "002", "003", "004"}


def rows() -> list[list[str]]:
    table = []
    for line in MAP.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0].lower() in ("document", "doc"):
            continue  # a header
        table.append(cells)
    return table


def released_grade_ids() -> set[str]:
    ids = set()
    for notebook in (REPO / "release").glob("*/*.ipynb"):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if meta.get("grade"):
                ids.add(meta["grade_id"])
    return ids


def test_every_row_names_a_document_a_place_and_how_it_is_assessed():
    table = rows()
    assert len(table) >= 150, len(table)
    for cells in table:
        assert len(cells) == 5, cells  # document | section | quoted words | what it is | assessed by
        assert cells[0] in DOCUMENTS, cells
        assert all(cells), cells


def test_every_grade_id_it_names_is_a_grade_cell_of_a_release_notebook():
    known = released_grade_ids()
    named = {gid for cells in rows() for gid in re.findall(r"`([A-Za-z0-9_]+)`", cells[4])}
    assert named, "the map names no grade id"
    assert not named - known, sorted(named - known)


def test_fewer_than_one_in_ten_items_is_not_assessed():
    table = rows()
    unassessed = [c for c in table if c[4].lower().startswith("not assessed")]
    for cells in unassessed:
        assert len(cells[4]) > len("not assessed: "), f"say why: {cells}"
    assert len(unassessed) < 0.1 * len(table), (len(unassessed), len(table))
    for cells in table:
        assert cells[4].lower().startswith("not assessed") or "`" in cells[4], cells
