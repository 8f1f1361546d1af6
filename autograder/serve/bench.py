"""`autograder bench serve`: submit-to-feedback latency and throughput of `autograder serve`.

One run, one machine: a real ``autograder serve`` process (standalone, token file, loopback) with
warm workers (``--scheduler local``: a real ``dask scheduler`` and single-threaded ``dask worker``
processes, the service grading on them), then

1. **idle**: single submissions one at a time on the idle service (each answered with
   ``?wait=``): p50/p95 submit-to-feedback latency, the figure the ≤ 1 s target is about;
2. **burst**: N submissions (default 200) from S simulated students (default 20) sent at once,
   each student posting theirs back to back, then waiting for each feedback: p50/p95 latency,
   throughput, and the fair queue's order read back from the journal;
3. **grade**: each student's notebooks graded by ``autograder grade``'s engine under their own
   name (the scores must agree), and, for PS1, the same N in one run (the throughput anchor).

PS1: every third notebook forgets the 1/√d_k scale (as ``bench grading``); other problem sets
(``--ps``) send honest notebooks. Last line ``serve_p95_s:`` (``serve_dask_p95_s:`` on a cluster).
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    """An ``autograder serve`` child process (standalone mode) and a tiny client for it."""

    def __init__(
        self,
        state: Path,
        tokens: dict[str, str],
        *extra: str,
        problem_sets=("ps1",),
        workers: int = 2,
        log: Path | None = None,
    ):
        self.state, self.port, self.tokens = Path(state), free_port(), tokens
        self.state.mkdir(parents=True, exist_ok=True)
        token_file = self.state.parent / f"{self.state.name}-tokens.json"
        token_file.write_text(json.dumps({t: u for u, t in tokens.items()}))
        self.log_path = log or self.state.parent / f"{self.state.name}-serve.log"
        self.cmd = [
            sys.executable,
            "-m",
            "autograder",
            "serve",
            *problem_sets,
            "--out",
            str(self.state),
            "--tokens",
            str(token_file),
            "--port",
            str(self.port),
            "--workers",
            str(workers),
            *extra,
        ]
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 300.0) -> Service:
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.cmd, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"autograder serve exited ({self.proc.returncode}):\n{self.log()[-3000:]}")
            try:
                status, body = self.request("GET", "/health", None)
                if status == 200 and body.get("ready"):
                    return self
            except OSError:
                pass
            time.sleep(0.2)
        self.kill()
        raise RuntimeError(f"autograder serve was not ready in {timeout:.0f} s:\n{self.log()[-3000:]}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def request(
        self,
        method: str,
        path: str,
        user: str | None,
        body: bytes | None = None,
        timeout: float = 300.0,
        conn: http.client.HTTPConnection | None = None,
    ):
        own = conn is None
        conn = conn or http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            headers = {"Authorization": f"token {self.tokens[user]}"} if user else {}
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            try:
                return resp.status, json.loads(data)
            except ValueError:
                return resp.status, {"text": data.decode("utf-8", "replace")}
        finally:
            if own:
                conn.close()

    def submit(self, user: str, notebook: bytes, ps: str = "ps1", wait: float = 0, conn=None):
        return self.request("POST", f"/api/submit/{ps}?wait={wait}", user, notebook, conn=conn)

    def stop(self, timeout: float = 60.0) -> int:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        return self.proc.returncode

    def kill(self) -> None:
        """SIGKILL: what a crash or an OOM kill does (no clean-up of any kind)."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._log.close()


def _pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(p / 100 * len(values) + 0.5) - 1))]


def _notebooks(ps: str = "ps1"):
    """(assignment, honest notebook, wrong notebook): PS1's wrong one forgets the 1/√d_k scale;
    other problem sets are sent honest only (None)."""
    import nbformat

    from autograder.releasing.sample_submissions import MISSING_SCALE, make_notebook
    from autograder.spec import load_assignment

    assignment = load_assignment(ps)
    good = nbformat.writes(make_notebook(assignment)).encode()
    if assignment.name != "ps1_attention":
        return assignment, good, None
    return assignment, good, nbformat.writes(make_notebook(assignment, {"sdpa_impl": MISSING_SCALE})).encode()


