"""Question specs: one source of truth per autograded question.

A problem set is a package in the course's ``source/<ps>/`` (``autograder.course``), beside its
source notebook; its ``__init__.py`` gives an :class:`Assignment` made of :class:`Question`
objects. From one question come

* the visible checks written into the released notebook (expected values computed from the
  reference at release time, see ``autograder.releasing.stages``),
* the hidden probes drawn per student at grading time (``probes(rng)``), sent into the sandbox
  as plain data,
* the verdict, reached in the trusted process by comparing what came back with
  ``reference(*probe.args)``,
* the feedback: a failed answer is compared against each known-wrong implementation
  (:class:`Misconception`) and, on a match, the student reads that misconception's text.

The self-test (``autograder selftest``) proves each question rejects every known-wrong answer.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from autograder.errors import AutograderError
from autograder.judging.compare.comparators import AllClose, Comparator

REPO_ROOT = Path(__file__).resolve().parent.parent  # the kit (its solutions/ and autograder/)


@dataclass(frozen=True)
class Probe:
    """One call of the student's answer: positional args as plain data (numpy arrays, numbers)."""

    args: tuple
    label: str = ""
    kwargs: dict = field(default_factory=dict)
    note: str = ""  # shown above a visible check in the released notebook


@dataclass(frozen=True)
class FunctionSource:
    """A function handed to the student's code as a probe argument (say, a model their tester
    must classify). Its source travels into the sandbox as data and is compiled there; the
    grader compiles the same source for the reference. Never student text: instructor code."""

    source: str
    name: str

    @classmethod
    def of(cls, function: Callable) -> FunctionSource:
        """The source of a module-level function, self-contained (its imports inside it), so
        that the grader's reference and what the sandbox compiles are the same code."""
        import inspect
        import textwrap

        return cls(textwrap.dedent(inspect.getsource(function)), function.__name__)

    def compile(self) -> Callable:
        import math

        import torch

        namespace = {"np": np, "torch": torch, "math": math}
        exec(compile(self.source, f"<probe {self.name}>", "exec"), namespace)
        return namespace[self.name]


@dataclass(frozen=True)
class Misconception:
    """A known-wrong answer and the feedback that names the idea behind it."""

    name: str
    feedback: str
    wrong: Callable[..., Any]  # same signature as the reference; used to recognise and self-test
    # other spellings of the same mistake (same signature): the values it may also give — the
    # factor's bound at any d, one table or two too many. Recognised like ``wrong``; the
    # self-test hands in ``wrong``.
    also_wrong: Callable[..., Sequence[Any]] | None = None


@dataclass(frozen=True)
class StatedRange:
    """A range of one argument that the question's text names ("every `train_length` ≥ 0 is
    allowed (… `length` or more: none)"). ``low`` and ``high`` are numbers or the name of
    another parameter (its value in the same call); None: no end on that side. ``above``: the
    text also allows values past ``high`` (with a meaning it states). ``text``: the notebook's
    own words, which must stand in the question's text. The self-test wants a hidden probe at
    each end, one strictly inside, and one past ``high`` where ``above`` (proving/stated_ranges.py)."""

    text: str
    low: float | str | None = None
    high: float | str | None = None
    above: bool = False


_CONSTANT_EXPECTED: dict[Callable, Any] = {}


