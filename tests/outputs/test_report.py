"""`autograder report`: numbers checked against results.json; pages rendered in headless Chromium."""

import json
import os
import shutil
import statistics
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser

import numpy as np
import pytest

from autograder.releasing.sample_submissions import make_samples

HIDDEN = ("probes", "standard_normal", "def ", "Traceback", "reference(")


def autograder(*args):
    return subprocess.run([sys.executable, "-m", "autograder", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The demo cohort plus a second student with bob's notebook (a misconception seen twice)."""
    root = tmp_path_factory.mktemp("report")
    make_samples(root / "in")
    shutil.copytree(root / "in" / "bob", root / "in" / "bob_again")
    out = root / "out"
    r = autograder("grade", "ps1", str(root / "in"), "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    r = autograder("report", "ps1", str(out))
    assert r.returncode == 0, r.stderr
    assert "report:" in r.stdout
    return out, json.loads((out / "results.json").read_text())


class Tables(HTMLParser):
    """Collects the text of each <td>/<th> by (table id, row data-question, cell class)."""

    def __init__(self):
        super().__init__()
        self.cells: dict[tuple, str] = {}
        self.images: list[str] = []
        self._table = self._row = self._cls = None
        self._misc = None
        self._text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._table = a.get("id")
        elif tag == "tr":
            self._row = a.get("data-question") or a.get("class")
            self._misc = a.get("data-misconception")
        elif tag in ("td", "th"):
            self._cls, self._text = a.get("class", tag), []
        elif tag == "img":
            self.images.append(a["src"])

    def handle_data(self, data):
        if self._cls is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cls is not None:
            for cls in self._cls.split():
                key = (self._table, self._row, self._misc, cls) if self._misc else (self._table, self._row, cls)
                self.cells[key] = "".join(self._text)
            self._cls = None


def parse(path):
    p = Tables()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def expected_question_numbers(results):
    """What results.json implies, computed here independently of autograder.outputs.report."""
    students = list(results["students"].values())
    totals = np.array([s["score"] for s in students], dtype=float)
    out = {}
    for gid in students[0]["questions"]:
        qs = [s["questions"][gid] for s in students]
        if all(q["status"] in ("pending", "unanswered") for q in qs):
            continue  # hand-graded (still to be graded, or left as released): not in the report's statistics
        frac = np.array([q["score"] / q["max_score"] for q in qs])
        rest = totals - np.array([q["score"] for q in qs])
        disc = None if frac.std() == 0 or rest.std() == 0 else float(np.corrcoef(frac, rest)[0, 1])
        named = Counter(q["misconception"] for q in qs if q["misconception"])
        top = min(named.items(), key=lambda kv: (-kv[1], kv[0])) if named else None
        out[gid] = {
            "max": qs[0]["max_score"],
            "mean": frac.mean(),
            "passed": 100 * sum(q["status"] == "passed" for q in qs) / len(qs),
            "discrimination": disc,
            "top": f"{top[0]} ({top[1]})" if top else "—",
            "misconceptions": named,
        }
    return out


def test_report_tables_match_results(graded):
    out, results = graded
    page = parse(out / "report" / "index.html")
    cells = page.cells
    expected = expected_question_numbers(results)
    assert {key[1] for key in cells if key[0] == "questions" and key[2] == "id"} == set(expected)
    for gid, e in expected.items():
        assert float(cells["questions", gid, "max"]) == e["max"]
        assert float(cells["questions", gid, "mean"]) == pytest.approx(e["mean"], abs=5e-4)
        assert float(cells["questions", gid, "passed"]) == pytest.approx(e["passed"], abs=0.05)
        if e["discrimination"] is None:
            assert cells["questions", gid, "discrimination"] == "—"
        else:
            assert float(cells["questions", gid, "discrimination"]) == pytest.approx(e["discrimination"], abs=5e-4)
        assert cells["questions", gid, "top-misconception"] == e["top"]
        for name, count in e["misconceptions"].items():
            assert int(cells["misconceptions", gid, name, "count"]) == count
    # the cohort: sdpa is missed by five of six, and bob's mistake is named twice
    assert expected["sdpa"]["passed"] == pytest.approx(100 / 6)
    assert cells["questions", "sdpa", "top-misconception"] == "missing_scale (2)"
    assert "√d_k" in cells["misconceptions", "sdpa", "missing_scale", "feedback"]
    assert float(cells["questions", "sdpa", "discrimination"]) > 0
    totals = [s["score"] for s in results["students"].values()]
    assert int(cells["summary", "students", "num"]) == len(totals) == 6
    assert float(cells["summary", "mean", "num"]) == pytest.approx(statistics.fmean(totals), abs=5e-3)
    assert float(cells["summary", "median", "num"]) == pytest.approx(statistics.median(totals), abs=5e-3)
    assert int(cells["summary", "full-marks", "num"]) == sum(t == results["max_score"] for t in totals)
    assert "point-biserial" in (out / "report" / "index.html").read_text()
    for image in page.images:
        with open(out / "report" / image, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert {"score_distribution.png", "questions.png", "misconceptions.png"} <= set(page.images)


def test_report_refuses_results_of_another_problem_set(graded):
    from autograder.cli.main import main

    out, _ = graded
    assert main(["report", "ps5", str(out)]) == 2


# ---------------------------------------------------------------- headless Chromium


def chromium_or_skip():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed (CI must have it: scripts/ci-system-deps)")
    pytest.skip("chromium not found (install Debian's `chromium`, or run scripts/ci-system-deps)")


def screenshot(page, tmp_path):
    from PIL import Image

    png = tmp_path / f"{page.stem}.png"
    cmd = [
        chromium_or_skip(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        f"--screenshot={png}",
        "--window-size=1200,1600",
        page.resolve().as_uri(),
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and png.is_file(), r.stderr[-2000:]
    image = np.asarray(Image.open(png).convert("RGB"))
    assert image.shape == (1600, 1200, 3)
    return image


def ink(image):
    """Share of pixels that are not (near) white, and the number of distinct colours."""
    not_white = (image < 235).any(axis=2).mean()
    colours = len(np.unique(image.reshape(-1, 3), axis=0))
    return not_white, colours


def test_report_renders_in_chromium(graded, tmp_path):
    out, _ = graded
    image = screenshot(out / "report" / "index.html", tmp_path)
    not_white, colours = ink(image)
    assert not_white > 0.03 and colours > 50
    # the plots were loaded: the histogram's and bars' blue (#3b6ea8) fills many pixels
    blue = (np.abs(image.astype(int) - [0x3B, 0x6E, 0xA8]).sum(axis=2) < 30).sum()
    assert blue > 5000


def test_student_feedback_page_renders_and_hides_probes(graded, tmp_path):
    out, _ = graded
    page = out / "feedback" / "bob.html"
    text = page.read_text(encoding="utf-8")
    assert "√d_k" in text and "bob" in text
    for student_page in (out / "feedback").glob("*.html"):
        content = student_page.read_text(encoding="utf-8")
        for hidden in HIDDEN:
            assert hidden not in content, (student_page.name, hidden)
    image = screenshot(page, tmp_path)
    not_white, colours = ink(image)
    assert not_white > 0.01 and colours > 10
    # the failed question's status is drawn in the page's red (#a4261d)
    red = (np.abs(image.astype(int) - [0xA4, 0x26, 0x1D]).sum(axis=2) < 60).sum()
    assert red > 20
