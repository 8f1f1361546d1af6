"""Validate a problem-set notebook before submitting: ``python validate.py ps6_build.ipynb``.

``autograder release`` ships this file beside every released notebook as ``validate.py`` (the
notebook's own name written in above): it needs only what a student's install has
(``student-requirements.txt``: nbgrader brings nbformat and nbclient, ipykernel the kernel),
nothing of the grader. ``autograder validate`` is the same code. It runs the notebook top to
bottom in a real Jupyter kernel, as *Kernel -> Restart & Run All* would, reports each visible
check cell (and any other cell that failed), then says how to hand in and where the feedback
appears (:func:`handin_steps`, also the release's "Handing in" cell). Exit 1 when a check fails,
a cell errors or an answer cell still holds the release's ``raise NotImplementedError()`` —
also inside a function nothing calls yet (nbgrader's own validate exits 0 then); exit 2 when
the file is not there.

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
LANGUAGE = "fa"
TRANSLATIONS: dict[str, dict[str, str]] = {
 "de": {
  "**Check** first: *Kernel → Restart & Run All*, or `python validate.py {assignment}.ipynb` in a terminal in this folder; both run the visible checks only.": "**Prüfen** Sie zuerst: *Kernel → Restart & Run All* oder `python validate.py {assignment}.ipynb` in einem Terminal in diesem Ordner; beide führen nur die sichtbaren Tests aus.",
  "**Feedback** appears within about a minute: under the Assignments tab's *Fetch Feedback* (for a submission made there) and on the grading service's page, with every submission you made.": "**Rückmeldung** erscheint nach etwa einer Minute: unter *Fetch Feedback* im Assignments-Tab (für eine dort gemachte Abgabe) und auf der Seite des Bewertungsdienstes, mit jeder Ihrer Abgaben.",
  "**Graded on hidden inputs**: the grader calls your functions on inputs drawn for you, not only the examples in this notebook; passing the visible checks is not yet full marks.": "**Bewertet mit verborgenen Eingaben**: der Grader ruft Ihre Funktionen mit für Sie gezogenen Eingaben auf, nicht nur mit den Beispielen dieses Notebooks; bestandene sichtbare Tests sind noch nicht die volle Punktzahl.",
  "**Submit** with the Assignments tab's *Submit* (`nbgrader submit {assignment}`), or upload the notebook on the course's grading service page (`/services/autograder/` on the course's JupyterHub). Both are the same hand-in: **your latest submission is the one that counts**.": "**Abgeben** mit *Submit* im Assignments-Tab (`nbgrader submit {assignment}`) oder durch Hochladen des Notebooks auf der Seite des Bewertungsdienstes des Kurses (`/services/autograder/` auf dem JupyterHub des Kurses). Beides ist dieselbe Abgabe: **es zählt Ihre letzte Abgabe**.",
  "FAILED": "FEHLER",
  "Handing in:": "Abgabe:",
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
  "**Check** first: *Kernel → Restart & Run All*, or `python validate.py {assignment}.ipynb` in a terminal in this folder; both run the visible checks only.": "ابتدا **بررسی** کنید: *Kernel → Restart & Run All*، یا `python validate.py {assignment}.ipynb` در یک ترمینال در همین پوشه؛ هر دو فقط بررسی‌های قابل‌مشاهده را اجرا می‌کنند.",
  "**Feedback** appears within about a minute: under the Assignments tab's *Fetch Feedback* (for a submission made there) and on the grading service's page, with every submission you made.": "**بازخورد** در حدود یک دقیقه ظاهر می‌شود: در *Fetch Feedback* زبانهٔ Assignments (برای ارسالی که از آنجا انجام شده) و در صفحهٔ سرویس تصحیح، همراه با همهٔ ارسال‌های شما.",
  "**Graded on hidden inputs**: the grader calls your functions on inputs drawn for you, not only the examples in this notebook; passing the visible checks is not yet full marks.": "**تصحیح با ورودی‌های پنهان**: تصحیح‌گر توابع شما را روی ورودی‌هایی که برای شما انتخاب شده‌اند فرا می‌خواند، نه فقط روی مثال‌های این نوت‌بوک؛ گذراندن بررسی‌های قابل‌مشاهده هنوز به معنای نمرهٔ کامل نیست.",
  "**Submit** with the Assignments tab's *Submit* (`nbgrader submit {assignment}`), or upload the notebook on the course's grading service page (`/services/autograder/` on the course's JupyterHub). Both are the same hand-in: **your latest submission is the one that counts**.": "با *Submit* در زبانهٔ Assignments **ارسال** کنید (`nbgrader submit {assignment}`)، یا نوت‌بوک را در صفحهٔ سرویس تصحیح درس بارگذاری کنید (`/services/autograder/` روی JupyterHub درس). هر دو یک تحویل‌اند: **آخرین ارسال شما حساب می‌شود**.",
  "FAILED": "ناموفق",
  "Handing in:": "تحویل:",
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
  "**Check** first: *Kernel → Restart & Run All*, or `python validate.py {assignment}.ipynb` in a terminal in this folder; both run the visible checks only.": "먼저 **검사**하세요: *Kernel → Restart & Run All* 또는 이 폴더의 터미널에서 `python validate.py {assignment}.ipynb`; 둘 다 공개 검사만 실행합니다.",
  "**Feedback** appears within about a minute: under the Assignments tab's *Fetch Feedback* (for a submission made there) and on the grading service's page, with every submission you made.": "**피드백**은 1분 안팎에 나타납니다: Assignments 탭의 *Fetch Feedback* 아래(그곳에서 한 제출의 경우)와 채점 서비스 페이지에, 여러분의 모든 제출과 함께.",
  "**Graded on hidden inputs**: the grader calls your functions on inputs drawn for you, not only the examples in this notebook; passing the visible checks is not yet full marks.": "**숨겨진 입력으로 채점**: 채점기는 이 노트북의 예시뿐 아니라 여러분을 위해 뽑은 입력으로 함수를 호출합니다; 공개 검사를 통과해도 아직 만점은 아닙니다.",
  "**Submit** with the Assignments tab's *Submit* (`nbgrader submit {assignment}`), or upload the notebook on the course's grading service page (`/services/autograder/` on the course's JupyterHub). Both are the same hand-in: **your latest submission is the one that counts**.": "Assignments 탭의 *Submit*으로 **제출**하거나 (`nbgrader submit {assignment}`), 과목 채점 서비스 페이지에 노트북을 올리세요 (과목 JupyterHub의 `/services/autograder/`). 둘은 같은 제출입니다: **마지막 제출이 반영됩니다**.",
  "FAILED": "실패",
  "Handing in:": "제출 방법:",
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
  "**Check** first: *Kernel → Restart & Run All*, or `python validate.py {assignment}.ipynb` in a terminal in this folder; both run the visible checks only.": "Najpierw **sprawdź**: *Kernel → Restart & Run All* albo `python validate.py {assignment}.ipynb` w terminalu w tym folderze; oba uruchamiają tylko widoczne testy.",
  "**Feedback** appears within about a minute: under the Assignments tab's *Fetch Feedback* (for a submission made there) and on the grading service's page, with every submission you made.": "**Informacja zwrotna** pojawia się w ciągu mniej więcej minuty: pod *Fetch Feedback* w zakładce Assignments (dla zgłoszenia złożonego tam) i na stronie usługi oceniania, razem z każdym twoim zgłoszeniem.",
  "**Graded on hidden inputs**: the grader calls your functions on inputs drawn for you, not only the examples in this notebook; passing the visible checks is not yet full marks.": "**Ocena na ukrytych danych**: sprawdzarka wywołuje twoje funkcje na danych wylosowanych dla ciebie, nie tylko na przykładach z tego notatnika; zaliczenie widocznych testów to jeszcze nie komplet punktów.",
  "**Submit** with the Assignments tab's *Submit* (`nbgrader submit {assignment}`), or upload the notebook on the course's grading service page (`/services/autograder/` on the course's JupyterHub). Both are the same hand-in: **your latest submission is the one that counts**.": "**Oddaj** przyciskiem *Submit* w zakładce Assignments (`nbgrader submit {assignment}`) albo prześlij notatnik na stronie usługi oceniania kursu (`/services/autograder/` na JupyterHubie kursu). To jedno i to samo oddanie: **liczy się twoje ostatnie zgłoszenie**.",
  "FAILED": "BŁĄD",
  "Handing in:": "Oddawanie:",
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
  "**Check** first: *Kernel → Restart & Run All*, or `python validate.py {assignment}.ipynb` in a terminal in this folder; both run the visible checks only.": "Önce **kontrol edin**: *Kernel → Restart & Run All* ya da bu klasörde bir terminalde `python validate.py {assignment}.ipynb`; ikisi de yalnızca görünür kontrolleri çalıştırır.",
  "**Feedback** appears within about a minute: under the Assignments tab's *Fetch Feedback* (for a submission made there) and on the grading service's page, with every submission you made.": "**Geri bildirim** yaklaşık bir dakika içinde görünür: Assignments sekmesindeki *Fetch Feedback* altında (orada yapılan bir gönderim için) ve değerlendirme servisinin sayfasında, yaptığınız her gönderimle birlikte.",
  "**Graded on hidden inputs**: the grader calls your functions on inputs drawn for you, not only the examples in this notebook; passing the visible checks is not yet full marks.": "**Gizli girdilerle notlanır**: değerlendirici fonksiyonlarınızı yalnızca bu not defterindeki örneklerle değil, sizin için çekilen girdilerle çağırır; görünür kontrolleri geçmek henüz tam puan demek değildir.",
  "**Submit** with the Assignments tab's *Submit* (`nbgrader submit {assignment}`), or upload the notebook on the course's grading service page (`/services/autograder/` on the course's JupyterHub). Both are the same hand-in: **your latest submission is the one that counts**.": "Assignments sekmesindeki *Submit* ile **gönderin** (`nbgrader submit {assignment}`) ya da not defterini dersin değerlendirme servisi sayfasına yükleyin (dersin JupyterHub'ında `/services/autograder/`). İkisi aynı teslimdir: **son gönderiminiz geçerlidir**.",
  "FAILED": "BAŞARISIZ",
  "Handing in:": "Teslim:",
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


def handin_steps(assignment: str, lang: str = "en") -> list[str]:
    """How to hand in ``assignment`` (the notebook's name without .ipynb) and where feedback
    appears, in Markdown: the release's "Handing in" cell and validate's last lines."""
    return [
        _t(
            "**Check** first: *Kernel → Restart & Run All*, or `python validate.py {assignment}.ipynb` "
            "in a terminal in this folder; both run the visible checks only.",
            lang,
            assignment=assignment,
        ),
        _t(
            "**Submit** with the Assignments tab's *Submit* (`nbgrader submit {assignment}`), or upload "
            "the notebook on the course's grading service page (`/services/autograder/` on the course's "
            "JupyterHub). Both are the same hand-in: **your latest submission is the one that counts**.",
            lang,
            assignment=assignment,
        ),
        _t(
            "**Graded on hidden inputs**: the grader calls your functions on inputs drawn for you, not only "
            "the examples in this notebook; passing the visible checks is not yet full marks.",
            lang,
        ),
        _t(
            "**Feedback** appears within about a minute: under the Assignments tab's *Fetch Feedback* "
            "(for a submission made there) and on the grading service's page, with every submission you made.",
            lang,
        ),
    ]


def summarise(reports: list[CellReport], lang: str = "en") -> tuple[bool, str]:
    lines, ok = [], True
    for r in reports:
        if r.kind != "check" and r.ok:  # the checks, and whatever else failed
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
    print(_t("Validating {name}:", lang, name=path.name) + "\n" + text + "\n\n" + _t("Handing in:", lang))
    for step in handin_steps(path.stem, lang):
        print("  - " + step.replace("**", "").replace("`", ""))
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
