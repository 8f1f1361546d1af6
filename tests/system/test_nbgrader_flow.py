"""The whole course workflow on nbgrader's own command line and exchange, with our grader in it.

instructor: generate_assignment -> release_assignment; student: fetch_assignment -> solve ->
submit; instructor: collect -> `autograder grade --db` (the course's gradebook) -> nbgrader
export reads the scores back -> our feedback page goes through release_feedback; student:
fetch_feedback receives it.

The feedback page is ours, not `nbgrader generate_feedback`'s: that needs `nbgrader autograde`
output, i.e. running the student's notebook with the tests inside the student's process —
exactly what this grader avoids. The page is placed where generate_feedback would put it
(feedback/<student>/<ps>/<notebook>.html beside the submission's timestamp and secret).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.releasing.sample_submissions import solution_sources
from autograder.releasing.stages import STAGES, ReleaseContext

BIN = Path(sys.executable).parent
COURSE_ID = "transformers101"
STUDENT = "alice"


def nbgrader(*args, cwd, env):
    r = subprocess.run([str(BIN / "nbgrader"), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r.stdout + r.stderr


def write_config(folder: Path, **settings) -> None:
    lines = ["c = get_config()"] + [f"c.{key.replace('__', '.')} = {value!r}" for key, value in settings.items()]
    (folder / "nbgrader_config.py").write_text("\n".join(lines) + "\n")


@pytest.fixture
def course(tmp_path, ps1):
    if not (BIN / "nbgrader").exists():
        pytest.fail(f"nbgrader is not installed beside {sys.executable}")
    course, exchange, student, home = (tmp_path / n for n in ("course", "exchange", "student", "home"))
    for d in (course, exchange, student, home):
        d.mkdir()
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(home / ".jupyter"),
        "JUPYTER_DATA_DIR": str(home / ".local/share/jupyter"),
    }
    env.pop("JUPYTERHUB_USER", None)
    write_config(
        course,
        CourseDirectory__root=str(course),
        CourseDirectory__course_id=COURSE_ID,
        Exchange__root=str(exchange),
        # the student's commands run as this same OS user here; on a real hub they match
        ExchangeCollect__check_owner=False,
    )
    write_config(student, CourseDirectory__course_id=COURSE_ID, Exchange__root=str(exchange))
    # the instructor's source: what `autograder release` hands nbgrader's generate_assignment
    # (every release stage before it: the notebook, its helpers, the students' commands, the
    # worked visible checks)
    ctx = ReleaseContext(ps1, course)
    for name, stage in STAGES:
        if name == "nbgrader_generate":
            break
        stage(ctx)
    return course, student, env


def solve(notebook: Path, assignment) -> int:
    """What the student types: every solution cell gets the instructor's solution."""
    answers = solution_sources(assignment)
    nb = nbformat.read(notebook, as_version=4)
    filled = 0
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution") and meta.get("grade_id") in answers:
            cell.source = answers[meta["grade_id"]]
            filled += 1
    nbformat.write(nb, notebook)
    return filled


def test_release_submit_collect_grade_feedback(course, ps1, tmp_path):
    course, student, env = course
    ps = ps1.name

    nbgrader("generate_assignment", ps, cwd=course, env=env)
    released = course / "release" / ps / ps1.notebook
    assert "### BEGIN SOLUTION" not in released.read_text()
    nbgrader("release_assignment", ps, cwd=course, env=env)

    nbgrader("fetch_assignment", ps, "--student", STUDENT, cwd=student, env=env)
    fetched = student / ps / ps1.notebook
    assert fetched.read_text() == released.read_text()
    assert solve(fetched, ps1) > 0
    nbgrader("submit", ps, "--student", STUDENT, cwd=student, env=env)

    log = nbgrader("collect", ps, cwd=course, env=env)
    assert "cheating attempt" not in log
    submitted = course / "submitted" / STUDENT / ps
    assert (submitted / ps1.notebook).is_file() and (submitted / "submission_secret.txt").is_file()

    out = tmp_path / "graded"
    db = f"sqlite:///{course / 'gradebook.db'}"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            "ps1",
            str(course / "submitted"),
            "--out",
            str(out),
            "--db",
            db,
            "--quiet",
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    results = json.loads((out / "results.json").read_text())
    rec = results["students"][STUDENT]
    assert rec["score"] == rec["max_score"] == ps1.max_score
    assert all(q["status"] in ("passed", "pending") for q in rec["questions"].values())  # pending: by hand
    assert not rec.get("flags")  # the course's own release matches release/: nothing tampered

    # the course's gradebook (the one formgrader shows) has our scores; its maximum also
    # counts the hand-graded paragraph, still waiting in formgrader's queue
    from nbgrader.api import Gradebook

    with Gradebook(db, COURSE_ID) as gb:
        (submission,) = gb.assignment_submissions(ps)
        assert submission.student.id == STUDENT and submission.score == ps1.max_score
        assert submission.max_score > ps1.max_score and submission.needs_manual_grade
        # the submission time nbgrader collect recorded, for formgrader and late penalties
        from nbgrader.utils import parse_utc

        assert rec["submitted_at"] == (submitted / "timestamp.txt").read_text().strip()
        assert submission.timestamp == parse_utc(rec["submitted_at"])

    # our feedback page, released through nbgrader's exchange and fetched by the student
    feedback = course / "feedback" / STUDENT / ps
    feedback.mkdir(parents=True)
    shutil.copy(out / "feedback" / f"{STUDENT}.html", feedback / f"{Path(ps1.notebook).stem}.html")
    for name in ("timestamp.txt", "submission_secret.txt"):
        shutil.copy(submitted / name, feedback / name)
    nbgrader("release_feedback", ps, cwd=course, env=env)
    nbgrader("fetch_feedback", ps, "--student", STUDENT, cwd=student, env=env)
    received = sorted((student / ps / "feedback").glob(f"*/{Path(ps1.notebook).stem}.html"))
    assert len(received) == 1
    assert received[0].parent.name == (submitted / "timestamp.txt").read_text().strip()
    page = received[0].read_text(encoding="utf-8")
    assert f"{ps1.max_score:g} / {ps1.max_score:g}" in page and STUDENT in page
