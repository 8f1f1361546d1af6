"""The copying evidence of a graded cohort (`autograder similarity PS OUT_DIR [--submissions DIR]`).

The notebooks are those `autograder grade` graded: each per-submission record names its
notebook (``OUT/submissions/<student>.json``, key ``notebook``; a zip's are unpacked under
``OUT/intake/``). ``--submissions DIR`` (with ``--id-pattern``/``--roster`` as for `grade`) finds
them through the same intake instead: for an output folder graded before records named their
notebook, or whose notebooks moved since. Writes ``OUT/similarity/index.html`` and
``OUT/similarity/summary.json``; the scores in ``results.json`` are never touched.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from autograder.similarity import code as sc
from autograder.similarity.page import EVIDENCE_NOTE, render
from autograder.similarity.personal import PersonalFlag, check_personal, personal_questions


@dataclass
class Analysis:
    comparison: sc.Comparison
    personal: list[PersonalFlag]
    personal_available: bool
    unreadable: dict[str, str] = field(default_factory=dict)  # student -> why their code was not compared


def _records(out_dir: Path) -> dict[str, dict]:
    from autograder.grading.storage import ResultStore

    results = json.loads((out_dir / "results.json").read_text(encoding="utf-8"))
    store = ResultStore(out_dir)
    records = {}
    for student in results.get("students", {}):
        stored = store.load(student)
        records[student] = stored.get("record", {}) if isinstance(stored, dict) else {}
    return records


def _notebooks(
    assignment, records: dict[str, dict], submissions: Path | None, out_dir: Path, intake_options: dict
) -> dict[str, Path | str]:
    """student -> notebook path, or why there is none."""
    if submissions is not None:
        from autograder.intake.collect import collect

        intake = collect(submissions, assignment, out_dir / "similarity" / "intake", **intake_options)
        return {s.student: s.notebook or s.problem for s in intake.submissions}
    return {
        student: Path(rec["notebook"])
        if rec.get("notebook")
        else "its record names no notebook (graded before this version): pass --submissions DIR"
        for student, rec in records.items()
    }


def analyse(
    assignment,
    out_dir: Path,
    submissions: Path | None = None,
    *,
    threshold: float = sc.THRESHOLD,
    intake_options: dict | None = None,
) -> Analysis:
    from autograder.releasing.stages import released_notebook

    records = _records(out_dir)
    release = sc.read_release(str(released_notebook(assignment)))
    boilerplate = sc.boilerplate_of(release)
    codes, unreadable = [], {}
    found = _notebooks(assignment, records, submissions, Path(out_dir), intake_options or {})
    for student, notebook in sorted(found.items()):
        if isinstance(notebook, str):
            unreadable[student] = notebook
            continue
        try:
            units = sc.units_of(sc.student_cells(notebook, release))
        except (OSError, ValueError) as exc:  # NotebookError is a ValueError
            unreadable[student] = str(exc)
            continue
        codes.append(sc.fingerprint(student, units, boilerplate))
    answers = {s: rec.get("personal_answers") or {} for s, rec in records.items()}
    available = any(answers.values()) or not personal_questions(assignment)
    return Analysis(sc.compare(codes, threshold=threshold), check_personal(assignment, answers), available, unreadable)


def summary(analysis: Analysis) -> dict:
    c = analysis.comparison
    return {
        "note": EVIDENCE_NOTE,
        "threshold": c.threshold,
        "students_compared": c.students,
        "pairs": [{"a": p.a, "b": p.b, "score": p.score, "shared": p.shared} for p in c.pairs],
        "clusters": c.clusters,
        "personal": [
            {"student": f.student, "question": f.grade_id, "matches": list(f.matches)} for f in analysis.personal
        ],
        "not_compared": analysis.unreadable,
    }


def write_similarity(
    assignment,
    out_dir: Path,
    submissions: Path | None = None,
    *,
    threshold: float = sc.THRESHOLD,
    intake_options: dict | None = None,
) -> tuple[Path, Analysis]:
    from autograder.grading.storage import write_json_atomic

    analysis = analyse(assignment, out_dir, submissions, threshold=threshold, intake_options=intake_options)
    folder = Path(out_dir) / "similarity"
    folder.mkdir(parents=True, exist_ok=True)
    page = folder / "index.html"
    page.write_text(
        render(
            assignment.name,
            analysis.comparison,
            analysis.personal,
            personal_available=analysis.personal_available,
            unreadable=analysis.unreadable,
        ),
        encoding="utf-8",
    )
    write_json_atomic(folder / "summary.json", summary(analysis))
    return page, analysis


def report_section(assignment, out_dir: Path) -> str:
    """The similarity section of `autograder report`: a summary and a link to the full page."""
    import html

    e = html.escape
    head = '<h2 id="similarity">Similarity (evidence, not scores)</h2>'
    try:
        _, analysis = write_similarity(assignment, out_dir)
    except (OSError, ValueError) as exc:
        return head + f'<p id="similarity-unavailable">Not computed: {e(str(exc))}</p>'
    c = analysis.comparison
    lines = [
        f"{len(c.pairs)} pair(s) of students at or above similarity {c.threshold:.2f}"
        + (f", in {len(c.clusters)} group(s)" if c.clusters else "")
        + ".",
        f"{len(analysis.personal)} personal answer(s) fit another student's parameters.",
    ]
    items = [f"<li>{e(p.a)} – {e(p.b)}: {p.score:.2f}</li>" for p in c.pairs[:10]]
    items += [f"<li>{e(f.text())}</li>" for f in analysis.personal[:10]]
    return (
        head + f'<p class="note">{e(EVIDENCE_NOTE)}</p><p id="similarity-summary">{e(" ".join(lines))} '
        '<a href="../similarity/index.html">Full similarity report</a>.</p>'
        + (f'<ul id="similarity-top">{"".join(items)}</ul>' if items else "")
    )
