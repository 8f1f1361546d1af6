"""`autograder bench grading|model|tasks` — measurements printed, never asserted in tests.

``grading`` builds one batch of N submissions of PS1 (honest and wrong), grades it with
``nbgrader autograde`` (a fresh kernel per notebook, its normal mode) and with this engine,
in the same run on the same machine, checks both give the honest submissions the same score,
and prints seconds per notebook for each and, last, ``speedup_vs_nbgrader: <ratio>``.

``grading --ps ps6`` grades N honest PS6 submissions (they train two models each) and prints,
last, ``ps6_cpu_s_per_honest: <seconds>``: the CPU time of the grader and of every sandboxed
student process (as each was reaped), divided by N (nbgrader runs none of the training, so
there is no anchor to compare).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def nbgrader_course(course: Path, submissions: Path) -> None:
    """A real nbgrader course: source (with visible checks), generated release, submitted/."""
    from autograder.releasing.stages import ReleaseContext, copy_source, fill_visible_checks, nbgrader_generate
    from autograder.spec import load_assignment

    assignment = load_assignment("ps1_attention")
    ctx = ReleaseContext(assignment, course)
    copy_source(ctx)
    fill_visible_checks(ctx)
    nbgrader_generate(ctx)  # also records the assignment in course/gradebook.db
    shutil.copytree(submissions, course / "submitted")


def nbgrader_scores(course: Path) -> dict[str, tuple[float, float]]:
    """student -> (total score, score of the sdpa cell) as nbgrader recorded them."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {
            s.student.id: (
                float(s.score),
                float(gb.find_grade("sdpa", "ps1_attention", "ps1_attention", s.student.id).score),
            )
            for s in gb.assignment_submissions("ps1_attention")
        }


def run_nbgrader(course: Path) -> float:
    bindir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"}
    started = time.perf_counter()
    proc = subprocess.run(
        [
            str(bindir / "nbgrader"),
            "autograde",
            "ps1_attention",
            "--force",
            f"--CourseDirectory.root={course}",
            f"--CourseDirectory.db_url=sqlite:///{course / 'gradebook.db'}",
            "--ExecutePreprocessor.timeout=120",
        ],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"nbgrader autograde failed:\n{proc.stderr[-3000:]}")
    return elapsed


def bench_grading(n: int = 40, workers: int = 2) -> int:
    from autograder.cli.bench_scale import make_batch
    from autograder.grading.cohort import grade_cohort
    from autograder.intake.collect import collect_folder
    from autograder.spec import load_assignment

    assignment = load_assignment("ps1_attention")
    with tempfile.TemporaryDirectory(prefix="autograder-bench-") as tmp:
        tmp = Path(tmp)
        honest = make_batch(tmp / "submitted", n)
        nbgrader_course(tmp / "course", tmp / "submitted")
        print(
            f"batch: {n} notebooks of {assignment.name} ({sum(honest.values())} honest), {workers} workers", flush=True
        )

        started = time.perf_counter()
        submissions = collect_folder(tmp / "submitted", assignment)
        ours = grade_cohort(assignment, submissions, tmp / "ours", workers=workers, progress=False)
        t_ours = time.perf_counter() - started
        per_sub = [rec["seconds"] for rec in ours["students"].values()]
        print(
            f"this engine: {t_ours:.2f} s total, {t_ours / n:.4f} s per notebook "
            f"(per-submission time in a warm worker: median {sorted(per_sub)[len(per_sub) // 2]:.4f} s)",
            flush=True,
        )

        t_nbg = run_nbgrader(tmp / "course")
        print(f"nbgrader autograde: {t_nbg:.2f} s total, {t_nbg / n:.4f} s per notebook", flush=True)

        theirs = nbgrader_scores(tmp / "course")
        disagree = [s for s, ok in honest.items() if ok and theirs.get(s, (None,))[0] != ours["students"][s]["score"]]
        print(
            f"honest submissions: both score {assignment.max_score:g}/{assignment.max_score:g}"
            if not disagree
            else f"SCORES DISAGREE on honest submissions: {disagree[:5]}"
        )
        wrong = [s for s, ok in honest.items() if not ok]
        ours_zero = sum(ours["students"][s]["questions"]["sdpa"]["score"] == 0 for s in wrong)
        theirs_zero = sum(theirs.get(s, (0, 0))[1] == 0 for s in wrong)
        print(
            f"submissions missing 1/sqrt(d_k): sdpa scored 0 by this engine for {ours_zero}/{len(wrong)}, "
            f"by nbgrader for {theirs_zero}/{len(wrong)}"
        )
        print(f"speedup_vs_nbgrader: {t_nbg / t_ours:.1f}")
        return 1 if disagree else 0


