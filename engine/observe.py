"""What one seat (or a spectator) may know: the only view the renderer and the bot may show.

An :class:`Observation` holds the public table, the viewer's own hand and private events, and the
viewer's legal actions when it is their decision. None of its public parts shows another seat's
hand, the order of any deck (only the face-up top card of the caverns' decks, which the rules
show), or the Lords left out of the game.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import msgspec
from msgspec import Struct
from msgspec.structs import fields, replace

from engine.actions import LORD_LEVEL, POTIONS, Action, Fight
from engine.battle import Totals, active_curses, hand_size, totals
from engine.catalog import tables
from engine.names import hero_name
from engine.rules import legal_actions
from engine.state import Event, GameState, Level, Phase, Seat, SeatConfig
from i18n import Param


class SeatView(Struct, frozen=True, gc=False):
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


class LevelView(Struct, frozen=True, gc=False):
    """A cavern level as seen on the table."""

    level: int
    row: tuple[str | None, ...]
    deck_top: str | None
    deck_count: int
    gate_top: str | None
    gate_count: int


class BattleView(Struct, frozen=True, gc=False):
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


#: The public parts of an observation, in the order :meth:`Observation.public` lists them.
PARTS = ("viewer", "step", "round", "phase", "current", "order", "abilities", "seats", "levels",
         "lord", "potion_piles", "pawnshop", "battle", "pending", "winner", "events", "hand",
         "drawn", "legal")


class Observation(Struct, frozen=True, dict=True, eq=False):
    """Everything ``viewer`` may know now (``viewer`` None: a spectator).

    The fields are filled by :func:`observe`; the views of the seats, levels, battle, potion piles
    and events are worked out from the observed state when first read (most readers, the agents
    above all, read only a few of them) and kept (the struct's ``__dict__`` holds them). Equality,
    hashing, ``repr`` and :meth:`public` cover all public parts and never the state behind them.
    """

    viewer: int | None
    step: int
    round: int
    phase: Phase
    current: int
    order: tuple[int, ...]
    abilities: bool
    lord: str
    pawnshop: tuple[str, ...]
    pending: str | None  # the won equipment (REWARD) or the purchase (PAY); public
    winner: int | None
    hand: tuple[str, ...]  # the viewer's hand (empty for spectators)
    drawn: tuple[str, ...]  # Taia's pending pair, only to Taia
    legal: tuple[Action, ...]  # the viewer's legal actions when they must decide
    _state: GameState  # the observed state; read only through the views

    @cached_property
    def _seat_views(self) -> list[SeatView | None]:
        """The seat views worked out so far, by seat."""
        return [None] * len(self._state.seats)

    def seat_view(self, index: int) -> SeatView:
        """What everyone sees of seat ``index`` (worked out for this seat alone)."""
        views = self._seat_views
        view = views[index]
        if view is None:
            state = self._state
            view = views[index] = _seat_view(index, state.seats[index], state.config.seats[index])
        return view

    @cached_property
    def seats(self) -> tuple[SeatView, ...]:
        """What everyone sees of each seat, by seat index."""
        return tuple([self.seat_view(i) for i in range(len(self._seat_views))])

    @cached_property
    def levels(self) -> tuple[LevelView, ...]:
        """The three cavern levels as seen on the table."""
        return tuple([_level_view(n, lv) for n, lv in enumerate(self._state.levels, start=1)])

    @cached_property
    def potion_piles(self) -> tuple[tuple[str, int], ...]:
        """The merchant's potions left, by kind."""
        return tuple(zip(POTIONS, self._state.potions, strict=True))

    @cached_property
    def battle(self) -> BattleView | None:
        """The battle in progress, with its running totals (None once the game is over)."""
        return None if self.phase is Phase.OVER else _battle(self._state)

    @cached_property
    def events(self) -> tuple[Event, ...]:
        """The recent events the viewer may see."""
        viewer = self.viewer
        return tuple([e for e in self._state.log if e.to is None or e.to == viewer])

    def target(self, fight: Fight) -> str | None:
        """The monster ``fight`` would face: the Lord, a gatekeeper deck's top or a row card."""
        if fight.level == LORD_LEVEL:
            return self.lord
        level = self.levels[fight.level - 1]
        return level.gate_top if fight.slot == 0 else level.row[fight.slot - 1]

    def replaced(self, **parts: Any) -> Observation:
        """A copy with the named public parts replaced and every other one as here: a made-up
        position (``msgspec.structs.replace`` replaces only the fields)."""
        unknown = set(parts) - set(PARTS)
        if unknown:
            raise TypeError(f"not a part of an observation: {', '.join(sorted(unknown))}")
        names = {f.name for f in fields(self)}
        copy = replace(self, **{k: v for k, v in parts.items() if k in names})
        for name in PARTS:  # the worked-out parts, fixed as cached_property keeps them
            if name not in names:
                copy.__dict__[name] = parts.get(name, getattr(self, name))
        copy.__dict__["_seat_views"] = list(copy.seats)  # seat_view reads the given seats
        copy.__dict__["_made_up"] = True  # no state behind it holds these parts
        return copy

    def packed(self) -> bytes:
        """This observation as bytes for another process of this program (:func:`unpacked`):
        the observed state and the viewer in MessagePack, far quicker both ways than pickling
        the observation. Secret parts included: never show or store them. A made-up
        observation (:meth:`replaced`) cannot travel so."""
        if "_made_up" in self.__dict__:
            raise ValueError("a made-up observation cannot be packed")
        return _PACKER.encode((self._state, self.viewer))

    def public(self) -> dict[str, Any]:
        """Every public part by name (see :data:`PARTS`)."""
        return {name: getattr(self, name) for name in PARTS}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Observation):
            return NotImplemented
        return self.public() == other.public()

    def __hash__(self) -> int:
        return hash(tuple(self.public().values()))

    def __repr__(self) -> str:
        parts = ", ".join(f"{name}={getattr(self, name)!r}" for name in PARTS)
        return f"Observation({parts})"


