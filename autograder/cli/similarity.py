"""`autograder similarity PS OUT_DIR [--submissions DIR]`: the copying evidence of a graded cohort
(``autograder.similarity.evidence`` computes it; no score changes)."""

from __future__ import annotations

from pathlib import Path

from autograder.cli.report import read_results


def add_parser(subparsers, parents) -> None:
    from autograder.similarity.code import THRESHOLD

    p = subparsers.add_parser(
        "similarity",
        parents=parents,
        help="copying evidence for the instructor: similar code (pairs, groups) "
        "and personal answers for another student's parameters (HTML)",
    )
    p.add_argument("problem_set", metavar="PS")
    p.add_argument("out_dir", metavar="OUT_DIR", help="the --out folder of `autograder grade`")
    p.add_argument(
        "--submissions",
        metavar="SUBMISSIONS",
        help="find notebooks here, folder or LMS zip, as `grade` does (default: where the records say)",
    )
    p.add_argument("--id-pattern", metavar="REGEX", help="with --submissions: as for `grade`")
    p.add_argument("--roster", metavar="CSV", help="with --submissions: as for `grade`")
    p.add_argument(
        "--threshold",
        type=float,
        default=THRESHOLD,
        help=f"flag pairs at or above this score (default {THRESHOLD})",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    from autograder.similarity.evidence import write_similarity
    from autograder.spec import load_assignment

    assignment = load_assignment(args.problem_set)
    out = Path(args.out_dir)
    if read_results(assignment, out) is None:
        return 2
    page, analysis = write_similarity(
        assignment,
        out,
        Path(args.submissions) if args.submissions else None,
        threshold=args.threshold,
        intake_options={"id_pattern": args.id_pattern, "roster": args.roster},
    )
    for p in analysis.comparison.pairs:
        print(f"similar: {p.a} – {p.b}  score {p.score:.2f} ({p.shared} shared fingerprints)")
    for group in analysis.comparison.clusters:
        if len(group) > 2:
            print(f"group: {', '.join(group)}")
    for flag in analysis.personal:
        print(f"personal: {flag.text()}")
    for student, why in sorted(analysis.unreadable.items()):
        print(f"not compared: {student}: {why}")
    print(f"similarity report (evidence, no score changed): {page}")
    return 0
