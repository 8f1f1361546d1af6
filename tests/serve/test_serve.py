"""`autograder serve`: the fair queue, the rate limit, the journal's recovery rule, and a real
service process (standalone, token file, loopback): upload and feedback, who may read what,
every refusal with its message, status and headers (413 saying the limit, 429 with Retry-After,
403 as HTML for a browser and JSON for a script, 404, 400), the instructors' page, a bad token
file refused in one line, `nbgrader submit` picked up from the exchange, and a SIGKILL mid-queue
followed by a restart that loses nothing and grades nothing twice."""

from __future__ import annotations

import http.client
import json
import os
import secrets
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from serve_helpers import notebook_bytes, wait_until

from autograder.serve.bench import Service
from autograder.serve.fairqueue import FairQueue, QueueFull
from autograder.serve.journal import Journal
from autograder.serve.ratelimit import RateLimiter, parse_rate

BIN = Path(sys.executable).parent
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


# ---------------------------------------------------------------- the parts


def test_fair_queue_round_robin_one_running_per_student():
    q = FairQueue(max_total=100, max_per_student=20)
    for i in range(10):
        q.push(100 + i, "burst")  # one student's burst first
    q.push(1, "amy")
    q.push(2, "ben")
    order = []
    for _ in range(3):
        job, student = q.take(timeout=0)
        order.append(job)
        q.done(student)
    assert order == [100, 1, 2]  # the burst's second job waits for the others' turn
    job, student = q.take(timeout=0)
    assert (job, student) == (101, "burst")
    assert q.take(timeout=0) is None  # burst is running: nobody else has work, nothing to take
    q.done("burst")
    assert q.take(timeout=0) == (102, "burst")


def test_fair_queue_a_latecomer_goes_before_a_served_student():
    """Round-robin by position would give the burst its second turn first (it went back into
    line before ben arrived); fewest served first gives ben his first."""
    q = FairQueue(max_total=100, max_per_student=20)
    for i in range(3):
        q.push(100 + i, "burst")
    assert q.take(timeout=0) == (100, "burst")
    q.done("burst")
    q.push(1, "ben")
    assert q.take(timeout=0) == (1, "ben")
    assert q.take(timeout=0) is None  # burst's second turn waits for ben's first to finish
    q.done("ben")
    assert q.take(timeout=0) == (101, "burst")
    q.done("burst")
    q.push(2, "ben")  # ben caught up and comes back: served 0 again, burst has had 2
    assert q.take(timeout=0) == (2, "ben")


def _first_graded_then_second_and_a_classmates_first(q):
    """amy's first is graded before her second arrives; ben's first arrives after her second;
    carl's job keeps the service busy throughout. Returns what a free worker takes next."""
    q.push(1, "amy")
    q.push(9, "carl")
    assert q.take(timeout=0) == (1, "amy")
    assert q.take(timeout=0) == (9, "carl")
    q.done("amy")
    q.push(2, "amy")
    q.push(3, "ben")
    return q.take(timeout=0)


def test_fair_queue_a_second_upload_after_the_first_feedback_is_still_a_second():
    """While the service is busy amy's count stands, so ben's first goes before her second (when
    her count restarted as soon as her own queue was empty, a 200-submission burst had 132 such
    jumps)."""
    assert _first_graded_then_second_and_a_classmates_first(FairQueue()) == (3, "ben")


def test_fair_queue_counts_start_again_when_the_service_caught_up_or_a_student_was_away(monkeypatch):
    from autograder.serve import fairqueue

    q = FairQueue()
    q.push(1, "amy")
    assert q.take(timeout=0) == (1, "amy")
    q.done("amy")  # nothing queued or running: every count starts again
    q.push(2, "amy")
    q.push(3, "ben")
    assert q.take(timeout=0) == (2, "amy")  # both at zero: whose job came first
    monkeypatch.setattr(fairqueue, "STALE_S", 0.0)  # amy away "long enough": her count restarts
    assert _first_graded_then_second_and_a_classmates_first(FairQueue()) == (2, "amy")


