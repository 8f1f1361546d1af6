"""The command line as CI and instructors call it."""

import csv
import json
import subprocess
import sys
from xml.etree import ElementTree as ET

from autograder.releasing.sample_submissions import make_notebook, make_samples, write_submission


def autograder(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "autograder", *args], capture_output=True, text=True, cwd=cwd)


def test_grade_writes_every_export(tmp_path):
    make_samples(tmp_path / "in")
    out = tmp_path / "out"
    r = autograder(
        "grade",
        "ps1",
        str(tmp_path / "in"),
        "--out",
        str(out),
        "--quiet",
        "--csv",
        str(tmp_path / "g.csv"),
        "--junit",
        str(tmp_path / "j.xml"),
        "--gradescope",
        str(tmp_path / "gs.json"),
        "--db",
        str(tmp_path / "gradebook.db"),
    )
    assert r.returncode == 0, r.stderr
    assert "alice" in r.stdout and "√d_k" in r.stdout
    results = json.loads((out / "results.json").read_text())
    rows = list(csv.DictReader(open(tmp_path / "g.csv")))
    assert {row["student"]: float(row["score"]) for row in rows} == {
        s: v["score"] for s, v in results["students"].items()
    }
    suites = ET.parse(tmp_path / "j.xml").getroot()
    assert len(suites) == len(results["students"])
    assert suites.find("testsuite[@name='bob']/testcase/failure") is not None
    gs = json.loads((tmp_path / "gs.json").read_text())
    assert gs["alice"]["score"] == results["max_score"]
    assert {t["number"]: t["max_score"] for t in gs["alice"]["tests"]}["sdpa"] == 4
    page = (out / "feedback" / "bob.html").read_text()
    assert "√d_k" in page and "0 / 4" in page
    for hidden in ("sdpa_probes", "standard_normal", "def ", "Traceback"):
        assert hidden not in page


def test_release_check_and_selftest_exit_codes():
    # one problem set: tests/releasing/test_capabilities.py checks every release, under each
    # processor capability
    r = autograder("release", "--check", "ps1")
    assert r.returncode == 0 and "up to date" in r.stdout
    r = autograder("selftest", "ps1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ps1_attention: ok" in r.stdout


def test_validate_passes_solution_and_fails_release(ps1, tmp_path):
    solved = write_submission(tmp_path / "a", "me", ps1, make_notebook(ps1))
    release = write_submission(tmp_path / "b", "me", ps1, make_notebook(ps1, solved=False))
    ok = autograder("validate", str(solved))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    n = len(ps1.questions)
    assert f"{n}/{n} visible checks passed" in ok.stdout
    listed = [line.split()[1] for line in ok.stdout.splitlines() if line.startswith("  ok ")]
    assert listed and not any(name.endswith(("_impl", "_answer")) for name in listed)  # the checks only
    assert "Handing in:" in ok.stdout and "nbgrader submit ps1_attention" in ok.stdout  # said last
    assert "your latest submission is the one that counts" in ok.stdout and "Fetch Feedback" in ok.stdout
    bad = autograder("validate", str(release))
    assert bad.returncode == 1
    assert "NotImplementedError" in bad.stdout and f"0/{n} visible checks passed" in bad.stdout


def test_bad_submission_folder_is_a_usage_error(tmp_path):
    r = autograder("grade", "ps1", str(tmp_path / "nope"), "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "no such submissions folder" in r.stderr


def test_domain_errors_become_the_exit_codes_of_the_contract(tmp_path, capsys):
    """The library raises; only the command line decides: a problem set it cannot use exits 1
    (as a failed check), a missing course or a refused intake exits 2, each with its message."""
    from autograder.cli.main import main

    assert main(["release", "--check", "nosuch"]) == 1
    assert "unknown problem set 'nosuch'" in capsys.readouterr().err
    assert main(["--course", str(tmp_path / "none"), "selftest", "ps1"]) == 2
    assert capsys.readouterr().err.startswith("autograder: course directory")
    assert main(["grade", "ps1", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.startswith("autograder grade: no such submissions folder")
