"""The Rules Submission: loading the TOML file and the regulation checks of game_server.config.

Most tests start from the shipped example and change one value, so that each test breaks
exactly the rule it names.
"""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest

from game_server import config
from game_server.config import (
    ConfigError,
    ConfigSyntaxError,
    Shuffle,
    TableConfig,
    Timers,
    example_config_path,
    example_path,
    load_config,
    parse_config,
)
from game_server.games import config_games
from game_server.games.blackjack.rules.rules import BlackjackRules, CountdownDefault, DoubleOn
from game_server.games.hybrid.config import table_type_problems
from game_server.rules.limits import WagerLimits
from game_server.rules.wagers import REGISTRY
from game_server.rules.wagers.base import SideWager, TableType
from game_server.rules.wagers.lucky_aces import LUCKY_ACES, PAYTABLES
from game_server.rules.wagers.math import EXACT
from shared.codec import canonical_json
from shared.errors import ETGError

EXAMPLE = example_config_path().read_text(encoding="utf-8")


def edit(text: str, dotted: str, value: str | None) -> str:
    """Set ``section.key`` to the TOML ``value`` (``None`` removes the key), keeping the rest."""
    section, key = dotted.rsplit(".", 1)
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split("#")[0].strip() == f"[{section}]")
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")),
        len(lines),
    )
    assignment = re.compile(rf"^{re.escape(key)}\s*=")
    for i in range(start + 1, end):
        if assignment.match(lines[i]):
            if value is None:
                del lines[i]
            else:
                lines[i] = f"{key} = {value}"
            break
    else:
        assert value is not None, f"{dotted} is not in the text"
        lines.insert(start + 1, f"{key} = {value}")
    return "\n".join(lines) + "\n"


def variant(edits: dict[str, str | None], text: str = EXAMPLE) -> str:
    """The example with each ``section.key`` of ``edits`` set to a TOML value (or removed)."""
    for dotted, value in edits.items():
        text = edit(text, dotted, value)
    return text


def problems_of(text: str) -> tuple[str, ...]:
    """The problems :func:`parse_config` reports for ``text`` (it must refuse it)."""
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "table.toml")
    return caught.value.problems


def only_problem(text: str) -> str:
    """The one problem reported for ``text``."""
    problems = problems_of(text)
    assert len(problems) == 1, problems
    return problems[0]


# ------------------------------------------------------------------------------- the example


def test_example_loads_with_the_stated_rules() -> None:
    """The shipped example is a 7-seat, 6-deck S17 table with Lucky Aces Paytable A."""
    table = load_config(example_config_path())
    assert table.table_id == "BJ-01"
    assert table.game == "blackjack"
    assert table.table_type is TableType.FULLY_AUTOMATED
    assert table.shuffle is Shuffle.CUT_CARD
    assert table.cut_card == 234 == table.shoe_cards * 75 // 100
    assert table.timers == Timers(betting_seconds=15, insurance_seconds=8, decision_seconds=15)
    assert table.chip_denominations == (100, 500, 2500, 10000, 50000)
    assert table.source == str(example_config_path())
    rules = table.rules
    assert (rules.seats, rules.decks) == (7, 6)
    assert rules.dealer_hits_soft_17 is False
    assert rules.double_on is DoubleOn.ANY
    assert rules.double_after_split is True
    assert rules.max_split_hands == 4
    assert (rules.resplit_aces, rules.hit_split_aces, rules.late_surrender) == (
        False,
        False,
        False,
    )
    assert (rules.insurance, rules.even_money, rules.dealer_peeks) == (True, True, True)
    assert rules.countdown_default is CountdownDefault.STAND
    assert rules.main_limits == WagerLimits(500, 100_000, 100)
    (offer,) = rules.side_wagers
    assert offer.wager is LUCKY_ACES
    assert offer.paytable is PAYTABLES["Paytable A"]
    assert offer.limits == WagerLimits(100, 10_000, 100)
    assert rules.side_wager("lucky_aces") is offer


def test_example_path_is_inside_the_package() -> None:
    """The example ships as package data in its game's package (games/<game>/configs)."""
    path = example_config_path()
    assert path.is_file()
    assert path.parent == Path(config.__file__).resolve().parent / "games" / "blackjack" / "configs"


