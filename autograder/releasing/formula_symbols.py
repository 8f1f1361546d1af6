"""Which symbols a formula question's text offers the student, read from the source notebook.

The text says it in one of the course's phrasings — "in the symbols `d`, `h`, `d_ff`",
"as formula strings in `T`, `d`, `h`", "(symbols `N`, `D`)" — in the nearest markdown cell
above the question's check cell that has such a phrase. The release refuses a question whose
accepted symbols differ from that set (a symbol the text offers but the grader refuses is an
"unknown symbol" at grading; one it accepts but the text never names is a hidden hint).
"""

from __future__ import annotations

import re

from autograder.judging.compare.comparators import Formula
from autograder.spec import Assignment

PLACEHOLDER = "# autograder: visible checks for "
_PHRASE = re.compile(r"(?:symbols?|strings? in)\s+((?:`[A-Za-z_]\w*`\s*(?:,|and|or)?\s*)+)")
_NAME = re.compile(r"`([A-Za-z_]\w*)`")


def offered_symbols(text: str) -> set[str] | None:
    """The symbols a markdown text offers, or None when it names none."""
    found = [set(_NAME.findall(m.group(1))) for m in _PHRASE.finditer(text)]
    return set().union(*found) if found else None


def notebook_offers(nb, grade_id: str) -> set[str] | None:
    cells = nb.cells
    index = next(
        (
            i
            for i, c in enumerate(cells)
            if c.cell_type == "code" and c.source.strip().startswith(PLACEHOLDER + grade_id)
        ),
        None,
    )
    if index is None:
        return None
    for cell in reversed(cells[:index]):
        if cell.cell_type == "markdown":
            offered = offered_symbols(cell.source)
            if offered is not None:
                return offered
    return None


def symbol_mismatches(assignment: Assignment, nb) -> list[str]:
    problems = []
    for q in assignment.questions:
        if not isinstance(q.compare, Formula):
            continue
        offered, accepted = notebook_offers(nb, q.grade_id), set(q.compare.symbols)
        if offered is None:
            problems.append(
                f"{q.grade_id}: the notebook names no symbols for this formula "
                "(say 'in the symbols `a`, `b`' above its check cell)"
            )
        elif offered != accepted:
            problems.append(f"{q.grade_id}: the text offers {sorted(offered)}, the grader accepts {sorted(accepted)}")
    return problems
