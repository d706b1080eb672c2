"""Game recall at the terminal: this terminal's current game and the 9 before it, one page
each, newest first (GLI-11 "Game Recall"; AGCO Standards 13.1.1).

Each page shows what the log holds for that game: the table and round, the credits at its
start and end, the wagers by category, the dealer's cards and this terminal's hands, every
decision (the countdown's marked as such) and each wager's result; an Ultimate Texas Hold
'Em game (653a) also its community cards, each hand's name and the Magic Card and Lucky
Bonus position drawn. Opening the screen asks
the server (``GetRecall``); the terminal never builds recall from its own memory.
"""

from __future__ import annotations

import pygame

from shared.cards import parse_card
from shared.money import format_money
from terminal_client.model import Document, RecalledGame, TerminalModel
from terminal_client.model.totals import hand_total
from terminal_client.render import Layout, draw_hand
from terminal_client.render.draw import CREAM, GOLD, draw_text
from terminal_client.screens.base import IntentSender
from terminal_client.screens.overlay import PagedOverlay, draw_lines, status_text
from terminal_client.screens.scene import wager_name
from terminal_client.screens.uth import uth_wager_title

_OUTCOMES = {"won": "WON", "lost": "LOST", "pushed": "PUSH", "surrendered": "SURRENDERED"}


def _money(cents: int | None) -> str:
    return "--" if cents is None else format_money(cents)


