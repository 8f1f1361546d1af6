"""How often is the feedback on a wrong answer *specific*: a named misconception or a diagnosis
(``judging.diagnosis.diagnose``), not the generic "does not match the reference"?

Counted per problem set over its known-wrong answers (each question's misconceptions) and over
the killed mutants of each function question (``autograder.proving.mutation.analysis``; a mutant
is killed when every self-test student's hidden probes reject it). A mutant's outcome is
computed with the mutant installed, the verdict with it removed, so the reference — and the
diagnosis that re-runs it — are the real ones. ``texts`` keeps every feedback text produced;
with every misconception text as written and the verdicts on typical wrong answers to each value
or formula question (``leak_scan.judged_wrong_texts``) they go through the leak scan, whose
count ends the problem set's line ("leaks 0") and whose findings follow it.
"""

from __future__ import annotations

import contextlib
import inspect
from dataclasses import dataclass, field

from autograder.spec import Assignment, Question

SPECIFIC_LINE = "specific feedback: {n}/{m}"


def kind_of(result) -> str:
    """named (a misconception) | diagnosed | crash (the exception raised in the student's code is
    shown) | generic ("does not match the reference — values differ …")."""
    if result.misconception:
        return "named"
    if getattr(result, "diagnosis", None) or getattr(result, "root_cause", None):
        return "diagnosed"
    if result.status in ("error", "timeout"):
        return "crash"
    return "generic"


@dataclass
class FeedbackAudit:
    assignment: str
    kinds: dict = field(default_factory=lambda: {"named": 0, "diagnosed": 0, "crash": 0, "generic": 0})
    generic: list[str] = field(default_factory=list)  # "grade_id: answer name [status] feedback"
    texts: list[tuple[str, str]] = field(default_factory=list)  # (grade_id, feedback) seen
    leaks: list[str] | None = None  # the leak scan's findings, once run

    @property
    def total(self) -> int:
        return sum(self.kinds.values())

    @property
    def specific(self) -> int:
        return self.total - self.kinds["generic"]

    def add(self, question: Question, name: str, result) -> None:
        self.texts.append((question.grade_id, result.feedback))
        kind = kind_of(result)
        self.kinds[kind] += 1
        if kind == "generic":
            self.generic.append(f"{question.grade_id}: {name} [{result.status}] {result.feedback[:150]}")

    def line(self) -> str:
        breakdown = ", ".join(f"{k} {v}" for k, v in self.kinds.items())
        line = f"{self.assignment}: " + SPECIFIC_LINE.format(n=self.specific, m=self.total) + f" ({breakdown})"
        if self.leaks is None:
            return line
        return "\n    ".join([f"{line}; leaks {len(self.leaks)}", *(f"leak: {x[:300]}" for x in self.leaks)])

    def scan(self, assignment: Assignment) -> list[str]:
        """The leak scan over every text seen, every misconception text and the verdicts on typical
        wrong answers to the value and formula questions."""
        from autograder.judging.instructor_answers import SELFTEST_STUDENTS
        from autograder.proving.inference_scan import inferred_leaks
        from autograder.proving.leak_scan import judged_wrong_texts, leaks

        student = SELFTEST_STUDENTS[0]
        self.leaks = leaks(assignment, [*self.texts, *judged_wrong_texts(assignment, student)])
        self.leaks += inferred_leaks(assignment, student)
        return self.leaks


def _rejected(question: Question, probes, outcome) -> bool:
    for probe, item in zip(probes, outcome.results):
        if "value" not in item:
            return True
        try:
            if not question.compare.matches(item["value"], question.expected(probe)):
                return True
        except Exception:  # noqa: BLE001 - unreadable output is rejected
            return True
    return False


def _outcome(question: Question, probes, function):
    """What the sandbox would report for this answer, each probe under the mutation analysis's
    time limit (a probe past it raises: the mutant is left to the time limit, not to feedback)."""
    from autograder.judging.instructor_answers import as_handed_in
    from autograder.judging.outcome import Outcome
    from autograder.proving.mutation.analysis import CALL_TIMEOUT_S, CpuTimeout, cpu_time_limit
    from autograder.spec import as_args

    results = []
    for p in probes:
        try:
            with cpu_time_limit(CALL_TIMEOUT_S):
                value = function(*as_args(p.args, question.args_as), **p.kwargs)
            results.append({"value": as_handed_in(value)})
        except CpuTimeout:
            raise
        except Exception as exc:  # noqa: BLE001 - reported as the harness would
            results.append({"error": f"{type(exc).__name__}: {exc}"})
    return Outcome("returned", results)