def test_to_dict_is_plain_data_with_cents() -> None:
    """to_dict follows the file's shape, with money as integer cents, and encodes canonically."""
    data = load_config(example_config_path()).to_dict()
    assert data["limits"] == {"wager_unit": 100, "blackjack_min": 500, "blackjack_max": 100000}
    assert data["wagers"] == {"lucky_aces": {"paytable": "Paytable A", "min": 100, "max": 10000}}
    assert data["blackjack"]["blackjack_pays"] == "3 to 2"
    assert data["table"]["cut_card"] == 234
    assert data["terminal"]["chip_denominations"] == [100, 500, 2500, 10000, 50000]
    assert canonical_json(data)


def test_every_round_shuffle_has_no_cut_card() -> None:
    """With shuffle = "every-round" the cut card is left out and is None."""
    table = parse_config(variant({"table.shuffle": '"every-round"', "table.cut_card": None}))
    assert table.shuffle is Shuffle.EVERY_ROUND
    assert table.cut_card is None
    assert table.to_dict()["table"]["cut_card"] is None


def test_side_wagers_are_optional() -> None:
    """A table may offer no side wager: the [wagers] tables are optional."""
    text = EXAMPLE[: EXAMPLE.index("[wagers.lucky_aces]")]
    assert parse_config(text).rules.side_wagers == ()


# --------------------------------------------------------------------------------- the hash


def test_config_hash_is_stable() -> None:
    """The same rules hash the same, wherever they were loaded from."""
    from_file = load_config(example_config_path())
    from_text = parse_config(EXAMPLE, "elsewhere.toml")
    assert from_file == from_text
    assert from_file.config_hash() == from_text.config_hash()
    assert re.fullmatch(r"[0-9a-f]{64}", from_file.config_hash())


def test_config_hash_changes_with_any_value() -> None:
    """Changing one value, even a timer or a side-wager limit, changes the hash."""
    base = parse_config(EXAMPLE).config_hash()
    for dotted, value in {
        "timers.decision_seconds": "20",
        "wagers.lucky_aces.max": '"50.00"',
        "blackjack.late_surrender": "true",
        "table.cut_card": "240",
    }.items():
        assert parse_config(edit(EXAMPLE, dotted, value)).config_hash() != base, dotted


def test_config_hash_ignores_comments_and_order() -> None:
    """Comments and key order are not rules: they do not change the hash."""
    stripped = "\n".join(line.split("#")[0].rstrip() for line in EXAMPLE.splitlines())
    swapped = stripped.replace('min = "1.00"\nmax = "100.00"', 'max = "100.00"\nmin = "1.00"')
    assert swapped != stripped
    assert parse_config(swapped).config_hash() == parse_config(EXAMPLE).config_hash()


# ---------------------------------------------------------------------- regulation checks


def test_blackjack_pays_3_to_2() -> None:
    """A player Blackjack is paid at 3 to 2; 6 to 5 is refused (58 Pa. Code 633b.5(v)(1))."""
    problem = only_problem(edit(EXAMPLE, "blackjack.blackjack_pays", '"6 to 5"'))
    assert problem.startswith("blackjack.blackjack_pays: ")
    assert "3 to 2" in problem and "'6 to 5'" in problem
    assert "(58 Pa. Code 633b.5(v)(1))" in problem


def test_insurance_pays_2_to_1() -> None:
    """A winning Insurance wager is paid at 2 to 1 (58 Pa. Code 633a.8, 633b.5(v)(2))."""
    problem = only_problem(edit(EXAMPLE, "blackjack.insurance_pays", '"3 to 2"'))
    assert problem.startswith("blackjack.insurance_pays: ")
    assert "(58 Pa. Code 633a.8, 633b.5(v)(2))" in problem


@pytest.mark.parametrize("decks", [0, 3, 5, 7, 10])
def test_deck_count_is_one_the_shoe_supports(decks: int) -> None:
    """Decks are 1, 2, 4, 6 or 8: the shoes the certified shuffle builds (58 Pa. Code 633a.3)."""
    text = variant({"table.decks": str(decks), "table.shuffle": '"every-round"'})
    problem = only_problem(edit(text, "table.cut_card", None))
    assert problem.startswith("table.decks: ")
    assert "1, 2, 4, 6 or 8" in problem
    assert "(58 Pa. Code 633a.3)" in problem


