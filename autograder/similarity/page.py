"""The similarity report page: ``OUT/similarity/index.html``.

Stable ids and classes (``#evidence-note``, ``#personal``, ``#clusters``, ``#pairs``,
``section.pair``, ``mark``) so that tests and scripts can read it. Student code is shown
escaped, never run or rendered as HTML.
"""

from __future__ import annotations

import html

from autograder.similarity import code as sc
from autograder.similarity.personal import PersonalFlag

EVIDENCE_NOTE = (
    "Evidence for the instructor, never a score change: nothing on this page changes a score, the "
    "feedback or the gradebook. Similar code can be honest (a short answer, a study group that "
    "discussed ideas, the same idiom from the same lecture): read the matching regions and talk "
    "with the students before concluding anything."
)

STYLE = """body{font-family:system-ui,sans-serif;max-width:90rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:1rem 0}td,th{border-bottom:1px solid #ddd;padding:.35rem .6rem;text-align:left;vertical-align:top}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}.note{color:#555;font-size:.9rem}
#evidence-note{background:#fff6d6;border-left:4px solid #c47f00;padding:.6rem 1rem}
table.side{width:100%;table-layout:fixed}table.side td{width:50%}
pre{white-space:pre-wrap;font-size:.82rem;background:#f7f7f7;padding:.5rem;margin:0}
mark{background:#ffd27a}"""


def _e(text) -> str:
    return html.escape(str(text))


def pair_id(pair: sc.Pair) -> str:
    return "pair-" + "".join(c if c.isalnum() else "_" for c in f"{pair.a}--{pair.b}")


def _marked(source: str, spans) -> str:
    out, at = [], 0
    for start, end in spans:
        out += [_e(source[at:start]), f"<mark>{_e(source[start:end])}</mark>"]
        at = end
    out.append(_e(source[at:]))
    return "".join(out)


def _personal(flags: list[PersonalFlag], available: bool) -> str:
    head = "<h2>Personal answers computed for someone else's parameters</h2>"
    if not available:
        return head + (
            '<p id="personal-unavailable">No personal answers are stored in this output folder: '
            "grade again with <code>--force</code> (answers are kept from this version on).</p>"
        )
    if not flags:
        return (
            head
            + '<p id="personal-none">Every personal answer that was kept fits its own student\'s parameters (or none).</p>'
        )
    rows = "".join(
        f'<tr data-student="{_e(f.student)}" data-question="{_e(f.grade_id)}">'
        f'<td class="student">{_e(f.student)}</td><td class="question">{_e(f.grade_id)}</td>'
        f'<td class="matches">{_e(", ".join(f.matches))}</td><td class="text">{_e(f.text())}</td></tr>'
        for f in flags
    )
    return head + (
        '<table id="personal"><tr><th>student</th><th>question</th><th>fits the parameters of</th>'
        f"<th>what it means</th></tr>{rows}</table>"
    )


def _clusters(comparison: sc.Comparison) -> str:
    if not comparison.clusters:
        return ""
    scores = {(p.a, p.b): p.score for p in comparison.pairs}
    blocks = []
    for n, group in enumerate(comparison.clusters, start=1):
        cells = "".join(f"<th>{_e(s)}</th>" for s in group)
        rows = []
        for a in group:
            row = []
            for b in group:
                s = scores.get((a, b)) or scores.get((b, a))
                row.append(f'<td class="num">{"—" if a == b else (f"{s:.2f}" if s else "")}</td>')
            rows.append(f"<tr><th>{_e(a)}</th>{''.join(row)}</tr>")
        blocks.append(
            f'<div class="cluster" data-members="{_e(" ".join(group))}"><h3>Group {n}: '
            f"{len(group)} students</h3><table><tr><th></th>{cells}</tr>{''.join(rows)}</table></div>"
        )
    return (
        '<h2>Groups</h2><p class="note">Students linked by flagged pairs (connected components); '
        "a cell is the pair's score, empty where that pair was not flagged itself.</p>"
        f'<div id="clusters">{"".join(blocks)}</div>'
    )