def bench_serve(
    n: int = 200,
    students: int = 20,
    workers: int = 2,
    singles: int = 20,
    scheduler: str | None = None,
    ps: str = "ps1",
) -> int:
    """``scheduler="local"``: a real ``dask scheduler`` and ``workers`` single-threaded ``dask
    worker`` processes on this machine, the service grading on them (``serve --scheduler``)."""
    from autograder.grading.dask_processes import DaskProcesses

    ps1, good, bad = _notebooks(ps)
    names = [f"st{i:02d}" for i in range(students)]
    batch = [(names[i % students], bad if bad and i % 3 == 2 else good) for i in range(n)]  # (student, notebook)
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} CPUs, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1/5/15 min)")
    where = (
        f"a local Dask cluster ({workers} `dask worker` processes, 1 thread each)"
        if scheduler
        else f"{workers} workers"
    )
    print(
        f"batch: {n} {ps1.name} submissions from {students} students ({sum(nb is good for _, nb in batch)} honest), "
        f"graded on {where}",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="autograder-bench-serve-") as tmp:
        tmp = Path(tmp)
        tokens = {u: secrets.token_hex(16) for u in [*names, "solo"]}
        cluster = DaskProcesses(tmp / "dask", workers=workers).start() if scheduler == "local" else None
        address = cluster.address if cluster else scheduler
        extra = ("--scheduler", address) if address else ()
        service = Service(
            tmp / "state",
            tokens,
            "--rate",
            "0",
            "--per-student-max",
            str(n),
            *extra,
            problem_sets=(ps,),
            workers=workers,
        )
        try:
            started = time.perf_counter()
            service.start(timeout=900)
            print(f"serve: ready in {time.perf_counter() - started:.1f} s (warm workers)", flush=True)
            idle = _idle(service, ps1, good, singles)
            lat, scores, first_last = _burst(service, batch, ps)
        finally:
            service.stop()
            if cluster:
                cluster.stop()
        t_serve = first_last[1] - first_last[0]
        expected = [ps1.max_score if nb is good else None for _, nb in batch]
        wrong = [s for s, e in zip(scores, expected) if e is not None and s != e]
        print(
            f"burst of {n}: submit-to-feedback p50 {_pct(lat, 50):.3f} s, p95 {_pct(lat, 95):.3f} s, "
            f"max {max(lat):.3f} s; {t_serve:.2f} s from first upload to last feedback",
            flush=True,
        )
        unfair = _fairness(tmp / "state")
        grade_scores = _grade_as_submitted(ps1, batch, tmp, workers)
        if ps1.name == "ps1_attention":  # PS6's anchor would be another quarter of an hour
            t_grade, t_start = _grade_same_batch(ps1, batch, tmp, workers)
            thr_serve, thr_grade = n / t_serve, n / t_grade
            print(
                f"autograder grade (locally), same {n} notebooks: {t_grade:.2f} s ({thr_grade:.2f} submissions/s; "
                f"starting one sandboxed worker takes {t_start:.2f} s of that, measured apart)"
            )
            print(
                f"serve burst: {thr_serve:.2f} submissions/s; serve_over_grade throughput: {thr_serve / thr_grade:.2f}"
            )
    disagree = sum(a != b for a, b in zip(scores, grade_scores))
    load = os.getloadavg()
    print(
        f"scores: serve and grade (each student's notebooks under their own name) disagree on {disagree}/{n}; "
        f"honest ones not full marks: {len(wrong)}"
    )
    print(f"machine load at the end: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")
    if idle:
        print(f"serve{'_dask' if scheduler else ''}_p95_s: {_pct(idle, 95):.3f}")
    return 1 if disagree or wrong or unfair else 0


def _idle(service: Service, assignment, notebook: bytes, singles: int) -> list[float]:
    """Single submissions one at a time on the idle service, each answered with ``?wait=``."""
    idle = []
    for _ in range(singles):
        t0 = time.perf_counter()
        status, body = service.submit("solo", notebook, ps=assignment.name, wait=600)
        idle.append(time.perf_counter() - t0)
        if status != 200 or body.get("score") != assignment.max_score:
            raise RuntimeError(f"idle submission: {status} {body}")
        time.sleep(0.2)
    if singles:
        print(
            f"idle, one at a time ({singles}): submit-to-feedback p50 {_pct(idle, 50):.3f} s, "
            f"p95 {_pct(idle, 95):.3f} s, max {max(idle):.3f} s",
            flush=True,
        )
    return idle


def _fairness(state: Path) -> bool:
    """From the service's journal: did some student's k-th submission start while another
    student's earlier one (a lower k) was waiting? (The fair queue's promise; returns True if
    so.) Also says whether every first submission finished before any second."""
    import sqlite3

    with sqlite3.connect(state / "queue.sqlite") as db:
        rows = db.execute("SELECT student, received, started, finished FROM jobs ORDER BY id").fetchall()
    seen: dict[str, int] = {}
    jobs = []
    for student, received, started, finished in rows:
        seen[student] = seen.get(student, 0) + 1
        jobs.append((student, seen[student], received, started, finished))
    if not any(k > 1 for _, k, *_ in jobs):
        return False
    jumped = [
        (x, y)
        for x in jobs
        for y in jobs
        if x[0] != y[0] and y[1] < x[1] and y[2] < x[3] < y[3]  # y waited while x, a later round, started
    ]
    firsts, t0 = [j for j in jobs if j[1] == 1], min(j[2] for j in jobs)
    seconds = [j[4] for j in jobs if j[1] == 2]
    last = max(firsts, key=lambda j: j[4])  # a first that arrives late finishes late: not the queue's doing
    print(
        f"fairness: a later submission started while another student's earlier one waited: {len(jumped)} times; "
        f"every student's first submission finished before any student's second: "
        f"{'yes' if last[4] < min(seconds) else 'no'} (the last first was uploaded at +{last[2] - t0:.2f} s and "
        f"finished at +{last[4] - t0:.2f} s; the earliest second finished at +{min(seconds) - t0:.2f} s)",
        flush=True,
    )
    return bool(jumped)


