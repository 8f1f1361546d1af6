"""The feedback page and the service's page, rendered by headless Chromium in German, Persian and
Korean: Persian lays out right to left, German and Korean left to right (where the first line's
ink lands in the screenshot), and every letter the pages use is drawn from a font that has it —
no tofu boxes (each letter drawn alone, in the page's own fonts, compared with the box a code
point no font has gets). A control run with only DejaVu installed (FONTCONFIG_FILE) shows the
tofu check failing where it should: Hangul there is all boxes.

One Chromium run shows all six pages (iframes) and the letter specimens; the control runs beside
it. Skips only where Chromium is missing (fails under CI=1: scripts/ci-system-deps installs it and
the fonts: fonts-noto-core for Arabic script, fonts-nanum for Hangul)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from autograder.i18n import Message, text_direction
from autograder.judging.diagnosis.relations import SHIFTS
from autograder.outputs.feedback_pages import feedback_page
from autograder.serve import pages

LANGS = ("de", "fa", "ko")
PAGE_W, PAGE_H = 800, 420  # each page in an iframe this large: its heading on one line
CELL, PER_ROW = 40, 30  # the specimen: one letter per 40×40 cell, 30 a row
NO_FONT_HAS_IT = "\U0010fffd"  # a private-use code point: its cell is what a missing glyph looks like
WIDTH = PAGE_W * 2


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found := shutil.which(name):
            return found
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed (CI must have it: scripts/ci-system-deps)")
    pytest.skip(
        "chromium not found: install Debian's `chromium` (scripts/ci-system-deps) to check the pages' rendering"
    )


def _record(ps1) -> dict:
    """Every question passed but one, failed with a diagnosis (a sentence inside the verdict's frame)."""
    first = ps1.questions[0]
    diagnosed = Message("`{answer}` does not match the reference: {diagnosis}", answer="sdpa", diagnosis=SHIFTS[True])
    questions = {
        q.grade_id: {"score": q.points, "max_score": q.points, "status": "passed", "feedback": "correct"}
        | {"message": Message("correct").to_json()}
        for q in ps1.questions
    }
    questions[first.grade_id] |= {"score": 0.0, "status": "failed", "feedback": str(diagnosed)}
    questions[first.grade_id]["message"] = diagnosed.to_json()
    return {"score": sum(q["score"] for q in questions.values()), "max_score": ps1.max_score, "questions": questions}


def _letters(*html: str) -> list[str]:
    """The letters a page shows beyond ASCII (the ones a missing font would turn into boxes)."""
    text = re.sub(r"<style>.*?</style>|<[^>]+>", " ", " ".join(html), flags=re.S)
    return sorted({c for c in text if ord(c) > 127 and unicodedata.category(c).startswith("L")})


def _specimen(page: str, letters: list[str]) -> str:
    """The letters one per cell, the missing-glyph cell last, under the page's own <head> (its
    language, direction and fonts)."""
    cells = "".join(
        f'<span style="position:absolute;left:{i % PER_ROW * CELL}px;top:{i // PER_ROW * CELL}px;'
        f'width:{CELL}px;height:{CELL}px;font-size:26px;line-height:{CELL}px;text-align:center;overflow:hidden">'
        f"{c}</span>"
        for i, c in enumerate([*letters, NO_FONT_HAS_IT])
    )
    head = page[: page.index("<body")]
    return (
        f'{head}<body style="margin:0;padding:0;max-width:none"><div style="direction:ltr">{cells}</div></body></html>'
    )


def _rows(n_cells: int) -> int:
    return -(-n_cells // PER_ROW)


def _sheet(folder: Path, specimens: dict[str, str], pages_by_lang: dict[str, list[str]] | None) -> tuple[Path, dict]:
    """One page of iframes: the pages (two per language, side by side), then each specimen.
    Returns the sheet and where each frame lies: name -> (x, y, w, h)."""
    frames, y = {}, 0
    for lang, shown in (pages_by_lang or {}).items():
        for column, html in enumerate(shown):
            name = f"{lang}-page{column}"
            (folder / f"{name}.html").write_text(html, encoding="utf-8")
            frames[name] = (column * PAGE_W, y, PAGE_W, PAGE_H)
        y += PAGE_H
    for lang, html in specimens.items():
        name = f"{lang}-specimen"
        (folder / f"{name}.html").write_text(html, encoding="utf-8")
        height = _rows(html.count("<span ")) * CELL
        frames[name] = (0, y, WIDTH, height)
        y += height
    body = "".join(
        f'<iframe src="{name}.html" style="position:absolute;left:{x}px;top:{fy}px;width:{w}px;height:{h}px;'
        f'border:0"></iframe>'
        for name, (x, fy, w, h) in frames.items()
    )
    sheet = folder / "sheet.html"
    sheet.write_text(f'<!doctype html><html><body style="margin:0">{body}</body></html>', encoding="utf-8")
    return sheet, {"frames": frames, "height": y}


def _start(sheet: Path, height: int, env: dict | None = None) -> tuple[subprocess.Popen, Path]:
    png = sheet.with_suffix(".png")
    cmd = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={sheet.parent / 'profile'}",
        f"--screenshot={png}",
        f"--window-size={WIDTH},{height}",
        sheet.resolve().as_uri(),
    ]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env), png


