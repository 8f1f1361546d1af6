"""Pick up ``nbgrader submit``: watch the exchange's inbound folder and queue what lands there.

``nbgrader submit`` copies the student's folder to
``<exchange>/<course_id>/inbound/<student>+<assignment>+<timestamp>[+<random>]/`` and writes
``timestamp.txt`` last; a folder counts as complete once that file is there. Each folder is
taken once (its name is the journal's ``origin``, so a restart does not take it again), its
notebook is spooled with nbgrader's timestamp, and the folder itself is left for
``nbgrader collect``. The student id is the folder name's, as ``nbgrader collect`` takes it
(nbgrader refuses ids with ``+``). A submission over the rate limit is journaled as
``refused`` with the reason (the student's page shows it); one that finds the queue full is
left for the next scan.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from autograder.serve.engine import Engine, Refused


def inbound_folder(path: Path, course_id: str | None = None) -> Path:
    """``--exchange`` may name the exchange root (with ``--course-id``), the course's folder or inbound/."""
    path = Path(path)
    if path.name == "inbound":
        return path
    if (path / "inbound").is_dir() or not course_id:
        return path / "inbound"
    return path / course_id / "inbound"


def parse_name(name: str) -> tuple[str, str, str] | None:
    parts = name.split("+")
    if len(parts) not in (3, 4) or not all(parts[:3]):
        return None
    return parts[0], parts[1], parts[2]


class ExchangeWatcher:
    def __init__(self, engine: Engine, inbound: Path, log=sys.stderr):
        self.engine, self.inbound, self.log = engine, Path(inbound), log
        self._ignored: set[str] = set()

    def scan(self) -> int:
        """Queue every complete, unseen submission folder; returns how many were queued."""
        try:
            entries = sorted(self.inbound.iterdir(), key=lambda p: p.name)
        except OSError:
            return 0
        queued = 0
        for folder in entries:
            name = folder.name
            if name in self._ignored or not folder.is_dir() or not (folder / "timestamp.txt").is_file():
                continue
            origin = f"exchange:{name}"
            if self.engine.journal.seen(origin):
                self._ignored.add(name)
                continue
            parsed = parse_name(name)
            if parsed is None or self._problem_set(parsed[1]) is None:
                self._ignored.add(name)  # not ours (another assignment) or not nbgrader's
                continue
            student, ps = parsed[0], self._problem_set(parsed[1])
            queued += self._take(folder, student, ps, origin)
        return queued

    def _problem_set(self, assignment_id: str) -> str | None:
        for name in self.engine.assignments:
            if assignment_id in (name, name.split("_", 1)[0]):
                return name
        return None

    def _take(self, folder: Path, student: str, ps: str, origin: str) -> int:
        assignment = self.engine.assignments[ps]
        exact = folder / assignment.notebook
        notebooks = [exact] if exact.is_file() else sorted(folder.glob("*.ipynb"))
        stamp = (folder / "timestamp.txt").read_text(encoding="utf-8", errors="replace").strip()[:64]
        now = time.time()
        try:
            if len(notebooks) != 1:
                raise Refused(
                    400, f"expected {assignment.notebook} in the submission (found {len(notebooks)} notebooks)"
                )
            self.engine.submit(student, ps, notebooks[0].read_bytes(), origin=origin, received=now, stamp=stamp)
        except Refused as exc:
            if exc.status == 503:
                return 0  # the queue is full: try again on the next scan
            self.engine.journal.add(student, ps, None, now, origin, state="refused", error=exc.message)
            self._ignored.add(folder.name)
            print(f"serve: {origin} refused: {exc.message}", file=self.log, flush=True)
            return 0
        except OSError:
            return 0  # still being written or removed: the next scan sees it
        self._ignored.add(folder.name)
        return 1
