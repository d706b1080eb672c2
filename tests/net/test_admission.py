"""The caps before Hello per address and in total, and the refusals logged once a minute per
address (:mod:`game_server.net.admission`)."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from game_server.net.admission import REFUSALS_LOGGED_EVERY, RefusalLog, Refusals, Waiting
from game_server.net.floor import NetLimits

LIMITS = NetLimits(unauthenticated_connections=5, unauthenticated_per_address=2)


def test_one_address_holds_at_most_its_cap_and_the_others_still_get_in() -> None:
    """With 2 per address and 5 in all, a third connection of one address is refused with a
    sentence naming unauthenticated_per_address, while other addresses are held up to the
    total, which is then refused naming unauthenticated_connections."""
    waiting: Waiting[str] = Waiting(LIMITS)
    assert waiting.add("a1", "10.0.0.9") is None
    assert waiting.add("a2", "10.0.0.9") is None
    refused = waiting.add("a3", "10.0.0.9")
    assert refused == (
        "10.0.0.9 already holds 2 connections that have not said Hello, the most "
        "[floor.limits] unauthenticated_per_address allows"
    )
    assert "a3" not in waiting and waiting.from_address("10.0.0.9") == 2
    for n, address in enumerate(["10.0.0.1", "10.0.0.2", "10.0.0.3"]):
        assert waiting.add(f"b{n}", address) is None
    assert waiting.add("c", "10.0.0.4") == (
        "5 connections have not said Hello yet, the most [floor.limits] "
        "unauthenticated_connections allows"
    )
    assert len(waiting) == 5


def test_a_connection_that_leaves_frees_its_addresss_place() -> None:
    """A connection that says Hello (or closes) is no longer counted against its address;
    discarding one that is not held changes nothing."""
    waiting: Waiting[str] = Waiting(LIMITS)
    waiting.add("a1", "10.0.0.9")
    waiting.add("a2", "10.0.0.9")
    waiting.discard("a1")
    waiting.discard("never held")
    assert waiting.refusal("10.0.0.9") is None
    waiting.discard("a2")
    assert waiting.from_address("10.0.0.9") == 0 and len(waiting) == 0
    assert list(waiting) == []


def test_adding_a_held_connection_again_counts_it_once() -> None:
    """A connection already held is not counted a second time against its address."""
    waiting: Waiting[str] = Waiting(LIMITS)
    waiting.add("a1", "10.0.0.9")
    assert waiting.add("a1", "10.0.0.9") is None
    assert waiting.from_address("10.0.0.9") == 1


def test_a_full_total_is_refused_with_its_own_sentence_even_for_an_address_at_its_cap() -> None:
    """When the total is full, the refusal says so (the sentence it always had), whatever
    the address holds."""
    waiting: Waiting[str] = Waiting(LIMITS)
    for n, address in enumerate(["10.0.0.9", "10.0.0.9", "10.0.0.1", "10.0.0.2", "10.0.0.3"]):
        waiting.add(f"c{n}", address)
    assert waiting.refusal("10.0.0.9") == waiting.refusal("10.0.0.4")
    assert "5 connections have not said Hello yet" in str(waiting.refusal("10.0.0.9"))


def test_the_front_holds_for_its_workers_together_what_each_would_hold() -> None:
    """The front of 3 workers holds 15 connections waiting for their ClientHello in all, 6
    of them from one address (the operator's console opens one per worker at once)."""
    waiting: Waiting[int] = Waiting(LIMITS, "sent their ClientHello", workers=3)
    assert (waiting.total, waiting.per_address) == (15, 6)
    for n in range(6):
        assert waiting.add(n, "10.0.0.9") is None
    assert waiting.refusal("10.0.0.9") == (
        "10.0.0.9 already holds 6 connections that have not sent their ClientHello, the most "
        "[floor.limits] unauthenticated_per_address allows (3 workers together)"
    )
    for n in range(9):
        assert waiting.add(10 + n, f"10.0.1.{n}") is None
    assert waiting.refusal("10.0.2.1") == (
        "15 connections have not sent their ClientHello yet, the most [floor.limits] "
        "unauthenticated_connections allows (3 workers together)"
    )


# --------------------------------------------------------------------------------------------
# Refusals logged once a minute per address


def test_the_first_refusal_of_an_address_is_logged_and_the_rest_counted_for_a_minute() -> None:
    """A flood from one address gives one line at once and one line a minute after with how
    many more were refused; another address gets its own first line at once."""
    log = RefusalLog()
    assert log.refused("10.0.0.9", "over", now=100.0)
    assert not any(log.refused("10.0.0.9", "over again", now=100.0 + t) for t in range(1, 60))
    assert log.refused("10.0.0.7", "over", now=130.0)
    assert log.due(159.0) == []
    assert log.next_due() == 160.0
    assert log.due(160.5) == [Refusals("10.0.0.9", 59, 60.5, "over again")]
    assert log.due(190.0) == [], "10.0.0.7 refused nothing more: forgotten, no line"
    assert not log.refused("10.0.0.9", "still", now=200.0), "counted: its last line was at 160.5"
    assert log.due(220.5) == [Refusals("10.0.0.9", 1, 60.0, "still")]
    assert log.refused("10.0.0.7", "back", now=221.0), "forgotten: logged at once"


def test_each_kind_of_refusal_of_an_address_is_logged_at_once() -> None:
    """A handshake without a certificate and then one with another CA's certificate from the
    same address are two lines at once (an investigator sees each kind); a second of a kind
    within the minute is counted."""
    log = RefusalLog()
    assert log.refused("10.0.0.9", "no-certificate", now=0.0, kind="no-certificate")
    assert log.refused("10.0.0.9", "unknown-ca", now=1.0, kind="unknown-ca")
    assert not log.refused("10.0.0.9", "unknown-ca again", now=2.0, kind="unknown-ca")
    assert log.due(61.0) == [Refusals("10.0.0.9", 1, 60.0, "unknown-ca again")]


def test_an_address_that_stopped_is_forgotten_and_logged_at_once_when_it_comes_back() -> None:
    """An address refused once and then quiet for a minute is forgotten (nothing is left
    to do for it), and its next refusal is logged at once."""
    log = RefusalLog()
    assert log.refused("10.0.0.9", "over", now=0.0)
    assert log.due(60.0) == []
    assert log.next_due() is None
    assert log.refused("10.0.0.9", "over", now=61.0)


def test_a_minute_passed_without_a_due_call_logs_the_next_refusal_at_once() -> None:
    """The front calls due() at every turn, but a refusal may come first: the address had
    nothing counted and its minute passed, so the refusal is logged."""
    log = RefusalLog()
    assert log.refused("10.0.0.9", "over", now=0.0)
    assert log.refused("10.0.0.9", "over", now=60.0)


@given(
    st.lists(
        st.tuples(
            st.integers(0, 80).map(lambda quarters: quarters / 4),  # exact in binary
            st.sampled_from(["10.0.0.1", "10.0.0.2", "10.0.0.3"]),
            st.booleans(),
        ),
        max_size=200,
    )
)
def test_lines_of_an_address_are_a_minute_apart_and_count_every_refusal(
    steps: list[tuple[float, str, bool]],
) -> None:
    """Over any sequence of refusals (and calls of due() between them, as a timer or the
    front's loop makes), two lines about one address are at least a minute apart, and the
    lines of an address, once every minute has passed, count each of its refusals once."""
    log = RefusalLog()
    now = 0.0
    lines: dict[str, list[tuple[float, int]]] = {}
    refusals: dict[str, int] = {}
    for pause, address, call_due in steps:
        now += pause
        if call_due:
            for line in log.due(now):
                lines.setdefault(line.address, []).append((now, line.count))
        refusals[address] = refusals.get(address, 0) + 1
        if log.refused(address, "why", now):
            lines.setdefault(address, []).append((now, 1))
    for line in log.due(now + REFUSALS_LOGGED_EVERY):
        lines.setdefault(line.address, []).append((now + REFUSALS_LOGGED_EVERY, line.count))
    for address, counted in refusals.items():
        times = [at for at, _ in lines[address]]
        assert all(b - a >= REFUSALS_LOGGED_EVERY for a, b in pairwise(times))
        assert sum(count for _, count in lines[address]) == counted