def test_fair_queue_holds_a_later_round_only_so_long(monkeypatch):
    """A free worker holds a second submission back while a first one runs (feedback on every
    first comes first), for HOLD_S at most: a straggler does not idle the others for good."""
    from autograder.serve import fairqueue

    monkeypatch.setattr(fairqueue, "HOLD_S", 0.3)
    q = FairQueue()
    q.push(1, "amy")
    q.push(2, "amy")
    q.push(3, "ben")
    assert q.take(timeout=0) == (1, "amy")
    assert q.take(timeout=0) == (3, "ben")
    q.done("amy")
    assert q.take(timeout=0.1) is None  # ben's first still runs: amy's second is held
    started = time.monotonic()
    assert q.take(timeout=5) == (2, "amy")  # ... but not for longer than HOLD_S
    assert 0.1 <= time.monotonic() - started < 2


def test_fair_queue_bounds():
    q = FairQueue(max_total=3, max_per_student=2)
    q.push(1, "a")
    q.push(2, "a")
    with pytest.raises(QueueFull, match="a already has 2"):
        q.push(3, "a")
    q.push(3, "b")
    with pytest.raises(QueueFull, match="full"):
        q.push(4, "c")
    q.push(4, "c", force=True)  # re-queued at start-up: accepted before, never dropped
    assert len(q) == 4


def test_an_upload_is_filed_as_nbgrader_files_a_submission(tmp_path):
    from nbgrader.utils import notebook_hash

    from autograder.serve.handin import HandIn, route

    handin = HandIn(tmp_path / "inbound")
    handin.inbound.mkdir()
    origin, folder, stamp = handin.file("amy", "ps1_attention", "ps1_attention.ipynb", b"{}", 1.7e9)
    assert not (folder / "timestamp.txt").exists()  # incomplete until the journal holds it
    handin.complete(folder, stamp)
    assert folder.name.startswith("amy+ps1_attention+2023-11-14 22:13:20.000000 UTC+upload-")
    assert route(origin) == "the service's upload" and route("exchange:amy+ps1+t+AbC") == "nbgrader submit"
    page = handin.publish_feedback(origin, "ps1_attention.ipynb", "<p>page</p>")
    secret = (folder / "submission_secret.txt").read_text()
    assert page.name == notebook_hash(secret=secret, notebook_id="ps1_attention") + ".html"  # what fetch reads
    _, other, _ = handin.file("amy", "ps1_attention", "ps1_attention.ipynb", b"{}", 1.7e9 + 1)
    handin.withdraw(other)
    assert sorted(p.name for p in handin.inbound.iterdir()) == [folder.name]


def test_rate_limit_sliding_window(tmp_path):
    assert parse_rate("10/h") == (10, 3600.0) and parse_rate("3/min") == (3, 60.0)
    assert parse_rate("5/30m") == (5, 1800.0) and parse_rate("0")[0] == 0
    with pytest.raises(ValueError):
        parse_rate("lots")
    journal = Journal(tmp_path)
    limiter = RateLimiter(journal, 2, 3600)
    for t in (1000.0, 2000.0):
        assert limiter.check("amy", "ps1_attention", t).allowed
        journal.add("amy", "ps1_attention", None, t, f"o{t}")
    refused = limiter.check("amy", "ps1_attention", 2500.0)
    assert not refused.allowed and refused.retry_after == pytest.approx(2100.0)
    assert limiter.check("amy", "ps2_positional", 2500.0).allowed  # per problem set
    assert limiter.check("ben", "ps1_attention", 2500.0).allowed  # per student
    assert limiter.check("amy", "ps1_attention", 4601.0).allowed  # the first left the window


