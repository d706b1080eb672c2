"""The no-hole-card hybrid Blackjack engine, 58 Pa. Code 633b.5(w)-(ee), and its Royal Match 21,
Bet the Set and King's Bounty wagers.

Shoes are stacked: card 0 is every player's first card, card 1 the dealer's up card, card 2
every player's second card, then the community cards in order.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import (
    BLACKJACK,
    DEALER,
    DOUBLE,
    INSURANCE,
    LOST,
    PUSHED,
    SURRENDERED,
    CardDealt,
    Decision,
    RoundCompleted,
    WagerPlaced,
    WagerSettled,
)
from game_server.games.blackjack.rules.rules import BlackjackRules, CountdownDefault
from game_server.games.hybrid.rules.no_hole_card import (
    ALL_PLAYERS,
    COMMUNITY,
    CardDesignated,
    DealerHandCompleted,
    NoHoleCardRound,
    Phase,
    Status,
    replay,
)
from game_server.rng.shoe import StackedShoe
from game_server.rules.errors import (
    ActionNotAllowed,
    BetOutOfLimits,
    NotYourTurn,
    ReplayMismatch,
    WagerNotOffered,
    WrongPhase,
)
from game_server.rules.events import from_dict, to_dict
from game_server.rules.limits import WagerLimits
from game_server.rules.wagers import hybrid_side_wagers as hsw
from game_server.rules.wagers.base import SideWagerOffer, context
from shared.cards import CARDS, parse_cards

LIMITS = WagerLimits(100, 100_000, 100)
CROWN_TABLE = hsw.ROYAL_MATCH_21.paytable_from_lines(  # type: ignore[misc]
    "PA test",
    {"Crown Treasure Bonus": "100 to 1", "Royal Match": "25 to 1", "easy match": "5 to 2"},
)


def offers(royal: Any = None) -> tuple[SideWagerOffer, ...]:
    return (
        SideWagerOffer(hsw.ROYAL_MATCH_21, royal or hsw.ROYAL_MATCH_PAYTABLES["Version 1"], LIMITS),
        SideWagerOffer(hsw.BET_THE_SET, hsw.BET_THE_SET_PAYTABLES["15-10"], LIMITS),
        SideWagerOffer(hsw.KINGS_BOUNTY, hsw.KINGS_BOUNTY_PAYTABLES["Six Decks"], LIMITS),
    )


RULES = BlackjackRules(late_surrender=True, side_wagers=offers())
CROWN_RULES = BlackjackRules(late_surrender=True, side_wagers=offers(CROWN_TABLE))


def start(
    cards: str, players: dict[int, dict[str, int]], rules: BlackjackRules = RULES
) -> tuple[NoHoleCardRound, list[Any]]:
    game = NoHoleCardRound(rules)
    log: list[Any] = []
    for seat, wagers in players.items():
        log += game.join(seat, wagers)
    log += game.deal(StackedShoe(cards))
    return game, log


def settled(log: list[Any], seat: int, wager: str = BLACKJACK, hand: int = 0) -> WagerSettled:
    found = [
        e
        for e in log
        if type(e) is WagerSettled and e.seat == seat and e.wager == wager and e.hand == hand
    ]
    assert len(found) == 1, found
    return found[0]


def dealer_of(log: list[Any], seat: int) -> tuple[str, ...]:
    done = [e for e in log if type(e) is DealerHandCompleted and e.seat == seat]
    assert len(done) == 1
    return tuple(str(c) for c in done[0].dealer_cards)


def bet(amount: int = 1000, **side: int) -> dict[str, int]:
    return {BLACKJACK: amount, **side}


# --------------------------------------------------------------------------------- (x)


def test_x_blackjack_wager_required() -> None:
    """633b.5(x): a player takes part only with a Blackjack wager; a side wager alone is
    refused, naming (x)."""
    game = NoHoleCardRound(RULES)
    with pytest.raises(WagerNotOffered, match=r"633b\.5\(x\)"):
        game.join(1, {"bet_the_set": 500})


def test_x_only_the_three_side_wagers() -> None:
    """633b.5(x): only Royal Match 21, Bet the Set and King's Bounty are offered besides the
    Blackjack wager, and only where the Rules Submission offers them."""
    game = NoHoleCardRound(RULES)
    with pytest.raises(WagerNotOffered, match=r"633b\.5\(x\)"):
        game.join(1, {BLACKJACK: 1000, "three_card_poker": 500})
    bare = NoHoleCardRound(BlackjackRules())
    with pytest.raises(WagerNotOffered, match="Rules Submission"):
        bare.join(1, {BLACKJACK: 1000, "kings_bounty": 500})
    with pytest.raises(BetOutOfLimits):
        game.join(1, {BLACKJACK: 50})


def test_no_wager_after_the_deal() -> None:
    """633b.5(k): wagers are placed before the first card; after the deal they are refused."""
    game, _ = start("TS 6H 7D 5C 9H 8D 2C 2D", {1: bet()})
    with pytest.raises(WrongPhase, match="no more bets"):
        game.join(2, bet())
    assert not game.can_join(2, bet())


# --------------------------------------------------------------------------------- (y)


def test_y_one_set_of_cards_for_all_players() -> None:
    """633b.5(y)(1)-(3): card 1 is every player's first card, card 2 the dealer's first card,
    card 3 every player's second card."""
    game, log = start("TS 6H 7D 5C 9H 8D 2C 2D", {1: bet(), 2: bet(), 3: bet()})
    dealt = [e for e in log if type(e) is CardDealt]
    assert [(e.seat, str(e.card), e.position) for e in dealt[:3]] == [
        (ALL_PLAYERS, "TS", 0),
        (DEALER, "6H", 1),
        (ALL_PLAYERS, "7D", 2),
    ]
    for seat in (1, 2, 3):
        assert game.hands(seat) == (parse_cards("TS 7D"),)
        assert game.dealer_cards(seat) == parse_cards("6H")
    assert game.pending() == (1, 2, 3)
    assert not [e for e in log if type(e) is CardDealt and e.seat == COMMUNITY]


