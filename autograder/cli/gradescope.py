"""`autograder gradescope-zip PS --out FILE.zip`: build a Gradescope autograder zip for a problem set.

What runs inside Gradescope, per submission, is ``python -m autograder.outputs.gradescope``
(the zip's ``run_autograder``), not this command.
"""

from __future__ import annotations

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
