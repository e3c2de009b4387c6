"""The bot's stored values, the same for every storage backend: a table (:class:`TableRecord`),
its seats, its action log rows, a finished game's result (:class:`TableResult`), the storage
errors, and the JSON texts of seats and game states, checked both ways.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from bot.storage.migration_rules import MigrationFailed
from engine import GameState, Undo, anchor_to_json, state_from_json, state_to_json
from engine.agents import DEFAULT_LEVEL, AiLevel

Status = Literal["lobby", "running", "finished", "abandoned"]
#: The statuses a stored table may have.
STATUSES: tuple[Status, ...] = ("lobby", "running", "finished", "abandoned")
ACTIVE: tuple[Status, ...] = ("lobby", "running")


@dataclass(frozen=True, slots=True)
class ServerDefaults:
    """A server's defaults for the tables opened there."""

    abilities: bool = False
    timer: int = 0
    ai_level: AiLevel = DEFAULT_LEVEL
    undo: bool = True  # whether a player may take back a move (a table's ``undo``)
    threads: bool | None = None  # each match in a thread of its own; None: the bot's default


@dataclass(frozen=True)
class Shards:
    """The Discord shards one process runs, ``ids`` of ``count``: the tables of a server heard
    on one of them (direct-message tables: shard 0) are this process's to take up first."""

    count: int
    ids: tuple[int, ...]

    def hear(self, guild_id: int | None) -> bool:
        """Whether server ``guild_id`` (None: direct messages) is heard on these shards."""
        return shard_of(guild_id, self.count) in self.ids


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard that receives the events of server ``guild_id`` (None: a direct message,
    shard 0) when the bot runs ``shard_count`` shards in all: Discord sends each server's events
    on the shard ``(server id >> 22) % shard count`` only."""
    if guild_id is None:
        return 0
    return (guild_id >> 22) % shard_count


class StorageError(Exception):
    """A storage problem that is not about one table (schema too new, unreadable file)."""


class SchemaTooNew(StorageError):
    """The database was written by a newer version of the bot."""

    def __init__(self, found: int, known: int) -> None:
        super().__init__(f"database schema {found} is newer than this bot's {known}")
        self.found = found
        self.known = known


class NotADatabase(StorageError):
    """The database file is no SQLite database, or is damaged past opening."""


class ForeignDatabase(StorageError):
    """The database file is another program's SQLite database: it holds tables but no schema
    version of this bot (opening it would add the bot's tables beside them)."""


class TableExists(StorageError):
    """The channel already has an active table (``table_id``)."""

    def __init__(self, table_id: int) -> None:
        super().__init__(f"table {table_id} is active in this channel")
        self.table_id = table_id


class CorruptTable(StorageError):
    """A table whose stored row cannot be read; only this table is affected. ``place_key``
    and ``channels`` (its channel, and its thread's) are what could be read of where it is
    played (None, and none, when even that is damaged)."""

    def __init__(self, table_id: int, reason: str, place_key: str | None = None,
                 channels: tuple[int, ...] = ()) -> None:
        super().__init__(f"table {table_id} is damaged: {reason}")
        self.table_id = table_id
        self.reason = reason
        self.place_key = place_key
        self.channels = channels


class DamagedResults(StorageError):
    """A rebuild of the ratings refused before it wrote anything: the stored results of the
    tables ``table_ids`` cannot be read (leaving them out would rate their people otherwise
    than the live ratings did)."""

    def __init__(self, table_ids: tuple[int, ...]) -> None:
        super().__init__("the stored results of tables "
                         f"{', '.join(map(str, table_ids))} are damaged")
        self.table_ids = table_ids


class DamagedOffer(StorageError):
    """The rematch offer of table ``table_id`` is stored but cannot be read; only that offer is
    affected."""

    def __init__(self, table_id: int, reason: str) -> None:
        super().__init__(f"the rematch offer of table {table_id} is damaged: {reason}")
        self.table_id = table_id


class DamagedTournament(StorageError):
    """A tournament whose stored rows (its own, or one of its entrants', rounds', tables' or
    seats') cannot be read; only this tournament is affected."""

    def __init__(self, tournament_id: int, reason: str) -> None:
        super().__init__(f"tournament {tournament_id} is damaged: {reason}")
        self.tournament_id = tournament_id


class StaleVersion(StorageError):
    """The table moved on since the version a write was based on."""


class NotHeld(StorageError):
    """An AI seat's move refused: another process holds the table's lease, and its AI turns
    and timers are that process's work. Nothing was written."""


class CannotSave(StorageError):
    """A write the database refused because its disk is full or failing: nothing was written,
    and the same write may work later."""


class Unreachable(CannotSave):
    """The database is out of reach (its server stopped, restarting or cut off, its file gone
    or unreadable): the read or write asked of it was not done, nothing was written, and the
    same may work once the database is back. A :class:`CannotSave`, so whatever a write that
    cannot be saved leaves standing stands here too."""


class DatabaseError(StorageError):
    """Any other write the database refused (a broken constraint, a damaged file): nothing was
    written."""


class SeatInfo(BaseModel):
    """Who holds a seat: a Discord user or the AI (at ``level``), the chosen hero, and missed
    turns."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    user: int | None = None
    name: str = ""
    hero: str | None = None
    ai: bool = False
    timeouts: int = 0
    level: AiLevel = DEFAULT_LEVEL


def seats_to_json(seats: Sequence[SeatInfo]) -> str:
    """Seats as JSON text."""
    return json.dumps([s.model_dump() for s in seats], separators=(",", ":"))


#: Seats texts read lately: the seats of a table stay the same across its moves, and each
#: write reads its row back.
SEATS_KEPT = 1024


@lru_cache(maxsize=SEATS_KEPT)
def seats_from_json(text: str) -> tuple[SeatInfo, ...]:
    """Read seats written by :func:`seats_to_json` (the same text reads to the same immutable
    seats); raises ValueError on bad data."""
    data = json.loads(text)
    if not isinstance(data, list) or len(data) > 4:
        raise ValueError("seats must be a list of at most 4 seats")
    try:
        return tuple(SeatInfo.model_validate(item) for item in data)
    except ValidationError as exc:
        raise ValueError(f"bad seat: {exc.errors()[0]['msg']}") from None


@dataclass(frozen=True, slots=True)
class TableRecord:
    """One stored table: lobby or game, its Discord places, seats, state and version (one more
    with every applied action, a taken-back one included: it only ever grows, so a button drawn
    at an older version is told apart from one drawn now)."""

    id: int
    guild_id: int | None
    channel_id: int
    host_id: int
    status: Status
    abilities: bool
    timer: int
    seed: int
    locale: str
    seats: tuple[SeatInfo, ...]
    state: GameState | None
    version: int
    message_id: int | None
    lobby_message_id: int | None
    deadline: float | None
    winner: int | None
    created_at: float
    updated_at: float
    #: where the table is played (:class:`bot.game.places.Place`'s key: ``guild:<id>`` or
    #: ``dm:<host id>``), never empty
    place_key: str
    revision: int = 0  # a lobby's revision: every lobby change bumps it
    ai_level: AiLevel = DEFAULT_LEVEL  # the level of the AI seats the host adds
    catalogue: str = ""  # the version of the cards the table is played with
    lessons: bool = False  # a guided first match (/goblin learn): the hand explains rules
    undo: bool = True  # whether a player may take back a move of their turn
    hints: bool | None = None  # people may ask for hints; None: decided when the game starts
    threaded: bool = False  # the match moves to a thread of its own when it starts
    thread_id: int | None = None  # that thread (its messages go there), once created
    #: when the table finished or was closed (None while it is a lobby or running); a lobby
    #: the bot closed for want of a start keeps its last change as ``updated_at``
    finished_at: float | None = None
    #: the tournament whose round opened the table as one of its matches (None: a table of
    #: its own)
    tournament_id: int | None = None
    #: where the match is played as chosen when its lobby opened (the host's ``thread:``
    #: option, or in its channel where no thread could be); None: the server's choice when it
    #: starts (``threaded`` then follows it)
    thread_choice: bool | None = None
    #: whether people may ask for hints as the host chose when the lobby opened (None: as
    #: :func:`~bot.game.hints.hints_by_default` decides from who sits at its start); ``hints``
    #: is what the match was given
    hints_choice: bool | None = None

    @property
    def where(self) -> int:
        """The channel the table's messages go to: its thread once it has one, else the
        channel it was opened in (``channel_id``, where its lobby message stays)."""
        return self.thread_id if self.thread_id is not None else self.channel_id

    def seat_of(self, user_id: int) -> int | None:
        """The seat index held by ``user_id``, or None."""
        for i, s in enumerate(self.seats):
            if s.user == user_id:
                return i
        return None

    @property
    def game(self) -> GameState:
        """The game state (only for running or finished tables)."""
        if self.state is None:
            raise CorruptTable(self.id, "no game state")
        return self.state


@dataclass(frozen=True, slots=True)
class LogRow:
    """One applied action as written to the action log (``step``: the game's step it made;
    ``undone``: taken back later, kept in the log all the same)."""

    step: int
    seat: int
    user_id: int | None
    by_ai: bool
    action: str
    at: float
    undone: bool = False


#: A take-back's notation: its log row marks the latest action still standing ``undone``.
UNDO = str(Undo())


def standing(log: Iterable[LogRow]) -> list[LogRow]:
    """The rows of an action log whose actions stand, in the order applied: every action but
    the take-backs (``undo`` rows) and the actions they took back (marked ``undone``). Their
    actions, applied to a new game of the table's configuration, reach its stored state, one
    step each: what every reader of a table's past moves replays (a replay, the story of the
    last turns, the lessons met)."""
    return [row for row in log if not row.undone and row.action != UNDO]


SeatKind = Literal["person", "ai"]


@dataclass(frozen=True, slots=True)
class SeatResult:
    """How one seat ended a finished game: who held it (``user_id`` None for an AI seat), its
    hero, keys and HP, and its ``place`` (1: the champion; the others by keys, then HP, a tie
    sharing a place). ``handed_to_ai``: a person's seat the AI played at the end (they left or
    ran out of time); ``ai_level``: the level the AI played the seat at in the end (None when a
    person played it to the end); ``moved``: the seat's person made a move of their own that
    stands (False for an AI seat, and for a person who left or ran out of time before their
    first move)."""

    seat: int
    user_id: int | None
    kind: SeatKind
    ai_level: AiLevel | None
    hero: str
    keys: int
    hp: int
    place: int
    handed_to_ai: bool
    moved: bool = False


@dataclass(frozen=True, slots=True)
class TableResult:
    """A finished table's result: where and when, how long (rounds and actions), with which
    cards (``catalogue``), the champion's seat and its person (``winner_user_id``, None for an
    AI seat; a person whose seat the AI finished still counts) and every seat.

    ``abandoned_by``: the user who abandoned the match after every person had moved (the host or
    a channel manager, seated or not), None for a match played to its end. Such a match has no
    champion: ``winner_seat`` is then the seat first in the standings, and places are the
    standings when it was abandoned, its abandoner's seat last.

    ``guided``: a guided first match (``/goblin learn``, on a fixed seed whose hand advises
    each move): kept in the history, but counted in no record (games, wins, places, records
    against the AI) and never rated."""

    table_id: int
    guild_id: int | None
    channel_id: int
    finished_at: float
    rounds: int
    actions: int
    catalogue: str
    winner_seat: int
    winner_user_id: int | None
    seats: tuple[SeatResult, ...]
    place_key: str  # where it was played (the table's ``place_key``)
    abandoned_by: int | None = None
    guided: bool = False


@dataclass(frozen=True, slots=True)
class DamagedResult:
    """A finished table's stored result that cannot be read (a value of its row, or of one of
    its seats' rows, that its column cannot hold): its table, what is wrong, and where it was
    played when that much still reads (None otherwise). Lists of past matches hold it in its
    table's place, so a page of them still counts it and reaches the matches beyond it."""

    table_id: int
    reason: str
    place_key: str | None = None
    channel_id: int | None = None


