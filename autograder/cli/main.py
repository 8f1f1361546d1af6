"""`autograder` — release, self-test and grade transformer problem sets (README.md: Instructor workflow).

Exit codes: 0 success (whatever the students scored), 1 a check failed (release --check,
selftest, validate), 2 usage or infrastructure error.

Each subcommand is a module of this package with the same two functions: ``add_parser(subparsers,
parents)`` declares its arguments (``parents`` carries the options every command takes, such as
``--course``) and ``run(args) -> int`` does the work. The library raises domain errors
(``autograder.errors.AutograderError``); ``main`` alone turns them into a message and an exit code.
"""

from __future__ import annotations

import argparse
import sys

from autograder.cli import (
    bench,
    demo,
    final,
    grade,
    gradescope,
    init,
    release,
    report,
    selftest,
    serve,
    similarity,
    validate,
)

SUBCOMMANDS = (init, release, grade, final, demo, selftest, validate, bench, report, gradescope, similarity, serve)


def common_options() -> argparse.ArgumentParser:
    """Options every command takes, before or after its name."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--course",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="the course directory (default: $AUTOGRADER_COURSE, else autograder.toml "
        "in the working directory or above)",
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    common = common_options()
    parser = argparse.ArgumentParser(prog="autograder", description=__doc__.splitlines()[0], parents=[common])
    subparsers = parser.add_subparsers(dest="command", required=True)
    for command in SUBCOMMANDS:
        command.add_parser(subparsers, [common])
    return parser


def explain(error: Exception, command: str) -> tuple[str, int]:
    """The message and exit code of a domain error: 1 for a problem set that fails as a check
    would, 2 for usage and infrastructure (a missing course, a busy or unreadable output, ...)."""
    from autograder.course import CourseNotFound
    from autograder.grading.cohort import GradingIncomplete
    from autograder.outputs.gradebook import GradebookConfigError
    from autograder.spec import ProblemSetError

    if isinstance(error, CourseNotFound):
        return f"autograder: {error}", 2
    if isinstance(error, ProblemSetError):
        return str(error), 1
    if isinstance(error, (GradingIncomplete, GradebookConfigError)):
        return str(error), 2
    return f"autograder {command}: {error}", 2  # the intake's refusals, a busy output folder, ...


def main(argv: list[str] | None = None) -> int:
    from autograder.course import use_course
    from autograder.errors import AutograderError

    args = build_parser().parse_args(argv)
    use_course(getattr(args, "course", None))
    try:
        return int(args.run(args) or 0)
    except AutograderError as error:
        message, code = explain(error, args.command)
        print(message, file=sys.stderr)
        return code
    finally:
        use_course(None)  # the choice is this command's: a caller in the same process is not bound to it


if __name__ == "__main__":
    sys.exit(main())
