"""Question specs: one source of truth per autograded question.

A problem set's ``questions.py`` (beside its source notebook in ``assignments/``) builds an
:class:`Assignment` out of :class:`Question` objects. From one question come

* the visible checks written into the released notebook (expected values computed from the
  reference at release time, see ``autograder.release``),
* the hidden probes drawn per student at grading time (``probes(rng)``), sent into the sandbox
  as plain data,
* the verdict, reached in the trusted process by comparing what came back with
  ``reference(*probe.args)``,
* the feedback: a failed answer is compared against each known-wrong implementation
  (:class:`Misconception`) and, on a match, the student reads that misconception's text.

The self-test (``autograder selftest``) proves each question rejects every known-wrong answer.
"""
from __future__ import annotations

import hashlib
import importlib.util
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from autograder.judging.compare import Comparator, AllClose

REPO_ROOT = Path(__file__).resolve().parent.parent
ASSIGNMENTS_DIR = REPO_ROOT / "assignments"
RELEASE_DIR = REPO_ROOT / "release"


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


_CONSTANT_EXPECTED: dict[int, Any] = {}


@dataclass(frozen=True)
class Question:
    grade_id: str  # the nbgrader grade cell that carries the points
    answer: str  # name the student defines (function or variable)
    points: float
    reference: Callable[..., Any]
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
    # Root cause across questions (grade.py): the grade ids of the questions whose answers this
    # answer calls; a question others depend on may carry its reference as self-contained source,
    # which the sandbox binds under the answer's name when re-asking a dependent question.
    depends_on: tuple[str, ...] = ()
    reference_source: FunctionSource | None = None
    rebind: tuple[tuple[str, FunctionSource], ...] = ()  # set by grade.py for that re-run only

    def probes_for(self, student_id: str, assignment: "Assignment") -> list[Probe]:
        """Functions: probes drawn for this student. Values: one probe carrying the student's
        parameters as keyword arguments for the reference (nothing is sent into the sandbox)."""
        if not self.call:
            params = assignment.params_for(student_id) if self.personal else {}
            return [Probe((), "your parameters" if self.personal else "your answer", kwargs=params)]
        return list(self.probes(student_rng(student_id, assignment.name, self.grade_id)))

    def expected(self, probe: Probe) -> Any:
        if not probe.args and not probe.kwargs:  # a fixed answer: compute it once per process
            key = id(self)
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
    root: Path = ASSIGNMENTS_DIR  # where the source folder lives (tests point it elsewhere)
    # student id -> dict of personal parameters. Must be self-contained (imports inside): its
    # source is copied into the released notebook, so student and grader compute the same.
    student_params: Callable[[str], dict] | None = None

    def params_for(self, student_id: str) -> dict:
        return dict(self.student_params(student_id)) if self.student_params else {}

    @property
    def source_dir(self) -> Path:
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


def list_assignments() -> list[str]:
    return sorted(p.name for p in ASSIGNMENTS_DIR.iterdir() if (p / "questions.py").exists())


def resolve_name(name: str) -> str:
    """'ps1' -> 'ps1_attention'; a full name is returned as is."""
    names = list_assignments()
    if name in names:
        return name
    matches = [n for n in names if n.split("_", 1)[0] == name]
    if len(matches) == 1:
        return matches[0]
    raise SystemExit(f"unknown problem set {name!r}; known: {', '.join(names) or 'none'}")


_LOAD_LOCK = threading.RLock()


def load_assignment(name: str) -> Assignment:
    """Import ``assignments/<name>/questions.py`` (trusted instructor code) and return ASSIGNMENT."""
    name = resolve_name(name)
    path = ASSIGNMENTS_DIR / name / "questions.py"
    module_name = f"_assignment_{name}"
    with _LOAD_LOCK:  # grading threads (and Dask tasks) may ask at the same time
        if module_name not in sys.modules:
            spec = importlib.util.spec_from_file_location(module_name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module
            sys.path.insert(0, str(path.parent))  # a spec may import its siblings (unique names)
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[module_name]
                raise
            finally:
                sys.path.remove(str(path.parent))
    assignment = sys.modules[module_name].ASSIGNMENT
    if assignment.name != name:
        raise ValueError(f"{path}: ASSIGNMENT.name is {assignment.name!r}, expected {name!r}")
    return assignment