def observe(state: GameState, viewer: int | None = None) -> Observation:
    """The observation of ``state`` for seat ``viewer`` (None for a spectator)."""
    current = state.current
    mine = viewer == current and state.phase is not Phase.OVER
    battle = state.battle
    return Observation(
        viewer=viewer, step=state.step, round=state.round, phase=state.phase, current=current,
        order=state.order, abilities=state.config.abilities, lord=state.lord,
        pawnshop=state.pawnshop, pending=state.pending, winner=state.winner,
        hand=state.seats[viewer].hand if viewer is not None else (),
        drawn=battle.drawn if battle is not None and mine else (),
        legal=tuple(legal_actions(state)) if mine else (), _state=state,
    )


def unpacked(data: bytes) -> Observation:
    """The observation :meth:`Observation.packed` turned into ``data``."""
    state, viewer = _UNPACKER.decode(data)
    return observe(state, viewer)


_PACKER = msgspec.msgpack.Encoder()
_UNPACKER = msgspec.msgpack.Decoder(tuple[GameState, int | None])


def _seat_view(i: int, s: Seat, seated: SeatConfig) -> SeatView:
    potions = s.potions
    if len(potions) > 1:  # in the merchant's order
        potions = tuple([p for p in POTIONS if p in potions])
    keys: tuple[int, ...] = ()
    if s.keys:
        monsters = tables().monsters
        keys = tuple(sorted([monsters[k].level for k in s.keys]))
    return SeatView(i, seated.name or hero_name(seated.hero), s.hero, seated.ai, s.hp, keys,
                    s.weapon, s.armour, potions, len(s.hand), hand_size(s), len(s.deck),
                    s.discard, s.stacking)


def _level_view(n: int, lv: Level) -> LevelView:
    return LevelView(level=n, row=lv.row, deck_top=lv.deck[0] if lv.deck else None,
                     deck_count=len(lv.deck), gate_top=lv.gates[0] if lv.gates else None,
                     gate_count=len(lv.gates))


def _battle(state: GameState) -> BattleView | None:
    b = state.battle
    if b is None:
        return None
    return BattleView(
        seat=state.current, level=b.level, slot=b.slot, monster=b.monster,
        curses=tables().monsters[b.monster].curses, countered=b.countered, chain=b.chain,
        boosted=b.boosted, unlocked=b.unlocked, ability_used=b.ability_used,
        horan_bonus=b.horan_bonus, totals=totals(state), active_curses=active_curses(b),
    )
