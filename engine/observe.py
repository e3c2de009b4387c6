"""What one seat (or a spectator) may know: the only view the renderer and the bot may show.

An :class:`Observation` holds the public table, the viewer's own hand and private events, and the
viewer's legal actions when it is their decision. It never holds another seat's hand, the order of
any deck (only the face-up top card of the caverns' decks, which the rules show), or the Lords
left out of the game. Its costlier parts are worked out when first read, from the state it keeps
in a private slot that is no field (so no comparison, copy or serialisation reaches it); code
outside the engine never reads private members (ruff's SLF001 is on for it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.actions import LORD_LEVEL, POTIONS, Action, Fight
from engine.battle import Totals, active_curses, hand_size, totals
from engine.catalog import tables
from engine.names import seat_name
from engine.rules import legal_tuple
from engine.state import Event, GameConfig, GameState, Level, Phase, Seat
from engine.values import builder, fast_init
from i18n import Param


@fast_init
@dataclass(frozen=True, slots=True)
class SeatView:
    """What everyone sees of a seat."""

    index: int
    name: Param
    hero: str
    ai: bool
    hp: int
    keys: tuple[int, ...]  # levels whose key the seat holds
    weapon: str | None
    armour: str | None
    potions: tuple[str, ...]
    hand_count: int
    hand_size: int
    deck_count: int
    discard: tuple[str, ...]  # face up, so public
    stacking: str


@fast_init
@dataclass(frozen=True, slots=True)
class LevelView:
    """A cavern level as seen on the table."""

    level: int
    row: tuple[str | None, ...]
    deck_top: str | None
    deck_count: int
    gate_top: str | None
    gate_count: int


@fast_init
@dataclass(frozen=True, slots=True)
class BattleView:
    """The battle in progress, with its running totals."""

    seat: int
    level: int
    slot: int
    monster: str
    curses: tuple[str, ...]
    countered: str | None
    chain: tuple[str, ...]
    boosted: tuple[tuple[int, str], ...]
    unlocked: tuple[tuple[int, str], ...]
    ability_used: bool
    horan_bonus: bool
    totals: Totals
    active_curses: tuple[str, ...]


class _Deferred:
    """Where an :class:`Observation` works out its deferred parts from, until they are asked for.

    Holds the state privately (no field of the observation, so no view of it, serialisation or
    comparison ever reaches it); only the functions of this module read it, and each derives a
    part the viewer may know.
    """

    __slots__ = ("_state",)
    _state: GameState


@dataclass(frozen=True, slots=True)
class Observation(_Deferred):
    """Everything ``viewer`` may know now (``viewer`` None: a spectator).

    :func:`observe` defers ``seats``, ``levels``, ``potion_piles``, ``battle`` and ``events``:
    each is worked out the first time it is read, then kept (an agent deciding a battle reads
    only ``phase`` and ``legal``). To everything outside, the fields behave as plain
    values: reading, comparing, :func:`dataclasses.replace` and serialising all see them.
    """

    viewer: int | None
    step: int
    round: int
    phase: Phase
    current: int
    order: tuple[int, ...]
    abilities: bool
    seats: tuple[SeatView, ...]
    levels: tuple[LevelView, ...]
    lord: str
    potion_piles: tuple[tuple[str, int], ...]
    pawnshop: tuple[str, ...]
    battle: BattleView | None
    pending: str | None  # the won equipment (REWARD) or the purchase (PAY); public
    winner: int | None
    events: tuple[Event, ...]  # recent events the viewer may see
    hand: tuple[str, ...]  # the viewer's hand (empty for spectators)
    drawn: tuple[str, ...]  # Taia's pending pair, only to Taia
    legal: tuple[Action, ...]  # the viewer's legal actions when they must decide

    if not TYPE_CHECKING:  # typed attribute access stays checked; this only fills a deferred part

        def __getattr__(self, name: str) -> object:
            make = _DEFERRED.get(name)
            if make is None:
                raise AttributeError(name)
            value = make(self._state, self.viewer)
            _SETTERS[name](self, value)
            return value

    def seat_view(self, index: int) -> SeatView:
        """``seats[index]``, without working out the other seats' views when ``seats`` was not
        read yet (an agent deciding its turn needs only its own)."""
        try:
            state = self._state
        except AttributeError:  # built whole, not by observe (a dataclasses.replace copy, say)
            return self.seats[index]
        return _seat_view(state, index, state.seats[index])  # equal to seats[index]

    def target(self, fight: Fight) -> str | None:
        """The monster ``fight`` would face: the Lord, a gatekeeper deck's top or a row card."""
        if fight.level == LORD_LEVEL:
            return self.lord
        level = self.levels[fight.level - 1]
        return level.gate_top if fight.slot == 0 else level.row[fight.slot - 1]


#: Views of unchanged seats and levels are reused: a state shares its untouched parts with the
#: state before it, so most of a new observation is already built. Keyed by object identity (the
#: cache holds the object, so its id cannot be reused while cached); cleared when it grows.
#: Small on purpose: the old states a larger cache keeps alive cost more in memory traffic than
#: its hits save (random 4-seat games, when observations were built whole: 4096 seats, 43-45
#: us/step; 512, 40-44 us/step, alternated in one run of benchmarks/engine.py).
_CACHE_LIMIT = 512
_seat_views: dict[int, tuple[Seat, GameConfig, int, SeatView]] = {}
_level_views: dict[int, tuple[Level, int, LevelView]] = {}


