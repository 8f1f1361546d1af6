"""`autograder grade PS SUBMISSIONS --out OUT`: intake, grading, publishing, the table.

This command owns OUT for the whole run: it takes OUT's lock once, around the intake (a zip is
unpacked under ``OUT/intake``), the grading and the outputs it publishes there.
"""

from __future__ import annotations

import sys
from pathlib import Path

from autograder.cli.options import add_grading_options, add_language_option, sandbox_config, student_languages


def add_parser(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "grade", parents=parents, help="grade SUBMISSIONS (nbgrader layout, a folder of notebooks, an LMS export)"
    )
    p.add_argument("problem_set", metavar="PS")
    p.add_argument("submissions", metavar="SUBMISSIONS", help="folder or LMS zip (see README: Intake)")
    p.add_argument("--out", required=True, metavar="OUT_DIR")
    add_grading_options(p)
    add_language_option(p)
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
    p.add_argument(
        "--accept-flagged",
        action="store_true",
        help="exit 0 although some notebooks were flagged (unreadable, another assignment's)",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    from autograder.grading.cohort import grade_cohort
    from autograder.grading.regrade import Previous, describe
    from autograder.grading.storage import ResultStore
    from autograder.intake.collect import collect
    from autograder.outputs.exports import table
    from autograder.outputs.publish import publish
    from autograder.spec import load_assignment

    assignment = load_assignment(args.problem_set)
    out = Path(args.out)
    with ResultStore(out).locked():
        intake = collect(
            Path(args.submissions), assignment, out / "intake", id_pattern=args.id_pattern, roster=args.roster
        )
        print(intake.summary(), file=sys.stderr)
        previous = Previous.read(out)
        for note in intake.notes[:20]:
            print(f"  note: {note}", file=sys.stderr)
        results = grade_cohort(
            assignment,
            intake.submissions,
            out,
            workers=args.workers,
            force=args.force,
            sandbox=sandbox_config(args),
            scheduler=args.scheduler,
            progress=not args.quiet,
        )
        publish(assignment, results, out, _outputs(args, intake))
        account = describe(previous, Previous.read(out).sources or {}, results)
    print(table(assignment, results))
    print(f"results: {out / 'results.json'}")
    if account:
        print(account)
    flagged = {s: r for s, r in results["students"].items() if r.get("flag")}
    for student, rec in flagged.items():
        print(f"FLAGGED {student}: {rec['flag']}: {rec['flag_reason']}")
    if intake.unmatched:
        print(f"{len(intake.unmatched)} entries were not matched to a student (not graded):", file=sys.stderr)
        for line in intake.unmatched[:50]:
            print(f"  {line}", file=sys.stderr)
        return 2
    if flagged and not args.accept_flagged:
        print(
            f"{len(flagged)} notebook{'s' * (len(flagged) != 1)} flagged, not graded (above); "
            "--accept-flagged exits 0 with them",
            file=sys.stderr,
        )
        return 3
    return 0


def _outputs(args, intake):
    from autograder.outputs.publish import Outputs

    return Outputs(
        csv=args.csv,
        junit=args.junit,
        gradescope=args.gradescope,
        canvas=args.canvas,
        canvas_column=args.canvas_column,
        roster=args.roster,
        db=args.db,
        course_id=args.course_id,
        graded_students=intake.graded_students,
        notebooks={s.student: s.notebook for s in intake.submissions if s.notebook},
        language_of=student_languages(args, args.roster),
    )