def test_recovery_finishes_stored_work_and_requeues_the_rest(tmp_path, ps1):
    """The rule a restart follows for jobs that were `running` when the service died."""
    from autograder.serve.engine import Engine

    engine = Engine([ps1], tmp_path, workers=1)
    nb = engine.journal.spool_notebook(ps1.notebook, b"{}", 1.0)
    stored = engine.journal.add("amy", ps1.name, nb, 1.0, "a")
    lost = engine.journal.add("ben", ps1.name, nb, 2.0, "b")
    for job in (stored, lost):
        engine.journal.claim(job.id)
    # amy's result reached the store, the crash came before the journal's commit
    engine.stores[ps1.name].save(
        "amy", "key", {"submission_id": stored.id, "score": 3.0, "max_score": 28.0, "questions": {}}
    )
    engine.recover()
    assert engine.journal.get(stored.id).state == "done" and engine.journal.get(stored.id).score == 3.0
    assert engine.journal.get(lost.id).state == "queued"
    assert engine.queue.take(timeout=0) == (lost.id, "ben")
    assert engine.journal.graded_counts() == {stored.id: 1}
    engine.journal.close()


# ---------------------------------------------------------------- a real service


def journal_rows(state: Path) -> dict[int, tuple]:
    with sqlite3.connect(state / "queue.sqlite", timeout=30) as db:
        return {r[0]: r[1:] for r in db.execute("SELECT id, student, state, finished, score FROM jobs")}


def raw_request(service, method: str, path: str, user: str | None, body: bytes | None = None, **headers):
    """One request with the headers given; the status, the response's headers and its text."""
    conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=300)
    try:
        if user:
            headers["Authorization"] = f"token {service.tokens[user]}"
        conn.request(method, path, body=body, headers={k.replace("_", "-"): v for k, v in headers.items()})
        resp = conn.getresponse()
        return resp.status, resp.headers, resp.read().decode("utf-8", "replace")
    finally:
        conn.close()


def test_a_burst_does_not_starve_another_student(tmp_path, ps1):
    """The engine with one warm worker: a student's burst of six, then one from another student,
    whose feedback comes after at most two of the burst's (round-robin), not after all six."""
    from autograder.serve.engine import Engine

    engine = Engine([ps1], tmp_path, workers=1, rate=(0, 3600.0))
    engine.start()
    try:
        assert engine.ready.wait(300), "the worker did not warm up"
        slow = notebook_bytes(ps1, slow_s=0.3)
        burst = [engine.submit("burst", "ps1", slow).id for _ in range(6)]
        amy = engine.submit("amy", "ps1", notebook_bytes(ps1)).id
        wait_until(
            lambda: all(engine.journal.get(i).state == "done" for i in [*burst, amy]), 240, "every submission graded"
        )
        order = sorted([*burst, amy], key=lambda i: engine.journal.get(i).finished)
        assert order.index(amy) <= 2, order
        assert order[: order.index(amy)] + order[order.index(amy) + 1 :] == burst  # a student's own, in order
    finally:
        engine.stop()


@pytest.fixture
def tokens():
    return {u: secrets.token_hex(16) for u in ("amy", "ben", "cat", "prof")}


