"""Game receipts (docs/shoe-spec.md section 7): made from a log by recall, checked by the
one-file verifier (tools/verify_receipt.py) and by the project's own check, which agree; a
tampered receipt (a card, a position, the seed, the salt, the commitment) is refused with a
sentence; a shoe not yet retired gives a receipt without a reveal, and no secret."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from game_server.eventlog import EventLogReader
from game_server.recall.query import fetch_round, list_rounds
from game_server.recall.receipt import build_receipt, check_receipt, receipt_digest
from tests.recall.verify_helpers import make_keys, make_log
from tools.recall_cli import recall
from tools.receipt_cli import receipt as receipt_group
from tools.verify_receipt import verify_receipt

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pre_move"


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Eight rounds of three seats, every shoe revealed at the end."""
    directory = tmp_path_factory.mktemp("receipts")
    return make_log(directory, make_keys(directory / "certs"), rounds=8)


def _receipts(db: Path, terminal: str | None = None) -> list[dict[str, Any]]:
    with EventLogReader.open(db, immutable=True) as reader:
        made = []
        for summary in list_rounds(reader, last=100):
            logged = fetch_round(reader, summary.table_id, summary.round_id)
            assert logged is not None
            made.append(build_receipt(reader, logged, terminal))
        return made


def test_every_games_receipt_verifies_with_both_checks(log: Path) -> None:
    receipts = _receipts(log)
    assert len(receipts) == 8
    for receipt in receipts:
        assert receipt["reveal"] is not None
        assert receipt["digest"] == receipt_digest(receipt["game"])
        assert receipt["qr"].endswith(receipt["digest"])
        assert len(receipt["game"]["cards"]) >= 4
        assert verify_receipt(receipt) == []
        assert check_receipt(receipt) == []


def test_a_terminals_receipt_holds_its_cards_and_the_tables_only(log: Path) -> None:
    mine = _receipts(log, "T1")
    every = _receipts(log)
    for own, whole in zip(mine, every, strict=True):
        holders = {card["holder"] for card in own["game"]["cards"]}
        assert holders <= {"T1", "table"}
        assert "T1" in holders
        assert {c["holder"] for c in whole["game"]["cards"]} > holders
        assert verify_receipt(own) == [] and check_receipt(own) == []


def _rehashed(receipt: dict[str, Any]) -> dict[str, Any]:
    """What a careful forger does after changing the game part: a digest that matches."""
    receipt["digest"] = receipt_digest(receipt["game"])
    return receipt


def _swap_a_card(r: dict[str, Any]) -> None:
    card = r["game"]["cards"][0]
    card["card"] = "AS" if card["card"] != "AS" else "KS"


def _move_a_card(r: dict[str, Any]) -> None:
    cards = r["game"]["cards"]
    cards[0]["position"], cards[1]["position"] = cards[1]["position"], cards[0]["position"]
    if cards[0]["card"] == cards[1]["card"]:  # pragma: no cover - the seeded log differs
        cards[0]["position"] = 300


def _other_seed(r: dict[str, Any]) -> None:
    entropy = r["reveal"]["entropy_input"]
    r["reveal"]["entropy_input"] = ("0" if entropy[0] != "0" else "1") + entropy[1:]


def _other_salt(r: dict[str, Any]) -> None:
    r["reveal"]["salt"] = "00" * 32


def _other_commitment(r: dict[str, Any]) -> None:
    r["game"]["shoe"]["commitment"] = "ab" * 32


def _other_shoe_number(r: dict[str, Any]) -> None:
    r["game"]["shoe"]["number"] += 1


TAMPERS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "a card": (_swap_a_card, "but the committed shoe holds"),
    "a position": (_move_a_card, "but the committed shoe holds"),
    "the seed": (_other_seed, "the reveal is not the shoe that was committed to"),
    "the salt": (_other_salt, "the reveal is not the shoe that was committed to"),
    "the commitment": (_other_commitment, "the reveal is not the shoe that was committed to"),
    "the shoe number": (_other_shoe_number, "not with its table and shoe number"),
}


@pytest.mark.parametrize("what", sorted(TAMPERS))
@pytest.mark.parametrize("rehash", [False, True], ids=["as-is", "digest-recomputed"])
def test_a_tampered_receipt_is_refused_with_a_sentence(log: Path, what: str, rehash: bool) -> None:
    tamper, sentence = TAMPERS[what]
    receipt = copy.deepcopy(_receipts(log)[2])
    tamper(receipt)
    if rehash:
        _rehashed(receipt)
    problems = verify_receipt(receipt)
    assert problems, f"changing {what} went unnoticed"
    assert any(sentence in p for p in problems), problems
    changed = any("the game part was changed" in p for p in problems)
    assert changed == (not rehash and what not in ("the seed", "the salt"))
    assert check_receipt(receipt), "the project's own check let it through"


def test_a_shoe_in_use_gives_a_receipt_without_a_reveal() -> None:
    """The interrupted fixture's shoe was never retired: no seed, no salt in its receipt."""
    (receipt,) = _receipts(FIXTURES / "interrupted-fully-automated.db")[:1]
    assert receipt["reveal"] is None
    text = json.dumps(receipt)
    assert "entropy_input" not in text and "salt" not in text
    (problem,) = verify_receipt(receipt)
    assert "the shoe is not revealed yet" in problem


