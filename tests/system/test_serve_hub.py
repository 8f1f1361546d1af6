"""`autograder serve` as a JupyterHub managed service, on a real JupyterHub.

A real Hub (the `jupyterhub` package) with its real proxy (`configurable-http-proxy`, npm) runs
on loopback with free ports, DummyAuthenticator and examples/jupyterhub/jupyterhub_config.py as
it stands (settings through its environment variables), in a course started with `autograder
init` and released; the Hub starts `autograder serve` itself. Each user logs in as a browser does
(the Hub's login form), reaches the service through the proxy and the Hub's OAuth, and:

* alice uploads her notebook with the service's form and lands on her feedback page, scored;
* bob is refused alice's feedback page and her submission's JSON (403), and submits his own
  through the API with a Hub API token (what a script or a notebook server sends);
* prof, an instructor only through the Hub group formgrade-<course>, sees the queue; bob does not;
* an upload over the size limit is a 413 that says the limit (JSON for bob's token, an HTML page
  for alice's browser), a file that is no notebook a 400, through the Hub's proxy as standalone;
* one hand-in of record (issue 34): carol hands in with `nbgrader submit` and reads the kit's
  feedback through `nbgrader fetch_feedback` (the Assignments tab's Fetch Feedback); alice's upload
  through the service's form is an nbgrader submission that `nbgrader collect` takes and
  `autograder grade` grades as the service did (nbgrader's own exchange classes, run in-process: the CLIs'
  interpreter starts cost seconds); Chromium screenshots of alice's and carol's feedback pages.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import pytest
from test_formgrader import chromium_or_skip

from autograder.serve.bench import free_port
from autograder.spec import REPO_ROOT

pytestmark = pytest.mark.system
EXAMPLE = REPO_ROOT / "examples" / "jupyterhub" / "jupyterhub_config.py"
COURSE = "transformers101"
ADMIN_TOKEN = uuid.uuid4().hex + uuid.uuid4().hex


def need(tool: str, how: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{tool} is missing ({how}; CI installs it: ./dev test)")
    pytest.skip(f"{tool} is missing ({how})")


@pytest.fixture
def hub(tmp_path):
    try:
        import jupyterhub  # noqa: F401
    except ImportError:
        need("jupyterhub", "pip install -e .[test]")
    if shutil.which("configurable-http-proxy") is None:
        need("configurable-http-proxy", "npm install -g configurable-http-proxy, or scripts/ci-system-deps")
    port, hub_port, proxy_api = free_port(), free_port(), free_port()
    (tmp_path / "exchange" / COURSE / "inbound").mkdir(parents=True)
    from autograder.cli.main import main

    course_root = tmp_path / COURSE  # the course as an instructor starts it: init, then release
    assert main(["init", str(course_root), "--course-id", COURSE]) == 0
    assert main(["release", "--course", str(course_root), "ps1"]) == 0
    config = tmp_path / "jupyterhub_config.py"
    config.write_text(f"""
c = get_config()
load_subconfig({str(EXAMPLE)!r})
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api}"
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
c.JupyterHub.db_url = "sqlite:///{tmp_path / "jupyterhub.sqlite"}"
c.JupyterHub.cookie_secret_file = "{tmp_path / "cookie_secret"}"
c.JupyterHub.pid_file = "{tmp_path / "jupyterhub.pid"}"
# prof is an instructor only as a member of the course's formgrade group
c.JupyterHub.load_groups = {{"formgrade-{COURSE}": {{"users": ["prof"]}}}}
# a test-only service whose token creates bob's API token
c.JupyterHub.services.append({{"name": "test-admin", "api_token": "{ADMIN_TOKEN}"}})
c.JupyterHub.load_roles.append({{"name": "test-admin", "scopes": ["admin:users", "tokens"],
                                 "services": ["test-admin"]}})
