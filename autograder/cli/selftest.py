"""`autograder selftest [PS...]`: prove each problem set's grading before students see it
(the checks are ``autograder.proving.selftest``'s); exit 1 when one fails."""

from __future__ import annotations


def add_parser(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "selftest",
        parents=parents,
        help="solution full marks, release zero, known-wrong answers rejected, probes kill every mutant",
    )
    p.add_argument("problem_sets", nargs="*", metavar="PS")
    p.add_argument(
        "--probes-only",
        action="store_true",
        help="skip grading the solution and the release in the sandbox (PS6 trains models)",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    from autograder.proving import feedback_audit
    from autograder.proving.selftest import run_selftest
    from autograder.spec import load_assignments

    failed, killed, non_equivalent, audits = False, 0, 0, []
    assignments = load_assignments(args.problem_sets)
    for assignment in assignments:
        report = run_selftest(assignment, sandboxed=not args.probes_only)
        print(f"  {feedback_audit.report(assignment, audits, report.mutation)}")  # issue 16
        for r in report.mutation:
            killed, non_equivalent = killed + len(r.killed), non_equivalent + r.non_equivalent
            print(f"  {r.summary()}")
            for name in r.survived:
                print(f"    survivor: {name}" + (f" — accepted: {r.accepted[name]}" if name in r.accepted else ""))
        caught, total = report.visible_caught
        print(f"  visible checks catch {caught}/{total} known-wrong answers before submission")
        n_mis = sum(len(q.misconceptions) for q in assignment.questions)
        if report.problems:
            failed = True
            print(f"{assignment.name}: FAILED")
            for p in report.problems:
                print(f"  - {p}")
        else:
            what = "probes" if args.probes_only else "solution full marks, release zero"
            print(
                f"{assignment.name}: ok — {what}, {n_mis} known-wrong answers rejected with their feedback, "
                f"hidden probes kill every mutant ({len(assignment.questions)} questions)"
            )
    complete = catalogues_complete(assignments)
    print(feedback_audit.summary_line(audits))
    print(f"mutants_killed: {killed}/{non_equivalent}")  # last: scripts read it
    return 1 if failed or not complete else 0


def catalogues_complete(assignments) -> bool:
    """The engine's catalogues and these problem sets' (README: Languages): every message
    translated, every placeholder kept."""
    from autograder.i18n.completeness import TRANSLATED, engine_problems, problem_set_problems

    problems = engine_problems() + [p for a in assignments for p in problem_set_problems(a)]
    for problem in problems:
        print(f"  - catalogue: {problem}")
    print(f"catalogues ({', '.join(TRANSLATED)}): " + (f"FAILED, {len(problems)} problems" if problems else "complete"))
    notebook_catalogues(assignments)
    return not problems


def notebook_catalogues(assignments) -> None:
    """The released notebooks' text per language: a cell said in English is listed, not a failure
    (a cell edited in English stays readable; `autograder release --extract --lang de` marks it)."""
    from autograder.releasing.notebook_catalogue import notebook_catalogue_problems, notebook_languages

    for assignment in assignments:
        for lang in notebook_languages(assignment):
            problems = notebook_catalogue_problems(assignment, lang)
            for problem in problems:
                print(f"  - notebook catalogue: {problem}")
            print(
                f"{assignment.name} notebook ({lang}): "
                + (f"{len(problems)} cells to translate" if problems else "translated")
            )
