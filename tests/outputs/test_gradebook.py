"""Results land in nbgrader's gradebook, read back through nbgrader's own API."""

from autograder.outputs.gradebook import record_results


def test_results_recorded_in_nbgrader_gradebook(ps1, demo_results, tmp_path):
    from nbgrader.api import Gradebook

    db = tmp_path / "gradebook.db"
    n = record_results(ps1, demo_results, str(db))
    blank = {
        s
        for s, r in demo_results["students"].items()
        if r["questions"]["attention_paragraph"]["status"] == "unanswered"
    }
    assert n == len(demo_results["students"]) * len(ps1.questions) + len(blank)  # a paragraph left as released: 0
    record_results(ps1, demo_results, str(db))  # again: updates, no duplicates
    with Gradebook(f"sqlite:///{db}") as gb:
        subs = {s.student.id: s for s in gb.assignment_submissions("ps1_attention")}
        assert set(subs) == set(demo_results["students"])
        for student, rec in demo_results["students"].items():
            assert subs[student].score == rec["score"]
            # nbgrader's maximum also counts the hand-graded paragraph (2 points)
            assert subs[student].max_score == ps1.max_score + 2
        assert len(gb.students) == len(demo_results["students"])
        grade = gb.find_grade("sdpa", "ps1_attention", "ps1_attention", "alice")
        assert grade.auto_score == 4 and grade.max_score == 4
        paragraph = gb.find_grade("attention_paragraph", "ps1_attention", "ps1_attention", "alice")
        if "alice" in blank:  # handed in as released: 0, as nbgrader scores it, and out of the queue
            assert paragraph.auto_score == 0 and not paragraph.needs_manual_grade
        else:
            assert paragraph.auto_score is None and paragraph.needs_manual_grade  # formgrader's queue


# ---------------------------------------------------------------- formgrader's view of the gradebook


def manual_queue(gb, assignment: str) -> dict[str, list[str]]:
    """What formgrader's manual-grading view lists: per student, the grades still to be graded."""
    from nbgrader.api import Grade, SubmittedAssignment, SubmittedNotebook

    queue: dict[str, list[str]] = {}
    rows = (
        gb.db.query(Grade)
        .join(SubmittedNotebook)
        .join(SubmittedAssignment)
        .filter(Grade.needs_manual_grade.is_(True))
        .all()
    )
    for g in rows:
        if g.assignment.name == assignment:
            queue.setdefault(g.student.id, []).append(g.name)
    return queue


def test_only_hand_graded_cells_wait_for_a_grader(ps1, demo_results, tmp_path):
    from nbgrader.api import Gradebook

    db = tmp_path / "gradebook.db"
    record_results(ps1, demo_results, str(db), course_id="transformers101")
    with Gradebook(f"sqlite:///{db}", "transformers101") as gb:
        waiting = {
            s
            for s, r in demo_results["students"].items()
            if r["questions"]["attention_paragraph"]["status"] == "pending"
        }
        assert manual_queue(gb, "ps1_attention") == {s: ["attention_paragraph"] for s in waiting}
        for student, rec in demo_results["students"].items():
            submission = gb.find_submission_notebook("ps1_attention", "ps1_attention", student)
            assert submission.needs_manual_grade == (student in waiting)  # the paragraph, nothing else
            autograded = [g for g in submission.grades if g.name != "attention_paragraph"]
            assert len(autograded) == len(ps1.questions)
            assert all(not g.needs_manual_grade and g.auto_score is not None for g in autograded)
            assert {g.name: g.auto_score for g in autograded} == {
                gid: q["score"] for gid, q in rec["questions"].items() if q["status"] not in ("pending", "unanswered")
            }
        # a grader overrides an autograded score: it stays graded on re-recording (score unchanged)
        sdpa = gb.find_grade("sdpa", "ps1_attention", "ps1_attention", "bob")
        sdpa.manual_score, sdpa.needs_manual_grade = 3.0, False
        gb.db.commit()
    record_results(ps1, demo_results, str(db), course_id="transformers101")
    with Gradebook(f"sqlite:///{db}", "transformers101") as gb:
        sdpa = gb.find_grade("sdpa", "ps1_attention", "ps1_attention", "bob")
        assert sdpa.manual_score == 3.0 and not sdpa.needs_manual_grade and sdpa.score == 3.0


def test_course_id_from_the_course_config_not_default_course(ps1, demo_results, tmp_path, monkeypatch):
    from nbgrader.api import Course, Gradebook

    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.course_id = 'transformers101'\n", encoding="utf-8"
    )
    monkeypatch.chdir(course)  # formgrader's working directory, where nbgrader finds its config
    notebooks = {"alice": tmp_path / "alice.ipynb"}
    notebooks["alice"].write_text("{}", encoding="utf-8")
    record_results(ps1, demo_results, "sqlite:///gradebook.db", students=["alice"], notebooks=notebooks)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "transformers101") as gb:
        assert gb.find_assignment("ps1_attention").course_id == "transformers101"
        assert [c.id for c in gb.db.query(Course).all()] == ["transformers101"]  # no stray default_course
        assert [s.id for s in gb.students] == ["alice"]  # only who was asked for
    # formgrader's grading view opens autograded/{student}/{assignment}/{notebook}
    assert (course / "autograded/alice/ps1_attention/ps1_attention.ipynb").read_text() == "{}"


def test_nothing_but_submissions_become_students(ps1, demo_results, tmp_path):
    import copy

    from nbgrader.api import Gradebook

    results = copy.deepcopy(demo_results)
    results["students"]["source"] = {  # what grading a course root used to produce
        "score": 0.0,
        "max_score": ps1.max_score,
        "error": "no ps1_attention/ folder was submitted",
        "questions": {
            q.grade_id: {"score": 0.0, "max_score": q.points, "status": "missing", "feedback": ""}
            for q in ps1.questions
        },
    }
    db = tmp_path / "gb.db"
    record_results(ps1, results, str(db))
    with Gradebook(f"sqlite:///{db}") as gb:
        assert {s.id for s in gb.students} == set(demo_results["students"])
