"""The bot's stored values, without SQL: a table's row read into a :class:`TableRecord`, its
seats, its action log rows, the storage errors, and a game state's stored text checked both ways.

Reading a row never raises anything but :class:`CorruptTable` for that one table.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from engine import BadState, GameState, Phase, state_from_json, state_to_json
from engine.agents import DEFAULT_LEVEL, LEVELS, AiLevel
from engine.serialize import from_data

Status = Literal["lobby", "running", "finished", "abandoned"]
ACTIVE: tuple[Status, ...] = ("lobby", "running")


@dataclass(frozen=True, slots=True)
class ServerDefaults:
    """A server's defaults for the tables opened there."""

    abilities: bool = False
    timer: int = 0
    ai_level: AiLevel = DEFAULT_LEVEL


class StorageError(Exception):
    """A storage problem that is not about one table (schema too new, unreadable file)."""


class SchemaTooNew(StorageError):
    """The database was written by a newer version of the bot."""

    def __init__(self, found: int, known: int) -> None:
        super().__init__(f"database schema {found} is newer than this bot's {known}")
        self.found = found
        self.known = known


class TableExists(StorageError):
    """The channel already has an active table (``table_id``)."""

    def __init__(self, table_id: int) -> None:
        super().__init__(f"table {table_id} is active in this channel")
        self.table_id = table_id


class CorruptTable(StorageError):
    """A table whose stored row cannot be read; only this table is affected."""

    def __init__(self, table_id: int, reason: str) -> None:
        super().__init__(f"table {table_id} is damaged: {reason}")
        self.table_id = table_id
        self.reason = reason


class StaleVersion(StorageError):
    """The table moved on since the version a write was based on."""


class CannotSave(StorageError):
    """A write the database refused because its disk is full or failing: nothing was written,
    and the same write may work later."""


def cannot_save(exc: BaseException) -> bool:
    """True when ``exc`` is SQLite saying the database or its disk is full, or an I/O error."""
    return (isinstance(exc, sqlite3.OperationalError)
            and getattr(exc, "sqlite_errorcode", 0) & 0xFF
            in (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR))


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


def seats_from_json(text: str) -> tuple[SeatInfo, ...]:
    """Read seats written by :func:`seats_to_json`; raises ValueError on bad data."""
    data = json.loads(text)
    if not isinstance(data, list) or len(data) > 4:
        raise ValueError("seats must be a list of at most 4 seats")
    try:
        return tuple(SeatInfo.model_validate(item) for item in data)
    except ValidationError as exc:
        raise ValueError(f"bad seat: {exc.errors()[0]['msg']}") from None


@dataclass(frozen=True, slots=True)
class TableRecord:
    """One stored table: lobby or game, its Discord places, seats, state and version."""

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
    revision: int = 0  # a lobby's revision: every lobby change bumps it
    ai_level: AiLevel = DEFAULT_LEVEL  # the level of the AI seats the host adds

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
    """One applied action as written to the action log."""

    step: int
    seat: int
    user_id: int | None
    by_ai: bool
    action: str
    at: float



#: Parsed states kept per table (the latest one each), so reading a table again is cheap.
STATE_CACHE = 4096
StateCache = dict[int, tuple[str, GameState]]


def read_record(row: sqlite3.Row | tuple[object, ...], states: StateCache | None = None,
            ) -> TableRecord:
    """The table in a stored row; any damaged value raises :class:`CorruptTable` for this table
    only (never a bare ValueError or TypeError that would stop every other table)."""
    values = tuple(row)
    tid = values[0]
    if not isinstance(tid, int):  # pragma: no cover - an INTEGER PRIMARY KEY is always an int
        raise CorruptTable(-1, f"table id {tid!r}")
    try:
        return _read_record(values, states)
    except CorruptTable:
        raise
    except (ValueError, TypeError, OverflowError) as exc:
        raise CorruptTable(tid, str(exc) or type(exc).__name__) from None


V = TypeVar("V")
#: The statuses a stored table may have.
STATUSES: tuple[Status, ...] = ("lobby", "running", "finished", "abandoned")


