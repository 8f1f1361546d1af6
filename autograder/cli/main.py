"""`autograder` — the command line (contract in DESIGN.md).

Exit codes: 0 success (whatever the students scored), 1 a check failed (release --check,
selftest, validate), 2 usage or infrastructure error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def cmd_release(args) -> int:
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


def cmd_init(args) -> int:
    from autograder.course import init_course

    course = init_course(Path(args.directory), args.course_id, with_problem_sets=not args.empty)
    names = sorted(p.name for p in course.source.iterdir())
    print(f"course {course.root}: {len(names)} problem sets in source/ ({', '.join(names) or 'none'})")
    print(f"next: cd {course.root} && autograder release && autograder selftest")
    return 0


def _sandbox(args):
    from autograder.sandbox.pool import SandboxConfig

    return SandboxConfig(mode=args.sandbox)


def cmd_grade(args) -> int:
    from autograder.grading.cohort import GradingIncomplete, grade_cohort
    from autograder.grading.storage import OutputBusy, ResultStore
    from autograder.intake.collect import IntakeError, collect
    from autograder.outputs import exports
    from autograder.spec import load_assignment

    assignment = load_assignment(args.problem_set)
    out = Path(args.out)
    try:
        with ResultStore(out).locked():  # a zip is unpacked under OUT: not while another run grades there
            intake = collect(
                Path(args.submissions), assignment, out / "intake", id_pattern=args.id_pattern, roster=args.roster
            )
    except (IntakeError, OutputBusy) as exc:
        print(f"autograder grade: {exc}", file=sys.stderr)
        return 2
    print(intake.summary(), file=sys.stderr)
    for note in intake.notes[:20]:
        print(f"  note: {note}", file=sys.stderr)
    try:
        results = grade_cohort(
            assignment,
            Path(args.submissions),
            out,
            workers=args.workers,
            force=args.force,
            sandbox=_sandbox(args),
            scheduler=args.scheduler,
            progress=not args.quiet,
            submissions=intake.submissions,
        )
    except (OutputBusy, GradingIncomplete) as exc:
        print(exc, file=sys.stderr)
        return 2
    exports.write_feedback_pages(assignment, results, out / "feedback")
    if args.csv:
        exports.write_csv(assignment, results, Path(args.csv))
    if args.junit:
        exports.write_junit(assignment, results, Path(args.junit))
    if args.gradescope:
        exports.write_gradescope(assignment, results, Path(args.gradescope))
    if args.canvas:
        from autograder.outputs.canvas import write_canvas_csv

        write_canvas_csv(assignment, results, Path(args.canvas), roster=args.roster, column=args.canvas_column)
    if args.db:
        from autograder.outputs.gradebook import record_results

        record_results(
            assignment,
            results,
            args.db,
            students=intake.graded_students,
            course_id=args.course_id,
            notebooks={s.student: s.notebook for s in intake.submissions if s.notebook},
        )
    print(exports.table(assignment, results))
    print(f"results: {out / 'results.json'}")
    if intake.unmatched:
        print(f"{len(intake.unmatched)} entries were not matched to a student (not graded):", file=sys.stderr)
        for line in intake.unmatched[:50]:
            print(f"  {line}", file=sys.stderr)
        return 2
    return 0


def cmd_demo(args) -> int:
    from autograder.cli.demo import run_demo

    return run_demo(Path(args.out), workers=args.workers, sandbox=_sandbox(args))


def build_parser() -> argparse.ArgumentParser:
    course = argparse.ArgumentParser(add_help=False)
    course.add_argument(
        "--course",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="the course directory (default: $AUTOGRADER_COURSE, else autograder.toml "
        "in the working directory or above)",
    )
    parser = argparse.ArgumentParser(prog="autograder", description=__doc__.splitlines()[0], parents=[course])
    sub = parser.add_subparsers(dest="command", required=True)
    _add_parser = sub.add_parser
    sub.add_parser = lambda *a, **k: _add_parser(*a, parents=[course, *k.pop("parents", [])], **k)

    p = sub.add_parser("init", help="start a course directory with the shipped problem sets")
    p.add_argument("directory", metavar="DIR")
    p.add_argument("--course-id", metavar="ID", help="nbgrader course id (default: the directory's name)")
    p.add_argument("--empty", action="store_true", help="no problem sets in source/")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("release", help="source notebooks -> release/ through nbgrader")
    p.add_argument("problem_sets", nargs="*", metavar="PS", help="e.g. ps1 (default: all)")
    p.add_argument("--check", action="store_true", help="exit 1 if release/ is stale; write nothing")
    p.set_defaults(func=cmd_release)

    def grading_options(p):
        p.add_argument("--workers", type=int, default=2, help="parallel sandboxed workers (default 2)")
        p.add_argument(
            "--sandbox",
            choices=["auto", "bwrap", "rlimits"],
            default="auto",
            help="bubblewrap when usable (auto), or rlimits only (weaker)",
        )

    p = sub.add_parser("grade", help="grade SUBMISSIONS (nbgrader layout, a folder of notebooks, an LMS export)")
    p.add_argument("problem_set", metavar="PS")
    p.add_argument("submissions", metavar="SUBMISSIONS", help="folder or LMS zip (see README: Intake)")
    p.add_argument("--out", required=True, metavar="OUT_DIR")
    grading_options(p)
    p.add_argument("--force", action="store_true", help="re-grade submissions already graded")
    p.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler to grade on")
    p.add_argument("--db", metavar="URL", help="record results in an nbgrader gradebook")
    p.add_argument("--csv", metavar="FILE")
    p.add_argument("--junit", metavar="FILE")
    p.add_argument("--gradescope", metavar="FILE")
    p.add_argument("--canvas", metavar="FILE", help="Canvas gradebook CSV to import")
    p.add_argument(
        "--canvas-column",
        metavar="TITLE",
        help='the Canvas assignment column, e.g. "PS1 (4567)" (default: the problem set name)',
    )
    p.add_argument("--roster", metavar="CSV", help="course roster: student ids and their LMS ids, names, e-mails")
    p.add_argument(
        "--id-pattern", metavar="REGEX", help="flat folder: student id from the file name, group (?P<id>...)"
    )
    p.add_argument(
        "--course-id", metavar="ID", help="gradebook course (default: nbgrader_config.py's CourseDirectory.course_id)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser("demo", help="grade built-in sample submissions and print the table")
    p.add_argument("--out", default="demo_out", metavar="OUT_DIR")
    grading_options(p)
    p.set_defaults(func=cmd_demo)

    for register in _extra_commands():
        register(sub)
    return parser


def _extra_commands():
    """Subcommands that live in their own modules (selftest, validate, report, bench)."""
    from autograder.cli import commands

    return commands.REGISTRY


def main(argv: list[str] | None = None) -> int:
    from autograder.course import CourseNotFound, use_course

    args = build_parser().parse_args(argv)
    use_course(getattr(args, "course", None))
    try:
        return int(args.func(args) or 0)
    except CourseNotFound as exc:
        print(f"autograder: {exc}", file=sys.stderr)
        return 2
    finally:
        use_course(None)  # the choice is this command's: a caller in the same process is not bound to it


if __name__ == "__main__":
    sys.exit(main())