@dataclass(frozen=True)
class Question:
    grade_id: str  # the nbgrader grade cell that carries the points
    answer: str  # name the student defines (function or variable)
    reference: Callable[..., Any]
    # from the grade cell's nbgrader metadata (load_assignment); a value stated here must agree
    points: float | None = None
    probes: Callable[[np.random.Generator], Sequence[Probe]] | None = None  # for functions
    title: str = ""
    visible: Sequence[Probe] = ()
    compare: Comparator = AllClose()
    misconceptions: Sequence[Misconception] = ()
    args_as: str = "torch"  # "torch": arrays arrive as torch tensors; "numpy": as ndarrays
    call: bool = True  # False: the answer is a value, read from the namespace, not called
    timeout_s: float = 10.0  # wall time for all of this question's probes
    # CPU-seconds for all of its probes, instead of timeout_s as the soft limit (timeout_s stays
    # the wall-clock safety net): a question whose cost is real work, such as training, then
    # gets the same verdict on a quiet and on a saturated machine
    cpu_limit_s: float | None = None
    personal: bool = False  # a value whose expected answer depends on the student's parameters
    # Root cause across questions (autograder.grading.root_cause): the grade ids of the questions whose answers this
    # answer calls; a question others depend on may carry its reference as self-contained source,
    # which the sandbox binds under the answer's name when re-asking a dependent question.
    depends_on: tuple[str, ...] = ()
    reference_source: FunctionSource | None = None
    rebind: tuple[tuple[str, FunctionSource], ...] = ()  # set by grading for that re-run only
    # The value the source documents print for this answer ("document 002"): its released check
    # compares with the printed value, so a student sees where the document rounds or slips.
    document_value: str = ""
    # For the self-test (autograder.proving), when a question needs other than the defaults:
    # why it has no mutation analysis (say, graded by training the student's model)
    mutation_exempt: str = ""
    # more wrong answers its probes must reject, beside the mutants of the reference: name -> function
    extra_mutants: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    # mutants that may survive, each with the reason it is right (equivalent on the notebook's domain)
    accepted_mutants: Mapping[str, str] = field(default_factory=dict)
    # probe arguments the coverage rules (proving/coverage.py, proving/contract_rules.py) need not
    # vary: parameter -> why. Everything else is derived from the reference's signature, the probes
    # and trying the reference — e.g. a tensor the reference accepts with a batch axis the notebook
    # does not allow is exempted here ("the notebook asks for (T, d) only")
    coverage_exempt: Mapping[str, str] = field(default_factory=dict)
    # combinations some hidden probe must contain: description -> predicate over a call's arguments
    coverage_together: Mapping[str, Callable[[dict], bool]] = field(default_factory=dict)
    # the ranges of arguments that the notebook's text names: parameter -> StatedRange; the
    # self-test wants hidden probes at their ends and past them where the text allows it, and a
    # range for every argument the text bounds (`name` ≥ …, "… is allowed")
    stated_ranges: Mapping[str, StatedRange] = field(default_factory=dict)
    # A question graded by training the student's model: the misconceptions (symptom classes)
    # after which the grader trains once more on a second draw of probes (another seed) and keeps
    # the better run (autograder.grading.second_run), up to ``training_runs`` runs in all — an
    # honest recipe that stalls for one seed in twenty then fails three in a row about once in 8,000
    second_run_on: tuple[str, ...] = ()
    training_runs: int = 3

    def probes_for(self, student_id: str, assignment: Assignment) -> list[Probe]:
        """Functions: probes drawn for this student. Values: one probe carrying the student's
        parameters as keyword arguments for the reference (nothing is sent into the sandbox)."""
        if not self.call:
            params = assignment.params_for(student_id) if self.personal else {}
            return [Probe((), "your parameters" if self.personal else "your answer", kwargs=params)]
        return list(self.probes(student_rng(student_id, assignment.name, self.grade_id)))

    def second_run_probes(self, student_id: str, assignment: Assignment, run: int = 2) -> list[Probe]:
        """The probes of a later training run (``second_run_on``; ``run`` 2 … ``training_runs``): drawn for this
        student too, each independent of the others."""
        salt = "\0second run" if run == 2 else f"\0training run {run}"
        return list(self.probes(student_rng(student_id, assignment.name, f"{self.grade_id}{salt}")))

    def expected(self, probe: Probe) -> Any:
        if not probe.args and not probe.kwargs:  # a fixed answer: compute it once per process
            key = self.reference
            if key not in _CONSTANT_EXPECTED:
                _CONSTANT_EXPECTED[key] = to_plain(self.reference())
            return _CONSTANT_EXPECTED[key]
        return to_plain(self.reference(*as_args(probe.args, self.args_as), **probe.kwargs))


@dataclass(frozen=True)
class Assignment:
    name: str  # folder name, e.g. "ps1_attention"
    notebook: str  # notebook file name inside the folder
    questions: Sequence[Question]
    cell_timeout_s: float = 30.0  # wall time for each notebook cell in the sandbox
    # CPU seconds for one sandboxed run of the whole notebook (its cells, then every question);
    # None: the sandbox's own limit (Limits.cpu_s, 300 s). Raise it for questions that train.
    cpu_s: int | None = None
    extra_files: Sequence[str] = ()  # files released beside the notebook
    root: Path | None = None  # the course's source folder; set by load_assignment (tests point it elsewhere)
    # student id -> dict of personal parameters. Must be self-contained (imports inside): its
    # source is copied into the released notebook, so student and grader compute the same.
    student_params: Callable[[str], dict] | None = None

    def params_for(self, student_id: str) -> dict:
        return dict(self.student_params(student_id)) if self.student_params else {}

    @property
    def source_dir(self) -> Path:
        if self.root is None:
            raise ValueError(f"{self.name}: not loaded from a course (use spec.load_assignment)")
        return self.root / self.name

    @property
    def max_score(self) -> float:
        return float(sum(q.points for q in self.questions))

    def question(self, grade_id: str) -> Question:
        for q in self.questions:
            if q.grade_id == grade_id:
                return q
        raise KeyError(grade_id)


