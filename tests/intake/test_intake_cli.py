"""`autograder grade` on an LMS export, end to end: intake, Canvas CSV out, gradebook, exit codes."""

from __future__ import annotations

import csv
import json
import zipfile

import nbformat
import pytest

from autograder.cli.main import main
from autograder.releasing.sample_submissions import make_notebook


@pytest.fixture(scope="module")
def canvas_zip(ps1, tmp_path_factory):
    root = tmp_path_factory.mktemp("canvas")
    with zipfile.ZipFile(root / "submissions.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("smith_john_12345_67890_ps1_attention.ipynb", nbformat.writes(make_notebook(ps1)))
        z.writestr("late_doe_jane_222_333_ps1_attention-1.ipynb", nbformat.writes(make_notebook(ps1, solved=False)))
    return root / "submissions.zip"


def test_canvas_zip_in_canvas_csv_and_gradebook_out(ps1, canvas_zip, tmp_path, monkeypatch, capsys):
    from nbgrader.api import Gradebook

    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.course_id = 'transformers101'\n", encoding="utf-8"
    )
    monkeypatch.chdir(course)
    rc = main(
        [
            "grade",
            "ps1",
            str(canvas_zip),
            "--out",
            "out",
            "--workers",
            "1",
            "--quiet",
            "--canvas",
            "canvas.csv",
            "--canvas-column",
            "PS1 attention (4567)",
            "--db",
            "sqlite:///gradebook.db",
        ]
    )
    err = capsys.readouterr().err
    assert rc == 0, err
    assert "intake: canvas, 2 submissions" in err
    results = json.loads((course / "out/results.json").read_text())
    assert {s: r["score"] for s, r in results["students"].items()} == {"12345": ps1.max_score, "222": 0.0}

    rows = list(csv.reader(open(course / "canvas.csv", newline="")))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "PS1 attention (4567)"]
    full = f"{ps1.max_score:g}"  # the autograded total after `grade` (hand-graded points come with final-grades)
    assert rows[1][0].strip() == "Points Possible" and rows[1][5] == full
    assert {r[1]: r[5] for r in rows[2:]} == {"12345": full, "222": "0"}

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "transformers101") as gb:
        assert gb.find_assignment("ps1_attention").course_id == "transformers101"
        assert sorted(s.id for s in gb.students) == ["12345", "222"]
        assert gb.find_submission("ps1_attention", "12345").score == ps1.max_score
    assert (course / "autograded/12345/ps1_attention/ps1_attention.ipynb").is_file()

    # the same export plus a notebook nobody can be matched to: graded, said, exit 2
    with_stray = tmp_path / "stray.zip"
    with zipfile.ZipFile(canvas_zip) as src, zipfile.ZipFile(with_stray, "w") as z:
        for info in src.infolist():
            z.writestr(info, src.read(info))
        z.writestr("final_version.ipynb", nbformat.writes(make_notebook(ps1)))
    rc = main(["grade", "ps1", str(with_stray), "--out", "out", "--workers", "1", "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and "1 entries were not matched" in err and "final_version.ipynb" in err
    assert set(json.loads((course / "out/results.json").read_text())["students"]) == {"12345", "222"}


def test_course_root_and_empty_folders_exit_2_and_create_nobody(ps1, tmp_path, monkeypatch, capsys):
    from nbgrader.api import Gradebook

    course = tmp_path / "course"
    for sub in ("source", "release"):
        path = course / sub / "ps1_attention" / "ps1_attention.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(make_notebook(ps1), path)
    (course / "submitted").mkdir()
    db = tmp_path / "gb.db"
    rc = main(["grade", "ps1", str(course), "--out", str(tmp_path / "out"), "--db", str(db), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and "course directory" in err and "submitted" in err
    assert not db.exists() or not Gradebook(f"sqlite:///{db}").students
    (tmp_path / "flat").mkdir()
    assert main(["grade", "ps1", str(tmp_path / "flat"), "--out", str(tmp_path / "out2"), "--quiet"]) == 2
    assert "no submissions recognised" in capsys.readouterr().err
    assert not (tmp_path / "out2" / "results.json").exists()
