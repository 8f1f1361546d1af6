"""`autograder demo`: grade a handful of built-in sample submissions for PS1 and print the table.

The samples go the way every submission goes: written as nbgrader's layout, read by the intake,
graded into ``OUT/graded`` under its lock, published (feedback pages) as ``autograder grade`` does.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from autograder.cli.options import add_grading_options, sandbox_config
from autograder.releasing.sample_submissions import SAMPLES, make_samples


def add_parser(subparsers, parents) -> None:
    p = subparsers.add_parser("demo", parents=parents, help="grade built-in sample submissions and print the table")
    p.add_argument("--out", default="demo_out", metavar="OUT_DIR")
    add_grading_options(p)
    p.set_defaults(run=run)


def run(args) -> int:
    return run_demo(Path(args.out), workers=args.workers, sandbox=sandbox_config(args))


def run_demo(out: Path, *, workers: int = 2, sandbox=None) -> int:
    from autograder.grading.cohort import grade_cohort
    from autograder.grading.storage import ResultStore
    from autograder.intake.collect import collect_folder
    from autograder.outputs.exports import table
    from autograder.outputs.publish import Outputs, publish
    from autograder.spec import load_assignment

    assignment = load_assignment("ps1_attention")
    shutil.rmtree(out, ignore_errors=True)
    submissions = out / "submissions_in"
    make_samples(submissions)
    print(f"Sample submissions in {submissions}:")
    for student, (what, _) in SAMPLES.items():
        print(f"  {student:6} {what}")
    started = time.monotonic()
    graded = out / "graded"
    intake = collect_folder(submissions, assignment)
    with ResultStore(graded).locked():
        results = grade_cohort(assignment, intake, graded, workers=workers, sandbox=sandbox)
        publish(assignment, results, graded, Outputs())
    modes = {rec.get("sandbox") for rec in results["students"].values()}
    print(
        f"\nGraded {len(results['students'])} submissions in {time.monotonic() - started:.1f} s "
        f"(sandbox: {', '.join(sorted(m for m in modes if m))}):\n"
    )
    print(table(assignment, results))
    print(f"\nresults.json: {graded / 'results.json'}; feedback pages: {graded / 'feedback'}")
    return 0
