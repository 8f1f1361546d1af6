"""Results on disk: one file per submission, written atomically as it finishes.

``OUT/submissions/<student>.json`` holds ``{"key": fingerprint, "record": {...}}``; the key ties
a result to the exact notebook bytes and question spec it was computed from. ``OUT/results.json``
is assembled from them (the CLI contract). A lock file keeps two runs on the same output
directory from interleaving: the run that owns the folder (a command, the service) takes it once.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import tempfile
from pathlib import Path

from autograder.errors import AutograderError


class OutputBusy(AutograderError):
    """Another run (``autograder grade``, ``autograder serve``) owns this output folder."""


def write_json_atomic(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=True, allow_nan=False)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def exclusive(lock_file: Path, busy: str):
    """Hold an exclusive lock on ``lock_file`` for the block; ``OutputBusy(busy)`` when another
    process holds it. The lock goes with the process, so a killed run leaves none behind."""
    with open(lock_file, "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputBusy(busy) from None
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def safe_name(student: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9._@+-]", "_", student)[:120]
    return cleaned if cleaned.strip(".") else "_" + cleaned


class ResultStore:
    def __init__(self, out_dir: Path):
        self.out_dir = Path(out_dir)
        self.sub_dir = self.out_dir / "submissions"

    def locked(self):
        """Own the output folder while grading and publishing into it (a second owner is refused)."""
        self.sub_dir.mkdir(parents=True, exist_ok=True)
        return exclusive(
            self.out_dir / ".lock",
            f"another `autograder grade` is writing to {self.out_dir}; wait for it or use another --out",
        )

    def _path(self, student: str) -> Path:
        return self.sub_dir / f"{safe_name(student)}.json"

    def load(self, student: str) -> dict | None:
        try:
            return json.loads(self._path(student).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # absent or damaged: grade again

    def key_of(self, student: str) -> str | None:
        stored = self.load(student)
        return stored.get("key") if isinstance(stored, dict) else None

    def save(self, student: str, key: str, record: dict) -> None:
        write_json_atomic(self._path(student), {"key": key, "record": record})

    def assemble(self, assignment, students: list[str]) -> dict:
        out = {"assignment": assignment.name, "max_score": assignment.max_score, "students": {}}
        for student in students:
            stored = self.load(student)
            if stored is None:
                continue
            rec = stored["record"]
            out["students"][student] = {
                "score": rec["score"],
                "max_score": rec["max_score"],
                "questions": rec["questions"],
                "sandbox": rec.get("sandbox"),
                "seconds": rec.get("seconds"),
                "sandbox_cpu_seconds": rec.get("sandbox_cpu_seconds"),
                **({"error": rec["error"]} if rec.get("error") else {}),
                **({"flags": rec["flags"]} if rec.get("flags") else {}),
                **({"submitted_at": rec["submitted_at"]} if rec.get("submitted_at") else {}),
                "late": bool(rec.get("late")),
                "flag": rec.get("flag"),  # "unreadable" | "wrong_assignment" | None: not graded, see why
                "flag_reason": rec.get("flag_reason", ""),
            }
        write_json_atomic(self.out_dir / "results.json", out)
        return out
