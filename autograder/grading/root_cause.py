"""Root cause across questions: an answer that fails only because another of the student's
answers it calls fails.

A question declares the questions whose answers it calls (``Question.depends_on``); a question
others call carries its reference as self-contained source (``Question.reference_source``).
After the verdicts, every failed question with a failing dependency is asked again in the
sandbox with that dependency's name bound to the reference (``Question.rebind``; the harness
restores the student's own function afterwards). Then:

* it passes: the answer is right and the dependency is the root cause. **Policy** (the same for
  every problem set, stated in the README): the dependent question is awarded its points —
  status "passed", feedback "fix `layer_norm` first: with a correct one your `encoder_layer` is
  right" and ``root_cause`` naming the dependency. A mistake costs the points of the question
  where it is made, once.
* it still fails: the first verdict stands, and its feedback adds that fixing the dependency
  will not be enough.
"""

from __future__ import annotations

import dataclasses

from autograder.grading.runner import ask_again
from autograder.i18n import Message
from autograder.judging.verdict import QuestionResult
from autograder.spec import Assignment, Probe, Question

RETRIED = ("failed", "error")


def _failing_dependencies(assignment: Assignment, q: Question, results: dict[str, QuestionResult]) -> list[Question]:
    deps = []
    for gid in q.depends_on:
        try:
            dep = assignment.question(gid)
        except KeyError:
            continue
        if gid in results and results[gid].status != "passed" and dep.reference_source is not None:
            deps.append(dep)
    return deps


def to_retry(assignment: Assignment, results: dict[str, QuestionResult]) -> list[tuple[Question, list[Question]]]:
    """(the question with its rebind map set, the failing dependencies) for each question to re-ask."""
    out = []
    for q in assignment.questions:
        if q.grade_id not in results or results[q.grade_id].status not in RETRIED:
            continue
        deps = _failing_dependencies(assignment, q, results)
        if deps:
            out.append((dataclasses.replace(q, rebind=tuple((d.answer, d.reference_source) for d in deps)), deps))
    return out


def _names(deps: list[Question]) -> str | Message:
    names = [f"`{d.answer}`" for d in deps]
    return names[0] if len(names) == 1 else Message("{first} and {last}", first=", ".join(names[:-1]), last=names[-1])


def resolved(q: Question, deps: list[Question], first: QuestionResult, again: QuestionResult) -> QuestionResult:
    """The verdict once the re-run with reference dependencies is judged."""
    names = _names(deps)
    if again.status == "passed":
        if len(deps) == 1:
            text = Message(
                "Fix {names} first: with a correct one your `{answer}` is right "
                "(its points are awarded; {names} costs only its own question's points).",
                names=names,
                answer=q.answer,
            )
        else:
            text = Message(
                "Fix {names} first: with correct ones your `{answer}` is right "
                "(its points are awarded; {names} cost only their own questions' points).",
                names=names,
                answer=q.answer,
            )
        return QuestionResult(
            float(q.points), float(q.points), "passed", text, root_cause=", ".join(d.answer for d in deps)
        )
    if len(deps) == 1:
        text = Message(
            "{feedback} — `{answer}` calls your {names}, which fails; but even with a correct one it does not "
            "match, so fixing it will not be enough.",
            feedback=first.feedback,
            answer=q.answer,
            names=names,
        )
    else:
        text = Message(
            "{feedback} — `{answer}` calls your {names}, which fail; but even with correct ones it does not "
            "match, so fixing them will not be enough.",
            feedback=first.feedback,
            answer=q.answer,
            names=names,
        )
    return dataclasses.replace(first, feedback=text)


def apply_root_causes(
    worker,
    notebook,
    assignment: Assignment,
    probes: dict[str, list[Probe]],
    student: str,
    results: dict[str, QuestionResult],
) -> float:
    """Re-ask the failed questions whose dependencies fail, with those bound to the reference;
    update ``results`` in place. Returns the sandbox seconds the re-run took (0 when none)."""
    retry = to_retry(assignment, results)
    if not retry:
        return 0.0
    again, seconds = ask_again(worker, notebook, assignment, [q for q, _ in retry], probes, student)
    for q, deps in retry:
        results[q.grade_id] = resolved(q, deps, results[q.grade_id], again[q.grade_id])
    return seconds