def test_y4_community_card_waits_for_every_decision() -> None:
    """633b.5(y)(4), (aa): a community card is dealt only after every player's decision is
    in, whatever order they come in (stadium), so nobody sees a card before deciding."""
    game, _ = start("TS 6H 7D 5C 9H 8D 2C 2D", {1: bet(), 2: bet()})
    out = game.act(2, Action.HIT, 0)
    assert out == [Decision(2, 0, "hit", 0, False)]
    assert game.community == []
    out = game.act(1, Action.STAND, 0)
    # 5C busts player 2 (22) and is player 1's hole card (11); 9H is for player 1 alone.
    assert [str(e.card) for e in out if type(e) is CardDealt] == ["5C", "9H"]
    assert CardDesignated(1, "dealer", 1, parse_cards("5C")[0], 3) in out
    assert CardDesignated(2, "hand", 0, parse_cards("5C")[0], 3) in out


def test_players_making_different_choices_face_different_dealer_hands() -> None:
    """633b.5(y)(4), (aa)(2)-(3), (bb): on the same cards, a player who stands gets the next
    card as the dealer's hole card while one who hits takes it; their dealer hands differ
    and so do their results."""
    cards = "TS 6H 6D 5C 9H 8D 2C 2D"
    game, log = start(cards, {1: bet(), 2: bet(), 3: bet()})
    game.act(1, Action.STAND, 0)  # 16 stands: 5C is his hole card
    game.act(2, Action.HIT, 0)  # 16 + 5C = 21, done: 9H is his hole card
    log += game.act(3, Action.DOUBLE, 0)  # 16 + 5C = 21 doubled: same as 2, twice the money
    assert game.phase is Phase.COMPLETE
    assert dealer_of(log, 1) == ("6H", "5C", "9H")  # 20
    assert dealer_of(log, 2) == ("6H", "9H", "8D")  # 23
    assert dealer_of(log, 3) == dealer_of(log, 2)
    assert game.dealer_cards(1) != game.dealer_cards(2)
    assert settled(log, 1).outcome == LOST
    assert settled(log, 2).paid == 2000
    assert settled(log, 3, DOUBLE).paid == 2000
    view = game.view(1)
    assert view.designations == ((3, "dealer", 1), (4, "dealer", 2))
    assert game.view(2).designations == ((3, "hand", 0), (4, "dealer", 1), (5, "dealer", 2))
    assert view.community == tuple((p, c) for p, c in game.community)


# --------------------------------------------------------------------------------- (z)