def _ink(proc: subprocess.Popen, png: Path) -> np.ndarray:
    from PIL import Image

    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and png.is_file(), err[-2000:]
    return np.asarray(Image.open(png).convert("L")) < 140


def _first_line(ink: np.ndarray) -> tuple[int, int]:
    """Gaps from the left and the right edge to the first line of text (the heading)."""
    rows = np.flatnonzero(ink.any(axis=1))
    assert rows.size, "the page shows no text"
    end = rows[0]
    while end + 1 < ink.shape[0] and ink[end + 1].any():
        end += 1
    cols = np.flatnonzero(ink[rows[0] : end + 1].any(axis=0))
    return int(cols[0]), int(ink.shape[1] - 1 - cols[-1])


def _boxes(ink: np.ndarray, letters: list[str]) -> list[str]:
    """The letters drawn as the missing-glyph box (or as nothing)."""
    cells = [
        ink[i // PER_ROW * CELL : (i // PER_ROW + 1) * CELL, i % PER_ROW * CELL : (i % PER_ROW + 1) * CELL]
        for i in range(len(letters) + 1)
    ]
    box = cells[-1]
    assert box.any(), "a code point no font has was drawn as nothing: the check cannot see a missing glyph"
    same = [(cell & box).sum() / (cell | box).sum() for cell in cells[:-1]]  # the ink's overlap with the box's
    return [c for c, cell, overlap in zip(letters, cells, same) if not cell.any() or overlap > 0.9]


def _crop(ink: np.ndarray, frame) -> np.ndarray:
    x, y, w, h = frame
    return ink[y : y + h, x : x + w]


def _dejavu_only(folder: Path) -> dict:
    conf = folder / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
        f"<dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>{folder / 'cache'}</cachedir></fontconfig>",
        encoding="utf-8",
    )
    return {**os.environ, "FONTCONFIG_FILE": str(conf)}


def test_pages_render_in_their_direction_without_tofu(ps1, tmp_path):
    shown, letters, specimens = {}, {}, {}
    for lang in LANGS:
        feedback = feedback_page(ps1, "alice", _record(ps1), lang=lang)
        home = pages.home("alice", ["ps1_attention"], [], "/", "", False, "5/min", lang)
        shown[lang] = [feedback, home]
        letters[lang] = _letters(feedback, home, pages.error(404, "Not Found", "", "/", 3, lang))
        specimens[lang] = _specimen(feedback, letters[lang])
    assert len(letters["ko"]) > 50 and len(letters["fa"]) > 20  # Hangul and Arabic script on the pages

    (tmp_path / "pages").mkdir()
    (tmp_path / "control").mkdir()
    sheet, layout = _sheet(tmp_path / "pages", specimens, shown)
    control, control_layout = _sheet(tmp_path / "control", {"ko": specimens["ko"]}, None)
    runs = [
        _start(sheet, layout["height"]),
        _start(control, control_layout["height"], _dejavu_only(tmp_path / "control")),
    ]
    ink, control_ink = (_ink(*run) for run in runs)

    for lang in LANGS:
        for column in (0, 1):
            left, right = _first_line(_crop(ink, layout["frames"][f"{lang}-page{column}"]))
            near, far = (right, left) if text_direction(lang) == "rtl" else (left, right)
            assert near < 40 and far > near + 100, (lang, column, left, right)  # starts at its own edge
        boxes = _boxes(_crop(ink, layout["frames"][f"{lang}-specimen"]), letters[lang])
        fc_list = ["fc-list", f":lang={lang}", "family"]
        fonts = subprocess.run(fc_list, capture_output=True, text=True).stdout if shutil.which("fc-list") else ""
        assert not boxes, f"{lang}: drawn as tofu: {''.join(boxes)} (fonts for {lang}: {fonts.strip() or 'none'})"

    # the control: with DejaVu alone, Hangul has no font — the same check sees the boxes
    hangul = [c for c in letters["ko"] if "HANGUL" in unicodedata.name(c, "")]
    seen = _boxes(_crop(control_ink, control_layout["frames"]["ko-specimen"]), letters["ko"])
    assert len(hangul) > 50 and set(hangul) <= set(seen), sorted(set(hangul) - set(seen))
