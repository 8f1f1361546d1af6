"""`autograder selftest`: prove each problem set's grading before students see it.

For every problem set:
1. the instructor's solution, handed in as a student would, scores full marks (sandbox path);
2. the unmodified release scores zero on every autograded item;
3. every question rejects each of its known-wrong answers on several students' probes, and
   the feedback given is that misconception's own text; a question without a known-wrong
   answer fails the self-test.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the grading modules are imported when a self-test runs, not for `--help`
    from autograder.runner import Outcome
    from autograder.spec import Assignment, Probe, Question

SELFTEST_STUDENTS = ("selftest-a", "selftest-b", "selftest-c")


def as_handed_in(value):
    """What a student's answer looks like after the wire: formulas arrive as strings."""
    from autograder.spec import to_plain

    value = to_plain(value)
    return str(value) if hasattr(value, "free_symbols") else value


def known_wrong_outcome(question: Question, probes: list[Probe], wrong) -> Outcome:
    """What the sandbox would report for a student who wrote ``wrong``: values, or the error
    it raised on a probe (as the harness describes it: "Type: message")."""
    from autograder.runner import Outcome
    from autograder.spec import as_args

    results = []
    for p in probes:
        try:
            results.append({"value": as_handed_in(wrong(*as_args(p.args, question.args_as), **p.kwargs))})
        except Exception as exc:  # noqa: BLE001
            results.append({"error": f"{type(exc).__name__}: {exc}"})
    return Outcome("returned", results)


def check_misconceptions(assignment: Assignment) -> list[str]:
    from autograder.judge import judge

    problems = []
    for q in assignment.questions:
        if not q.misconceptions:
            problems.append(f"{q.grade_id}: no known-wrong answer to prove the check rejects anything")
        for mis in q.misconceptions:
            for student in SELFTEST_STUDENTS:
                probes = q.probes_for(student, assignment)
                res = judge(q, probes, known_wrong_outcome(q, probes, mis.wrong))
                if res.status == "passed":
                    problems.append(f"{q.grade_id}: known-wrong answer {mis.name!r} PASSED for {student}")
                elif res.misconception != mis.name:
                    problems.append(f"{q.grade_id}: {mis.name!r} was rejected but its feedback was not given "
                                    f"({res.misconception or 'generic'}: {res.feedback[:80]})")
    return problems


def check_solution_and_release(assignment: Assignment, sandbox=None) -> list[str]:
    from autograder.grade import grade_cohort
    from autograder.samples import make_notebook, write_submission

    problems = []
    with tempfile.TemporaryDirectory(prefix="autograder-selftest-") as tmp:
        subs = Path(tmp) / "submitted"
        write_submission(subs, "solution", assignment, make_notebook(assignment))
        write_submission(subs, "release", assignment, make_notebook(assignment, solved=False))
        results = grade_cohort(assignment, subs, Path(tmp) / "out", workers=2, sandbox=sandbox, progress=False)
    sol, rel = results["students"]["solution"], results["students"]["release"]
    if sol["score"] != sol["max_score"]:
        bad = {g: q["feedback"] for g, q in sol["questions"].items() if q["status"] != "passed"}
        problems.append(f"the solution scored {sol['score']:g}/{sol['max_score']:g}: {bad}")
    if rel["score"] != 0:
        bad = [g for g, q in rel["questions"].items() if q["score"]]
        problems.append(f"the unmodified release scored {rel['score']:g} (on {', '.join(bad)})")
    return problems


def selftest(assignment: Assignment, sandbox=None) -> list[str]:
    return check_misconceptions(assignment) + check_solution_and_release(assignment, sandbox)


def cmd_selftest(args) -> int:
    from autograder.cli import _assignments

    failed = False
    for assignment in _assignments(args.problem_sets):
        problems = selftest(assignment)
        n_mis = sum(len(q.misconceptions) for q in assignment.questions)
        if problems:
            failed = True
            print(f"{assignment.name}: FAILED")
            for p in problems:
                print(f"  - {p}")
        else:
            print(f"{assignment.name}: ok — solution full marks, release zero, "
                  f"{n_mis} known-wrong answers rejected with their feedback "
                  f"({len(assignment.questions)} questions)")
    return 1 if failed else 0


def register(sub) -> None:
    p = sub.add_parser("selftest", help="solution full marks, release zero, known-wrong answers rejected")
    p.add_argument("problem_sets", nargs="*", metavar="PS")
    p.set_defaults(func=cmd_selftest)
