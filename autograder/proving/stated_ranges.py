"""Coverage rules for the ranges a question's text names (issue 38): "every `train_length` ≥ 0
is allowed (0: every key; `length` or more: none)" promises an answer for each of those cases,
so a hidden probe must try each — an answer that slices ``w[:length - train_length]`` without a
guard passes every probe inside the sequence and fails only past its end.

* **Probes** (``range_problems``): for each ``Question.stated_ranges[parameter]``, on each
  self-test student's probes, some call gives the parameter its low end, its high end, a value
  strictly between them, and — where the text allows values past the high end (``above``) — a
  value past it. An end may be another parameter's name (``high="length"``): its value in the
  same call.
* **Text** (``text_problems``): each declared range's words stand in the question's text (the
  markdown between the previous check cell and the question's own), so text and declaration
  change together; and every parameter that the text bounds — a backquoted parameter name
  followed by ≥, ≤, <, > (``$\\ge$`` …), or "`name` … is allowed" — has a declared range (or a
  ``coverage_exempt`` reason).
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from autograder.spec import Assignment, Question, StatedRange

PLACEHOLDER = "# autograder: visible checks for "
_BOUNDED = r"`({name})`\s*\$?\s*(?:\\geq?|\\leq?|≥|≤|>=|<=|<|>)"
_ALLOWED = r"`({name})`[^.;`]{{0,40}}\b(?:is|are) allowed"


def _end(end: float | str | None, call: dict[str, Any]) -> float | None:
    if end is None:
        return None
    value = call.get(end) if isinstance(end, str) else end
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _cases(stated: StatedRange) -> dict[str, Any]:
    """What some probe must show: description -> predicate(value, low, high)."""
    cases = {}
    if stated.low is not None:
        cases[f"the low end {stated.low!r}"] = lambda v, lo, hi: lo is not None and v == lo
    if stated.high is not None:
        cases[f"the high end {stated.high!r}"] = lambda v, lo, hi: hi is not None and v == hi
    if stated.low is not None and stated.high is not None:
        cases["a value strictly inside"] = lambda v, lo, hi: lo is not None and hi is not None and lo < v < hi
    if stated.above:
        cases[f"a value past {stated.high!r}"] = lambda v, lo, hi: hi is not None and v > hi
    return cases


def range_problems(q: Question, student: str, calls: list[dict[str, Any]]) -> list[str]:
    """``calls``: each probe's arguments by parameter name (``coverage.arguments``)."""
    problems = []
    for name, stated in q.stated_ranges.items():
        seen = []
        for call in calls:
            try:
                seen.append((float(call[name]), _end(stated.low, call), _end(stated.high, call)))
            except (KeyError, TypeError, ValueError):
                continue
        for description, holds in _cases(stated).items():
            if not any(holds(v, lo, hi) for v, lo, hi in seen):
                problems.append(
                    f"{q.grade_id}: no hidden probe of {student} gives `{name}` {description}, which the text "
                    f'allows ("{stated.text}"): an answer that fails there passes'
                )
    return problems


def _squash(text: str) -> str:
    return " ".join(text.split())


def question_texts(nb) -> dict[str, str]:
    """grade id -> the markdown between the previous check cell and this question's check cell."""
    texts, pending = {}, []
    for cell in nb.cells:
        source = cell.source.strip()
        if cell.cell_type == "markdown":
            pending.append(cell.source)
        elif cell.cell_type == "code" and source.startswith(PLACEHOLDER):
            texts[source[len(PLACEHOLDER) :].split()[0]] = "\n".join(pending)
            pending = []
    return texts


def _bounded_names(text: str, names: list[str]) -> set[str]:
    if not names:
        return set()
    alternatives = "|".join(re.escape(n) for n in names)
    found = set()
    for pattern in (_BOUNDED, _ALLOWED):
        found |= {m.group(1) for m in re.finditer(pattern.format(name=alternatives), text)}
    return found


def text_problems(assignment: Assignment, questions: list[Question], nb) -> list[str]:
    texts = question_texts(nb)
    problems = []
    for q in questions:
        text = texts.get(q.grade_id, "")
        for name, stated in q.stated_ranges.items():
            if _squash(stated.text) not in _squash(text):
                problems.append(
                    f'{q.grade_id}: the stated range of `{name}` ("{stated.text}") is not in the question\'s text'
                )
        params = [p.name for p in inspect.signature(q.reference).parameters.values()]
        for name in sorted(_bounded_names(text, params) - set(q.stated_ranges) - set(q.coverage_exempt)):
            problems.append(
                f"{q.grade_id}: the text bounds `{name}` but the question states no range for it "
                "(Question.stated_ranges: the probes must try its ends and past them where allowed)"
            )
    return problems


def notebook_text_problems(assignment: Assignment, questions: list[Question]) -> list[str]:
    """``text_problems`` on the assignment's source notebook; nothing for one built in code."""
    if assignment.root is None:
        return []
    import nbformat

    path = assignment.source_dir / assignment.notebook
    if not path.is_file():
        return []
    return text_problems(assignment, questions, nbformat.read(path, as_version=4))