def student_rng(student_id: str, assignment: str, grade_id: str) -> np.random.Generator:
    """Per-student, per-question generator: the same student always gets the same probes."""
    digest = hashlib.sha256(f"{assignment}\0{grade_id}\0{student_id}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def as_args(args: tuple, args_as: str) -> tuple:
    """Arrays become torch tensors (or stay numpy) the way the student's function receives them;
    FunctionSource arguments become the functions they define."""
    args = tuple(a.compile() if isinstance(a, FunctionSource) else a for a in args)
    if args_as != "torch":
        return args
    import torch

    return tuple(torch.from_numpy(np.array(a)) if isinstance(a, np.ndarray) else a for a in args)


def to_plain(value: Any) -> Any:
    """Reference outputs as plain data: tensors -> ndarray, tuples -> lists."""
    if hasattr(value, "detach") and hasattr(value, "cpu"):
        return value.detach().cpu().numpy()
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    return value


def _source() -> Path:
    from autograder.course import find_course

    return find_course().source


def list_assignments() -> list[str]:
    source = _source()
    if not source.is_dir():
        return []
    return sorted(p.name for p in source.iterdir() if _spec_file(p) is not None)


class ProblemSetError(AutograderError):
    """A problem set that cannot be used as it stands (the command line exits 1, as a failed check)."""


class UnknownProblemSet(ProblemSetError):
    """No problem set of that name in the course, or a folder that is not one."""


def _spec_file(folder: Path) -> Path | None:
    """A problem set is a package (``__init__.py`` defines or imports ASSIGNMENT)."""
    path = folder / "__init__.py"
    return path if path.is_file() else None


def resolve_name(name: str) -> str:
    """'ps1' -> 'ps1_attention'; a full name is returned as is."""
    names = list_assignments()
    if name in names:
        return name
    matches = [n for n in names if n.split("_", 1)[0] == name]
    if len(matches) == 1:
        return matches[0]
    raise UnknownProblemSet(f"unknown problem set {name!r} in {_source()}; known: {', '.join(names) or 'none'}")


_LOAD_LOCK = threading.RLock()


def _package_name(folder: Path) -> str:
    digest = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:10]
    return f"_problem_set_{folder.name}_{digest}"


def import_problem_set(folder: Path):
    """Import the problem-set package in ``folder`` (trusted instructor code) as a package of its
    own: its modules import each other relatively (``from . import probes``), nothing is added
    to sys.path, and two courses' problem sets of the same name never collide."""
    module_name = _package_name(folder)
    with _LOAD_LOCK:  # grading threads (and Dask tasks) may ask at the same time
        if module_name not in sys.modules:
            init = _spec_file(folder)
            if init is None:
                raise UnknownProblemSet(f"{folder}: not a problem set (no __init__.py)")
            spec = importlib.util.spec_from_file_location(module_name, init, submodule_search_locations=[str(folder)])
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                for loaded in [m for m in sys.modules if m == module_name or m.startswith(module_name + ".")]:
                    del sys.modules[loaded]
                raise
    return sys.modules[module_name]


def problem_set_module(assignment: Assignment):
    """The package an assignment was loaded from (its modules), or None for an assignment built
    in code (tests)."""
    if assignment.root is None or _spec_file(assignment.source_dir) is None:
        return None
    return import_problem_set(assignment.source_dir)


def load_assignments(names: Sequence[str] = ()) -> list[Assignment]:
    """The named problem sets of the current course, or all of them."""
    return [load_assignment(n) for n in (names or list_assignments())]


def load_assignment(name: str) -> Assignment:
    """The problem set ``name`` of the current course (``autograder.course.find_course``)."""
    name = resolve_name(name)
    folder = _source() / name
    with _LOAD_LOCK:
        if folder not in _LOADED:
            assignment = import_problem_set(folder).ASSIGNMENT
            if assignment.name != name:
                raise ValueError(f"{folder}: ASSIGNMENT.name is {assignment.name!r}, expected {name!r}")
            _LOADED[folder] = with_notebook_points(dataclasses.replace(assignment, root=folder.parent))
    return _LOADED[folder]


_LOADED: dict[Path, Assignment] = {}


class PointsMismatch(ProblemSetError):
    """The spec's points and the notebook's grade cells disagree."""


def notebook_points(notebook_path: Path) -> dict[str, float]:
    """grade_id -> points of every nbgrader grade cell in the source notebook, in notebook order."""
    import json

    cells = json.loads(notebook_path.read_text(encoding="utf-8")).get("cells", [])
    points = {}
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade") and meta.get("grade_id"):
            points[meta["grade_id"]] = float(meta.get("points") or 0)
    return points


def with_notebook_points(assignment: Assignment) -> Assignment:
    """Points have one source, the grade cell's metadata: every question takes its points from
    there; a question that also states points must agree, and one without a grade cell fails.
    The questions are put in the notebook's order (the modules that define them need not be)."""
    path = assignment.source_dir / assignment.notebook
    cell_points = notebook_points(path)
    questions, problems = [], []
    for q in assignment.questions:
        if q.grade_id not in cell_points:
            problems.append(f"{q.grade_id}: no grade cell with this grade_id in {path.name}")
        elif q.points is not None and float(q.points) != cell_points[q.grade_id]:
            problems.append(f"{q.grade_id}: the spec says {q.points} points, the grade cell {cell_points[q.grade_id]}")
        else:
            q = dataclasses.replace(q, points=cell_points[q.grade_id])
        questions.append(q)
    order = {grade_id: i for i, grade_id in enumerate(cell_points)}
    questions.sort(key=lambda q: order.get(q.grade_id, len(order)))
    if problems:
        raise PointsMismatch(f"{assignment.name}: points disagree with the notebook:\n  " + "\n  ".join(problems))
    return dataclasses.replace(assignment, questions=tuple(questions))
