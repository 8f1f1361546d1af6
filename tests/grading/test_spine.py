"""The end-to-end spine: source notebook -> nbgrader release -> graded submissions."""

import json
import shutil
from dataclasses import replace

import nbformat

from autograder.releasing.sample_submissions import solution_sources
from autograder.releasing.stages import build_release, course_release_dir, release, released_notebook


def test_release_is_deterministic_and_committed(ps1, tmp_path):
    a = build_release(ps1, tmp_path / "one") / ps1.notebook
    b = build_release(ps1, tmp_path / "two") / ps1.notebook
    assert a.read_bytes() == b.read_bytes()
    assert release(ps1, check=True), "release/ is stale: run `autograder release`"


def test_release_check_fails_when_a_solution_changes(ps1, tmp_path):
    shutil.copytree(ps1.source_dir, tmp_path / ps1.name)
    path = tmp_path / ps1.name / ps1.notebook
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "sdpa_impl")
    assert "mask True = may attend" in cell.source
    cell.source = cell.source.replace("mask True = may attend", "mask True = attend")  # the stub's docstring
    nbformat.write(nb, path)
    assert not release(replace(ps1, root=tmp_path), check=True, release_dir=course_release_dir())


def test_released_notebook_has_no_solution_and_no_probe(ps1):
    text = released_notebook(ps1).read_text()
    nb = json.loads(text)
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    for source in solution_sources(ps1).values():
        body = [
            line.strip()
            for line in source.splitlines()  # distinctive lines only, not "}" or ")"
            if len(line.strip()) > 8 and not line.strip().startswith(("def ", '"""', "###"))
        ]
        assert body, "the solution cell should have a body to look for"
        for line in body:
            assert line not in code, f"solution line leaked into the release: {line}"
    for hidden in ("BEGIN SOLUTION", "BEGIN HIDDEN", "sdpa_probes", "standard_normal", "questions.py"):
        assert hidden not in text
    assert "raise NotImplementedError()" in code
    # the visible check carries numbers computed at release time, not a call into the kit
    assert "np.testing.assert_allclose" in code and "autograder" not in code.replace("# autograder", "")


def test_demo_cohort_verdicts(demo_results):
    s = demo_results["students"]
    assert s["alice"]["score"] == s["alice"]["max_score"] == demo_results["max_score"]
    bob = s["bob"]["questions"]["sdpa"]
    assert bob["status"] == "failed" and bob["score"] == 0
    assert bob["misconception"] == "missing_scale" and "√d_k" in bob["feedback"]
    carol = s["carol"]["questions"]["sdpa"]
    assert carol["status"] == "error" and "ValueError" in carol["feedback"]
    dave = s["dave"]["questions"]["sdpa"]
    assert dave["status"] == "error" and "NotImplementedError" in dave["feedback"]
    assert s["eve"]["questions"]["sdpa"]["score"] == 0  # monkeypatching the checks changes nothing outside


def test_results_json_follows_the_contract(demo_results):
    assert demo_results["assignment"] == "ps1_attention"
    for student, rec in demo_results["students"].items():
        assert set(rec) >= {"score", "max_score", "questions"}
        for gid, q in rec["questions"].items():
            assert set(q) >= {"score", "max_score", "status", "feedback"}
            assert q["status"] in {"passed", "failed", "error", "timeout", "missing", "pending", "unanswered"}
            assert 0 <= q["score"] <= q["max_score"]
