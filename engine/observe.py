"""What one seat (or a spectator) may know: the only view the renderer, the bot and the AI use.

An :class:`Observation` holds the public table, the viewer's own hand and private events, and the
viewer's legal actions when it is their decision; it is built from the state once and keeps no
reference to it. Nothing in it shows another seat's hand or Taia's pair to another seat, the
order of any deck (only the face-up top card of the caverns' decks, which the rules show), the
gatekeepers held as keys (only their levels), the Lords left out of the game or the generator.
"""

from __future__ import annotations

import msgspec
from msgspec import Struct
from msgspec.structs import replace

from engine.actions import LORD_LEVEL, POTIONS, Action, Fight, parse
from engine.battle import Totals, active_curses, totals
from engine.catalog import Tables, tables
from engine.events import seen_by
from engine.rules import legal_actions
from engine.state import BASE_HAND, Battle, Event, GameState, Level, Phase, Seat, SeatConfig
from i18n import Msg

#: Phases read at every step, as module names: reaching an enum member (``Phase.BATTLE``) is a
#: descriptor call on Python 3.11, ten times slower than reaching a module name.
_OVER = Phase.OVER

class SeatView(Struct, frozen=True, gc=False):
    """What everyone sees of a seat."""

    index: int
    name: str | Msg  # the player's name, else the hero's
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


class Observation(Struct, frozen=True, gc=False):
    """Everything ``viewer`` may know now (``viewer`` None: a spectator), and nothing else.

    :func:`observe` fills every field from the state once; no state stays behind, so every
    field, its copy and its JSON hold only the public table and the viewer's own parts (hand,
    Taia's drawn pair, private events, legal actions). Equal observations are equal values:
    compare, hash, copy (``msgspec.structs.replace``, which also makes up a position) and
    serialise it like any struct.
    """

    viewer: int | None
    step: int
    round: int
    phase: Phase
    current: int
    order: tuple[int, ...]
    abilities: bool
    seats: tuple[SeatView, ...]  # by seat index
    levels: tuple[LevelView, ...]  # the three cavern levels
    lord: str
    potion_piles: tuple[tuple[str, int], ...]  # the merchant's potions left, by kind
    pawnshop: tuple[str, ...]
    battle: BattleView | None  # the battle in progress (None once the game is over)
    pending: str | None  # the won equipment (REWARD) or the purchase (PAY); public
    winner: int | None
    events: tuple[Event, ...]  # the recent events the viewer may see
    hand: tuple[str, ...]  # the viewer's hand (empty for spectators)
    drawn: tuple[str, ...]  # Taia's pending pair, only to Taia
    legal: tuple[Action, ...]  # the viewer's legal actions when they must decide

    def target(self, fight: Fight) -> str | None:
        """The monster ``fight`` would face: the Lord, a gatekeeper deck's top or a row card."""
        if fight.level == LORD_LEVEL:
            return self.lord
        level = self.levels[fight.level - 1]
        return level.gate_top if fight.slot == 0 else level.row[fight.slot - 1]

    def packed(self) -> bytes:
        """This observation as bytes for another process of this program (:func:`unpacked`):
        MessagePack, the legal actions in their notation (a made-up observation holding a
        value MessagePack cannot carry raises ``TypeError``)."""
        return _PACKER.encode((replace(self, legal=()), [str(a) for a in self.legal]))


def observe(state: GameState, viewer: int | None = None) -> Observation:
    """The observation of ``state`` for seat ``viewer`` (None for a spectator)."""
    t = tables()
    current = state.current
    phase = state.phase
    mine = viewer == current and phase is not _OVER
    battle = state.battle
    # The fields in their order, without keywords: this runs at every step of every AI playout,
    # and a struct takes positional arguments several times quicker.
    return Observation(
        viewer, state.step, state.round, phase, current, state.order, state.config.abilities,
        _seat_views(state, t), _level_views(state.levels), state.lord, _piles(state.potions),
        state.pawnshop,
        None if battle is None or phase is _OVER else _battle_view(state, current, battle, t),
        state.pending, state.winner, seen_by(state.log, viewer),
        state.seats[viewer].hand if viewer is not None else (),
        battle.drawn if battle is not None and mine else (),
        tuple(legal_actions(state)) if mine else (),
    )


