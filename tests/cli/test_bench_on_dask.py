"""The benchmarks that start a real Dask cluster run end to end and end with their figure
(small sizes here: what they print is measured by running them, never asserted as a time)."""

from __future__ import annotations

import subprocess
import sys


def bench(*args: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", "bench", *args], capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout.strip().splitlines()


def test_bench_scale_prints_memory_and_linearity_last():
    lines = bench("scale", "--sizes", "4", "8")
    assert lines[-1].startswith("scale_linearity: ") and float(lines[-1].split()[-1]) > 0
    assert any(line.strip().startswith("8 notebooks: local") and "scores differ on 0" in line for line in lines), lines
    memory = lines.index("peak memory (resident) of every process:")
    roles = " ".join(lines[memory + 1 : -3])
    for role in ("grader (this process)", "dask scheduler × 1", "dask worker × 2", "sandboxed worker (harness)"):
        assert role in roles, lines


def test_bench_serve_on_a_local_cluster_agrees_with_grade_and_prints_its_p95_last():
    lines = bench("serve", "--scheduler", "local", "-n", "6", "--students", "3", "--singles", "2")
    assert lines[-1].startswith("serve_dask_p95_s: "), lines
    assert any("disagree on 0/6; honest ones not full marks: 0" in line for line in lines), lines
    assert any(
        line.startswith("fairness: a later submission started while another student's earlier one waited: 0 times")
        for line in lines
    ), lines
