"""Killed batches resume without loss or duplicates; two runs cannot share an output folder."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from autograder.cli.bench_scale import make_batch
from autograder.cli.main import main
from autograder.grading.cohort import grade_cohort
from autograder.grading.storage import OutputBusy, ResultStore
from autograder.intake.collect import collect_folder


def _verdicts(results):
    return {
        s: (r["score"], {g: (q["status"], q["score"]) for g, q in r["questions"].items()})
        for s, r in results["students"].items()
    }


def test_killed_batch_resumes_to_the_same_results(ps1, tmp_path):
    n = 10
    make_batch(tmp_path / "in", n)
    out = tmp_path / "out"
    cmd = [
        sys.executable,
        "-m",
        "autograder",
        "grade",
        "ps1",
        str(tmp_path / "in"),
        "--out",
        str(out),
        "--workers",
        "1",
        "--quiet",
    ]
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list((out / "submissions").glob("*.json"))) < 3:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = len(list((out / "submissions").glob("*.json")))
    assert 3 <= done_before < n, "the batch should have been killed half-way"

    resumed = subprocess.run(cmd, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    results = json.loads((out / "results.json").read_text())
    assert len(list((out / "submissions").glob("*.json"))) == n
    assert len(results["students"]) == n
    clean = grade_cohort(ps1, collect_folder(tmp_path / "in", ps1), tmp_path / "clean", progress=False)
    assert _verdicts(results) == _verdicts(clean)


def test_two_runs_on_one_output_folder_are_refused(ps1, tmp_path, capsys):
    """The run that owns the folder holds its lock: a second owner, and a second `grade`, are refused."""
    make_batch(tmp_path / "in", 1)
    with ResultStore(tmp_path / "out").locked():
        with pytest.raises(OutputBusy):
            with ResultStore(tmp_path / "out").locked():
                pass
        assert main(["grade", "ps1", str(tmp_path / "in"), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    assert "another `autograder grade` is writing to" in capsys.readouterr().err
    assert not (tmp_path / "out" / "results.json").exists()
