"""The wire protocol: every command's arguments survive the AMP encoding, and malformed input
is refused with a declared error, never a crash (Hypothesis fuzzes the decoding)."""

from __future__ import annotations

import contextlib
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from twisted.protocols import amp

from shared.protocol import (
    DOMAIN_ERRORS,
    MAX_INTEGER_DIGITS,
    MAX_JSON_DEPTH,
    MAX_JSON_PIECES,
    OPERATOR_COMMANDS,
    PROTOCOL_VERSION,
    TERMINAL_COMMANDS,
    Act,
    BadRequest,
    Hello,
    Json,
    PlaceWagers,
    ReadMeters,
    VersionMismatch,
    check_request_id,
    json_text,
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=20,
)


@given(
    st.dictionaries(st.text(min_size=1, max_size=12), st.integers(0, 10**9), max_size=6),
    st.none() | st.integers(1, 3),
)
def test_place_wagers_round_trip(wagers: dict[str, int], position: int | None) -> None:
    """PlaceWagers' arguments encode to an AMP box and decode to the same values; the
    three-position table's ``position`` (633b.5(l)) is optional and absent means None."""
    arguments: dict[str, Any] = {"request_id": "r-1", "wagers": wagers}
    if position is not None:
        arguments["position"] = position
    box = PlaceWagers.makeArguments(arguments, None)
    assert (b"position" in box) is (position is not None)
    assert PlaceWagers.parseArguments(box, None) == {
        "request_id": "r-1",
        "wagers": wagers,
        "position": position,
    }


@given(json_values)
def test_json_argument_round_trip(value: Any) -> None:
    """Any JSON value without floats survives the Json argument."""
    arg = Json()
    assert arg.fromString(arg.toString(value)) == value


@given(st.binary(max_size=200))
def test_json_argument_refuses_garbage_with_a_declared_error(data: bytes) -> None:
    """Random bytes either decode to JSON or raise BadRequest, never anything else."""
    with contextlib.suppress(BadRequest):
        Json().fromString(data)


def test_json_refuses_floats_and_oversized_values() -> None:
    """Money is integer cents: a float is refused; a value over AMP's 64 KiB limit too."""
    with pytest.raises(BadRequest, match="integers only"):
        Json().fromString(b'{"blackjack": 25.5}')
    with pytest.raises(BadRequest, match="over the AMP limit"):
        Json().toString({"x": "a" * 70_000})


@given(st.dictionaries(st.binary(min_size=1, max_size=10), st.binary(max_size=50), max_size=6))
def test_act_decoding_of_random_boxes_fails_cleanly(fields: dict[bytes, bytes]) -> None:
    """A box with random keys and values either parses as Act, lacks an argument (KeyError:
    a malformed box, which drops the connection) or is BadRequest, a declared error; never
    a ValueError (an internal error)."""
    box = amp.AmpBox(fields)
    with contextlib.suppress(KeyError, BadRequest):
        Act.parseArguments(box, None)


def test_every_command_declares_the_domain_errors() -> None:
    """Each command answers with the declared domain errors; Hello also with VersionMismatch."""
    everything = set(DOMAIN_ERRORS)
    for command in {*TERMINAL_COMMANDS, *OPERATOR_COMMANDS}:
        assert set(command.allErrors) >= everything - {VersionMismatch}, command
    assert set(Hello.allErrors) >= everything
    assert PROTOCOL_VERSION == 2


@pytest.mark.parametrize("bad", ["", "x" * 65, "caf\u00e9", "a\nb"])
def test_request_ids_are_checked(bad: str) -> None:
    """A request id is 1 to 64 printable ASCII characters."""
    with pytest.raises(BadRequest, match="request id"):
        check_request_id(bad)
    assert check_request_id("9f1c-2b") == "9f1c-2b"


@pytest.mark.parametrize(
    ("data", "sentence"),
    [
        (b'{"blackjack":500,"blackjack":100000}', 'the key "blackjack" is given twice'),
        (b'{"a":{"b":1,"b":1}}', 'the key "b" is given twice'),
        (b'{"blackjack":' + b"9" * 5000 + b"}", "an integer of 5,000 digits"),
        (b"[" * 15000 + b"]" * 15000, f"nested more than {MAX_JSON_DEPTH} deep"),
        (b"[" * 15000, f"nested more than {MAX_JSON_DEPTH} deep"),
        (b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1), "nested more than"),
    ],
    ids=["duplicate", "nested-duplicate", "5000-digits", "nested-15000", "unclosed", "depth+1"],
)
def test_json_refuses_repeated_keys_huge_integers_and_deep_nesting(
    data: bytes, sentence: str
) -> None:
    """A repeated key is refused (not read as its last value), and so are an integer over
    MAX_INTEGER_DIGITS digits and nesting over MAX_JSON_DEPTH, each as BadRequest with a
    sentence (issue 13, item 9)."""
    with pytest.raises(BadRequest, match=re.escape(sentence)):
        Json().fromString(data)