def _seat_view(state: GameState, i: int, s: Seat) -> SeatView:
    hit = _seat_views.get(id(s))
    if hit is not None and hit[0] is s and hit[1] is state.config and hit[2] == i:
        return hit[3]
    potions = s.potions
    if len(potions) > 1:  # in the merchant's order
        potions = tuple([p for p in POTIONS if p in potions])
    keys: tuple[int, ...] = ()
    if s.keys:
        monsters = tables().monsters
        keys = tuple(sorted([monsters[k].level for k in s.keys]))
    view = SeatView(i, seat_name(state, i), s.hero, state.config.seats[i].ai, s.hp, keys,
                    s.weapon, s.armour, potions, len(s.hand), hand_size(s), len(s.deck),
                    s.discard, s.stacking)
    if len(_seat_views) >= _CACHE_LIMIT:
        _seat_views.clear()
    _seat_views[id(s)] = (s, state.config, i, view)
    return view


def _level_view(n: int, lv: Level) -> LevelView:
    hit = _level_views.get(id(lv))
    if hit is not None and hit[0] is lv and hit[1] == n:
        return hit[2]
    view = LevelView(level=n, row=lv.row, deck_top=lv.deck[0] if lv.deck else None,
                     deck_count=len(lv.deck), gate_top=lv.gates[0] if lv.gates else None,
                     gate_count=len(lv.gates))
    if len(_level_views) >= _CACHE_LIMIT:
        _level_views.clear()
    _level_views[id(lv)] = (lv, n, view)
    return view


#: The last observation made for each viewer (a seat index, or None), with its state: the bot
#: shows one state to several viewers in turn, each perhaps more than once.
_observations: dict[int | None, tuple[GameState, Observation]] = {}
#: The last levels tuple viewed and its views, swapped as one tuple (so threads see a pair).
_last_levels: tuple[tuple[Level, ...] | None, tuple[LevelView, ...]] = (None, ())


def observe(state: GameState, viewer: int | None = None) -> Observation:
    """The observation of ``state`` for seat ``viewer`` (None for a spectator)."""
    hit = _observations.get(viewer)
    if hit is not None and hit[0] is state:
        return hit[1]
    b = state.battle
    current = state.order[state.turn]
    mine = viewer == current and state.phase is not Phase.OVER
    view = _shell(state, viewer, state.step, state.round, state.phase, current, state.order,
                  state.config.abilities, state.lord, state.pawnshop, state.pending, state.winner,
                  state.seats[viewer].hand if viewer is not None else (),
                  b.drawn if b is not None and mine else (), legal_tuple(state) if mine else ())
    if len(_observations) >= 8:  # a viewer that is no seat index was asked about
        _observations.clear()
    _observations[viewer] = (state, view)
    return view


def _seats(state: GameState, viewer: int | None) -> tuple[SeatView, ...]:
    return tuple([_seat_view(state, i, s) for i, s in enumerate(state.seats)])


def _levels(state: GameState, viewer: int | None) -> tuple[LevelView, ...]:
    global _last_levels
    seen, levels = _last_levels
    if seen is not state.levels:  # an action that takes no monster keeps the levels tuple
        levels = tuple([_level_view(i, lv) for i, lv in enumerate(state.levels, start=1)])
        _last_levels = (state.levels, levels)
    return levels


def _potion_piles(state: GameState, viewer: int | None) -> tuple[tuple[str, int], ...]:
    return ((POTIONS[0], state.potions[0]), (POTIONS[1], state.potions[1]),
            (POTIONS[2], state.potions[2]))


def _battle(state: GameState, viewer: int | None) -> BattleView | None:
    b = state.battle
    if b is None or state.phase is Phase.OVER:
        return None
    return BattleView(
        seat=state.current, level=b.level, slot=b.slot, monster=b.monster,
        curses=tables().monsters[b.monster].curses, countered=b.countered, chain=b.chain,
        boosted=b.boosted, unlocked=b.unlocked, ability_used=b.ability_used,
        horan_bonus=b.horan_bonus, totals=totals(state), active_curses=active_curses(b),
    )


def _events(state: GameState, viewer: int | None) -> tuple[Event, ...]:
    return tuple([e for e in state.log if e.to is None or e.to == viewer])


#: How each deferred field of an observation is worked out, and the stores into their slots.
_DEFERRED: dict[str, Callable[[GameState, int | None], object]] = {
    "seats": _seats, "levels": _levels, "potion_piles": _potion_piles, "battle": _battle,
    "events": _events,
}
_SETTERS: dict[str, Callable[[Observation, object], None]] = {
    name: getattr(Observation, name).__set__ for name in _DEFERRED
}
#: Makes an observation with its state and every field but the deferred ones, in this order.
_shell = builder(Observation, (
    "_state", "viewer", "step", "round", "phase", "current", "order", "abilities", "lord",
    "pawnshop", "pending", "winner", "hand", "drawn", "legal"))
