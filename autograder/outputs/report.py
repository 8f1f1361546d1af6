"""The instructor's item analysis of a graded cohort (what `autograder report PS OUT_DIR` writes).

Reads ``OUT_DIR/results.json`` and writes ``OUT_DIR/report/index.html`` with PNG plots
(matplotlib, Agg, no display needed): the distribution of total scores, each question's mean
score (as a fraction of its points) and discrimination, and the misconceptions recognised most
often. Every number in a plot is also in the page as text, in tables with stable ids and
classes (``#summary``, ``#questions``, ``#misconceptions``), so the page can be checked.

Discrimination is the corrected point-biserial correlation (item–rest): Pearson's r between a
student's score on the question and their total on all *other* questions. It is undefined when
everyone scored the same on the question (or on the rest).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from autograder.outputs.templating import render

DISCRIMINATION_NOTE = (
    "Discrimination is the corrected point-biserial correlation (item–rest): Pearson's r between "
    "the students' scores on the question and their totals on all other questions. Near 0 or "
    "negative: the question does not separate stronger from weaker students. Shown as — when "
    "every student scored the same on the question or on the rest."
)


@dataclass
class MisconceptionCount:
    name: str
    count: int
    feedback: str  # the feedback text students with this misconception read most often


@dataclass
class QuestionStats:
    grade_id: str
    title: str
    max_score: float
    students: int
    mean_fraction: float  # mean score / max_score
    passed_fraction: float  # share of students whose status is "passed"
    discrimination: float | None
    misconceptions: list[MisconceptionCount] = field(default_factory=list)  # most frequent first


def pearson(x: list[float], y: list[float]) -> float | None:
    if len(x) < 2:
        return None
    mx, my = statistics.fmean(x), statistics.fmean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx <= 1e-12 or syy <= 1e-12:
        return None
    return sxy / math.sqrt(sxx * syy)


def question_ids(results: dict, assignment=None) -> list[str]:
    """The spec's order first, then any other grade ids found in the results."""
    seen = [q.grade_id for q in assignment.questions] if assignment is not None else []
    for rec in results["students"].values():
        seen += [gid for gid in rec["questions"] if gid not in seen]
    present = {gid for rec in results["students"].values() for gid in rec["questions"]}
    return [gid for gid in seen if gid in present]


def question_stats(results: dict, assignment=None) -> list[QuestionStats]:
    students = list(results["students"].values())
    titles = {q.grade_id: q.title for q in assignment.questions} if assignment is not None else {}
    totals = [float(rec["score"]) for rec in students]
    stats = []
    for gid in question_ids(results, assignment):
        entries = [rec["questions"].get(gid) for rec in students]
        waiting = [q.get("status") for q in entries if q is not None and q.get("status") in ("pending", "unanswered")]
        if "pending" in waiting or len(waiting) == sum(q is not None for q in entries):
            continue  # hand-graded, not (all) graded yet: no statistics
        max_score = float(next(q["max_score"] for q in entries if q))
        scores = [float(q["score"]) if q else 0.0 for q in entries]
        fractions = [s / max_score if max_score else 0.0 for s in scores]
        rest = [t - s for t, s in zip(totals, scores)]
        named = Counter(q["misconception"] for q in entries if q and q.get("misconception"))
        miscs = []
        for name, count in sorted(named.items(), key=lambda kv: (-kv[1], kv[0])):
            texts = Counter(q["feedback"] for q in entries if q and q.get("misconception") == name)
            miscs.append(MisconceptionCount(name, count, texts.most_common(1)[0][0]))
        stats.append(
            QuestionStats(
                grade_id=gid,
                title=titles.get(gid) or gid,
                max_score=max_score,
                students=len(students),
                mean_fraction=statistics.fmean(fractions),
                passed_fraction=sum(bool(q) and q["status"] == "passed" for q in entries) / len(students),
                discrimination=pearson(fractions, rest),
                misconceptions=miscs,
            )
        )
    return stats


# ---------------------------------------------------------------- plots


def _figure(width: float, height: float):
    from matplotlib.figure import Figure  # no pyplot: no global state, no display backend

    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def plot_score_distribution(results: dict, path: Path) -> None:
    totals = [float(rec["score"]) for rec in results["students"].values()]
    top = float(results.get("max_score") or max(totals, default=1.0)) or 1.0
    bins = min(20, max(1, math.ceil(top)))
    fig = _figure(8, 3.6)
    ax = fig.subplots()
    ax.hist(totals, bins=bins, range=(0, top), color="#3b6ea8", edgecolor="white")
    mean = statistics.fmean(totals)
    ax.axvline(mean, color="#a4261d", linestyle="--", label=f"mean {mean:.2f}")
    ax.set_xlabel(f"total score (out of {top:g})")
    ax.set_ylabel("students")
    ax.set_title(f"Score distribution ({len(totals)} students)")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.legend()
    fig.savefig(path)


