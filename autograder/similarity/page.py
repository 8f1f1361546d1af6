"""The similarity report page: ``OUT/similarity/index.html``.

Rendered from ``templates/pages/similarity.html`` (autoescaped): stable ids and classes
(``#evidence-note``, ``#personal``, ``#clusters``, ``#pairs``, ``section.pair``, ``mark``) so that
tests and scripts can read it. Student code is shown escaped, never run or rendered as HTML.
"""

from __future__ import annotations

from autograder.outputs.templating import render as render_template
from autograder.similarity import code as sc
from autograder.similarity.personal import PersonalFlag

EVIDENCE_NOTE = (
    "Evidence for the instructor, never a score change: nothing on this page changes a score, the "
    "feedback or the gradebook. Similar code can be honest (a short answer, a study group that "
    "discussed ideas, the same idiom from the same lecture): read the matching regions and talk "
    "with the students before concluding anything."
)


def pair_id(pair: sc.Pair) -> str:
    return "pair-" + "".join(c if c.isalnum() else "_" for c in f"{pair.a}--{pair.b}")


def _segments(source: str, spans) -> list[tuple[str, bool]]:
    """``source`` cut at the matching ``spans``: (text, matching) pieces the page marks up."""
    pieces, at = [], 0
    for start, end in spans:
        pieces += [(source[at:start], False), (source[start:end], True)]
        at = end
    pieces.append((source[at:], False))
    return pieces


def _cluster_tables(comparison: sc.Comparison) -> list[tuple[list[str], list[tuple[str, list[str]]]]]:
    """Per group, its members and a row per member: the flagged pairs' scores (— on the diagonal,
    empty where that pair was not flagged itself)."""
    scores = {(p.a, p.b): p.score for p in comparison.pairs}
    tables = []
    for group in comparison.clusters:
        rows = []
        for a in group:
            cells = []
            for b in group:
                s = scores.get((a, b)) or scores.get((b, a))
                cells.append("—" if a == b else (f"{s:.2f}" if s else ""))
            rows.append((a, cells))
        tables.append((list(group), rows))
    return tables


METHOD = (
    "Compared: each student's own code cells (answers and added cells; locked cells and the release's own "
    "code left out), split into functions and the rest of each cell, tokenised with identifiers, numbers "
    "and strings replaced by placeholders and comments, docstrings and whitespace dropped; fingerprints by "
    "copydetect's winnowing ({k}-token windows, window {w}); fingerprints found in at least half the cohort "
    "left out ({common} here). Score: shared fingerprints over the smaller student's total; flagged at "
    "{t:.2f} with at least {m} shared."
)


def render(
    assignment_name: str,
    comparison: sc.Comparison,
    flags: list[PersonalFlag],
    *,
    personal_available: bool,
    unreadable: dict[str, str],
) -> str:
    method = METHOD.format(k=sc.K, w=sc.WINDOW, common=comparison.common, t=comparison.threshold, m=sc.MIN_SHARED)
    return render_template(
        "similarity.html",
        title=f"{assignment_name} — similarity",
        assignment_name=assignment_name,
        evidence_note=EVIDENCE_NOTE,
        method=method,
        comparison=comparison,
        flags=flags,
        personal_available=personal_available,
        clusters=_cluster_tables(comparison),
        detailed=comparison.pairs[: sc.MAX_DETAILED],
        max_detailed=sc.MAX_DETAILED,
        min_shared=sc.MIN_SHARED,
        unreadable=sorted(unreadable.items()),
        pair_id=pair_id,
        segments=_segments,
    )
