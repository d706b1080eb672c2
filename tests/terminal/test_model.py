"""The terminal's model (terminal_client.model): views read into frozen data, totals from
the cards' text, credits only from the server, intents awaiting answers, connection states."""

from __future__ import annotations

import dataclasses

import pytest
from client_helpers import playing_view, sample_view

from terminal_client.model import (
    ConnectionState,
    Intent,
    IntentKind,
    TerminalModel,
    format_total,
    hand_total,
    parse_view,
    phase_name,
)


def connected() -> TerminalModel:
    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    model.apply_view(sample_view())
    return model


def wagers(request_id: str = "r1", stake: int = 2_500) -> Intent:
    return Intent.make(IntentKind.PLACE_WAGERS, request_id, wagers={"blackjack": stake})


# --------------------------------------------------------------------------------------------
# Totals


@pytest.mark.parametrize(
    ("cards", "text"),
    [
        (["AS", "6H"], "7/17"),
        (["AS", "KD"], "21"),
        (["AS", "AH"], "2/12"),
        (["AS", "6H", "9C"], "16"),
        (["AS", "AH", "9C"], "21"),
        (["AS", "2H", "3C", "4D"], "10/20"),
        (["TS", "7H"], "17"),
        (["KS", "QH", "5C"], "BUST"),  # over 21: the hand is bust
        (["10S", "AD"], "21"),
        ([], "0"),
    ],
)
def test_totals_read_soft_as_both_counts(cards: list[str], text: str) -> None:
    """A soft total under 21 reads as both counts ("7/17"); hard totals and 21 read as one."""
    assert hand_total(cards).text == text


def test_hidden_cards_do_not_count() -> None:
    """A face-down card is skipped: the dealer's shown total is that of the up card."""
    assert hand_total(["AS", {"hidden": True}]).text == "1/11"
    assert format_total(21, True) == "21"


# --------------------------------------------------------------------------------------------
# Views


def test_a_view_is_applied_and_read_back() -> None:
    """After a view, the model shows its credits, seat, hands, turn, actions and countdown."""
    model = connected()
    model.apply_view(playing_view())
    assert model.credits == 97_500
    assert model.seat_number == 1
    assert model.my_seat is not None and model.my_seat.wagers == {"blackjack": 2_500}
    (hand,) = model.my_hands
    assert (hand.cards, hand.total, hand.soft, hand.total_text) == (("AS", "6H"), 17, True, "7/17")
    assert model.my_turn and model.hand_to_act == 0
    assert model.legal_actions == {"hit", "stand", "double"}
    countdown = model.countdown
    assert countdown is not None
    assert (countdown.kind, countdown.seconds_left, countdown.then) == ("decision", 12, "stand")
    assert model.view is not None
    assert model.view.dealer.cards == ("TD", None)
    assert model.view.dealer.total_text == "10"
    assert model.phase == "playing" and model.phase_name == "Play"


def test_another_seats_turn_is_not_mine() -> None:
    """When another seat is to act the terminal has no turn and no legal actions."""
    model = connected()
    model.apply_view(playing_view(to_act={"seat": 2, "hand": 0}, actions=[]))
    assert not model.my_turn
    assert model.hand_to_act is None
    assert model.legal_actions == frozenset()


def test_limits_chips_insurance_and_results_come_from_the_view() -> None:
    """Limits, chips, the insurance offer, this round's settlements and recent rounds are
    read from the view as the server sent them."""
    settlement = {
        "wager": "blackjack",
        "hand": 0,
        "stake": 2_500,
        "paid": 5_000,
        "outcome": "win",
        "line": "Blackjack 1:1",
    }
    model = connected()
    model.apply_view(
        playing_view(
            phase="complete",
            insurance={"can_insure": True, "max": 1_250, "can_take_even_money": False},
            settlements=[settlement],
            recent=[
                {
                    "round": 6,
                    "dealer": ["TD", "7C"],
                    "dealer_total": 17,
                    "settlements": [settlement],
                    "net": 2_500,
                }
            ],
        )
    )
    assert model.limits["blackjack"].minimum == 500
    assert model.limits["blackjack"].maximum == 50_000
    assert model.chips == (100, 500, 2_500, 10_000)
    offer = model.insurance
    assert offer is not None and offer.can_insure and offer.maximum == 1_250
    (result,) = model.results
    assert (result.outcome, result.net) == ("win", 2_500)
    (recent,) = model.recent
    assert (recent.round, recent.dealer_total, recent.net) == (6, 17, 2_500)
    assert model.phase_name == "Results"


def test_exposed_data_is_frozen() -> None:
    """What the model exposes cannot be changed by the screens."""
    model = connected()
    model.apply_view(playing_view())
    view = model.view
    assert view is not None
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.credits = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        view.seats[0].wagers["blackjack"] = 1  # type: ignore[index]


def test_credits_come_only_from_views() -> None:
    """Sending a wager changes no credits; the answer's view sets them (the server's number)."""
    model = connected()
    assert model.credits == 100_000
    assert model.apply_sent(wagers())
    assert model.credits == 100_000
    model.apply_error("BET_OUT_OF_LIMITS", "too high", "r1")
    assert model.credits == 100_000
    assert model.apply_sent(wagers("r2"))
    model.apply_answer("r2", sample_view(credits=97_500))
    assert model.credits == 97_500


