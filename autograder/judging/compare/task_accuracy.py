"""A trained sequence-to-sequence model judged by what it generates (PS6's copy and addition
tasks; any task whose answer is "train this, then decode held-out inputs")."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from autograder.i18n import Message
from autograder.judging.compare.comparators import Check, Comparator, type_name


def _as_int_array(value):
    if isinstance(value, np.ndarray) and value.dtype.kind in "iub":
        return value.astype(np.int64)
    return None


def _rate(hits: np.ndarray) -> float:
    return float(hits.mean()) if hits.size else 0.0


NEAR_THE_BAR = 0.02  # a pass by less than this many examples in 100 is told it is near the bar


@dataclass(frozen=True)
class TaskAccuracy(Comparator):
    """Exact match of a trained model's greedy outputs on held-out inputs.

    Returned value: {"generated": (n, L) ints, "teacher_forced": (m, L) ints, "trained": bool or
    None (did the returned model's parameters change while it trained; None: not known)}; expected: the
    truth {"generated", "teacher_forced", "decoder_input", …} (the problem set's task reference). Passes when
    at least ``threshold`` of the n rows are generated exactly. A failing value is placed in a
    *symptom* class from both halves (the teacher-forced predictions say what the model learned,
    the generated ones what it does on its own); a known-wrong answer carries the truth it was
    simulated from (``_expected``), and matches a value of the same class."""

    threshold: float
    chance_below: float  # teacher-forced token accuracy under this: the model did not learn
    task: str = "copy"

    def measure(self, got, expected) -> dict | Message:
        if not isinstance(got, dict) or "generated" not in got or "teacher_forced" not in got:
            return Message(
                "expected the dict that `{task}_task` returns, {{'generated': …, 'teacher_forced': …}}, got {got}",
                task=self.task,
                got=type_name(got),
            )
        out = {}
        for key in ("generated", "teacher_forced"):
            arr, exp = _as_int_array(got[key]), np.asarray(expected[key])
            if arr is None:
                return Message(
                    "{key}: expected an integer array of token ids, got {got}", key=key, got=type_name(got[key])
                )
            if arr.shape != exp.shape:
                return Message(
                    "{key}: shape {got} where {expected} was expected",
                    key=key,
                    got=list(arr.shape),
                    expected=list(exp.shape),
                )
            out[key] = arr
        gen, truth = out["generated"], np.asarray(expected["generated"])
        rows = (gen == truth).all(1)
        m = {
            "exact": _rate(rows),
            "tokens": _rate(gen == truth),
            "tf": _rate(out["teacher_forced"] == np.asarray(expected["teacher_forced"])),
            "echo": _rate(out["teacher_forced"] == np.asarray(expected["decoder_input"])),
            "reversed": _rate((gen[:, ::-1] == truth).all(1)),
        }
        m["trained"] = got.get("trained")  # what the student's code did, not what it scored
        if "both_below_500" in expected:
            inside = np.asarray(expected["both_below_500"], dtype=bool)
            m["inside"], m["outside"] = _rate(rows[inside]), _rate(rows[~inside])
        return m

    def __call__(self, got, expected) -> Check:
        m = self.measure(got, expected)
        if isinstance(m, str):
            return Check(False, m)
        n = len(np.asarray(expected["generated"]))
        if m["exact"] >= self.threshold:
            if m["exact"] < self.threshold + NEAR_THE_BAR:
                return Check(
                    True,
                    Message(
                        "but near the bar: {exact} % of your {n} held-out examples were "
                        "generated exactly (at least {needed} % needed); another seed may "
                        "fall short, so make your training steadier",
                        exact=format(100 * m["exact"], ".1f"),
                        n=n,
                        needed=format(100 * self.threshold, "g"),
                    ),
                )
            return Check(True)
        return Check(
            False,
            Message(
                "{exact} % of your {n} held-out examples were generated exactly "
                "(at least {needed} % needed); tokens right: {tokens} % "
                "when generating, {teacher_forced} % with teacher forcing",
                exact=format(100 * m["exact"], ".1f"),
                n=n,
                needed=format(100 * self.threshold, "g"),
                tokens=format(100 * m["tokens"], ".1f"),
                teacher_forced=format(100 * m["tf"], ".1f"),
            ),
        )

    def symptom(self, got, expected) -> str | None:
        m = self.measure(got, expected)
        if isinstance(m, str) or m["exact"] >= self.threshold:
            return None
        if m["echo"] >= 0.9:
            return "unshifted_targets"
        if self.task == "addition" and m["reversed"] >= 0.5:
            return "reversed_digits"
        if "inside" in m and m["inside"] >= 0.9 and m["outside"] < 0.5:
            return "document_range"
        if m["tf"] >= 0.9 and m["tokens"] <= m["tf"] - 0.2:  # right only while it sees the answer: a
            return "no_causal_mask"  # model generating as well as it predicts is merely short of training
        if m["tf"] < self.chance_below:  # at chance: never trained, or trained and stalled
            return "untrained" if m["trained"] is False else "stalled"
        return "undertrained"

    def matches(self, got, expected) -> bool:
        """`expected` is a known-wrong answer's value: same symptom class on the same truth."""
        truth = expected.get("_expected") if isinstance(expected, dict) else None
        if truth is None:
            return False
        mine = self.symptom(got, truth)
        return mine is not None and mine == self.symptom(expected, truth)
