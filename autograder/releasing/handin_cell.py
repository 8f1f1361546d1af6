"""The release stage that tells students how to hand in: a "Handing in" cell after the notebook's
introduction, the same steps for every problem set (``student_validate.handin_steps``, which
``validate.py`` prints last): check, submit (nbgrader or the grading service: one hand-in, the
latest counts), graded on hidden inputs, where the feedback appears and how soon.

The cell is plain Markdown, not an nbgrader cell: nothing is locked or graded in it, so inserting
it changes no checksum of a graded or locked cell.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from autograder.i18n import translate
from autograder.releasing.student_validate import handin_steps

HEADING = "## Handing in"


def heading(lang: str = "en") -> str:
    """``## Handing in`` in ``lang`` (validate.py's "Handing in:" line, without its colon)."""
    return "## " + translate("Handing in:", lang).rstrip(":：").strip()


def handin_markdown(notebook_name: str, lang: str = "en") -> str:
    steps = handin_steps(Path(notebook_name).stem, lang)
    return "\n".join([heading(lang), "", *(f"{n}. {step}" for n, step in enumerate(steps, 1))])


def add_handin_instructions(ctx) -> None:
    """Insert the cell after the first (the introduction); a source that has one keeps its own."""
    lang = getattr(ctx, "lang", "en")
    nb = nbformat.read(ctx.notebook, as_version=4)
    if any(c.cell_type == "markdown" and c.source.startswith((HEADING, heading(lang))) for c in nb.cells):
        return
    cell = nbformat.v4.new_markdown_cell(handin_markdown(ctx.assignment.notebook, lang))
    nb.cells.insert(min(1, len(nb.cells)), cell)
    nbformat.write(nb, ctx.notebook)


def handin_in_language(ctx) -> None:
    """A translated release (``ctx.lang``): the English hand-in cell said in that language."""
    english, said = handin_markdown(ctx.assignment.notebook), handin_markdown(ctx.assignment.notebook, ctx.lang)
    nb = nbformat.read(ctx.notebook, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.source == english:
            cell.source = said
    nbformat.write(nb, ctx.notebook)