@dataclass(frozen=True, slots=True)
class Limited:
    """A match's start held to one person's limit of matches at once: the start's write takes
    the lock of ``user_id`` (in every process on the database), reads the running tables they
    sit at as that write sees them and gives them to ``check``, which refuses the start by
    raising (nothing written). The game service supplies it; storage calls it inside the
    start's transaction, so two starts of one person are counted one after the other."""

    user_id: int
    check: Callable[[Sequence[TableRecord]], None]


@dataclass(frozen=True, slots=True)
class RematchOffer:
    """An offer to play a finished table again: who offered it and when, the people who said
    they are ready (user ids, in the order they clicked), the offer's public message, and the
    table the rematch started (None while it is open; an offer is closed when it started or
    lapsed)."""

    table_id: int
    offered_by: int
    offered_at: float
    ready: tuple[int, ...]
    message_id: int | None = None
    new_table: int | None = None
    closed: bool = False


@dataclass(frozen=True, slots=True)
class StoredRating:
    """A person's skill estimate as stored: openskill's mean ``mu`` and uncertainty ``sigma``."""

    mu: float
    sigma: float


#: How a finished match changes ratings: given its result and the stored ratings of the people
#: in it who have one (by user id), the new rating of each person it rates (empty: not rated).
#: The game service supplies it; storage calls it inside the transaction that stores the result.
Rater = Callable[[TableResult, Mapping[int, StoredRating]], Mapping[int, StoredRating]]


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """A person's rating on a server: the estimate, their rated games and wins, and the table
    whose result changed it last (``last_table``)."""

    guild_id: int
    user_id: int
    rating: StoredRating
    games: int
    wins: int
    last_table: int


