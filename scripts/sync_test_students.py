"""Carry a new release's locked cells into the test students' notebooks.

After `autograder release`, a locked cell whose released source changed (against the committed
release at HEAD) is replaced in every notebook under tests/ that still holds HEAD's version of it,
so the in-repo students keep handing in the course's own locked cells.

    .venv/bin/python scripts/sync_test_students.py [ps1_attention ...]
"""

import glob
import json
import subprocess
import sys
from pathlib import Path


def _locked(nb):
    return {
        c["metadata"]["nbgrader"]["grade_id"]: "".join(c["source"])
        for c in nb["cells"]
        if c.get("metadata", {}).get("nbgrader", {}).get("locked")
    }


def _write_like(path, raw, nb):
    indent = 1 if raw.startswith('{\n "') else (2 if raw.startswith("{\n  ") else None)
    path.write_text(json.dumps(nb, indent=indent, ensure_ascii=False) + ("\n" if raw.endswith("\n") else ""))


def sync(only=()):
    changed = 0
    for ps in sorted(Path("release").iterdir()):
        if only and ps.name not in only:
            continue
        name = f"{ps.name}.ipynb"
        if not (ps / name).is_file():
            continue  # release/<ps>_<lang>/: a translation (its locked code is the English release's)
        old = json.loads(subprocess.check_output(["git", "show", f"HEAD:release/{ps.name}/{name}"]))
        was, now = _locked(old), _locked(json.loads((ps / name).read_text()))
        moved = {g: (was[g], now[g]) for g in now if g in was and was[g] != now[g]}
        if not moved:
            continue
        for path in map(Path, glob.glob("tests/**/*.ipynb", recursive=True)):
            raw = path.read_text()
            try:
                nb = json.loads(raw)
            except ValueError:
                continue  # a deliberately broken student
            hit = False
            for cell in nb.get("cells", []):
                g = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
                if g in moved and "".join(cell["source"]).strip() == moved[g][0].strip():
                    src = moved[g][1]
                    cell["source"] = src.splitlines(keepends=True) if isinstance(cell["source"], list) else src
                    hit = True
            if hit:
                _write_like(path, raw, nb)
                changed += 1
                print("synced", path)
    return changed


if __name__ == "__main__":
    print(sync(set(sys.argv[1:])), "notebooks synced")
