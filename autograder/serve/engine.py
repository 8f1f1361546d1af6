"""The grading engine behind ``autograder serve``: warm workers fed by the fair queue.

Each worker thread owns one warm sandboxed :class:`~autograder.sandbox.pool.Worker` (started and
warmed up once, by grading each problem set's unsolved release) and loops: take the next job
(fewest served first across students), claim it in the journal, ``grade_one``, write the record to the
per-submission store ``STATE/<ps>/submissions/<student>.json`` (the same
:class:`~autograder.grading.storage.ResultStore` and fingerprint as ``autograder grade``; the store
holds each student's latest result), publish the student's feedback page, then mark the job done
in the journal. ``STATE/<ps>/results.json`` and, with ``--db``, nbgrader's gradebook (the same
publish step as ``autograder grade``'s) are brought up to date by a background thread from the
journal's ``recorded`` flag, so they catch up after a restart too. Each problem set's store stays
locked while the service runs (an ``autograder grade --out STATE/<ps>`` at the same time is
refused). With ``scheduler``, one dispatch thread (``autograder.serve.dispatch``) takes the jobs
instead and grades them on the Dask cluster; everything else here is the same.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
import traceback
from pathlib import Path

from autograder.grading import storage
from autograder.grading.cohort import fingerprint, spec_fingerprint
from autograder.grading.notebook import NotebookError, parse_notebook
from autograder.grading.submission import grade_one, single_threaded_reference
from autograder.intake.submission import Submission
from autograder.outputs.publish import Outputs, publish
from autograder.sandbox.pool import SandboxConfig, Worker
from autograder.serve.auth import bad_student_id
from autograder.serve.fairqueue import FairQueue, QueueFull
from autograder.serve.journal import Job, Journal
from autograder.serve.ratelimit import RateLimiter, Verdict
from autograder.serve.warm import warm_up

MAX_UPLOAD_BYTES = 16 << 20
MAX_ATTEMPTS = 3


class Refused(Exception):
    """A submission not accepted; ``status`` is the HTTP status the app answers with."""

    def __init__(self, status: int, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


def student_view(record: dict) -> dict:
    """The part of a stored record a student's feedback shows (as ``results.json`` has it)."""
    keys = ("score", "max_score", "questions", "error", "flags", "flag", "flag_reason", "submitted_at")
    return {k: record[k] for k in keys if record.get(k) not in (None, [], "")}