def unpacked(data: bytes) -> Observation:
    """The observation :meth:`Observation.packed` turned into ``data``."""
    obs, legal = _UNPACKER.decode(data)
    return replace(obs, legal=tuple([parse(notation) for notation in legal]))


_PACKER = msgspec.msgpack.Encoder()
_UNPACKER = msgspec.msgpack.Decoder(tuple[Observation, tuple[str, ...]])


#: The views last made, with what they show. A move changes one seat or two and rarely a cavern
#: level: the others are the very same objects in the next state, and their views are reused (an
#: identity check; the memo holds the objects it compares, so an id is never reused). The levels
#: are replaced as a whole tuple when one changes, so their views are kept for the last tuple.
#: Observing every step of a self-play game spends most of its time here.
_SEAT_VIEWS: dict[int, tuple[Seat, SeatConfig, SeatView]] = {}  # by seat index
_LEVEL_VIEWS: dict[None, tuple[tuple[Level, ...], tuple[LevelView, ...]]] = {}  # one entry


def _seat_views(state: GameState, t: Tables) -> tuple[SeatView, ...]:
    seated = state.config.seats
    views = []
    for i, seat in enumerate(state.seats):
        last = _SEAT_VIEWS.get(i)
        if last is not None and last[0] is seat and last[1] is seated[i]:
            views.append(last[2])
        else:
            view = _new_seat_view(i, seat, seated[i], t)
            _SEAT_VIEWS[i] = (seat, seated[i], view)
            views.append(view)
    return tuple(views)


def _new_seat_view(i: int, s: Seat, seated: SeatConfig, t: Tables) -> SeatView:
    potions = s.potions
    if len(potions) > 1:  # in the merchant's order
        potions = tuple([p for p in POTIONS if p in potions])
    keys = tuple(sorted([t.monsters[k].level for k in s.keys])) if s.keys else ()
    weapon, armour = s.weapon, s.armour
    size = BASE_HAND  # engine.battle.hand_size without curses, worked out here: a new view a move
    if weapon:
        size += t.equipment[weapon].hand
    if armour:
        size += t.equipment[armour].hand
    return SeatView(i, seated.name or t.hero_names[s.hero], s.hero, seated.ai, s.hp, keys,
                    weapon, armour, potions, len(s.hand), size, len(s.deck), s.discard,
                    s.stacking)


def _piles(sizes: tuple[int, int, int]) -> tuple[tuple[str, int], ...]:
    piles = _PILES.get(sizes)
    if piles is None:  # a few dozen sizes in a game at most
        strength, healing, countercurse = sizes
        piles = _PILES[sizes] = ((POTIONS[0], strength), (POTIONS[1], healing),
                                 (POTIONS[2], countercurse))
    return piles


#: The potion piles' views by their sizes.
_PILES: dict[tuple[int, int, int], tuple[tuple[str, int], ...]] = {}


def _level_views(levels: tuple[Level, ...]) -> tuple[LevelView, ...]:
    last = _LEVEL_VIEWS.get(None)
    if last is not None and last[0] is levels:
        return last[1]
    views = tuple([_level_view(n, lv) for n, lv in enumerate(levels, start=1)])
    _LEVEL_VIEWS[None] = (levels, views)
    return views


def _level_view(n: int, lv: Level) -> LevelView:
    deck, gates = lv.deck, lv.gates
    return LevelView(n, lv.row, deck[0] if deck else None, len(deck),
                     gates[0] if gates else None, len(gates))


def _battle_view(state: GameState, current: int, b: Battle, t: Tables) -> BattleView:
    curses = t.monsters[b.monster].curses
    active = curses if b.countered is None else active_curses(b)
    return BattleView(current, b.level, b.slot, b.monster, curses, b.countered, b.chain,
                      b.boosted, b.unlocked, b.ability_used, b.horan_bonus,
                      totals(state, active), active)
