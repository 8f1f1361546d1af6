"""What a re-grade changed: which verdict sources differ from the last run, and whose scores moved.

Each grading run records its sources in ``OUT/sources.json``: a digest of every file that can
decide a verdict (``cohort.verdict_sources``: the problem set's modules, ``solutions/``, the
grader's judging), the kit's version and each student's notebook digest. The next run into the
same OUT compares its own with them and with the scores in the old ``results.json``, and says
both: the sources that changed, then every (student, question) whose score moved, old -> new —
or that nothing changed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from autograder.grading.storage import write_json_atomic

SOURCES_FILE = "sources.json"
KINDS = {
    "ps": "the problem set's questions (references, probes, known mistakes)",
    "solutions": "the reference solutions (solutions/)",
    "judging": "the grader's judging (comparators, diagnoses, verdict)",
    "grading": "the grader's policies after the verdict (second training run, root cause)",
}


def kit_version() -> str:
    try:
        return metadata.version("transformer-autograder")
    except metadata.PackageNotFoundError:
        return "unknown"


def file_digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        return "absent"


def record_sources(out_dir: Path, sources: list[tuple[str, Path]], notebooks: dict[str, Path | None]) -> dict:
    """Write ``OUT/sources.json`` for this run (``sources`` as ``cohort.verdict_sources`` lists them)."""
    data = {
        "kit": kit_version(),
        "files": {name: file_digest(path) for name, path in sources},
        "notebooks": {s: (file_digest(p) if p is not None else "none") for s, p in sorted(notebooks.items())},
    }
    write_json_atomic(Path(out_dir) / SOURCES_FILE, data)
    return data


@dataclass
class Previous:
    """What OUT held before this run (empty when it is the first)."""

    sources: dict | None
    results: dict | None

    @classmethod
    def read(cls, out_dir: Path) -> Previous:
        def load(name: str) -> dict | None:
            try:
                data = json.loads((Path(out_dir) / name).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
            return data if isinstance(data, dict) else None

        return cls(load(SOURCES_FILE), load("results.json"))


def changed_sources(before: dict | None, after: dict) -> list[str]:
    """One line per kind of verdict source that differs (files named), kit version, notebooks."""
    if before is None:
        return ["sources: not recorded by the last run (graded by an older kit)"]
    lines = []
    old_files, new_files = before.get("files", {}), after["files"]
    for kind, what in KINDS.items():
        names = sorted(
            n.split("/", 1)[1]
            for n in set(old_files) | set(new_files)
            if n.split("/", 1)[0] == kind and old_files.get(n) != new_files.get(n)
        )
        if names:
            lines.append(f"{what}: {', '.join(names[:8])}" + (f" and {len(names) - 8} more" if len(names) > 8 else ""))
    if before.get("kit") != after["kit"]:
        lines.append(f"the kit's version: {before.get('kit')} -> {after['kit']}")
    old_nb, new_nb = before.get("notebooks", {}), after["notebooks"]
    edited = sorted(s for s in new_nb if s in old_nb and old_nb[s] != new_nb[s])
    added = sorted(set(new_nb) - set(old_nb))
    for label, students in (("notebooks handed in again", edited), ("new submissions", added)):
        if students:
            lines.append(
                f"{label} ({len(students)}): {', '.join(students[:10])}" + (" …" if len(students) > 10 else "")
            )
    return lines


def moved_scores(before: dict | None, after: dict) -> list[tuple[str, str, float, float]]:
    """(student, question, old, new) for every question score that differs, students in both runs."""
    moved = []
    old_students = (before or {}).get("students", {})
    for student, rec in sorted(after.get("students", {}).items()):
        old = old_students.get(student)
        if not isinstance(old, dict):
            continue
        old_q = old.get("questions", {})
        for gid, q in rec.get("questions", {}).items():
            was = old_q.get(gid, {}).get("score") if isinstance(old_q.get(gid), dict) else None
            if was is not None and float(was) != float(q["score"]):
                moved.append((student, gid, float(was), float(q["score"])))
    return moved


def describe(previous: Previous, sources: dict, results: dict) -> str:
    """The re-grade's account for the terminal ('' on a first run into an empty OUT)."""
    if previous.results is None:
        return ""
    changed = changed_sources(previous.sources, sources)
    moved = moved_scores(previous.results, results)
    if not changed and not moved:
        return (
            f"re-grade: nothing changed since the last run ({len(results.get('students', {}))} results, no score moved)"
        )
    lines = ["re-grade: " + ("changed since the last run:" if changed else "no verdict source changed")]
    lines += [f"  {line}" for line in changed]
    if moved:
        lines.append(f"scores that moved ({len(moved)}):")
        lines += [f"  {s}  {gid}: {old:g} -> {new:g}" for s, gid, old, new in moved]
    else:
        lines.append("no score moved")
    return "\n".join(lines)
