"""Gradescope: the autograder zip for a problem set, grading one submission inside it, and
Gradescope's results schema (``publish`` writes it; ``autograder.cli.gradescope`` is the
zip's ``run_autograder`` command).

``autograder gradescope-zip PS --out FILE.zip`` writes the zip Gradescope asks for:

* ``setup.sh``        run once when Gradescope builds the image: Python ≥ 3.11, a venv with the
                      CPU build of torch, this kit installed (``./dev setup``), then ``selftest``;
* ``run_autograder``  run per submission: grades ``/autograder/submission/*.ipynb`` as one student
                      and writes ``/autograder/results/results.json`` in Gradescope's schema;
* ``kit/``            this kit with only that problem set (spec, release, references).

Every path ``run_autograder`` uses can be overridden by an environment variable
(``AUTOGRADER_ROOT``, ``AUTOGRADER_KIT``, ``AUTOGRADER_PYTHON``, ``AUTOGRADER_SUBMISSION``,
``AUTOGRADER_RESULTS``, ``AUTOGRADER_METADATA``), so it runs outside Gradescope too.

The student id — from which the released notebook derived the student's personal parameters —
is read from Gradescope's ``submission_metadata.json`` (first user; field ``email`` unless
``AUTOGRADER_STUDENT_FIELD`` names another, e.g. ``sid``) or given as ``AUTOGRADER_STUDENT``.
It must equal the student's JupyterHub user name, as the notebook used ``JUPYTERHUB_USER``.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path

from autograder.grading.hand_graded import UNANSWERED
from autograder.grading.storage import write_json_atomic
from autograder.outputs.exports import in_notebook_order, pending_hand_graded, question_titles
from autograder.spec import REPO_ROOT, Assignment

ZIP_DATE = (2024, 1, 1, 0, 0, 0)  # fixed timestamps: the same kit gives the same zip
SKIP_PARTS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache"}

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (/autograder/source).
set -euo pipefail
cd "$(dirname "$0")/kit"
export DEBIAN_FRONTEND=noninteractive
PY=$(command -v python3.13 || command -v python3.12 || command -v python3.11 || true)
if [ -z "$PY" ]; then          # Ubuntu 22.04 images ship 3.10; 3.11 is in its archive
  apt-get update -qq && apt-get install -y -qq python3.11 python3.11-venv
  PY=$(command -v python3.11)
fi
if ! "$PY" -c "import ensurepip" 2>/dev/null; then
  apt-get update -qq && apt-get install -y -qq "python$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')-venv"
fi
"$PY" -m venv .venv
# the CPU build of torch first (./dev then sees torch and does not pull a CUDA build)
.venv/bin/pip install -q torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
PYTHON="$PY" ./dev setup       # the kit (editable) and, as root, Debian/Ubuntu's bubblewrap
.venv/bin/autograder selftest {ps}   # refuse to build an image that cannot grade
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission. Each path can be overridden from the environment.
set -euo pipefail
ROOT=${{AUTOGRADER_ROOT:-/autograder}}
KIT=${{AUTOGRADER_KIT:-$ROOT/source/kit}}
PYTHON=${{AUTOGRADER_PYTHON:-$KIT/.venv/bin/python}}
cd "$KIT"
export PYTHONPATH="$KIT${{PYTHONPATH:+:$PYTHONPATH}}"   # this zip's kit, whatever else is installed
exec "$PYTHON" -m autograder.cli.gradescope {ps} \\
  --submission "${{AUTOGRADER_SUBMISSION:-$ROOT/submission}}" \\
  --results "${{AUTOGRADER_RESULTS:-$ROOT/results}}" \\
  --metadata "${{AUTOGRADER_METADATA:-$ROOT/submission_metadata.json}}"
"""


# ---------------------------------------------------------------- the zip


def kit_files(assignment: Assignment) -> list[tuple[Path, str]]:
    """(file on disk, name in the zip): the kit's package and references, and this problem set's
    source and release laid out as a course of one problem set (kit/ is that course)."""
    from autograder.releasing.stages import released_notebook

    trees = [
        (REPO_ROOT / "autograder", "kit/autograder"),
        (REPO_ROOT / "solutions", "kit/solutions"),
        (assignment.source_dir, f"kit/source/{assignment.name}"),
        (released_notebook(assignment).parent, f"kit/release/{assignment.name}"),
    ]
    # the kit's own problem sets stay out (only this one goes in, as the course's source); the
    # package marker stays, so that the kit installs (pyproject maps assignments/ into it)
    top = ("pyproject.toml", "README.md", "dev", "assignments/__init__.py")
    files = [(REPO_ROOT / n, f"kit/{n}") for n in top if (REPO_ROOT / n).is_file()]
    for root, name in trees:
        files += [
            (p, f"{name}/{p.relative_to(root).as_posix()}")
            for p in root.rglob("*")
            if p.is_file() and not SKIP_PARTS & set(p.parts) and p.suffix not in (".pyc", ".pyo")
        ]
    return sorted(files, key=lambda item: item[1])


