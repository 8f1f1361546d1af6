"""`autograder bench scale`: PS1 cohorts of growing size, graded locally and on a local Dask cluster.

One run, one machine. The cohorts (default 100, 400 and 1,600 notebooks; every third forgets the
1/√d_k scale, as ``bench grading``) are graded by ``autograder grade``'s engine twice each: locally
with ``--workers N``, and on a real ``dask scheduler`` with N single-threaded ``dask worker``
processes (``--scheduler``; started once, before the first cohort, as a course's cluster would be
running already). Both must give every notebook the same score.

Prints, per size and mode, the wall time and the throughput per core (notebooks per second per
CPU of the machine); the peak memory (resident, ``VmHWM``) of every process that lived through
the run (this grader, its sandboxed workers, the scheduler, the Dask workers and theirs), and of
the short-lived student processes as one line; then the ratio local/cluster at the largest size
and, last, ``scale_linearity: X`` = throughput at the largest size over throughput at the
smallest, the lower of the two modes' (1 is perfectly linear; the goal is at least 0.9).
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path


def make_batch(root: Path, n: int) -> dict[str, bool]:
    """n submissions of PS1: every third one forgets the scale. Returns student -> honest."""
    from autograder.releasing.sample_submissions import MISSING_SCALE, make_notebook, write_submission
    from autograder.spec import load_assignment

    assignment = load_assignment("ps1_attention")
    honest = {}
    for i in range(n):
        student = f"s{i:03d}"
        honest[student] = i % 3 != 2
        nb = make_notebook(assignment, None if honest[student] else {"sdpa_impl": MISSING_SCALE})
        write_submission(root, student, assignment, nb)
    return honest


def _peak_kb(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _role(cmdline: list[str], pid: int) -> str:
    text = " ".join(cmdline)
    if pid == os.getpid():
        return "grader (this process)"
    if cmdline and os.path.basename(cmdline[0]) == "bwrap":
        return "bubblewrap (the sandbox's own processes)"
    if "harness.py" in text:
        return "sandboxed worker (harness)"
    if " scheduler" in text:
        return "dask scheduler"
    if " worker" in text:
        return "dask worker"
    return os.path.basename(cmdline[0]) if cmdline else "?"


class PeakMemory:
    """Samples this process's tree every ``period`` seconds: each process's peak resident set."""

    def __init__(self, period: float = 0.25):
        self.period = period
        self.seen: dict[int, dict] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psutil

        me = psutil.Process()
        while not self._stop.is_set():
            for proc in [me, *me.children(recursive=True)]:
                try:
                    cmd = proc.cmdline()
                except psutil.Error:
                    continue
                peak = _peak_kb(proc.pid)
                if peak is None:
                    continue
                entry = self.seen.setdefault(proc.pid, {"role": _role(cmd, proc.pid), "first": time.monotonic()})
                entry["peak_kb"] = max(entry.get("peak_kb", 0), peak)
                entry["last"] = time.monotonic()
            self._stop.wait(self.period)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def report(self) -> list[str]:
        lived = [e for e in self.seen.values() if e["last"] - e["first"] >= 1.0]
        brief = [e for e in self.seen.values() if e["last"] - e["first"] < 1.0]
        lines = []
        for role in sorted({e["role"] for e in lived}):
            peaks = sorted((e["peak_kb"] for e in lived if e["role"] == role), reverse=True)
            lines.append(f"  {role} × {len(peaks)}: " + ", ".join(f"{p / 1024:.0f}" for p in peaks) + " MB")
        if brief:
            top = max(e["peak_kb"] for e in brief)
            lines.append(f"  short-lived processes (students' notebooks) × {len(brief)}: at most {top / 1024:.0f} MB")
        return lines


def bench_scale(sizes: list[int], workers: int = 2) -> int:
    from autograder.grading.cohort import grade_cohort
    from autograder.grading.dask_processes import DaskProcesses
    from autograder.intake.collect import collect_folder
    from autograder.spec import load_assignment

    sizes = sorted(sizes)
    cores = os.cpu_count() or 1
    assignment = load_assignment("ps1_attention")
    load = os.getloadavg()
    print(f"machine: {cores} CPUs, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1/5/15 min)")
    print(
        f"cohorts of {', '.join(map(str, sizes))} {assignment.name} notebooks; locally with --workers {workers}, "
        f"and on a local Dask cluster ({workers} `dask worker` processes, 1 thread each)",
        flush=True,
    )
    throughput: dict[str, dict[int, float]] = {"local": {}, "cluster": {}}
    disagree = 0
    with tempfile.TemporaryDirectory(prefix="autograder-bench-scale-") as tmp, PeakMemory() as memory:
        tmp = Path(tmp)
        make_batch(tmp / "in", sizes[-1])
        everyone = sorted(collect_folder(tmp / "in", assignment), key=lambda s: s.student)
        with DaskProcesses(tmp / "dask", workers=workers) as cluster:
            grade_cohort(assignment, everyone[: 2 * workers], tmp / "warm", scheduler=cluster.address, progress=False)
            for n in sizes:
                cohort, times, scores = everyone[:n], {}, {}
                for mode in ("local", "cluster"):
                    started = time.perf_counter()
                    results = grade_cohort(
                        assignment,
                        cohort,
                        tmp / f"{mode}-{n}",
                        workers=workers,
                        scheduler=cluster.address if mode == "cluster" else None,
                        progress=False,
                    )
                    times[mode] = time.perf_counter() - started
                    throughput[mode][n] = n / times[mode] / cores
                    scores[mode] = {s: r["score"] for s, r in results["students"].items()}
                differ = sum(scores["local"][s] != scores["cluster"].get(s) for s in scores["local"])
                disagree += differ
                print(
                    f"{n:>5} notebooks: local {times['local']:6.1f} s ({throughput['local'][n]:.2f} /s/core); "
                    f"cluster {times['cluster']:6.1f} s ({throughput['cluster'][n]:.2f} /s/core); "
                    f"local/cluster time {times['local'] / times['cluster']:.2f}; scores differ on {differ}",
                    flush=True,
                )
    print("peak memory (resident) of every process:")
    for line in memory.report():
        print(line)
    small, large = sizes[0], sizes[-1]
    ratio = throughput["cluster"][large] / throughput["local"][large]
    linearity = {m: throughput[m][large] / throughput[m][small] for m in throughput}
    print(f"local_over_cluster_time at {large}: {ratio:.2f} (goal ≤ 1.15)")
    print(f"scale linearity, {large} over {small}: local {linearity['local']:.2f}, cluster {linearity['cluster']:.2f}")
    print(f"scale_linearity: {min(linearity.values()):.2f}")
    return 1 if disagree else 0
