"""Grade a cohort: discover submissions, grade each in a warm sandboxed worker, store results.

Each submission's result is written to ``OUT/submissions/<student>.json`` the moment it is
finished (atomically), keyed by a fingerprint of the notebook and the question spec, so a
killed batch re-run skips finished work and a spec change re-grades (replacing, never
duplicating). ``OUT/results.json`` (the contract) is assembled from those files at the end.
"""
from __future__ import annotations

import hashlib
import queue
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from autograder import storage
from autograder.judge import QuestionResult, judge
from autograder.manual import autograded, pending_entries
from autograder.notebook import NotebookError, integrity_flags, read_notebook
from autograder.release import released_notebook
from autograder.root_cause import apply_root_causes
from autograder.runner import execute
from autograder.similarity.personal import personal_answers
from autograder.suspicion import code_flags, wall_flags
from autograder.sandbox.pool import SandboxConfig, Worker
from autograder.spec import Assignment


@dataclass(frozen=True)
class Submission:
    student: str
    notebook: Path | None  # None: nothing gradable was found
    problem: str = ""


def discover(submissions_dir: Path, assignment: Assignment) -> list[Submission]:
    """nbgrader's layout: ``{student_id}/{assignment}/*.ipynb``."""
    found = []
    short = assignment.name.split("_", 1)[0]
    for student_dir in sorted(p for p in Path(submissions_dir).iterdir() if p.is_dir()):
        folder = next((student_dir / n for n in (assignment.name, short) if (student_dir / n).is_dir()), None)
        if folder is None:
            found.append(Submission(student_dir.name, None, f"no {assignment.name}/ folder was submitted"))
            continue
        exact = folder / assignment.notebook
        notebooks = sorted(folder.glob("*.ipynb"))
        if exact.is_file():
            found.append(Submission(student_dir.name, exact))
        elif len(notebooks) == 1:
            found.append(Submission(student_dir.name, notebooks[0]))
        else:
            found.append(Submission(student_dir.name, None,
                                    f"expected {assignment.notebook} in {assignment.name}/ "
                                    f"(found {len(notebooks)} notebooks)"))
    return found


def verdict_sources(assignment: Assignment) -> list[tuple[str, Path]]:
    """Every file whose change can change a verdict: the problem set's modules (questions.py and
    the references, mistakes and probes beside it), the reference package ``solutions/`` and the
    grader's comparators."""
    import importlib.util

    roots = [("ps", assignment.source_dir), ("judging", Path(__file__).parent / "judging")]
    spec = importlib.util.find_spec("solutions")  # located, not imported
    if spec is not None and spec.submodule_search_locations:
        roots += [("solutions", Path(p)) for p in spec.submodule_search_locations]
    files = [(f"{tag}/{path.relative_to(root).as_posix()}", path)
             for tag, root in roots for path in root.rglob("*.py") if "__pycache__" not in path.parts]
    return sorted(files) + [("judge.py", Path(__file__).parent / "judge.py")]


def spec_fingerprint(assignment: Assignment) -> str:
    """Changes to the spec, the reference code or the comparators re-grade (see verdict_sources)."""
    h = hashlib.sha256()
    for name, path in verdict_sources(assignment):
        h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def fingerprint(sub: Submission, spec_hash: str) -> str:
    h = hashlib.sha256(spec_hash.encode())
    if sub.notebook is not None:
        for path in (sub.notebook, sub.notebook.parent / "timestamp.txt"):  # a re-collected
            try:                                                            # submission re-grades
                h.update(path.read_bytes())
            except OSError:
                h.update(b"absent")
    else:
        h.update(sub.problem.encode())
    return h.hexdigest()[:24]


def _unanswered(assignment: Assignment, status: str, reason: str) -> dict:
    return {q.grade_id: QuestionResult(0.0, float(q.points), status, reason).to_json()
            for q in assignment.questions}


def _why_missing(nb, cell_errors: dict[int, str]) -> str:
    unanswered = [nb.labels[i] for i, e in sorted(cell_errors.items()) if e.startswith("NotImplementedError")]
    if unanswered:
        return f" — still `raise NotImplementedError()` in: {', '.join(unanswered)}"
    first = min(cell_errors)
    return f" ({nb.labels[first]} failed: {cell_errors[first]})"