@pytest.mark.parametrize("seats", [0, 8])
def test_seats_are_1_to_7(seats: int) -> None:
    """A table has 1 to 7 seats, the player positions of the layout (58 Pa. Code 633a.2)."""
    problem = only_problem(edit(EXAMPLE, "table.seats", str(seats)))
    assert problem.startswith("table.seats: ")
    assert "1..7" in problem and "58 Pa. Code 633a.2" in problem


def test_max_split_hands_must_be_stated() -> None:
    """The Rules Submission states how many times a pair may be split (58 Pa. Code 633a.11(c))."""
    problem = only_problem(edit(EXAMPLE, "blackjack.max_split_hands", None))
    assert problem.startswith("blackjack.max_split_hands: missing")
    assert "(58 Pa. Code 633a.11(c))" in problem
    assert "max_split_hands = 4" in problem


@pytest.mark.parametrize("hands", [1, 5])
def test_max_split_hands_is_2_to_4(hands: int) -> None:
    """A pair may be split (633a.11(a)) into at most 4 hands in this build (633a.11(c))."""
    problem = only_problem(edit(EXAMPLE, "blackjack.max_split_hands", str(hands)))
    assert problem.startswith("blackjack.max_split_hands: ")
    assert "2..4" in problem and "633a.11(c)" in problem


def test_side_wager_must_be_in_the_registry() -> None:
    """Only side wagers this build declares can be offered; a near-miss name gets a suggestion."""
    text = EXAMPLE.replace("[wagers.lucky_aces]", "[wagers.lucky_ace]")
    problem = only_problem(text)
    assert problem.startswith("wagers.lucky_ace: ")
    assert "did you mean 'lucky_aces'?" in problem


def test_paytable_is_one_of_the_wagers_paytables() -> None:
    """Lucky Aces pays by Paytable A, B, C or D, selected in the submission (633b.8(e))."""
    problem = only_problem(edit(EXAMPLE, "wagers.lucky_aces.paytable", '"Paytable E"'))
    assert problem.startswith("wagers.lucky_aces.paytable: ")
    assert "'Paytable A', 'Paytable B', 'Paytable C' or 'Paytable D'" in problem
    assert "(58 Pa. Code 633b.8(e))" in problem


def test_lucky_aces_only_on_a_fully_automated_table() -> None:
    """Lucky Aces is offered only on a fully automated electronic table (633b.8(a))."""
    problems = problems_of(edit(EXAMPLE, "table.type", '"hybrid"'))
    assert (
        "wagers.lucky_aces: Lucky Aces is offered only on a fully automated electronic table "
        "(58 Pa. Code 633b.8(a))"
    ) in problems


