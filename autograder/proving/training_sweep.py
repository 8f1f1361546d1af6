"""The seed sweep: a training question graded for many student ids, as the grader would.

A training question (PS6 ``train_copy``/``train_addition``, PS7 ``shift_generalises``) hands the
student's code a seed drawn for their id, so a bar is only trusted once many ids were tried.
This grades one notebook — by default the instructor's own (the source notebook), or that
notebook with some cells replaced by a student's — for ids ``s000`` … under the grader's policy
(``autograder.grading.second_run.train_again``: a stalled or undertrained run is trained again
on another draw, up to three runs), and prints the pass rates and the CPU-seconds each id cost.

It runs the notebook in this process (trusted instructor or test code, never a submission), one
thread per worker process as in the sandbox:

    python -m autograder.proving.training_sweep ps6 --ids 200 --workers 2
    python -m autograder.proving.training_sweep ps7 --cells shift_impl=my_cell.py --ids 300
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

_NS: dict = {}
_ASSIGNMENT = None


def notebook_namespace(assignment, cells: dict[str, str] | None = None) -> dict:
    """The notebook's code cells executed here, as the grader's kernel would (GRADING is True).

    Trusted code only (the instructor's notebook, or a test's cells): it runs in this process.
    """
    import nbformat
    import torch

    from autograder.releasing.sample_submissions import make_notebook

    torch.set_num_threads(1)
    nb = make_notebook(assignment, cells) if cells else nbformat.read(assignment.source_dir / assignment.notebook, 4)
    ns = {"__name__": "__main__"}
    for cell in nb.cells:
        if cell.cell_type == "code" and not cell.source.lstrip().startswith(("%", "!")):
            exec(compile(cell.source, f"<{assignment.name} cell>", "exec"), ns)
    return ns


def _init(name: str, cells: dict[str, str], course: str | None) -> None:
    global _ASSIGNMENT, _NS
    if course:
        os.environ["AUTOGRADER_COURSE"] = course
    os.environ.setdefault("AUTOGRADER_STUDENT_ID", "sweep")
    from autograder.spec import load_assignment

    _ASSIGNMENT = load_assignment(name)
    _NS = notebook_namespace(_ASSIGNMENT, cells)


def _ask(questions, probes):
    """One training run per question, in this process: the verdicts and the CPU-seconds."""
    from autograder.judging.instructor_answers import known_wrong_outcome
    from autograder.judging.verdict import judge

    verdicts, start = {}, time.process_time()
    for q in questions:
        answer = _NS[q.answer]
        verdicts[q.grade_id] = judge(q, probes[q.grade_id], known_wrong_outcome(q, probes[q.grade_id], answer))
    return verdicts, time.process_time() - start


def sweep_one(args: tuple[str, tuple[str, ...]]) -> dict:
    """Grade the training questions ``grade_ids`` for ``student``: first verdicts, final ones, CPU-s."""
    from autograder.grading.second_run import train_again

    student, grade_ids = args
    questions = [_ASSIGNMENT.question(g) for g in grade_ids]
    probes = {q.grade_id: q.probes_for(student, _ASSIGNMENT) for q in questions}
    results, seconds = _ask(questions, probes)
    first = {g: (r.status, r.misconception) for g, r in results.items()}
    seconds += train_again(_ASSIGNMENT, student, results, _ask)
    return {
        "student": student,
        "first": first,
        "final": {g: r.status for g, r in results.items()},
        "feedback": {
            g: r.feedback[:160] for g, r in results.items() if r.status != "passed" or first[g][0] != "passed"
        },
        "cpu_s": seconds,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("problem_set")
    parser.add_argument("--questions", nargs="*", help="grade ids (default: every question with a second run)")
    parser.add_argument("--ids", type=int, default=200, help="student ids s000 … (default 200)")
    parser.add_argument("--first-id", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cells", action="append", default=[], metavar="CELL_ID=FILE", help="replace a cell")
    args = parser.parse_args(argv)

    from autograder.spec import load_assignment

    assignment = load_assignment(args.problem_set)
    grade_ids = tuple(args.questions or [q.grade_id for q in assignment.questions if q.second_run_on])
    cells = {}
    for item in args.cells:
        cell_id, _, path = item.partition("=")
        cells[cell_id] = Path(path).read_text(encoding="utf-8")
    students = [f"s{i:03d}" for i in range(args.first_id, args.first_id + args.ids)]
    course = os.environ.get("AUTOGRADER_COURSE")
    context = multiprocessing.get_context("fork")
    with context.Pool(args.workers, initializer=_init, initargs=(assignment.name, cells, course)) as pool:
        rows = []
        for row in pool.imap_unordered(sweep_one, [(s, grade_ids) for s in students]):
            rows.append(row)
            notes = "; ".join(f"{g}: {f}" for g, f in row["feedback"].items())
            print(f"{row['student']}  first {row['first']}  final {row['final']}  {row['cpu_s']:.1f} CPU-s  {notes}")
            sys.stdout.flush()
    n = len(rows)
    for g in grade_ids:
        first = sum(r["first"][g][0] == "passed" for r in rows)
        final = sum(r["final"][g] == "passed" for r in rows)
        print(f"{g}: first runs passed {first}/{n}; passed under the policy {final}/{n}")
    cpu = [r["cpu_s"] for r in rows]
    print(f"CPU-s per submission: mean {statistics.mean(cpu):.1f}, max {max(cpu):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
