"""The gradebook on a real PostgreSQL server, started and stopped by this test.

Debian's `postgresql` package (scripts/ci-system-deps) provides the binaries; the server runs
from a throw-away data directory on a free port of 127.0.0.1, as an unprivileged user (the
server refuses to run as root), with trust authentication for local connections only.
"""

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

from autograder.outputs.gradebook import record_results

DB_NAME = "gradebook"


def needed(ok: bool, reason: str) -> None:
    """Missing tooling skips a developer's run, but fails under CI."""
    if ok:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must have it: scripts/ci-system-deps, pip install -e .[test])")
    pytest.skip(reason)


def postgres_bin() -> Path | None:
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
    )
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def server_user() -> str | None:
    """Who runs the server: ourselves, or (as root) the `postgres` account, created if absent."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "autograder-pg"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    subprocess.run(
        ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "autograder-pg"], check=True
    )
    return "autograder-pg"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def postgres_url():
    bindir = postgres_bin()
    needed(bindir is not None, "PostgreSQL server binaries (initdb, pg_ctl) not found")
    try:
        import psycopg2  # noqa: F401  (the driver behind postgresql+psycopg2:// URLs)
    except ImportError:
        needed(False, "psycopg2 is not installed (pip install -e .[test])")
    user = server_user()
    as_user = ["runuser", "-u", user, "--"] if user else []
    # not under pytest's tmp_path: that is private to root and the server user must reach it
    root = Path(tempfile.mkdtemp(prefix="autograder-pg-"))
    data, log = root / "data", root / "server.log"
    if user:
        shutil.chown(root, user)
    port = free_port()
    started = False
    try:
        subprocess.run(
            [
                *as_user,
                str(bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        r = subprocess.run(
            [
                *as_user,
                str(bindir / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(log),
                "-w",
                "-t",
                "60",
                "-o",
                f"-p {port} -c listen_addresses=127.0.0.1 -k {root} -c fsync=off",
                "start",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        started = r.returncode == 0
        assert started, f"pg_ctl start failed: {r.stdout}{r.stderr}\n{log.read_text() if log.exists() else ''}"
        r = subprocess.run(
            [str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", DB_NAME],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 0, r.stderr
        yield f"postgresql+psycopg2://postgres@127.0.0.1:{port}/{DB_NAME}"
    finally:
        if started:
            subprocess.run(
                [*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
                capture_output=True,
                timeout=120,
            )
        shutil.rmtree(root, ignore_errors=True)


def test_results_recorded_in_postgres_gradebook(ps1, demo_results, postgres_url):
    from nbgrader.api import Gradebook

    # PostgreSQL enforces the assignment -> course foreign key that SQLite ignores: this failed
    # until release.nbgrader_generate set CourseDirectory.course_id.
    n = record_results(ps1, demo_results, postgres_url)
    blank = sum(
        r["questions"]["attention_paragraph"]["status"] == "unanswered" for r in demo_results["students"].values()
    )
    assert n == len(demo_results["students"]) * len(ps1.questions) + blank  # a paragraph left as released: 0
    record_results(ps1, demo_results, postgres_url)  # again: updates, never duplicates
    with Gradebook(postgres_url) as gb:
        assert gb.db.bind.dialect.name == "postgresql"
        subs = {s.student.id: s for s in gb.assignment_submissions(ps1.name)}
        assert set(subs) == set(demo_results["students"])
        assert len(gb.students) == len(demo_results["students"])
        for student, rec in demo_results["students"].items():
            assert subs[student].score == rec["score"]
            for grade_id, q in rec["questions"].items():
                if q["status"] == "pending":
                    continue  # hand-graded: left to the grader
                grade = gb.find_grade(grade_id, Path(ps1.notebook).stem, ps1.name, student)
                assert grade.auto_score == q["score"] and grade.max_score == q["max_score"]
    scores = {s: r["score"] for s, r in demo_results["students"].items()}
    assert scores["alice"] == ps1.max_score and scores["dave"] == 0  # the cohort is not uniform