def _read_record(values: tuple[object, ...], states: StateCache | None) -> TableRecord:
    (tid, guild, channel, host, status, abilities, timer, seed, locale, seats, state, version,
     message, lobby, deadline, winner, created, updated, revision, ai_level) = values
    assert isinstance(tid, int)
    if status not in STATUSES:
        raise CorruptTable(tid, f"status {status!r}")
    if not isinstance(locale, str) or not locale:
        raise CorruptTable(tid, f"locale {locale!r}")
    try:
        seat_infos = seats_from_json(str(seats))
    except ValueError as exc:
        raise CorruptTable(tid, f"seats: {exc}") from None
    number = as_int(version, "version")
    game: GameState | None = None
    if state is not None:
        text = str(state)
        known = states.get(tid) if states is not None else None
        try:
            # the same stored text always reads back to the same (immutable) state
            game = known[1] if known is not None and known[0] == text else load_state(
                text, status == "finished")
        except BadState as exc:
            raise CorruptTable(tid, str(exc)) from None
        if states is not None and (known is None or known[1] is not game):
            remember(states, tid, text, game)
        if game.step != number:
            raise CorruptTable(tid, f"state step {game.step} != stored version {number}")
        if len(game.seats) != len(seat_infos):
            raise CorruptTable(tid, "seat count differs from the game")
    elif status in ("running", "finished"):
        raise CorruptTable(tid, "no game state")
    timer_s = as_int(timer, "timer")
    if timer_s < 0:
        raise CorruptTable(tid, f"timer {timer_s}")
    level = next((lv for lv in LEVELS if lv == ai_level), None)
    if level is None:
        raise CorruptTable(tid, f"ai_level {ai_level!r:.40}")
    return TableRecord(
        id=tid, guild_id=opt_int(guild, "guild_id"), channel_id=as_int(channel, "channel_id"),
        host_id=as_int(host, "host_id"), status=status,
        abilities=bool(abilities), timer=timer_s,
        seed=as_int(seed, "seed"), locale=locale, seats=seat_infos, state=game, version=number,
        message_id=opt_int(message, "message_id"),
        lobby_message_id=opt_int(lobby, "lobby_message_id"),
        deadline=opt_float(deadline, "deadline"), winner=opt_int(winner, "winner"),
        created_at=as_float(created, "created_at"), updated_at=as_float(updated, "updated_at"),
        revision=as_int(revision, "revision"), ai_level=level,
    )


def remember(states: StateCache, table_id: int, text: str, state: GameState) -> None:
    """Keep ``state`` as the parsed form of ``text`` for table ``table_id`` (bounded)."""
    keep(states, table_id, (text, state), STATE_CACHE)


def keep(kept: dict[int, V], table_id: int, value: V, most: int) -> None:
    """Keep ``value`` for table ``table_id`` in ``kept``, which holds at most ``most`` tables
    (the one kept longest goes first)."""
    kept.pop(table_id, None)
    if len(kept) >= most:
        kept.pop(next(iter(kept)))
    kept[table_id] = value


def as_int(value: object, column: str) -> int:
    """An INTEGER column's value; ValueError naming the column when it holds anything else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValueError(f"{column} {value!r:.40}")


def opt_int(value: object, column: str = "value") -> int | None:
    """A nullable INTEGER column's value."""
    return None if value is None else as_int(value, column)


def as_float(value: object, column: str) -> float:
    """A REAL column's value; ValueError naming the column when it is not a finite number."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    raise ValueError(f"{column} {value!r:.40}")


def opt_float(value: object, column: str) -> float | None:
    """A nullable REAL column's value."""
    return None if value is None else as_float(value, column)


def storable(state: GameState) -> str:
    """The state as JSON, checked to read back: a state that could not be loaded is never saved.

    A finished game is saved as is: the engine leaves the final battle in a game won against the
    Lord, which ``state_from_json`` rejects ("battle and phase disagree"); such rows are read back
    leniently (see :func:`load_state`), and nothing is played on them any more.
    """
    text = state_to_json(state)
    if state.phase is not Phase.OVER:
        state_from_json(text)
    return text


def load_state(text: str, finished: bool) -> GameState:
    """Read a stored state; a finished game's final state is read without the invariant check."""
    try:
        return state_from_json(text)
    except BadState:
        if not finished:
            raise
    try:
        doc = json.loads(text)
        state = from_data(GameState, doc["state"])
    except (ValueError, KeyError, TypeError) as exc:
        raise BadState(str(exc)) from exc
    if not isinstance(state, GameState) or state.phase is not Phase.OVER:
        raise BadState("not a finished game")
    return state


def with_seat(seats: Sequence[SeatInfo], index: int, seat: SeatInfo) -> tuple[SeatInfo, ...]:
    """A copy of ``seats`` with seat ``index`` replaced."""
    out = list(seats)
    out[index] = seat
    return tuple(out)


__all__ = [
    "ACTIVE", "CorruptTable", "LogRow", "SchemaTooNew", "SeatInfo", "ServerDefaults",
    "StaleVersion", "Status", "StorageError", "TableExists", "TableRecord", "load_state",
    "read_record", "seats_from_json", "seats_to_json", "storable", "with_seat",
]
