"""The events the rules narrate, one maker per event: ``events.play(who, card)`` is the event
"Ann plays Cleave." as an :class:`~engine.state.Event` holding its :class:`~i18n.Msg`.

Each maker takes its parameters by position, in the order it was declared with, and ``to``, the
only seat that may see the event (None: everyone).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.state import Event
from i18n import Msg, Param, translate

#: Every maker's parameter names by its event key (the tests check each against the English
#: text's placeholders).
MAKERS: dict[str, tuple[str, ...]] = {}


@dataclass(frozen=True, slots=True)
class EventMaker:
    """Makes the event ``key`` from the values of its parameters ``names``, given in that order;
    ``order`` lists the positions of the names in alphabetical order, the order of a message's
    parameters."""

    key: str
    names: tuple[str, ...]
    order: tuple[int, ...]

    def __call__(self, *values: Param, to: int | None = None) -> Event:
        """The event with these parameter values, seen by seat ``to`` only (None: everyone)."""
        names = self.names
        if len(values) != len(names):
            raise TypeError(f"{self.key} takes {len(names)} values, not {len(values)}")
        order = self.order
        if len(order) == 1:  # most events name one thing or two: no list for them
            return Event(Msg(self.key, ((names[0], values[0]),)), to)
        if len(order) == 2:
            i, j = order
            return Event(Msg(self.key, ((names[i], values[i]), (names[j], values[j]))), to)
        params = []
        for i in order:  # a loop: quicker than a comprehension, and events come at every move
            params.append((names[i], values[i]))
        return Event(Msg(self.key, tuple(params)), to)


def seen_by(said: Iterable[Event], viewer: int | None) -> tuple[Event, ...]:
    """The events of ``said`` that seat ``viewer`` may see (None: a spectator, public ones only)."""
    log = said if type(said) is tuple else tuple(said)
    shown = 0  # loops, quicker than a comprehension: every observation asks
    for event in log:
        to = event.to
        if to is not None and to != viewer:
            break
        shown += 1
    else:  # the viewer sees them all: the very tuple, no copy
        return log
    seen = list(log[:shown])
    for event in log[shown + 1:]:
        to = event.to
        if to is None or to == viewer:
            seen.append(event)
    return tuple(seen)


def narrate(said: Iterable[Event], locale: str, viewer: int | None = None) -> list[str]:
    """The events of ``said`` that ``viewer`` may see, each as a sentence in ``locale``."""
    return [translate(e.text, locale) for e in seen_by(said, viewer)]


def maker(key: str, *names: str) -> EventMaker:
    """Declare the event ``key`` with the parameters ``names`` and return its maker."""
    if key in MAKERS or len(set(names)) != len(names) or "to" in names:
        raise ValueError(f"bad event maker {key!r} {names!r}")
    MAKERS[key] = names
    return EventMaker(key, names, tuple(sorted(range(len(names)), key=names.__getitem__)))


start = maker("event.start", "lord")
fight = maker("event.fight", "who", "monster", "level")
merchant = maker("event.merchant", "who")
revive = maker("event.revive", "who")
stacking = maker("event.stacking", "who", "mode")
potion_healing = maker("event.potion_healing", "who")
potion_strength = maker("event.potion_strength", "who", "effect", "card")
potion_counter = maker("event.potion_counter", "who", "curse")
discard = maker("event.discard", "who", "card")
ability = maker("event.ability", "who", "hero")
horan = maker("event.horan", "who")
play = maker("event.play", "who", "card")
heal = maker("event.heal", "who", "count")
draw = maker("event.draw", "who", "count")
draw_private = maker("event.draw_private", "cards")
reshuffle = maker("event.reshuffle", "who", "count")
taia_choice = maker("event.taia_choice", "first", "second")
taia_kept = maker("event.taia_kept", "card", "other")
hits = maker("event.hits", "who", "count")
knocked_out = maker("event.knocked_out", "who")
lost = maker("event.lost", "who", "monster", "attack", "hp")
won = maker("event.won", "who", "monster", "attack", "hp")
champion = maker("event.champion", "who")
key = maker("event.key", "who", "level")
reward_card = maker("event.reward_card", "who", "card")
pawned = maker("event.pawned", "who", "card")
equip = maker("event.equip", "who", "card")
bought = maker("event.bought", "who", "item", "paid")
leave = maker("event.leave", "who")
turn = maker("event.turn", "who", "round")
take_back = maker("event.take_back", "who", "move")
