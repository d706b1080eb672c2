"""What each wager a Rules Submission offers returns to the player, and the player-edge guard.

Every figure is a return to player per unit staked, the stake included (a wager that returns
1.0 breaks even). They are computed three ways:

- **exactly**, when the wager depends on the cards only: every side wager counted by
  :mod:`game_server.rules.wagers.math` (Buster and the Buzzer Beater on the position's first
  two cards through the dealer's final hand, :mod:`game_server.rules.wagers.dealer`), the
  Insurance wager, and Ultimate Texas Hold 'Em's Trips, Progressive Payout (with the Envy Bonus
  at a full table) and Five Card Hand Bonus (with its Magic Card or Lucky Bonus, by that
  game's own math). Off the top of a full shoe, in well under a second, and cached.
- **from the par sheet**, when it depends on how the round is played (:data:`PAR_FIGURES`):
  AxMan and the Buzzer Beater read on the final hand, measured by ``etg par`` through the
  engine with the rounds and seed stated, and checked by a test that plays them again.
- the Blackjack and Hold 'Em base games are simulated by ``etg par`` itself (their rules are
  the regulation's, not readings; they are not part of this module).

A progressive line pays a share of a meter, so its return is a function of the meter: the
report gives the slope per dollar of the meter, the return at the reset amount and the meter at
which the wager breaks even. The figure the guard checks is the **long run**: the fixed lines
plus what the meter gives back over its life, counted from its own dynamics by
:mod:`game_server.rules.meter_returns`: its contributions, the reset amount brought back after
each 100% award, the top-ups after a partial award that left it below its reset amount, and
its reserve as the Rules Submission says what it is for. A partial award paid from a meter
above its reset amount adds nothing: it is paid from contributions already counted. A
mystery meter (633b.6(j), 633b.14) that pays its whole amount at a trigger drawn uniformly
between its reset and must-hit-by amounts ``R`` and ``H`` returns ``rate x (H + R) / (H - R)``.

The guard (:func:`player_edge_problems`): a Rules Submission whose offered wager returns 100%
or more in the long run is refused at load, naming the wager, the reading and the figure. The
readings it refuses today are the Buzzer Beater on the final hand (633b.5(u)), the Magic Card
or Lucky Bonus on every Five Card Hand Bonus hand and the Five Card hand made from the best
five of seven cards (653a.12(e)(2)-(3)).

Each game adds its own wagers (:meth:`Game.optional_returns
<game_server.games.api.Game.optional_returns>`, over :func:`assemble`): the Blackjack table's
side wagers and Insurance, Ultimate Texas Hold 'Em's bonus wagers.

Entry points: :func:`side_wager_return`, :func:`assemble`, :func:`player_edge_problems`,
:data:`PAR_FIGURES`, :class:`MustHitByTerms`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Final, Protocol

from game_server.rules.meter_returns import MeterLongRun, meter_long_run
from game_server.rules.wagers import blackjack_match, buster, buzzer_beater, dealer, super_4
from game_server.rules.wagers.base import MeterSpec, Paytable, SideWagerOffer
from game_server.rules.wagers.math import EXACT, WagerMath, math_of_counts, win_per_unit
from shared.money import Fixed, ForOne, MeterShare, ToOne, format_money


class TableRules(Protocol):
    """What a side wager's return reads of the table's rules: the shoe, the seats (an Envy
    Bonus pays the other players of a full table) and whether the dealer hits soft 17."""

    @property
    def decks(self) -> int: ...

    @property
    def seats(self) -> int: ...

    @property
    def dealer_hits_soft_17(self) -> bool: ...


#: The readings a meter's figures assume (docs/decisions.md, "Meters counted from their
#: dynamics"), stated on the par sheet.
METER_LINE_READING: Final = (
    "reading: a winning line that pays a share of the meter returns the wager too"
)
MYSTERY_READING: Final = (
    "reading: the Must-Hit-By award goes to the contribution that takes the meter in excess "
    "of its trigger (633b.14(c)(3)), so a trigger at the maximum pays a cent or two above it"
)

#: A wager whose long-run return reaches this is refused.
BREAK_EVEN: Final = 1.0

EXACT_METHOD: Final = "exact"
PAR_METHOD: Final = "par sheet"


@dataclass(frozen=True, slots=True)
class LineReturn:
    """One paytable line: its chance per wager, its pay and what it returns per unit staked
    (a meter line at the meter's reset amount)."""

    line: str
    cite: str
    pays: str
    probability: float | None
    returns: float | None
    """Per unit staked, stake included; None for a line measured only by simulation."""


@dataclass(frozen=True, slots=True)
class MeterReturn:
    """One meter a wager pays from.

    Attributes:
        meter: The meter's name.
        spec: Its seed, reset amount, rate of progression (and must-hit-by amount).
        slope: Return per unit staked for each cent on the meter (the meter lines' chance
            times their share, over the stake); 0 for a mystery meter.
        break_even: The meter amount, in cents, at which the wager returns 100% (the other
            meters at their reset amounts); None for a mystery meter.
        long_run: What the meter adds to the long-run return per unit staked (its
            contributions and reseeds, :mod:`game_server.rules.meter_returns`).
    """

    meter: str
    spec: MeterSpec
    slope: float
    break_even: int | None
    long_run: float
    dynamics: MeterLongRun | None = None
    """How the long run was counted, by part (None for a mystery meter)."""


@dataclass(frozen=True, slots=True)
class ParFigure:
    """A return measured by simulation through the engine (``etg par``), for a wager that
    depends on play.

    Attributes:
        wager: The wager's registry name.
        reading: What was measured (the reading and options).
        decks: Decks in the shoe.
        options: The wager's options that the figure depends on.
        rounds: Rounds played (one player or seat, a new shoe every round).
        seed: The simulation seed.
        wagered: Cents wagered.
        paid: Cents paid (stake included).
        low: The 95% interval's low end of the return.
        high: Its high end.
    """

    wager: str
    reading: str
    decks: int
    options: tuple[tuple[str, str | int | bool], ...]
    rounds: int
    seed: int
    wagered: int
    paid: int
    low: float
    high: float

    @property
    def rtp(self) -> float:
        return self.paid / self.wagered


@dataclass(frozen=True, slots=True)
class WagerReturn:
    """What one offered wager returns per unit staked.

    Attributes:
        wager: Its name (the Rules Submission's key).
        title: As the regulation names it.
        section: Its regulation section.
        paytable: The paytable offered.
        reading: The reading of the text the figure depends on, or "" (none).
        setting: The Rules Submission's field that chooses that reading.
        method: :data:`EXACT_METHOD` or :data:`PAR_METHOD`.
        counted: What was counted (exact), or how it was measured.
        stake: The wager, in cents, the per-unit figures are for (fixed awards and meter
            amounts do not scale with the stake: the smallest offered).
        lines: Each line's chance and return.
        fixed: The return of the lines that are not meter shares (a meter line returns its
            stake here).
        at_reset: The return with every meter at its reset amount.
        long_run: The long-run return (module docstring): what the guard checks.
        meters: The meters the lines pay from.
        hit_frequency: The chance that the wager wins a line.
        sd: The standard deviation of one wager's paytable result per unit staked (meters
            at their reset amounts, awards beside the paytable left out); None when only
            simulated.
        notes: What else the figure assumes.
        par: The simulated figure, for a wager that depends on play.
        reading_cite: The paragraph whose reading :attr:`reading` states ("" when none).
    """

    wager: str
    title: str
    section: str
    paytable: str
    reading: str
    setting: str
    method: str
    counted: str
    stake: int
    lines: tuple[LineReturn, ...]
    fixed: float
    at_reset: float
    long_run: float
    meters: tuple[MeterReturn, ...] = ()
    hit_frequency: float | None = None
    sd: float | None = None
    notes: tuple[str, ...] = ()
    par: ParFigure | None = None
    reading_cite: str = ""


# ------------------------------------------------------------------ figures from the par sheet

#: Returns of wagers that depend on play, measured through the engine by
#: :func:`tools.par.measure_par_figure` (one seat or player, a new shoe every round, basic
#: strategy, the wager's first paytable at $1, the rest of the rules those of
#: ``fully-automated-blackjack.toml`` for AxMan and ``hybrid-three-position.toml`` for the
#: Buzzer Beater; 1,000,000 rounds from seed 1) and played again by
#: ``tests/rules/test_returns.py``.
PAR_FIGURES: Final[tuple[ParFigure, ...]] = (
    ParFigure(
        wager="axman",
        reading="the dealer's final hand, king of diamonds wild in any suit",
        decks=6,
        options=(("wild_suit", "any"),),
        rounds=1000000,
        seed=1,
        wagered=100000000,
        paid=83981300,
        low=0.829336,
        high=0.85029,
    ),
    ParFigure(
        wager="axman",
        reading="the dealer's final hand, king of diamonds wild in rank, a diamond",
        decks=6,
        options=(("wild_suit", "diamonds"),),
        rounds=1000000,
        seed=1,
        wagered=100000000,
        paid=83540700,
        low=0.825255,
        high=0.845559,
    ),
    ParFigure(
        wager="axman",
        reading="the dealer's final hand, king of diamonds wild in any suit",
        decks=8,
        options=(("wild_suit", "any"),),
        rounds=1000000,
        seed=1,
        wagered=100000000,
        paid=85438900,
        low=0.843583,
        high=0.865195,
    ),
    ParFigure(
        wager="axman",
        reading="the dealer's final hand, king of diamonds wild in rank, a diamond",
        decks=8,
        options=(("wild_suit", "diamonds"),),
        rounds=1000000,
        seed=1,
        wagered=100000000,
        paid=85098400,
        low=0.84047,
        high=0.861498,
    ),
    ParFigure(
        wager="buzzer_beater",
        reading="each player's final hand, a 21 against 21 at 5 to 1",
        decks=6,
        options=(("basis", "final-hand"),),
        rounds=1000000,
        seed=1,
        wagered=100000000,
        paid=120032900,
        low=1.191468,
        high=1.20919,
    ),
    ParFigure(
        wager="buzzer_beater",
        reading="each player's final hand, a 21 against 21 at 5 to 1",
        decks=8,
        options=(("basis", "final-hand"),),
        rounds=1000000,
        seed=1,
        wagered=100000000,
        paid=120173900,
        low=1.192868,
        high=1.21061,
    ),
)


def par_figure(wager: str, decks: int, options: Mapping[str, object]) -> ParFigure | None:
    """The stored figure of ``wager`` on ``decks`` decks with these options, or None."""
    for figure in PAR_FIGURES:
        same = figure.wager == wager and figure.decks == decks
        if same and all(options.get(k) == v for k, v in figure.options):
            return figure
    return None


# ----------------------------------------------------------------------------- exact returns


def _per_unit(pay: ToOne | ForOne | Fixed, stake: int) -> Fraction:
    win = win_per_unit(pay, stake)
    assert win is not None
    return 1 + win


def _sd(outcomes: Sequence[tuple[Fraction, Fraction]]) -> float:
    """The standard deviation of a result given as (chance, return per unit) pairs."""
    mean = sum(p * x for p, x in outcomes)
    return math.sqrt(sum(p * (x - mean) ** 2 for p, x in outcomes))


def _meter_spec(paytable: Paytable, share: MeterShare) -> MeterSpec:
    for spec in paytable.meters:
        if not share.meter or spec.name == share.meter:
            return spec
    raise ValueError(f"{paytable.name} pays {share} from a meter it does not state")


def assemble(
    *,
    wager: str,
    title: str,
    section: str,
    paytable: Paytable,
    cite: str,
    chances: Mapping[str | None, Fraction],
    stake: int,
    counted: str,
    reading: str = "",
    field_name: str = "",
    reading_cite: str = "",
    extras: Sequence[tuple[str, str, str, Fraction, Fraction]] = (),
    mystery: Sequence[MeterSpec] = (),
    notes: Sequence[str] = (),
) -> WagerReturn:
    """A :class:`WagerReturn` from each line's exact chance (None: a loss).

    ``extras`` are awards besides the paytable, each ``(name, cite, pays, chance, win per
    unit)`` (an Envy Bonus, a Magic Card): added to the return, not to the outcomes' spread
    (they come on top of a line).
    """
    lines: list[LineReturn] = []
    fixed = Fraction(0)
    outcomes: list[tuple[Fraction, Fraction]] = [(chances.get(None, Fraction(0)), Fraction(0))]
    slopes: dict[str, Fraction] = {}
    specs: dict[str, MeterSpec] = {}
    shares: dict[str, list[tuple[int, Fraction]]] = {}
    for line in paytable.lines:
        p = chances.get(line.name, Fraction(0))
        pay = line.pay
        if isinstance(pay, MeterShare):
            spec = _meter_spec(paytable, pay)
            specs[spec.name] = spec
            shares.setdefault(spec.name, []).append((pay.percent, p))
            slope = p * Fraction(pay.percent, 100) / stake
            slopes[spec.name] = slopes.get(spec.name, Fraction(0)) + slope
            fixed += p
            value = 1 + slope * spec.reseed / p if p else Fraction(1)
            lines.append(LineReturn(line.name, cite, str(pay), float(p), float(p * value)))
            outcomes.append((p, value))
            continue
        per_unit = _per_unit(pay, stake)
        fixed += p * per_unit
        lines.append(LineReturn(line.name, cite, str(pay), float(p), float(p * per_unit)))
        outcomes.append((p, per_unit))
    fixed += _extra_lines(extras, lines)
    at_reset = fixed + sum(slopes[m] * specs[m].reseed for m in slopes)
    meters = [
        _meter_return(
            specs[m], stake, slopes[m], _break_even(at_reset, slopes[m], specs[m].reseed), shares[m]
        )
        for m in slopes
    ]
    meters += [_mystery(spec) for spec in mystery]
    long_run = fixed + sum(Fraction(m.long_run) for m in meters)
    notes = _with_readings(notes, bool(slopes), bool(mystery))
    hits = sum(p for name, p in chances.items() if name is not None)
    return WagerReturn(
        wager=wager,
        title=title,
        section=section,
        paytable=paytable.name,
        reading=reading,
        setting=field_name,
        method=EXACT_METHOD,
        counted=counted,
        stake=stake,
        lines=tuple(lines),
        fixed=float(fixed),
        at_reset=float(at_reset),
        long_run=float(long_run),
        meters=tuple(meters),
        hit_frequency=float(hits),
        sd=_sd(outcomes),
        notes=tuple(notes),
        reading_cite=reading_cite,
    )


def _extra_lines(
    extras: Sequence[tuple[str, str, str, Fraction, Fraction]], lines: list[LineReturn]
) -> Fraction:
    """The awards besides the paytable added to ``lines``; what they return together."""
    fixed = Fraction(0)
    for name, extra_cite, pays, chance, win in extras:
        fixed += chance * win
        lines.append(LineReturn(name, extra_cite, pays, float(chance), float(chance * win)))
    return fixed


def _with_readings(notes: Sequence[str], meter_lines: bool, mystery: bool) -> list[str]:
    """The return's notes, with how a meter line and a Mystery Bonus are read when the
    wager has them."""
    found = list(notes)
    if meter_lines:
        found.append(METER_LINE_READING)
    if mystery:
        found.append(MYSTERY_READING)
    return found


def _meter_return(
    spec: MeterSpec,
    stake: int,
    slope: Fraction,
    break_even: int | None,
    shares: Sequence[tuple[int, Fraction]],
) -> MeterReturn:
    """A meter's part of the long run from its dynamics (:func:`meter_long_run`): the
    chance per wager of each share it pays, the whole meter apart."""
    full = sum((p for percent, p in shares if percent == 100), Fraction(0))
    partial = [(percent, p) for percent, p in shares if percent < 100]
    dynamics = meter_long_run(spec, stake, full, partial)
    return MeterReturn(spec.name, spec, float(slope), break_even, dynamics.long_run, dynamics)


def _break_even(at_reset: Fraction, slope: Fraction, reseed: int) -> int | None:
    if slope <= 0:
        return None
    return max(0, int((1 - (at_reset - slope * reseed)) / slope))


def _mystery(spec: MeterSpec) -> MeterReturn:
    """A meter that pays all of itself at a trigger drawn uniformly between its reset and
    must-hit-by amounts: over a cycle the contributions reach (H - R) / 2 on average and the
    award is (H + R) / 2."""
    assert spec.must_hit_by is not None
    rate = Fraction(spec.increment_bp, 10_000)
    long_run = rate * (spec.must_hit_by + spec.reseed) / (spec.must_hit_by - spec.reseed)
    return MeterReturn(spec.name, spec, 0.0, None, float(long_run))


@cache
def _side_math(
    name: str, paytable: Paytable, decks: int, options: tuple[tuple[str, str | int | bool], ...]
) -> WagerMath:
    from game_server.rules.wagers import REGISTRY

    wager = REGISTRY[name]
    exact = EXACT[name]
    counts = exact.counts(decks, paytable, dict(options))
    return math_of_counts(wager, paytable, decks, counts, exact.counted, exact.stake)


@cache
def _buster_h17(paytable: Paytable, decks: int) -> WagerMath:
    counts = dealer.buster_counts(decks, paytable, hits_soft_17=True)
    counted = "ordered dealer hands, each weighted to 14 cards (the dealer hits soft 17)"
    return math_of_counts(buster.BUSTER, paytable, decks, counts, counted)


def side_wager_return(
    offer: SideWagerOffer, rules: TableRules, mystery: Sequence[MeterSpec] = ()
) -> WagerReturn:
    """The return of one offered side wager at a table with ``rules`` (exact, or from
    :data:`PAR_FIGURES` for a wager that depends on play); ``mystery``: mystery meters it
    feeds besides its paytable's (633b.14)."""
    wager = offer.wager
    options = offer.option_map
    cite = wager.section + wager.cites.get("paytables", "")
    reading, field_name, reading_cite = _reading(offer)
    if wager.name not in EXACT or (
        wager.name == buzzer_beater.BUZZER_BEATER.name
        and buzzer_beater.basis(options) is buzzer_beater.Basis.FINAL_HAND
    ):
        return _par_return(offer, rules, (reading, field_name, reading_cite), mystery)
    if wager.name == buster.BUSTER.name and rules.dealer_hits_soft_17:
        counted = _buster_h17(offer.paytable, rules.decks)
    else:
        counted = _side_math(wager.name, offer.paytable, rules.decks, offer.options)
    stake = EXACT[wager.name].stake or offer.limits.minimum
    chances: dict[str | None, Fraction] = {line.line: line.probability for line in counted.lines}
    chances[None] = Fraction(counted.losing, counted.total)
    extras: list[tuple[str, str, str, Fraction, Fraction]] = []
    notes: list[str] = []
    if wager.name == blackjack_match.BLACKJACK_MATCH.name and options.get("envy_bonus"):
        extras += _match_envy(chances, stake, rules.seats, wager.section)
        notes.append(f"Envy Bonus at a full table of {rules.seats} seats")
    if wager.name == buster.BUSTER.name:
        bonus, bonus_stake = _buster_bonus(offer, rules, wager.section)
        extras += bonus
        if bonus:
            stake = bonus_stake
            notes.append(f"cash bonus at a {format_money(stake)} wager, the least that earns it")
    mystery = list(mystery)
    if wager.name == super_4.SUPER_4.name:
        spec = super_4.mystery_meter(options)
        if spec is not None:
            mystery.append(spec)
    return assemble(
        wager=wager.name,
        title=wager.title,
        section=wager.section,
        paytable=offer.paytable,
        cite=cite,
        chances=chances,
        stake=stake,
        counted=counted.counted,
        reading=reading,
        field_name=field_name,
        reading_cite=reading_cite,
        extras=extras,
        mystery=mystery,
        notes=notes,
    )


#: The paragraphs of the Buzzer Beater's reading (633b.5(m), (p)(1), (u)).
BUZZER_BEATER_READING: Final = "58 Pa. Code 633b.5(m), (p)(1), (u)"


def _reading(offer: SideWagerOffer) -> tuple[str, str, str]:
    """The reading a wager's figure depends on, the field stating it and its paragraph."""
    name = offer.wager.name
    if name == buzzer_beater.BUZZER_BEATER.name:
        basis = buzzer_beater.basis(offer.option_map)
        where = (
            "the position's first two cards"
            if basis is buzzer_beater.Basis.FIRST_TWO_CARDS
            else "each player's final hand"
        )
        return (
            f'settled on {where}, basis = "{basis.value}"',
            f"wagers.{name}.basis",
            BUZZER_BEATER_READING,
        )
    return f'paytable "{offer.paytable.name}"', f"wagers.{name}", ""


def _match_envy(
    chances: Mapping[str | None, Fraction], stake: int, seats: int, section: str
) -> list[tuple[str, str, str, Fraction, Fraction]]:
    """633b.10(h)(5), (k): one Envy Bonus per other seat holding Matching Suited Blackjacks
    with the dealer; each other seat's chance is the wager's own chance of that line."""
    table = blackjack_match.ENVY_BONUS.get(stake, {})
    return [
        (
            f"Envy Bonus: {line} at another seat",
            f"{section}(k)",
            format_money(cents),
            (seats - 1) * chances.get(line, Fraction(0)),
            Fraction(cents, stake),
        )
        for line, cents in table.items()
    ]


def _buster_bonus(
    offer: SideWagerOffer, rules: TableRules, section: str
) -> tuple[list[tuple[str, str, str, Fraction, Fraction]], int]:
    """633b.13(i): the cash bonus per unit of the least wager that earns it ($5)."""
    cents = dealer.BUSTER_BONUS_CENTS.get(str(offer.option_map.get("bonus", "none")))
    stake = max(offer.limits.minimum, buster.BONUS_MIN_WAGER)
    if cents is None or offer.limits.maximum < buster.BONUS_MIN_WAGER:
        return [], offer.limits.minimum
    chances = dealer.buster_bonus_chances(rules.decks, hits_soft_17=rules.dealer_hits_soft_17)
    out = []
    for line, (ways, total) in chances.items():
        out.append(
            (
                f"Cash bonus: Blackjack, dealer busts with {line}",
                f"{section}(i)",
                format_money(cents[line]),
                Fraction(ways, total),
                Fraction(cents[line], stake),
            )
        )
    return out, stake


def _par_return(
    offer: SideWagerOffer,
    rules: TableRules,
    reading_of: tuple[str, str, str],
    mystery: Sequence[MeterSpec],
) -> WagerReturn:
    reading, field_name, reading_cite = reading_of
    wager = offer.wager
    figure = par_figure(wager.name, rules.decks, offer.option_map)
    rtp = figure.rtp if figure is not None else float("nan")
    meters = tuple(_mystery(spec) for spec in mystery)
    counted = (
        "no par sheet figure for these options"
        if figure is None
        else f"{figure.rounds:,} rounds through the engine, seed {figure.seed} ({figure.reading})"
    )
    return WagerReturn(
        wager=wager.name,
        title=wager.title,
        section=wager.section,
        paytable=offer.paytable.name,
        reading=reading,
        setting=field_name,
        method=PAR_METHOD,
        counted=counted,
        stake=offer.limits.minimum,
        lines=(),
        fixed=rtp,
        at_reset=rtp,
        long_run=rtp + sum(m.long_run for m in meters),
        meters=meters,
        par=figure,
        reading_cite=reading_cite,
    )


@dataclass(frozen=True, slots=True)
class MustHitByTerms:
    """A Must-Hit-By Mystery Bonus (633b.14) as the returns need it: its meter and the
    wagers that feed it."""

    spec: MeterSpec
    qualifying: tuple[str, ...]


# ------------------------------------------------------------------------------- the guard


def _percent(x: float) -> str:
    return f"{100 * x:.2f}%"


def refusal(ret: WagerReturn) -> str | None:
    """Why the wager may not be offered (its long-run return is 100% or more), or None."""
    named = f"{ret.title} ({ret.reading})" if ret.reading else ret.title
    if ret.long_run != ret.long_run:  # NaN: a wager that depends on play and has no figure
        return (
            f"{ret.setting or ret.wager}: {named} has no par sheet figure for "
            "these options, so its return is unknown; measure it with etg par and add it to "
            "the stored figures before offering it"
        )
    if ret.long_run < BREAK_EVEN:
        return None
    if ret.par is not None:
        how = (
            f"par sheet: {ret.par.rounds:,} rounds through the engine, seed {ret.par.seed}, "
            f"95% interval {_percent(ret.par.low)}-{_percent(ret.par.high)}"
        )
    elif ret.meters:
        how = (
            f"exact, at the {format_money(ret.stake)} wager: {_percent(ret.at_reset)} with the "
            "meter at its reset amount; in the long run its contributions and the reseeds "
            "after its awards"
        )
    else:
        how = f"exact, at the {format_money(ret.stake)} wager"
    return (
        f"{ret.setting or ret.wager}: {named} returns "
        f"{_percent(ret.long_run)} to the player ({how}); a wager that returns 100% or more "
        f"is refused ({ret.reading_cite or ret.section})"
    )


def player_edge_problems(returns: Iterable[WagerReturn]) -> list[str]:
    """One problem per wager that returns 100% or more (:func:`refusal`), naming the Rules
    Submission's field, the wager, the reading and the figure."""
    return [problem for ret in returns if (problem := refusal(ret)) is not None]