class RecallScreen(PagedOverlay):
    """One page per recalled game, the newest (the current game) first."""

    design_size = (1700, 980)

    def __init__(self, model: TerminalModel, client: IntentSender) -> None:
        super().__init__(model, client)
        client.request_recall()

    def games(self) -> tuple[RecalledGame, ...]:
        recall = self.model.recall
        return () if recall is None else recall.games

    def title(self) -> str:
        games = self.games()
        if not games:
            return "GAME RECALL"
        game = games[min(self.page, len(games) - 1)]
        which = "LAST GAME" if self.page == 0 else f"{self.page + 1} GAMES AGO"
        if self.page == 0 and game.status != "complete":
            which = "CURRENT GAME"
        return f"GAME RECALL: {which}"

    def page_count(self) -> int:
        return max(1, len(self.games()))

    def page_label(self) -> str:
        games = self.games()
        return f"{self.page + 1} of {len(games)}" if games else ""

    def summary(self, game: RecalledGame) -> list[tuple[str, str]]:
        """The page's rows of text: credits, wagers, decisions, results."""
        status = "" if game.status == "complete" else " (in progress)"
        rows = [
            (f"Table {game.table}, round {game.round}{_place(game)}{status}", ""),
            (f"Started {game.start[:19].replace('T', ' ')} UTC", ""),
            ("Credits at start", _money(game.credits_start)),
            ("Credits at end", _money(game.credits_end)),
        ]
        rows += [(f"Wagered on {wager_name(name)}", _money(cents)) for name, cents in game.wagers]
        rows.append(("Total paid back", _money(game.paid)))
        if game.magic_card is not None:
            rows.append(("Magic Card drawn (653a.12(e)(3))", parse_card(game.magic_card).symbol))
        if game.lucky_position is not None:
            lucky = game.lucky_position
            where = "dealer" if lucky == 0 else f"seat {lucky}"
            rows.append(("Lucky Bonus position drawn", where))
        return rows

    def results(self, game: RecalledGame) -> list[tuple[str, str]]:
        rows = []
        if game.game == "uth":
            # 653a.12: the short title (its line already names the wager's paytable).
            for result in game.results:
                outcome = _OUTCOMES.get(result.outcome, result.outcome.upper())
                what = f"{uth_wager_title(result.wager)}: {outcome}"
                rows.append((f"{what} ({result.line})", f"paid {_money(result.paid)}"))
            return rows
        for result in game.results:
            hand = f" hand {result.hand + 1}" if len(game.hands) > 1 else ""
            outcome = _OUTCOMES.get(result.outcome, result.outcome.upper())
            rows.append(
                (
                    f"{result.title}{hand}: {outcome} ({result.line})",
                    f"paid {_money(result.paid)}",
                )
            )
        return rows

    def draw_page(self, surface: pygame.Surface, layout: Layout, box: pygame.Rect) -> None:
        s = layout.scale
        state = self.model.document(Document.RECALL)
        games = self.games()
        if not games:
            if state.waiting:
                text = "Loading this terminal's last games from the table ..."
            elif state.error:
                text = f"Game recall unavailable: {state.error}"
            else:
                text = "No games have been played at this terminal yet"
            status_text(surface, layout, box, text)
            return
        game = games[min(self.page, len(games) - 1)]
        half = box.width // 2 - round(20 * s)
        left = pygame.Rect(box.left, box.top, half, box.height)
        right = pygame.Rect(box.right - half, box.top, half, box.height)
        draw_lines(surface, layout, left, self.summary(game), size=27, pitch=38)
        decisions_top = left.top + round(38 * (len(self.summary(game)) + 0.5) * s)
        decisions = pygame.Rect(left.left, decisions_top, left.width, left.bottom - decisions_top)
        draw_text(surface, "Decisions", decisions.topleft, round(27 * s), GOLD, "topleft", True)
        body = pygame.Rect(decisions.left, decisions.top + round(38 * s), decisions.width, 0)
        body.height = decisions.bottom - body.top
        lines = [(d, "") for d in game.decisions] or [("No decisions (none were needed)", "")]
        draw_lines(surface, layout, body, lines, size=24, pitch=32)
        if game.game == "uth":
            self._draw_uth_cards(surface, layout, right, game)
            return
        # Cards: the dealer's, then each of this terminal's hands.
        card_h = round(150 * s)
        y = right.top
        dealer_total = "" if game.dealer_total is None else f"  {game.dealer_total}"
        draw_text(
            surface, f"Dealer{dealer_total}", (right.left, y), round(27 * s), GOLD, "topleft", True
        )
        draw_hand(
            surface,
            pygame.Rect(right.left, y + round(36 * s), right.width, card_h),
            game.dealer_cards,
            card_h,
        )
        y += card_h + round(50 * s)
        if game.hybrid and game.board:
            # 633b.5(q), (y)(4): the round's community cards, in the order they were drawn.
            small = round(card_h * 0.6)
            draw_text(
                surface, "Community cards", (right.left, y), round(25 * s), GOLD, "topleft", True
            )
            draw_hand(
                surface,
                pygame.Rect(right.left, y + round(32 * s), right.width, small),
                game.board,
                small,
            )
            y += small + round(44 * s)
        for index, cards in enumerate(game.hands):
            label = "Your hand" if len(game.hands) == 1 else f"Hand {index + 1}"
            total = hand_total(cards).text if cards else ""
            draw_text(
                surface, f"{label}  {total}", (right.left, y), round(27 * s), GOLD, "topleft", True
            )
            height = card_h if len(game.hands) == 1 else round(card_h * 0.7)
            draw_hand(
                surface,
                pygame.Rect(right.left, y + round(36 * s), right.width, height),
                cards,
                height,
            )
            y += height + round(50 * s)
        results = pygame.Rect(right.left, y, right.width, right.bottom - y)
        draw_lines(surface, layout, results, self.results(game), size=24, pitch=32)
        if not game.results:
            draw_text(surface, "Not settled yet", results.topleft, round(24 * s), CREAM, "topleft")

    def _draw_uth_cards(
        self, surface: pygame.Surface, layout: Layout, area: pygame.Rect, game: RecalledGame
    ) -> None:
        """An Ultimate Texas Hold 'Em game (653a): the dealer's two cards, the community
        cards and this terminal's two cards, each with its hand's name, then the results."""
        s = layout.scale
        card_h = round(112 * s)
        y = area.top
        rows = (
            ("Dealer", game.dealer_hand_name, game.dealer_cards),
            ("Community cards", None, game.board),
            ("Your cards", game.hand_name, game.hands[0] if game.hands else ()),
        )
        for label, name, cards in rows:
            title = f"{label}: {name}" if name else label
            draw_text(surface, title, (area.left, y), round(25 * s), GOLD, "topleft", True)
            draw_hand(
                surface,
                pygame.Rect(area.left, y + round(32 * s), area.width, card_h),
                tuple(cards),
                card_h,
            )
            y += card_h + round(44 * s)
        results = pygame.Rect(area.left, y, area.width, area.bottom - y)
        draw_lines(surface, layout, results, self.results(game), size=20, pitch=26)
        if not game.results:
            draw_text(surface, "Not settled yet", results.topleft, round(24 * s), CREAM, "topleft")


def _place(game: RecalledGame) -> str:
    """Where the player sat: a seat, a hybrid table's position, or nothing (stadium play)."""
    if not game.hybrid:
        return f", seat {game.seat}"
    return "" if game.position is None else f", position {game.position}"
