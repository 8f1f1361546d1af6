"""A student's own zip inside an LMS export (``smith_john_123_456_ps4_alibi.zip`` in a Canvas
export, a zip in a Moodle submission folder): unpacked one level, by the same safe rules as the
export itself (autograder/intake/safe_unzip.py), under the intake's work directory. A zip that
is refused, or holds no notebook, is the student's entry listed as unmatched (the caller exits
2), never a student who "handed nothing in". Zips inside it are not opened.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from autograder.intake.safe_unzip import DEFAULT_LIMITS, Limits, UnsafeArchive, unpack


def notebooks_in_zip(archive: Path, work_dir: Path, limits: Limits = DEFAULT_LIMITS) -> tuple[list[Path], str]:
    """(the notebooks in ``archive``, unpacked under ``work_dir/nested/``; why there are none)."""
    key = hashlib.sha256(str(Path(archive).resolve()).encode()).hexdigest()[:12]
    dest = Path(work_dir) / "nested" / f"{key}-{Path(archive).stem}"
    try:
        unpack(archive, dest, limits)
    except UnsafeArchive as exc:
        return [], f"a zip inside the export, {exc}"
    found = sorted(
        p
        for p in dest.rglob("*.ipynb")
        if p.is_file()
        and not p.is_symlink()
        and not any(part.startswith(".") or part == "__MACOSX" for part in p.relative_to(dest).parts)
    )
    return found, "" if found else "a zip inside the export that holds no notebook"


def notebooks_in_zips(archives: list[Path], work_dir: Path, limits: Limits) -> tuple[list[Path], list[str]]:
    """The notebooks of every zip in ``archives``, and why each one that gave none did not."""
    found, problems = [], []
    for archive in archives:
        notebooks, why = notebooks_in_zip(archive, work_dir, limits)
        found += notebooks
        problems += [why] if why else []
    return found, problems
