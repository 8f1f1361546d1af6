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

* **Whose code raised it.** When every exception came from a locked (given) cell, that is said,
  with the student's own line that called it; an assert there is the notebook's check, not theirs.

Nothing here is claimed unless it holds on every probe (the separation is exact; a message-based
diagnosis must fit every probe that raised).
"""

from __future__ import annotations

from autograder.i18n import Message
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
                Message(
                    "it raises only when {circumstance}, and runs on every other input: "
                    "look at what your code does differently in that case",
                    circumstance=words,
                ),
            )
    first = _error_type(next(item["error"] for item in items if "error" in item))
    same = [p for p, item in zip(probes, items) if "error" in item and _error_type(item["error"]) == first]
    others = [p for p in probes if all(p is not q for q in same)]
    if others and len(same) < len(raised) + len(returned):
        words = separating_circumstance(question, probes, same, others)
        if words is not None:
            cause = first_cause([item["error"] for p, item in zip(probes, items) if any(p is q for q in same)])
            why = cause[1] if cause is not None else None
            if why:
                text = Message(
                    "it raises this {error} only when {circumstance} (other inputs fail differently or run); {cause}",
                    error=first,
                    circumstance=words,
                    cause=why,
                )
            else:
                text = Message(
                    "it raises this {error} only when {circumstance} (other inputs fail differently or run): "
                    "look at what your code does differently in that case",
                    error=first,
                    circumstance=words,
                )
            return Diagnosis("crash_trigger", text)
    return None


def _place(where: dict) -> Message:
    return Message(
        "`{function}` ({cell}, line {line})", function=where["function"], cell=where["cell"], line=where["line"]
    )


def raised_in_given_code(items: list[dict]) -> Diagnosis | None:
    """Every exception was raised inside a locked cell, in the same function (the sandbox reports
    the cell of each frame, ``grading.runner.where_raised``): that code is the notebook's, not the
    student's — its assert is a check of what the student's code passed it, and the student's own
    line that called it is named. None when some exception came from the student's own cells."""
    wheres = [item.get("where") for item in items if "error" in item]
    if not wheres or any(not isinstance(w, dict) or not w["raised_in"]["locked"] for w in wheres):
        return None
    if len({w["raised_in"]["function"] for w in wheres}) != 1:
        return None
    first = next(item for item in items if "error" in item)
    given, fed_by = wheres[0]["raised_in"], wheres[0]["fed_by"]
    caller = (
        Message(
            "your {place} passed it the value: look at what that line hands it (a misspelt option, "
            "a wrong type or shape)",
            place=_place(fed_by),
        )
        if fed_by
        else Message("no line of yours was running: look at the names your cells define or change that it uses")
    )
    if _error_type(first["error"]) == "AssertionError":
        return Diagnosis(
            "locked_cell_assert",
            Message(
                "the notebook's own check in a locked cell rejected the value your code passed it: the `assert` "
                "in {place}, given code, failed; {caller}",
                place=_place(given),
                caller=caller,
            ),
        )
    return Diagnosis(
        "locked_cell_crash",
        Message(
            "it was raised inside a locked cell, in {place}, given code; {caller}", place=_place(given), caller=caller
        ),
    )


def diagnose_crash(question: Question, probes: list[Probe], items: list[dict]) -> Diagnosis | None:
    """When an answer raises on some probe: the circumstance, or what its exception shows."""
    items = list(items)[: len(probes)]
    found = raised_in_given_code(items) or find_trigger(question, probes, items)
    if found is not None:
        return found
    errors = [item["error"] for item in items if "error" in item]
    found = find_message(errors, everywhere=len(errors) == len(probes)) if errors else None
    return _own_assert(found, items) if found is not None and found.kind == "crash_assert" else found


def _own_assert(found: Diagnosis, items: list[dict]) -> Diagnosis:
    """An assert that fails on every input, raised in the student's own cell (the sandbox says
    so): theirs, and where it is."""
    wheres = [item.get("where") for item in items if "error" in item]
    if not all(isinstance(w, dict) and not w["raised_in"]["locked"] for w in wheres):
        return found
    return Diagnosis(
        "crash_assert",
        Message(
            "an `assert` of your own, in {place}, fails on every input, though all of "
            "them are valid for the specification: its condition is wrong (inverted, or computed from the "
            "wrong quantity)",
            place=_place(wheres[0]["raised_in"]),
        ),
    )


__all__ = ["diagnose_crash", "find_trigger", "raised_in_given_code"]