def audit_known_wrong(assignment: Assignment, audit: FeedbackAudit, student: str) -> None:
    from autograder.judging.instructor_answers import known_wrong_outcome
    from autograder.judging.verdict import judge

    for q in assignment.questions:
        probes = q.probes_for(student, assignment)
        for mis in q.misconceptions:
            audit.add(q, mis.name, judge(q, probes, known_wrong_outcome(q, probes, mis.wrong)))


def audit_mutants(
    assignment: Assignment, audit: FeedbackAudit, students: tuple[str, ...], killed: dict[str, set[str]] | None = None
) -> None:
    """Adds the killed mutants. ``killed`` (grade_id -> mutant names), from a mutation analysis
    already run, spares the check that every student's probes reject each mutant."""
    from autograder.judging.verdict import judge
    from autograder.proving.mutation import analysis as mutation

    for q in mutation.function_questions(assignment):
        probes = {s: q.probes_for(s, assignment) for s in students}
        for p in probes.values():  # expected values before any mutant changes the reference
            for probe in p:
                with contextlib.suppress(Exception):
                    q.expected(probe)
        for mutant in mutation.question_mutants(q, assignment):
            if killed is not None and mutant.name not in killed.get(q.grade_id, ()):
                continue
            try:
                with mutant.install():
                    outcomes = {s: _outcome(q, probes[s], mutant.function) for s in students}
            except Exception:  # noqa: BLE001 - a mutant that hangs or breaks the harness: the sandbox's
                continue  # time limit would answer it, not feedback
            if not all(_rejected(q, probes[s], outcomes[s]) for s in students):
                continue  # not killed (survivor or equivalent): the mutation analysis reports it
            first = students[0]
            verdict = judge(q, probes[first], outcomes[first])
            if verdict.status == "passed":  # judged with the real reference it is right: the mutation
                continue  # changed what the reference computes, not the answer
            audit.add(q, mutant.name, _after_root_cause(assignment, q, mutant, verdict, first))


def _inside(site, function) -> bool:
    lines, start = inspect.getsourcelines(function)
    return site[0] == function.__code__.co_filename and start <= site[1] < start + len(lines)


def _after_root_cause(assignment: Assignment, q: Question, mutant, verdict, student: str):
    """The verdict grading gives (grading/root_cause.py) when the mutant sits in the answer of a question
    ``q`` depends on (``printed_tree`` calling a wrong ``linearise``): that question's own probes reject
    the mutated function, and the re-run with its reference is the reference itself, which passes."""
    from autograder.grading.root_cause import resolved
    from autograder.judging.verdict import judge

    for gid in q.depends_on:
        try:
            dep = assignment.question(gid)
        except KeyError:
            continue
        if dep.reference_source is None or mutant.site is None or not _inside(mutant.site, dep.reference):
            continue
        dep_probes = dep.probes_for(student, assignment)
        with mutant.install():
            installed = dep.reference.__globals__.get(dep.reference.__name__, dep.reference)
            dep_outcome = _outcome(dep, dep_probes, installed)
        if _rejected(dep, dep_probes, dep_outcome):
            probes = q.probes_for(student, assignment)
            return resolved(q, [dep], verdict, judge(q, probes, _outcome(q, probes, q.reference)))
    return verdict


def audit_assignment(
    assignment: Assignment, *, mutants: bool = True, killed: dict[str, set[str]] | None = None
) -> FeedbackAudit:
    from autograder.judging.instructor_answers import SELFTEST_STUDENTS

    audit = FeedbackAudit(assignment.name)
    audit_known_wrong(assignment, audit, SELFTEST_STUDENTS[0])
    if mutants:
        audit_mutants(assignment, audit, SELFTEST_STUDENTS if killed is None else SELFTEST_STUDENTS[:1], killed)
    return audit


def summary_line(audits: list[FeedbackAudit]) -> str:
    leaks = sum(len(a.leaks or ()) for a in audits)
    return (
        f"specific_feedback: {sum(a.specific for a in audits)}/{sum(a.total for a in audits)}; feedback_leaks: {leaks}"
    )


def report(assignment: Assignment, audits: list[FeedbackAudit], mutation_results=None) -> str:
    """Run the audit for one problem set, remember it in ``audits``, return its line.
    ``mutation_results``: the self-test's ``MutationResult`` list, whose killed mutants are used."""
    killed = None if mutation_results is None else {r.grade_id: set(r.killed) for r in mutation_results}
    audit = audit_assignment(assignment, killed=killed)
    audit.scan(assignment)
    audits.append(audit)
    return audit.line()