@dataclass(frozen=True, slots=True)
class RatingChange:
    """What one rated match did to one person's rating (``before`` None: their first)."""

    table_id: int
    guild_id: int
    user_id: int
    before: StoredRating | None
    after: StoredRating
    finished_at: float


@dataclass(frozen=True, slots=True)
class AiRecord:
    """A person's games and wins against one AI level with one hero, in matches where they were
    the only person (never rated)."""

    user_id: int
    level: str
    hero: str
    games: int
    wins: int


def won(result: TableResult, seat: SeatResult) -> bool:
    """True when ``seat`` won the match and played it to the end itself (nobody wins an
    abandoned match)."""
    return (result.abandoned_by is None and result.winner_seat == seat.seat
            and not seat.handed_to_ai)


def people(result: TableResult) -> list[SeatResult]:
    """The seats of ``result`` held by a person (to the end or handed to the AI)."""
    return [s for s in result.seats if s.user_id is not None]


def against_ai(result: TableResult) -> list[AiRecord]:
    """What the match ``result`` adds to a person's records against the AI: when they were the
    only person who made a move, one game (and a win when they won it) against each AI level
    at the table, a person who never moved counting as one more AI seat at the level it was
    played at; nothing for a match of two people or more, nor for a guided match."""
    if result.guided:
        return []
    seated = [s for s in people(result) if s.moved]
    user = seated[0].user_id if len(seated) == 1 else None
    if user is None:
        return []
    levels = sorted({s.ai_level or DEFAULT_LEVEL for s in result.seats
                     if s.user_id is None or not s.moved})
    return [AiRecord(user, level, seated[0].hero, 1, int(won(result, seated[0])))
            for level in levels]


