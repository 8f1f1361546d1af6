"""`serve --scheduler ADDRESS`: the service's grading handed to a Dask cluster.

The service keeps what makes its promises: the journal, the fair queue, the rate limits, the
pages, and the only writes of results. The cluster runs ``grade_task`` (``autograder.grading
.cluster``), each Dask worker in its own warm sandboxed workers. A job goes to the cluster only
when one of its threads is free (the cluster's thread count is re-read as workers join and
leave), so the order in which students are graded is the fair queue's, not the scheduler's.

A Dask worker killed mid-task: the scheduler re-runs the task on another worker, and the result
comes back once. A lost connection to the scheduler: the task's future fails, and the job goes
back to the queue (``Engine._grade``; after three attempts it is marked failed). Either way only
this process writes the store, the journal and the pages.
"""

from __future__ import annotations

import threading
import time
import uuid

from autograder.grading.cluster import as_local, connect, course_root, grade_task, task_arguments, wait_warm

WARM_UP_S = 900.0


class ClusterDispatch:
    def __init__(self, engine, address: str):
        self.engine, self.address = engine, address
        self.client = None
        self.course = course_root()  # read once: each task names it
        self._cond = threading.Condition()
        self._in_flight = 0
        self._capacity, self._capacity_at = 0, 0.0
        self._threads: set[threading.Thread] = set()

    # -- life cycle
    def run(self) -> None:
        """The dispatch thread: connect, warm the workers, then feed the cluster."""
        if not self._connect():
            return
        self._warm()
        self.engine.ready.set()
        print(
            f"serve: grading on the Dask cluster at {self.address} ({self.capacity()} worker threads, warm)",
            file=self.engine.log,
            flush=True,
        )
        while self._wait_for_room():
            item = self.engine.queue.take()
            if item is None:
                return
            with self._cond:
                self._in_flight += 1
            t = threading.Thread(target=self._run_job, args=(item,), name=f"cluster-job-{item[0]}", daemon=True)
            self._threads.add(t)
            t.start()

    def close(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            self._cond.notify_all()
        for t in list(self._threads):
            t.join(max(0.1, deadline - time.monotonic()))
        if self.client is not None:
            self.client.close()

    def _connect(self) -> bool:
        while not self.engine._stopping.is_set():
            try:
                self.client = connect(self.address)
                return True
            except Exception as exc:
                print(
                    f"serve: the Dask scheduler at {self.address} is not reachable ({exc}); retrying",
                    file=self.engine.log,
                    flush=True,
                )
                self.engine._stopping.wait(5.0)
        return False

    def _warm(self) -> None:
        """Register the warm-up plugin (present and future workers), then wait until each
        present worker's sandboxed workers are warm."""
        from distributed import wait

        from autograder.serve.dask_plugin import WarmSandbox

        engine = self.engine
        self.client.register_plugin(
            WarmSandbox(self.course, list(engine.assignments), engine.sandbox), name=WarmSandbox.name
        )
        pinned = [
            self.client.submit(wait_warm, key=f"warm-{uuid.uuid4().hex}", workers=[w], allow_other_workers=False)
            for w in self.client.scheduler_info(n_workers=-1)["workers"]
        ]
        wait(pinned, timeout=WARM_UP_S)

    # -- capacity
    def capacity(self) -> int:
        """The cluster's worker threads (re-read at most once a second)."""
        now = time.monotonic()
        if now - self._capacity_at > 1.0 and self.client is not None:
            try:
                self._capacity = sum(self.client.nthreads().values())
            except Exception:  # reconnecting: nothing goes out until it is back
                self._capacity = 0
            self._capacity_at = now
        return self._capacity

    def _wait_for_room(self) -> bool:
        while not self.engine._stopping.is_set():
            capacity = self.capacity()
            with self._cond:
                if self._in_flight < capacity:
                    return True
                self._cond.wait(1.0)
        return False

    # -- one job
    def _run_job(self, item: tuple[int, str]) -> None:
        try:
            self.engine.run_job(item, self.grade)
        finally:
            with self._cond:
                self._in_flight -= 1
                self._cond.notify_all()
            self._threads.discard(threading.current_thread())

    def grade(self, assignment, sub) -> dict:
        future = self.client.submit(
            grade_task,
            *task_arguments(self.course, assignment, sub, self.engine.sandbox),
            key=f"serve-{assignment.name}-{sub.student}-{uuid.uuid4().hex}",
            pure=False,
        )
        return as_local(future.result(), sub)
