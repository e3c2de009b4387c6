"""engine.observe hides what the rules hide: along seeded games, states that differ only in what a
seat cannot see give that seat equal observations (equal values, equal JSON, equal packed bytes),
and nothing an observation holds, walked field by field, is a card hidden from its viewer."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from enum import Enum
from functools import cache

import msgspec
import pytest
from msgspec import Struct
from msgspec.structs import fields, replace
from property_play import hidden_from
from random_play import random_positions

from engine import Event, GameConfig, GameState, SeatConfig, observe
from engine.catalog import tables
from engine.observe import Observation
from engine.state import Battle, Level, Seat
from engine.validate import check_state
from i18n import Msg, msg

TABLES = [
    GameConfig((SeatConfig("taia"), SeatConfig("horan"), SeatConfig("xanros"),
                SeatConfig("aderyn")), abilities=True, seed=7),
    GameConfig((SeatConfig("argentus", name="Ann"), SeatConfig("victorius"), SeatConfig("taia")),
               abilities=True, seed=21),
    GameConfig((SeatConfig("aderyn"), SeatConfig("horan", stacking="top")), seed=5),
]
#: Moves of each seeded game, long enough for keys, rewards in hand and a stocked pawnshop.
MOVES = 900
#: What an observation may hold, besides other structs and tuples of them.
LEAVES = (str, int, bool, type(None), Enum)
#: Parts of a state, which an observation must never hold.
STATE_PARTS = (GameState, Seat, Level, Battle, GameConfig)


@cache
def _positions() -> tuple[GameState, ...]:
    """Every third position of each table's seeded game."""
    return tuple(state for config in TABLES for state in random_positions(config, MOVES)[::3])


def _viewers(state: GameState) -> list[int | None]:
    return [*range(len(state.seats)), None]


# --------------------------------------------------------------------------- the same to a seat


class _Places:
    """A state's hidden card places, as lists that can be reshuffled (index 0 of a cavern or
    gatekeeper deck is its face-up top and stays)."""

    def __init__(self, state: GameState, viewer: int | None) -> None:
        self.state = state
        self.viewer = viewer
        battle = state.battle
        self.pair_hidden = battle is not None and bool(battle.drawn) and viewer != state.current
        self.hands = [list(s.hand) for s in state.seats]
        self.decks = [list(s.deck) for s in state.seats]
        self.keys = [list(s.keys) for s in state.seats]
        self.pair = list(battle.drawn) if battle is not None else []
        self.caverns = [list(lv.deck) for lv in state.levels]
        self.gates = [list(lv.gates) for lv in state.levels]

    def seat_slots(self, i: int) -> list[tuple[list[str], int]]:
        """Where seat ``i``'s cards lie hidden from the viewer."""
        zones = [self.decks[i]]
        if i != self.viewer:
            zones.append(self.hands[i])
            if self.pair_hidden and i == self.state.current:
                zones.append(self.pair)
        return [(zone, k) for zone in zones for k in range(len(zone))]

    def below_tops(self, decks: list[list[str]]) -> list[tuple[list[str], int]]:
        return [(deck, k) for deck in decks for k in range(1, len(deck))]

    def state_after(self) -> GameState:
        """The state with the cards as the lists now hold them."""
        s = self.state
        seats = tuple(replace(seat, hand=tuple(self.hands[i]), deck=tuple(self.decks[i]),
                              keys=tuple(self.keys[i])) for i, seat in enumerate(s.seats))
        levels = tuple(replace(lv, deck=tuple(self.caverns[n]), gates=tuple(self.gates[n]))
                       for n, lv in enumerate(s.levels))
        battle = None if s.battle is None else replace(s.battle, drawn=tuple(self.pair))
        return replace(s, seats=seats, levels=levels, battle=battle)


def _mix(slots: list[tuple[list[str], int]], rnd: random.Random) -> None:
    """Deal the cards of ``slots`` back into them in a random order."""
    cards = [zone[k] for zone, k in slots]
    rnd.shuffle(cards)
    for (zone, k), card in zip(slots, cards, strict=True):
        zone[k] = card


