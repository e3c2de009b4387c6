"""SQLite storage of tables, their game states, the action log, server settings and history.

One aiosqlite connection in WAL mode. The schema is versioned with ``PRAGMA user_version`` and
upgraded by numbered migrations. Applying an action is ONE transaction that writes the new state,
its version (``state.step``) and the action log row, guarded by the previous version, so a state
and its log never disagree and a stale writer changes nothing. Finished and abandoned tables stay
as history.
"""

from __future__ import annotations

import asyncio
import json
import math
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import aiosqlite
from pydantic import BaseModel, ConfigDict, ValidationError

from engine import BadState, GameState, Phase, state_from_json, state_to_json
from engine.serialize import from_data

Status = Literal["lobby", "running", "finished", "abandoned"]
ACTIVE: tuple[Status, ...] = ("lobby", "running")

MIGRATIONS: tuple[str, ...] = (
    # 1: tables, action log, server settings, key/value metadata
    """
    CREATE TABLE tables (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER,
        channel_id INTEGER NOT NULL,
        host_id INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('lobby', 'running', 'finished', 'abandoned')),
        abilities INTEGER NOT NULL DEFAULT 0,
        timer INTEGER NOT NULL DEFAULT 0,
        seed INTEGER NOT NULL,
        locale TEXT NOT NULL DEFAULT 'en',
        seats TEXT NOT NULL,
        state TEXT,
        version INTEGER NOT NULL DEFAULT 0,
        message_id INTEGER,
        lobby_message_id INTEGER,
        deadline REAL,
        winner INTEGER,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        finished_at REAL
    );
    CREATE UNIQUE INDEX tables_one_active_per_channel ON tables(channel_id)
        WHERE status IN ('lobby', 'running');
    CREATE INDEX tables_status ON tables(status);
    CREATE TABLE actions (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        step INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        user_id INTEGER,
        by_ai INTEGER NOT NULL DEFAULT 0,
        action TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (table_id, step)
    );
    CREATE TABLE settings (
        guild_id INTEGER PRIMARY KEY,
        abilities INTEGER NOT NULL DEFAULT 0,
        timer INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # 2: a server may force the language of its tables (NULL: the server's language in Discord)
    """
    ALTER TABLE settings ADD COLUMN locale TEXT;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


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


class SeatInfo(BaseModel):
    """Who holds a seat: a Discord user or the AI, the chosen hero, and missed turns."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    user: int | None = None
    name: str = ""
    hero: str | None = None
    ai: bool = False
    timeouts: int = 0


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


_COLUMNS = ("id, guild_id, channel_id, host_id, status, abilities, timer, seed, locale, seats, "
            "state, version, message_id, lobby_message_id, deadline, winner, created_at, "
            "updated_at")


#: Parsed states kept per table (the latest one each), so reading a table again is cheap.
STATE_CACHE = 4096
StateCache = dict[int, tuple[str, GameState]]


def _record(row: sqlite3.Row | tuple[object, ...], states: StateCache | None = None,
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


#: The statuses a stored table may have.
STATUSES: tuple[Status, ...] = ("lobby", "running", "finished", "abandoned")


def _read_record(values: tuple[object, ...], states: StateCache | None) -> TableRecord:
    (tid, guild, channel, host, status, abilities, timer, seed, locale, seats, state, version,
     message, lobby, deadline, winner, created, updated) = values
    assert isinstance(tid, int)
    if status not in STATUSES:
        raise CorruptTable(tid, f"status {status!r}")
    if not isinstance(locale, str) or not locale:
        raise CorruptTable(tid, f"locale {locale!r}")
    try:
        seat_infos = seats_from_json(str(seats))
    except ValueError as exc:
        raise CorruptTable(tid, f"seats: {exc}") from None
    number = _int(version, "version")
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
            _remember(states, tid, text, game)
        if game.step != number:
            raise CorruptTable(tid, f"state step {game.step} != stored version {number}")
        if len(game.seats) != len(seat_infos):
            raise CorruptTable(tid, "seat count differs from the game")
    elif status in ("running", "finished"):
        raise CorruptTable(tid, "no game state")
    timer_s = _int(timer, "timer")
    if timer_s < 0:
        raise CorruptTable(tid, f"timer {timer_s}")
    return TableRecord(
        id=tid, guild_id=_opt_int(guild, "guild_id"), channel_id=_int(channel, "channel_id"),
        host_id=_int(host, "host_id"), status=status,
        abilities=bool(abilities), timer=timer_s,
        seed=_int(seed, "seed"), locale=locale, seats=seat_infos, state=game, version=number,
        message_id=_opt_int(message, "message_id"),
        lobby_message_id=_opt_int(lobby, "lobby_message_id"),
        deadline=_opt_float(deadline, "deadline"), winner=_opt_int(winner, "winner"),
        created_at=_float(created, "created_at"), updated_at=_float(updated, "updated_at"),
    )


def _remember(states: StateCache, table_id: int, text: str, state: GameState) -> None:
    """Keep ``state`` as the parsed form of ``text`` for table ``table_id`` (bounded)."""
    states.pop(table_id, None)
    if len(states) >= STATE_CACHE:
        states.pop(next(iter(states)))
    states[table_id] = (text, state)


def _int(value: object, column: str) -> int:
    """An INTEGER column's value; ValueError naming the column when it holds anything else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValueError(f"{column} {value!r:.40}")


def _opt_int(value: object, column: str = "value") -> int | None:
    return None if value is None else _int(value, column)


def _float(value: object, column: str) -> float:
    """A REAL column's value; ValueError naming the column when it is not a finite number."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    raise ValueError(f"{column} {value!r:.40}")


def _opt_float(value: object, column: str) -> float | None:
    return None if value is None else _float(value, column)


class Store:
    """The bot's database. Open with :meth:`open`, close with :meth:`close`."""

    def __init__(self, db: aiosqlite.Connection, clock: Callable[[], float] = time.time) -> None:
        self._db = db
        self._write = asyncio.Lock()
        self.clock = clock
        self._states: StateCache = {}

    @classmethod
    async def open(cls, path: Path | str, clock: Callable[[], float] = time.time) -> Store:
        """Open (creating if needed) and migrate the database at ``path``."""
        db = await aiosqlite.connect(str(path), isolation_level=None)
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute("PRAGMA foreign_keys=ON")
            await db.execute("PRAGMA busy_timeout=5000")
            await db.execute("PRAGMA synchronous=NORMAL")
            store = cls(db, clock)
            await store.migrate()
        except BaseException:
            await db.close()
            raise
        return store

    async def close(self) -> None:
        """Close the connection (checkpointing the WAL)."""
        await self._db.close()

    async def schema_version(self) -> int:
        """The schema version stored in ``PRAGMA user_version``."""
        async with self._db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def migrate(self) -> None:
        """Run every migration newer than the stored schema version, each in a transaction."""
        current = await self.schema_version()
        if current > SCHEMA_VERSION:
            raise SchemaTooNew(current, SCHEMA_VERSION)
        for number in range(current + 1, SCHEMA_VERSION + 1):
            async with self._tx() as db:
                for statement in MIGRATIONS[number - 1].split(";"):
                    if statement.strip():
                        await db.execute(statement)
                await db.execute(f"PRAGMA user_version = {number}")

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._write:
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                await self._db.execute("ROLLBACK")
                raise
            await self._db.execute("COMMIT")

    # ------------------------------------------------------------------ tables

    async def create_table(self, *, guild_id: int | None, channel_id: int, host_id: int,
                           seats: Sequence[SeatInfo], abilities: bool, timer: int, seed: int,
                           locale: str = "en") -> TableRecord:
        """Create a lobby; raises :class:`TableExists` when the channel has an active table."""
        now = self.clock()
        async with self._tx() as db:
            async with db.execute(
                    "SELECT id FROM tables WHERE channel_id = ? AND status IN ('lobby','running')",
                    (channel_id,)) as cur:
                row = await cur.fetchone()
            if row is not None:
                raise TableExists(int(row[0]))
            cur2 = await db.execute(
                "INSERT INTO tables (guild_id, channel_id, host_id, status, abilities, timer, "
                "seed, locale, seats, version, created_at, updated_at) "
                "VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?, 0, ?, ?)",
                (guild_id, channel_id, host_id, int(abilities), timer, seed, locale,
                 seats_to_json(seats), now, now))
            tid = cur2.lastrowid
        assert tid is not None
        record = await self.get(tid)
        assert record is not None
        return record

    async def get(self, table_id: int) -> TableRecord | None:
        """The table ``table_id`` or None; raises :class:`CorruptTable` if its row is damaged."""
        async with self._db.execute(f"SELECT {_COLUMNS} FROM tables WHERE id = ?",
                                    (table_id,)) as cur:
            row = await cur.fetchone()
        return None if row is None else _record(tuple(row), self._states)

    async def active_in_channel(self, channel_id: int) -> int | None:
        """The id of the channel's lobby or running table, if any."""
        async with self._db.execute(
                "SELECT id FROM tables WHERE channel_id = ? AND status IN ('lobby','running')",
                (channel_id,)) as cur:
            row = await cur.fetchone()
        return None if row is None else int(row[0])

    async def ids_with_status(self, *statuses: Status) -> list[int]:
        """Ids of the tables in any of ``statuses`` (oldest first)."""
        marks = ",".join("?" for _ in statuses)
        async with self._db.execute(
                f"SELECT id FROM tables WHERE status IN ({marks}) ORDER BY id", statuses) as cur:
            rows = await cur.fetchall()
        return [int(r[0]) for r in rows]

    async def _update(self, table_id: int, guard: int | None, **columns: object) -> None:
        columns["updated_at"] = self.clock()
        sets = ", ".join(f"{name} = ?" for name in columns)
        values = list(columns.values())
        sql = f"UPDATE tables SET {sets} WHERE id = ?"
        values.append(table_id)
        if guard is not None:
            sql += " AND version = ?"
            values.append(guard)
        async with self._tx() as db:
            cur = await db.execute(sql, values)
            if cur.rowcount != 1:
                raise StaleVersion(f"table {table_id} moved on")

    async def update_lobby(self, table_id: int, seats: Sequence[SeatInfo],
                           host_id: int | None = None) -> None:
        """Store a lobby's seats (and a new host when the host left)."""
        changes: dict[str, object] = {"seats": seats_to_json(seats)}
        if host_id is not None:
            changes["host_id"] = host_id
        await self._update(table_id, None, **changes)

    async def update_seats(self, table_id: int, version: int, seats: Sequence[SeatInfo]) -> None:
        """Store a running table's seats (timeouts, seat handed to the AI) at ``version``."""
        await self._update(table_id, version, seats=seats_to_json(seats))

    async def set_status(self, table_id: int, status: Status) -> None:
        """Mark a table abandoned/finished (kept as history)."""
        changes: dict[str, object] = {"status": status, "deadline": None}
        if status in ("finished", "abandoned"):
            changes["finished_at"] = self.clock()
        await self._update(table_id, None, **changes)

    async def start_game(self, table_id: int, seats: Sequence[SeatInfo], state: GameState,
                         deadline: float | None) -> None:
        """Turn a lobby into a running game holding ``state`` (version ``state.step``)."""
        text = storable(state)
        await self._update(table_id, 0, status="running", seats=seats_to_json(seats),
                           state=text, version=state.step, deadline=deadline)
        _remember(self._states, table_id, text, state)

    async def apply(self, table_id: int, before: int, state: GameState, log: LogRow,
                    seats: Sequence[SeatInfo] | None = None,
                    deadline: float | None = None) -> None:
        """In ONE transaction: the new state (guarded by version ``before``) and its log row.

        A finished game is marked ``finished`` with its winner in the same transaction. Raises
        :class:`StaleVersion` (and writes nothing) when the table is no longer at ``before``.
        """
        over = state.winner is not None
        text = storable(state)
        columns: dict[str, object] = {
            "state": text, "version": state.step, "deadline": deadline,
            "updated_at": self.clock(),
        }
        if seats is not None:
            columns["seats"] = seats_to_json(seats)
        if over:
            columns.update(status="finished", winner=state.winner, finished_at=self.clock(),
                           deadline=None)
        sets = ", ".join(f"{name} = ?" for name in columns)
        async with self._tx() as db:
            cur = await db.execute(
                f"UPDATE tables SET {sets} WHERE id = ? AND version = ? AND status = 'running'",
                (*columns.values(), table_id, before))
            if cur.rowcount != 1:
                raise StaleVersion(f"table {table_id} is no longer at version {before}")
            await db.execute(
                "INSERT INTO actions (table_id, step, seat, user_id, by_ai, action, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (table_id, log.step, log.seat, log.user_id, int(log.by_ai), log.action, log.at))
        _remember(self._states, table_id, text, state)  # what storable() just read back

    async def set_message(self, table_id: int, *, message_id: int | None = None,
                          lobby_message_id: int | None = None) -> None:
        """Remember the table's public message (or its lobby message)."""
        changes: dict[str, object] = {}
        if message_id is not None:
            changes["message_id"] = message_id
        if lobby_message_id is not None:
            changes["lobby_message_id"] = lobby_message_id
        if changes:
            await self._update(table_id, None, **changes)

    async def set_deadline(self, table_id: int, version: int, deadline: float | None) -> None:
        """Set the turn deadline of the table at ``version``."""
        await self._update(table_id, version, deadline=deadline)

    async def action_log(self, table_id: int) -> list[LogRow]:
        """Every action applied at the table, in order."""
        async with self._db.execute(
                "SELECT step, seat, user_id, by_ai, action, at FROM actions WHERE table_id = ? "
                "ORDER BY step", (table_id,)) as cur:
            rows = await cur.fetchall()
        return [LogRow(int(r[0]), int(r[1]), _opt_int(r[2]), bool(r[3]), str(r[4]), float(r[5]))
                for r in rows]

    async def history(self, guild_id: int | None = None, limit: int = 20) -> list[int]:
        """Ids of finished or abandoned tables, newest first."""
        sql = "SELECT id FROM tables WHERE status IN ('finished','abandoned')"
        args: list[object] = []
        if guild_id is not None:
            sql += " AND guild_id = ?"
            args.append(guild_id)
        sql += " ORDER BY id DESC LIMIT ?"
        args.append(limit)
        async with self._db.execute(sql, args) as cur:
            rows = await cur.fetchall()
        return [int(r[0]) for r in rows]

    # ------------------------------------------------------------------ settings and meta

    async def guild_settings(self, guild_id: int | None) -> tuple[bool, int] | None:
        """A server's defaults for new tables (abilities, timer), or None when never set."""
        if guild_id is None:
            return None
        async with self._db.execute(
                "SELECT abilities, timer FROM settings WHERE guild_id = ?", (guild_id,)) as cur:
            row = await cur.fetchone()
        return None if row is None else (bool(row[0]), int(row[1]))

    async def set_guild_settings(self, guild_id: int, abilities: bool, timer: int) -> None:
        """Store a server's defaults for new tables."""
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO settings (guild_id, abilities, timer) VALUES (?, ?, ?) "
                "ON CONFLICT(guild_id) DO UPDATE SET abilities = excluded.abilities, "
                "timer = excluded.timer", (guild_id, int(abilities), timer))

    async def guild_locale(self, guild_id: int | None) -> str | None:
        """The language a server forced for its tables, or None (follow Discord's language)."""
        if guild_id is None:
            return None
        async with self._db.execute(
                "SELECT locale FROM settings WHERE guild_id = ?", (guild_id,)) as cur:
            row = await cur.fetchone()
        return None if row is None or row[0] is None else str(row[0])

    async def set_guild_locale(self, guild_id: int, locale: str | None) -> None:
        """Force the language of a server's tables (None: follow Discord's language again).

        The server's settings row must exist: store its defaults with
        :meth:`set_guild_settings` first.
        """
        async with self._tx() as db:
            cur = await db.execute("UPDATE settings SET locale = ? WHERE guild_id = ?",
                                   (locale, guild_id))
            if cur.rowcount != 1:
                raise StorageError(f"server {guild_id} has no settings yet")

    async def relocalise(self, guild_id: int, locale: str) -> list[int]:
        """Set the language of a server's lobbies and running tables; returns the ids of the
        tables whose language changed."""
        async with self._tx() as db:
            async with db.execute(
                    "SELECT id FROM tables WHERE guild_id = ? AND status IN ('lobby','running') "
                    "AND locale != ? ORDER BY id", (guild_id, locale)) as cur:
                ids = [int(r[0]) for r in await cur.fetchall()]
            if ids:
                marks = ",".join("?" for _ in ids)
                await db.execute(f"UPDATE tables SET locale = ?, updated_at = ? "
                                 f"WHERE id IN ({marks})", (locale, self.clock(), *ids))
        return ids

    async def get_meta(self, key: str) -> str | None:
        """A stored metadata value (e.g. the hash of the synced command tree)."""
        async with self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)) as cur:
            row = await cur.fetchone()
        return None if row is None else str(row[0])

    async def set_meta(self, key: str, value: str) -> None:
        """Store a metadata value."""
        async with self._tx() as db:
            await db.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO "
                             "UPDATE SET value = excluded.value", (key, value))

    async def raw_execute(self, sql: str, args: Sequence[object] = ()) -> None:
        """Run one write statement in a transaction (maintenance and tests)."""
        async with self._tx() as db:
            await db.execute(sql, args)


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
    "ACTIVE", "CorruptTable", "LogRow", "SCHEMA_VERSION", "SeatInfo", "StaleVersion", "Status",
    "Store", "StorageError", "TableExists", "TableRecord", "seats_from_json",
    "seats_to_json", "with_seat",
]