def test_no_view_yet_means_nothing_to_show() -> None:
    """Before the first view the model has no credits, hands, actions or results."""
    model = TerminalModel()
    assert model.credits is None
    assert model.my_hands == ()
    assert not model.my_turn
    assert model.legal_actions == frozenset()
    assert model.results == () and model.recent == ()
    assert model.phase_name == "Waiting for the next round"
    assert model.connection.state is ConnectionState.CONNECTING


def test_a_view_of_another_version_means_the_terminal_needs_an_update() -> None:
    """A view with another "v" leaves the last view in place and puts the terminal in the
    needs-update state, which no later connection change undoes."""
    model = connected()
    model.apply_view({"v": 2, "credits": 1})
    assert model.needs_update
    assert model.connection.state is ConnectionState.NEEDS_UPDATE
    assert "this terminal needs an update" in model.connection.message
    assert model.credits == 100_000
    model.apply_connection(ConnectionState.CONNECTED)
    assert model.needs_update


def test_a_version_mismatch_error_means_the_terminal_needs_an_update() -> None:
    """The server's VERSION_MISMATCH refusal sets the needs-update state with its sentence."""
    model = TerminalModel()
    model.apply_error("VERSION_MISMATCH", "the server speaks protocol 2")
    assert model.connection.state is ConnectionState.NEEDS_UPDATE
    assert "the server speaks protocol 2" in model.connection.message


def test_a_malformed_view_is_an_error_and_the_last_view_stays() -> None:
    """A view missing a field is shown as an error; the last good view stays."""
    model = connected()
    broken = sample_view(credits=5)
    del broken["dealer"]
    model.apply_view(broken)
    assert model.credits == 100_000
    assert model.last_error is not None and model.last_error.code == "MALFORMED_VIEW"


def test_parse_view_refuses_floats_for_cents() -> None:
    """Money is integer cents: a view with a non-integer amount is malformed."""
    from terminal_client.model.view import MalformedView

    with pytest.raises(MalformedView):
        parse_view(sample_view(credits="100"))


# --------------------------------------------------------------------------------------------
# Intents and errors


def test_a_second_intent_of_the_same_kind_waits_for_the_first() -> None:
    """While a wager awaits its answer the button shows waiting and a second press is
    refused; another kind of intent may still go; the answer frees the kind."""
    model = connected()
    assert model.apply_sent(wagers("r1"))
    assert model.is_waiting(IntentKind.PLACE_WAGERS)
    assert not model.apply_sent(wagers("r2"))
    assert model.apply_sent(Intent.make(IntentKind.CASH_OUT, "r3"))
    assert [i.request_id for i in model.pending] == ["r1", "r3"]
    model.apply_answer("r1", sample_view())
    assert not model.is_waiting(IntentKind.PLACE_WAGERS)
    assert model.apply_sent(wagers("r4"))


def test_no_intent_is_recorded_while_offline() -> None:
    """An intent while the terminal is not connected is refused (nothing pending)."""
    model = TerminalModel()
    assert not model.apply_sent(wagers())
    assert model.pending == ()


def test_a_declared_error_is_shown_with_the_servers_sentence() -> None:
    """A refusal is kept with its code and sentence, frees its intent, and each new one has
    a larger serial; the next answered intent clears it."""
    model = connected()
    model.apply_sent(wagers("r1"))
    model.apply_error("BET_OUT_OF_LIMITS", "the maximum blackjack wager is 500.00", "r1")
    error = model.last_error
    assert error is not None
    assert (error.code, error.message, error.request_id) == (
        "BET_OUT_OF_LIMITS",
        "the maximum blackjack wager is 500.00",
        "r1",
    )
    assert model.pending == ()
    model.apply_error("RATE_LIMITED", "slow down")
    assert model.last_error is not None and model.last_error.serial == error.serial + 1
    model.apply_sent(wagers("r2"))
    model.apply_answer("r2", sample_view())
    assert model.last_error is None


# --------------------------------------------------------------------------------------------
# Connection


def test_a_lost_connection_counts_down_to_its_retry() -> None:
    """A lost connection shows whole seconds until the next attempt, rounded up."""
    model = connected()
    model.apply_connection(ConnectionState.LOST, "the connection was lost")
    model.apply_retry_at(102.2)
    assert model.connection.state is ConnectionState.LOST
    assert model.connection.retry_in(100.0) == 3
    assert model.connection.retry_in(200.0) == 0
    model.apply_connection(ConnectionState.CONNECTED)
    assert model.connection.retry_in(100.0) is None


def test_phase_names_cover_the_table_states() -> None:
    """A table that is not open is named by its state, whatever the phase."""
    model = connected()
    model.apply_view(sample_view(state="out-of-service"))
    assert model.phase_name == "Out of service"
    assert phase_name("betting") == "Place your bets"
    assert phase_name("something-new") == "Something new"
