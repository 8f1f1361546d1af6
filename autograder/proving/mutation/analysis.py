"""Mutation analysis: are a question's hidden probes strong enough to reject every wrong answer?

For each function question, mutants of the reference are made (``autograder.proving.mutation.mutants``):
single-site source mutants of the reference and of the course functions it calls, argument
mutants that ignore one argument, and the hand-written mutants a question lists in
``Question.extra_mutants`` (PS5's weak testers). A changed line no sample input runs is equivalent.

A mutant is *killed* when the verdict (``autograder.judging.verdict.judge``) rejects it on the hidden
probes of every self-test student (asked as ``passes_every_probe``: the same pass/fail as ``judge``,
stopping at the first probe that fails, without the feedback the analysis does not read). A mutant
that is not killed but differs from the reference somewhere — on another student's probes, or on a
broad sample (the probe generator under many seeds, the visible examples, and those inputs with a
scalar argument changed or a default passed explicitly) — *survives*: a wrong answer some student
could hand in and pass.
One that never differs is *equivalent* and not counted.

A question may name accepted survivors, with the reason, in ``Question.accepted_mutants =
{mutant name: reason}``, or be exempt, with the reason, in ``Question.mutation_exempt``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import resource
import signal
import sys
import threading
import time
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from autograder.proving.mutation.mutants import Mutant, argument_mutants, mutation_targets, source_level_mutants
from autograder.spec import REPO_ROOT, Assignment, Probe, Question

SAMPLE_SEEDS = 8  # probe-generator seeds in the broad sample
SAMPLE_MAX_PROBES = 48  # ... fewer when each draw has many probes (at least two draws)
MAX_MUTANTS = 160  # per question; beyond, an evenly spaced selection (stable)
CALL_TIMEOUT_S = 5.0  # the reference on one sample input; past it the input is left out
# A mutant on one student's probes may take this many times the reference's time (at least
# MIN_LIMIT_S); past it the grader's time limit would reject it too, so it counts as killed.
# On the broad sample the limit is looser still (a timeout there marks the mutant as different).
SLOWDOWN_LIMIT, MIN_LIMIT_S = 50.0, 1.0
SAMPLE_SLOWDOWN_LIMIT = 200.0


@dataclass
class MutationResult:
    grade_id: str
    killed: list[str] = field(default_factory=list)
    survived: list[str] = field(default_factory=list)
    equivalent: list[str] = field(default_factory=list)
    accepted: dict[str, str] = field(default_factory=dict)  # survivor -> reason
    generated: int = 0

    @property
    def non_equivalent(self) -> int:
        return len(self.killed) + len(self.survived)

    @property
    def unaccepted(self) -> list[str]:
        return [m for m in self.survived if m not in self.accepted]

    @property
    def score(self) -> float:
        return len(self.killed) / self.non_equivalent if self.non_equivalent else 1.0

    def problems(self) -> list[str]:
        out = [f"{self.grade_id}: mutant survives the hidden probes: {m}" for m in self.unaccepted]
        accepted = [m for m in self.survived if m in self.accepted]
        if self.non_equivalent and len(accepted) > 0.05 * self.non_equivalent:
            out.append(
                f"{self.grade_id}: {len(accepted)} accepted survivors — more than 5 % of {self.non_equivalent} mutants"
            )
        return out

    def summary(self) -> str:
        text = (
            f"mutation {self.grade_id}: {len(self.killed)}/{self.non_equivalent} killed "
            f"({100 * self.score:.0f} %), {len(self.equivalent)} equivalent"
        )
        if self.generated > len(self.killed) + len(self.survived) + len(self.equivalent):
            text += f", {self.generated} generated"
        return text


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


@contextlib.contextmanager
def _recording_lines(functions, into: set):
    """Adds (file, line) of every line of ``functions`` (and their nested code) that runs."""
    codes = {c for f in functions for c in _code_objects(f.__code__)}

    def local(frame, event, arg):
        if event == "line":
            into.add((frame.f_code.co_filename, frame.f_lineno))
        return local

    def on_call(frame, event, arg):
        return local if frame.f_code in codes else None

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        yield
    finally:
        sys.settrace(previous)


# ---------------------------------------------------------------- running


class CpuTimeout(Exception):
    """Raised by cpu_time_limit when the CPU time it allows is spent."""


@contextlib.contextmanager
def cpu_time_limit(cpu_seconds: float):
    """A limit on this process's CPU time (ITIMER_PROF), not the wall clock: a mutant is judged
    slow by what it computes, the same on a quiet and a saturated machine."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        raise CpuTimeout()

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, cpu_seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


MEMORY_HEADROOM_BYTES = 4 << 30  # what a mutant may allocate beyond the process's size when it starts


