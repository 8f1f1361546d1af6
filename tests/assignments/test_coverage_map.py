"""The curriculum map (assignments/COVERAGE.md) is honest: one row per assessable item of the
source documents 000–004, each saying how it is graded (assessed, partly assessed and which part,
hand-graded, or not assessed and why), naming the grade ids that assess it (every one a grade cell
of a release notebook) and how a wrong answer fails. Each misconception the map names
(`grade_id:name`) exists in that question and is rejected, with its own feedback, by the judge
(what `autograder selftest` proves for every misconception; here only the named ones, on one
student's probes); every autograded question of the seven problem sets appears in the map; the
totals the map states are its own; at least 150 rows, under 10 % not assessed."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from autograder.judging.instructor_answers import SELFTEST_STUDENTS, known_wrong_outcome
from autograder.judging.verdict import judge
from autograder.spec import load_assignment

REPO = Path(__file__).resolve().parents[2]
MAP = REPO / "assignments" / "COVERAGE.md"
DOCUMENTS = {"000", "001", "002", "003", "004"}
STATUSES = ("assessed:", "partly assessed —", "hand-graded:", "not assessed:")
PROBLEM_SETS = sorted(p.parent.name for p in (REPO / "assignments").glob("ps*/__init__.py"))


@cache
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


def status(cells: list[str]) -> str:
    return next(s for s in STATUSES if cells[4].startswith(s)).rstrip(": —")


@cache
def questions() -> dict:
    """grade id -> (assignment, question), over the seven problem sets."""
    found = {}
    for name in PROBLEM_SETS:
        assignment = load_assignment(name)
        found.update({q.grade_id: (assignment, q) for q in assignment.questions})
    return found


def named_misconceptions() -> list[tuple[str, str]]:
    return sorted(
        {tuple(m.split(":")) for cells in rows() for m in re.findall(r"`([A-Za-z0-9_]+:[A-Za-z0-9_]+)`", cells[5])}
    )


def released_grade_ids() -> set[str]:
    ids = set()
    for notebook in (REPO / "release").glob("*/*.ipynb"):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if meta.get("grade"):
                ids.add(meta["grade_id"])
    return ids


def test_every_row_names_a_document_a_place_how_it_is_graded_and_how_a_wrong_answer_fails():
    table = rows()
    assert len(table) >= 150, len(table)
    for cells in table:
        # document | section | quoted words | what it is | assessed by | how a wrong answer fails
        assert len(cells) == 6, cells
        assert cells[0] in DOCUMENTS, cells
        assert all(cells), cells
        assert cells[4].startswith(STATUSES), f"say how it is graded: {cells[4][:80]}"
        if status(cells) == "not assessed":
            assert cells[5] == "—" and len(cells[4]) > len("not assessed: "), f"say why: {cells}"
        else:
            assert "`" in cells[4] and "`" in cells[5], cells


def test_every_grade_id_it_names_is_a_grade_cell_of_a_release_notebook():
    known = released_grade_ids()
    named = {
        gid for cells in rows() for gid in re.findall(r"`([A-Za-z0-9_]+)(?::[A-Za-z0-9_]+)?`", cells[4] + cells[5])
    }
    assert named, "the map names no grade id"
    assert not named - known, sorted(named - known)


def test_every_autograded_question_appears_in_the_map():
    text = " ".join(c[4] + " " + c[5] for c in rows())
    missing = [gid for gid in questions() if f"`{gid}`" not in text and f"`{gid}:" not in text]
    assert not missing, missing


@pytest.mark.parametrize("gid, name", named_misconceptions())
def test_each_named_misconception_exists_and_is_rejected_with_its_feedback(gid, name):
    assert gid in questions(), f"{gid} is not an autograded question"
    assignment, q = questions()[gid]
    mis = next((m for m in q.misconceptions if m.name == name), None)
    assert mis is not None, f"{gid} names no misconception {name!r}: {[m.name for m in q.misconceptions]}"
    probes = q.probes_for(SELFTEST_STUDENTS[0], assignment)
    verdict = judge(q, probes, known_wrong_outcome(q, probes, mis.wrong))
    assert verdict.status != "passed" and verdict.misconception == name, (verdict.status, verdict.misconception)


def test_the_stated_totals_are_the_maps_own_and_fewer_than_one_in_ten_items_is_not_assessed():
    table = rows()
    counts = {
        s: sum(status(c) == s for c in table) for s in ("assessed", "partly assessed", "hand-graded", "not assessed")
    }
    intro = " ".join(MAP.read_text(encoding="utf-8").split("## 000")[0].split())
    stated = (
        f"{len(table)} items: {counts['assessed']} assessed, {counts['partly assessed']} partly assessed, "
        f"{counts['hand-graded']} assessed only by hand, {counts['not assessed']} not assessed"
    )
    assert stated in intro, stated
    assert counts["not assessed"] < 0.1 * len(table), counts
