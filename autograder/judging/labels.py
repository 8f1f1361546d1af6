"""What a student may read of a probe: its label without seeds or the names of hidden functions."""

from __future__ import annotations

import re

from autograder.i18n import Message
from autograder.spec import FunctionSource, Probe


def public_label(probe: Probe, index: int) -> str:
    """The probe's label as a student may read it: no seed, no name of a hidden function."""
    numbered = Message("probe {n}", n=index + 1)
    if not probe.label:
        return numbered
    label = probe.label
    if any(isinstance(a, FunctionSource) and a.name in label for a in probe.args):
        return numbered
    label = re.sub(r"\bseed\s*=?\s*-?\d+\s*,\s*", "", label)
    label = re.sub(r",?\s*\bseed\s*=?\s*-?\d+", "", label)
    label = re.sub(r"\b(model)\s+\d+", r"\1", label)
    return label.replace("()", "").strip() or numbered


def without_hidden_names(text: str, probes: list[Probe]) -> str:
    """Error messages from the student's code may quote a hidden probe function's name."""
    for name in {a.name for p in probes for a in p.args if isinstance(a, FunctionSource)}:
        text = re.sub(rf"\b{re.escape(name)}\b", "the probe's function", text)
    return text
