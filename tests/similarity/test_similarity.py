"""`autograder similarity`: planted copies are found whatever their disguise, honest solutions are
not flagged, and a personal answer computed for a classmate's parameters names that classmate."""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))
import similarity_cohort as cohort  # noqa: E402

from autograder.grading.kept_answers import personal_answers  # noqa: E402
from autograder.releasing.sample_submissions import make_notebook, solution_sources, write_submission  # noqa: E402
from autograder.releasing.stages import released_notebook  # noqa: E402
from autograder.similarity import code as sc  # noqa: E402
from autograder.similarity.evidence import analyse, report_section, write_similarity  # noqa: E402
from autograder.similarity.personal import EXAMPLE_STUDENT_ID, check_personal  # noqa: E402


def _results_json(out: Path, assignment, students) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(
        json.dumps({"assignment": assignment.name, "students": {s: {"score": 0.0} for s in students}})
    )


@pytest.fixture(scope="module")
def planted_cohort(ps1, tmp_path_factory):
    """Four honest students and five disguised copies, as submitted notebooks (not graded: the
    code comparison reads notebooks only)."""
    root = tmp_path_factory.mktemp("similarity")
    students = {**cohort.HONEST, **cohort.planted()}
    for student, answers in students.items():
        write_submission(root / "in", student, ps1, make_notebook(ps1, answers))
    _results_json(root / "out", ps1, students)
    return root


def test_honest_solutions_are_genuine(ps1):
    """The honest students' code is correct (so the 'no false positive' claim is about real work)."""
    from solutions.attention import scaled_dot_product_attention as reference

    gen = torch.Generator().manual_seed(0)
    q, k, v = (
        torch.randn(2, 3, 4, 8, generator=gen),
        torch.randn(2, 3, 5, 8, generator=gen),
        torch.randn(2, 3, 5, 6, generator=gen),
    )
    mask = torch.rand(4, 5, generator=gen) > 0.4
    mask[0] = False  # a fully masked row
    for name, source in {**cohort.SDPA, "swapped": cohort.SWAPPED_SDPA}.items():
        namespace = {"torch": torch, "math": math}
        exec(source, namespace)
        for m in (None, mask):
            got = namespace["scaled_dot_product_attention"](q, k, v, m)
            assert torch.allclose(got, reference(q, k, v, m), atol=1e-5), name
    shapes_q, counts_q = ps1.question("shapes"), ps1.question("param_counts")
    params = ps1.params_for("someone")
    for name, source in {**cohort.SHAPES, **cohort.COUNTS}.items():
        namespace = {"PARAMS": params}
        exec(source, namespace)
        question = shapes_q if "shapes" in namespace else counts_q
        value = namespace[question.answer]
        value = {k: list(v) for k, v in value.items()} if question is shapes_q else value
        assert question.compare.matches(value, question.expected(question.probes_for("someone", ps1)[0])), name
    for name, source in cohort.REAL_MODELS.items():
        namespace = {}
        exec(source, namespace)
        assert namespace["real_models"] == ps1.question("real_models").reference(), name


def test_normalisation_ignores_names_comments_and_layout():
    original = "def f(x, y):\n    # add them\n    total = x + y * 2\n    return total\n"
    disguised = 'def g(a,b):\n    """Sum."""\n\n    s=a+b*3  # new comment\n    return s\n'
    assert sc.normalise(original)[0] == sc.normalise(disguised)[0]
    assert sc.normalise(original)[0] != sc.normalise(original.replace("x + y", "x - y"))[0]


def test_planted_copies_are_found_and_honest_pairs_are_not(ps1, planted_cohort):
    analysis = analyse(ps1, planted_cohort / "out", planted_cohort / "in")
    found = {tuple(sorted((p.a, p.b))) for p in analysis.comparison.pairs}
    assert found == cohort.PLANTED_PAIRS  # every planted pair, and nothing else
    assert analysis.unreadable == {}
    # a wide margin, not a lucky threshold: the weakest copy and the closest honest pair
    scores = {tuple(sorted((p.a, p.b))): p.score for p in analysis.comparison.pairs}
    assert min(scores.values()) >= 0.75
    honest = [p.score for p in analysis.comparison.top_unflagged]
    assert honest and max(honest) <= 0.15
    assert ["copy_chain", "copy_rename", "hana"] in analysis.comparison.clusters


def test_release_and_locked_code_are_not_compared(ps1, planted_cohort):
    release = sc.read_release(str(released_notebook(ps1)))
    cells = dict(sc.student_cells(planted_cohort / "in" / "hana" / ps1.name / ps1.notebook, release))
    assert "student_parameters" not in cells and "by_hand_data" not in cells and "imports" not in cells
    assert "sdpa_impl" in cells
    # the release hands out the sdpa signature and docstring: two unanswered notebooks share nothing
    for student in ("blank1", "blank2"):
        write_submission(planted_cohort / "blank", student, ps1, make_notebook(ps1, solved=False))
    _results_json(planted_cohort / "blank_out", ps1, ["blank1", "blank2"])
    blank = analyse(ps1, planted_cohort / "blank_out", planted_cohort / "blank")
    assert blank.comparison.pairs == [] and blank.comparison.top_unflagged == []