""")
    env = {
        **os.environ,
        "COURSE_ID": COURSE,
        "COURSE_ROOT": str(course_root),
        "AUTOGRADER_STATE": str(tmp_path / "state"),
        "NBGRADER_EXCHANGE": str(tmp_path / "exchange"),
        "AUTOGRADER_INSTRUCTORS": "instructor1",
        "AUTOGRADER_SERVICE_PORT": str(free_port()),
        "AUTOGRADER_PROBLEM_SETS": "ps1",
        "AUTOGRADER_RATE": "5/h",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    log = open(tmp_path / "hub.log", "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterhub", "-f", str(config)],
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"

    def hub_log() -> str:
        return (tmp_path / "hub.log").read_text(errors="replace")[-6000:]

    try:
        deadline = time.monotonic() + 240
        while True:  # the service answers through the proxy once the Hub has started it and it is warm
            assert proc.poll() is None, f"jupyterhub exited:\n{hub_log()}"
            try:
                with urllib.request.urlopen(f"{base}/services/autograder/health", timeout=5) as r:
                    if json.loads(r.read()).get("ready"):
                        break
            except (OSError, ValueError):
                pass
            assert time.monotonic() < deadline, f"the service did not come up through the Hub:\n{hub_log()}"
            time.sleep(0.5)
        yield base, hub_log
    finally:
        proc.send_signal(signal.SIGTERM)  # the Hub stops its services and its proxy
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


class Browser:
    """A cookie jar and redirects, as a browser has; responses as (status, final URL, text)."""

    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def open(self, path: str, data: bytes | None = None, headers: dict | None = None):
        req = urllib.request.Request(self.base + path, data=data, headers=headers or {})
        try:
            with self.opener.open(req, timeout=120) as r:
                return r.status, r.geturl(), r.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as exc:
            return exc.code, exc.geturl(), exc.read().decode("utf-8", "replace")

    def login(self, user: str) -> None:
        _, _, page = self.open("/hub/login")
        xsrf = re.search(r'name="_xsrf"\s+value="([^"]+)"', page).group(1)
        form = urllib.parse.urlencode({"username": user, "password": "any", "_xsrf": xsrf}).encode()
        status, url, page = self.open("/hub/login?next=" + urllib.parse.quote("/services/autograder/"), form)
        assert status == 200 and url.startswith(self.base + "/services/autograder/"), (status, url, page[:500])
        assert f"Grading — {user}" in page  # through the Hub's OAuth, back on the service's page


def multipart(fields: dict[str, str], filename: str, content: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="notebook"; filename="{filename}"\r\n'
        f"Content-Type: application/x-ipynb+json\r\n\r\n".encode()
        + content
        + b"\r\n"
    )
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def exchange_step(step: str, home: Path, exchange: Path, assignment: str, **course) -> None:
    """What `nbgrader submit`, `fetch_feedback` or `collect` (the Assignments tab's buttons, the
    instructor's command) run: nbgrader's exchange class, here in this process."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import default
    from traitlets.config import Config

    from autograder.releasing.stages import alembic_on_path

    alembic_on_path()  # collect creates the course's gradebook, which runs alembic
    c = Config()
    c.CourseDirectory.update(course_id=COURSE, assignment_id=assignment, root=str(home), **course)
    c.Exchange.update(root=str(exchange), cache=str(home / "nbgrader_cache"), assignment_dir=str(home))
    coursedir = CourseDirectory(config=c)
    getattr(default, step)(coursedir=coursedir, authenticator=Authenticator(config=c), config=c).start()


def test_students_submit_and_read_only_their_own_feedback_through_jupyterhub(hub, ps1, tmp_path):
    import nbformat

    from autograder.releasing.sample_submissions import make_notebook

    base, hub_log = hub
    notebook = nbformat.writes(make_notebook(ps1)).encode()

    alice = Browser(base)
    alice.login("alice")
    _, _, home = alice.open("/services/autograder/")
    form = re.search(r'<form method="post" action="([^"]+)".*?name="_xsrf" value="([^"]+)"', home)
    action, xsrf = form.group(1).replace("&amp;", "&"), form.group(2)
    assert action.startswith("/services/autograder/api/submit/ps1_attention")
    forged, ctype = multipart({}, ps1.notebook, notebook)  # another site's form: the cookie, no XSRF token
    assert alice.open(action, forged, {"Content-Type": ctype})[0] == 403
    body, ctype = multipart({"_xsrf": xsrf}, ps1.notebook, notebook)
    started = time.monotonic()
    status, url, page = alice.open(action, body, {"Content-Type": ctype})
    took = time.monotonic() - started
    assert status == 200, (status, url, page[:1000], hub_log())
    assert re.search(r"/services/autograder/feedback/\d+$", url), url
    assert "feedback for alice" in page and f"{ps1.max_score:g}" in page, page[:2000]
    feedback_path = urllib.parse.urlparse(url).path
    print(f"alice: upload to feedback page through the Hub in {took:.2f} s")

    # no cookie, no token: the service's API refuses; its pages send the browser to the Hub's login
    assert Browser(base).open(feedback_path.replace("/feedback/", "/api/submissions/"))[0] == 403

    bob = Browser(base)
    bob.login("bob")
    status, _, page = bob.open(feedback_path)
    assert status == 403 and "not yours" in page and "alice" not in page
    assert bob.open(feedback_path.replace("/feedback/", "/api/submissions/"))[0] == 403
    assert bob.open("/services/autograder/instructor")[0] == 403

    # bob's own submission with a Hub API token, as a script or his notebook server sends it
    req = urllib.request.Request(
        f"{base}/hub/api/users/bob/tokens", method="POST", data=b"{}", headers={"Authorization": f"token {ADMIN_TOKEN}"}
    )
    with urllib.request.urlopen(req, timeout=60) as r:
        bob_token = json.loads(r.read())["token"]
    req = urllib.request.Request(
        f"{base}/services/autograder/api/submit/ps1?wait=120",
        data=notebook,
        headers={"Authorization": f"token {bob_token}"},
    )
    with urllib.request.urlopen(req, timeout=180) as r:
        mine = json.loads(r.read())
    assert mine["student"] == "bob" and mine["state"] == "done" and mine["score"] == ps1.max_score
    # ... and with his token he still cannot read alice's
    req = urllib.request.Request(
        base + feedback_path.replace("/feedback/", "/api/submissions/"), headers={"Authorization": f"token {bob_token}"}
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(req, timeout=60)
    assert refused.value.code == 403

    # refusals say why through the proxy too: a 50 MB upload is a 413 naming the limit (not the
    # Hub's "503 ... Your server appears to be down"), a file that is no notebook a 400
    for data, status, words in (
        (b"x" * (50 << 20), 413, "at most 16 MB"),
        (json.dumps({"answer": 42}).encode(), 400, "not a Jupyter notebook"),
    ):
        req = urllib.request.Request(
            f"{base}/services/autograder/api/submit/ps1", data=data, headers={"Authorization": f"token {bob_token}"}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(req, timeout=180)
        said = json.loads(refused.value.read())
        assert refused.value.code == status and words in said["error"], (refused.value.code, said, hub_log()[-2000:])
    huge, ctype = multipart({"_xsrf": xsrf}, ps1.notebook, b"x" * (50 << 20))  # alice's browser: an HTML page
    status, _, page = alice.open(action, huge, {"Content-Type": ctype, "Accept": "text/html"})
    assert status == 413 and "at most 16 MB" in page and "<html" in page, (status, page[:500])

    prof = Browser(base)
    prof.login("prof")
    status, _, page = prof.open("/services/autograder/instructor")
    assert status == 200 and "alice" in page and "bob" in page, page[:2000]
    assert prof.open(feedback_path)[0] == 200

    # one hand-in of record: carol with nbgrader (the Assignments tab's Submit, then Fetch Feedback)
    from autograder.intake.collect import collect_folder
    from autograder.releasing.stages import released_notebook

    exchange = tmp_path / "exchange"
    shutil.copytree(released_notebook(ps1).parent, exchange / COURSE / "outbound" / ps1.name)
    carol = tmp_path / "carol"
    (carol / ps1.name).mkdir(parents=True)
    (carol / ps1.name / ps1.notebook).write_bytes(notebook)
    exchange_step("ExchangeSubmit", carol, exchange, ps1.name, student_id="carol")
    deadline = time.monotonic() + 120
    while len(list((exchange / COURSE / "feedback").glob("*.html"))) < 3:  # alice's, bob's and carol's
        assert time.monotonic() < deadline, f"no feedback published for carol:\n{hub_log()}"
        time.sleep(0.2)
    exchange_step("ExchangeFetchFeedback", carol, exchange, ps1.name, student_id="carol")
    (fetched,) = (carol / ps1.name / "feedback").glob("*/*.html")
    mine = fetched.read_text()
    assert "feedback for carol" in mine and f"/ {ps1.max_score:g}" in mine and "latest hand-in" in mine
    assert 'href="/services/autograder/"' in mine  # the way back to all her submissions

    # alice's upload through the form is an nbgrader submission too: collected, then graded
    course_dir = tmp_path / "course"
    course_dir.mkdir()
    exchange_step("ExchangeCollect", course_dir, exchange, ps1.name)
    collected = {sub.student: sub for sub in collect_folder(course_dir / "submitted", ps1)}
    assert {"alice", "bob", "carol"} <= set(collected) and collected["alice"].notebook.read_bytes() == notebook
    from autograder.cli.main import main

    only_alice = tmp_path / "to_grade"
    shutil.copytree(course_dir / "submitted" / "alice", only_alice / "alice")
    graded = tmp_path / "graded"
    assert main(["grade", "ps1", str(only_alice), "--out", str(graded), "--quiet", "--workers", "1"]) == 0
    alice_graded = json.loads((graded / "results.json").read_text())["students"]["alice"]
    assert alice_graded["score"] == ps1.max_score and not alice_graded.get("flags"), alice_graded.get("flags")

    # what the students saw, in Chromium: alice's page after her upload, carol's fetched feedback
    (tmp_path / "alice.html").write_text(page)
    browser = chromium_or_skip()
    for name, shown in (("alice", tmp_path / "alice.html"), ("carol", fetched)):
        shot = tmp_path / f"{name}-feedback.png"
        r = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--window-size=1000,1400",
             f"--user-data-dir={tmp_path / 'chromium'}", f"--screenshot={shot}", shown.as_uri()],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert r.returncode == 0 and shot.stat().st_size > 10_000, r.stderr[-2000:]
        if os.environ.get("AUTOGRADER_SCREENSHOTS"):
            shutil.copy(shot, Path(os.environ["AUTOGRADER_SCREENSHOTS"]) / shot.name)
