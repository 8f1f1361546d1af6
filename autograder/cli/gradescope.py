"""`autograder gradescope-zip PS --out FILE.zip`: build a Gradescope autograder zip for a problem set;
and what runs inside Gradescope per submission, ``python -m autograder.cli.gradescope PS
--submission DIR --results DIR --metadata FILE`` (the zip's ``run_autograder``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "gradescope-zip", parents=parents, help="build a Gradescope autograder zip for a problem set"
    )
    p.add_argument("problem_set", metavar="PS")
    p.add_argument("--out", required=True, metavar="FILE.zip")
    p.set_defaults(run=run)


def run(args) -> int:
    from autograder.outputs.gradescope import build_zip
    from autograder.spec import load_assignment

    assignment = load_assignment(args.problem_set)
    names = build_zip(assignment, Path(args.out))
    print(
        f"{args.out}: Gradescope autograder for {assignment.name} ({len(names)} files: setup.sh, run_autograder, kit/)"
    )
    return 0


def run_autograder(argv: list[str] | None = None) -> int:
    """``run_autograder``'s command: grade one submission, write Gradescope's results.json."""
    from autograder.outputs.gradescope import grade_submission, gradescope_results, student_id
    from autograder.outputs.publish import Outputs, publish
    from autograder.spec import load_assignment

    p = argparse.ArgumentParser(prog="run_autograder")
    p.add_argument("problem_set")
    p.add_argument("--submission", type=Path, required=True)
    p.add_argument("--results", type=Path, required=True)
    p.add_argument("--metadata", type=Path, required=True)
    args = p.parse_args(argv)
    assignment = load_assignment(args.problem_set)
    try:
        student = student_id(args.metadata)
        rec = grade_submission(assignment, student, args.submission)
    except Exception as exc:  # infrastructure: no results.json, so Gradescope reports a failed run
        print(f"autograder could not grade this submission: {exc!r}", file=sys.stderr)
        return 2
    results = {"assignment": assignment.name, "max_score": assignment.max_score, "students": {student: rec}}
    publish(assignment, results, args.results, Outputs(feedback_pages=False, gradescope=args.results / "results.json"))
    print(gradescope_results(assignment, rec)["output"])
    return 0


if __name__ == "__main__":
    sys.exit(run_autograder())