def test_json_takes_the_largest_allowed_values() -> None:
    """The limits are inclusive: 18 digits and MAX_JSON_DEPTH levels are read."""
    largest = "9" * MAX_INTEGER_DIGITS
    assert Json().fromString(f'{{"a":-{largest}}}'.encode()) == {"a": -int(largest)}
    deepest = b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH
    value = Json().fromString(deepest)
    for _ in range(MAX_JSON_DEPTH - 1):
        value = value[0]
    assert value == []


def _depth(value: Any) -> int:
    """How deep ``value`` nests, counted the plain recursive way (the definition)."""
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _nested(depth: int, branches: list[int]) -> Any:
    """A value ``depth`` deep, alternating objects and lists, with leaves and empty
    containers beside the deepest path (so that a wrong count of a level shows)."""
    value: Any = []
    for level in range(depth - 1):
        side = branches[level % len(branches)]
        if level % 2:
            value = {"deep": value, "leaf": side, "empty": {} if side % 2 else []}
        else:
            value = [side, value, [] if side % 3 else {"x": side}]
    return value


@pytest.mark.parametrize("branches", [[0], [1, 2], [3, 4, 5, 6, 7, 8, 9]])
@pytest.mark.parametrize("depth", range(1, 41))
def test_the_depth_limit_counts_as_the_recursive_definition(
    depth: int, branches: list[int]
) -> None:
    """Json reads a value as deep as MAX_JSON_DEPTH and refuses one level more, whichever way
    objects, lists, leaves and empty containers mix on the way down."""
    value = _nested(depth, branches)
    data = json_text(value).encode()
    if _depth(value) <= MAX_JSON_DEPTH:
        assert Json().fromString(data) == value
    else:
        with pytest.raises(BadRequest, match=f"nested more than {MAX_JSON_DEPTH} deep"):
            Json().fromString(data)


@pytest.mark.parametrize(
    ("value", "sentence"),
    [
        (b"9" * (MAX_INTEGER_DIGITS + 1), "an integer of 19 digits"),
        (b"1e3", "is not an integer"),
        (b" 12", "is not an integer"),
        (b"", "is not an integer"),
    ],
)
def test_integer_arguments_are_bounded(value: bytes, sentence: str) -> None:
    """An integer argument has at most MAX_INTEGER_DIGITS digits and nothing else; the
    refusal names the argument."""
    box = amp.AmpBox({b"request_id": b"r", b"action": b"hit", b"hand": value, b"amount": b"0"})
    with pytest.raises(BadRequest, match="^hand: .*" + re.escape(sentence)):
        Act.parseArguments(box, None)
    box[b"hand"] = b"-" + b"9" * MAX_INTEGER_DIGITS
    assert Act.parseArguments(box, None)["hand"] == -int("9" * MAX_INTEGER_DIGITS)


def _meters_box(meters: Any) -> amp.AmpBox:
    box = amp.AmpBox()
    ReadMeters.response[0][1].toBox(b"meters", box, {"meters": meters}, None)
    return box


@pytest.mark.parametrize("wallets", [3, 9_000])
def test_the_operators_meters_may_be_larger_than_one_amp_value(wallets: int) -> None:
    """ReadMeters of a server with many tables (about 150 KB at 150 tables) goes out cut
    into AMP values under meters, meters.2, ... and is read back whole; a small answer is
    the one value Json sends."""
    meters = {"wallets": {f"terminal-{i:05}": 1_000_000 + i for i in range(wallets)}}
    box = _meters_box(meters)
    assert all(len(value) <= amp.MAX_VALUE_LENGTH for value in box.values())
    assert (len(box) > 1) is (wallets > 3)
    assert b"".join(box.values()) == json_text(meters).encode("utf-8")
    assert ReadMeters.parseResponse(box, None) == {"meters": meters}


def test_a_meters_answer_over_its_pieces_is_refused_both_ways() -> None:
    """Over MAX_JSON_PIECES values the server refuses to send it and a client to read it."""
    huge = {"blob": "x" * (amp.MAX_VALUE_LENGTH * MAX_JSON_PIECES)}
    with pytest.raises(BadRequest, match="over 16 AMP values"):
        _meters_box(huge)
    box = amp.AmpBox({b"meters": b"[" + b"0," * 10})
    for piece in range(2, MAX_JSON_PIECES + 2):
        box[b"meters.%d" % piece] = b"0,"
    with pytest.raises(BadRequest, match="meters: over 16 AMP values"):
        ReadMeters.parseResponse(box, None)
