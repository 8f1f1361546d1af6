"""Validate a problem-set notebook before submitting: ``python validate.py ps1_attention.ipynb``.

``autograder release`` ships this file beside every released notebook as ``validate.py``: it
needs only what a student's install has (``student-requirements.txt``: nbgrader brings nbformat
and nbclient, ipykernel the kernel), nothing of the grader. ``autograder validate`` is the same
code. It runs the notebook top to bottom in a real Jupyter kernel, as *Kernel -> Restart & Run
All* would, and reports each visible check cell. Exit 1 when a check fails, a cell errors or an
answer cell still holds the release's ``raise NotImplementedError()`` — also inside a function
nothing calls yet (nbgrader's own validate exits 0 then); exit 2 when the file is not there.

It reports in the student's language: ``--lang de`` (or ``AUTOGRADER_LANG``), else the course's
(``LANGUAGE``, written by the release). ``TRANSLATIONS`` holds this file's messages from the
kit's catalogues, written into it by ``autograder release`` (so it needs no catalogue files);
``autograder validate`` reads the catalogues themselves.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

STUB = "raise NotImplementedError"
LANGUAGE = "en"
TRANSLATIONS: dict[str, dict[str, str]] = {
 "de": {
  "FAILED": "FEHLER",
  "Validating {name}:": "Prüfe {name}:",
  "cell {number}": "Zelle {number}",
  "could not run {name}: {error}": "{name} konnte nicht ausgeführt werden: {error}",
  "no such notebook: {path}": "Notebook nicht gefunden: {path}",
  "replace `raise NotImplementedError()` with your answer": "ersetzen Sie `raise NotImplementedError()` durch Ihre Antwort",
  "this answer still contains the release's `raise NotImplementedError()`": "diese Antwort enthält noch das `raise NotImplementedError()` der Vorlage",
  "{passed}/{total} visible checks passed": "{passed}/{total} sichtbare Tests bestanden",
  "{passed}/{total} visible checks passed; fix the failures above before submitting": "{passed}/{total} sichtbare Tests bestanden; beheben Sie die Fehler oben vor der Abgabe"
 },
 "fa": {
  "FAILED": "ناموفق",
  "Validating {name}:": "در حال بررسی {name}:",
  "cell {number}": "سلول {number}",
  "could not run {name}: {error}": "اجرای {name} ممکن نشد: {error}",
  "no such notebook: {path}": "چنین نوت‌بوکی وجود ندارد: {path}",
  "ok": "درست",
  "replace `raise NotImplementedError()` with your answer": "`raise NotImplementedError()` را با پاسخ خودتان جایگزین کنید",
  "this answer still contains the release's `raise NotImplementedError()`": "این پاسخ هنوز `raise NotImplementedError()` نسخهٔ منتشرشده را دارد",
  "{passed}/{total} visible checks passed": "{passed} از {total} بررسی قابل‌مشاهده موفق بود",
  "{passed}/{total} visible checks passed; fix the failures above before submitting": "{passed} از {total} بررسی قابل‌مشاهده موفق بود؛ پیش از ارسال، خطاهای بالا را برطرف کنید"
 },
 "ko": {
  "FAILED": "실패",
  "Validating {name}:": "{name} 검사 중:",
  "cell {number}": "셀 {number}",
  "could not run {name}: {error}": "{name}을(를) 실행할 수 없습니다: {error}",
  "no such notebook: {path}": "노트북이 없습니다: {path}",
  "ok": "통과",
  "replace `raise NotImplementedError()` with your answer": "`raise NotImplementedError()`를 여러분의 답으로 바꾸세요",
  "this answer still contains the release's `raise NotImplementedError()`": "이 답안에는 아직 배포본의 `raise NotImplementedError()`가 남아 있습니다",
  "{passed}/{total} visible checks passed": "공개 검사 {total}개 중 {passed}개 통과",
  "{passed}/{total} visible checks passed; fix the failures above before submitting": "공개 검사 {total}개 중 {passed}개 통과; 제출하기 전에 위의 실패를 고치세요"
 },
 "pl": {
  "FAILED": "BŁĄD",
  "Validating {name}:": "Sprawdzanie {name}:",
  "cell {number}": "komórka {number}",
  "could not run {name}: {error}": "nie udało się uruchomić {name}: {error}",
  "no such notebook: {path}": "nie ma takiego notatnika: {path}",
  "replace `raise NotImplementedError()` with your answer": "zastąp `raise NotImplementedError()` swoją odpowiedzią",
  "this answer still contains the release's `raise NotImplementedError()`": "ta odpowiedź wciąż zawiera `raise NotImplementedError()` z udostępnionej wersji",
  "{passed}/{total} visible checks passed": "zaliczono {passed}/{total} widocznych testów",
  "{passed}/{total} visible checks passed; fix the failures above before submitting": "zaliczono {passed}/{total} widocznych testów; przed oddaniem popraw powyższe błędy"
 },
 "tr": {
  "FAILED": "BAŞARISIZ",
  "Validating {name}:": "{name} doğrulanıyor:",
  "cell {number}": "hücre {number}",
  "could not run {name}: {error}": "{name} çalıştırılamadı: {error}",
  "no such notebook: {path}": "böyle bir not defteri yok: {path}",
  "ok": "tamam",
  "replace `raise NotImplementedError()` with your answer": "`raise NotImplementedError()` satırını kendi cevabınızla değiştirin",
  "this answer still contains the release's `raise NotImplementedError()`": "bu cevap hâlâ dağıtılan sürümdeki `raise NotImplementedError()` satırını içeriyor",
  "{passed}/{total} visible checks passed": "{passed}/{total} görünür kontrol geçti",
  "{passed}/{total} visible checks passed; fix the failures above before submitting": "{passed}/{total} görünür kontrol geçti; göndermeden önce yukarıdaki hataları düzeltin"
 }
}  # lang -> {message id: translation}; filled by the release


def _t(message_id: str, lang: str = "en", **args) -> str:
    """A message of this report in ``lang``, its named placeholders filled."""
    text = TRANSLATIONS.get(lang, {}).get(message_id)
    if text is None and lang != "en" and not TRANSLATIONS:
        try:  # run from the kit (`autograder validate`): its catalogues
            from autograder.i18n import translate

            return translate(message_id, lang, **args)
        except ImportError:
            pass
    text = text or message_id
    try:
        return text.format(**args)
    except (KeyError, IndexError, ValueError):
        return message_id.format(**args)


@dataclass
class CellReport:
    index: int
    grade_id: str | None
    kind: str  # "check" | "answer" | "code"
    ok: bool
    message: str


def error_of(cell) -> str | None:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            return f"{out.get('ename')}: {out.get('evalue')}"
    return None


def run_notebook(path: Path, timeout: int = 120) -> list[CellReport]:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(Path(path).parent)}},
    )
    client.execute()
    reports = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        meta = cell.get("metadata", {}).get("nbgrader", {})
        kind = (
            "check"
            if meta.get("grade") and not meta.get("solution")
            else ("answer" if meta.get("solution") else "code")
        )
        error = error_of(cell)
        if error is None and kind == "answer" and STUB in cell.source:
            # a function whose body is still the stub defines fine and fails only when called
            error = "NotImplementedError: " + _t(
                "this answer still contains the release's `raise NotImplementedError()`"
            )
        reports.append(CellReport(index, meta.get("grade_id"), kind, error is None, error or ""))
    return reports


def summarise(reports: list[CellReport], lang: str = "en") -> tuple[bool, str]:
    lines, ok = [], True
    for r in reports:
        if r.kind == "code" and r.ok:
            continue
        name = r.grade_id or _t("cell {number}", lang, number=r.index + 1)
        if r.ok:
            label = _t("ok", lang)
            lines.append(f"  {label:<7} {name}")
            continue
        ok = False
        message = r.message
        if lang != "en" and message.startswith("NotImplementedError: this answer"):
            message = "NotImplementedError: " + _t(message.split(": ", 1)[1], lang)
        hint = (
            " — " + _t("replace `raise NotImplementedError()` with your answer", lang)
            if "NotImplementedError" in r.message
            else ""
        )
        label = _t("FAILED", lang)
        lines.append(f"  {label:<7} {name}: {message[:300]}{hint}")
    checks = [r for r in reports if r.kind == "check"]
    passed = sum(r.ok for r in checks)
    if ok:
        lines.append(_t("{passed}/{total} visible checks passed", lang, passed=passed, total=len(checks)))
    else:
        lines.append(
            _t(
                "{passed}/{total} visible checks passed; fix the failures above before submitting",
                lang,
                passed=passed,
                total=len(checks),
            )
        )
    return ok, "\n".join(lines)


def validate(notebook: str, timeout: int = 120, lang: str | None = None) -> int:
    """Run and report; the exit status (0 all passed, 1 something failed, 2 no such file)."""
    lang = (lang or os.environ.get("AUTOGRADER_LANG") or LANGUAGE).split("-")[0].split("_")[0].lower()
    path = Path(notebook)
    if not path.is_file():
        print(_t("no such notebook: {path}", lang, path=path), file=sys.stderr)
        return 2
    try:
        reports = run_notebook(path, timeout=timeout)
    except Exception as exc:  # unreadable notebook, dead kernel
        print(_t("could not run {name}: {error}", lang, name=path.name, error=exc), file=sys.stderr)
        return 1
    ok, text = summarise(reports, lang)
    print(_t("Validating {name}:", lang, name=path.name) + "\n" + text)
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python validate.py", description=__doc__.split("\n", 1)[0])
    parser.add_argument("notebook")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per cell")
    parser.add_argument("--lang", help="the report's language: en, de, fa, pl, tr, ko (default: the course's)")
    args = parser.parse_args(argv)
    return validate(args.notebook, args.timeout, args.lang)


if __name__ == "__main__":
    sys.exit(main())