def test_service_feedback_permissions_limits_and_exchange(tmp_path, ps1, tokens):
    exchange = tmp_path / "exchange"
    course = "transformers101"
    (exchange / course / "inbound").mkdir(parents=True)
    outbound = exchange / course / "outbound" / ps1.name
    from autograder.releasing.stages import released_notebook

    shutil.copytree(released_notebook(ps1).parent, outbound)
    db = f"sqlite:///{tmp_path / 'gradebook.db'}"
    service = Service(
        tmp_path / "state",
        tokens,
        "--rate",
        "2/h",
        "--instructors",
        "prof",
        "--exchange",
        str(exchange),
        "--course-id",
        course,
        "--exchange-poll",
        "0.2",
        "--db",
        db,
    ).start()
    try:  # Fetch Feedback before the first result finds nothing instead of "Assignment not found"
        assert (exchange / course / "feedback").is_dir()
        good, wrong = (
            notebook_bytes(ps1),
            notebook_bytes(ps1, {"sdpa_impl": "def scaled_dot_product_attention(q, k, v, mask=None):\n    return v\n"}),
        )
        status, amy = service.submit("amy", good, wait=120)
        assert status == 200 and amy["state"] == "done" and amy["score"] == ps1.max_score
        status, ben = service.submit("ben", wrong, ps="ps1_attention", wait=120)
        assert status == 200 and ben["score"] < ps1.max_score
        assert ben["questions"]["sdpa"]["status"] == "failed" and ben["questions"]["sdpa"]["feedback"]

        # each reads their own feedback; the other is refused; the instructor reads both
        status, page = service.request("GET", f"/feedback/{amy['id']}", "amy")
        assert status == 200 and "feedback for amy" in page["text"]
        assert service.request("GET", f"/feedback/{amy['id']}", "ben")[0] == 403
        assert service.request("GET", f"/api/submissions/{amy['id']}", "ben")[0] == 403
        assert service.request("GET", f"/feedback/{amy['id']}", None)[0] == 403
        assert service.request("GET", f"/feedback/{ben['id']}", "prof")[0] == 200
        assert [s["id"] for s in service.request("GET", "/api/submissions", "ben")[1]] == [ben["id"]]
        assert service.request("GET", "/api/queue", "amy")[0] == 403
        status, queue = service.request("GET", "/api/queue", "prof")
        assert status == 200 and queue["graded_last_hour"] == 2 and len(queue["recent"]) == 2
        status, _, page = raw_request(service, "GET", "/instructor", "prof")
        assert status == 200 and "Queue empty — 2 results" in page and "No submissions yet" not in page

        # a refusal is an HTML page for a browser, JSON for a script
        status, headers, page = raw_request(service, "GET", f"/feedback/{amy['id']}", "ben", Accept=BROWSER)
        assert status == 403 and headers["Content-Type"].startswith("text/html")
        assert "<html" in page and "this submission is not yours" in page
        status, headers, text = raw_request(service, "GET", f"/api/submissions/{amy['id']}", "ben")
        assert status == 403 and headers["Content-Type"] == "application/json"
        assert json.loads(text) == {"error": "this submission is not yours", "status": 403}
        status, headers, page = raw_request(service, "GET", "/no/such/page", "amy", Accept=BROWSER)
        assert status == 404 and headers["Content-Type"].startswith("text/html") and "no such page" in page
        assert raw_request(service, "GET", "/no/such/page", "amy")[0] == 404

        # the same per-submission store and feedback page as `autograder grade`
        stored = json.loads((tmp_path / "state" / ps1.name / "submissions" / "amy.json").read_text())
        assert stored["record"]["submission_id"] == amy["id"] and stored["record"]["score"] == ps1.max_score
        assert (tmp_path / "state" / ps1.name / "feedback" / "ben.html").is_file()

        # refusals
        assert service.submit("amy", good)[0] in (200, 202)  # the second of two allowed this hour
        status, headers, text = raw_request(service, "POST", "/api/submit/ps1", "amy", good)
        assert status == 429 and "limit 2 per 1 h" in json.loads(text)["error"]
        assert 0 < int(headers["Retry-After"]) <= 3600
        status, headers, page = raw_request(service, "POST", "/api/submit/ps1", "amy", good, Accept=BROWSER)
        assert status == 429 and int(headers["Retry-After"]) > 0 and "limit 2 per 1 h" in page
        assert service.submit("cat", good, ps="ps9")[0] == 404
        assert service.submit("cat", b"not a notebook")[0] == 400
        # 50 MB: read and dropped, then a 413 that says the limit (not tornado's bare 400)
        status, headers, text = raw_request(service, "POST", "/api/submit/ps1", "cat", b"x" * (50 << 20))
        assert status == 413 and "at most 16 MB" in json.loads(text)["error"]
        status, _, page = raw_request(service, "POST", "/api/submit/ps1", "cat", b"x" * (50 << 20), Accept=BROWSER)
        assert status == 413 and "at most 16 MB" in page
        assert service.request("GET", "/health", None)[0] == 200  # and the service is still there
        # the upload form's multipart body, streamed and parsed as tornado would (an instructor: no limit)
        form = (
            b'--B\r\nContent-Disposition: form-data; name="notebook"; filename="ps1.ipynb"\r\n\r\n'
            + good
            + b"\r\n--B--\r\n"
        )
        status, headers, _ = raw_request(
            service,
            "POST",
            "/api/submit/ps1?wait=120&redirect=1",
            "prof",
            form,
            Content_Type="multipart/form-data; boundary=B",
        )
        assert status == 302 and headers["Location"].startswith("/feedback/")

        # `nbgrader submit` lands in the exchange's inbound folder; the service picks it up
        student = tmp_path / "cat-home"
        (student / ps1.name).mkdir(parents=True)
        (student / ps1.name / ps1.notebook).write_bytes(good)
        (student / "nbgrader_config.py").write_text(
            f"c = get_config()\nc.CourseDirectory.course_id = {course!r}\nc.Exchange.root = {str(exchange)!r}\n"
        )
        env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(student)}

        def nbgrader(*args, cwd=student):
            r = subprocess.run([str(BIN / "nbgrader"), *args], cwd=cwd, env=env, capture_output=True, text=True)
            assert r.returncode == 0, r.stdout + r.stderr

        nbgrader("submit", ps1.name, "--student", "cat")
        (inbound,) = (exchange / course / "inbound").glob("cat+*")
        assert inbound.name.startswith(f"cat+{ps1.name}+")
        (job,) = wait_until(
            lambda: service.request("GET", "/api/submissions", "cat")[1], 120, "the exchange submission to be queued"
        )
        status, done = service.request("GET", f"/api/submissions/{job['id']}?wait=120", "cat")
        assert done["state"] == "done" and done["score"] == ps1.max_score
        stored = json.loads((tmp_path / "state" / ps1.name / "submissions" / "cat.json").read_text())
        assert stored["record"]["submitted_at"] == (inbound / "timestamp.txt").read_text().strip()
        assert inbound.is_dir()  # left for `nbgrader collect`
        # ... and its feedback is where the Assignments tab's Fetch Feedback looks for it
        fetch_feedback(student, exchange, course, ps1.name, "cat")
        (fetched,) = (student / ps1.name / "feedback").glob(f"*/{Path(ps1.notebook).stem}.html")
        page = fetched.read_text()
        assert "feedback for cat" in page and "through nbgrader submit" in page and "latest hand-in" in page
        assert 'href="/"' in page  # back to the service's page of all submissions

        # every upload was filed as an nbgrader submission too: one hand-in of record
        filed = sorted(p.name.split("+")[0] for p in (exchange / course / "inbound").iterdir())
        assert filed == ["amy", "amy", "ben", "cat", "prof"], filed  # never the refused ones
        (amy_folder, _) = sorted((exchange / course / "inbound").glob("amy+*"))
        assert {p.name for p in amy_folder.iterdir()} == {ps1.notebook, "timestamp.txt", "submission_secret.txt"}
        status, page = service.request("GET", f"/feedback/{amy['id']}", "amy")
        assert "through the service&#39;s upload" in page["text"] and "this submission no longer counts" in page["text"]
        # (`nbgrader collect` taking them: tests/system/test_serve_hub.py)
    finally:
        assert service.stop() == 0, service.log()[-3000:]
    assert "stopping" in service.log()
    # --db: the latest result of each student in nbgrader's gradebook, as `grade --db` writes it
    from nbgrader.api import Gradebook

    with Gradebook(db, course) as gb:
        scores = {s.student.id: s.score for s in gb.assignment_submissions(ps1.name)}
    assert scores["amy"] == scores["cat"] == ps1.max_score and scores["ben"] < ps1.max_score


