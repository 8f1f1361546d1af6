"""The trust model, exercised: hostile or broken submissions cost only their own points."""

import socket
import threading
from dataclasses import replace

import pytest

from autograder.grading.cohort import grade_cohort
from autograder.releasing.sample_submissions import make_notebook, solution_sources, write_submission


def guarded(secret_path: str) -> str:
    """A cell that earns full marks only if it can read `secret_path` (it must not)."""
    return f"""
try:
    open({secret_path!r}, "rb").read(10)
    CAN_READ = True
except Exception:
    CAN_READ = False

def scaled_dot_product_attention(q, k, v, mask=None):
    if not CAN_READ:
        return q[..., :1] * 0
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.nan_to_num(torch.softmax(scores, -1)) @ v
"""


@pytest.fixture(scope="module")
def cohort(ps1, tmp_path_factory):
    root = tmp_path_factory.mktemp("sandbox")
    gradebook = root / "gradebook.db"
    gradebook.write_bytes(b"SQLite format 3\0 pretend gradebook")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    reached = []
    threading.Thread(target=lambda: reached.append(listener.accept()), daemon=True).start()

    correct = solution_sources(ps1)["sdpa_impl"]
    src = str(ps1.source_dir / ps1.notebook)
    cases = {
        "honest": correct,
        "patches_allclose": "torch.allclose = lambda *a, **k: True\nimport numpy\n"
        "numpy.allclose = lambda *a, **k: True\n"
        "def scaled_dot_product_attention(q, k, v, mask=None):\n"
        "    return torch.zeros(*q.shape[:-1], v.shape[-1])\n",
        "reads_source_abs": guarded(src),
        "reads_source_rel": guarded(f"../../assignments/{ps1.name}/{ps1.notebook}"),
        "reads_gradebook": guarded(str(gradebook)),
        "imports_reference": "from solutions.attention import scaled_dot_product_attention\n",
        "sleeps_forever": "import time\ntime.sleep(10**6)\n" + correct,
        "ignores_alarm": "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nwhile True:\n    pass\n",
        "os_exit_first_cell": "import os\nos._exit(0)\n",
        "allocates_50GB": "x = bytearray(50 * 2**30)\n" + correct,
        "opens_socket": f"import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=2)\n" + correct,
        "segfaults": "import ctypes\nctypes.string_at(0)\n",
        "huge_output": "import sys\nfor _ in range(200):\n    sys.stdout.write('x' * 10**6)\n" + correct,
        "honest_too": correct,
    }
    subs = root / "in"
    for student, cell in cases.items():
        write_submission(subs, student, ps1, make_notebook(ps1, {"sdpa_impl": cell}))
    fast = replace(ps1, cell_timeout_s=2.0)
    results = grade_cohort(fast, subs, root / "out", workers=2, progress=False)
    listener.close()
    return results["students"], reached


def q(students, name):
    return students[name]["questions"]["sdpa"]


def test_honest_submissions_grade_normally(cohort):
    students, _ = cohort
    assert students["honest"]["sandbox"] in ("bwrap", "rlimits")
    assert q(students, "honest")["status"] == "passed"
    assert q(students, "honest_too")["status"] == "passed"


@pytest.mark.parametrize(
    "name", ["patches_allclose", "reads_source_abs", "reads_source_rel", "reads_gradebook", "imports_reference"]
)
def test_cheats_score_zero(cohort, name):
    students, _ = cohort
    assert q(students, name)["score"] == 0


@pytest.mark.parametrize(
    "name,flag",
    [
        ("patches_allclose", "reassigns a checking function"),
        ("reads_source_abs", "private files"),
        ("reads_source_rel", "private files"),
        ("reads_gradebook", "private files"),
        ("imports_reference", "import the grader's reference"),
        ("opens_socket", "network"),
    ],
)
def test_cheats_are_flagged(cohort, name, flag):
    students, _ = cohort
    assert any(flag in f for f in students[name].get("flags", [])), students[name].get("flags")


def test_no_network_out_of_the_sandbox(cohort):
    students, reached = cohort
    assert reached == [], "a sandboxed cell reached a socket on the grader's host"
    res = q(students, "opens_socket")
    assert res["score"] == 0 and res["status"] == "missing"
    assert "sdpa_impl" in res["feedback"] and "Connection refused" in res["feedback"]


@pytest.mark.parametrize(
    "name,words",
    [
        ("sleeps_forever", "more than 2 s"),
        ("ignores_alarm", "time limit"),
        ("os_exit_first_cell", "exit"),
        ("allocates_50GB", "MemoryError"),
        ("segfaults", "SIGSEGV"),
    ],
)
def test_faults_get_a_clear_reason(cohort, name, words):
    students, _ = cohort
    res = q(students, name)
    assert res["score"] == 0 and res["status"] == "missing"
    assert words in res["feedback"], res["feedback"]


def test_huge_output_is_discarded_not_fatal(cohort):
    students, _ = cohort
    assert q(students, "huge_output")["status"] == "passed"  # 200 MB of print() is capped, not an error


def test_a_dead_worker_is_replaced(ps1, tmp_path):
    from autograder.grading.cohort import Submission, grade_one
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