def test_side_wager_table_types_are_enforced_for_any_wager(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A wager declared for hybrid tables only is refused on the fully automated table."""
    hybrid_only = SideWager(
        name="hybrid_only",
        title="Hybrid Only",
        section="58 Pa. Code 633b.99",
        settles_at=LUCKY_ACES.settles_at,
        paytables=PAYTABLES,
        evaluate=LUCKY_ACES.evaluate,
        table_types=frozenset({TableType.HYBRID}),
    )
    monkeypatch.setitem(REGISTRY, "hybrid_only", hybrid_only)
    text = EXAMPLE.replace("[wagers.lucky_aces]", "[wagers.hybrid_only]")
    assert only_problem(text) == (
        "wagers.hybrid_only: Hybrid Only is offered only on a hybrid table (58 Pa. Code 633b.99)"
    )


def fake_wager(**limits: object) -> SideWager:
    """A Lucky Aces look-alike with extra declared limits, for limits no real wager has yet."""
    return SideWager(
        name="fake",
        title="Fake",
        section="58 Pa. Code 633b.98",
        settles_at=LUCKY_ACES.settles_at,
        paytables=PAYTABLES,
        evaluate=LUCKY_ACES.evaluate,
        **limits,  # type: ignore[arg-type]
    )


def register_fake(monkeypatch: pytest.MonkeyPatch, **limits: object) -> None:
    """Offer :func:`fake_wager` for one test, with Lucky Aces' exact math (the player-edge
    guard needs a wager's return)."""
    monkeypatch.setitem(REGISTRY, "fake", fake_wager(**limits))
    monkeypatch.setitem(EXACT, "fake", EXACT["lucky_aces"])


def test_side_wager_allowed_decks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wager declared for 6 or 8 decks is refused on a 4-deck table, citing its section."""
    register_fake(monkeypatch, allowed_decks=frozenset({6, 8}))
    text = variant({"table.decks": "4", "table.cut_card": "156"})
    text = text.replace("[wagers.lucky_aces]", "[wagers.fake]")
    problem = only_problem(text)
    assert problem.startswith("wagers.fake: Fake is offered only with 6 or 8 decks")
    assert "(58 Pa. Code 633b.98)" in problem
    assert parse_config(variant({"table.decks": "8", "table.cut_card": "312"}, text))


def test_side_wager_fixed_amounts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fixed-amount wager's min and max are among its fixed amounts."""
    register_fake(monkeypatch, fixed_amounts=(100, 500))
    text = EXAMPLE.replace("[wagers.lucky_aces]", "[wagers.fake]")
    problem = only_problem(text)
    assert problem.startswith("wagers.fake.max: Fake is a fixed-amount wager of '$1.00' or '$5.00'")
    assert "not $100.00" in problem and "(58 Pa. Code 633b.98)" in problem
    both = edit(text, "wagers.fake.max", '"5.00"')
    assert "one fixed amount at a table: min and max must be equal" in only_problem(both)
    assert parse_config(edit(both, "wagers.fake.min", '"5.00"'))


def test_side_wager_required_wager_must_be_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wager that requires another wager needs that wager offered at the same table."""
    register_fake(monkeypatch, requires=("blackjack", "lucky_aces"))
    alone = EXAMPLE.replace("[wagers.lucky_aces]", "[wagers.fake]")
    assert "placed only with the lucky_aces wager" in only_problem(alone)
    both = EXAMPLE + '\n[wagers.fake]\npaytable = "Paytable B"\nmin = "1.00"\nmax = "5.00"\n'
    offers = parse_config(both).rules.side_wagers
    assert [o.wager.name for o in offers] == ["fake", "lucky_aces"]


def test_side_wager_min_cannot_exceed_its_cap_over_the_main_wager(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A wager capped at 2x the main wager cannot have a minimum above 2x blackjack_max."""
    register_fake(monkeypatch, max_multiple_of_main=2)
    text = EXAMPLE.replace("[wagers.lucky_aces]", "[wagers.fake]")
    text = variant({"wagers.fake.min": '"3000.00"', "wagers.fake.max": '"3000.00"'}, text)
    problem = only_problem(text)
    assert problem.startswith("wagers.fake.min: $3,000.00 is more than 2 times blackjack_max")


@pytest.mark.parametrize("key", ["min", "max"])
def test_side_wager_limits_are_multiples_of_the_unit(key: str) -> None:
    """Side-wager limits are whole numbers of wager units."""
    text = variant({"limits.wager_unit": '"2.00"', "limits.blackjack_min": '"6.00"'})
    text = variant({"wagers.lucky_aces.min": '"2.00"', f"wagers.lucky_aces.{key}": '"3.00"'}, text)
    text = edit(text, "terminal.chip_denominations", '["2.00", "10.00"]')
    problem = only_problem(text)
    assert problem.startswith(f"wagers.lucky_aces.{key}: $3.00 is not a multiple of the wager unit")


def test_side_wager_min_not_above_max() -> None:
    """A side wager's min is not above its max."""
    problem = only_problem(edit(EXAMPLE, "wagers.lucky_aces.min", '"200.00"'))
    assert problem == "wagers.lucky_aces.min: $200.00 is above max $100.00"


def test_blackjack_min_not_above_max() -> None:
    """blackjack_min is not above blackjack_max."""
    problem = only_problem(edit(EXAMPLE, "limits.blackjack_min", '"2000.00"'))
    assert problem == "limits.blackjack_min: $2,000.00 is above blackjack_max $1,000.00"


@pytest.mark.parametrize("key", ["blackjack_min", "blackjack_max"])
def test_unit_divides_the_main_limits(key: str) -> None:
    """Every Blackjack limit is a whole number of wager units."""
    problem = only_problem(edit(EXAMPLE, f"limits.{key}", '"7.50"'))
    assert problem.startswith(f"limits.{key}: $7.50 is not a multiple of the wager unit $1.00")


def test_unit_is_even_so_that_3_to_2_is_exact() -> None:
    """With 3 to 2 the unit is an even number of cents: 3 to 2 on 5 cents is not exact.

    58 Pa. Code 633b.5(v)(1) sets the 3 to 2; an odd unit would need rounding.
    """
    problem = only_problem(edit(EXAMPLE, "limits.wager_unit", '"0.05"'))
    assert problem.startswith("limits.wager_unit: $0.05 is an odd number of cents")
    assert "7.5 cents" in problem and "(58 Pa. Code 633b.5(v)(1))" in problem
    assert parse_config(edit(EXAMPLE, "limits.wager_unit", '"0.50"'))


def test_hybrid_tables_are_checked_and_the_table_server_refuses_them() -> None:
    """The hybrid tables of 633b.5 are Rules Submissions like any other (checked, logged,
    simulated); this build's table server runs fully automated tables only and says so."""
    from game_server.games.blackjack.session import TableSession
    from game_server.table.session import MemorySink, SealedShoes, TableError

    for name in ("hybrid-three-position", "hybrid-no-hole-card"):
        config = load_config(example_path(f"{name}.toml"))
        assert config.table_type in (TableType.HYBRID, TableType.HYBRID_NO_HOLE_CARD)
        shoes = SealedShoes(config, lambda n: (None, b""), bytes(32), "k")  # type: ignore[arg-type,return-value]
        with pytest.raises(TableError, match=r"633b\.5.*fully automated tables only"):
            TableSession(config, MemorySink(), shoes, {"T1": 1})
    lucky = problems_of(variant({"table.type": '"hybrid"'}))
    assert any("Lucky Aces is offered only on a fully automated" in p for p in lucky)


def test_unknown_table_type_lists_the_options() -> None:
    """A table type that does not exist gets the list of types."""
    problem = only_problem(edit(EXAMPLE, "table.type", '"automatic"'))
    assert problem.startswith("table.type: 'automatic' is not an option")
    assert "'fully-automated', 'hybrid' or 'hybrid-no-hole-card'" in problem


def test_only_blackjack_is_supported() -> None:
    """A game this build does not deal is refused with the list of games it does."""
    problem = only_problem(edit(EXAMPLE, "table.game", '"baccarat"'))
    dealt = sorted(config_games())
    assert {"blackjack", "uth"} <= set(dealt)
    listed = ", ".join(repr(g) for g in dealt[:-1]) + f" or {dealt[-1]!r}"
    assert problem == (
        f"table.game: 'baccarat' is not a game this build deals; it supports {listed}"
    )


def test_hybrid_dealer_stands_on_soft_17() -> None:
    """At a hybrid table the dealer stands on all soft 17s (58 Pa. Code 633b.5(c)(2))."""
    rules = BlackjackRules(dealer_hits_soft_17=True)
    for kind in (TableType.HYBRID, TableType.HYBRID_NO_HOLE_CARD):
        assert table_type_problems(kind, rules)[0] == (
            "blackjack.dealer_hits_soft_17: the dealer stands on all soft 17s at a hybrid "
            "table; set dealer_hits_soft_17 = false (58 Pa. Code 633b.5(c)(2))"
        )
    assert table_type_problems(TableType.FULLY_AUTOMATED, rules) == []


def test_hybrid_soft_17_is_reported_with_the_other_problems() -> None:
    """A hybrid file that hits soft 17 hears about it with every other problem, in one
    error (here also the Lucky Aces wager, fully automated tables only, 633b.8(a))."""
    text = variant({"table.type": '"hybrid"', "blackjack.dealer_hits_soft_17": "true"})
    problems = problems_of(text)
    assert any(p.startswith("blackjack.dealer_hits_soft_17: ") for p in problems)
    assert any(p.startswith("wagers.lucky_aces: ") for p in problems)


def test_fully_automated_table_may_hit_soft_17() -> None:
    """A fully automated table may choose H17 in its Rules Submission."""
    table = parse_config(edit(EXAMPLE, "blackjack.dealer_hits_soft_17", "true"))
    assert table.rules.dealer_hits_soft_17 is True


def test_hybrid_decks_countdown_and_no_hole_card_rules() -> None:
    """A hybrid table deals 6 or 8 decks (633b.5(f)); with a hole card the dealer peeks
    (633b.5(o)) and the countdown stands (633b.5(p)(2)); without one there is no peek and a
    split makes two hands at most (633b.5(w), (z))."""
    rules = BlackjackRules(decks=2, countdown_default=CountdownDefault.HIT_HARD_11_OR_LESS)
    hybrid = table_type_problems(TableType.HYBRID, rules)
    assert [p.split(":")[0] for p in hybrid] == ["table.decks", "timers.countdown_default"]
    assert "633b.5(f)" in hybrid[0] and "633b.5(p)(2)" in hybrid[1]
    no_peek = table_type_problems(TableType.HYBRID, BlackjackRules(dealer_peeks=False))
    assert no_peek == [
        "blackjack.dealer_peeks: at a hybrid table with a hole card the dealer checks it for "
        "Blackjack under an ace or ten-value up card; set dealer_peeks = true "
        "(58 Pa. Code 633b.5(o))"
    ]
    no_hole = table_type_problems(TableType.HYBRID_NO_HOLE_CARD, rules)
    assert [p.split(":")[0] for p in no_hole] == [
        "table.decks",
        "blackjack.dealer_peeks",
        "blackjack.max_split_hands",
    ]
    assert "633b.5(z)" in no_hole[2]
    ok = BlackjackRules(decks=8, dealer_peeks=False, max_split_hands=2)
    assert table_type_problems(TableType.HYBRID_NO_HOLE_CARD, ok) == []


def test_even_money_needs_insurance() -> None:
    """Even money is offered with the Insurance wager (633a.8): without insurance it cannot be."""
    problem = only_problem(edit(EXAMPLE, "blackjack.insurance", "false"))
    assert problem.startswith("blackjack.even_money: ")
    assert (
        parse_config(
            variant({"blackjack.insurance": "false", "blackjack.even_money": "false"})
        ).rules.insurance
        is False
    )


# ----------------------------------------------------------------------- shuffle and timers


def test_cut_card_required_with_cut_card_shuffle() -> None:
    """shuffle = "cut-card" needs the cut card's position."""
    problem = only_problem(edit(EXAMPLE, "table.cut_card", None))
    assert problem.startswith("table.cut_card: missing")


def test_cut_card_refused_with_every_round_shuffle() -> None:
    """A cut card with an every-round shuffle is a contradiction, not silently ignored."""
    problem = only_problem(edit(EXAMPLE, "table.shuffle", '"every-round"'))
    assert problem.startswith('table.cut_card: is set but shuffle = "every-round"')


def test_cut_card_written_as_a_percentage_is_explained() -> None:
    """cut_card counts cards; 75 (a percentage) is 24% of a 6-deck shoe and is refused."""
    problem = only_problem(edit(EXAMPLE, "table.cut_card", "75"))
    assert problem.startswith("table.cut_card: 75 cards is 24% of the 312-card shoe")
    assert "between 156 and 272 cards" in problem
    assert "75% of this shoe would be 234 cards" in problem


def test_cut_card_leaves_a_full_round() -> None:
    """The cut card leaves 5 cards for each seat and the dealer: 40 at 7 seats, 272 of 312."""
    assert parse_config(edit(EXAMPLE, "table.cut_card", "272"))
    problem = only_problem(edit(EXAMPLE, "table.cut_card", "273"))
    assert problem.startswith("table.cut_card: 273 cards is 87% of the 312-card shoe")
    assert "at least 40 cards" in problem


def test_cut_card_bound_by_90_percent_with_few_seats() -> None:
    """With one seat and 8 decks the 90% bound is the limit: 374 of 416 cards."""
    text = variant({"table.seats": "1", "table.decks": "8"})
    assert parse_config(edit(text, "table.cut_card", "374"))
    assert only_problem(edit(text, "table.cut_card", "375")).startswith("table.cut_card: ")


def test_single_deck_cannot_cut_card_a_full_table() -> None:
    """One deck cannot keep a full round behind a cut card at 7 seats; the error says what to do."""
    text = variant({"table.decks": "1", "table.cut_card": "30"})
    problem = only_problem(text)
    assert "cannot keep 40 cards behind the cut card" in problem
    assert 'shuffle = "every-round"' in problem


@pytest.mark.parametrize("key", ["betting_seconds", "insurance_seconds", "decision_seconds"])
@pytest.mark.parametrize("seconds", [0, 2, 121])
def test_timers_are_3_to_120_seconds(key: str, seconds: int) -> None:
    """Each countdown lasts 3 to 120 seconds."""
    problem = only_problem(edit(EXAMPLE, f"timers.{key}", str(seconds)))
    assert problem.startswith(f"timers.{key}: {seconds} is not within 3..120")


def test_chips_ascending_and_multiples_of_the_unit() -> None:
    """Chips are listed smallest first, once each, and are whole numbers of units."""
    out_of_order = edit(EXAMPLE, "terminal.chip_denominations", '["5.00", "1.00"]')
    assert only_problem(out_of_order).startswith("terminal.chip_denominations: list each chip")
    odd = edit(EXAMPLE, "terminal.chip_denominations", '["1.00", "2.50"]')
    assert only_problem(odd).startswith("terminal.chip_denominations[1]: $2.50 is not a multiple")


def test_smallest_chip_can_make_the_minimum() -> None:
    """A player can wager each minimum: the smallest chip is not above it."""
    problem = only_problem(edit(EXAMPLE, "terminal.chip_denominations", '["5.00", "25.00"]'))
    assert problem.startswith("terminal.chip_denominations: the smallest chip $5.00 is above")
    assert "Lucky Aces min $1.00" in problem


def test_table_id_characters() -> None:
    """A table id is letters, digits, '-' and '_' (it names the table in logs)."""
    problem = only_problem(edit(EXAMPLE, "table.id", '"BJ 01"'))
    assert problem.startswith("table.id: 'BJ 01' is not a table id")
    assert only_problem(edit(EXAMPLE, "table.id", '""')).startswith("table.id: ")


# ------------------------------------------------------------------------- reading the file


def test_corrupt_toml_names_the_line() -> None:
    """A syntax error is reported with its line and column."""
    text = edit(EXAMPLE, "table.seats", "")
    with pytest.raises(ConfigSyntaxError) as caught:
        parse_config(text, "bad.toml")
    message = str(caught.value)
    assert message.startswith("bad.toml: ")
    line = text.splitlines().index("seats = ") + 1
    assert f"at line {line}, column" in message


def test_duplicate_key_is_a_syntax_error() -> None:
    """A key given twice is refused by the TOML parser, not resolved silently."""
    with pytest.raises(ConfigSyntaxError, match="line"):
        parse_config(EXAMPLE.replace("seats = 7", "seats = 7\nseats = 6", 1))


def test_unknown_key_is_named_with_a_suggestion() -> None:
    """A misspelt key is an error that names it and suggests the right one."""
    text = EXAMPLE.replace("late_surrender = false", "late_surrender = false\nlate_surender = true")
    problem = only_problem(text)
    assert problem.startswith("blackjack.late_surender: unknown key")
    assert "did you mean 'late_surrender'?" in problem


def test_unknown_table_is_named() -> None:
    """A table the format does not have is an error, e.g. a misspelt [timer]."""
    problems = problems_of(EXAMPLE.replace("[timers]", "[timer]"))
    assert problems[0].startswith("timer: unknown table or key (did you mean 'timers'?)")
    assert any(p.startswith("timers: the [timers] table is missing") for p in problems)


@pytest.mark.parametrize(("value", "kind"), [("5", "integer 5"), ("5.0", "float 5.0")])
def test_money_as_a_number_is_refused(value: str, kind: str) -> None:
    """Money is a string of dollars: 5 could be dollars or cents, so a number is refused."""
    problem = only_problem(edit(EXAMPLE, "limits.blackjack_min", value))
    assert problem.startswith(
        'limits.blackjack_min: write money as a string of dollars, e.g. "5.00"'
    )
    assert kind in problem and "dollars or as cents" in problem


def test_money_text_must_be_an_amount() -> None:
    """Money text that is not dollars and cents is refused with the money parser's reason."""
    problem = only_problem(edit(EXAMPLE, "wagers.lucky_aces.max", '"1.005"'))
    assert problem.startswith("wagers.lucky_aces.max: '1.005' is not an amount of money")
    assert only_problem(edit(EXAMPLE, "limits.wager_unit", '"0"')).startswith(
        "limits.wager_unit: $0.00 is not a positive amount"
    )


def test_wrong_type_names_field_and_expected_type() -> None:
    """A value of the wrong TOML type names the field, the type expected and the value given."""
    assert only_problem(edit(EXAMPLE, "table.seats", '"7"')) == (
        "table.seats: expected an integer, got the string '7'"
    )
    assert only_problem(edit(EXAMPLE, "blackjack.insurance", '"yes"')) == (
        "blackjack.insurance: expected a boolean, got the string 'yes'"
    )
    assert only_problem(edit(EXAMPLE, "table.seats", "true")) == (
        "table.seats: expected an integer, got the boolean true"
    )


def test_missing_key_says_what_to_add() -> None:
    """Every key is required; a missing one is named with an example line to add."""
    assert only_problem(edit(EXAMPLE, "timers.insurance_seconds", None)) == (
        "timers.insurance_seconds: missing; add `insurance_seconds = 8` under [timers]"
    )


def test_several_problems_are_reported_together() -> None:
    """All problems are listed in one error, one per line, under a header naming the file."""
    text = variant(
        {
            "table.decks": "5",
            "blackjack.blackjack_pays": '"6 to 5"',
            "wagers.lucky_aces.paytable": '"Paytable Z"',
            "timers.betting_seconds": "500",
        }
    )
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "/etc/etg/BJ-07.toml")
    error = caught.value
    assert isinstance(error, ETGError)
    assert error.source == "/etc/etg/BJ-07.toml"
    assert [p.split(":")[0] for p in error.problems] == [
        "table.decks",
        "blackjack.blackjack_pays",
        "timers.betting_seconds",
        "wagers.lucky_aces.paytable",
    ]
    lines = str(error).splitlines()
    assert lines[0] == "/etc/etg/BJ-07.toml: the Rules Submission has 4 problems:"
    assert lines[1:] == [f"  {p}" for p in error.problems]


