"""The table while one action is carried out: a mutable working copy of a game state.

:func:`engine.rules.apply` builds a :class:`Table` from the state, hands it to the handler of
the action (:mod:`engine.fighting`, :mod:`engine.merchant`, the turn's own in
:mod:`engine.rules`), then freezes it into the next state. Drawing, reshuffling (R17, D5),
ending a turn (R28) and taking a beaten monster (R27) live here, shared by every handler; each
random choice comes from the state's seeded generator.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from engine import events, rng
from engine.actions import LORD_LEVEL, POTIONS, Action
from engine.battle import hand_size
from engine.catalog import tables
from engine.names import card_list, seat_name
from engine.state import LOG_LENGTH, Battle, Event, GameState, Phase, Seat, TakeBack
from i18n import Param

#: Phases read at every step, as module names: reaching an enum member (``Phase.BATTLE``) is a
#: descriptor call on Python 3.11, ten times slower than reaching a module name.
_TURN = Phase.TURN


class Table:
    """A mutable working copy of a state, used while one action is applied."""

    __slots__ = ("state", "rng", "seats", "levels", "potions", "pawnshop", "phase", "battle",
                 "pending", "bought_pawned", "winner", "turn", "round", "said", "me")

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.rng = state.rng
        self.seats = list(state.seats)
        self.levels = state.levels  # these three change rarely: replaced, never mutated, so an
        self.potions = state.potions  # untouched one stays the same object in the new state
        self.pawnshop = state.pawnshop
        self.phase = state.phase
        self.battle = state.battle
        self.pending = state.pending
        self.bought_pawned = state.bought_pawned
        self.winner = state.winner
        self.turn = state.turn
        self.round = state.round
        self.said: list[Event] = []  # the events of this action, in order
        self.me = state.current

    @property
    def seat(self) -> Seat:
        """The seat acting now."""
        return self.seats[self.me]

    def set(self, **changes: Any) -> None:
        """Change fields of the seat acting now."""
        self.seats[self.me] = replace(self.seats[self.me], **changes)

    def pile(self, kind: str, change: int) -> None:
        """Return potions to (``change`` > 0) or take them from the merchant's ``kind`` pile."""
        piles = list(self.potions)
        piles[POTIONS.index(kind)] += change
        self.potions = (piles[0], piles[1], piles[2])

    def who(self, seat: int | None = None) -> Param:
        """The name of ``seat`` (the seat acting now by default), for an event."""
        return seat_name(self.state, self.me if seat is None else seat)

    def freeze(self, undo: TakeBack | None = None) -> GameState:
        """The next state: this table's contents, one step on, with this action's events logged
        and the take-back record ``undo`` (:func:`engine.undo.record`)."""
        state = self.state
        log = (state.log + tuple(self.said))[-LOG_LENGTH:] if self.said else state.log
        return GameState(
            state.config, self.rng, tuple(self.seats), state.order, self.turn, self.round,
            self.levels, state.lord, self.potions, self.pawnshop, self.phase, self.battle,
            self.pending, self.bought_pawned, self.winner, state.step + 1, log, undo,
        )

    # ---- cards

    def rebuild_deck(self, index: int) -> None:
        """R17 + D5: the discard pile becomes the deck, per the seat's stacking preference."""
        seat = self.seats[index]
        actions = tables().actions
        mode = seat.stacking
        if mode == "shuffle":
            deck, self.rng = rng.shuffled(self.rng, seat.discard)
        else:
            start, self.rng = rng.shuffled(
                self.rng, [c for c in seat.discard if not actions[c].reward])
            rewards, self.rng = rng.shuffled(
                self.rng, [c for c in seat.discard if actions[c].reward])
            deck = rewards + start if mode == "top" else start + rewards
        self.seats[index] = replace(seat, deck=seat.deck + deck, discard=())
        self.said.append(events.reshuffle(self.who(index), len(deck)))

    def take(self, index: int) -> str | None:
        """Take the top card of a seat's deck, reshuffling only when it is empty (R17)."""
        if not self.seats[index].deck:
            if not self.seats[index].discard:
                return None
            self.rebuild_deck(index)
        seat = self.seats[index]
        card = seat.deck[0]
        self.seats[index] = replace(seat, deck=seat.deck[1:])
        return card

    def draw(self, index: int, count: int) -> int:
        """Draw up to ``count`` cards into a seat's hand (R17); how many it drew."""
        seat = self.seats[index]
        if len(seat.deck) >= count:  # no reshuffle on the way: take them at once
            drawn = seat.deck[:count]
            seat = replace(seat, hand=seat.hand + drawn, deck=seat.deck[count:])
        else:
            cards: list[str] = []
            for _ in range(count):
                card = self.take(index)
                if card is None:
                    break
                cards.append(card)
            drawn = tuple(cards)
            seat = self.seats[index]
            if drawn:
                seat = replace(seat, hand=seat.hand + drawn)
        self.seats[index] = seat
        if drawn:
            self.said.append(events.draw(self.who(index), len(drawn)))
            self.said.append(events.draw_private(card_list(drawn), to=index))
        return len(drawn)

    # ---- turn flow

    def end_turn(self) -> None:
        """R28: played cards to the discard pile, draw up to a full hand, next seat."""
        me = self.me
        seat = self.seats[me]
        if self.battle is not None:
            self.seats[me] = seat = replace(seat, discard=seat.discard + self.battle.chain)
            self.battle = None
        missing = hand_size(seat) - len(seat.hand)
        if missing > 0:
            self.draw(me, missing)
        self.pending = None
        self.bought_pawned = False
        self.phase = _TURN
        order = self.state.order
        self.turn = (self.turn + 1) % len(order)
        if self.turn == 0:
            self.round += 1
        self.me = order[self.turn]
        self.said.append(events.turn(self.who(), self.round))

    def remove_monster(self, battle: Battle) -> None:
        """R27: take the beaten monster; refill its row slot from the level's deck."""
        if battle.level == LORD_LEVEL:
            return
        levels = list(self.levels)
        lv = levels[battle.level - 1]
        if battle.slot == 0:
            levels[battle.level - 1] = replace(lv, gates=lv.gates[1:])
        else:
            row = list(lv.row)
            row[battle.slot - 1] = lv.deck[0] if lv.deck else None
            levels[battle.level - 1] = replace(lv, row=tuple(row), deck=lv.deck[1:])
        self.levels = tuple(levels)


def without(cards: tuple[str, ...], card: str) -> tuple[str, ...]:
    """``cards`` with the first copy of ``card`` taken out."""
    i = cards.index(card)
    return cards[:i] + cards[i + 1:]


#: What carries out one kind of action on the table.
Handler = Callable[[Table, Action], None]
