"""Validate a problem-set notebook before submitting: ``python validate.py THE_NOTEBOOK.ipynb``.

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

It reports in the student's language: ``--lang de`` (or ``AUTOGRADER_LANG``), else the course's
(``LANGUAGE``, written by the release). ``TRANSLATIONS`` holds this file's messages from the
kit's catalogues, written into it by ``autograder release`` (so it needs no catalogue files);
``autograder validate`` reads the catalogues themselves.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

STUB = "raise NotImplementedError"
LANGUAGE = "en"
TRANSLATIONS: dict[str, dict[str, str]] = {}  # lang -> {message id: translation}; filled by the release


def _t(message_id: str, lang: str = "en", **args) -> str:
    """A message of this report in ``lang``, its named placeholders filled."""
    text = TRANSLATIONS.get(lang, {}).get(message_id)
    if text is None and lang != "en" and not TRANSLATIONS:
        try:  # run from the kit (`autograder validate`): its catalogues
            from autograder.i18n import translate

            return translate(message_id, lang, **args)
        except ImportError:
            pass
    text = text or message_id
    try:
        return text.format(**args)
    except (KeyError, IndexError, ValueError):
        return message_id.format(**args)


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
            error = "NotImplementedError: " + _t(
                "this answer still contains the release's `raise NotImplementedError()`"
            )
        reports.append(CellReport(index, meta.get("grade_id"), kind, error is None, error or ""))
    return reports


def handin_steps(assignment: str, lang: str = "en") -> list[str]:
    """How to hand in ``assignment`` (the notebook's name without .ipynb) and where feedback
    appears, in Markdown: the release's "Handing in" cell and validate's last lines."""
    return [
        _t(
            "**Check** first: *Kernel → Restart & Run All*, or `python validate.py {assignment}.ipynb` "
            "in a terminal in this folder; both run the visible checks only.",
            lang,
            assignment=assignment,
        ),
        _t(
            "**Submit** with the Assignments tab's *Submit* (`nbgrader submit {assignment}`), or upload "
            "the notebook on the course's grading service page (`/services/autograder/` on the course's "
            "JupyterHub). Both are the same hand-in: **your latest submission is the one that counts**.",
            lang,
            assignment=assignment,
        ),
        _t(
            "**Graded on hidden inputs**: the grader calls your functions on inputs drawn for you, not only "
            "the examples in this notebook; passing the visible checks is not yet full marks.",
            lang,
        ),
        _t(
            "**Feedback** appears within about a minute: under the Assignments tab's *Fetch Feedback* "
            "(for a submission made there) and on the grading service's page, with every submission you made.",
            lang,
        ),
    ]


def summarise(reports: list[CellReport], lang: str = "en") -> tuple[bool, str]:
    lines, ok = [], True
    for r in reports:
        if r.kind != "check" and r.ok:  # the checks, and whatever else failed
            continue
        name = r.grade_id or _t("cell {number}", lang, number=r.index + 1)
        if r.ok:
            label = _t("ok", lang)
            lines.append(f"  {label:<7} {name}")
            continue
        ok = False
        message = r.message
        if lang != "en" and message.startswith("NotImplementedError: this answer"):
            message = "NotImplementedError: " + _t(message.split(": ", 1)[1], lang)
        hint = (
            " — " + _t("replace `raise NotImplementedError()` with your answer", lang)
            if "NotImplementedError" in r.message
            else ""
        )
        label = _t("FAILED", lang)
        lines.append(f"  {label:<7} {name}: {message[:300]}{hint}")
    checks = [r for r in reports if r.kind == "check"]
    passed = sum(r.ok for r in checks)
    if ok:
        lines.append(_t("{passed}/{total} visible checks passed", lang, passed=passed, total=len(checks)))
    else:
        lines.append(
            _t(
                "{passed}/{total} visible checks passed; fix the failures above before submitting",
                lang,
                passed=passed,
                total=len(checks),
            )
        )
    return ok, "\n".join(lines)


def validate(notebook: str, timeout: int = 120, lang: str | None = None) -> int:
    """Run and report; the exit status (0 all passed, 1 something failed, 2 no such file)."""
    lang = (lang or os.environ.get("AUTOGRADER_LANG") or LANGUAGE).split("-")[0].split("_")[0].lower()
    path = Path(notebook)
    if not path.is_file():
        print(_t("no such notebook: {path}", lang, path=path), file=sys.stderr)
        return 2
    try:
        reports = run_notebook(path, timeout=timeout)
    except Exception as exc:  # unreadable notebook, dead kernel
        print(_t("could not run {name}: {error}", lang, name=path.name, error=exc), file=sys.stderr)
        return 1
    ok, text = summarise(reports, lang)
    print(_t("Validating {name}:", lang, name=path.name) + "\n" + text + "\n\n" + _t("Handing in:", lang))
    for step in handin_steps(path.stem, lang):
        print("  - " + step.replace("**", "").replace("`", ""))
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python validate.py", description=__doc__.split("\n", 1)[0])
    parser.add_argument("notebook")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per cell")
    parser.add_argument("--lang", help="the report's language: en, de, fa, pl, tr, ko (default: the course's)")
    args = parser.parse_args(argv)
    return validate(args.notebook, args.timeout, args.lang)


if __name__ == "__main__":
    sys.exit(main())
