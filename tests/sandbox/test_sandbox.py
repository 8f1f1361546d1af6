"""The sandbox's workers themselves: a warm worker that dies between submissions is replaced,
and the sandbox's mounts keep the worker's own Python visible. What hostile or broken
submissions get (cheats, crashes, resources, the host's files and network) is the catalogue:
tests/sandbox/test_catalogue.py."""

from autograder.releasing.sample_submissions import make_notebook, write_submission


def test_a_dead_worker_is_replaced(ps1, tmp_path):
    from autograder.grading.submission import grade_one
    from autograder.intake.submission import Submission
    from autograder.sandbox.pool import SandboxConfig, Worker

    path = write_submission(tmp_path, "x", ps1, make_notebook(ps1))
    worker = Worker(0, SandboxConfig())
    try:
        assert grade_one(worker, ps1, Submission("x", path))["score"] == ps1.max_score
        worker._proc.kill()  # the warm worker itself dies between submissions
        worker._proc.wait()
        assert grade_one(worker, ps1, Submission("x", path))["score"] == ps1.max_score
        assert worker.restarts == 1
    finally:
        worker.stop()


def test_python_under_tmp_is_not_hidden_by_the_sandbox_tmpfs(monkeypatch):
    """bwrap mounts in order: a venv under /tmp (a scratch clone) must be bound after the
    fresh /tmp, or the worker cannot find its own Python."""
    from autograder.sandbox import pool

    monkeypatch.setattr(pool.sys, "prefix", "/tmp/clone/.venv")
    cmd = pool.bwrap_command(1)
    assert cmd.index("/tmp/clone/.venv") > cmd.index("--tmpfs")
