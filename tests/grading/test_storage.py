"""Results on disk (autograder/grading/storage.py), unit-tested: a write is atomic (an interrupted
one leaves the old file and no partial or temporary file), there is one file per submission
whatever the student's name, a damaged file reads as "grade again", the output folder's lock
refuses a second owner, and results.json is assembled from the per-submission files."""

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from autograder.grading import storage
from autograder.grading.storage import OutputBusy, ResultStore, safe_name, write_json_atomic


def record(score, **extra):
    return {"score": score, "max_score": 4, "questions": {"q": {"score": score}}, **extra}


def test_atomic_write_replaces_the_file_whole(tmp_path):
    path = tmp_path / "deep" / "er" / "out.json"  # folders are made as needed
    write_json_atomic(path, {"v": 1})
    write_json_atomic(path, {"v": 2, "list": [1, 2]})
    assert json.loads(path.read_text()) == {"v": 2, "list": [1, 2]}
    assert os.listdir(path.parent) == ["out.json"]


@pytest.mark.parametrize(
    "bad",
    [
        {"ok": 1, "then": float("nan")},  # refused half-way through the dump (allow_nan=False)
        {"ok": 1, "then": object()},  # not JSON at all
    ],
)
def test_an_interrupted_write_leaves_the_old_file_and_no_partial_one(tmp_path, bad):
    path = tmp_path / "out.json"
    write_json_atomic(path, {"v": 1})
    with pytest.raises((ValueError, TypeError)):
        write_json_atomic(path, bad)
    assert json.loads(path.read_text()) == {"v": 1}
    assert os.listdir(tmp_path) == ["out.json"]  # the temporary file is gone


def test_a_failed_rename_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "out.json"

    def disk_full(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(storage.os, "replace", disk_full)
    with pytest.raises(OSError, match="No space"):
        write_json_atomic(path, {"v": 1})
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    "student", ["../../etc/passwd", "a/b", ".", "..", "...", "", "名前", "x" * 500, "ana smith", "\0nul"]
)
def test_every_student_name_becomes_one_file_inside_the_folder(tmp_path, student):
    name = safe_name(student)
    assert "/" not in name and "\0" not in name and name.strip(".") and len(name) <= 121
    store = ResultStore(tmp_path)
    store.save(student, "k1", record(1))
    [written] = list(store.sub_dir.iterdir())
    assert written.parent == store.sub_dir and written.name == name + ".json"
    assert store.load(student) == {"key": "k1", "record": record(1)}


def test_safe_name_keeps_ordinary_ids():
    assert [safe_name(s) for s in ("ana", "s001", "ana.smith@uni.edu", "a+b-c_d")] == [
        "ana",
        "s001",
        "ana.smith@uni.edu",
        "a+b-c_d",
    ]


def test_one_file_per_submission_and_a_regrade_replaces_it(tmp_path):
    store = ResultStore(tmp_path)
    for student in ("ana", "bo", "cy"):
        store.save(student, "k1", record(1))
    store.save("bo", "k2", record(3))
    assert sorted(p.name for p in store.sub_dir.iterdir()) == ["ana.json", "bo.json", "cy.json"]
    assert store.key_of("bo") == "k2" and store.load("bo")["record"]["score"] == 3
    assert store.key_of("ana") == "k1"


@pytest.mark.parametrize("content", ["", "{not json", "[1, 2]", '"just a string"'])
def test_absent_or_damaged_files_read_as_grade_again(tmp_path, content):
    store = ResultStore(tmp_path)
    assert store.load("nobody") is None and store.key_of("nobody") is None
    store.sub_dir.mkdir(parents=True)
    (store.sub_dir / "ana.json").write_text(content)
    assert store.key_of("ana") is None


def test_the_lock_refuses_a_second_owner_until_released(tmp_path):
    first = ResultStore(tmp_path)
    with first.locked():
        assert first.sub_dir.is_dir()
        with pytest.raises(OutputBusy, match="another `autograder grade`"), ResultStore(tmp_path).locked():
            pass
    with ResultStore(tmp_path).locked():  # released on exit: the next owner gets it
        pass


def test_the_lock_holds_against_another_process(tmp_path):
    probe = (
        "import sys\nfrom autograder.grading.storage import OutputBusy, ResultStore\n"
        "try:\n    ResultStore(sys.argv[1]).locked().__enter__()\nexcept OutputBusy:\n    sys.exit(3)\n"
    )
    with ResultStore(tmp_path).locked():
        busy = subprocess.run([sys.executable, "-c", probe, str(tmp_path)])
    free = subprocess.run([sys.executable, "-c", probe, str(tmp_path)])
    assert (busy.returncode, free.returncode) == (3, 0)


def test_assemble_writes_results_json_from_the_stored_files(tmp_path):
    store = ResultStore(tmp_path)
    store.save("ana", "k", record(4, sandbox="bwrap", seconds=1.5, sandbox_cpu_seconds=0.7))
    store.save(
        "bo",
        "k",
        record(
            0,
            error="not a notebook",
            flags=["custom __eq__"],
            submitted_at="2026-01-01",
            late=True,
            flag="unreadable",
            flag_reason="not a notebook",
        ),
    )
    assignment = SimpleNamespace(name="ps1_attention", max_score=4)
    out = store.assemble(assignment, ["bo", "ana", "never_submitted"])
    assert json.loads((tmp_path / "results.json").read_text()) == out
    assert out["assignment"] == "ps1_attention" and out["max_score"] == 4
    assert list(out["students"]) == ["bo", "ana"]  # in the order asked; the absent one left out
    assert out["students"]["ana"] == {
        "score": 4,
        "max_score": 4,
        "questions": {"q": {"score": 4}},
        "sandbox": "bwrap",
        "seconds": 1.5,
        "sandbox_cpu_seconds": 0.7,
        "late": False,
        "flag": None,
        "flag_reason": "",
    }  # no empty error / flags / submitted_at keys; late and flag always there
    bo = out["students"]["bo"]
    assert (bo["error"], bo["flags"], bo["submitted_at"]) == ("not a notebook", ["custom __eq__"], "2026-01-01")
    assert (bo["late"], bo["flag"], bo["flag_reason"]) == (True, "unreadable", "not a notebook")
