"""What serve refuses before it counts (issue 26, item 6): a file that is no notebook — JSON that
is not one, a truncated notebook, text — gets a 400 that says why, and the student's rate limit
does not count it; the next real notebook is taken."""

from __future__ import annotations

import json

import pytest

from autograder.releasing.sample_submissions import make_notebook
from autograder.serve.engine import Engine, Refused


def test_a_non_notebook_is_refused_and_costs_no_grading(tmp_path, ps1):
    import nbformat

    engine = Engine([ps1], tmp_path, workers=1, rate=(1, 3600.0))  # one grading per hour
    good = nbformat.writes(make_notebook(ps1)).encode()
    try:
        for data, words in (
            (json.dumps({"answer": 42}).encode(), "JSON but not a Jupyter notebook"),
            (good[: len(good) // 2], "truncated"),
            (b"print('hello')", "not valid notebook JSON"),
        ):
            for _ in range(2):
                with pytest.raises(Refused) as refused:
                    engine.submit("amy", "ps1", data)
                assert refused.value.status == 400 and words in refused.value.message
                assert "ps1_attention" in refused.value.message
        assert engine.submit("amy", "ps1", good).student == "amy"  # still her one grading this hour
        with pytest.raises(Refused) as limited:
            engine.submit("amy", "ps1", good)
        assert limited.value.status == 429
    finally:
        engine.journal.close()
