"""`autograder serve --scheduler`: grading on a real `dask scheduler` and two `dask worker`
processes. One worker is SIGKILLed mid-burst (with a submission on it); every submission still
ends with exactly one result, and each result equals `autograder grade`'s for that notebook."""

from __future__ import annotations

import json
import secrets
import sqlite3

from distributed import Client
from serve_helpers import notebook_bytes, wait_until

from autograder.grading.cohort import grade_cohort
from autograder.grading.dask_processes import DaskProcesses
from autograder.intake.collect import collect_folder
from autograder.releasing.sample_submissions import MISSING_SCALE
from autograder.serve.bench import Service

STUDENTS = ("amy", "ben", "cat", "dan")


def journal(state) -> dict[int, dict]:
    with sqlite3.connect(state / "queue.sqlite", timeout=30) as db:
        rows = db.execute("SELECT id, student, state, attempts, result FROM jobs ORDER BY id").fetchall()
        graded = dict(db.execute("SELECT job, COUNT(*) FROM graded GROUP BY job"))
    return {
        i: {
            "student": s,
            "state": st,
            "attempts": a,
            "result": json.loads(r) if r else None,
            "written": graded.get(i, 0),
        }
        for i, s, st, a, r in rows
    }


def verdicts(view: dict) -> tuple:
    return view["score"], {g: (q["status"], q["score"], q.get("feedback")) for g, q in view["questions"].items()}


def test_serve_on_dask_survives_a_killed_worker_and_agrees_with_grade(tmp_path, ps1):
    honest = notebook_bytes(ps1, slow_s=1.5)  # slow enough that the kill finds one in flight
    wrong = notebook_bytes(ps1, {"sdpa_impl": MISSING_SCALE}, slow_s=1.5)
    rounds = [[(s, honest if (i + r) % 3 else wrong) for i, s in enumerate(STUDENTS)] for r in range(3)]
    tokens = {u: secrets.token_hex(16) for u in STUDENTS}
    state = tmp_path / "state"
    with DaskProcesses(tmp_path / "dask", workers=2) as cluster:
        service = Service(state, tokens, "--rate", "0", "--scheduler", cluster.address).start(timeout=600)
        try:
            sent: dict[int, tuple[int, str]] = {}
            for r, submissions in enumerate(rounds):
                for student, nb in submissions:
                    status, body = service.submit(student, nb)
                    assert status == 202, body
                    sent[body["id"]] = (r, student)
            with Client(cluster.address) as client:
                w0 = next(a for a, w in client.scheduler_info(n_workers=-1)["workers"].items() if w["name"] == "w0")

                def grading_on_w0() -> bool:
                    return any(str(k).startswith("serve-") for k in client.processing().get(w0, ()))

                wait_until(
                    lambda: sum(j["state"] == "done" for j in journal(state).values()) >= 2 and grading_on_w0(),
                    300,
                    "two submissions graded and one being graded on worker w0",
                )
                cluster.kill_worker(0)  # a machine lost, with the submission it was grading
            for job_id, (_, student) in sent.items():
                body = {"state": "queued"}
                while body["state"] in ("queued", "running"):  # the service answers ?wait= within 120 s
                    status, body = service.request("GET", f"/api/submissions/{job_id}?wait=120", student)
                    assert status == 200, body
                assert body["state"] == "done", body
            health = service.request("GET", "/health", None)[1]
        finally:
            assert service.stop() == 0, service.log()[-3000:]
    rows = journal(state)
    assert sorted(rows) == sorted(sent)
    assert all(j["state"] == "done" and j["written"] == 1 for j in rows.values()), rows  # one result each
    assert health["ready"], health
    assert "grading on the Dask cluster" in service.log()

    for r, submissions in enumerate(rounds):  # the same notebooks through `autograder grade`
        folder = tmp_path / f"round{r}"
        for student, nb in submissions:
            (folder / student / ps1.name).mkdir(parents=True)
            (folder / student / ps1.name / ps1.notebook).write_bytes(nb)
        results = grade_cohort(ps1, collect_folder(folder, ps1), tmp_path / f"graded{r}", progress=False)
        for job_id, (rr, student) in sent.items():
            if rr == r:
                assert verdicts(rows[job_id]["result"]) == verdicts(results["students"][student]), (r, student)
