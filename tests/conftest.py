import pytest

from autograder.spec import list_assignments, load_assignment


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
