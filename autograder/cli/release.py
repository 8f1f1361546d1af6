"""`autograder release [PS...]`: source notebooks -> release/ through nbgrader (``--check``: exit 1 if stale)."""

from __future__ import annotations

import sys


def add_parser(subparsers, parents) -> None:
    p = subparsers.add_parser("release", parents=parents, help="source notebooks -> release/ through nbgrader")
    p.add_argument("problem_sets", nargs="*", metavar="PS", help="e.g. ps1 (default: all)")
    p.add_argument("--check", action="store_true", help="exit 1 if release/ is stale; write nothing")
    p.set_defaults(run=run)


def run(args) -> int:
    from autograder.releasing.stages import course_release_dir, release
    from autograder.spec import load_assignments

    stale = []
    release_dir = course_release_dir()
    for assignment in load_assignments(args.problem_sets):
        fresh = release(assignment, check=args.check)
        state = "up to date" if fresh else ("STALE" if args.check else "written")
        print(f"{release_dir / assignment.name}: {state}")
        if not fresh:
            stale.append(assignment.name)
    if args.check and stale:
        print("release/ is stale: run `autograder release` and commit the result", file=sys.stderr)
        return 1
    return 0