def test_z_insurance_offered_on_an_ace_and_answered_first() -> None:
    """633b.5(z), (aa)(2)(i), (ee)(1): on a dealer ace each player answers the insurance offer
    before deciding; a hole card giving the dealer Blackjack pays it 2 to 1 and collects the
    Blackjack wager."""
    game, log = start("TS AH 7D KC 9H", {1: bet(), 2: bet()})
    assert game.pending_insurance(1) and game.can_insure(1)
    with pytest.raises(WrongPhase, match="insurance"):
        game.act(1, Action.STAND, 0)
    log += game.insure(1, 500)
    log += game.decline_insurance(2)
    log += game.act(1, Action.STAND, 0)
    log += game.act(2, Action.STAND, 0)
    assert settled(log, 1, INSURANCE).paid == 1500
    assert settled(log, 1).outcome == LOST
    assert settled(log, 2).outcome == LOST
    assert dealer_of(log, 1) == ("AH", "KC")
    assert len(game.community) == 1  # (aa)(2)(i): no further card designated
    other, _ = start("TS AH 7D KC", {1: bet()})
    with pytest.raises(BetOutOfLimits, match="half"):
        other.insure(1, 600)


def test_z_split_for_a_total_of_two_hands() -> None:
    """633b.5(z): pairs may be split for a total of two hands; a second split is refused
    naming (z)."""
    game, log = start("8S 6H 8D 8C 9H 2D TC 7C", {1: bet()})
    log += game.act(1, Action.SPLIT, 0)
    assert game.hands(1) == (parse_cards("8S 8C"), parse_cards("8D"))
    assert not game.can_split(1, 0)
    with pytest.raises(ActionNotAllowed, match=r"two hands.*633b\.5\(z\)"):
        game.act(1, Action.SPLIT, 0)
    log += game.act(1, Action.STAND, 0)  # 16; hand 2 takes 9H
    assert game.hands(1)[1] == parse_cards("8D 9H")
    log += game.act(1, Action.STAND, 1)  # 17; dealer 6H 2D TC = 18
    assert dealer_of(log, 1) == ("6H", "2D", "TC")
    assert settled(log, 1, BLACKJACK, 0).outcome == LOST
    assert settled(log, 1, BLACKJACK, 1).outcome == LOST


def test_z_no_hit_on_21() -> None:
    """633b.5(z): a player having Blackjack or a total of 21 may not draw; the refusal
    names (z)."""
    game, _ = start("AS 6H KD 9C 9H", {1: bet(), 2: bet()})
    with pytest.raises(ActionNotAllowed, match=r"Blackjack.*633b\.5\(z\)"):
        game.act(1, Action.HIT, 0)
    game2, _ = start("5S 6H 6D TC 9H 8D", {1: bet()})
    game2.act(1, Action.HIT, 0)  # 11 + TC = 21
    with pytest.raises(ActionNotAllowed, match=r"21.*633b\.5\(z\)"):
        game2.act(1, Action.HIT, 0)


def test_z_action_on_a_finished_hand_refused() -> None:
    """A decision on a hand that is finished, or not the one due, is refused."""
    game, _ = start("8S 6H 8D 8C 9H 2D TC 7C", {1: bet(), 2: bet()})
    game.act(1, Action.SPLIT, 0)
    with pytest.raises(NotYourTurn):
        game.act(1, Action.STAND, 1)  # waits for its card
    game.act(2, Action.STAND, 0)
    game.act(1, Action.STAND, 0)
    with pytest.raises(ActionNotAllowed, match="finished"):
        game.act(1, Action.HIT, 0)


def test_z_countdown_stands_or_hits_eleven() -> None:
    """633b.5(z): a player who takes no action is deemed to stand, unless the Rules
    Submission selects that an 11 or less hits; an unanswered insurance offer is declined."""
    game, _ = start("5S AH 6D 9C 9H 8D", {1: bet()})
    out = game.countdown(1)
    assert out == [Decision(1, 0, "no-insurance", 0, True)]
    assert game.countdown_action(1) is Action.STAND
    hitting = BlackjackRules(countdown_default=CountdownDefault.HIT_HARD_11_OR_LESS)
    game2, _ = start("5S 7H 6D 9C 9H 8D", {1: bet()}, hitting)
    assert game2.countdown_action(1) is Action.HIT
    out = game2.countdown(1)
    assert out[0] == Decision(1, 0, "hit", 0, True)


