"""More training runs for a model that fell short by chance of its seed.

A question graded by training the student's model (PS6's copy and addition, PS7's shift task)
hands the student's code a seed drawn for them. Training is stochastic: a sound recipe stalls
for some seeds (the course's own copy recipe on about one grader seed in 25; an independent
student's addition recipe on one in four — ``assignments/ps6_build/training.py``). One unlucky
seed must not cost an honest student the question, so after the verdicts every such question
whose failure is a symptom it lists (``Question.second_run_on``: "undertrained", it learned part
of the task; "stalled", it trained — its parameters changed — yet stayed at chance) is asked
again in the sandbox on an independent draw of probes (``Question.second_run_probes``: another
seed, other held-out inputs), up to ``Question.training_runs`` runs in all (three unless the
question says more: PS6's addition, whose honest Post-LN recipes fall short on one first run in five,
has five — each run under the question's CPU cap, and only a run that fell short is followed by another).

**Policy** (stated in the notebooks and the README): the best run counts. A later run passes:
the question is passed, and the feedback says the earlier runs fell short and why. Every run
fails: the first verdict stands, and its feedback adds that the other seeds fell short as well —
the recipe, not the seed, needs the change. A real mistake (no causal mask, unshifted targets, a
model whose parameters never changed while it trained) is not re-run: it fails on every seed,
and a re-run would only multiply its cost. "Untrained" is decided from what the student's code
did (the notebook's locked ``watched_training`` reports whether the returned model changed),
never from accuracy alone. The verdict stays a function of the code and the student's id: every
draw is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from autograder.grading.runner import ask_again
from autograder.i18n import N_, Message
from autograder.judging.verdict import QuestionResult
from autograder.spec import Assignment, Probe, Question

_ORDINAL = {3: N_("third"), 4: N_("fourth"), 5: N_("fifth")}


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


def better_of_two(first: QuestionResult, again: QuestionResult, run: int = 2) -> QuestionResult:
    """The verdict that counts once run ``run`` (2, 3, …) is judged; ``first`` is the first run's."""
    if again.status == "passed" and run == 2:
        feedback = Message(
            "correct on a second training run, with another seed drawn for you. The first run "
            "fell short: {feedback} Your training depends on its seed: the best run counts "
            "here, but make it steadier.",
            feedback=first.feedback,
        )
        return dataclasses.replace(again, feedback=feedback)
    if again.status == "passed":
        ordinal = Message(_ORDINAL[run]) if run in _ORDINAL else Message("{n}th", n=run)
        feedback = Message(
            "correct on a {ordinal} training run, with another seed drawn for you. The first {runs} runs "
            "fell short: {feedback} Your training depends on its seed: the best run counts "
            "here, but make it steadier.",
            ordinal=ordinal,
            runs=run - 1,
            feedback=first.feedback,
        )
        return dataclasses.replace(again, feedback=feedback)
    if run == 2:
        feedback = Message(
            "{feedback} (A second training run, each with another seed drawn for you, fell short "
            "too: the recipe, not the seed, needs the change.)",
            feedback=first.feedback,
        )
    else:
        feedback = Message(
            "{feedback} ({runs} more training runs, each with another seed drawn for you, fell short "
            "too: the recipe, not the seed, needs the change.)",
            feedback=first.feedback,
            runs=run - 1,
        )
    return dataclasses.replace(first, feedback=feedback)


def apply_second_runs(
    worker, notebook, assignment: Assignment, student: str, results: dict[str, QuestionResult]
) -> float:
    """Train again where ``to_rerun`` says so, in the sandbox; see ``train_again``."""

    def ask(questions, probes):
        return ask_again(worker, notebook, assignment, questions, probes, student)

    return train_again(assignment, student, results, ask)


def train_again(
    assignment: Assignment,
    student: str,
    results: dict[str, QuestionResult],
    ask: Callable[[list[Question], dict[str, list[Probe]]], tuple[dict[str, QuestionResult], float]],
) -> float:
    """The policy: train again where ``to_rerun`` says so, up to each question's ``training_runs``,
    asking ``ask(questions, probes)`` for each later run's verdicts; update ``results`` in place.
    Returns the seconds the extra runs took (0 when there was none). The grader asks the sandbox;
    the seed sweep (``autograder.proving.training_sweep``) asks the instructor's own process."""
    first = {q.grade_id: results[q.grade_id] for q in to_rerun(assignment, results)}
    seconds, pending = 0.0, list(first)
    run = 1
    while pending:
        run += 1
        rerun = [q for q in map(assignment.question, pending) if run <= q.training_runs]
        if not rerun:
            break
        probes: dict[str, list[Probe]] = {q.grade_id: q.second_run_probes(student, assignment, run) for q in rerun}
        again, took = ask(rerun, probes)
        seconds += took
        pending = []
        for q in rerun:
            results[q.grade_id] = better_of_two(first[q.grade_id], again[q.grade_id], run)
            if again[q.grade_id].status == "failed" and again[q.grade_id].misconception in q.second_run_on:
                pending.append(q.grade_id)  # fell short by chance once more: another seed
    return seconds
