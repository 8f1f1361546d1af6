"""The Canvas gradebook import file, filled from a roster (Canvas's own gradebook export)."""

import csv

from autograder.intake.roster import Roster
from autograder.outputs.canvas import write_canvas_csv


def results(scores: dict[str, float]) -> dict:
    return {"assignment": "ps1_attention", "students": {s: {"score": v, "questions": {}} for s, v in scores.items()}}


def test_canvas_csv_with_a_canvas_roster(ps1, tmp_path):
    roster = tmp_path / "export.csv"
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,Old (1)\n"
        "    Points Possible,,,,,10\n"
        '"Smith, John",12345,S001,jsmith,Sec A,\n"Doe, Jane",222,S002,jdoe,Sec B,\n',
        encoding="utf-8",
    )
    people = Roster.read(roster)
    assert people.ids == ["jsmith", "jdoe"] and people.lookup("12345") == "jsmith"
    out = write_canvas_csv(
        ps1,
        results({"jsmith": 27.5, "jdoe": 0.0}),
        tmp_path / "import.csv",
        roster=roster,
        column="PS1 attention (4567)",
    )
    rows = list(csv.reader(open(out, newline="", encoding="utf-8")))
    assert rows == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "PS1 attention (4567)"],
        ["    Points Possible", "", "", "", "", f"{ps1.max_score:g}"],
        ["Doe, Jane", "222", "S002", "jdoe", "Sec B", "0"],
        ["Smith, John", "12345", "S001", "jsmith", "Sec A", "27.50"],
    ]


def test_canvas_csv_without_a_roster_uses_canvas_user_ids(ps1, tmp_path):
    out = write_canvas_csv(ps1, results({"12345": 28.0, "alice": 4.0}), tmp_path / "import.csv")
    rows = list(csv.reader(open(out, newline="", encoding="utf-8")))
    assert rows[0][-1] == "ps1_attention"  # no Canvas id: Canvas creates the assignment on import
    assert rows[2:] == [["12345", "12345", "", "", "", "28"], ["alice", "", "", "alice", "", "4"]]


def test_roster_lookups(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("username,name,email,canvas_id\nann,Ann Lee,ann@uni.edu,77\nbo,Bo Yu,bo@uni.edu,78\n")
    r = Roster.read(path)
    assert r.lookup("77") == "ann" and r.lookup("Bo Yu") == "bo" and r.lookup("ann@uni.edu") == "ann"
    assert r.lookup("nobody") is None
    assert r.in_text("ps1_ann_final") == ["ann"] and r.in_text("bonnie") == []
