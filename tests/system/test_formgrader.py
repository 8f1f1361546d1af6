"""formgrader itself, in headless Chromium, on a gradebook written by `record_results`: its
manual-grading view asks for the hand-graded cell only, and shows the autograded scores.

A real `jupyter server` with nbgrader's formgrader extension runs on loopback with a token in a
temporary course directory; the page is loaded by Chromium (its JavaScript fills the scores in
from formgrader's /formgrader/api/grades), read back with --dump-dom and screenshotted. The
same facts are checked through the JSON endpoints the page calls.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from autograder.outputs.gradebook import record_results
from autograder.releasing.sample_submissions import make_notebook, write_submission

pytestmark = pytest.mark.system
BIN = Path(sys.executable).parent
WRONG = {"alice": set(), "bob": {"sdpa", "shapes"}}  # bob's autograded misses


def chromium_or_skip() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed (CI must have it: scripts/ci-system-deps)")
    pytest.skip("chromium not found (install Debian's `chromium`, or run scripts/ci-system-deps)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def results_for(ps1) -> dict:
    students = {}
    for student, wrong in WRONG.items():
        qs = {
            q.grade_id: {
                "score": 0.0 if q.grade_id in wrong else float(q.points),
                "max_score": float(q.points),
                "status": "failed" if q.grade_id in wrong else "passed",
                "feedback": "",
            }
            for q in ps1.questions
        }
        students[student] = {"score": sum(q["score"] for q in qs.values()), "max_score": ps1.max_score, "questions": qs}
    return {"assignment": ps1.name, "students": students}


@pytest.fixture
def formgrader(ps1, tmp_path, monkeypatch):
    chromium = chromium_or_skip()
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        "c.CourseDirectory.course_id = 'transformers101'\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        f"c.CourseDirectory.db_url = 'sqlite:///{course}/gradebook.db'\n"
        f"c.Exchange.root = {str(tmp_path / 'exchange')!r}\n",
        encoding="utf-8",
    )
    notebooks = {s: write_submission(tmp_path / "submitted", s, ps1, make_notebook(ps1)) for s in WRONG}
    monkeypatch.chdir(course)  # the course config is found where formgrader finds it
    record_results(ps1, results_for(ps1), "sqlite:///gradebook.db", notebooks=notebooks)
    with formgrader_server(course, tmp_path, chromium) as fg:
        yield fg


@contextlib.contextmanager
def formgrader_server(course: Path, tmp_path: Path, browser: str, env: dict | None = None):
    """A jupyter server with formgrader on loopback in ``course`` (its nbgrader_config.py is the
    course's), token-protected; yields what :func:`api` and :func:`chromium` need."""
    token, port = secrets.token_hex(16), free_port()
    server_config = tmp_path / "jupyter_server_config.py"
    server_config.write_text(
        "c = get_config()\n"
        f"c.IdentityProvider.token = {token!r}\n"
        "c.IdentityProvider.cookie_options = {'path': '/'}  # the page's API calls carry the login\n"
        f"c.ServerApp.ip = '127.0.0.1'\nc.ServerApp.port = {port}\nc.ServerApp.port_retries = 0\n"
        "c.ServerApp.open_browser = False\nc.ServerApp.allow_root = True\n"
        f"c.ServerApp.root_dir = {str(course)!r}\n"
        "c.ServerApp.jpserver_extensions = {'nbgrader.server_extensions.formgrader': True}\n",
        encoding="utf-8",
    )
    env = {
        **(env or os.environ),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "PATH": f"{BIN}:{os.environ['PATH']}",
    }
    log = open(tmp_path / "server.log", "w")
    server = subprocess.Popen(
        [str(BIN / "jupyter"), "server", f"--config={server_config}"],
        cwd=course,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                api(base, token, "/api/status")
                break
            except (urllib.error.URLError, ConnectionError):
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("jupyter server did not start:\n" + (tmp_path / "server.log").read_text()[-3000:])
                time.sleep(0.5)
        yield {"base": base, "token": token, "chromium": browser, "tmp": tmp_path, "course": course}
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def api(base: str, token: str, path: str, *, put: dict | None = None):
    """formgrader's (or the server's) JSON API; ``put``: the body of a PUT, as formgrader's page
    sends a grader's score or comment."""
    data = None if put is None else json.dumps(put).encode()
    req = urllib.request.Request(
        base + path,
        data=data,
        method="GET" if put is None else "PUT",
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def chromium(fg, url: str, *args: str) -> subprocess.CompletedProcess:
    cmd = [
        fg["chromium"],
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-sync",
        "--disable-background-networking",
        "--disable-component-update",
        "--window-size=1200,1600",
        f"--user-data-dir={fg['tmp'] / 'chromium-profile'}",
        "--virtual-time-budget=15000",
        *args,
        f"{fg['base']}{url}{'&' if '?' in url else '?'}token={fg['token']}",
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def score_inputs(dom: str) -> dict[str, tuple[set[str], str | None]]:
    """grade_id -> (CSS classes, placeholder) of each score box on formgrader's grading page."""
    boxes = {}
    for tag in re.findall(r"<input [^>]*>", dom):
        classes = re.search(r'class="([^"]*)"', tag)
        ident = re.search(r'id="([^"]*)"', tag)
        if classes and ident and "score" in classes.group(1).split():
            placeholder = re.search(r'placeholder="([^"]*)"', tag)
            boxes[ident.group(1)] = (set(classes.group(1).split()), placeholder and placeholder.group(1))
    return boxes


def test_formgrader_queue_holds_only_hand_graded_cells(ps1, formgrader):
    fg = formgrader
    subs = api(fg["base"], fg["token"], "/formgrader/api/submitted_notebooks/ps1_attention/ps1_attention")
    assert {s["student"]: s["code_score"] for s in subs} == {
        s: float(sum(q.points for q in ps1.questions if q.grade_id not in w)) for s, w in WRONG.items()
    }
    assert all(s["needs_manual_grade"] for s in subs)  # the paragraph waits for a grader
    bob = next(s for s in subs if s["student"] == "bob")
    grades = api(fg["base"], fg["token"], f"/formgrader/api/grades?submission_id={bob['id']}")
    assert sorted(g["name"] for g in grades if g["needs_manual_grade"]) == ["attention_paragraph"]
    assert {g["name"]: g["auto_score"] for g in grades if g["name"] != "attention_paragraph"} == {
        q.grade_id: (0.0 if q.grade_id in WRONG["bob"] else float(q.points)) for q in ps1.questions
    }
    (notebook,) = api(fg["base"], fg["token"], "/formgrader/api/notebooks/ps1_attention")
    assert notebook["name"] == "ps1_attention" and notebook["needs_manual_grade"]

    # the manual-grading view, as an instructor opens it
    page = f"/formgrader/submissions/{bob['id']}/"
    r = chromium(fg, page, "--dump-dom")
    assert r.returncode == 0 and "nbgrader_cell" in r.stdout, r.stderr[-2000:]
    boxes = score_inputs(r.stdout)
    assert set(boxes) == {q.grade_id for q in ps1.questions} | {"attention_paragraph"}
    needing = sorted(gid for gid, (classes, _) in boxes.items() if "needs_manual_grade" in classes)
    assert needing == ["attention_paragraph"]
    for q in ps1.questions:  # formgrader's script wrote each autograded score into its box
        expected = 0 if q.grade_id in WRONG["bob"] else q.points
        assert boxes[q.grade_id][1] is not None and float(boxes[q.grade_id][1]) == expected, q.grade_id
    assert boxes["attention_paragraph"][1] in (None, "", "None", "null")

    png = fg["tmp"] / "formgrader.png"
    r = chromium(fg, page, f"--screenshot={png}")
    assert r.returncode == 0 and png.is_file(), r.stderr[-2000:]
    from PIL import Image

    image = np.asarray(Image.open(png).convert("RGB"))
    assert image.shape == (1600, 1200, 3)
    assert (image < 235).any(axis=2).mean() > 0.02  # a rendered page, not a blank or error screen
