"""The terminal reads the shoe every view carries (for every game, in the model), shows its
corner line and its rules page, and refuses a shoe of the wrong shape."""

from __future__ import annotations

import pytest

from terminal_client.model import short_digest
from terminal_client.model.view import MalformedView, parse_shoe
from terminal_client.screens.rules import shoe_lines

COMMITMENT = "3fa9c1e0" + "ab" * 28
RETIRED = {
    "number": 11,
    "commitment": "cd" * 32,
    "entropy_input": "01" * 32,
    "nonce": "02" * 16,
    "personalization": "424a2d30312f3131",
    "salt": "03" * 32,
}


def test_the_corner_line_names_the_shoe_and_its_commitment() -> None:
    shoe = parse_shoe(
        {
            "current": {"number": 12, "decks": 6, "commitment": COMMITMENT, "dealt": 40},
            "retired": RETIRED,
        }
    )
    assert shoe is not None
    assert shoe.corner_line == "Shoe 12 - committed 3fa9 c1e0 ..."
    lines = [text for text, _ in shoe_lines(shoe)]
    assert "Shoe 12 in use: 6 decks, 40 cards dealt" in lines
    assert any(COMMITMENT[:4] in line and COMMITMENT[28:32] in line for line in lines)
    assert any(line.endswith(COMMITMENT[-4:]) for line in lines)
    assert f"Seed  {short_digest('01' * 32, 8)}" in lines


def test_between_shoes_the_corner_says_the_last_was_revealed() -> None:
    shoe = parse_shoe({"current": None, "retired": RETIRED})
    assert shoe is not None and shoe.corner_line == "Shoe 11 retired - revealed"
    assert parse_shoe(None) is None
    assert "No shoe in use" in shoe_lines(None)[3][0]


@pytest.mark.parametrize(
    "bad",
    [
        {
            "current": {"number": "12", "decks": 6, "commitment": COMMITMENT, "dealt": 0},
            "retired": None,
        },
        {"current": None},
        {"current": None, "retired": {"number": 1}},
        [],
    ],
)
def test_a_shoe_of_the_wrong_shape_is_refused(bad: object) -> None:
    with pytest.raises(MalformedView, match="a shoe this terminal cannot read"):
        parse_shoe(bad)