def _add(zf: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = ((0o755 if executable else 0o644) | 0o100000) << 16  # regular file + mode
    zf.writestr(info, data)


def build_zip(assignment: Assignment, path: Path) -> list[str]:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    short = assignment.name.split("_", 1)[0]
    names = []
    with zipfile.ZipFile(path, "w") as zf:
        _add(zf, "setup.sh", SETUP_SH.format(ps=short).encode(), executable=True)
        _add(zf, "run_autograder", RUN_AUTOGRADER.format(ps=short).encode(), executable=True)
        names += ["setup.sh", "run_autograder"]
        _add(zf, "kit/autograder.toml", b"# the course of this autograder zip: source/ and release/ beside it\n")
        names.append("kit/autograder.toml")
        for source, name in kit_files(assignment):
            _add(zf, name, source.read_bytes(), executable=os.access(source, os.X_OK))
            names.append(name)
    return names


# ---------------------------------------------------------------- inside Gradescope


def student_id(metadata: Path) -> str:
    given = os.environ.get("AUTOGRADER_STUDENT")
    if not given:
        field = os.environ.get("AUTOGRADER_STUDENT_FIELD", "email")
        try:
            users = json.loads(metadata.read_text(encoding="utf-8")).get("users") or []
        except (OSError, ValueError) as exc:
            raise RuntimeError(f"cannot read {metadata} ({exc}); set AUTOGRADER_STUDENT") from None
        given = str(users[0].get(field) or "") if users else ""
        if not given:
            raise RuntimeError(f"{metadata} names no user with a {field!r}")
    if given in (".", "..") or "/" in given or "\0" in given:
        raise RuntimeError(f"unusable student id {given!r}")
    return given


def zero_record(assignment: Assignment, reason: str) -> dict:
    questions = {
        q.grade_id: {
            "score": 0.0,
            "max_score": float(q.points),
            "status": "missing",
            "feedback": reason,
            "misconception": None,
        }
        for q in assignment.questions
    }
    return {"score": 0.0, "max_score": assignment.max_score, "questions": questions}


def grade_submission(assignment: Assignment, student: str, submission: Path) -> dict:
    """One student's record, graded as every submission is: through the intake, in the sandbox,
    into an output folder this run owns (and locks) while it grades."""
    from autograder.grading.cohort import grade_cohort
    from autograder.grading.storage import ResultStore
    from autograder.intake.upload import one_upload

    with tempfile.TemporaryDirectory(prefix="gradescope-") as tmp:
        sub = one_upload(submission, assignment, student, Path(tmp) / "submissions")
        if sub.notebook is None:
            return zero_record(assignment, sub.problem)
        out = Path(tmp) / "out"
        with ResultStore(out).locked():
            results = grade_cohort(assignment, [sub], out, workers=1, progress=False)
    return results["students"][student]


# ---------------------------------------------------------------- the results schema


def gradescope_results(assignment: Assignment, rec: dict) -> dict:
    """One student's result in Gradescope's results.json schema."""
    titles = dict(question_titles(assignment))
    waiting = sum(q["max_score"] for _, _, q in pending_hand_graded(assignment, rec["questions"]))
    blank = sum(q["max_score"] for q in rec["questions"].values() if q.get("status") == UNANSWERED)
    return {
        "score": rec["score"],
        "output": f"{assignment.name}: {rec['score']:g} / {rec['max_score']:g}"
        + (f" autograded; {waiting:g} points graded by hand, still to come" if waiting else "")
        + (f"; {blank:g} points graded by hand, handed in as released (0)" if blank else ""),
        "tests": [
            {
                "name": titles.get(gid, gid),
                "number": gid,
                "score": q["score"],
                "max_score": q["max_score"],
                "status": "passed" if q["status"] == "passed" else "failed",
                "output": q["feedback"],
                "visibility": "visible",
            }
            for gid, q in in_notebook_order(assignment, rec["questions"])
        ],
    }


def write_gradescope(assignment: Assignment, results: dict, path: Path) -> None:
    """A single submission -> Gradescope's schema; a cohort -> one object per student."""
    students = results["students"]
    if len(students) == 1:
        data = gradescope_results(assignment, next(iter(students.values())))
    else:
        data = {s: gradescope_results(assignment, r) for s, r in sorted(students.items())}
    write_json_atomic(Path(path), data)
