"""What a graded record keeps of a student's answers for later checks: the personal answers.

Questions marked ``personal`` expect a value computed from the student's own parameters. The
value each such question returned is kept in the record (``personal_answers``: the wire's own
lossless JSON encoding, a few hundred bytes; larger values are not kept), so that
``autograder similarity`` can later ask whether it fits a classmate's parameters instead
(``autograder.similarity.personal``) without running anything again.
"""

from __future__ import annotations

import json

from autograder.sandbox import wire
from autograder.spec import Assignment, Question

MAX_STORED_CHARS = 4096  # a personal answer is a small table of numbers; anything bigger is not kept


def personal_questions(assignment: Assignment) -> list[Question]:
    return [q for q in assignment.questions if q.personal and not q.call]


def personal_answers(assignment: Assignment, outcomes: dict) -> dict[str, object]:
    """grade_id -> the returned value, wire-encoded (JSON-able, decoded exactly as judged), for
    the personal questions that returned one small enough to keep."""
    kept = {}
    for q in personal_questions(assignment):
        outcome = outcomes.get(q.grade_id)
        results = getattr(outcome, "results", None) or []
        if not results or not isinstance(results[0], dict) or "value" not in results[0]:
            continue
        try:
            encoded = wire.encode_value(results[0]["value"])
            text = json.dumps(encoded, allow_nan=False, sort_keys=True)
        except (TypeError, ValueError):  # NaN, odd keys: the record must stay writable
            continue
        if len(text) <= MAX_STORED_CHARS:
            kept[q.grade_id] = encoded
    return kept
