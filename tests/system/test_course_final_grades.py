"""A course's grades from release to the LMS (issue 26), in an `autograder init` course outside
the repository, on nbgrader's own exchange and formgrader in Chromium:

release (`autograder release`, `nbgrader release_assignment`) -> students fetch -> alice's fully
correct PS1 and PS4 notebooks pass `nbgrader validate` -> submit -> collect -> `autograder grade
--db --roster` -> in formgrader a TA scores alice's paragraph (with a comment) and overrides bob's
failed question; bob's paragraph, left as released, is already 0 as nbgrader scores it; the
grading view shows the grader's reason for bob's failed cell and the roster's names ->
`autograder final-grades`: its Canvas CSV, Moodle worksheet and the students' feedback pages
show the complete totals, equal to `nbgrader export`'s.
"""

from __future__ import annotations

import csv
import html
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from test_formgrader import api, chromium, chromium_or_skip, formgrader_server
from test_nbgrader_flow import nbgrader, write_config

from autograder.outputs.formgrader_notebooks import verdict_text
from autograder.releasing.sample_submissions import solution_sources
from autograder.spec import load_assignment

pytestmark = [pytest.mark.system, pytest.mark.slow]
BIN = Path(sys.executable).parent
TA_COMMENT = "Overridden: the causal mask was right, only the bias sign was off."
COURSE_ID = "transformers101"
ROSTER = (
    "Student,ID,SIS User ID,SIS Login ID,Section,moodle_id,email\n"
    '"Lee, Alice",101,S1,alice,A,9001,alice@uni.edu\n'
    '"Stone, Bob",102,S2,bob,A,9002,bob@uni.edu\n'
)
# bob's alibi_attention forgets to divide the scores by sqrt(d)
BOB_ATTENTION = """def alibi_attention(q, k, v):
    n_heads, t, d = q.shape[-3:]
    scores = q.double() @ k.double().transpose(-2, -1)
    scores = scores + alibi_causal_bias(n_heads, t)
    return (torch.softmax(scores, dim=-1) @ v.double()).to(q.dtype)
"""


