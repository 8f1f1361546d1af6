"""PS7 part 4 (f), addition on one more digit: the notebook's locked experiment is the module's
``DIGITS_SOURCE``; its learned table shows the mechanism the answer rests on (2-digit training never
reaches the rows a 3-digit source needs, so they stay as initialised); and 001's and 004's claims
are rejected. The outcomes themselves (0–0.6 % of 3-digit sums right for either scheme, seeds 0–12)
come from the sweep in issue 35's note: retraining here would cost seconds per arm."""

from __future__ import annotations

import json

import torch

from autograder.spec import load_assignment, problem_set_module, to_plain

PS7 = load_assignment("ps7_tasks")
more_digits = problem_set_module(PS7).more_digits
QUESTION = PS7.question("digits_outcomes")


def test_the_notebooks_experiment_is_the_modules():
    nb = json.loads((PS7.source_dir / PS7.notebook).read_text())
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "digits_model")
    assert "".join(cell["source"]).strip() == more_digits.DIGITS_SOURCE.strip()


def test_two_digit_training_never_reaches_the_rows_three_digits_need():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny matrices: the thread pool costs more than it saves
    try:
        trained_rows_move_and_the_rest_stay()
    finally:
        torch.set_num_threads(threads)


def trained_rows_move_and_the_rest_stay():
    ns = more_digits.digits_namespace()
    torch.manual_seed(0)
    model = ns["DigitModel"]("learned")
    before = model.pos.weight.detach().clone()
    optimiser = torch.optim.Adam(model.parameters(), lr=3e-3)
    rows = ns["addition_rows"](torch.Generator().manual_seed(0), 2, 64)
    for _ in range(3):
        logits = model(rows[:, :-1])[:, 5:]
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, ns["DIGIT_VOCAB"]), rows[:, 6:].reshape(-1))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    trained = rows.shape[1] - 1  # 2-digit inputs: positions 0 … 7
    three_digit_input = ns["addition_rows"](torch.Generator().manual_seed(1), 3, 1).shape[1] - 1
    assert (trained, three_digit_input) == (8, 11)
    assert not torch.equal(model.pos.weight[:trained], before[:trained])
    assert torch.equal(model.pos.weight[trained:three_digit_input], before[trained:three_digit_input])


def test_the_documents_claims_lose_the_point():
    expected = QUESTION.expected(QUESTION.probes_for("s", PS7)[0])
    assert expected == {"learned": "2 digits only", "sinusoidal": "2 digits only"}
    for mistake in QUESTION.misconceptions:
        assert not QUESTION.compare.matches(to_plain(mistake.wrong()), expected), mistake.name
