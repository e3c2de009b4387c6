"""PostgreSQL storage through asyncpg: the second backend of
:class:`~bot.storage.interface.Storage`, for bots run as several processes on one database.

The same tables as SQLite's (:mod:`bot.storage.postgres_schema` migrates them step for step).
Applying an action is ONE transaction: ``UPDATE ... WHERE version = $n`` locks the table's row
and changes it only at the expected version, so of two processes moving the same table one wins
and the other gets :class:`~bot.storage.records.StaleVersion`; the log row (next ``seq``) and a
finished game's result are written in that transaction. A table read before is kept, but another
process may have written it since: it is served again only when its row's ``xmin`` (the
transaction that last wrote the row, in any process) is unchanged, checked by every read, which
then skips the stored state. Refusals become :class:`~bot.storage.records.CannotSave` (the server
is out of room or out of reach: the same write may work later) or
:class:`~bot.storage.records.DatabaseError`.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace

import asyncpg

from bot.storage.interface import Storage
from bot.storage.postgres_hints import HintRows
from bot.storage.postgres_history import HistoryQueries
from bot.storage.postgres_leases import LeaseRows
from bot.storage.postgres_listen import Listener, OwnConnections, notify
from bot.storage.postgres_ratings import RatingQueries, store_result
from bot.storage.postgres_rows import Db, changed, with_seats
from bot.storage.postgres_schema import SCHEMA_VERSION, migrate, schema_version
from bot.storage.postgres_servers import ServerQueries
from bot.storage.postgres_shares import ShareRows
from bot.storage.records import (
    CannotSave,
    DatabaseError,
    LogRow,
    Rater,
    SchemaTooNew,
    SeatInfo,
    StaleVersion,
    Status,
    StorageError,
    TableExists,
    TableRecord,
    TableResult,
    seats_from_json,
    seats_to_json,
    storable,
    table_result,
)
from bot.storage.sqlite_rows import (
    LOG_COLUMNS,
    RESULT_COLUMNS,
    STATE_CACHE,
    TABLE_COLUMNS,
    StateCache,
    as_int,
    keep,
    read_log_row,
    read_record,
    remember,
)
from bot.storage.table_writes import TableWrites, moved_columns
from cards import catalogue_version
from engine import GameState, Undo
from engine.agents import DEFAULT_LEVEL, AiLevel

UNDO = str(Undo())  #: a take-back's notation: its log row marks the action it took back undone
#: The range of a BIGINT: a table id outside it names no table.
BIGINT_MIN, BIGINT_MAX = -(2**63), 2**63 - 1
#: A table's row with its ``xmin`` (which changes with every write of the row, by any process);
#: the stored state and its anchor only when ``xmin`` is not ``$2`` (the one of the record already
#: kept).
READ_TABLE = ("SELECT xmin::text, " + TABLE_COLUMNS.replace(
    " state,", " CASE WHEN xmin::text = $2 THEN NULL ELSE state END,").replace(
    " anchor", " CASE WHEN xmin::text = $2 THEN NULL ELSE anchor END") +
    " FROM tables WHERE id = $1")
#: Tables whose record is kept (checked against the row's ``xmin`` before it is served).
RECORDS = STATE_CACHE
#: Connections each process keeps open to the server.
POOL_SIZE = 4
#: What the server or the way to it says when it cannot take a write now.
UNREACHABLE = (OSError, asyncpg.InsufficientResourcesError, asyncpg.PostgresConnectionError,
               asyncpg.InterfaceError, asyncpg.CannotConnectNowError)


async def rollback(db: Db) -> None:
    """Make a connection given back to the pool fit to lend again: only a transaction left
    open (its task cancelled) is rolled back. The store sets no other session state, so the
    pool's default reset (a query on every return) is not needed."""
    if db.is_in_transaction():
        await db.execute("ROLLBACK")