def places(state: GameState) -> tuple[int, ...]:
    """Each seat's place in a finished game: the winner first, then by keys, then by HP; seats
    with as many keys and HP share a place (1, 2, 2, 4)."""
    def score(i: int) -> tuple[int, int, int]:
        seat = state.seats[i]
        return (int(i == state.winner), len(seat.keys), seat.hp)

    scores = [score(i) for i in range(len(state.seats))]
    return tuple(1 + sum(other > mine for other in scores) for mine in scores)


def seat_results(seats: Sequence[SeatInfo], state: GameState, ranks: Sequence[int],
                 moved: Collection[tuple[int, int | None]] = ()) -> tuple[SeatResult, ...]:
    """The seats' rows of a result: ``seats`` as they are at the end, ``state`` the game as it
    stands, ``ranks`` each seat's place, ``moved`` the (seat, user) of each person who made a
    move of their own."""
    return tuple(
        SeatResult(seat=i, user_id=info.user, kind="person" if info.user is not None else "ai",
                   ai_level=info.level if info.ai else None, hero=seat.hero,
                   keys=len(seat.keys), hp=seat.hp, place=ranks[i],
                   handed_to_ai=info.ai and info.user is not None, moved=(i, info.user) in moved)
        for i, (info, seat) in enumerate(zip(seats, state.seats, strict=True)))