def _grade_same_batch(ps1, batch, tmp: Path, workers: int) -> tuple[float, float]:
    """The throughput anchor: the burst's notebooks graded by ``autograder grade``'s engine in one
    run, one folder per submission: (seconds grading, seconds to start one sandboxed worker)."""
    from autograder.grading.cohort import grade_cohort
    from autograder.intake.collect import collect_folder
    from autograder.sandbox.pool import SandboxConfig, Worker

    root = tmp / "batch"  # nbgrader's layout
    for i, (student, nb) in enumerate(batch):
        folder = root / f"{student}-{i:03d}" / ps1.name
        folder.mkdir(parents=True)
        (folder / ps1.notebook).write_bytes(nb)
    t0 = time.perf_counter()
    probe = Worker(0, SandboxConfig())
    probe.start()
    probe.stop()
    t_start = time.perf_counter() - t0
    submissions = collect_folder(root, ps1)
    t0 = time.perf_counter()
    grade_cohort(ps1, submissions, tmp / "grade-out", workers=workers, progress=False)
    return time.perf_counter() - t0, t_start


def _grade_as_submitted(assignment, batch, tmp: Path, workers: int) -> list[float]:
    """The agreement check: each distinct notebook of each student graded by ``autograder
    grade`` under that student's own name (probes are drawn per student), one run per round of
    distinct notebooks; the scores in the batch's order."""
    from autograder.grading.cohort import grade_cohort
    from autograder.intake.collect import collect_folder

    rounds: list[dict[str, bytes]] = []
    for student, nb in batch:
        if any(r.get(student) == nb for r in rounds):
            continue
        free = next((r for r in rounds if student not in r), None)
        if free is None:
            free = {}
            rounds.append(free)
        free[student] = nb
    scores: dict[tuple[str, bytes], float] = {}
    for k, notebooks in enumerate(rounds):
        for student, nb in notebooks.items():
            folder = tmp / f"as-submitted-{k}" / student / assignment.name
            folder.mkdir(parents=True)
            (folder / assignment.notebook).write_bytes(nb)
        results = grade_cohort(
            assignment,
            collect_folder(tmp / f"as-submitted-{k}", assignment),
            tmp / f"as-submitted-out-{k}",
            workers=workers,
            progress=False,
        )
        scores.update({(s, nb): results["students"][s]["score"] for s, nb in notebooks.items()})
    return [scores[(s, nb)] for s, nb in batch]


def _burst(service: Service, batch, ps: str = "ps1"):
    """Each student's thread posts all of theirs at once, then waits for each feedback in turn
    (a student's submissions are graded in their order, so waiting in order costs nothing).
    Returns latencies, scores and (first upload, last feedback)."""
    by_student: dict[str, list[int]] = {}
    for i, (student, _) in enumerate(batch):
        by_student.setdefault(student, []).append(i)
    submitted, done, scores = [0.0] * len(batch), [0.0] * len(batch), [None] * len(batch)
    errors: list[str] = []
    gate = threading.Barrier(len(by_student))

    def run(student: str, items: list[int]) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=600)
        try:
            gate.wait()
            ids = {}
            for i in items:
                submitted[i] = time.perf_counter()
                status, body = service.submit(student, batch[i][1], ps=ps, conn=conn)
                if status not in (200, 202):
                    raise RuntimeError(f"{student}: {status} {body}")
                ids[i] = body["id"]
            for i in items:
                body = {"state": "queued"}
                while body.get("state") in ("queued", "running"):  # ?wait= is capped by the service
                    status, body = service.request("GET", f"/api/submissions/{ids[i]}?wait=600", student, conn=conn)
                done[i] = time.perf_counter()
                if body.get("state") != "done":
                    raise RuntimeError(f"{student}: submission {ids[i]} {body}")
                scores[i] = body["score"]
        except Exception as exc:  # reported below
            errors.append(str(exc))
        finally:
            conn.close()

    threads = [threading.Thread(target=run, args=item) for item in by_student.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError(f"burst: {len(errors)} students failed, e.g. {errors[0]}")
    return [d - s for s, d in zip(submitted, done)], scores, (min(submitted), max(done))
