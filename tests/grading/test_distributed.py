"""--scheduler: the same grading on a Dask LocalCluster gives identical results."""

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


def test_dask_local_cluster_matches_local_grading(ps1, demo_results, tmp_path):
    make_samples(tmp_path / "in")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None) as cluster:
        results = grade_cohort(
            ps1,
            collect_folder(tmp_path / "in", ps1),
            tmp_path / "out",
            scheduler=cluster.scheduler_address,
            progress=False,
        )
    assert _verdicts(results) == _verdicts(demo_results)
