"""SQLite storage of tables, their game states, the action log, results, server settings and
history: the backend of :class:`~bot.storage.interface.Storage`.

One aiosqlite connection in WAL mode. The schema is versioned with ``PRAGMA user_version`` and
upgraded by numbered migrations (:mod:`bot.storage.sqlite_schema`). Applying an action is ONE
transaction that writes the new state, its version (the previous one plus one: it only ever
grows, a take-back included) and the action log row (numbered by ``seq``, the order actions were
applied), guarded by the previous version, so a state and its log never disagree and a stale
writer changes nothing; a take-back (``undo``) marks the action it took back ``undone`` in that
same transaction (nothing is deleted), and the move that ends a game writes its result there.
Finished and abandoned tables stay as history. A write the disk refuses (full, failing) raises
:class:`~bot.storage.records.CannotSave`, any other one :class:`~bot.storage.records.DatabaseError`.

The process owns its database: a table read is kept (:data:`RECORDS` at most) and served again
without SQL until a write of it ends (committed or not), so it is always what the database holds.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from pathlib import Path

import aiosqlite

from bot.storage.interface import Storage
from bot.storage.records import (
    LogRow,
    Rater,
    SeatInfo,
    StaleVersion,
    Status,
    TableExists,
    TableRecord,
    TableResult,
    seats_to_json,
    storable,
)
from bot.storage.sqlite_connection import Connection
from bot.storage.sqlite_hints import HintRows
from bot.storage.sqlite_history import HistoryQueries
from bot.storage.sqlite_leases import LeaseRows
from bot.storage.sqlite_ratings import RatingQueries, write_ratings
from bot.storage.sqlite_rows import (
    LOG_COLUMNS,
    RESULT_COLUMNS,
    STATE_CACHE,
    TABLE_COLUMNS,
    StateCache,
    ended_result,
    insert_result,
    keep,
    read_log_row,
    read_record,
    remember,
    with_seats,
)
from bot.storage.sqlite_schema import SCHEMA_VERSION
from bot.storage.sqlite_servers import ServerQueries
from bot.storage.sqlite_shares import ShareRows
from bot.storage.table_writes import TableWrites, moved_columns
from cards import catalogue_version
from engine import GameState, Undo
from engine.agents import DEFAULT_LEVEL, AiLevel

UNDO = str(Undo())  #: a take-back's notation: its log row marks the action it took back undone
#: Tables whose record is kept, read or written last (beyond it the oldest kept is dropped).
RECORDS = STATE_CACHE
#: The range of SQLite's integers: a table id outside it names no table.
SQLITE_MIN, SQLITE_MAX = -(2**63), 2**63 - 1


class Store(TableWrites, ServerQueries, HistoryQueries, RatingQueries, HintRows, LeaseRows,
            ShareRows):
    """The bot's database. Open with :meth:`open`, close with :meth:`close` (the servers'
    settings and the bot's metadata: :class:`~bot.storage.sqlite_servers.ServerQueries`; past
    matches and rematch offers: :class:`~bot.storage.sqlite_history.HistoryQueries`; ratings:
    :class:`~bot.storage.sqlite_ratings.RatingQueries`; hints: :class:`HintRows`; leases:
    :class:`~bot.storage.sqlite_leases.LeaseRows`)."""

    def __init__(self, connection: Connection, clock: Callable[[], float] = time.time) -> None:
        self._connection = connection
        self._db = connection.db  # for reads; writes go through _tx or _table_tx
        self.clock = clock
        self._states: StateCache = {}
        self._records: dict[int, TableRecord] = {}
        self._writes = 0  # tables written so far: a read overtaken by a write is not kept

    @classmethod
    async def open(cls, path: Path | str, clock: Callable[[], float] = time.time) -> Store:
        """Open (creating if needed) and migrate the database at ``path``."""
        return cls(await Connection.open(path), clock)

    async def close(self) -> None:
        """Wait for a write in progress, fold the write-ahead log in and close the database."""
        await self._connection.close()

    async def schema_version(self) -> int:
        """The schema version stored in ``PRAGMA user_version``."""
        return await self._connection.schema_version()

    def _tx(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        """One write transaction (see :meth:`Connection.transaction`)."""
        return self._connection.transaction()

    @asynccontextmanager
    async def _table_tx(self, table_id: int) -> AsyncIterator[aiosqlite.Connection]:
        """Write table ``table_id``; its kept record goes after, committed or not."""
        try:
            async with self._tx() as db:
                yield db
        finally:
            self._writes += 1
            self._records.pop(table_id, None)

    # ------------------------------------------------------------------ tables

    async def create_table(self, *, guild_id: int | None, place_key: str, channel_id: int,
                           host_id: int, seats: Sequence[SeatInfo], abilities: bool, timer: int,
                           seed: int, locale: str = "en", ai_level: AiLevel = DEFAULT_LEVEL,
                           lessons: bool = False, undo: bool = True) -> TableRecord:
        """Create a lobby (``lessons``: a guided first match; ``undo``: players may take back a
        move); raises :class:`TableExists` when the channel has an active table."""
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
                "seed, locale, seats, version, created_at, updated_at, ai_level, catalogue, "
                "lessons, undo, place_key) VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, "
                "?, ?, ?)",
                (guild_id, channel_id, host_id, int(abilities), timer, seed, locale,
                 seats_to_json(seats), now, now, ai_level, catalogue_version(), int(lessons),
                 int(undo), place_key))
            tid = cur2.lastrowid
        assert tid is not None
        record = await self.get(tid)
        assert record is not None
        return record

    async def get(self, table_id: int) -> TableRecord | None:
        """The table ``table_id`` or None; raises :class:`CorruptTable` if its row is damaged.
        An id no SQLite integer can hold (a forged custom_id) is no table."""
        if not SQLITE_MIN <= table_id <= SQLITE_MAX:
            return None
        if (kept := self._records.get(table_id)) is not None:
            return kept
        writes = self._writes
        async with self._db.execute(f"SELECT {TABLE_COLUMNS} FROM tables WHERE id = ?",
                                    (table_id,)) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        record = read_record(tuple(row), self._states)
        if writes == self._writes:  # no write ended meanwhile: the row is still the table
            keep(self._records, table_id, record, RECORDS)
        return record

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

    async def _update(self, table_id: int, guard: int | None, columns: dict[str, object],
                      bump: bool = False) -> None:
        """Write ``columns`` of one table (guarded by its version when ``guard`` is given;
        ``bump``: a lobby change, which raises its revision)."""
        columns["updated_at"] = self.clock()
        sets = ", ".join(f"{name} = ?" for name in columns)
        if bump:
            sets += ", revision = revision + 1"
        values = list(columns.values())
        sql = f"UPDATE tables SET {sets} WHERE id = ?"
        values.append(table_id)
        if guard is not None:
            sql += " AND version = ?"
            values.append(guard)
        async with self._table_tx(table_id) as db:
            cur = await db.execute(sql, values)
            if cur.rowcount != 1:
                raise StaleVersion(f"table {table_id} moved on")

    async def apply(self, table_id: int, before: int, state: GameState, log: LogRow,
                    seats: Sequence[SeatInfo] | None = None,
                    deadline: float | None = None, rater: Rater | None = None,
                    result: TableResult | None = None) -> None:
        """In ONE transaction: the new state at version ``before + 1`` (guarded by version
        ``before``) and its log row (the table's next ``seq``); a take-back (``undo``) also marks
        the latest action it has not taken back yet ``undone``; a finished game is marked
        ``finished`` with its winner, and its ``result`` (as the game computed it, finished
        now; None: the final state's, every person counted as having moved) and the rating rows
        ``rater`` gives (:func:`~bot.storage.sqlite_ratings.write_ratings`) written. Raises
        :class:`StaleVersion` (and writes nothing) when the table is no longer at ``before``."""
        over = state.winner is not None
        text = storable(state)
        now = self.clock()
        columns = moved_columns(state, before + 1, text, now, seats, deadline)
        sets = ", ".join(f"{name} = ?" for name in columns)
        async with self._table_tx(table_id) as db:
            cur = await db.execute(
                f"UPDATE tables SET {sets} WHERE id = ? AND version = ? AND status = 'running'",
                (*columns.values(), table_id, before))
            if cur.rowcount != 1:
                raise StaleVersion(f"table {table_id} is no longer at version {before}")
            await db.execute(
                "INSERT INTO actions (table_id, seq, step, seat, user_id, by_ai, action, at) "
                "VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM actions WHERE table_id = ?), "
                "?, ?, ?, ?, ?, ?)",
                (table_id, table_id, log.step, log.seat, log.user_id, int(log.by_ai),
                 log.action, log.at))
            if log.action == UNDO:
                await db.execute(
                    "UPDATE actions SET undone = 1 WHERE table_id = ? AND seq = (SELECT MAX(seq) "
                    "FROM actions WHERE table_id = ? AND undone = 0 AND action != ?)",
                    (table_id, table_id, UNDO))
            if over:
                result = (await ended_result(db, table_id, state, now) if result is None
                          else replace(result, finished_at=now))
                await insert_result(db, result)
                if rater is not None:
                    await write_ratings(db, result, rater)
        remember(self._states, table_id, text, state)  # what storable() just read back

    async def abandon(self, table_id: int, version: int, result: TableResult | None = None,
                      rater: Rater | None = None) -> None:
        """In ONE transaction: mark the running table at ``version`` abandoned (kept as
        history) and, for a match rated when abandoned, store its ``result`` (abandoned now)
        with the rating rows ``rater`` gives. Raises :class:`StaleVersion` (and writes nothing)
        when the table is no longer running at ``version``."""
        now = self.clock()
        async with self._table_tx(table_id) as db:
            cur = await db.execute(
                "UPDATE tables SET status = 'abandoned', deadline = NULL, finished_at = ?, "
                "updated_at = ?, revision = revision + 1 WHERE id = ? AND version = ? "
                "AND status = 'running'", (now, now, table_id, version))
            if cur.rowcount != 1:
                raise StaleVersion(f"table {table_id} is no longer running at version {version}")
            if result is not None:
                result = replace(result, finished_at=now)
                await insert_result(db, result)
                if rater is not None:
                    await write_ratings(db, result, rater)

    async def action_log(self, table_id: int) -> list[LogRow]:
        """Every action applied at the table, in the order applied (undone ones included)."""
        async with self._db.execute(
                f"SELECT {LOG_COLUMNS} FROM actions WHERE table_id = ? ORDER BY seq",
                (table_id,)) as cur:
            rows = await cur.fetchall()
        return [read_log_row(r) for r in rows]

    async def history(self, limit: int = 20) -> list[int]:
        """Ids of finished or abandoned tables, newest first."""
        async with self._db.execute(
                "SELECT id FROM tables WHERE status IN ('finished','abandoned') "
                "ORDER BY id DESC LIMIT ?", (limit,)) as cur:
            return [int(r[0]) for r in await cur.fetchall()]

    # ------------------------------------------------------------------ results

    async def results(self, place_key: str, limit: int = 20,
                      before: int | None = None) -> list[TableResult]:
        """The results of the finished tables of a place (its key), newest table first: at
        most ``limit``, of tables older than table ``before`` when given."""
        newest = SQLITE_MAX if before is None else max(SQLITE_MIN, min(before - 1, SQLITE_MAX))
        async with self._db.execute(
                f"SELECT {RESULT_COLUMNS} FROM results WHERE place_key = ? AND table_id <= ? "
                "ORDER BY table_id DESC LIMIT ?", (place_key, newest, limit)) as cur:
            heads = list(await cur.fetchall())
        return await with_seats(self._db, heads)

    async def result_of(self, table_id: int) -> TableResult | None:
        """The result of a finished table, or None (not finished, or no such table)."""
        if not SQLITE_MIN <= table_id <= SQLITE_MAX:
            return None
        async with self._db.execute(
                f"SELECT {RESULT_COLUMNS} FROM results WHERE table_id = ?", (table_id,)) as cur:
            heads = list(await cur.fetchall())
        found = await with_seats(self._db, heads)
        return found[0] if found else None

    # ------------------------------------------------------------------ languages and damaged rows

    async def relocalise(self, table_id: int, locale: str) -> bool:
        """Set the language of a lobby or running table; True when it changed."""
        async with self._table_tx(table_id) as db:
            cur = await db.execute(
                "UPDATE tables SET locale = ?, updated_at = ? WHERE id = ? AND locale != ? "
                "AND status IN ('lobby','running')", (locale, self.clock(), table_id, locale))
            return cur.rowcount == 1

    async def host_of(self, table_id: int) -> int | None:
        """The host of a table read from its row alone (None when unreadable): a damaged
        table's host may still close it."""
        async with self._db.execute("SELECT host_id FROM tables WHERE id = ?",
                                    (table_id,)) as cur:
            row = await cur.fetchone()
        value = None if row is None else row[0]
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    async def abandon_damaged(self, table_id: int, channel_id: int) -> None:
        """Mark a table whose row cannot be read abandoned (the row stays for inspection)."""
        async with self._table_tx(table_id) as db:
            await db.execute("UPDATE tables SET status = 'abandoned', revision = revision + 1 "
                             "WHERE id = ? AND channel_id = ?", (table_id, channel_id))


def _satisfies_the_interface(store: Store) -> Storage:
    """Nothing at run time: mypy checks here that :class:`Store` is a :class:`Storage`."""
    return store


__all__ = ["SCHEMA_VERSION", "Store"]
