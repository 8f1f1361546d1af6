"""`--scheduler ADDRESS`: the same per-submission task on a Dask distributed cluster.

Each task carries the notebook's bytes (workers need not share a filesystem) and runs
``grade_one`` in a warm sandboxed worker cached per Dask worker thread, so torch is imported
once per thread, not once per submission. Results stream back as tasks finish and are stored
by the caller exactly as local results are.
"""

from __future__ import annotations

import itertools
import tempfile
import threading
from pathlib import Path

from autograder.grading.submission import grade_one
from autograder.intake.submission import Submission
from autograder.sandbox.pool import SandboxConfig, Worker
from autograder.spec import load_assignment

_local = threading.local()
_counter = itertools.count()


def _worker(config: SandboxConfig) -> Worker:
    worker = getattr(_local, "worker", None)
    if worker is None or worker.config != config:
        worker = Worker(next(_counter) % 64, config)
        _local.worker = worker
    return worker


def grade_task(assignment_name: str, student: str, notebook: bytes | None, problem: str, config: SandboxConfig) -> dict:
    assignment = load_assignment(assignment_name)
    if notebook is None:
        return grade_one(_worker(config), assignment, Submission(student, None, problem))
    with tempfile.TemporaryDirectory(prefix="autograder-task-") as tmp:
        path = Path(tmp) / assignment.notebook
        path.write_bytes(notebook)
        return grade_one(_worker(config), assignment, Submission(student, path))


def grade_on_cluster(address: str, assignment, todo, sandbox: SandboxConfig | None):
    """Yield (submission, key, record) as the cluster finishes each one."""
    from distributed import Client, as_completed

    config = sandbox or SandboxConfig()
    with Client(address) as client:
        futures = {}
        for sub, key in todo:
            data = sub.notebook.read_bytes() if sub.notebook is not None else None
            future = client.submit(
                grade_task,
                assignment.name,
                sub.student,
                data,
                sub.problem,
                config,
                key=f"grade-{assignment.name}-{key}",
                pure=False,
            )
            futures[future] = (sub, key)
        for future in as_completed(futures):
            sub, key = futures[future]
            yield sub, key, future.result()