def test_z_surrender_returns_half() -> None:
    """633b.5(z), 633a.9: a surrender returns half the Blackjack wager at once; the next card
    is still his dealer's hole card."""
    game, log = start("TS 9H 6D 9C 9H 8D", {1: bet()})
    log += game.act(1, Action.SURRENDER, 0)
    assert settled(log, 1).paid == 500 and settled(log, 1).outcome == SURRENDERED
    assert dealer_of(log, 1) == ("9H", "9C")


# -------------------------------------------------------------------------------- (aa)


def test_aa1i_blackjack_against_dealer_blackjack_pushes() -> None:
    """633b.5(aa)(1)(i): a player Blackjack's next community card is the hole card; a dealer
    Blackjack pushes the wager and pays the insurance 2 to 1."""
    game, log = start("AS AH KD TC 9H", {1: bet()})
    log += game.insure(1, 500)
    assert settled(log, 1).outcome == PUSHED and settled(log, 1).paid == 1000
    assert settled(log, 1, INSURANCE).paid == 1500
    assert dealer_of(log, 1) == ("AH", "TC")


def test_aa1ii_blackjack_paid_3_to_2_insurance_collected() -> None:
    """633b.5(aa)(1)(ii), (ee)(2): a hole card that does not give the dealer Blackjack: the
    player Blackjack is paid 3 to 2 and the insurance collected."""
    game, log = start("AS AH KD 5C 9H", {1: bet()})
    log += game.insure(1, 500)
    assert settled(log, 1).paid == 2500
    assert settled(log, 1, INSURANCE).outcome == LOST
    assert dealer_of(log, 1) == ("AH", "5C")  # nothing left to compare: no more cards


def test_aa2i_stand_into_dealer_blackjack() -> None:
    """633b.5(aa)(2)(i): a player who stands and whose hole card gives the dealer Blackjack
    loses; no more community cards are designated."""
    game, log = start("TS TH 9D AC 9H", {1: bet()})
    log += game.act(1, Action.STAND, 0)
    assert settled(log, 1).line.startswith("Dealer Blackjack")
    assert dealer_of(log, 1) == ("TH", "AC")
    assert len(game.community) == 1


def test_aa2ii_stand_dealer_draws() -> None:
    """633b.5(aa)(2)(ii), (bb)(2): no dealer Blackjack: insurance collected, the dealer draws
    the following community cards to 17-21."""
    game, log = start("TS AH 9D 2C 3H 4D 5S", {1: bet()})
    log += game.insure(1, 500)
    log += game.act(1, Action.STAND, 0)
    assert settled(log, 1, INSURANCE).outcome == LOST
    assert dealer_of(log, 1) == ("AH", "2C", "3H", "4D")  # soft 20
    assert settled(log, 1).outcome == LOST


def test_aa3i_double_takes_one_card_and_bust_is_collected() -> None:
    """633b.5(aa)(3)(i): a double down takes one community card; over 21 the wager is
    collected before any further card; later cards go to the dealer."""
    game, log = start("TS 6H 5D KC 9H 2D", {1: bet()})
    out = game.act(1, Action.DOUBLE, 0)  # 15 + K = 25
    log += out
    bust = [e for e in out if type(e) is WagerSettled]
    assert {e.wager for e in bust} == {BLACKJACK, DOUBLE} and all(e.paid == 0 for e in bust)
    assert out.index(bust[0]) < out.index(
        next(e for e in out if type(e) is CardDesignated and e.target == "dealer")
    )
    assert dealer_of(log, 1) == ("6H", "9H")


def test_aa3i_split_aces_take_one_card_each() -> None:
    """633b.5(aa)(3)(i): split aces are complete after one community card each; no hit."""
    game, log = start("AS 6H AD 9C KH TD 8S", {1: bet()})
    log += game.act(1, Action.SPLIT, 0)
    assert game.hands(1) == (parse_cards("AS 9C"), parse_cards("AD KH"))
    assert game.to_act(1) is None
    assert dealer_of(log, 1) == ("6H", "TD", "8S")  # 24
    assert settled(log, 1, BLACKJACK, 0).paid == 2000
    assert settled(log, 1, BLACKJACK, 1).line.startswith("Win 1 to 1")  # 21, not Blackjack