class Engine:
    def __init__(
        self,
        assignments,
        state_dir: Path,
        *,
        workers: int = 2,
        sandbox: SandboxConfig | None = None,
        rate: tuple[int, float] = (30, 3600.0),
        max_queue: int = 1000,
        max_per_student: int = 50,
        db: str | None = None,
        course_id: str | None = None,
        scheduler: str | None = None,
        handin=None,
        service_url: str = "/",
        log=sys.stderr,
    ):
        self.assignments = {a.name: a for a in assignments}
        self.state_dir = Path(state_dir)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.n_workers, self.sandbox = max(1, workers), sandbox or SandboxConfig()
        self.db, self.course_id, self.log = db, course_id, log
        self.scheduler = scheduler  # a Dask scheduler: grading is handed to its workers
        # nbgrader's exchange (autograder.serve.handin.HandIn): uploads filed as submissions,
        # feedback where `nbgrader fetch_feedback` finds it; the pages link back to service_url
        self.handin, self.service_url = handin, service_url
        self._cluster = None
        self.journal = Journal(self.state_dir)
        self.queue = FairQueue(max_queue, max_per_student)
        self.limiter = RateLimiter(self.journal, *rate)
        self.stores = {name: storage.ResultStore(self.state_dir / name) for name in self.assignments}
        self.spec_hash = {name: spec_fingerprint(a) for name, a in self.assignments.items()}
        self.listeners: list = []  # called with a finished Job, from a worker thread
        self.ready = threading.Event()
        self.started_at = time.time()
        self._threads: list[threading.Thread] = []
        self._workers: list[Worker] = []
        self._warm = 0
        self._intake = threading.Lock()
        self._stack = contextlib.ExitStack()
        self._dirty = threading.Event()
        self._stopping = threading.Event()

    # -- life cycle
    def start(self) -> None:
        self._stack.enter_context(
            storage.exclusive(self.state_dir / ".serve.lock", f"another `autograder serve` uses {self.state_dir}")
        )
        for store in self.stores.values():
            self._stack.enter_context(store.locked())
        single_threaded_reference()
        self.recover()
        if self.scheduler:
            from autograder.serve.dispatch import ClusterDispatch

            self._cluster = ClusterDispatch(self, self.scheduler)
            targets = [(self._cluster.run, "cluster-dispatch")]
        else:
            targets = [(lambda i=i: self._work(i), f"grader-{i}") for i in range(self.n_workers)]
        for target, name in targets:
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)
        t = threading.Thread(target=self._sync_loop, name="results-sync", daemon=True)
        t.start()
        self._threads.append(t)

    def stop(self, timeout: float = 30.0) -> None:
        """Finish the jobs being graded, leave the queued ones in the journal."""
        self._stopping.set()
        self.queue.close()
        self._dirty.set()
        deadline = time.monotonic() + timeout
        for t in self._threads:
            t.join(max(0.1, deadline - time.monotonic()))
        for w in self._workers:
            w.stop()
        if self._cluster is not None:
            self._cluster.close(max(0.1, deadline - time.monotonic()))
        self._sync_once()
        self._stack.close()
        self.journal.close()

    def recover(self) -> None:
        """Start-up: finish what was stored before a crash, re-queue the rest (see journal)."""
        for job in self.journal.in_state("running"):
            stored = self.stores[job.ps].load(job.student) if job.ps in self.stores else None
            record = stored.get("record") if isinstance(stored, dict) else None
            if isinstance(record, dict) and record.get("submission_id") == job.id:
                self.journal.finish(job.id, record["score"], record["max_score"], student_view(record), recovered=True)
            else:
                self.journal.requeue(job.id, "the service restarted while this was being graded")
        queued = self.journal.in_state("queued")
        for job in queued:
            self.queue.push(job.id, job.student, force=True)
        if queued:
            print(f"serve: {len(queued)} queued submissions resumed from the journal", file=self.log, flush=True)
        self._dirty.set()

    # -- intake (the HTTP app and the exchange watcher)
    def submit(
        self,
        student: str,
        ps: str,
        data: bytes,
        *,
        origin: str | None = None,
        received: float | None = None,
        limited: bool = True,
        stamp: str | None = None,
    ) -> Job:
        """Spool, journal and queue one notebook; raise :class:`Refused` when it is not taken."""
        received = time.time() if received is None else received
        name = (
            ps
            if ps in self.assignments
            else next(  # "ps1" -> "ps1_attention", as everywhere
                (n for n in self.assignments if n.split("_", 1)[0] == ps), ps
            )
        )
        assignment = self.assignments.get(name)
        why = bad_student_id(student)
        if why:  # a Hub user name the exchange could not file (standalone token files are checked at start)
            raise Refused(403, f"user {why}: not usable as a student id; ask your instructors")
        if assignment is None:
            raise Refused(404, f"unknown problem set {ps!r}; served here: {', '.join(self.assignments)}")
        if not data or len(data) > MAX_UPLOAD_BYTES:
            raise Refused(413 if data else 400, f"a notebook of 1 byte to {MAX_UPLOAD_BYTES >> 20} MB is expected")
        try:  # refused before the rate limit counts it: a wrong file costs the student nothing
            parse_notebook(data, "the upload")
        except NotebookError as exc:
            raise Refused(400, f"{exc}; upload the .ipynb file of {name}") from None
        with self._intake:  # the rate check and the insert are one step
            if limited:
                verdict: Verdict = self.limiter.check(student, name, received)
                if not verdict.allowed:
                    raise Refused(
                        429,
                        f"{student}: {verdict.used} gradings of {name} in the last "
                        f"{self.limiter.describe().split(' per ')[1]} (limit {self.limiter.describe()}); "
                        f"try again in {verdict.retry_after:.0f} s",
                        verdict.retry_after,
                    )
            try:
                self.queue.check(student)
            except QueueFull as exc:
                raise Refused(503, str(exc), 30.0) from None
            filed = None
            if origin is None and self.handin is not None:  # an upload: filed as `nbgrader submit` files it
                try:
                    origin, folder, stamp = self.handin.file(student, name, assignment.notebook, data, received)
                except OSError as exc:
                    raise Refused(503, f"the exchange cannot take the submission now ({exc.strerror})", 30.0) from None
                filed = (folder, stamp)
            try:
                path = self.journal.spool_notebook(assignment.notebook, data, received, stamp)
                job = self.journal.add(student, name, path, received, origin or f"http:{path.parent.name}")
                if job is None:
                    raise Refused(409, f"{origin} was already received")
            except BaseException:
                if filed:  # never a folder without timestamp.txt left for `nbgrader collect`
                    self.handin.withdraw(filed[0])
                raise
            if filed:
                self.handin.complete(*filed)
            self.queue.push(job.id, student, force=True)
        return job

    # -- workers
    def _work(self, index: int) -> None:
        worker = Worker(index, self.sandbox)
        self._workers.append(worker)
        try:
            warm_up(worker, self.assignments.values(), self.log)
        except Exception as exc:
            print(f"serve: worker {index} could not start: {exc}", file=self.log, flush=True)
        self._warm += 1
        if self._warm >= self.n_workers:
            self.ready.set()
            print(f"serve: {self.n_workers} warm workers ready ({worker.mode})", file=self.log, flush=True)
        while True:
            item = self.queue.take()
            if item is None:
                return
            self.run_job(item, lambda assignment, sub: grade_one(worker, assignment, sub))

    def run_job(self, item: tuple[int, str], grade) -> None:
        """Claim the job the fair queue handed out, grade it with ``grade(assignment, sub)``
        (here or on the cluster), store and publish it; the student's turn ends either way."""
        job_id, student = item
        try:
            job = self.journal.claim(job_id)
            if job is not None:
                self._grade(job, grade)
        except Exception:  # infrastructure: keep serving; the job is retried or marked failed
            traceback.print_exc(file=self.log)
        finally:
            self.queue.done(student)

    def _grade(self, job: Job, grade) -> None:
        assignment, store = self.assignments[job.ps], self.stores[job.ps]
        sub = Submission(job.student, Path(job.notebook))
        try:
            record = grade(assignment, sub)
        except Exception as exc:
            if self._stopping.is_set() or job.attempts < MAX_ATTEMPTS:
                self.journal.requeue(job.id, f"grading was interrupted ({exc})")
                if not self._stopping.is_set():
                    self.queue.push(job.id, job.student, force=True)
            else:
                self.journal.fail(job.id, "grading failed on the server; your instructors can see why")
                self._notify(job.id)
            raise
        record.update(submission_id=job.id, received_at=job.received)
        store.save(job.student, fingerprint(sub, self.spec_hash[job.ps]), record)
        view = student_view(record)
        with contextlib.suppress(OSError):  # the student's page now; the gradebook with the next sync
            publish(assignment, {"students": {job.student: view}}, store.out_dir, Outputs())
        if self.handin is not None:
            from autograder.outputs.feedback_pages import feedback_page
            from autograder.serve.pages import handin_note

            page = feedback_page(assignment, job.student, view, handin=handin_note(job, self.service_url))
            with contextlib.suppress(OSError):  # what the Assignments tab's Fetch Feedback copies
                self.handin.publish_feedback(job.origin, assignment.notebook, page)
        self.journal.finish(job.id, record["score"], record["max_score"], view)
        self._dirty.set()
        self._notify(job.id)

    def _notify(self, job_id: int) -> None:
        job = self.journal.get(job_id)
        for listener in list(self.listeners):
            try:
                listener(job)
            except Exception:
                traceback.print_exc(file=self.log)

    # -- results.json and the gradebook, caught up in the background
    def _sync_loop(self) -> None:
        while not self._stopping.is_set():
            self._dirty.wait(timeout=5.0)
            if self._stopping.is_set():
                return
            time.sleep(1.0)  # gather a burst into one write
            self._dirty.clear()
            try:
                self._sync_once()
            except Exception:
                traceback.print_exc(file=self.log)

    def _sync_once(self) -> None:
        pending = self.journal.unrecorded()
        if not pending:
            return
        for ps in sorted({j.ps for j in pending}):
            jobs = [j for j in pending if j.ps == ps]
            assignment, store = self.assignments.get(ps), self.stores.get(ps)
            if assignment is None:
                continue
            results = store.assemble(assignment, self.journal.students(ps))
            if self.db:
                publish(assignment, results, store.out_dir, self._gradebook_outputs(store, jobs))
            self.journal.mark_recorded([j.id for j in jobs])

    def _gradebook_outputs(self, store: storage.ResultStore, jobs: list[Job]) -> Outputs:
        """The students of ``jobs`` into the gradebook (their feedback pages are written already)."""
        students = sorted({j.student for j in jobs})
        notebooks = {}
        for student in students:
            rec = (store.load(student) or {}).get("record", {})
            if rec.get("notebook"):
                notebooks[student] = Path(rec["notebook"])
        return Outputs(
            feedback_pages=False,
            db=self.db,
            course_id=self.course_id,
            graded_students=students,
            notebooks=notebooks,
        )

    # -- for the instructors' view
    def stats(self) -> dict:
        now = time.time()
        return {
            "ready": self.ready.is_set(),
            "workers": self._cluster.capacity() if self._cluster else self.n_workers,
            **({"scheduler": self.scheduler} if self.scheduler else {}),
            "uptime_s": round(now - self.started_at, 1),
            "queue": self.queue.snapshot(),
            "rate_limit": self.limiter.describe(),
            "graded_last_minute": self.journal.finished_since(now - 60),
            "graded_last_hour": self.journal.finished_since(now - 3600),
            "problem_sets": list(self.assignments),
        }
