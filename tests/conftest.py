import os

import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):
    # `./dev test` runs a worker per core: each worker's torch (and what it starts) on one
    # thread, as the sandbox is — several multi-threaded torch processes on two cores spin
    # against each other and a test that takes 40 s alone takes 200
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    import torch

    torch.set_num_threads(1)

from autograder.spec import list_assignments, load_assignment  # noqa: E402


def problem_set_params():
    """Every problem set as a test parameter; PS6 trains models (and its mutation analysis takes
    minutes), so it is marked slow: `-m "not slow"` leaves it out."""
    return [pytest.param(n, marks=pytest.mark.slow) if n == "ps6_build" else n for n in list_assignments()]


@pytest.fixture(scope="session")
def ps1():
    return load_assignment("ps1_attention")


@pytest.fixture(scope="session")
def demo_results(ps1, tmp_path_factory):
    """The demo's sample cohort, graded once through the real sandbox."""
    from autograder.grading.cohort import grade_cohort
    from autograder.intake.collect import collect_folder
    from autograder.releasing.sample_submissions import make_samples

    root = tmp_path_factory.mktemp("demo")
    make_samples(root / "in")
    return grade_cohort(ps1, collect_folder(root / "in", ps1), root / "out", workers=2, progress=False)


# Files whose tests take a minute or more, run first: `./dev test` hands whole files to its
# workers in this order, so the long ones start early and the short ones fill in at the end
# (collected last, they would leave one worker running alone for minutes).
LONG_FIRST = (
    "tests/proving/test_selftest.py",
    "tests/grading/test_training_determinism.py",
    "tests/assignments/test_training_students.py",
    "tests/system/test_student_image.py",
    "tests/system/test_installed_kit.py",
    "tests/system/test_course_final_grades.py",
    "tests/system/test_nbgrader_flow.py",
    "tests/proving/test_feedback_leaks.py",
    "tests/assignments/test_student_cohort.py",
    "tests/releasing/test_capabilities.py",
    "tests/serve/test_serve_on_dask.py",
    "tests/cli/test_bench_on_dask.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {path: i for i, path in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