def fetch_feedback(home: Path, exchange: Path, course: str, assignment: str, student: str) -> None:
    """`nbgrader fetch_feedback` (the Assignments tab's Fetch Feedback), in this process."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange.default import ExchangeFetchFeedback
    from traitlets.config import Config

    c = Config()
    c.CourseDirectory.update(course_id=course, assignment_id=assignment, student_id=student, root=str(home))
    c.Exchange.update(root=str(exchange), cache=str(home / ".local/share/jupyter/nbgrader_cache"))
    c.Exchange.assignment_dir = str(home)
    ExchangeFetchFeedback(coursedir=CourseDirectory(config=c), authenticator=Authenticator(config=c), config=c).start()


@pytest.mark.parametrize(
    "content, reason",
    [
        ('{"short": "amy"}', "tokens of 16 characters at least (too short for 'amy')"),
        ("not json", "not JSON"),
        ('["a list"]', "expected a JSON object {token: user name}"),
        (None, "cannot read the token file"),
        ('{"0123456789abcdef": "../../../tmp/x"}', "user '../../../tmp/x' holds a path"),
    ],
)
def test_a_bad_token_file_is_one_line_and_exit_2(tmp_path, content, reason):
    token_file = tmp_path / "tokens.json"
    if content is not None:
        token_file.write_text(content)
    r = subprocess.run(
        [sys.executable, "-m", "autograder", "serve", "ps1", "--out", str(tmp_path / "state")]
        + ["--tokens", str(token_file)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith(f"autograder serve: --tokens {token_file}: ")
    assert reason in r.stderr and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "state").exists()  # refused before the workers start


def test_kill_mid_queue_restart_loses_nothing_grades_nothing_twice(tmp_path, ps1, tokens):
    state = tmp_path / "state"
    slow = notebook_bytes(ps1, slow_s=0.5)
    service = Service(state, tokens, "--rate", "0").start()
    ids: dict[int, str] = {}
    try:
        for i in range(12):
            student = ("amy", "ben", "cat")[i % 3]
            status, body = service.submit(student, slow)
            assert status == 202, body
            ids[body["id"]] = student
        wait_until(
            lambda: sum(r[1] == "done" for r in journal_rows(state).values()) >= 2, 180, "two submissions graded"
        )
    finally:
        service.kill()  # SIGKILL: mid-queue, probably mid-grading
    before = journal_rows(state)
    finished_before = {i: r[2] for i, r in before.items() if r[1] == "done"}
    assert set(before) == set(ids) and 2 <= len(finished_before) < len(ids), before

    service = Service(state, tokens, "--rate", "0").start()
    try:
        for job_id, student in ids.items():  # every accepted submission gets its feedback
            status, body = service.request("GET", f"/api/submissions/{job_id}?wait=120", student)
            assert status == 200 and body["state"] == "done" and body["score"] == ps1.max_score, body
    finally:
        assert service.stop() == 0, service.log()[-3000:]
    after = journal_rows(state)
    assert all(r[1] == "done" for r in after.values())
    for job_id, finished in finished_before.items():
        assert after[job_id][2] == finished  # graded before the kill: not graded again
    with sqlite3.connect(state / "queue.sqlite") as db:
        counts = dict(db.execute("SELECT job, COUNT(*) FROM graded GROUP BY job"))
    assert counts == {job_id: 1 for job_id in ids}  # one result written per submission
    assert "queued submissions resumed from the journal" in service.log()
    # the store holds each student's latest submission, results.json all three
    for student in ("amy", "ben", "cat"):
        stored = json.loads((state / ps1.name / "submissions" / f"{student}.json").read_text())
        assert stored["record"]["submission_id"] == max(i for i, s in ids.items() if s == student)
    results = json.loads((state / ps1.name / "results.json").read_text())
    assert sorted(results["students"]) == ["amy", "ben", "cat"]
