"""Validate a problem-set notebook before submitting: ``python validate.py ps5_equivariance.ipynb``.

``autograder release`` ships this file beside every released notebook as ``validate.py`` (the
notebook's own name written in above): it needs only what a student's install has
(``student-requirements.txt``: nbgrader brings nbformat and nbclient, ipykernel the kernel),
nothing of the grader. ``autograder validate`` is the same code. It runs the notebook top to
bottom in a real Jupyter kernel, as *Kernel -> Restart & Run All* would, reports each visible
check cell (and any other cell that failed), then says how to hand in and where the feedback
appears (:func:`handin_steps`, also the release's "Handing in" cell). Exit 1 when a check fails,
a cell errors or an answer cell still holds the release's ``raise NotImplementedError()`` —
also inside a function nothing calls yet (nbgrader's own validate exits 0 then); exit 2 when
the file is not there.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

STUB = "raise NotImplementedError"


@dataclass
class CellReport:
    index: int
    grade_id: str | None
    kind: str  # "check" | "answer" | "code"
    ok: bool
    message: str


def error_of(cell) -> str | None:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            return f"{out.get('ename')}: {out.get('evalue')}"
    return None


def run_notebook(path: Path, timeout: int = 120) -> list[CellReport]:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(Path(path).parent)}},
    )
    client.execute()
    reports = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        meta = cell.get("metadata", {}).get("nbgrader", {})
        kind = (
            "check"
            if meta.get("grade") and not meta.get("solution")
            else ("answer" if meta.get("solution") else "code")
        )
        error = error_of(cell)
        if error is None and kind == "answer" and STUB in cell.source:
            # a function whose body is still the stub defines fine and fails only when called
            error = "NotImplementedError: this answer still contains the release's `raise NotImplementedError()`"
        reports.append(CellReport(index, meta.get("grade_id"), kind, error is None, error or ""))
    return reports


def handin_steps(assignment: str) -> list[str]:
    """How to hand in ``assignment`` (the notebook's name without .ipynb) and where feedback
    appears, in Markdown: the release's "Handing in" cell and validate's last lines."""
    return [
        f"**Check** first: *Kernel → Restart & Run All*, or `python validate.py {assignment}.ipynb` "
        "in a terminal in this folder; both run the visible checks only.",
        f"**Submit** with the Assignments tab's *Submit* (`nbgrader submit {assignment}`), or upload "
        "the notebook on the course's grading service page (`/services/autograder/` on the course's "
        "JupyterHub). Both are the same hand-in: **your latest submission is the one that counts**.",
        "**Graded on hidden inputs**: the grader calls your functions on inputs drawn for you, not only "
        "the examples in this notebook; passing the visible checks is not yet full marks.",
        "**Feedback** appears within about a minute: under the Assignments tab's *Fetch Feedback* "
        "(for a submission made there) and on the grading service's page, with every submission you made.",
    ]


def summarise(reports: list[CellReport]) -> tuple[bool, str]:
    lines, ok = [], True
    for r in reports:
        if r.kind != "check" and r.ok:  # the checks, and whatever else failed
            continue
        name = r.grade_id or f"cell {r.index + 1}"
        if r.ok:
            lines.append(f"  ok      {name}")
            continue
        ok = False
        hint = " — replace `raise NotImplementedError()` with your answer" if "NotImplementedError" in r.message else ""
        lines.append(f"  FAILED  {name}: {r.message[:300]}{hint}")
    checks = [r for r in reports if r.kind == "check"]
    passed = sum(r.ok for r in checks)
    lines.append(
        f"{passed}/{len(checks)} visible checks passed" + ("" if ok else "; fix the failures above before submitting")
    )
    return ok, "\n".join(lines)


def validate(notebook: str, timeout: int = 120) -> int:
    """Run and report; the exit status (0 all passed, 1 something failed, 2 no such file)."""
    path = Path(notebook)
    if not path.is_file():
        print(f"no such notebook: {path}", file=sys.stderr)
        return 2
    try:
        reports = run_notebook(path, timeout=timeout)
    except Exception as exc:  # unreadable notebook, dead kernel
        print(f"could not run {path.name}: {exc}", file=sys.stderr)
        return 1
    ok, text = summarise(reports)
    print(f"Validating {path.name}:\n{text}\n\nHanding in:")
    for step in handin_steps(path.stem):
        print("  - " + step.replace("**", "").replace("`", ""))
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python validate.py", description=__doc__.split("\n", 1)[0])
    parser.add_argument("notebook")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per cell")
    args = parser.parse_args(argv)
    return validate(args.notebook, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