def autograder(*args, cwd, env, ok=(0,)) -> subprocess.CompletedProcess:
    r = subprocess.run(
        [sys.executable, "-m", "autograder", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )
    assert r.returncode in ok, (
        f"autograder {' '.join(args)} exited {r.returncode}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    )
    return r


def answer(notebook: Path, answers: dict[str, str]) -> None:
    """What a student types into the solution cells named in ``answers``."""
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if cell.get("metadata", {}).get("nbgrader", {}).get("solution") and gid in answers:
            cell.source = answers[gid]
    nbformat.write(nb, notebook)


def grade_ids(fg, ps: str) -> dict[str, dict[str, dict]]:
    """student -> grade name -> formgrader's grade (through its API, as its page reads them)."""
    found = {}
    for sub in api(fg["base"], fg["token"], f"/formgrader/api/submitted_notebooks/{ps}/{ps}"):
        grades = api(fg["base"], fg["token"], f"/formgrader/api/grades?submission_id={sub['id']}")
        found[sub["student"]] = {g["name"]: dict(g, submission=sub["id"]) for g in grades}
    return found


def comment_id(fg, submission: str, name: str) -> str:
    comments = api(fg["base"], fg["token"], f"/formgrader/api/comments?submission_id={submission}")
    return next(c["id"] for c in comments if c["name"] == name)


@pytest.fixture
def course(tmp_path):
    """An `autograder init` course with PS1 and PS4 released to an nbgrader exchange."""
    if not (BIN / "nbgrader").exists():
        pytest.fail(f"nbgrader is not installed beside {sys.executable}")
    home, exchange = tmp_path / "home", tmp_path / "exchange"
    home.mkdir()
    exchange.mkdir()
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(home / ".jupyter"),
        "JUPYTER_DATA_DIR": str(home / ".local/share/jupyter"),
        "NBGRADER_EXCHANGE": str(exchange),  # the init config's exchange
    }
    for name in ("JUPYTERHUB_USER", "AUTOGRADER_COURSE"):
        env.pop(name, None)
    root = tmp_path / "course"
    autograder("init", str(root), "--course-id", COURSE_ID, cwd=tmp_path, env=env)
    with open(root / "nbgrader_config.py", "a", encoding="utf-8") as f:
        f.write("c.ExchangeCollect.check_owner = False  # students run as this same OS user here\n")
    autograder("release", "ps1", "ps4", cwd=root, env=env)
    for ps in ("ps1_attention", "ps4_alibi"):
        nbgrader("release_assignment", ps, cwd=root, env=env)
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    return {"root": root, "env": env, "tmp": tmp_path, "roster": tmp_path / "roster.csv"}


def student_hands_in(course, student: str, ps: str, answers: dict[str, str], *, validate: bool) -> str:
    home = course["tmp"] / "students" / student
    home.mkdir(parents=True, exist_ok=True)
    write_config(home, CourseDirectory__course_id=COURSE_ID, Exchange__root=course["env"]["NBGRADER_EXCHANGE"])
    nbgrader("fetch_assignment", ps, "--student", student, cwd=home, env=course["env"])
    notebook = next((home / ps).glob("*.ipynb"))
    answer(notebook, answers)
    said = ""
    if validate:
        said = nbgrader("validate", notebook.name, cwd=home / ps, env=course["env"])
        assert "Success! Your notebook passes all the tests." in said and "VALIDATION FAILED" not in said, said
    nbgrader("submit", ps, "--student", student, cwd=home, env=course["env"])
    return said


def test_release_to_final_grades_equal_nbgrader_export(course):
    browser = chromium_or_skip()
    root, env = course["root"], course["env"]
    env_course = {**env, "AUTOGRADER_COURSE": str(root)}
    ps1, ps4 = (load_assignment(n) for n in ("ps1_attention", "ps4_alibi"))
    solved1, solved4 = solution_sources(ps1), solution_sources(ps4)
    released4 = {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in nbformat.read(root / "release/ps4_alibi/ps4_alibi.ipynb", as_version=4).cells
        if c.get("metadata", {}).get("nbgrader", {}).get("solution")
    }

    # students: alice solves both fully (validate passes: formula_check.py reached the exchange)
    student_hands_in(course, "alice", "ps1_attention", solved1, validate=True)
    student_hands_in(course, "alice", "ps4_alibi", solved4, validate=True)
    bob = {**solved4, "attention_impl": BOB_ATTENTION, "extrapolation": released4["extrapolation"]}
    student_hands_in(course, "bob", "ps4_alibi", bob, validate=False)
    for ps in ("ps1_attention", "ps4_alibi"):
        nbgrader("collect", ps, cwd=root, env=env)

    # the instructor grades into the course's gradebook, names from the roster
    out1, out4 = course["tmp"] / "out1", course["tmp"] / "out4"
    for ps, out in (("ps1", out1), ("ps4", out4)):
        r = autograder(
            "grade", ps, "submitted", "--out", str(out), "--db", "sqlite:///gradebook.db",
            "--roster", str(course["roster"]), "--quiet", cwd=root, env=env_course,
        )  # fmt: skip
        assert "SAWarning" not in r.stderr, r.stderr[-3000:]
    alice1 = json.loads((out1 / "results.json").read_text())["students"]["alice"]
    assert alice1["score"] == alice1["max_score"] == ps1.max_score
    results4 = json.loads((out4 / "results.json").read_text())["students"]
    assert results4["alice"]["score"] == ps4.max_score
    failed = results4["bob"]["questions"]["alibi_attention"]
    assert failed["status"] == "failed" and failed["feedback"], failed

    with formgrader_server(root, course["tmp"], browser, env=env_course) as fg:
        students = {s["id"]: s for s in api(fg["base"], fg["token"], "/formgrader/api/students")}
        assert (students["alice"]["first_name"], students["alice"]["last_name"]) == ("Alice", "Lee")
        assert (students["bob"]["first_name"], students["bob"]["last_name"]) == ("Bob", "Stone")
        grades = grade_ids(fg, "ps4_alibi")
        assert [g for g, v in grades["alice"].items() if v["needs_manual_grade"]] == ["extrapolation"]
        blank = grades["bob"]["extrapolation"]  # left as released: 0 as nbgrader gives, not queued
        assert blank["auto_score"] == 0 and not blank["needs_manual_grade"]

        # a TA grades alice's paragraph with a comment and overrides bob's failed question
        paragraph = grades["alice"]["extrapolation"]
        api(fg["base"], fg["token"], f"/formgrader/api/grade/{paragraph['id']}", put={"manual_score": 2.5})
        cid = comment_id(fg, paragraph["submission"], "extrapolation")
        api(fg["base"], fg["token"], f"/formgrader/api/comment/{cid}", put={"manual_comment": "Clear on (a)."})
        override = grades["bob"]["alibi_attention"]
        api(fg["base"], fg["token"], f"/formgrader/api/grade/{override['id']}", put={"manual_score": 1.0})
        # ... with a comment in the box formgrader puts under the autograded answer
        cid = comment_id(fg, override["submission"], "attention_impl")
        api(fg["base"], fg["token"], f"/formgrader/api/comment/{cid}", put={"manual_comment": TA_COMMENT})

        # the grading view of bob's notebook shows why alibi_attention scored 0
        r = chromium(fg, f"/formgrader/submissions/{override['submission']}/", "--dump-dom")
        assert r.returncode == 0 and "nbgrader_cell" in r.stdout, r.stderr[-2000:]
        shown = verdict_text(failed).splitlines()  # wrapped: formgrader does not wrap a stream output
        assert all(html.escape(line, quote=False) in r.stdout or line in r.stdout for line in shown), shown
        assert "autograder: failed" in r.stdout

    # final grades, and nbgrader's own export of the same gradebook
    canvas = course["tmp"] / "canvas_ps4.csv"
    r = autograder(
        "final-grades", "ps4", str(out4), "--db", "sqlite:///gradebook.db", "--roster", str(course["roster"]),
        "--canvas", str(canvas), "--canvas-column", "PS4 ALiBi (4567)", cwd=root, env=env_course,
    )  # fmt: skip
    assert "SAWarning" not in r.stderr
    nbgrader("export", "--to", str(course["tmp"] / "grades.csv"), cwd=root, env=env)
    exported = {
        row["student_id"]: row
        for row in csv.DictReader(open(course["tmp"] / "grades.csv", encoding="utf-8"))
        if row["assignment"] == "ps4_alibi"
    }
    lost = next(q.points for q in ps4.questions if q.grade_id == "alibi_attention")
    expected = {"alice": ps4.max_score + 2.5, "bob": ps4.max_score - lost + 1.0}  # bob's paragraph: 0
    top = ps4.max_score + 3  # the paragraph's 3 points count in Points Possible
    for student, total in expected.items():
        assert float(exported[student]["score"]) == pytest.approx(total), exported[student]
        assert float(exported[student]["max_score"]) == pytest.approx(top)

    rows = list(csv.reader(open(canvas, encoding="utf-8")))
    assert rows[0][-1] == "PS4 ALiBi (4567)" and rows[1][-1] == f"{top:g}"
    by_login = {row[3]: row for row in rows[2:]}
    assert by_login["alice"][:2] == ["Lee, Alice", "101"] and by_login["bob"][:2] == ["Stone, Bob", "102"]
    for student, total in expected.items():
        assert float(by_login[student][-1]) == pytest.approx(float(exported[student]["score"]))
        page = (out4 / "final/feedback" / f"{student}.html").read_text(encoding="utf-8")
        assert f"Final score: <b>{total:g} / {top:g}</b>" in page and "still to come" not in page
    assert "Clear on (a)." in (out4 / "final/feedback/alice.html").read_text(encoding="utf-8")
    moodle = {m["Identifier"]: m for m in csv.DictReader(open(out4 / "final/moodle_worksheet.csv", encoding="utf-8"))}
    assert float(moodle["Participant 9002"]["Grade"]) == pytest.approx(expected["bob"])
    # the TA's comment under bob's autograded answer: in the final results, his page, the worksheet
    final = json.loads((out4 / "final/results.json").read_text())["students"]["bob"]
    assert final["questions"]["alibi_attention"]["grader_comment"] == TA_COMMENT
    assert TA_COMMENT in (out4 / "final/feedback/bob.html").read_text(encoding="utf-8")
    assert f"alibi_attention: {TA_COMMENT}" in moodle["Participant 9002"]["Feedback comments"]
