"""--scheduler: the same grading on a Dask LocalCluster gives identical results; so does
--workers above 2 (a grader process per worker) and two students handing in the same notebook
(two tasks: their probes differ, and so would a merged task's record)."""

import json

import pytest

from autograder.grading.cohort import grade_cohort
from autograder.intake.collect import collect_folder
from autograder.releasing.sample_submissions import make_samples

distributed = pytest.importorskip("distributed")


def _verdicts(results):
    return {
        s: (r["score"], {g: (q["status"], q["score"], q["feedback"]) for g, q in r["questions"].items()})
        for s, r in results["students"].items()
    }


def on_local_cluster(ps1, folder, out, threads: int = 2) -> dict:
    with distributed.LocalCluster(n_workers=1, threads_per_worker=threads, processes=True, dashboard_address=None) as c:
        return grade_cohort(ps1, collect_folder(folder, ps1), out, scheduler=c.scheduler_address, progress=False)


def test_dask_local_cluster_matches_local_grading(ps1, demo_results, tmp_path):
    make_samples(tmp_path / "in")
    results = on_local_cluster(ps1, tmp_path / "in", tmp_path / "out")
    assert _verdicts(results) == _verdicts(demo_results)


def test_more_workers_than_one_process_judges_for_grade_in_processes(ps1, demo_results, tmp_path):
    from autograder.grading import cohort

    assert cohort.PER_PROCESS == 2
    make_samples(tmp_path / "in")
    results = grade_cohort(ps1, collect_folder(tmp_path / "in", ps1), tmp_path / "out", workers=3, progress=False)
    assert _verdicts(results) == _verdicts(demo_results)


def test_identical_notebooks_of_two_students_are_two_gradings(ps1, tmp_path):
    """The task key once was the notebook's fingerprint alone: the second student got the
    first one's record (their name, their personalised probes)."""
    make_samples(tmp_path / "in")
    honest = next((tmp_path / "in").glob("*/ps1_attention/*.ipynb"))
    for student in ("twin_a", "twin_b"):
        (tmp_path / "twins" / student / ps1.name).mkdir(parents=True)
        (tmp_path / "twins" / student / ps1.name / ps1.notebook).write_bytes(honest.read_bytes())
    results = on_local_cluster(ps1, tmp_path / "twins", tmp_path / "out", threads=1)
    for student in ("twin_a", "twin_b"):
        stored = json.loads((tmp_path / "out" / "submissions" / f"{student}.json").read_text())
        assert stored["record"]["student"] == student
    assert set(results["students"]) == {"twin_a", "twin_b"}
