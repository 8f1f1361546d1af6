"""The sandbox does not depend on how Python was reached, and a worker that cannot start says why."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.releasing.sample_submissions import make_notebook, write_submission
from autograder.sandbox import pool
from autograder.sandbox.pool import SandboxConfig, Worker, WorkerDied, bwrap_usable
from autograder.spec import load_assignment

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap is not usable here")
def test_grading_through_a_symlinked_venv(tmp_path):
    link = tmp_path / "venv-link"
    link.symlink_to(Path(sys.prefix).resolve(), target_is_directory=True)
    assignment = load_assignment("ps1")
    write_submission(tmp_path / "subs", "linked", assignment, make_notebook(assignment))
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    run = subprocess.run(
        [
            str(link / "bin" / "python"),
            "-m",
            "autograder",
            "grade",
            "ps1",
            str(tmp_path / "subs"),
            "--out",
            str(tmp_path / "out"),
            "--workers",
            "1",
            "--sandbox",
            "bwrap",
            "--quiet",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    student = json.loads((tmp_path / "out" / "results.json").read_text())["students"]["linked"]
    assert student["score"] == student["max_score"] == assignment.max_score
    assert student["sandbox"] == "bwrap"


def test_sandbox_python_resolves_directories_not_the_venv_link(tmp_path, monkeypatch):
    (tmp_path / "real" / "bin").mkdir(parents=True)
    (tmp_path / "real" / "bin" / "python").symlink_to(sys.executable)
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    monkeypatch.setattr(pool.sys, "executable", str(tmp_path / "link" / "bin" / "python"))
    # the directory is resolved (it must exist inside the sandbox); bin/python is kept so the
    # interpreter still finds its venv's pyvenv.cfg
    assert pool.sandbox_python() == str((tmp_path / "real" / "bin").resolve() / "python")


def test_a_worker_that_cannot_start_says_why(monkeypatch):
    config = SandboxConfig(mode="rlimits")
    worker = Worker(0, config)
    real_popen = subprocess.Popen

    def broken(cmd, **kw):  # the harness cannot be imported: Python says so on stderr
        return real_popen([sys.executable, "-c", "import no_such_module_for_the_harness"], **kw)

    monkeypatch.setattr(pool.subprocess, "Popen", broken)
    with pytest.raises(WorkerDied) as err:
        worker.start()
    message = str(err.value)
    assert "did not start" in message and "No module named 'no_such_module_for_the_harness'" in message
    assert "command: " in message and "harness.py" in message
    worker.stop()