def _pairs(comparison: sc.Comparison) -> str:
    if not comparison.pairs:
        return (
            f'<h2>Pairs</h2><p id="pairs-none">No pair of students reaches the threshold '
            f"({comparison.threshold:.2f}).</p>"
        )
    rows = "".join(
        f'<tr data-pair="{_e(p.a)} {_e(p.b)}"><td>'
        + (f'<a href="#{pair_id(p)}">{_e(p.a)} – {_e(p.b)}</a>' if p.regions else f"{_e(p.a)} – {_e(p.b)}")
        + "</td>"
        f'<td class="num score">{p.score:.2f}</td><td class="num">{p.shared}</td>'
        f'<td class="num">{100 * p.coverage_a:.0f}%</td><td class="num">{100 * p.coverage_b:.0f}%</td></tr>'
        for p in comparison.pairs
    )
    details = []
    for p in comparison.pairs[: sc.MAX_DETAILED]:
        regions = "".join(
            f'<tr><td><div class="unit">{_e(r.unit_a.label)}</div><pre>{_marked(r.unit_a.source, r.spans_a)}</pre></td>'
            f'<td><div class="unit">{_e(r.unit_b.label)}</div><pre>{_marked(r.unit_b.source, r.spans_b)}</pre></td></tr>'
            for r in p.regions
        )
        details.append(
            f'<section class="pair" id="{pair_id(p)}"><h3>{_e(p.a)} – {_e(p.b)}: score {p.score:.2f}</h3>'
            f'<table class="side"><tr><th>{_e(p.a)}</th><th>{_e(p.b)}</th></tr>{regions}</table></section>'
        )
    return (
        '<h2>Pairs</h2><table id="pairs"><tr><th>pair</th><th class=num>score</th>'
        "<th class=num>shared fingerprints</th><th class=num>of the first's code</th>"
        f"<th class=num>of the second's code</th></tr>{rows}</table>"
        "<h2>Matching code, side by side</h2>"
        + (
            f'<p class="note">The {sc.MAX_DETAILED} highest-scoring pairs.</p>'
            if len(comparison.pairs) > sc.MAX_DETAILED
            else ""
        )
        + "".join(details)
    )


def _closest(comparison: sc.Comparison) -> str:
    if not comparison.top_unflagged:
        return ""
    rows = "".join(
        f"<tr><td>{_e(p.a)} – {_e(p.b)}</td><td class=num>{p.score:.2f}</td><td class=num>{p.shared}</td></tr>"
        for p in comparison.top_unflagged
    )
    return (
        '<h2>Closest pairs not flagged</h2><p class="note">For calibration: the pairs that come closest '
        f"without being flagged (a score below {comparison.threshold:.2f}, or fewer than {sc.MIN_SHARED} shared "
        'fingerprints).</p><table id="below"><tr><th>pair</th><th class=num>score</th>'
        f"<th class=num>shared</th></tr>{rows}</table>"
    )


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
    parts = [
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{_e(assignment_name)} — '
        f"similarity</title><style>{STYLE}</style></head><body>",
        f"<h1>{_e(assignment_name)} — who copied from whom?</h1>",
        f'<p id="evidence-note">{_e(EVIDENCE_NOTE)}</p>',
        f'<p class="note" id="method">{_e(METHOD.format(k=sc.K, w=sc.WINDOW, common=comparison.common, t=comparison.threshold, m=sc.MIN_SHARED))} '
        f"{comparison.students} notebooks compared.</p>",
        _personal(flags, personal_available),
        _clusters(comparison),
        _pairs(comparison),
        _closest(comparison),
    ]
    if unreadable:
        parts.append(
            '<h2>Not compared</h2><table id="unreadable">'
            + "".join(f"<tr><td>{_e(s)}</td><td>{_e(why)}</td></tr>" for s, why in sorted(unreadable.items()))
            + "</table>"
        )
    parts.append("</body></html>")
    return "\n".join(parts)
