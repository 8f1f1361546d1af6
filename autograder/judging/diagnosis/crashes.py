"""Diagnosis of an answer that raises: *when* it raises, and what the exception's shapes say.

* **Which circumstance triggers it.** When the answer raises on some probes and returns on
  others, the first property of the arguments that holds on every probe that raised and on none
  that returned is named ("it raises only when `mask` is given"; the properties are in
  ``circumstances.py``). Only the property is named — never a probe's values, a hidden function
  or a seed.
* **What the exception says.** When it raises everywhere: a matrix product whose inner sizes
  differ but would agree with one operand transposed, an index one past the end of an axis, a
  module used as a number, an assertion of the student's own that rejects inputs the
  specification allows (the rules are in ``crash_messages.py``).

Nothing here is claimed unless it holds on every probe (the separation is exact; a message-based
diagnosis must fit every probe that raised).
"""

from __future__ import annotations

from autograder.judging.diagnosis.base import Diagnosis
from autograder.judging.diagnosis.circumstances import separating_circumstance
from autograder.judging.diagnosis.crash_messages import find_message, first_cause
from autograder.spec import Probe, Question


def _error_type(text: str) -> str:
    return text.split(":", 1)[0].strip()


def find_trigger(question: Question, probes: list[Probe], items: list[dict]) -> Diagnosis | None:
    """Raises on some probes, returns on others: the one property of the arguments that tells them
    apart. Or, when different inputs raise different exceptions: the property that tells the
    probes raising the first one (the one shown) from all the others."""
    raised = [p for p, item in zip(probes, items) if "error" in item]
    returned = [p for p, item in zip(probes, items) if "value" in item]
    if not raised:
        return None
    if returned:
        words = separating_circumstance(question, probes, raised, returned)
        if words is not None:
            return Diagnosis(
                "crash_trigger",
                f"it raises only when {words}, and runs on every other input: "
                "look at what your code does differently in that case",
            )
    first = _error_type(next(item["error"] for item in items if "error" in item))
    same = [p for p, item in zip(probes, items) if "error" in item and _error_type(item["error"]) == first]
    others = [p for p in probes if all(p is not q for q in same)]
    if others and len(same) < len(raised) + len(returned):
        words = separating_circumstance(question, probes, same, others)
        if words is not None:
            cause = first_cause([item["error"] for p, item in zip(probes, items) if any(p is q for q in same)])
            why = cause[1] if cause is not None else None
            return Diagnosis(
                "crash_trigger",
                f"it raises this {first} only when {words} (other inputs fail "
                "differently or run)"
                + (f"; {why}" if why else ": look at what your code does differently in that case"),
            )
    return None


def diagnose_crash(question: Question, probes: list[Probe], items: list[dict]) -> Diagnosis | None:
    """When an answer raises on some probe: the circumstance, or what its exception shows."""
    items = list(items)[: len(probes)]
    found = find_trigger(question, probes, items)
    if found is not None:
        return found
    errors = [item["error"] for item in items if "error" in item]
    return find_message(errors, everywhere=len(errors) == len(probes)) if errors else None


__all__ = ["diagnose_crash", "find_trigger"]