def unseen_variant(state: GameState, viewer: int | None, rnd: random.Random) -> GameState:
    """A legal state that differs from ``state`` only in what ``viewer`` cannot see: reward
    cards swapped between other seats' hands and decks and the cavern decks of their level,
    every seat's hidden cards and every deck below its top reshuffled, the gatekeepers held as
    keys swapped with those of their deck, another generator and other seats' private events
    rewritten."""
    places = _Places(state, viewer)
    monsters = tables().monsters
    seats = range(len(state.seats))
    for level in (1, 2, 3):  # R40: reward cards travel; each stays a card of its level
        pool = [slot for i in seats if i != viewer for slot in places.seat_slots(i)]
        pool += places.below_tops(places.caverns)
        _mix([(zone, k) for zone, k in pool if zone[k] in monsters
              and monsters[zone[k]].level == level and monsters[zone[k]].reward == "action"],
             rnd)
    for i in seats:  # starting cards never leave their seat
        _mix(places.seat_slots(i), rnd)
    for level in (1, 2, 3):
        _mix(places.below_tops(places.caverns[level - 1:level]), rnd)
        held = [(keys, k) for keys in places.keys for k in range(len(keys))
                if monsters[keys[k]].level == level]
        _mix(held + places.below_tops(places.gates[level - 1:level]), rnd)
    log = tuple(e if e.to is None or e.to == viewer
                else Event(msg("event.draw_private", cards=f"secret {rnd.random()}"), to=e.to)
                for e in state.log)
    return replace(places.state_after(), rng=rnd.getrandbits(64), log=log)


def test_what_a_seat_cannot_see_changes_nothing_it_observes() -> None:
    rnd = random.Random(2024)
    changed: Counter[str] = Counter()
    for state in _positions():
        for viewer in _viewers(state):
            other = unseen_variant(state, viewer, rnd)
            check_state(other)  # a position the game could reach
            seen, again = observe(state, viewer), observe(other, viewer)
            assert again == seen, f"seat {viewer} tells hidden cards apart at step {state.step}"
            assert msgspec.json.encode(again) == msgspec.json.encode(seen)
            assert again.packed() == seen.packed()
            for part in ("seats", "levels", "battle", "rng", "log"):
                changed[part] += getattr(other, part) != getattr(state, part)
    assert all(changed[part] > 50 for part in ("seats", "levels", "battle", "rng", "log")), changed


# --------------------------------------------------------------------------- nothing hidden held


def _walk(value: object, path: str) -> Iterator[tuple[str, str]]:
    """Every text inside ``value`` with where it is (a ``card.X`` or ``back.X`` message key
    also yields the card ``X``); fails on anything but structs, tuples, messages and leaves."""
    assert not isinstance(value, STATE_PARTS), f"{path} is a part of the state"
    if isinstance(value, str):
        yield path, value
        head, _, card = value.partition(".")
        if head in ("card", "back") and card:
            yield path, card
    elif isinstance(value, Struct):
        for field in fields(value):
            yield from _walk(getattr(value, field.name), f"{path}.{field.name}")
    elif isinstance(value, tuple):
        for k, item in enumerate(value):
            yield from _walk(item, f"{path}[{k}]")
    elif isinstance(value, Msg):
        yield from _walk(value.key, f"{path}.key")
        for name, param in value.params:
            yield from _walk(param, f"{path}.{name}")
    else:
        assert isinstance(value, LEAVES), f"{path} holds a {type(value).__name__}"


def hidden_cards(state: GameState, viewer: int | None) -> set[str]:
    """What ``viewer`` may not know is where it is: other hands, every deck below its face-up
    top (the seat's own in any order), Taia's pair, the gatekeepers held as keys (only their
    levels show) and the Lords left out of the game."""
    out = hidden_from(state, viewer)
    out.update(key for seat in state.seats for key in seat.keys)
    out.update(lord for lord in tables().lords if lord != state.lord)
    return out


def test_no_part_of_an_observation_holds_a_hidden_card() -> None:
    held = 0
    for state in _positions():
        for viewer in _viewers(state):
            view = observe(state, viewer)
            assert not hasattr(view, "__dict__")  # no room for anything but the fields
            hidden = hidden_cards(state, viewer)
            held += len(hidden)
            for field in fields(Observation):
                if field.name == "events":  # public history, checked below
                    continue
                found = {f"{where}: {text}" for where, text in
                         _walk(getattr(view, field.name), field.name) if text in hidden}
                assert not found, f"seat {viewer} at step {state.step} sees {sorted(found)}"
            for event in view.events:
                list(_walk(event, "events"))
                assert event in state.log and event.to in (None, viewer)
    assert held  # the games hid something to look for


def test_the_walk_finds_a_hidden_card_and_a_state_part() -> None:
    """The walk above sees cards inside messages and refuses a state smuggled in."""
    state = _positions()[40]
    view = observe(state, 0)
    secret = state.seats[1].hand[0]
    forged = replace(view, events=(Event(msg("event.draw_private", cards=msg(f"card.{secret}")),
                                          to=0),))
    assert secret in {text for _, text in _walk(forged, "view")}
    with pytest.raises(AssertionError, match="part of the state"):
        list(_walk(replace(view, hand=(state,)), "view"))  # type: ignore[arg-type]
