"""Game receipts (docs/shoe-spec.md section 7): made from a log by recall, checked by the
one-file verifier (tools/verify_receipt.py) and by the project's own check, which agree; a
tampered receipt (a card, a position, the seed, the salt, the commitment, the QR text, the
reveal's seq) is refused with a sentence; every field is bound by the digest or checked,
but the two the spec names; input that is not a receipt is unreadable (exit 2, one
sentence, never a traceback) for both commands; a shoe not yet retired gives a receipt
without a reveal, and no secret."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
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

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "pre_move"


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


# -- every field bound or checked; unreadable input -------------------------------------------

#: The fields of a receipt neither bound by its digest nor checked against its other values
#: (docs/shoe-spec.md section 7, "What each field is"): where to find the log, and how to
#: check. The verifier prints neither.
UNBOUND = {("log", "log_id"), ("verify",)}


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every leaf (string, integer, boolean, null) of a parsed JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for number, item in enumerate(value):
            yield from _leaves(item, (*path, number))
    else:
        yield path


def _changed(value: Any) -> Any:
    """Another value of the same JSON type (null becomes a string: a terminal's id)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return 0 if value else 1
    if isinstance(value, str):
        return ("0" if value[:1] != "0" else "1") + value[1:]
    return "T9"


def test_every_field_is_bound_by_the_digest_or_checked(log: Path) -> None:
    """Changing any one field of a verified receipt, to another value of its type, is
    refused by both checks, but for the two fields the spec names as unbound."""
    for receipt in (_receipts(log)[3], _receipts(log, "T2")[3]):
        leaves = list(_leaves(receipt))
        assert ("qr",) in leaves and ("reveal", "revealed_seq") in leaves
        for path in leaves:
            tampered = copy.deepcopy(receipt)
            *parents, last = path
            holder = tampered
            for key in parents:
                holder = holder[key]
            holder[last] = _changed(holder[last])
            if path in UNBOUND:
                assert verify_receipt(tampered) == [] and check_receipt(tampered) == []
            else:
                assert verify_receipt(tampered), f"changing {path} went unnoticed"
                assert check_receipt(tampered), f"the project's check missed {path}"


def _write(tmp_path: Path, receipt: Any) -> Path:
    path = tmp_path / "receipt.json"
    path.write_text(json.dumps(receipt, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def _verifiers(path: Path) -> dict[str, subprocess.CompletedProcess[str]]:
    """The receipt file checked by both real commands, each a process of its own:
    ``etg receipt verify FILE``, and the one file run where the receipt is, as a player
    runs it (``python verify_receipt.py FILE``)."""
    commands = {
        "etg receipt verify": ([sys.executable, "-m", "tools", "receipt", "verify"], ROOT),
        "verify_receipt.py": ([sys.executable, str(ROOT / "tools" / "verify_receipt.py")], None),
    }
    return {
        name: subprocess.run(
            [*command, str(path)],
            cwd=path.parent if cwd is None else cwd,
            capture_output=True,
            text=True,
            timeout=120,
        )
        for name, (command, cwd) in commands.items()
    }


def test_the_commands_print_the_qr_text_a_verified_receipt_makes(log: Path, tmp_path: Path) -> None:
    """Both commands verify a receipt as made (exit 0) and print its QR text, which the
    player compares with the QR code the terminal showed."""
    receipt = _receipts(log)[3]
    for name, done in _verifiers(_write(tmp_path, receipt)).items():
        assert done.returncode == 0, (name, done.stdout, done.stderr)
        verdict, qr = done.stdout.splitlines()
        assert verdict.startswith("verified: the ")
        assert qr.startswith(f"its QR code reads {receipt['qr']}: ")


def _qr_of_another_round(receipt: dict[str, Any], other: dict[str, Any]) -> None:
    receipt["qr"] = other["qr"]


def _qr_of_another_table(receipt: dict[str, Any], other: dict[str, Any]) -> None:
    receipt["qr"] = receipt["qr"].replace(f":{receipt['game']['table']}:", ":BJ-99:")


def _revealed_before_the_commitment(receipt: dict[str, Any], other: dict[str, Any]) -> None:
    receipt["reveal"]["revealed_seq"] = receipt["game"]["shoe"]["committed_seq"] - 1


def _revealed_before_a_card(receipt: dict[str, Any], other: dict[str, Any]) -> None:
    receipt["reveal"]["revealed_seq"] = max(c["seq"] for c in receipt["game"]["cards"])


UNBOUND_TAMPERS: dict[str, tuple[Callable[[dict[str, Any], dict[str, Any]], None], str]] = {
    "the qr of another round": (_qr_of_another_round, "is not the one its own table, round"),
    "the qr of another table": (_qr_of_another_table, "is not the one its own table, round"),
    "revealed before the commitment": (_revealed_before_the_commitment, "revealed_seq was"),
    "revealed before a card": (_revealed_before_a_card, "revealed_seq was changed"),
}


@pytest.mark.parametrize("what", sorted(UNBOUND_TAMPERS))
def test_a_qr_text_or_reveal_seq_the_receipt_does_not_make_is_refused(
    log: Path, tmp_path: Path, what: str
) -> None:
    """The QR text must be the one the receipt's table, round and digest make, and the
    reveal's seq after the commitment and every card: else both commands refuse the
    receipt (exit 1) with a sentence, and so does the project's own check."""
    receipts = _receipts(log)
    receipt, other = copy.deepcopy(receipts[3]), receipts[4]
    tamper, sentence = UNBOUND_TAMPERS[what]
    tamper(receipt, other)
    assert check_receipt(receipt), "the project's own check let it through"
    for name, done in _verifiers(_write(tmp_path, receipt)).items():
        assert done.returncode == 1, (name, done.stdout, done.stderr)
        assert done.stdout.startswith("REFUSED: ") and sentence in done.stdout, (name, done)
        assert "verified" not in done.stdout


def _as_made(log: Path) -> dict[str, Any]:
    return copy.deepcopy(_receipts(log)[3])


def _json_with(log: Path, path: tuple[Any, ...], literal: str) -> str:
    """A receipt as made, with the field at ``path`` written as the JSON ``literal``."""
    receipt = _as_made(log)
    *parents, last = path
    holder = receipt
    for key in parents:
        holder = holder[key]
    holder[last] = "@@@"
    return json.dumps(receipt).replace('"@@@"', literal)


UNREADABLE: dict[str, tuple[Callable[[Path], bytes | str], str]] = {
    "100,000 nested lists": (lambda _: "[" * 100_000 + "]" * 100_000, "nested deeper"),
    "100,000 nested objects": (
        lambda _: '{"a":' * 100_000 + "1" + "}" * 100_000,
        "nested deeper",
    ),
    "a NaN": (lambda log: _json_with(log, ("game", "round"), "NaN"), "NaN"),
    "an Infinity": (lambda log: _json_with(log, ("reveal", "revealed_seq"), "-Infinity"), "Inf"),
    "a fraction": (lambda log: _json_with(log, ("game", "shoe", "decks"), "6.0"), "6.0"),
    "a list": (lambda _: "[1, 2]", "a list, not a JSON object"),
    "a string": (lambda _: '"receipt"', "a string, not a JSON object"),
    "not JSON": (lambda _: "{not json", "not JSON"),
    "empty": (lambda _: "", "not JSON"),
    "not UTF-8": (lambda log: json.dumps(_as_made(log)).encode() + b"\xff", "not UTF-8"),
    "a key twice": (lambda log: json.dumps(_as_made(log))[:-1] + ', "qr": "x"}', "twice"),
    "a round as a string": (
        lambda log: _json_with(log, ("game", "round"), '"4"'),
        "game.round is a string, not an integer",
    ),
    "the cards as an object": (
        lambda log: _json_with(log, ("game", "cards"), "{}"),
        "game.cards is an object, not a list",
    ),
    "a card's position missing": (
        lambda log: json.dumps(_as_made(log)).replace('{"position": ', '{"place": ', 1),
        "no field game.cards[0].position",
    ),
    "the reveal as a list": (
        lambda log: _json_with(log, ("reveal",), "[]"),
        "reveal is a list, not an object or null",
    ),
    "a line break in the table": (
        lambda log: _json_with(log, ("game", "table"), '"BJ-01\\nverified: all"'),
        "U+000A",
    ),
    "half a surrogate pair": (
        lambda log: _json_with(log, ("game", "title"), '"\\ud800"'),
        "U+D800",
    ),
    "another format": (
        lambda log: json.dumps(_as_made(log)).replace("etg-game-receipt/1", "etg-game-receipt/9"),
        "its format is 'etg-game-receipt/9'",
    ),
}


@pytest.mark.parametrize("what", sorted(UNREADABLE))
def test_input_that_is_not_a_receipt_is_unreadable_in_one_sentence(
    log: Path, tmp_path: Path, what: str
) -> None:
    """Deep nesting, NaN or Infinity, non-object JSON, a field of the wrong type: both
    commands exit 2 with one line on stderr naming the file and what is wrong, never a
    traceback, and print nothing else."""
    make, words = UNREADABLE[what]
    data = make(log)
    path = tmp_path / "receipt.json"
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    for name, done in _verifiers(path).items():
        assert done.returncode == 2, (name, done.stdout, done.stderr[-2000:])
        assert "Traceback" not in done.stderr, (name, done.stderr[-2000:])
        assert done.stdout == "", (name, done.stdout)
        (line,) = done.stderr.splitlines()
        assert f"cannot read the receipt {path}: " in line and words in line, (name, line)