def table_result(table_id: int, guild_id: int | None, channel_id: int, catalogue: str,
                 seats: Sequence[SeatInfo], state: GameState, finished_at: float,
                 place_key: str) -> TableResult:
    """The result of a finished game ``state`` played at a table with ``seats`` at the place
    ``place_key``, every person counted as having moved (the game tells who did:
    :mod:`bot.game.results`)."""
    if state.winner is None:
        raise ValueError("the game has no winner yet")
    rows = seat_results(seats, state, places(state),
                        [(i, s.user) for i, s in enumerate(seats) if s.user is not None])
    return TableResult(
        table_id=table_id, guild_id=guild_id, channel_id=channel_id, finished_at=finished_at,
        rounds=state.round, actions=state.step, catalogue=catalogue, winner_seat=state.winner,
        winner_user_id=seats[state.winner].user, seats=rows, place_key=place_key)



def storable(state: GameState) -> str:
    """The state as JSON, checked to read back: a state that could not be loaded is never saved.
    Its take-back's anchor is not in it: it is stored apart (:func:`anchor_column`)."""
    text = state_to_json(state)
    state_from_json(text)
    return text


def anchor_column(state: GameState) -> dict[str, object]:
    """The ``anchor`` column a write of ``state`` sets: the anchor of its take-back record
    (:func:`engine.serialize.anchor_to_json`) when its last move opened the take-back window
    (the record lists that one move), NULL when no take-back is open, and nothing while the
    window stays open (the anchor stored when it opened is still the one)."""
    history = state.undo
    if history is None:
        return {"anchor": None}
    if len(history.moves) == 1:
        return {"anchor": anchor_to_json(state)}
    return {}


def load_state(text: str, anchor: str | None = None) -> GameState:
    """Read a stored state with the anchor of its take-back (its ``anchor`` column); a state
    whose anchor is missing or is not its own reads with no take-back open."""
    return state_from_json(text, anchor)


def with_seat(seats: Sequence[SeatInfo], index: int, seat: SeatInfo) -> tuple[SeatInfo, ...]:
    """A copy of ``seats`` with seat ``index`` replaced."""
    out = list(seats)
    out[index] = seat
    return tuple(out)


# ---------------------------------------------------------------- tournaments

TournamentStatus = Literal["signup", "running", "finished", "cancelled"]
#: The statuses a stored tournament may have: players sign up, its rounds are played, it ended
#: with its champion, or it closed before it started.
TOURNAMENT_STATUSES: tuple[TournamentStatus, ...] = ("signup", "running", "finished",
                                                     "cancelled")


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    """One stored tournament: where (a server's ``place_key``, the channel it was opened in),
    who opened it (``host_id``), its settings (``rounds``: None for as many as its entrants
    need; ``table_size``; the turn ``timer`` and ``abilities`` of its matches; ``ai_level``:
    the level of the AI seats filling short tables, None for none; ``round_span``: the seconds
    a round lasts, 0 for no limit; ``closes_at``: when the sign-up closes and it starts, None:
    when its host starts it), its ``seed``, its status, the round under way (0 before the
    first) and that round's ``deadline``, and its messages."""

    id: int
    guild_id: int
    place_key: str
    channel_id: int
    host_id: int
    name: str
    rounds: int | None
    table_size: int
    timer: int
    abilities: bool
    ai_level: AiLevel | None
    round_span: int
    closes_at: float | None
    seed: int
    locale: str
    status: TournamentStatus
    round: int
    deadline: float | None
    signup_message_id: int | None
    standings_message_id: int | None
    created_at: float
    updated_at: float