def test_aa3ii_hit_and_bust_before_hole_card() -> None:
    """633b.5(aa)(3)(ii): a player who hits takes the community cards while he draws; over 21
    before the hole card, the wager is collected at once."""
    game, log = start("TS 6H 3D 2C 9H KD 7S", {1: bet()})
    log += game.act(1, Action.HIT, 0)  # 15
    out = game.act(1, Action.HIT, 0)  # 24
    log += out
    assert WagerSettled(1, 0, BLACKJACK, 1000, 0, LOST, "Bust (633b.5(aa)(3))") in out
    assert dealer_of(log, 1) == ("6H", "KD")


# -------------------------------------------------------------------------------- (bb)


def test_bb1_split_against_dealer_blackjack_returns_the_split_wager() -> None:
    """633b.5(bb)(1): after a split, a dealer Blackjack collects the original wager and
    returns the split wager of a hand that did not exceed 21."""
    game, log = start("8S TH 8D 9C 2H AS", {1: bet()})
    log += game.act(1, Action.SPLIT, 0)
    log += game.act(1, Action.STAND, 0)  # 17
    log += game.act(1, Action.STAND, 1)  # 10
    assert dealer_of(log, 1) == ("TH", "AS")
    assert settled(log, 1, BLACKJACK, 0).outcome == LOST
    assert settled(log, 1, BLACKJACK, 1).outcome == PUSHED
    assert settled(log, 1, BLACKJACK, 1).paid == 1000


def test_bb1_busted_split_hand_is_not_returned() -> None:
    """633b.5(bb)(1): a split hand that exceeded 21 was collected and is not returned."""
    game, log = start("8S TH 8D 9C 7H KD AS", {1: bet()})
    game.act(1, Action.SPLIT, 0)
    game.act(1, Action.STAND, 0)  # 17; hand 2 takes 7H = 15
    out = game.act(1, Action.HIT, 1)  # KD: 25, bust; AS: dealer Blackjack
    log += out
    assert settled(out, 1, BLACKJACK, 1).line.startswith("Bust")
    assert settled(out, 1, BLACKJACK, 0).outcome == LOST


def test_bb2_dealer_stands_on_soft_17() -> None:
    """633b.5(bb)(2): the dealer draws to 17-21 and stands on a soft 17."""
    game, log = start("TS AH 8D 6C 5H", {1: bet()})
    game.decline_insurance(1)
    log += game.act(1, Action.STAND, 0)
    assert dealer_of(log, 1) == ("AH", "6C")
    assert settled(log, 1).paid == 2000


# -------------------------------------------------------------------------------- (cc)


def test_cc_win_push_lose_as_t() -> None:
    """633b.5(cc), (t): equal totals push; 21 in more than two cards loses to a dealer
    Blackjack."""
    game, log = start("TS 7H 9D KC 2H", {1: bet()})
    log += game.act(1, Action.STAND, 0)  # 19 v 7+K=17 -> win
    assert settled(log, 1).paid == 2000
    game, log = start("TS 9H 9D KC 2H", {1: bet()})
    log += game.act(1, Action.STAND, 0)  # 19 v 19 push
    assert settled(log, 1).outcome == PUSHED
    game, log = start("5S TH 6D KC AH", {1: bet()})
    log += game.act(1, Action.HIT, 0)  # 21 in three cards; AH: dealer Blackjack
    assert settled(log, 1).outcome == LOST


# -------------------------------------------------------------------------------- (dd)


def test_dd_side_wagers_settle_on_each_players_own_dealer_hand() -> None:
    """633b.5(dd), (ee)(3)-(5): Bet the Set settles after the deal on the shared first two
    cards; Royal Match 21 with its Crown Treasure Bonus settles on the dealer hand FOR each
    player, so the same first cards can win different lines."""
    wagers = bet(royal_match_21=500, bet_the_set=500, kings_bounty=500)
    game, log = start("KH KS QH QS 5C 9D", {1: wagers, 2: wagers}, CROWN_RULES)
    # KH QH: suited king and queen (Royal Match), total 20 suited (King's Bounty), no pair.
    assert settled(log, 1, "bet_the_set").outcome == LOST
    log += game.act(1, Action.STAND, 0)  # hole QS: dealer KS QS, a Royal Match too
    log += game.act(2, Action.HIT, 0)  # QS to his hand: 30, bust; hole 5C
    assert settled(log, 1, "royal_match_21").line == hsw.CROWN_TREASURE
    assert settled(log, 1, "royal_match_21").paid == 500 * 101
    assert settled(log, 2, "royal_match_21").line == hsw.ROYAL_MATCH
    assert settled(log, 2, "royal_match_21").paid == 500 * 26
    assert settled(log, 1, "kings_bounty").line == hsw.SUITED_20
    assert dealer_of(log, 1) == ("KS", "QS")
    assert dealer_of(log, 2) == ("KS", "5C", "9D")[:2]


