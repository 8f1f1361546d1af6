"""An answer computed in the grader's own process, reported as the sandbox would report it.

The self-test, the mutation analysis, the feedback audit and the visible checks all ask "what
would the sandbox have sent back for this function?" without running a sandbox: the answer is
one of the instructor's (a known-wrong answer, a mutant of the reference), trusted code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autograder.judging.outcome import Outcome
    from autograder.spec import Probe, Question

SELFTEST_STUDENTS = ("selftest-a", "selftest-b", "selftest-c")


def as_handed_in(value):
    """What a student's answer looks like after the wire: formulas arrive as strings."""
    from autograder.spec import to_plain

    value = to_plain(value)
    return str(value) if hasattr(value, "free_symbols") else value


def known_wrong_outcome(question: Question, probes: list[Probe], wrong) -> Outcome:
    """What the sandbox would report for a student who wrote ``wrong`` (any trusted function in
    this process: a known-wrong answer, a mutant, a swept notebook's answer): values, or the error
    it raised on a probe (as the harness describes it: "Type: message")."""
    from autograder.judging.outcome import Outcome
    from autograder.spec import as_args

    results = []
    for p in probes:
        try:
            results.append({"value": as_handed_in(wrong(*as_args(p.args, question.args_as), **p.kwargs))})
        except Exception as exc:  # noqa: BLE001
            results.append({"error": f"{type(exc).__name__}: {exc}"})
    return Outcome("returned", results)


def passes_every_probe(question: Question, probes: list[Probe], wrong) -> bool:
    """Whether ``judge`` would pass ``wrong`` on ``probes`` (every probe returns a value that the
    question's comparator accepts), stopping at the first probe it fails: the mutation analysis
    asks only this, and needs neither the other probes nor a diagnosis."""
    from autograder.spec import as_args

    for p in probes:
        try:
            value = as_handed_in(wrong(*as_args(p.args, question.args_as), **p.kwargs))
        except Exception:  # noqa: BLE001 - an error on a probe fails it, as in judge
            return False
        if not question.compare(value, question.expected(p)).ok:
            return False
    return True