def bench_cpu_per_honest(ps: str, n: int, workers: int) -> int:
    import resource

    from autograder.grading.cohort import grade_cohort
    from autograder.intake.collect import collect_folder
    from autograder.releasing.sample_submissions import make_notebook, write_submission
    from autograder.spec import load_assignment

    assignment = load_assignment(ps)
    with tempfile.TemporaryDirectory(prefix="autograder-bench-") as tmp:
        tmp = Path(tmp)
        nb = make_notebook(assignment)
        for i in range(n):
            write_submission(tmp / "submitted", f"s{i:03d}", assignment, nb)
        print(f"batch: {n} honest notebooks of {assignment.name}, {workers} workers", flush=True)

        def grader_cpu() -> float:
            usage = resource.getrusage(resource.RUSAGE_SELF)
            return usage.ru_utime + usage.ru_stime

        submissions = collect_folder(tmp / "submitted", assignment)
        cpu_before, started = grader_cpu(), time.perf_counter()
        results = grade_cohort(assignment, submissions, tmp / "out", workers=workers, progress=False)
        wall, grader_s = time.perf_counter() - started, grader_cpu() - cpu_before
        sandbox_s = sum(s.get("sandbox_cpu_seconds") or 0.0 for s in results["students"].values())
        cpu_s = grader_s + sandbox_s
    scores = sorted({(s["score"], s["max_score"]) for s in results["students"].values()})
    print(
        f"scores: {', '.join(f'{a:g}/{b:g}' for a, b in scores)}; wall {wall:.1f} s; CPU {cpu_s:.1f} s "
        f"(sandboxed students {sandbox_s:.1f} s, grader {grader_s:.1f} s)",
        flush=True,
    )
    for student, rec in sorted(results["students"].items()):
        lost = [g for g, q in rec["questions"].items() if q["status"] not in ("passed", "pending")]
        print(
            f"  {student}: {rec['score']:g}/{rec['max_score']:g}, {rec.get('sandbox_cpu_seconds') or 0:.1f} CPU-s"
            + (f", lost {', '.join(lost)}" if lost else "")
        )
    print(f"{assignment.name.split('_')[0]}_cpu_s_per_honest: {cpu_s / n:.1f}")
    return 0 if all(a == b for a, b in scores) else 1


def run(args) -> int:
    if args.what == "serve":  # autograder/serve/bench.py
        from autograder.serve.bench import bench_serve

        return bench_serve(
            n=args.n or 200,
            students=args.students or 20,
            workers=args.workers,
            singles=20 if args.singles is None else args.singles,
            scheduler=args.scheduler,
            ps=args.ps or "ps1",
        )
    if args.what == "scale":  # autograder/cli/bench_scale.py
        from autograder.cli.bench_scale import bench_scale

        return bench_scale(sizes=args.sizes or [100, 400, 1600], workers=args.workers)
    args.n = args.n or 40
    if args.what == "grading":
        if args.ps and args.ps not in ("ps1", "ps1_attention"):
            return bench_cpu_per_honest(args.ps, args.n, args.workers)
        return bench_grading(args.n, args.workers)
    try:
        from solutions import bench as reference_bench
    except ImportError:
        print("the reference benchmarks (solutions/bench.py) are not available", file=sys.stderr)
        return 2
    if args.what == "model":
        reference_bench.bench_model()
    else:
        reference_bench.bench_tasks()
    return 0


def add_parser(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "bench",
        parents=parents,
        help="grading: vs nbgrader; model: vs torch.nn.Transformer; tasks: toy tasks; serve: the service; "
        "scale: cohorts of growing size, locally and on a local Dask cluster",
    )
    p.add_argument("what", choices=["grading", "model", "tasks", "serve", "scale"])
    p.add_argument("-n", type=int, default=None, help="submissions in the batch (grading: 40, serve: 200)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument(
        "--ps",
        default=None,
        help="grading: another problem set (honest submissions only: prints <ps>_cpu_s_per_honest); "
        "serve: the problem set submitted (default ps1)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="serve: grade on this Dask scheduler; `local` starts a real scheduler and --workers worker processes",
    )
    p.add_argument("--students", type=int, default=None, help="serve: students sending the burst (default 20)")
    p.add_argument("--singles", type=int, default=None, help="serve: idle submissions timed one at a time (20)")
    p.add_argument("--sizes", type=int, nargs="+", default=None, help="scale: cohort sizes (default 100 400 1600)")
    p.set_defaults(run=run)