def test_dd_kings_bounty_top_line_needs_his_dealer_blackjack() -> None:
    """633b.5(dd): King's Bounty pays its top line on two kings of spades when the dealer's
    hand FOR THAT PLAYER is a Blackjack."""
    wagers = bet(kings_bounty=500, bet_the_set=500)
    game, log = start("KS AH KS TC 9D 5C 3D", {1: wagers, 2: wagers})
    game.decline_insurance(1)
    game.decline_insurance(2)
    log += game.act(1, Action.STAND, 0)  # hole TC: Blackjack
    log += game.act(2, Action.SPLIT, 0)  # TC to his first hand
    log += game.act(2, Action.STAND, 0)  # 9D to his second hand
    log += game.act(2, Action.STAND, 1)  # hole 5C, then 3D: soft 19
    assert dealer_of(log, 2) == ("AH", "5C", "3D")
    assert settled(log, 1, "kings_bounty").line == hsw.KS_PAIR_DEALER_BJ
    assert settled(log, 1, "kings_bounty").paid == 500 * 1001
    assert settled(log, 2, "kings_bounty").line == hsw.KS_PAIR
    assert settled(log, 1, "bet_the_set").line == hsw.SUITED_PAIR


def test_side_wager_paytables_match_published_house_edges() -> None:
    """The default paytables reproduce the published house edges exactly (not regulation
    text: the Rules Submission states the table): Royal Match V1 6.6658% (6 decks), Bet the
    Set 15-10 10.6109%, King's Bounty 23.164% (6 decks) and 24.733% (2 decks)."""
    cases = [
        (hsw.royal_match_counts, hsw.ROYAL_MATCH_PAYTABLES["Version 1"], 6, 0.066658),
        (hsw.bet_the_set_counts, hsw.BET_THE_SET_PAYTABLES["15-10"], 6, 0.106109),
        (hsw.bet_the_set_counts, hsw.BET_THE_SET_PAYTABLES["25-10"], 2, 0.106796),
        (hsw.kings_bounty_counts, hsw.KINGS_BOUNTY_PAYTABLES["Six Decks"], 6, 0.23164),
        (hsw.kings_bounty_counts, hsw.KINGS_BOUNTY_PAYTABLES["Two Decks"], 2, 0.24733),
    ]
    for counts, table, decks, edge in cases:
        found = counts(decks, table)
        n = 52 * decks
        assert sum(found.values()) == n * (n - 1) * (n - 2) * (n - 3)
        assert abs(float(hsw.house_edge(found, table)) - edge) < 5e-6


def test_side_wager_lines() -> None:
    """The commonly published definitions: a suited ace-ten is a Suited Blackjack, a Royal
    Match needs a king and queen of one suit, a pair is equal rank (not value)."""
    cards = parse_cards
    v3 = hsw.ROYAL_MATCH_PAYTABLES["Version 3"]
    assert hsw.evaluate_royal_match(context(cards("AH KH"), cards("2C"), 6), v3) == v3.line(
        hsw.SUITED_BLACKJACK
    )
    assert hsw.bet_the_set_lines(cards("KH QH")) == ()
    assert hsw.kings_bounty_lines(cards("AH 9C"), False) == (hsw.UNSUITED_20,)
    with pytest.raises(hsw.PaytableLinesError, match="not a Bet the Set hand"):
        hsw.BET_THE_SET.paytable_from_lines("x", {"Three of a Kind": "30 to 1"})  # type: ignore[misc]


# -------------------------------------------------------------------------------- (ee)


def test_ee_payout_odds() -> None:
    """633b.5(ee)(1)-(2): insurance 2 to 1, Blackjack 3 to 2, other wins 1 to 1."""
    game, log = start("AS AH KD 5C", {1: bet(1000)})
    log += game.insure(1, 500)
    assert settled(log, 1).paid == 1000 + 1500
    game, log = start("AS AH KD KC", {1: bet(1000)})
    log += game.insure(1, 500)
    assert settled(log, 1, INSURANCE).paid == 500 + 1000


# ------------------------------------------------------------------------------ replay