def test_report_page_shows_regions_side_by_side_and_changes_no_score(ps1, planted_cohort):
    results = (planted_cohort / "out" / "results.json").read_bytes()
    page, analysis = write_similarity(ps1, planted_cohort / "out", planted_cohort / "in")
    text = page.read_text(encoding="utf-8")
    assert (planted_cohort / "out" / "results.json").read_bytes() == results
    assert 'id="evidence-note"' in text and "never a score change" in text
    section = re.search(r'<section class="pair" id="pair-copy_reorder__ivan">(.*?)</section>', text, re.S)
    assert section, "the reordered copy has its own side-by-side section"
    assert "counts_answer: def count_model" in section.group(1)  # ivan's function, found in the other cell
    assert section.group(1).count("<mark>") >= 6
    assert 'data-members="copy_chain copy_rename hana"' in text
    summary = json.loads((page.parent / "summary.json").read_text())
    assert {tuple(sorted((p["a"], p["b"]))) for p in summary["pairs"]} == cohort.PLANTED_PAIRS


def _answers_for(ps1, student: str) -> dict:
    """What the grader would keep for a student whose notebook used ``student``'s parameters."""
    from autograder.judging.outcome import Outcome

    outcomes = {}
    for q in ps1.questions:
        if q.personal:
            outcomes[q.grade_id] = Outcome("returned", [{"value": q.expected(q.probes_for(student, ps1)[0])}])
    return personal_answers(ps1, outcomes)


def test_personal_answers_for_a_classmates_parameters_name_the_classmate(ps1):
    assert ps1.params_for("alice") != ps1.params_for("mallory")
    answers = {
        "alice": _answers_for(ps1, "alice"),
        "bob": _answers_for(ps1, "bob"),
        "mallory": _answers_for(ps1, "alice"),
        "nina": _answers_for(ps1, EXAMPLE_STUDENT_ID),
    }
    flags = {(f.student, f.grade_id): f.matches for f in check_personal(ps1, answers)}
    assert flags == {
        ("mallory", "shapes"): ("alice",),
        ("mallory", "param_counts"): ("alice",),
        ("nina", "shapes"): (EXAMPLE_STUDENT_ID,),
        ("nina", "param_counts"): (EXAMPLE_STUDENT_ID,),
        # pre_ln_extra depends on d_model alone, which alice and the example id share: it names both
        ("mallory", "pre_ln_extra"): ("alice", EXAMPLE_STUDENT_ID),
        ("nina", "pre_ln_extra"): ("alice", EXAMPLE_STUDENT_ID),
    }


def test_personal_answers_keep_small_values_only(ps1):
    from autograder.judging.outcome import Outcome

    huge = {"logits": list(range(5000))}
    kept = personal_answers(
        ps1,
        {
            "shapes": Outcome("returned", [{"value": huge}]),
            "param_counts": Outcome("returned", [{"value": {"mha": float("nan")}}]),
        },
    )
    assert kept == {}  # too big to keep; NaN would make the record unwritable


def test_graded_cohort_end_to_end(ps1, tmp_path, capsys):
    """Grade (real sandbox) a student and a classmate who used her parameters; the command flags
    him with her id, `autograder report` shows the section, and no score changes."""
    solution = solution_sources(ps1)
    write_submission(tmp_path / "in", "alice", ps1, make_notebook(ps1))
    write_submission(
        tmp_path / "in",
        "mallory",
        ps1,
        make_notebook(ps1, {"shapes_answer": 'PARAMS = student_params("alice")\n' + solution["shapes_answer"]}),
    )
    from autograder.cli.main import main
    from autograder.grading.cohort import grade_cohort
    from autograder.intake.collect import collect_folder

    results = grade_cohort(ps1, collect_folder(tmp_path / "in", ps1), tmp_path / "out", workers=1, progress=False)
    assert results["students"]["mallory"]["questions"]["shapes"]["status"] == "failed"
    before = (tmp_path / "out" / "results.json").read_bytes()
    assert main(["similarity", "ps1", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "mallory: `shapes` fits the parameters of alice" in printed
    assert "mallory: `param_counts` fits the parameters of alice" in printed
    assert "similar: alice – mallory" in printed  # the same code, too: both are the solution
    section = report_section(ps1, tmp_path / "out")
    assert 'id="similarity"' in section and "fits the parameters of alice" in section
    assert (tmp_path / "out" / "results.json").read_bytes() == before
    page = (tmp_path / "out" / "similarity" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<tr data-student="mallory" data-question="shapes">.*?alice', page)


def test_example_id_is_the_one_the_release_falls_back_to(ps1):
    release = sc.read_release(str(released_notebook(ps1)))
    assert any(f'"JUPYTERHUB_USER", "{EXAMPLE_STUDENT_ID}"' in cell for cell in release.code_cells)


def test_same_fingerprints_in_every_process():
    """Python's hash() changes with PYTHONHASHSEED (random in this process); the report must not."""
    import os
    import subprocess

    script = (
        "from autograder.similarity import code as sc\n"
        f"print(sorted(sc._winnowed(sc.normalise({cohort.SDPA['loops']!r})[0])))"
    )
    run = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"{sorted(sc._winnowed(sc.normalise(cohort.SDPA['loops'])[0]))}\n"
