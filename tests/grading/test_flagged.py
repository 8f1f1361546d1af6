"""Notebooks that cannot be graded are flagged, never silent zeros (issue 26, item 6): a truncated
notebook and JSON that is no notebook are `unreadable`, another problem set's notebook is
`wrong_assignment` (named), each with one reason said once; the rest of the batch is graded.
`autograder grade` names them and exits 3 unless `--accept-flagged`."""

from __future__ import annotations

import json
import subprocess
import sys

import nbformat
import pytest

from autograder.grading.cohort import grade_cohort
from autograder.grading.notebook import NotebookError, parse_notebook
from autograder.intake.collect import collect_folder
from autograder.releasing.sample_submissions import make_notebook, write_submission
from autograder.releasing.stages import released_notebook
from autograder.spec import load_assignment


def batch(root, ps1):
    """alice: the solution; trunc: alice's notebook cut in half; notnb: JSON, no notebook;
    ps5: the PS5 release handed in for PS1."""
    write_submission(root, "alice", ps1, make_notebook(ps1))
    whole = (root / "alice" / ps1.name / ps1.notebook).read_bytes()
    write_submission(root, "trunc", ps1, make_notebook(ps1))
    (root / "trunc" / ps1.name / ps1.notebook).write_bytes(whole[: len(whole) // 2])
    write_submission(root, "notnb", ps1, make_notebook(ps1))
    (root / "notnb" / ps1.name / ps1.notebook).write_text(json.dumps({"answer": 42}))
    ps5 = load_assignment("ps5")
    write_submission(root, "ps5", ps1, nbformat.read(released_notebook(ps5), as_version=4))


@pytest.fixture(scope="module")
def flagged(ps1, tmp_path_factory):
    root = tmp_path_factory.mktemp("flagged")
    batch(root / "in", ps1)
    return grade_cohort(ps1, collect_folder(root / "in", ps1), root / "out", workers=1, progress=False)["students"]


def test_unreadable_notebooks_are_flagged_with_one_reason(flagged, ps1):
    trunc, notnb = flagged["trunc"], flagged["notnb"]
    assert trunc["flag"] == notnb["flag"] == "unreadable"
    assert "not valid notebook JSON" in trunc["flag_reason"] and "truncated" in trunc["flag_reason"]
    assert "JSON but not a Jupyter notebook" in notnb["flag_reason"]
    for rec in (trunc, notnb):  # the JSON error is said once, not under every question
        assert rec["score"] == 0
        for q in rec["questions"].values():  # hand-graded cells too: nothing waits for a grader
            assert q["status"] != "pending" and q["feedback"].startswith("not graded: "), q


def test_another_assignments_notebook_is_flagged_by_name(flagged):
    rec = flagged["ps5"]
    assert rec["flag"] == "wrong_assignment"
    assert "ps5_equivariance notebook, not ps1_attention's" in rec["flag_reason"]
    assert {q["status"] for q in rec["questions"].values()} <= {"missing", "unanswered"}


def test_a_set_that_shares_cell_names_is_still_named(tmp_path):
    """PS3 and PS4 share `attention_impl`: PS3's notebook handed in for PS4 is PS3's, not run."""
    from autograder.grading.notebook import foreign_notebook, read_notebook

    ps3, ps4 = load_assignment("ps3"), load_assignment("ps4")
    handed_in = tmp_path / ps4.notebook
    handed_in.write_bytes(released_notebook(ps3).read_bytes())
    reason = foreign_notebook(read_notebook(handed_in), released_notebook(ps4))
    assert "is the ps3_rope notebook, not ps4_alibi's" in reason and "holds 1 of ps4_alibi's" in reason
    assert foreign_notebook(read_notebook(released_notebook(ps4)), released_notebook(ps4)) is None


def test_the_rest_is_graded_and_carries_the_schema(flagged):
    alice = flagged["alice"]
    assert alice["flag"] is None and alice["flag_reason"] == "" and alice["late"] is False
    assert alice["score"] > 0 and not any(q["feedback"].startswith("not graded") for q in alice["questions"].values())


@pytest.mark.parametrize(
    "data,words",
    [
        (b"", "is empty"),
        (b'{"cells": [ oops', "broken at line 1"),
        (b'{"nbformat": 4, "cells": [{"source": "x = 1', "truncated"),
        (b"\xff\xfe", "not UTF-8"),
        (b"[1, 2]", "not a Jupyter notebook"),
        (b'{"nbformat": 4}', "not a Jupyter notebook"),
        (b'{"nbformat": "4", "cells": []}', "not a Jupyter notebook"),
    ],
)
def test_parse_refuses_with_one_line(data, words):
    with pytest.raises(NotebookError) as caught:
        parse_notebook(data, "up.ipynb")
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_grade_names_the_flagged_and_exits_3_unless_accepted(ps1, tmp_path):
    batch(tmp_path / "in", ps1)
    args = [sys.executable, "-m", "autograder", "grade", "ps1", str(tmp_path / "in"), "--quiet", "--workers", "1"]
    r = subprocess.run([*args, "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert r.returncode == 3, r.stderr[-3000:]
    for student, flag in (("trunc", "unreadable"), ("notnb", "unreadable"), ("ps5", "wrong_assignment")):
        assert f"FLAGGED {student}: {flag}: " in r.stdout, r.stdout
    assert "FLAGGED alice" not in r.stdout and "3 notebooks flagged" in r.stderr
    accepted = subprocess.run(
        [*args, "--out", str(tmp_path / "out"), "--accept-flagged"], capture_output=True, text=True
    )
    assert accepted.returncode == 0, accepted.stderr[-3000:]
    assert "FLAGGED trunc" in accepted.stdout
