"""What one seat (or a spectator) may know: the only view the renderer and the bot may show.

An :class:`Observation` holds the public table, the viewer's own hand and private events, and the
viewer's legal actions when it is their decision. It never holds another seat's hand, the order of
any deck (only the face-up top card of the caverns' decks, which the rules show), or the Lords
left out of the game.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import LORD_LEVEL, POTIONS, Action, Fight
from engine.battle import Totals, active_curses, hand_size, totals
from engine.catalog import tables
from engine.names import hero_name
from engine.rules import legal_actions
from engine.state import Event, GameState, Level, Phase, Seat, SeatConfig
from i18n import Param


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


@dataclass(frozen=True, slots=True)
class LevelView:
    """A cavern level as seen on the table."""

    level: int
    row: tuple[str | None, ...]
    deck_top: str | None
    deck_count: int
    gate_top: str | None
    gate_count: int


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


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything ``viewer`` may know now (``viewer`` None: a spectator)."""

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

    def seat_view(self, index: int) -> SeatView:
        """What everyone sees of seat ``index``."""
        return self.seats[index]

    def target(self, fight: Fight) -> str | None:
        """The monster ``fight`` would face: the Lord, a gatekeeper deck's top or a row card."""
        if fight.level == LORD_LEVEL:
            return self.lord
        level = self.levels[fight.level - 1]
        return level.gate_top if fight.slot == 0 else level.row[fight.slot - 1]


def observe(state: GameState, viewer: int | None = None) -> Observation:
    """The observation of ``state`` for seat ``viewer`` (None for a spectator)."""
    current = state.current
    mine = viewer == current and state.phase is not Phase.OVER
    battle = state.battle
    return Observation(
        viewer=viewer, step=state.step, round=state.round, phase=state.phase, current=current,
        order=state.order, abilities=state.config.abilities,
        seats=tuple([_seat_view(i, seat, state.config.seats[i])
                     for i, seat in enumerate(state.seats)]),
        levels=tuple([_level_view(n, lv) for n, lv in enumerate(state.levels, start=1)]),
        lord=state.lord, potion_piles=tuple(zip(POTIONS, state.potions, strict=True)),
        pawnshop=state.pawnshop, battle=_battle(state), pending=state.pending,
        winner=state.winner,
        events=tuple([e for e in state.log if e.to is None or e.to == viewer]),
        hand=state.seats[viewer].hand if viewer is not None else (),
        drawn=battle.drawn if battle is not None and mine else (),
        legal=tuple(legal_actions(state)) if mine else (),
    )


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
    if b is None or state.phase is Phase.OVER:
        return None
    return BattleView(
        seat=state.current, level=b.level, slot=b.slot, monster=b.monster,
        curses=tables().monsters[b.monster].curses, countered=b.countered, chain=b.chain,
        boosted=b.boosted, unlocked=b.unlocked, ability_used=b.ability_used,
        horan_bonus=b.horan_bonus, totals=totals(state), active_curses=active_curses(b),
    )
