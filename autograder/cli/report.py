"""`autograder report PS OUT_DIR`: the cohort report of a graded output folder (HTML + PNG)."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def add_parser(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "report",
        parents=parents,
        help="cohort report: score histogram, per-question difficulty, discrimination, misconceptions (HTML + PNG)",
    )
    p.add_argument("problem_set", metavar="PS")
    p.add_argument("out_dir", metavar="OUT_DIR", help="the --out folder of `autograder grade`")
    p.set_defaults(run=run)


def read_results(assignment, out_dir: Path) -> dict | None:
    """results.json of OUT_DIR when it is this problem set's; None after saying why not."""
    path = Path(out_dir) / "results.json"
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"cannot read {path}: {exc}", file=sys.stderr)
        return None
    if results.get("assignment") != assignment.name:
        print(f"{path} is for {results.get('assignment')!r}, not {assignment.name!r}", file=sys.stderr)
        return None
    return results


def run(args) -> int:
    from autograder.outputs.report import write_report
    from autograder.similarity.evidence import report_section
    from autograder.spec import load_assignment

    assignment = load_assignment(args.problem_set)
    results = read_results(assignment, Path(args.out_dir))
    if results is None:
        return 2
    similarity = report_section(assignment, Path(args.out_dir)) if results["students"] else ""
    page = write_report(results, Path(args.out_dir) / "report", assignment, similarity)
    print(f"report: {page}")
    return 0
