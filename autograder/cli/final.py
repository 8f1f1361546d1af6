"""`autograder final-grades PS OUT --db URL`: the course's final grades, from the kit's results
and nbgrader's gradebook (hand-graded points and formgrader overrides included).

It reads ``OUT/results.json`` (what ``autograder grade`` wrote) and the gradebook ``grade --db``
recorded into, and writes, all from the same numbers as ``nbgrader export``:

* ``OUT/final/results.json`` — results.json's shape with the final scores (outputs/final_grades.py);
* ``OUT/final/feedback/<student>.html`` — each student's page with their final total;
* ``OUT/final/report/index.html`` — the cohort report of the final grades;
* ``OUT/final/canvas.csv`` (or ``--canvas``) — Canvas's gradebook import;
* ``OUT/final/moodle_worksheet.csv`` (or ``--moodle``) — Moodle's grading worksheet.

Every comment a grader typed in formgrader is in the final results, the student's page and the
worksheet's ``Feedback comments``. A flagged student (unreadable notebook, another assignment's)
has nothing in formgrader's queue, gets no grade in Canvas or Moodle (said why in the comments
and in the list printed here) and is left out of the report's statistics.

Exit status: 0 when every hand-graded cell has a score; 1 when some are still waiting in
formgrader (everything is written, those cells shown as still to come), unless
``--allow-pending``; 2 for usage and infrastructure errors.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from autograder.cli.options import add_language_option, student_languages


def add_parser(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "final-grades",
        parents=parents,
        help="final grades: autograded + hand-graded points and overrides from the gradebook, to Canvas/Moodle/pages",
    )
    p.add_argument("problem_set", metavar="PS")
    p.add_argument("out_dir", metavar="OUT_DIR", help="the --out folder of `autograder grade`")
    p.add_argument("--db", required=True, metavar="URL", help="the nbgrader gradebook `grade --db` recorded into")
    p.add_argument(
        "--course-id", metavar="ID", help="gradebook course (default: nbgrader_config.py's CourseDirectory.course_id)"
    )
    p.add_argument("--roster", metavar="CSV", help="course roster: names and LMS ids (Canvas export works as one)")
    add_language_option(p)
    p.add_argument("--canvas", metavar="FILE", help="Canvas import file (default: OUT_DIR/final/canvas.csv)")
    p.add_argument("--canvas-column", metavar="TITLE", help='the Canvas assignment column, e.g. "PS1 (4567)"')
    p.add_argument(
        "--moodle", metavar="FILE", help="Moodle grading worksheet (default: OUT_DIR/final/moodle_worksheet.csv)"
    )
    p.add_argument(
        "--allow-pending", action="store_true", help="exit 0 even when hand-graded cells still wait for a grader"
    )
    p.set_defaults(run=run)


def run(args) -> int:
    from autograder.cli.report import read_results
    from autograder.grading.storage import ResultStore
    from autograder.outputs.canvas import write_canvas_csv
    from autograder.outputs.exports import record_notes
    from autograder.outputs.feedback_pages import write_feedback_pages
    from autograder.outputs.final_grades import final_results, grader_comments
    from autograder.outputs.moodle import write_moodle_worksheet
    from autograder.outputs.report import write_report
    from autograder.spec import load_assignment

    assignment = load_assignment(args.problem_set)
    out = Path(args.out_dir)
    with ResultStore(out).locked():
        results = read_results(assignment, out)
        if results is None:
            return 2
        final = final_results(assignment, results, args.db, course_id=args.course_id, roster=args.roster)
        folder = out / "final"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "results.json").write_text(json.dumps(final, indent=1, sort_keys=True), encoding="utf-8")
        write_feedback_pages(assignment, final, folder / "feedback", student_languages(args, args.roster))
        canvas = write_canvas_csv(
            assignment, final, Path(args.canvas or folder / "canvas.csv"), roster=args.roster, column=args.canvas_column
        )
        moodle = Path(args.moodle or folder / "moodle_worksheet.csv")
        notes = lambda rec: record_notes(rec) + grader_comments(rec)  # noqa: E731 - the worksheet's comments
        no_moodle_id = write_moodle_worksheet(final, moodle, roster=args.roster, notes=notes)
        report = write_report(final, folder / "report", assignment)
    print(final_table(final))
    print(f"final results: {folder / 'results.json'}\nfeedback: {folder / 'feedback'}\nreport: {report}")
    print(f"canvas: {canvas}\nmoodle: {moodle}")
    if no_moodle_id:
        print(f"moodle: {len(no_moodle_id)} without a Moodle participant id left out: {', '.join(no_moodle_id[:20])}")
    if final["flagged"]:
        print(f"{len(final['flagged'])} flagged, not graded (no grade in Canvas or Moodle, not in the report):")
        for line in final["flagged"]:
            print(f"  FLAGGED {line}")
    for line in final["stale"][:20]:
        print(f"  stale: {line} (run `autograder grade … --db` again)", file=sys.stderr)
    if final["incomplete"]:
        print(f"{len(final['incomplete'])} hand-graded cells still wait for a grader in formgrader:", file=sys.stderr)
        for line in final["incomplete"][:50]:
            print(f"  {line}", file=sys.stderr)
        return 0 if args.allow_pending else 1
    return 0


def final_table(final: dict) -> str:
    """One line per student: autograded points, the final grade, late and flag notes."""
    from autograder.outputs.exports import record_notes

    width = max([len(s) for s in final["students"]] + [7])
    lines = [f"{'student':<{width}}  {'autograded':>10}  {'final':>11}  notes"]
    for student, rec in sorted(final["students"].items()):
        total = f"{rec['score']:g}/{rec['max_score']:g}"
        said = ([rec["name"]] if rec.get("name") else []) + record_notes(rec)
        said += [f"{gid} overridden" for gid, q in rec["questions"].items() if q.get("override")]
        said += [f"{gid} still to grade" for gid, q in rec["questions"].items() if q.get("status") == "pending"]
        lines.append(f"{student:<{width}}  {rec['autograded_score']:>10g}  {total:>11}  {'; '.join(said)}")
    return "\n".join(lines)
