"""Re-grade on any change that decides a verdict: edit a reference function in `solutions/` and
the submissions it judges are graded again (a stale full score does not stay), and the run says
which source changed and whose scores moved; no change, no re-grade, and the run says so.

The edit is made in a copy of `solutions/` that the grading process imports instead of the
kit's (PYTHONPATH comes before the editable install), so the real package is never touched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.grading.cohort import verdict_sources
from autograder.releasing.sample_submissions import MISSING_SCALE, make_notebook, write_submission
from autograder.spec import REPO_ROOT

BIN = Path(sys.executable).parent
SCALED = "def scaled_dot_product_attention(q, k, v, mask=None, *, scale=None, fast=True, bias=None, is_causal=False):\n"
UNSCALED = SCALED + "    scale = 1.0 if scale is None else scale  # edited: the reference forgets 1/sqrt(d_k)\n"


def grade(tmp: Path, ref: Path, said: list | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ref), "PATH": f"{BIN}:{os.environ['PATH']}"}
    r = subprocess.run(
        [
            str(BIN / "autograder"),
            "grade",
            "ps1",
            str(tmp / "in"),
            "--out",
            str(tmp / "out"),
            "--workers",
            "1",
            "--quiet",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    if said is not None:
        said.append(r.stdout)
    stored = {p.stem: json.loads(p.read_text()) for p in (tmp / "out" / "submissions").glob("*.json")}
    return {
        s: {
            "key": v["key"],
            "sdpa": v["record"]["questions"]["sdpa"]["status"],
            "score": v["record"]["score"],
            "seconds": v["record"]["seconds"],
        }
        for s, v in stored.items()
    }


def test_editing_a_reference_function_regrades(ps1, tmp_path):
    ref = tmp_path / "ref"
    shutil.copytree(REPO_ROOT / "solutions", ref / "solutions", ignore=shutil.ignore_patterns("__pycache__"))
    write_submission(tmp_path / "in", "alice", ps1, make_notebook(ps1))
    write_submission(tmp_path / "in", "bob", ps1, make_notebook(ps1, {"sdpa_impl": MISSING_SCALE}))

    first = grade(tmp_path, ref)
    assert (first["alice"]["sdpa"], first["bob"]["sdpa"]) == ("passed", "failed")
    assert first["alice"]["score"] == ps1.max_score

    said = []
    again = grade(tmp_path, ref, said)  # nothing changed: nothing re-graded (same records, same timings)
    assert again == first
    assert "re-grade: nothing changed since the last run (2 results, no score moved)" in said[-1], said[-1]

    attention = ref / "solutions" / "attention.py"
    source = attention.read_text()
    assert source.count(SCALED) == 1, "solutions/attention.py changed: update this test's edit"
    attention.write_text(source.replace(SCALED, UNSCALED))
    edited = grade(tmp_path, ref, said)
    assert edited["alice"]["key"] != first["alice"]["key"] and edited["bob"]["key"] != first["bob"]["key"]
    assert (edited["alice"]["sdpa"], edited["bob"]["sdpa"]) == ("failed", "passed")  # judged anew
    assert edited["alice"]["score"] < ps1.max_score  # the stale full score did not stay
    account = said[-1]
    assert "the reference solutions (solutions/): attention.py" in account, account
    assert "the problem set's questions" not in account and "notebooks handed in again" not in account
    points = ps1.question("sdpa").points
    assert f"alice  sdpa: {points:g} -> 0" in account and f"bob  sdpa: 0 -> {points:g}" in account, account


def test_every_verdict_source_is_in_the_key(ps1):
    names = {name for name, _ in verdict_sources(ps1)}
    assert {
        "ps/__init__.py",
        "ps/sdpa.py",
        "ps/parameter_counts.py",
        "solutions/attention.py",
        "solutions/model.py",
        "judging/compare/comparators.py",
        "judging/verdict.py",
        "grading/second_run.py",  # policies applied after the judge: they change verdicts too
        "grading/root_cause.py",
    } <= names
    assert not any("__pycache__" in n for n in names)
