"""The Dask worker plugin that keeps a served cluster warm (see ``autograder.grading.cluster``)."""

from __future__ import annotations

import sys
import threading

from distributed.diagnostics.plugin import WorkerPlugin

from autograder.grading.cluster import POOL, prepare_process
from autograder.sandbox.pool import SandboxConfig
from autograder.serve.warm import warm_up
from autograder.spec import load_assignment


class WarmSandbox(WorkerPlugin):
    """Dask worker plugin: on each worker (present or joining later), warm one sandboxed
    worker per Dask thread in the background, for the problem sets served."""

    name = "autograder-warm-sandbox"

    def __init__(self, course_root: str | None, assignment_names: list[str], config: SandboxConfig):
        self.course_root, self.assignment_names, self.config = course_root, assignment_names, config

    def setup(self, worker) -> None:
        POOL.begin_warming()  # before setup returns: the first task waits for the warm-up
        nthreads = worker.state.nthreads

        def warm() -> None:
            try:
                prepare_process(self.course_root)
                assignments = [load_assignment(n) for n in self.assignment_names]
                POOL.fill(self.config, nthreads, lambda worker: warm_up(worker, assignments))
            except Exception as exc:  # tasks start cold workers instead
                print(f"autograder: warm-up failed: {exc!r}", file=sys.stderr, flush=True)
            finally:
                POOL.end_warming()
            # The sandboxed workers die with the thread that started them (bubblewrap's
            # --die-with-parent is a thread's death signal): this one stays until teardown.
            self._torn_down.wait()

        self._torn_down = threading.Event()
        threading.Thread(target=warm, name="autograder-warm-sandbox", daemon=True).start()

    def teardown(self, worker) -> None:
        POOL.stop()
        self._torn_down.set()
