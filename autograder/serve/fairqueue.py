"""Fair scheduling over the queued jobs: fewest served first across students, bounded.

Each student has a FIFO of their queued jobs. A free worker takes the next job of the student,
among those with nothing running, who has been served least (ties: whose next job came first).
Counts run while the service is busy: all of them start again when nothing is queued or running,
and a student's own when they have had nothing queued or running for ``STALE_S`` — not the
moment their queue empties, or a student whose first feedback came before their second upload
would be back at zero and go before a classmate's first (measured: 132 such jumps in a
200-submission burst). So a student who submits 50 times gets one grading per turn, like
everyone else, and a student who arrives in the middle of someone's burst goes next: a burst
delays only its sender, and each student's first submission starts before anyone's second. A
free worker also holds a later round (a student's second or later job) back for up to ``HOLD_S``
while an earlier round's job is still running, so that at a deadline every first submission's
feedback comes before anyone's second; the hold is bounded, so a straggler (a notebook running
into its time limit) costs the others at most that. One job per student runs at a time, which
also keeps a student's results in the order they submitted (the store holds the latest).

Bounds: ``max_total`` queued jobs in all and ``max_per_student`` for one student; ``push``
raises :class:`QueueFull` beyond them (the HTTP app answers 503 with Retry-After). The journal
stays the source of truth: this is rebuilt from its ``queued`` rows at start-up.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque

HOLD_S = 30.0  # how long a free worker holds a later round back for an earlier one still running
STALE_S = 1800.0  # a student with nothing queued or running this long starts a new count


class QueueFull(RuntimeError):
    pass


class FairQueue:
    def __init__(self, max_total: int = 1000, max_per_student: int = 50):
        self.max_total, self.max_per_student = max_total, max_per_student
        self._cond = threading.Condition()
        self._pending: dict[str, deque[tuple[int, int]]] = {}  # student -> (arrival, job id)
        self._served: dict[str, int] = {}  # jobs taken while the service has been busy
        self._idle_since: dict[str, float] = {}  # student -> when they last had nothing queued or running
        self._busy: set[str] = set()  # students with a job running
        self._running_round: dict[str, int] = {}  # student -> round (served before it) of the running job
        self._held_since: float | None = None
        self._arrivals = itertools.count()
        self._size = 0
        self._closed = False

    def __len__(self) -> int:
        with self._cond:
            return self._size

    def check(self, student: str) -> None:
        """Raise QueueFull if a new job of ``student`` would not fit."""
        with self._cond:
            self._check(student)

    def _check(self, student: str) -> None:
        if self._size >= self.max_total:
            raise QueueFull(f"the grading queue is full ({self.max_total} submissions waiting)")
        if len(self._pending.get(student, ())) >= self.max_per_student:
            raise QueueFull(f"{student} already has {self.max_per_student} submissions waiting")

    def push(self, job_id: int, student: str, *, force: bool = False) -> None:
        """``force``: re-queued at start-up (already accepted once; the bounds do not apply)."""
        with self._cond:
            if not force:
                self._check(student)
            idle = self._idle_since.pop(student, None)
            if idle is not None and time.monotonic() - idle >= STALE_S:
                self._served.pop(student, None)
            self._pending.setdefault(student, deque()).append((next(self._arrivals), job_id))
            self._size += 1
            self._cond.notify()

    def take(self, timeout: float | None = None) -> tuple[int, str] | None:
        """The next job by the fewest-served rule, waiting up to ``timeout``; None when closed or timed out."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                if self._closed:
                    return None
                wait = None if deadline is None else max(0.0, deadline - time.monotonic())
                ready = [s for s in self._pending if s not in self._busy]
                if ready:
                    student = min(ready, key=lambda s: (self._served.get(s, 0), self._pending[s][0][0]))
                    round_ = self._served.get(student, 0)
                    now = time.monotonic()
                    if any(r < round_ for r in self._running_round.values()):  # an earlier round runs
                        self._held_since = self._held_since if self._held_since is not None else now
                        held = self._held_since + HOLD_S - now
                        if held > 0:
                            wait = held if wait is None else min(wait, held)
                            if wait <= 0:
                                return None
                            self._cond.wait(wait)
                            continue
                    self._held_since = None
                    queue = self._pending[student]
                    _, job_id = queue.popleft()
                    self._size -= 1
                    if not queue:
                        del self._pending[student]
                    self._served[student] = round_ + 1
                    self._busy.add(student)
                    self._running_round[student] = round_
                    return job_id, student
                if wait is not None and wait <= 0:
                    return None
                self._cond.wait(wait)

    def done(self, student: str) -> None:
        with self._cond:
            self._busy.discard(student)
            self._running_round.pop(student, None)
            if student not in self._pending:
                self._idle_since[student] = time.monotonic()
            if not self._pending and not self._busy:  # the service caught up: every count starts again
                self._served.clear()
                self._idle_since.clear()
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def snapshot(self) -> dict:
        with self._cond:
            return {
                "queued": self._size,
                "running": sorted(self._busy),
                "per_student": {s: len(q) for s, q in self._pending.items()},
            }
