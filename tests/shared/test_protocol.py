"""The wire protocol: every command's arguments survive the AMP encoding, and malformed input
is refused with a declared error, never a crash (Hypothesis fuzzes the decoding)."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from twisted.protocols import amp

from shared.protocol import (
    DOMAIN_ERRORS,
    OPERATOR_COMMANDS,
    PROTOCOL_VERSION,
    TERMINAL_COMMANDS,
    Act,
    BadRequest,
    Hello,
    Json,
    PlaceWagers,
    VersionMismatch,
    check_request_id,
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
    """A box with random keys and values either parses as Act or fails with a KeyError or
    ValueError that the protocol turns into a declared error; it never crashes otherwise."""
    box = amp.AmpBox(fields)
    with contextlib.suppress(KeyError, ValueError, BadRequest):
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