def test_config_error_survives_pickling() -> None:
    """A ConfigError keeps its source and problems across processes."""
    error = ConfigError("a.toml", ["table.seats: missing"])
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.source, copy.problems, str(copy)) == (error.source, error.problems, str(error))


def test_load_config_of_a_missing_file() -> None:
    """A path that cannot be read is a ConfigError naming the file."""
    with pytest.raises(ConfigSyntaxError, match=r"(?s)nowhere\.toml: .*cannot read"):
        load_config("/nonexistent/nowhere.toml")


def test_load_config_refuses_non_utf8(tmp_path: Path) -> None:
    """A file that is not UTF-8 text is refused with the byte offset."""
    path = tmp_path / "latin1.toml"
    path.write_bytes(EXAMPLE.encode("utf-8") + b"# caf\xe9\n")
    with pytest.raises(ConfigSyntaxError, match="not UTF-8"):
        load_config(path)


def test_table_config_is_frozen() -> None:
    """A loaded config cannot be changed in place."""
    table = parse_config(EXAMPLE)
    with pytest.raises(AttributeError):
        table.table_id = "BJ-02"  # type: ignore[misc]
    assert isinstance(table, TableConfig)


def test_logged_config_round_trips_through_config_from_dict() -> None:
    """A config logged with to_dict() rebuilds to an equal config with the same hash, and a
    logged config of an unknown schema is refused (recall must never guess the rules)."""
    from game_server.config import config_from_dict

    config = load_config(example_config_path())
    rebuilt = config_from_dict(config.to_dict())
    assert rebuilt == config
    assert rebuilt.config_hash() == config.config_hash()
    logged = config.to_dict() | {"schema": 99}
    with pytest.raises(ConfigError, match="schema 99"):
        config_from_dict(logged)
