"""Taking back a misclick (N19): which moves a seat may take back, and how the take-back reads.

A seat may take back its own moves while its turn goes on, one at a time, as far back as the last
move that showed it something hidden or left something to chance. Whether a move did is read
from the states before and after it, never from a list of action kinds, so a new rule cannot
forget it (:func:`revealed`): the generator moved (a shuffle or any other random choice), a card
left a zone hidden from the seat (drawn, or turned over), a discard pile became a deck, or an
event went to one seat alone (something only that seat saw). A move that ends the turn or the
game closes the take-back as well (:func:`closes`).

What taking back needs is kept in the state (``GameState.undo``, a
:class:`~engine.state.TakeBack`): the notations of the moves that can still be taken back, and
the state before the first of them, the anchor, which the record points at (the game made it
already: nothing is copied). :func:`record` works it out for every move's new state;
:func:`engine.rules.apply` takes a move back by replaying all but the last from the anchor, which
rebuilds the earlier state exactly, its step, log and take-back record included.

A saved state holds the moves only; the anchor is saved apart, once per take-back window (it
changes only when a move opens a new window): :func:`engine.serialize.anchor_to_json` writes it
and :func:`engine.serialize.state_from_json` takes it back, replaying the moves from it to
rebuild the record. A state read without its anchor (or with another one) reads with no
take-back open: the seat cannot take back, and nothing else is lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from engine import events
from engine.actions import (
    Action,
    BuyPawned,
    BuyPotion,
    Discard,
    Fight,
    KeepDrawn,
    Pay,
    Play,
    SetStacking,
    TakeReward,
)
from engine.fighting import monster_at
from engine.legality import EQUIPMENT_SLOTS
from engine.names import card_name, monster_name, seat_name, word
from engine.state import Event, GameState, Level, Phase, Seat, TakeBack
from i18n import Msg, msg

_OVER = Phase.OVER  # read on every move: a module name is quicker to reach than an enum member


class Position(Protocol):
    """What :func:`closes` reads of the position after a move: a :class:`GameState`, or the
    :class:`~engine.table.Table` a move has just worked on."""

    @property
    def rng(self) -> int:
        """The generator's state."""
    @property
    def seats(self) -> Sequence[Seat]:
        """The seats, by index."""
    @property
    def levels(self) -> tuple[Level, ...]:
        """The cavern levels."""
    @property
    def turn(self) -> int:
        """The position in the turn order whose turn it is."""
    @property
    def round(self) -> int:
        """The round."""
    @property
    def phase(self) -> Phase:
        """The pending decision's kind."""


def revealed(before: GameState, after: Position, said: Sequence[Event]) -> bool:
    """Whether the move from ``before`` to ``after``, which said ``said``, made a random choice or
    showed something hidden from the seat that moved.

    It did if the generator's state changed, if an event went to one seat alone, or if a card
    left a zone hidden from that seat: a deck (any seat's, as a deck's order is hidden from its
    owner too), another seat's hand, or a cavern's deck or gatekeeper deck below its face-up top
    (so a refilled row slot turns the next card over). A discard pile that lost a card was made
    a deck (R17: nothing else takes a card from it), and a rebuilt deck closes the take-back even
    when the move drew all of it at once (Taia drawing the one card of a pile of one, which no
    shuffle and no private event tells). A card put into a hidden zone shows
    nothing (Taia's other card under her deck, a bought card on top of the buyer's deck). The
    seat's own hand and Taia's drawn pair are known to it: playing or paying a card from there
    can be taken back, as at a real table.
    """
    if after.rng != before.rng:
        return True
    for event in said:
        if event.to is not None:
            return True
    me = before.order[before.turn]
    old_seats, new_seats = before.seats, after.seats
    for i in range(len(old_seats)):
        old, new = old_seats[i], new_seats[i]
        if old is not new and ((old.deck is not new.deck and _left(old.deck, new.deck))
                               or (old.discard is not new.discard
                                   and _left(old.discard, new.discard))
                               or (i != me and _left(old.hand, new.hand))):
            return True
    if after.levels is before.levels:
        return False
    for old_level, new_level in zip(before.levels, after.levels, strict=True):
        if old_level is not new_level and (_left(old_level.deck[1:], new_level.deck[1:])
                                           or _left(old_level.gates[1:], new_level.gates[1:])):
            return True
    return False


def _left(old: tuple[str, ...], new: tuple[str, ...]) -> bool:
    """Whether a card of the zone ``old`` is no longer in it (``new``)."""
    for card in old:  # a loop, not ``any`` over a generator: every move asks
        if card not in new:
            return True
    return False


def closes(before: GameState, after: Position, said: Sequence[Event]) -> bool:
    """Whether no move up to ``after`` may be taken back any more: the move ended the turn or
    the game, or it was :func:`revealed`."""
    return (after.turn != before.turn or after.round != before.round
            or after.phase is _OVER or revealed(before, after, said))


def record(before: GameState, action: Action, after: Position,
           said: Sequence[Event]) -> TakeBack | None:
    """The take-back record of the state ``action`` leads to from ``before`` (``after``, the
    table the move left, not frozen yet): ``before``'s record one move longer (a new one from
    ``before`` if it had none), or None when the move :func:`closes` the take-back. The record
    goes into the new state as it is made (:meth:`engine.table.Table.freeze`), not into a copy
    of it."""
    if closes(before, after, said):
        return None
    history = before.undo
    if history is None:
        return TakeBack((str(action),), before)
    return TakeBack((*history.moves, str(action)), history.base)


def taken_back(earlier: GameState, move: Action) -> Event:
    """The event "Ann takes back Slip Away." for ``move``, the move the current seat of
    ``earlier`` made there and now takes back."""
    return events.take_back(seat_name(earlier, earlier.current), move_name(earlier, move))


def move_name(state: GameState, action: Action) -> Msg:
    """``action``, a move legal in ``state``, named as a take-back names it ("the fight against
    the Spider", or a card's name for the card played)."""
    if isinstance(action, Fight):
        return msg("move.fight", monster=monster_name(monster_at(state, action)))
    if isinstance(action, Play | Discard | KeepDrawn):
        return msg(f"move.{action.verb}", card=card_name(action.card))
    if isinstance(action, SetStacking):
        return msg("move.stack", mode=word("stacking", action.mode))
    if isinstance(action, TakeReward):
        won = card_name(state.pending or "")
        return msg("move.reward_keep" if action.keep else "move.reward_pawn", card=won)
    if isinstance(action, BuyPotion):
        return msg("move.buy", item=word("potion", action.kind))
    if isinstance(action, BuyPawned):
        return msg("move.buy", item=card_name(action.card))
    if isinstance(action, Pay):
        paid = getattr(state.seat, action.source) if action.source in EQUIPMENT_SLOTS \
            else action.source
        return msg("move.pay", item=card_name(paid or ""))
    return msg(f"move.{action.verb}")