def grade_one(worker: Worker, assignment: Assignment, sub: Submission) -> dict:
    started = time.monotonic()
    record = {"student": sub.student, "assignment": assignment.name, "sandbox": worker.mode,
              "max_score": assignment.max_score}
    if sub.notebook is None:
        questions = _unanswered(assignment, "missing", sub.problem)
        record["error"] = sub.problem
    else:
        record["notebook"] = str(sub.notebook)  # where `autograder similarity` finds the code
        stamp = sub.notebook.parent / "timestamp.txt"  # written by `nbgrader collect`
        if stamp.is_file():
            record["submitted_at"] = stamp.read_text(encoding="utf-8", errors="replace").strip()[:64]
        try:
            nb = read_notebook(sub.notebook)
        except NotebookError as exc:
            nb, questions = None, _unanswered(assignment, "error", str(exc))
            record["error"] = str(exc)
        if nb is not None:
            flags = integrity_flags(nb, released_notebook(assignment))
            if flags:
                record["flags"] = flags
            probes = {q.grade_id: q.probes_for(sub.student, assignment) for q in assignment.questions}
            run = execute(worker, nb, assignment, probes, sub.student)
            verdicts = {}
            for q in assignment.questions:
                res = judge(q, probes[q.grade_id], run.outcomes[q.grade_id])
                if res.status == "missing" and run.cell_errors:
                    res.feedback += _why_missing(nb, run.cell_errors)
                verdicts[q.grade_id] = res
            run.seconds += apply_root_causes(worker, nb, assignment, probes, sub.student, verdicts)
            questions = {gid: res.to_json() for gid, res in verdicts.items()}
            record.update(sandbox_seconds=run.seconds, sandbox_cpu_seconds=run.cpu_seconds, attempts=run.attempts,
                          cell_errors={str(k): v for k, v in sorted(run.cell_errors.items())})
            personal = personal_answers(assignment, run.outcomes)  # for `autograder similarity`
            if personal:
                record["personal_answers"] = personal
            walls = [*run.cell_errors.values(), *(o.reason for o in run.outcomes.values()),
                     *(r.get("error", "") for o in run.outcomes.values() for r in o.results)]
            suspicious = code_flags(nb.cells) + wall_flags(walls)
            if suspicious:
                record["flags"] = record.get("flags", []) + suspicious
    record["questions"] = {**questions, **pending_entries(assignment)}  # hand-graded: "pending"
    record["score"] = float(sum(q["score"] for q in autograded(record["questions"]).values()))
    record["seconds"] = round(time.monotonic() - started, 4)
    return record


def _single_threaded_reference() -> None:
    """The reference runs on tiny probe tensors; torch's thread pool would only contend with
    the sandboxed workers for the same cores (measured: 8 ms instead of 0.1 ms per call)."""
    import torch

    torch.set_num_threads(1)


class Progress:
    def __init__(self, total: int, stream=sys.stderr):
        self.total, self.done, self.start, self.stream = total, 0, time.monotonic(), stream
        self._lock = threading.Lock()

    def tick(self, label: str = "") -> None:
        with self._lock:
            self.done += 1
            elapsed = time.monotonic() - self.start
            rate = self.done / elapsed if elapsed > 0 else 0.0
            eta = (self.total - self.done) / rate if rate else 0.0
            width = 24
            bar = "#" * int(width * self.done / max(self.total, 1))
            line = f"[{bar:<{width}}] {self.done}/{self.total} {rate:5.1f}/s ETA {eta:4.0f}s {label[:20]:<20}"
            if self.stream.isatty():
                self.stream.write("\r" + line + ("\n" if self.done == self.total else ""))
            elif self.done == self.total or self.done % max(1, self.total // 10) == 0:
                self.stream.write(line.rstrip() + "\n")  # logs: about ten lines, no carriage returns
            self.stream.flush()


def grade_cohort(assignment: Assignment, submissions_dir: Path, out_dir: Path, *, workers: int = 2,
                 force: bool = False, sandbox: SandboxConfig | None = None, progress: bool = True,
                 scheduler: str | None = None, submissions: list[Submission] | None = None) -> dict:
    """Grade ``submissions`` (from ``autograder.intake``), or else what ``discover`` finds."""
    out_dir = Path(out_dir)
    store = storage.ResultStore(out_dir)
    _single_threaded_reference()
    with store.locked():
        subs = list(submissions) if submissions is not None else discover(Path(submissions_dir), assignment)
        spec_hash = spec_fingerprint(assignment)
        todo = []
        for sub in subs:
            key = fingerprint(sub, spec_hash)
            if force or store.key_of(sub.student) != key:
                todo.append((sub, key))
        bar = Progress(len(todo)) if progress and todo else None
        if scheduler:
            from autograder.distributed import grade_on_cluster

            unsaved: list[str] = []
            for sub, key, record in grade_on_cluster(scheduler, assignment, todo, sandbox):
                _save(store, sub, key, record, unsaved)
                if bar:
                    bar.tick(sub.student)
            if unsaved:
                raise GradingIncomplete(f"{len(unsaved)} results could not be written ({unsaved[0]})")
        else:
            _grade_locally(assignment, todo, store, workers, sandbox or SandboxConfig(), bar)
        results = store.assemble(assignment, [s.student for s in subs])
    return results


class GradingIncomplete(RuntimeError):
    """Infrastructure trouble (disk full, sandbox broken): what was written stays valid."""


def _save(store, sub: Submission, key: str, record: dict, unsaved: list) -> None:
    try:
        store.save(sub.student, key, record)
    except OSError as exc:  # e.g. disk full: keep going; the re-run grades what is missing
        unsaved.append(f"{sub.student}: {exc.strerror or exc}")


def _grade_locally(assignment, todo, store, workers, sandbox, bar) -> None:
    jobs: queue.Queue = queue.Queue()
    for item in todo:
        jobs.put(item)
    errors: list[BaseException] = []
    unsaved: list[str] = []

    def work(index: int) -> None:
        worker = Worker(index, sandbox)
        try:
            while True:
                try:
                    sub, key = jobs.get_nowait()
                except queue.Empty:
                    return
                _save(store, sub, key, grade_one(worker, assignment, sub), unsaved)
                if bar:
                    bar.tick(sub.student)
        except BaseException as exc:  # infrastructure: surface it after the others finish
            errors.append(exc)
        finally:
            worker.stop()

    threads = [threading.Thread(target=work, args=(i,), daemon=True)
               for i in range(max(1, min(workers, len(todo))))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise GradingIncomplete(f"grading stopped: {errors[0]!r}") from errors[0]
    if unsaved:
        raise GradingIncomplete(f"{len(unsaved)} results could not be written ({unsaved[0]}); "
                                "free the space and run the same command again — finished work is kept")
