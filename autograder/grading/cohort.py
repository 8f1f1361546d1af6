"""Grade a cohort: each submission in a warm sandboxed worker, results stored as they finish.

The submissions come from the intake (``autograder.intake``): grading reads no folder to find
them. Each submission's result is written to ``OUT/submissions/<student>.json`` the moment it is
finished (atomically), keyed by a fingerprint of the notebook and the question spec, so a
killed batch re-run skips finished work and a spec change re-grades (replacing, never
duplicating). ``OUT/results.json`` (the contract) is assembled from those files at the end, beside
``OUT/sources.json`` (what the verdicts were computed from; ``regrade`` says what changed).
The output folder's lock (``ResultStore.locked``) is the caller's: the run that owns the folder
(the command line, the service, a Gradescope run) takes it once around everything it writes there.
"""

from __future__ import annotations

import hashlib
import queue
import threading
from collections.abc import Sequence
from pathlib import Path

from autograder.errors import AutograderError
from autograder.grading import storage
from autograder.grading.progress import Progress
from autograder.grading.regrade import kit_version, record_sources
from autograder.grading.submission import grade_one, single_threaded_reference
from autograder.intake.submission import Submission
from autograder.sandbox.pool import SandboxConfig, Worker
from autograder.spec import Assignment


def verdict_sources(assignment: Assignment) -> list[tuple[str, Path]]:
    """Every file whose change can change a verdict: the problem set's modules (its questions'
    references, probes and known mistakes), the reference package ``solutions/`` and the
    grader's judging (comparators, diagnoses, the verdict, and the second-run and root-cause
    policies)."""
    import importlib.util

    roots = [("ps", assignment.source_dir), ("judging", Path(__file__).parent.parent / "judging")]
    spec = importlib.util.find_spec("solutions")  # located, not imported
    if spec is not None and spec.submodule_search_locations:
        roots += [("solutions", Path(p)) for p in spec.submodule_search_locations]
    files = [
        (f"{tag}/{path.relative_to(root).as_posix()}", path)
        for tag, root in roots
        for path in root.rglob("*.py")
        if "__pycache__" not in path.parts
    ]
    here = Path(__file__).parent  # the policies that change verdicts after judging
    files += [(f"grading/{name}", here / name) for name in ("second_run.py", "root_cause.py")]
    return sorted(files)


def spec_fingerprint(assignment: Assignment) -> str:
    """Changes to the spec, the reference code or the comparators re-grade (see verdict_sources)."""
    h = hashlib.sha256(kit_version().encode())  # a new kit (its sandbox, its harness) re-grades
    for name, path in verdict_sources(assignment):
        h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def fingerprint(sub: Submission, spec_hash: str) -> str:
    h = hashlib.sha256(spec_hash.encode())
    if sub.notebook is not None:
        for path in (sub.notebook, sub.notebook.parent / "timestamp.txt"):  # a re-collected
            try:  # submission re-grades
                h.update(path.read_bytes())
            except OSError:
                h.update(b"absent")
    else:
        h.update(sub.problem.encode())
    if sub.late:  # the LMS's late marker is part of the record
        h.update(b"late")
    return h.hexdigest()[:24]


def grade_cohort(
    assignment: Assignment,
    submissions: Sequence[Submission],
    out_dir: Path,
    *,
    workers: int = 2,
    force: bool = False,
    sandbox: SandboxConfig | None = None,
    progress: bool = True,
    scheduler: str | None = None,
) -> dict:
    """Grade ``submissions`` (from the intake) into ``out_dir``; what was graded before from the
    same notebook and spec is kept. Returns results.json's content."""
    if isinstance(submissions, (str, Path)):
        raise TypeError("grade_cohort grades the intake's submissions (collect_folder reads a folder)")
    submissions = list(submissions)
    store = storage.ResultStore(Path(out_dir))
    store.sub_dir.mkdir(parents=True, exist_ok=True)
    single_threaded_reference()
    spec_hash = spec_fingerprint(assignment)
    todo = []
    for sub in submissions:
        key = fingerprint(sub, spec_hash)
        if force or store.key_of(sub.student) != key:
            todo.append((sub, key))
    bar = Progress(len(todo)) if progress and todo else None
    if scheduler:
        _grade_on_cluster(scheduler, assignment, todo, store, sandbox, bar)
    elif workers > PER_PROCESS and len(todo) > PER_PROCESS:
        _grade_in_processes(assignment, todo, store, workers, sandbox, bar)
    else:
        _grade_locally(assignment, todo, store, workers, sandbox or SandboxConfig(), bar)
    record_sources(out_dir, verdict_sources(assignment), {s.student: s.notebook for s in submissions})
    return store.assemble(assignment, [s.student for s in submissions])


class GradingIncomplete(AutograderError):
    """Infrastructure trouble (disk full, sandbox broken): what was written stays valid."""


def _grade_on_cluster(scheduler, assignment, todo, store, sandbox, bar) -> None:
    from autograder.grading.cluster import grade_on_cluster

    unsaved: list[str] = []
    for sub, key, record in grade_on_cluster(scheduler, assignment, todo, sandbox):
        _save(store, sub, key, record, unsaved)
        if bar:
            bar.tick(sub.student)
    if unsaved:
        raise GradingIncomplete(f"{len(unsaved)} results could not be written ({unsaved[0]})")


# Workers one grader process judges for. Measured on PS1 (2 cores, --workers 2): the grader
# process spends about 19 ms of CPU per notebook judging, against 33 ms in the sandbox, so it
# is busy 40 % of the time; at more workers than this one process would become the bottleneck.
PER_PROCESS = 2


def _grade_in_processes(assignment, todo, store, workers, sandbox, bar) -> None:
    """``--workers N`` above PER_PROCESS: N single-threaded grader processes, each judging what
    its own sandboxed worker ran (a private Dask cluster on this machine, the same task as
    ``--scheduler``), so judging uses every core as execution does."""
    import logging

    from distributed import LocalCluster

    with LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        memory_limit=0,  # the sandbox limits each notebook; Dask pausing a grader would only stall it
        silence_logs=logging.ERROR,
    ) as cluster:
        _grade_on_cluster(cluster.scheduler_address, assignment, todo, store, sandbox, bar)


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

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(max(1, min(workers, len(todo))))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise GradingIncomplete(f"grading stopped: {errors[0]!r}") from errors[0]
    if unsaved:
        raise GradingIncomplete(
            f"{len(unsaved)} results could not be written ({unsaved[0]}); "
            "free the space and run the same command again — finished work is kept"
        )