@dataclass(frozen=True, slots=True)
class EntrantRow:
    """A tournament's entrant as stored: their rating (as shown) when they entered, updated
    when it started, and the rounds seated before they dropped (None: still in)."""

    user_id: int
    name: str
    rating: int
    joined_at: float
    dropped_after: int | None = None


@dataclass(frozen=True, slots=True)
class TournamentRoundRow:
    """A seated round: its number, the seed it was drawn with, the player with a bye (None:
    nobody) and when it began."""

    round: int
    seed: int
    bye_user: int | None
    started_at: float


@dataclass(frozen=True, slots=True)
class TournamentTableRow:
    """One table of a round: the round, the table's number in it (``pod``, 1: the top
    table), its match (a table of ``tables``), the person at each seat (None: an AI seat), the
    place each seat took (None while undecided), whether it is decided, whether the round's
    deadline decided it and the seat whose person abandoned its match (``forfeit``; None:
    nobody seated there did)."""

    round: int
    pod: int
    table_id: int
    seats: tuple[int | None, ...]
    places: tuple[int | None, ...]
    decided: bool = False
    at_deadline: bool = False
    forfeit: int | None = None


@dataclass(frozen=True, slots=True)
class TournamentRows:
    """Everything stored of a tournament: its row, its entrants (in the order they entered),
    its rounds and their tables (by round, then table)."""

    record: TournamentRecord
    entrants: tuple[EntrantRow, ...]
    rounds: tuple[TournamentRoundRow, ...]
    tables: tuple[TournamentTableRow, ...]


@dataclass(frozen=True, slots=True)
class NewTournamentTable:
    """A match a round opens: its table's number in the round, its seats and its first state
    (with the seed it was dealt from), its first turn's deadline and whether it moves to a
    thread of its own (``threaded``; false: it is played in the tournament's channel) and
    whether its players may take back a move (``undo``, the server's setting)."""

    pod: int
    seats: tuple[SeatInfo, ...]
    state: GameState
    seed: int
    deadline: float | None
    threaded: bool = True
    undo: bool = True


@dataclass(frozen=True, slots=True)
class TournamentMatch:
    """A past match of a tournament, as ``/goblin history`` lists it: its table, the round
    and the table's number in it (``pod``), whether the round's deadline decided it, and its
    stored ``result`` (None: closed at the deadline unrated, so only its table tells how it
    stood)."""

    table_id: int
    round: int
    pod: int
    at_deadline: bool
    result: TableResult | DamagedResult | None


__all__ = [
    "ForeignDatabase",
    "MigrationFailed",
    "NotADatabase",
    "TOURNAMENT_STATUSES", "EntrantRow", "NewTournamentTable", "TournamentMatch",
    "TournamentRecord", "TournamentRoundRow", "TournamentRows", "TournamentStatus",
    "TournamentTableRow",
    "ACTIVE", "STATUSES", "AiRecord", "CannotSave", "CorruptTable", "DamagedOffer",
    "DamagedResult", "DamagedResults", "DamagedTournament", "DatabaseError", "Limited", "LogRow",
    "NotHeld", "PlayerRating", "Rater", "RatingChange", "RematchOffer", "SchemaTooNew",
    "SeatInfo", "SeatKind", "SeatResult", "ServerDefaults", "Shards", "StaleVersion", "Status",
    "StorageError",
    "StoredRating", "TableExists", "TableRecord", "TableResult", "UNDO", "Unreachable",
    "against_ai", "anchor_column",
    "load_state", "people",
    "places", "seat_results", "seats_from_json", "seats_to_json", "shard_of", "standing",
    "storable", "table_result", "with_seat", "won",
]