class Store(TableWrites, ServerQueries, HistoryQueries, RatingQueries, HintRows, LeaseRows,
            ShareRows):
    """The bot's PostgreSQL database. Open with :meth:`open`, close with :meth:`close`
    (servers' settings and metadata: :class:`~bot.storage.postgres_servers.ServerQueries`; past
    matches and rematch offers: :class:`~bot.storage.postgres_history.HistoryQueries`; leases:
    :class:`~bot.storage.postgres_leases.LeaseRows`; other processes' writes heard by a
    :class:`~bot.storage.postgres_listen.Listener`)."""

    def __init__(self, pool: asyncpg.Pool, clock: Callable[[], float] = time.time,
                 news: Listener | None = None) -> None:
        self._pool = pool
        self.clock = clock
        self._news = news
        self._states: StateCache = {}
        self._records: dict[int, tuple[str, TableRecord]] = {}  # by the xmin they were read at

    @classmethod
    async def open(cls, url: str, clock: Callable[[], float] = time.time,
                   pool_size: int = POOL_SIZE) -> Store:
        """Connect to the database at ``url`` and run its missing migrations; raises
        :class:`~bot.storage.records.SchemaTooNew` for a database of a newer bot."""
        own = OwnConnections()
        pool = await asyncpg.create_pool(url, min_size=1, max_size=pool_size, reset=rollback,
                                         init=own)
        try:
            async with pool.acquire() as db:
                if (found := await migrate(db)) > SCHEMA_VERSION:
                    raise SchemaTooNew(found, SCHEMA_VERSION)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, clock, Listener(url, own))

    async def close(self) -> None:
        """Stop listening, wait for the queries under way and close every connection."""
        if self._news is not None:
            await self._news.close()
        await self._pool.close()

    async def schema_version(self) -> int:
        """The number of migrations applied."""
        async with self._pool.acquire() as db:
            return await schema_version(db)

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[Db]:
        """One write transaction: committed when the block ends, rolled back when it raises;
        the server's refusals become storage errors."""
        try:
            async with self._pool.acquire() as db, db.transaction():
                yield db
        except StorageError:
            raise
        except UNREACHABLE as exc:
            raise CannotSave(str(exc)) from exc
        except asyncpg.PostgresError as exc:
            raise DatabaseError(str(exc)) from exc

    @asynccontextmanager
    async def _table_tx(self, table_id: int) -> AsyncIterator[Db]:
        """One write transaction of table ``table_id``: the process holding its lease, if not
        this one, hears of it once it is committed."""
        async with self._tx() as db:
            yield db
            await notify(db, table_id, self._owner)

    # ------------------------------------------------------------------ tables

    async def create_table(self, *, guild_id: int | None, place_key: str, channel_id: int,
                           host_id: int, seats: Sequence[SeatInfo], abilities: bool, timer: int,
                           seed: int, locale: str = "en", ai_level: AiLevel = DEFAULT_LEVEL,
                           lessons: bool = False, undo: bool = True) -> TableRecord:
        """Create a lobby (``lessons``: a guided first match; ``undo``: players may take back a
        move); raises :class:`TableExists` when the channel has an active table (also when
        another process created it a moment ago)."""
        now = self.clock()
        try:
            async with self._tx() as db:
                tid = await db.fetchval(
                    "INSERT INTO tables (guild_id, channel_id, host_id, status, abilities, "
                    "timer, seed, locale, seats, version, created_at, updated_at, ai_level, "
                    "catalogue, lessons, undo, place_key) VALUES ($1, $2, $3, 'lobby', $4, $5, "
                    "$6, $7, $8, 0, $9, $9, $10, $11, $12, $13, $14) RETURNING id",
                    guild_id, channel_id, host_id, int(abilities), timer, seed, locale,
                    seats_to_json(seats), now, ai_level, catalogue_version(), int(lessons),
                    int(undo), place_key)
        except DatabaseError as exc:
            if not isinstance(exc.__cause__, asyncpg.UniqueViolationError):
                raise
            active = await self.active_in_channel(channel_id)
            raise TableExists(-1 if active is None else active) from None
        record = await self.get(int(tid))
        assert record is not None
        return record

    async def get(self, table_id: int) -> TableRecord | None:
        """The table ``table_id`` as the database holds it now, or None; raises
        :class:`CorruptTable` if its row is damaged. A table read before is served again when
        its row was not written since (the same ``xmin``, the transaction that wrote it)."""
        if not BIGINT_MIN <= table_id <= BIGINT_MAX:
            return None
        kept = self._records.get(table_id)
        row = await self._pool.fetchrow(READ_TABLE, table_id, "" if kept is None else kept[0])
        if row is None:
            return None
        if kept is not None and row[0] == kept[0]:
            return kept[1]
        record = read_record(tuple(row)[1:], self._states)
        keep(self._records, table_id, (str(row[0]), record), RECORDS)
        return record

    async def active_in_channel(self, channel_id: int) -> int | None:
        """The id of the channel's lobby or running table, if any."""
        value = await self._pool.fetchval(
            "SELECT id FROM tables WHERE channel_id = $1 AND status IN ('lobby','running')",
            channel_id)
        return None if value is None else int(value)

    async def ids_with_status(self, *statuses: Status) -> list[int]:
        """Ids of the tables in any of ``statuses`` (oldest first)."""
        rows = await self._pool.fetch(
            "SELECT id FROM tables WHERE status = ANY($1::text[]) ORDER BY id", list(statuses))
        return [int(r[0]) for r in rows]

    async def _update(self, table_id: int, guard: int | None, columns: dict[str, object],
                      bump: bool = False) -> None:
        """Write ``columns`` of one table (guarded by its version when ``guard`` is given;
        ``bump``: a lobby change, which raises its revision)."""
        columns["updated_at"] = self.clock()
        sets = ", ".join(f"{name} = ${i}" for i, name in enumerate(columns, start=2))
        if bump:
            sets += ", revision = revision + 1"
        values = [table_id, *columns.values()]
        sql = f"UPDATE tables SET {sets} WHERE id = $1"
        if guard is not None:
            values.append(guard)
            sql += f" AND version = ${len(values)}"
        async with self._table_tx(table_id) as db:
            if changed(await db.execute(sql, *values)) != 1:
                raise StaleVersion(f"table {table_id} moved on")

    async def apply(self, table_id: int, before: int, state: GameState, log: LogRow,
                    seats: Sequence[SeatInfo] | None = None,
                    deadline: float | None = None, rater: Rater | None = None,
                    result: TableResult | None = None) -> None:
        """In ONE transaction: the new state at version ``before + 1`` (guarded by version
        ``before``, the row locked until the end), its log row (a take-back also marks the
        latest action it has not taken back yet ``undone``), and a finished game's ``result`` (as
        the game computed it, finished now; None: the final state's, every person counted as
        having moved) with the rating rows ``rater`` gives. Raises
        :class:`StaleVersion` (and writes nothing) when the table is no longer at ``before``."""
        over = state.winner is not None
        text = storable(state)
        now = self.clock()
        columns = moved_columns(state, before + 1, text, now, seats, deadline)
        sets = ", ".join(f"{name} = ${i}" for i, name in enumerate(columns, start=3))
        async with self._table_tx(table_id) as db:
            row = await db.fetchrow(
                f"UPDATE tables SET {sets} WHERE id = $1 AND version = $2 AND status = 'running' "
                "RETURNING guild_id, channel_id, catalogue, seats, place_key",
                table_id, before, *columns.values())
            if row is None:
                raise StaleVersion(f"table {table_id} is no longer at version {before}")
            await db.execute(
                "INSERT INTO actions (table_id, seq, step, seat, user_id, by_ai, action, at) "
                "VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM actions WHERE table_id = $1),"
                " $2, $3, $4, $5, $6, $7)",
                table_id, log.step, log.seat, log.user_id, int(log.by_ai), log.action, log.at)
            if log.action == UNDO:
                await db.execute(
                    "UPDATE actions SET undone = 1 WHERE table_id = $1 AND seq = (SELECT "
                    "MAX(seq) FROM actions WHERE table_id = $1 AND undone = 0 AND action != $2)",
                    table_id, UNDO)
            if over:
                guild, channel, catalogue, stored_seats, place_key = row
                result = (table_result(table_id, guild, channel, str(catalogue),
                                       seats_from_json(str(stored_seats)), state, now,
                                       str(place_key))
                          if result is None else replace(result, finished_at=now))
                await store_result(db, result, rater)
        remember(self._states, table_id, text, state)

    async def abandon(self, table_id: int, version: int, result: TableResult | None = None,
                      rater: Rater | None = None) -> None:
        """In ONE transaction: the running table at ``version`` abandoned, and a ``result``
        rated at that moment stored (as SQLite's :meth:`bot.storage.sqlite.Store.abandon`)."""
        now = self.clock()
        async with self._table_tx(table_id) as db:
            done = await db.execute(
                "UPDATE tables SET status = 'abandoned', deadline = NULL, finished_at = $1, "
                "updated_at = $1, revision = revision + 1 WHERE id = $2 AND version = $3 "
                "AND status = 'running'", now, table_id, version)
            if changed(done) != 1:
                raise StaleVersion(f"table {table_id} is no longer running at version {version}")
            if result is not None:
                await store_result(db, replace(result, finished_at=now), rater)

    async def action_log(self, table_id: int) -> list[LogRow]:
        """Every action applied at the table, in the order applied (undone ones included)."""
        rows = await self._pool.fetch(
            f"SELECT {LOG_COLUMNS} FROM actions WHERE table_id = $1 ORDER BY seq", table_id)
        return [read_log_row(tuple(r)) for r in rows]

    async def history(self, limit: int = 20) -> list[int]:
        """Ids of finished or abandoned tables, newest first."""
        rows = await self._pool.fetch(
            "SELECT id FROM tables WHERE status IN ('finished','abandoned') "
            "ORDER BY id DESC LIMIT $1", limit)
        return [int(r[0]) for r in rows]

    # ------------------------------------------------------------------ results

    async def results(self, place_key: str, limit: int = 20,
                      before: int | None = None) -> list[TableResult]:
        """The results of the finished tables of a place (its key), newest table first: at
        most ``limit``, of tables older than table ``before`` when given."""
        newest = BIGINT_MAX if before is None else max(BIGINT_MIN, min(before - 1, BIGINT_MAX))
        heads = await self._pool.fetch(
            f"SELECT {RESULT_COLUMNS} FROM results WHERE place_key = $1 "
            "AND table_id <= $2 ORDER BY table_id DESC LIMIT $3", place_key, newest, limit)
        return await with_seats(self._pool, [tuple(h) for h in heads])

    async def result_of(self, table_id: int) -> TableResult | None:
        """The result of a finished table, or None (not finished, or no such table)."""
        if not BIGINT_MIN <= table_id <= BIGINT_MAX:
            return None
        heads = await self._pool.fetch(
            f"SELECT {RESULT_COLUMNS} FROM results WHERE table_id = $1", table_id)
        found = await with_seats(self._pool, [tuple(h) for h in heads])
        return found[0] if found else None

    # ------------------------------------------------------------------ languages and damaged rows

    async def relocalise(self, table_id: int, locale: str) -> bool:
        """Set the language of a lobby or running table; True when it changed."""
        async with self._table_tx(table_id) as db:
            status = await db.execute(
                "UPDATE tables SET locale = $1, updated_at = $2 WHERE id = $3 AND locale != $1 "
                "AND status IN ('lobby','running')", locale, self.clock(), table_id)
        return changed(status) == 1

    async def host_of(self, table_id: int) -> int | None:
        """The host of a table read from its row alone (None when unreadable)."""
        if not BIGINT_MIN <= table_id <= BIGINT_MAX:
            return None
        value = await self._pool.fetchval("SELECT host_id FROM tables WHERE id = $1", table_id)
        return None if value is None else as_int(value, "host_id")

    async def abandon_damaged(self, table_id: int, channel_id: int) -> None:
        """Mark a table whose row cannot be read abandoned (the row stays for inspection)."""
        async with self._table_tx(table_id) as db:
            await db.execute("UPDATE tables SET status = 'abandoned', revision = revision + 1 "
                             "WHERE id = $1 AND channel_id = $2", table_id, channel_id)


def _satisfies_the_interface(store: Store) -> Storage:
    """Nothing at run time: mypy checks here that :class:`Store` is a :class:`Storage`."""
    return store


__all__ = ["SCHEMA_VERSION", "Store"]