def test_replay_whole_round_and_detects_tampering() -> None:
    """replay re-drives the engine from the log (through its JSON form) and yields the same
    events; a changed decision is reported."""
    cards = "8S 6H 8D 5C 9H 8D 2C 2D 9S 9C"
    game, log = start(cards, {1: bet(royal_match_21=500), 2: bet(), 3: bet()})
    log += game.act(1, Action.SPLIT, 0)
    log += game.act(2, Action.DOUBLE, 0)
    log += game.act(3, Action.STAND, 0)
    while game.phase is not Phase.COMPLETE:
        for seat in game.pending():
            log += game.countdown(seat)
    again = replay(RULES, [from_dict(to_dict(e)) for e in log])
    assert again.phase is Phase.COMPLETE
    assert [again.view(s) for s in (1, 2, 3)] == [game.view(s) for s in (1, 2, 3)]
    decisions = [i for i, e in enumerate(log) if type(e) is Decision and e.action == "double"]
    tampered = list(log)
    tampered[decisions[0]] = Decision(2, 0, "stand", 0, False)
    with pytest.raises(ReplayMismatch):
        replay(RULES, tampered)
    assert type(log[-1]) is RoundCompleted


# ---------------------------------------------------------------------------- property


def _play(
    rules: BlackjackRules,
    order: list[Any],
    players: dict[int, dict[str, int]],
    data: Any,
    choices: dict[int, list[tuple[str, int, int]]] | None = None,
) -> tuple[NoHoleCardRound, list[Any], dict[int, list[tuple[str, int, int]]]]:
    """Play a round: random decisions (``data``) or each player's recorded ``choices``."""
    game = NoHoleCardRound(rules)
    log: list[Any] = []
    for seat, wagers in players.items():
        log += game.join(seat, wagers)
    log += game.deal(StackedShoe(order))
    made: dict[int, list[tuple[str, int, int]]] = {s: [] for s in players}
    steps = 0
    while game.phase is not Phase.COMPLETE:
        steps += 1
        assert steps < 200
        pending = game.pending()
        assert pending
        if choices is not None:
            seat = pending[0]
            kind, hand, amount = choices[seat][len(made[seat])]
        else:
            seat = data.draw(st.sampled_from(pending))
            if game.pending_insurance(seat):
                kind = data.draw(st.sampled_from(["insurance", "no-insurance"]))
                hand, amount = 0, players[seat][BLACKJACK] // 2
            else:
                due = game.to_act(seat)
                assert due is not None
                hand = due
                kind = data.draw(st.sampled_from(sorted(a.value for a in game.legal_actions(seat))))
                amount = 0
        made[seat].append((kind, hand, amount))
        if kind == "insurance":
            log += game.insure(seat, amount)
        elif kind == "no-insurance":
            log += game.decline_insurance(seat)
        else:
            log += game.act(seat, Action(kind), hand)
    return game, log, made


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.permutations(CARDS),
    st.lists(st.sampled_from(["royal_match_21", "bet_the_set", "kings_bounty"]), max_size=3),
    st.integers(1, 4),
    st.data(),
)
def test_property_money_conserved_replay_and_each_player_alone(
    order: list[Any], sides: list[str], count: int, data: Any
) -> None:
    """Random decisions on shuffled cards: every wager is settled exactly once for its full
    stake, every player's dealer hand completes, replay gives the same events, and each
    player's game is the same as if he had played the same choices alone at the table (his
    game is a function of the card order and his own choices)."""
    players = {s: {BLACKJACK: 1000, **{name: 500 for name in sides}} for s in range(1, count + 1)}
    game, log, made = _play(CROWN_RULES, order, players, data)
    placed = Counter(((e.seat, e.hand, e.wager), e.amount) for e in log if type(e) is WagerPlaced)
    paid = Counter(((e.seat, e.hand, e.wager), e.stake) for e in log if type(e) is WagerSettled)
    assert placed == paid
    assert all(game.status(s) is Status.FINISHED for s in players)
    assert replay(CROWN_RULES, log).phase is Phase.COMPLETE
    for seat in players:
        _, alone_log, _ = _play(CROWN_RULES, order, {seat: players[seat]}, None, made)
        mine = [
            e
            for e in log
            if type(e) in (WagerSettled, CardDesignated, DealerHandCompleted) and e.seat == seat
        ]
        theirs = [
            e for e in alone_log if type(e) in (WagerSettled, CardDesignated, DealerHandCompleted)
        ]
        assert mine == theirs