@contextlib.contextmanager
def memory_limit(headroom: int = MEMORY_HEADROOM_BYTES):
    """An address-space limit while a mutant runs: one that allocates without end (a budget made
    huge, a loop that never stops growing a tensor) raises MemoryError, which rejects it, instead
    of taking the machine's memory and the self-test with it."""
    try:
        with open("/proc/self/statm") as statm:
            size = int(statm.read().split()[0]) * resource.getpagesize()
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    except (OSError, ValueError):
        yield
        return
    limit = size + headroom if hard == resource.RLIM_INFINITY else min(size + headroom, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@dataclass(frozen=True)
class _CachedQuestion(Question):
    """The question with its expected values computed once, before any mutant is installed
    (an installed mutant also changes what the reference computes)."""

    cache: dict = field(default_factory=dict)

    def expected(self, probe: Probe):
        return self.cache[id(probe)]


def _perturbed(q: Question, probe: Probe) -> list[Probe]:
    """The probe with one scalar argument changed, or one omitted default passed explicitly."""
    out = []
    params = [
        p
        for p in inspect.signature(q.reference).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    for i, arg in enumerate(probe.args):
        changed = _changed_scalar(arg)
        if changed is not None:
            out.append(
                Probe(
                    probe.args[:i] + (changed,) + probe.args[i + 1 :],
                    f"{probe.label} (arg {i} changed)",
                    dict(probe.kwargs),
                )
            )
    for p in params[len(probe.args) :]:
        changed = _changed_scalar(p.default) if p.default is not inspect.Parameter.empty else None
        if changed is not None and p.name not in probe.kwargs:
            out.append(Probe(probe.args, f"{probe.label} ({p.name} given)", {**probe.kwargs, p.name: changed}))
    return out


def _changed_scalar(value):
    if isinstance(value, (bool, np.bool_)):
        return not value
    if isinstance(value, (int, np.integer)):
        return int(value) + 1
    if isinstance(value, (float, np.floating)):
        return float(value) * 1.5 if value else 0.5
    return None


def _sample(q: Question, seeds: int) -> list[Probe]:
    probes = list(q.visible)
    for seed in range(seeds):
        probes.extend(q.probes(np.random.default_rng(10_000 + seed)))
        if len(probes) >= SAMPLE_MAX_PROBES and seed >= 1:
            break  # many probes per draw (PS5's subject functions): enough seeds for the sample
    return probes + [p for probe in probes for p in _perturbed(q, probe)]


class _Analysis:
    def __init__(self, q: Question, assignment: Assignment, seeds: int, targets: list):
        import autograder.judging.verdict  # noqa: F401 - imported before any mutant runs under a time limit
        from autograder.judging.instructor_answers import SELFTEST_STUDENTS

        self.q = q
        self.students = {s: q.probes_for(s, assignment) for s in SELFTEST_STUDENTS}
        cache, self.lines_run, self.sample = {}, set(), []
        sample = _sample(q, seeds)
        started = time.process_time()
        for probes in self.students.values():
            for p in probes:
                cache[id(p)] = q.expected(p)
        self.per_probe_s = (time.process_time() - started) / max(1, len(cache))
        with _recording_lines(targets, self.lines_run):
            for probes in self.students.values():
                for p in probes:
                    q.expected(p)
            for p in sample:
                try:
                    with cpu_time_limit(CALL_TIMEOUT_S):
                        cache[id(p)] = q.expected(p)
                except Exception:  # noqa: BLE001 - an input outside the reference's domain
                    continue
                self.sample.append(p)
        fields = {f.name: getattr(q, f.name) for f in dataclasses.fields(Question)}
        self.cached = _CachedQuestion(**{**fields, "misconceptions": ()}, cache=cache)

    def rejected(self, probes: list[Probe], function, slowdown: float = SLOWDOWN_LIMIT) -> bool:
        from autograder.judging.instructor_answers import passes_every_probe

        try:
            with cpu_time_limit(max(MIN_LIMIT_S, slowdown * self.per_probe_s * len(probes))):
                return not passes_every_probe(self.cached, probes, function)
        except CpuTimeout:
            return True  # the grader's time limit rejects it too

    def classify(self, mutant: Mutant) -> str:
        if mutant.site is not None and mutant.site not in self.lines_run:
            return "equivalent"  # no valid input reaches the changed line
        with mutant.install(), memory_limit():
            passing = [s for s, probes in self.students.items() if not self.rejected(probes, mutant.function)]
            if not passing:
                return "killed"
            if len(passing) < len(self.students):
                return "survived"
            for start in range(0, len(self.sample), 8):
                if self.rejected(self.sample[start : start + 8], mutant.function, SAMPLE_SLOWDOWN_LIMIT):
                    return "survived"
        return "equivalent"


def _spaced(items: list, limit: int) -> list:
    if len(items) <= limit:
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def _roots(assignment: Assignment) -> tuple[Path, ...]:
    return (REPO_ROOT / "solutions",) + ((assignment.source_dir.resolve(),) if assignment.root else ())


def question_mutants(q: Question, assignment: Assignment) -> list[Mutant]:
    roots = _roots(assignment)
    mutants = argument_mutants(q) + _spaced(source_level_mutants(q.reference, roots), MAX_MUTANTS)
    mutants += [Mutant(name, fn) for name, fn in q.extra_mutants.items()]
    unique = {}
    for m in mutants:
        unique.setdefault(m.name, m)
    return list(unique.values())


def analyse_question(
    q: Question,
    assignment: Assignment,
    *,
    seeds: int = SAMPLE_SEEDS,
) -> MutationResult:
    analysis = _Analysis(q, assignment, seeds, mutation_targets(q.reference, _roots(assignment)))
    result = MutationResult(q.grade_id, accepted=dict(q.accepted_mutants))
    mutants = question_mutants(q, assignment)
    result.generated = len(mutants)
    for mutant in mutants:
        getattr(
            result, {"killed": "killed", "survived": "survived", "equivalent": "equivalent"}[analysis.classify(mutant)]
        ).append(mutant.name)
    return result


def function_questions(assignment: Assignment) -> list[Question]:
    return [q for q in assignment.questions if q.call and q.probes is not None and not q.mutation_exempt]


def analyse(assignment: Assignment, *, seeds: int = SAMPLE_SEEDS, only: str | None = None) -> list[MutationResult]:
    return [
        analyse_question(q, assignment, seeds=seeds)
        for q in function_questions(assignment)
        if only in (None, q.grade_id)
    ]
