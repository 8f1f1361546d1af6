"""The terminal table, the CSV and the JUnit XML (autograder/outputs/exports.py), unit-tested on a
hand-made results.json: what each writer puts where, in the problem set's question order, with
students sorted, and text a student controls (names, feedback) escaped, never breaking the file."""

import csv
from xml.etree import ElementTree as ET

import pytest

from autograder.outputs.exports import table, write_csv, write_junit
from autograder.spec import Assignment, Question


def question(grade_id, points):
    return Question(grade_id=grade_id, answer=grade_id, reference=lambda: None, points=points)


# the problem set's order is z, a, m: not alphabetical, not results.json's sorted keys
ASSIGNMENT = Assignment(
    name="ps_unit",
    notebook="ps_unit.ipynb",
    questions=[question("z_first", 2), question("a_second", 1.5), question("m_third", 1)],
)


def student(*statuses, feedback="wrong"):
    """A record whose questions (in problem-set order) have these statuses; passed ones score.
    Its questions are stored sorted by grade id, as results.json has them."""
    qs = {}
    for q, status in zip(ASSIGNMENT.questions, statuses, strict=True):
        passed = status == "passed"
        qs[q.grade_id] = {
            "status": status,
            "score": q.points if passed else 0,
            "max_score": q.points,
            "feedback": "" if passed else f"{feedback} {q.grade_id}",
        }
    return {"score": sum(q["score"] for q in qs.values()), "max_score": 4.5, "questions": dict(sorted(qs.items()))}


RESULTS = {
    "assignment": "ps_unit",
    "max_score": 4.5,
    "students": {
        "zoe": student("passed", "passed", "passed"),
        "ana": student("failed", "passed", "error"),
        'bo, "the" <b>': student("timeout", "missing", "pending", feedback='<&"quote">'),
    },
}


def test_table_has_one_line_per_student_sorted_then_what_did_not_pass():
    lines = table(ASSIGNMENT, RESULTS).splitlines()
    assert lines[0].split()[:3] == ["student", "score", "passed"]
    rows = [line for line in lines[1:] if not line.startswith(" ")]
    assert [r.split()[0] for r in rows] == ["ana", "bo,", "zoe"]
    assert rows[-1].split()[1:] == ["4.5/4.5", "3/3", "all", "correct"]
    ana = lines.index(rows[0])
    assert rows[0].split()[1:3] == ["1.5/4.5", "1/3"]
    # in the problem set's order, with status and feedback
    assert [line.strip() for line in lines[ana + 1 : ana + 3]] == [
        "z_first (failed): wrong z_first",
        "m_third (error): wrong m_third",
    ]


def test_table_columns_line_up_with_the_longest_name():
    width = len('bo, "the" <b>')
    rows = [line for line in table(ASSIGNMENT, RESULTS).splitlines() if not line.startswith(" ")]
    for line, score in zip(rows, ["score", "1.5/4.5", "0/4.5", "4.5/4.5"], strict=True):
        assert line[width : width + 2] == "  " and line[width + 2 : width + 9] == f"{score:>7}", line


def test_table_shows_at_most_the_asked_number_of_failures():
    lines = [line.strip() for line in table(ASSIGNMENT, RESULTS, shown=1).splitlines()]
    ana = lines.index(next(line for line in lines if line.startswith("ana")))
    assert lines[ana + 1 : ana + 3] == ["z_first (failed): wrong z_first", "… and 1 more not passed"]
    bo = lines.index(next(line for line in lines if line.startswith("bo,")))
    assert lines[bo + 2] == "… and 2 more not passed"
    assert "more not passed" not in table(ASSIGNMENT, RESULTS)  # the default 3 covers every question


def test_csv_has_one_row_per_student_and_one_column_per_question(tmp_path):
    path = tmp_path / "grades.csv"
    write_csv(ASSIGNMENT, RESULTS, path)
    rows = list(csv.reader(path.open(newline="", encoding="utf-8")))
    assert rows[0] == ["student", "score", "max_score", "z_first", "a_second", "m_third"]
    assert [r[0] for r in rows[1:]] == ["ana", 'bo, "the" <b>', "zoe"]  # quoted, not split
    assert rows[1] == ["ana", "1.5", "4.5", "0", "1.5", "0"]
    assert rows[3] == ["zoe", "4.5", "4.5", "2", "1.5", "1"]


def test_junit_counts_and_cases_per_student(tmp_path):
    path = tmp_path / "junit.xml"
    write_junit(ASSIGNMENT, RESULTS, path)
    assert path.read_bytes().startswith(b"<?xml version='1.0' encoding='utf-8'?>")
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites" and root.get("name") == "ps_unit"
    suites = {s.get("name"): s for s in root}
    assert list(suites) == ["ana", 'bo, "the" <b>', "zoe"]
    counts = {
        name: tuple(int(s.get(k)) for k in ("tests", "failures", "errors", "skipped")) for name, s in suites.items()
    }
    assert counts == {"ana": (3, 1, 1, 0), 'bo, "the" <b>': (3, 0, 2, 1), "zoe": (3, 0, 0, 0)}
    outcome = {
        (name, case.get("name")): [(child.tag, child.get("message")) for child in case]
        for name, suite in suites.items()
        for case in suite
    }
    assert outcome[("ana", "z_first")] == [("failure", "wrong z_first")]
    assert outcome[("ana", "m_third")] == [("error", "error: wrong m_third")]
    assert outcome[("ana", "a_second")] == [] and outcome[("zoe", "m_third")] == []
    bo = 'bo, "the" <b>'
    assert outcome[(bo, "z_first")] == [("error", 'timeout: <&"quote"> z_first')]  # escaped, read back intact
    assert outcome[(bo, "m_third")] == [("skipped", '<&"quote"> m_third')]
    assert suites["ana"][0].get("classname") == "ps_unit.ana"


@pytest.mark.parametrize("status,tag", [("failed", "failure"), ("missing", "error"), ("pending", "skipped")])
def test_junit_messages_are_cut_at_500_characters(tmp_path, status, tag):
    long = {"students": {"ana": student("passed", "passed", status, feedback="x" * 2000)}}
    write_junit(ASSIGNMENT, long, tmp_path / "junit.xml")
    [element] = ET.parse(tmp_path / "junit.xml").getroot().iter(tag)
    assert len(element.get("message")) == 500
