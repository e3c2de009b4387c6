"""The immutable game state: seats, caverns, merchant, the pending decision and the generator.

Everything is a frozen ``msgspec.Struct`` of tuples, so a state can be shared, compared and stored
safely; ``msgspec.structs.replace(value, field=...)`` copies one with changes. The engine's values
(these, the actions, battle totals and observation views) hold only text, numbers, messages,
tuples and other such values, so none can be part of a reference cycle: they are declared with
``gc=False`` and the garbage collector never walks the states a game keeps.
Zones hold card ids; a monster card won as a reward keeps its id (its back is the reward).
"""

from __future__ import annotations

from enum import Enum

from msgspec import Struct
from msgspec.structs import replace

from i18n import Msg

#: Version of the saved state format (engine.serialize reads the older ones too).
STATE_FORMAT = 2
MAX_HP = 5
BASE_HAND = 4
LOG_LENGTH = 12


class Phase(str, Enum):  # noqa: UP042 - str() and JSON keep the plain value
    """The kind of decision pending (always the current seat's)."""

    TURN = "turn"  # fight, merchant or revive
    DISCARD = "discard"  # discard down to the hand size an equipment curse leaves (R23)
    BATTLE = "battle"  # play a card, drink a potion or end the battle
    TAIA = "taia"  # keep one of two drawn cards (R66)
    REWARD = "reward"  # keep or pawn won equipment (R27)
    MERCHANT = "merchant"  # buy or leave (R40-R43)
    PAY = "pay"  # choose the payment of a purchase (R40)
    OVER = "over"  # the game has a winner


class SeatConfig(Struct, frozen=True, gc=False):
    """One seat as the table was set up: hero, display name and whether an AI plays it."""

    hero: str
    name: str = ""
    ai: bool = False
    stacking: str = "shuffle"


class GameConfig(Struct, frozen=True, gc=False):
    """How a game is created: seats, the hero-abilities variant (D4) and the seed."""

    seats: tuple[SeatConfig, ...]
    abilities: bool = False
    seed: int = 0


class Seat(Struct, frozen=True, gc=False):
    """One seat's hero, HP, cards and equipment. Deck index 0 is the top."""

    hero: str
    hp: int = MAX_HP
    hand: tuple[str, ...] = ()
    deck: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    weapon: str | None = None
    armour: str | None = None
    keys: tuple[str, ...] = ()  # gatekeeper card ids, one per level at most
    potions: tuple[str, ...] = ()  # potion kinds held, at most one of each
    stacking: str = "shuffle"  # D5 preference: shuffle, top or bottom


class Level(Struct, frozen=True, gc=False):
    """One cavern level: its row of 5 slots, its regular deck and its gatekeeper deck."""

    row: tuple[str | None, ...]
    deck: tuple[str, ...]
    gates: tuple[str, ...]


class Battle(Struct, frozen=True, gc=False):
    """The battle in progress: which monster, from where, and what has happened so far."""

    level: int  # 1-3, or 4 for the Lord
    slot: int  # 1-5 for a row slot, 0 for the gatekeeper deck or the Lord
    monster: str
    chain: tuple[str, ...] = ()  # cards played, in order
    boosted: tuple[tuple[int, str], ...] = ()  # (chain index, effect) doubled by strength
    countered: str | None = None  # curse countered by a potion
    ability_used: bool = False  # Argentus / Xanros once-per-battle ability
    unlocked: tuple[tuple[int, str], ...] = ()  # (chain index, effect) Xanros counts anyway
    horan_bonus: bool = False
    drawn: tuple[str, ...] = ()  # Taia's two drawn cards awaiting her choice
    draws_left: int = 0  # Taia's remaining draws after the pending choice
    hp_before: int | None = None  # HP before the hits, once resolved (reward choice)


class Event(Struct, frozen=True, gc=False):
    """Something that happened, as a message; ``to`` is the only seat that may see it, or None."""

    text: Msg
    to: int | None = None


class TakeBack(Struct, frozen=True, gc=False, omit_defaults=True):
    """What taking back a move needs (N19): the notations of the seat's moves that can still be
    taken back, oldest first, and ``base``, the state before the first of them (the anchor).
    Taking one back replays all but the last from ``base``. Never shown in an observation.

    In memory ``base`` is the earlier state itself (an immutable value the game already made, so
    keeping it costs nothing). Saved JSON holds the moves only: the anchor is saved apart, once
    per take-back window (:func:`engine.serialize.anchor_to_json`), and given back to
    :func:`engine.serialize.state_from_json`; a record read without it (``base`` None) is
    dropped there, so the engine's states always have their ``base``. States saved with the
    whole ``base`` inside (before the anchor was kept apart) still read with it.
    """

    moves: tuple[str, ...]
    base: GameState | None = None


class GameState(Struct, frozen=True, gc=False, omit_defaults=True):
    """A complete game position. ``step`` counts the moves that led here: taking a move back
    returns to the state before it, its step included. ``undo`` is None unless the current seat
    may take back its last move (N19); games saved before it existed load with None, and so do
    states read without their take-back's anchor (:class:`TakeBack`).
    """

    config: GameConfig
    rng: int
    seats: tuple[Seat, ...]
    order: tuple[int, ...]  # seat indexes in turn order (R6)
    turn: int  # position in ``order`` whose turn it is
    round: int
    levels: tuple[Level, ...]
    lord: str
    potions: tuple[int, int, int]  # strength, healing, countercurse pile sizes
    pawnshop: tuple[str, ...]
    phase: Phase
    battle: Battle | None = None
    pending: str | None = None  # REWARD: the won card; PAY: "potion:<kind>" or a pawnshop card
    bought_pawned: bool = False  # a pawnshop card was bought this visit (R42)
    winner: int | None = None
    step: int = 0
    log: tuple[Event, ...] = ()
    undo: TakeBack | None = None

    @property
    def current(self) -> int:
        """The seat whose turn it is (and who must decide)."""
        return self.order[self.turn]

    @property
    def seat(self) -> Seat:
        """The current seat's state."""
        return self.seats[self.order[self.turn]]

    def with_seat(self, index: int, seat: Seat) -> GameState:
        """A copy with seat ``index`` replaced."""
        seats = self.seats[:index] + (seat,) + self.seats[index + 1:]
        return replace(self, seats=seats)