@pytest.mark.parametrize(
    "name",
    ["fully-automated-all-side-wagers", "hybrid-three-position", "hybrid-no-hole-card", "uth"],
)
def test_old_logs_give_receipts_that_verify(name: str) -> None:
    """The log's format did not change: receipts of logs written before it verify."""
    receipts = _receipts(FIXTURES / f"{name}.db")
    assert receipts
    for receipt in receipts:
        assert verify_receipt(receipt) == []
        assert check_receipt(receipt) == []


def test_receipt_commands(log: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "receipt.json"
    made = runner.invoke(recall, ["receipt", str(log), "3", "--terminal", "T2", "--out", str(out)])
    assert made.exit_code == 0, made.output
    checked = runner.invoke(receipt_group, ["verify", str(out)])
    assert checked.exit_code == 0, checked.output
    assert checked.output.startswith("verified: the ")
    assert "game 3 of table" in checked.output

    data = json.loads(out.read_text())
    _swap_a_card(data)
    out.write_text(json.dumps(data))
    refused = runner.invoke(receipt_group, ["verify", str(out)])
    assert refused.exit_code == 1
    assert refused.output.startswith("REFUSED: ")
    assert "the game part was changed" in refused.output

    out.write_text("{not json")
    unreadable = runner.invoke(receipt_group, ["verify", str(out)])
    assert unreadable.exit_code == 2
    assert "cannot read the receipt" in unreadable.output

    stranger = runner.invoke(recall, ["receipt", str(log), "3", "--terminal", "NOPE"])
    assert stranger.exit_code == 2
    assert "terminal NOPE took no part in round 3" in stranger.output

    printed = runner.invoke(recall, ["receipt", str(log), "4", "--qr"])
    assert printed.exit_code == 0
    receipt = json.loads(printed.stdout)
    assert verify_receipt(receipt) == []
    assert receipt["qr"] in printed.stderr


def test_terminal_recall_carries_each_games_shoe_and_receipt(log: Path) -> None:
    """What the terminal's recall screen shows: the shoe, the positions of this terminal's
    and the table's cards, the reveal, and the QR code's text of the same receipt."""
    from game_server.recall.terminal import terminal_recall

    with EventLogReader.open(log, immutable=True) as reader:
        recalled = terminal_recall(reader, "T1")
    receipts = {r["game"]["round"]: r for r in _receipts(log, "T1")}
    assert recalled["games"]
    for game in recalled["games"]:
        receipt = receipts[game["round"]]
        assert game["receipt"] == {"digest": receipt["digest"], "qr": receipt["qr"]}
        shoe = game["shoe"]
        assert shoe["commitment"] == receipt["game"]["shoe"]["commitment"]
        assert shoe["positions"] == [c["position"] for c in receipt["game"]["cards"]]
        assert shoe["reveal"] == receipt["reveal"]


def _face_down_table_cards(db: Path) -> dict[tuple[str, int], tuple[set[int], set[int]]]:
    """Per round, from the raw rows: the positions of the table's face-down cards (no
    terminal) that the round turned up (``hole_card_revealed``, ``uth_dealer_revealed``)
    and those it never did."""
    rounds: dict[tuple[str, int], list[Any]] = {}
    with EventLogReader.open(db, immutable=True) as reader:
        for stored in reader.iter_events():
            if stored.round_id is not None:
                key = (stored.table_id, stored.round_id)
                rounds.setdefault(key, []).append(stored)
    found = {}
    for key, rows in rounds.items():
        down = {
            r.body["position"]
            for r in rows
            if r.terminal is None and r.body.get("face_up") is False and "position" in r.body
        }
        turned = {r.body["position"] for r in rows if r.kind == "hole_card_revealed"}
        if any(r.kind == "uth_dealer_revealed" for r in rows):
            turned |= down
        found[key] = (down & turned, down - turned)
    return found


@pytest.mark.parametrize(
    "name",
    [
        "fully-automated-all-side-wagers",
        "hybrid-three-position",
        "uth",
        "interrupted-fully-automated",
        "interrupted-hybrid-three-position",
        "interrupted-uth",
    ],
)
def test_a_terminals_receipt_holds_no_card_its_player_has_not_seen(name: str) -> None:
    """docs/shoe-spec.md section 7: a terminal's receipt (and so its digest, the QR code
    and the terminal's recall) holds a face-down card of the table only once the round
    turned it up: a hole card never revealed, the UTH dealer's cards before the showdown,
    are in the operator's receipt only."""
    from game_server.recall.terminal import terminal_recall

    db = FIXTURES / f"{name}.db"
    rounds = _face_down_table_cards(db)
    never = sum(len(hidden) for _, hidden in rounds.values())
    if name.startswith("interrupted"):
        assert never, "the interrupted round keeps a face-down card"
    checked = 0
    with EventLogReader.open(db, immutable=True) as reader:
        for (table, round_id), (shown, hidden) in rounds.items():
            logged = fetch_round(reader, table, round_id)
            assert logged is not None and logged.started is not None
            whole = {c["position"] for c in build_receipt(reader, logged)["game"]["cards"]}
            assert shown | hidden <= whole
            for terminal in logged.started.terminals:
                receipt = build_receipt(reader, logged, terminal)
                mine = {c["position"] for c in receipt["game"]["cards"]}
                assert not mine & hidden, (table, round_id, terminal)
                assert shown <= mine, (table, round_id, terminal)
                if receipt["reveal"] is not None:
                    assert verify_receipt(receipt) == [] and check_receipt(receipt) == []
                checked += 1
        for terminal in ("T1", "T2"):  # every fixture's terminals
            for game in terminal_recall(reader, terminal)["games"]:
                _, hidden = rounds[(game["table"], game["round"])]
                assert not set(game["shoe"]["positions"]) & hidden
    assert checked
