"""Grading on a Dask distributed cluster: `grade --scheduler ADDRESS` and `serve --scheduler ADDRESS`.

A task carries the notebook's bytes and its ``timestamp.txt`` (workers need not share a
filesystem) and runs ``grade_one`` in a warm sandboxed worker borrowed from its Dask worker
process's pool (``POOL``), so torch is imported once per pool member, not once per submission.
``WarmSandbox`` (``autograder.serve.dask_plugin``), a Dask worker plugin, fills that pool when
a Dask worker joins (the service registers it: every worker, including one that joins later,
is warm before its first student).
Results go back to the caller, which alone writes them: a task that a dying worker left
half-done is re-run by the scheduler elsewhere, and its result is still written once.
"""

from __future__ import annotations

import contextlib
import itertools
import tempfile
import threading
from pathlib import Path

from autograder.grading.submission import grade_one, single_threaded_reference
from autograder.intake.submission import Submission
from autograder.sandbox.pool import SandboxConfig, Worker
from autograder.spec import Assignment, load_assignment


class WorkerPool:
    """The warm sandboxed workers of one process (a Dask worker), lent to one task at a time."""

    def __init__(self):
        self._idle: list[Worker] = []
        self._cond = threading.Condition()
        self._warming = 0
        self._index = itertools.count()

    @contextlib.contextmanager
    def borrow(self, config: SandboxConfig):
        with self._cond:
            while True:
                worker = next((w for w in self._idle if w.config == config), None)
                if worker is not None:
                    self._idle.remove(worker)
                    break
                if not self._warming:  # nothing warm coming: start one (it warms on first use)
                    worker = Worker(next(self._index) % 64, config)
                    break
                self._cond.wait()
        try:
            yield worker
        finally:
            with self._cond:
                self._idle.append(worker)
                self._cond.notify_all()

    def begin_warming(self) -> None:
        """From now until ``end_warming`` a task finding no idle worker waits for a warm one."""
        with self._cond:
            self._warming += 1

    def end_warming(self) -> None:
        with self._cond:
            self._warming -= 1
            self._cond.notify_all()

    def fill(self, config: SandboxConfig, count: int, warm) -> None:
        """Start workers until ``count`` of ``config`` are idle, each warmed by ``warm(worker)``."""
        with self._cond:
            missing = count - sum(w.config == config for w in self._idle)
        for _ in range(missing):
            worker = Worker(next(self._index) % 64, config)
            warm(worker)
            with self._cond:
                self._idle.append(worker)
                self._cond.notify_all()

    def wait_warm(self, timeout: float | None = None) -> int:
        with self._cond:
            self._cond.wait_for(lambda: not self._warming, timeout)
            return len(self._idle)

    def stop(self) -> None:
        with self._cond:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.stop()


POOL = WorkerPool()


def prepare_process(course_root: str | None) -> None:
    """A Dask worker process set up as ``autograder grade`` sets up its own: the caller's
    course where this process can see it (the same machine or a shared disk; otherwise the
    worker's own, ``AUTOGRADER_COURSE`` or its working directory), torch single-threaded."""
    from autograder.course import use_course

    if course_root and Path(course_root).is_dir():
        use_course(course_root)
    single_threaded_reference()


def wait_warm(timeout: float = 600.0) -> int:
    """A task pinned to one Dask worker: returns once its pool is warm (its size)."""
    return POOL.wait_warm(timeout)


def grade_task(
    course_root: str | None,
    assignment_name: str,
    student: str,
    notebook: bytes | None,
    timestamp: bytes | None,
    problem: str,
    config: SandboxConfig,
) -> dict:
    prepare_process(course_root)
    assignment = load_assignment(assignment_name)
    with POOL.borrow(config) as worker:
        if notebook is None:
            return grade_one(worker, assignment, Submission(student, None, problem))
        with tempfile.TemporaryDirectory(prefix="autograder-task-") as tmp:
            path = Path(tmp) / assignment.notebook
            path.write_bytes(notebook)
            if timestamp is not None:  # nbgrader's submission time, in the record as locally
                (path.parent / "timestamp.txt").write_bytes(timestamp)
            return grade_one(worker, assignment, Submission(student, path))


def course_root() -> str:
    """The caller's course folder, as tasks receive it (``prepare_process``)."""
    from autograder.course import find_course

    return str(find_course().root)


def task_arguments(course: str, assignment: Assignment, sub: Submission, config: SandboxConfig) -> tuple:
    """``grade_task``'s arguments for one submission (read here, on the caller's disk)."""
    data = stamp = None
    if sub.notebook is not None:
        data = sub.notebook.read_bytes()
        with contextlib.suppress(OSError):
            stamp = (sub.notebook.parent / "timestamp.txt").read_bytes()
    return (course, assignment.name, sub.student, data, stamp, sub.problem, config)


def as_local(record: dict, sub: Submission) -> dict:
    """The task graded a copy: the record names the caller's notebook and the intake's late marker."""
    if sub.notebook is not None:
        record["notebook"] = str(sub.notebook)
    record["late"] = sub.late
    return record


def connect(address: str, timeout: float = 30.0):
    """A Dask client: ``address`` as Dask's ``Client`` takes it (``tcp://host:8786``, ``tls://``
    with Dask's TLS configuration), or the path of a scheduler file."""
    from distributed import Client

    if Path(address).is_file():  # `dask scheduler --scheduler-file FILE`
        return Client(scheduler_file=address, timeout=timeout)
    return Client(address, timeout=timeout)


def grade_on_cluster(address: str, assignment: Assignment, todo, sandbox: SandboxConfig | None):
    """Yield (submission, key, record) as the cluster finishes each one."""
    from distributed import as_completed

    config, course = sandbox or SandboxConfig(), course_root()
    with connect(address) as client:
        futures = {}
        for sub, key in todo:
            future = client.submit(
                grade_task,
                *task_arguments(course, assignment, sub, config),
                key=f"grade-{assignment.name}-{sub.student}-{key}",  # a student's own: two students'
                pure=False,  # identical notebooks are two tasks (probes are per student)
            )
            futures[future] = (sub, key)
        for future in as_completed(futures):
            sub, key = futures[future]
            yield sub, key, as_local(future.result(), sub)