def plot_questions(stats: list[QuestionStats], path: Path) -> None:
    ids = [s.grade_id for s in stats][::-1]
    fig = _figure(10, 1.2 + 0.32 * len(stats))
    left, right = fig.subplots(1, 2, sharey=True)
    left.barh(ids, [s.mean_fraction for s in stats][::-1], color="#3b6ea8")
    left.set_xlim(0, 1)
    left.set_xticks([0, 0.25, 0.5, 0.75, 1])
    left.set_xlabel("mean score (fraction of max)")
    disc = [s.discrimination for s in stats][::-1]
    right.barh(
        ids,
        [d if d is not None else 0.0 for d in disc],
        color=["#bbbbbb" if d is None else ("#176b32" if d >= 0.2 else "#c47f00") for d in disc],
    )
    right.axvline(0, color="black", linewidth=0.8)
    right.set_xlim(-1, 1)
    right.set_xticks([-1, -0.5, 0, 0.5, 1])
    right.set_xlabel("discrimination (item–rest point-biserial r)")
    fig.suptitle("Per question")
    fig.savefig(path)


def plot_misconceptions(stats: list[QuestionStats], path: Path, top: int = 12) -> bool:
    rows = sorted(
        ((m.count, f"{s.grade_id}: {m.name}") for s in stats for m in s.misconceptions), key=lambda r: (-r[0], r[1])
    )[:top]
    if not rows:
        return False
    fig = _figure(9, 1.2 + 0.35 * len(rows))
    ax = fig.subplots()
    ax.barh([label for _, label in rows][::-1], [c for c, _ in rows][::-1], color="#a4261d")
    ax.set_xlabel("students")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_title("Most frequent misconceptions")
    fig.savefig(path)
    return True


# ---------------------------------------------------------------- page


def _summary_rows(results: dict) -> list[tuple[str, str, str]]:
    totals = [float(rec["score"]) for rec in results["students"].values()]
    top = float(results.get("max_score", 0.0))
    return [
        ("students", "Students", str(len(totals))),
        ("max-score", "Points available", f"{top:g}"),
        ("mean", "Mean score", f"{statistics.fmean(totals):.2f}"),
        ("median", "Median score", f"{statistics.median(totals):.2f}"),
        ("stdev", "Standard deviation", f"{statistics.pstdev(totals):.2f}"),
        ("min", "Lowest", f"{min(totals):g}"),
        ("max", "Highest", f"{max(totals):g}"),
        ("full-marks", "Full marks", str(sum(t >= top for t in totals))),
    ]


def _marker_rows(results: dict) -> list[tuple[str, str, str]]:
    """Late (the LMS's marker) and flagged (unreadable, another assignment's) submissions, when any."""
    records = list(results["students"].values())
    late = sum(bool(rec.get("late")) for rec in records)
    flagged = sum(bool(rec.get("flag")) for rec in records)
    return ([("late", "Late (LMS marker)", str(late))] if late else []) + (
        [("flagged", "Flagged submissions (not graded: left out of every statistic)", str(flagged))] if flagged else []
    )


def render_page(results: dict, stats: list[QuestionStats], has_misconception_plot: bool, similarity: str = "") -> str:
    """The page; ``similarity`` is the HTML section of autograder.similarity.evidence.report_section."""
    students = bool(counted(results)["students"])
    return render(
        "report.html",
        title=f"{results.get('assignment', '')} — {'final grades' if results.get('final') else 'cohort report'}",
        students=students,
        summary=(_summary_rows(counted(results)) if students else []) + _marker_rows(results),
        stats=stats,
        discrimination_note=DISCRIMINATION_NOTE,
        misconceptions=[(s, m) for s in stats for m in s.misconceptions],
        has_misconception_plot=has_misconception_plot,
        similarity=similarity,
    )


def counted(results: dict) -> dict:
    """``results`` without the flagged students (a notebook that could not be graded is no score:
    it would drag the mean, the histogram and every discrimination towards 0)."""
    return {**results, "students": {s: rec for s, rec in results["students"].items() if not rec.get("flag")}}


def write_report(results: dict, folder: Path, assignment=None, similarity: str = "") -> Path:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    graded = counted(results)
    stats = question_stats(graded, assignment)
    has_misc_plot = False
    if graded["students"]:
        plot_score_distribution(graded, folder / "score_distribution.png")
        plot_questions(stats, folder / "questions.png")
        has_misc_plot = plot_misconceptions(stats, folder / "misconceptions.png")
    page = folder / "index.html"
    page.write_text(render_page(results, stats, has_misc_plot, similarity), encoding="utf-8")
    return page
