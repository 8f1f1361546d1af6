"""A second training run for a model that fell short by chance of its seed.

A question graded by training the student's model (PS6's copy and addition, PS7's shift task)
hands the student's code a seed drawn for them. Training is stochastic: a sound recipe stalls
for some seeds (the course's own copy recipe on one grader seed in 60; an independent student's
addition recipe on one in four — ``assignments/ps6_build/training.py``). One unlucky seed must
not cost an honest student the question, so after the verdicts every
such question whose failure is a symptom it lists (``Question.second_run_on``, e.g.
"undertrained": it learned part of the task) is asked once more in the sandbox with a second,
independent draw of probes (``Question.second_run_probes``: another seed, other held-out inputs).

**Policy** (stated in the notebooks and the README): the better of the two runs counts. The
second passes: the question is passed, and the feedback says the first run fell short and why.
It fails too: the first verdict stands, and its feedback adds that a second seed fell short as
well — the recipe, not the seed, needs the change. A real mistake (no causal mask, unshifted
targets, an untrained model) is not re-run: it fails on every seed, and a re-run would only
double its cost. The verdict stays a function of the code and the student's id: both draws are.
"""

from __future__ import annotations

import dataclasses

from autograder.grading.runner import ask_again
from autograder.judging.verdict import QuestionResult
from autograder.spec import Assignment, Probe, Question


def to_rerun(assignment: Assignment, results: dict[str, QuestionResult]) -> list[Question]:
    """The questions to train once more: failed with a symptom their spec lists."""
    return [
        q
        for q in assignment.questions
        if q.second_run_on
        and q.grade_id in results
        and results[q.grade_id].status == "failed"
        and results[q.grade_id].misconception in q.second_run_on
    ]


def better_of_two(first: QuestionResult, again: QuestionResult) -> QuestionResult:
    """The verdict that counts once the second run is judged."""
    if again.status == "passed":
        return dataclasses.replace(
            again,
            feedback="correct on a second training run, with another seed drawn for you. The first run "
            f"fell short: {first.feedback} Your training depends on its seed: the better run counts "
            "here, but make it steadier.",
        )
    return dataclasses.replace(
        first,
        feedback=f"{first.feedback} (A second training run, with another seed drawn for you, fell short "
        "too: the recipe, not the seed, needs the change.)",
    )


def apply_second_runs(
    worker, notebook, assignment: Assignment, student: str, results: dict[str, QuestionResult]
) -> float:
    """Train once more where ``to_rerun`` says so; update ``results`` in place. Returns the
    sandbox seconds the second run took (0 when there was none)."""
    rerun = to_rerun(assignment, results)
    if not rerun:
        return 0.0
    probes: dict[str, list[Probe]] = {q.grade_id: q.second_run_probes(student, assignment) for q in rerun}
    again, seconds = ask_again(worker, notebook, assignment, rerun, probes, student)
    for q in rerun:
        results[q.grade_id] = better_of_two(results[q.grade_id], again[q.grade_id])
    return seconds
