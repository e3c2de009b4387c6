"""SQLite storage of tables, their game states, the action log, server settings and history.

One aiosqlite connection in WAL mode. The schema is versioned with ``PRAGMA user_version`` and
upgraded by numbered migrations. Applying an action is ONE transaction that writes the new state,
its version (``state.step``) and the action log row, guarded by the previous version, so a state
and its log never disagree and a stale writer changes nothing. Finished and abandoned tables stay
as history. A write the disk refuses (full, failing) raises
:class:`~bot.storage.records.CannotSave`.

The process owns its database: a table read is kept (:data:`RECORDS` at most) and served again
without SQL until a write of it ends (committed or not), so it is always what the database holds.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite

from bot.storage.records import (
    STATE_CACHE,
    CannotSave,
    LogRow,
    SchemaTooNew,
    SeatInfo,
    ServerDefaults,
    StaleVersion,
    StateCache,
    Status,
    StorageError,
    TableExists,
    TableRecord,
    cannot_save,
    keep,
    opt_int,
    read_record,
    remember,
    seats_to_json,
    storable,
)
from bot.storage.schema import MIGRATIONS, SCHEMA_VERSION
from engine import GameState
from engine.agents import DEFAULT_LEVEL, LEVELS, AiLevel

#: Tables whose record is kept, read or written last (beyond it the oldest kept is dropped).
RECORDS = STATE_CACHE
#: The range of SQLite's integers: a table id outside it names no table.
SQLITE_MIN, SQLITE_MAX = -(2**63), 2**63 - 1
_COLUMNS = ("id, guild_id, channel_id, host_id, status, abilities, timer, seed, locale, seats, "
            "state, version, message_id, lobby_message_id, deadline, winner, created_at, "
            "updated_at, revision, ai_level")


class Store:
    """The bot's database. Open with :meth:`open`, close with :meth:`close`."""

    def __init__(self, db: aiosqlite.Connection, clock: Callable[[], float] = time.time) -> None:
        self._db = db
        self._write = asyncio.Lock()
        self.clock = clock
        self._states: StateCache = {}
        self._records: dict[int, TableRecord] = {}
        self._writes = 0  # tables written so far: a read overtaken by a write is not kept

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
        """Wait for a write in progress, fold the write-ahead log in and close the database."""
        async with self._write:
            try:
                await self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except Exception:  # a closed or broken connection: closing is all that is left
                pass
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
                await self._db.execute("COMMIT")
            except BaseException as exc:
                # SQLite has already rolled back after some errors (a full disk): the
                # original error is what matters, not "no transaction is active"
                if self._db.in_transaction:
                    await self._db.execute("ROLLBACK")
                if cannot_save(exc):
                    raise CannotSave(str(exc)) from exc
                raise

    @asynccontextmanager
    async def _table_tx(self, table_id: int | None) -> AsyncIterator[aiosqlite.Connection]:
        """Write table ``table_id`` (None: any); its kept record goes after, committed or not."""
        try:
            async with self._tx() as db:
                yield db
        finally:
            self._writes += 1
            if table_id is None:
                self._records.clear()
            else:
                self._records.pop(table_id, None)

    # ------------------------------------------------------------------ tables

    async def create_table(self, *, guild_id: int | None, channel_id: int, host_id: int,
                           seats: Sequence[SeatInfo], abilities: bool, timer: int, seed: int,
                           locale: str = "en", ai_level: AiLevel = DEFAULT_LEVEL) -> TableRecord:
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
                "seed, locale, seats, version, created_at, updated_at, ai_level) "
                "VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?, 0, ?, ?, ?)",
                (guild_id, channel_id, host_id, int(abilities), timer, seed, locale,
                 seats_to_json(seats), now, now, ai_level))
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
        async with self._db.execute(f"SELECT {_COLUMNS} FROM tables WHERE id = ?",
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

    async def update_lobby(self, table_id: int, seats: Sequence[SeatInfo],
                           host_id: int | None = None) -> None:
        """Store a lobby's seats (and a new host when the host left)."""
        changes: dict[str, object] = {"seats": seats_to_json(seats)}
        if host_id is not None:
            changes["host_id"] = host_id
        await self._update(table_id, None, changes, bump=True)

    async def update_seats(self, table_id: int, version: int, seats: Sequence[SeatInfo]) -> None:
        """Store a running table's seats (timeouts, seat handed to the AI) at ``version``."""
        await self._update(table_id, version, {"seats": seats_to_json(seats)})

    async def set_status(self, table_id: int, status: Status) -> None:
        """Mark a table abandoned/finished (kept as history)."""
        changes: dict[str, object] = {"status": status, "deadline": None}
        if status in ("finished", "abandoned"):
            changes["finished_at"] = self.clock()
        await self._update(table_id, None, changes, bump=True)

    async def start_game(self, table_id: int, seats: Sequence[SeatInfo], state: GameState,
                         deadline: float | None) -> None:
        """Turn a lobby into a running game holding ``state`` (version ``state.step``)."""
        text = storable(state)
        await self._update(table_id, 0, {"status": "running", "seats": seats_to_json(seats),
                                          "state": text, "version": state.step,
                                          "deadline": deadline}, bump=True)
        remember(self._states, table_id, text, state)

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
        async with self._table_tx(table_id) as db:
            cur = await db.execute(
                f"UPDATE tables SET {sets} WHERE id = ? AND version = ? AND status = 'running'",
                (*columns.values(), table_id, before))
            if cur.rowcount != 1:
                raise StaleVersion(f"table {table_id} is no longer at version {before}")
            await db.execute(
                "INSERT INTO actions (table_id, step, seat, user_id, by_ai, action, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (table_id, log.step, log.seat, log.user_id, int(log.by_ai), log.action, log.at))
        remember(self._states, table_id, text, state)  # what storable() just read back

    async def set_message(self, table_id: int, *, message_id: int | None = None,
                          lobby_message_id: int | None = None) -> None:
        """Remember the table's public message (or its lobby message)."""
        changes: dict[str, object] = {}
        if message_id is not None:
            changes["message_id"] = message_id
        if lobby_message_id is not None:
            changes["lobby_message_id"] = lobby_message_id
        if changes:
            await self._update(table_id, None, changes)

    async def action_log(self, table_id: int) -> list[LogRow]:
        """Every action applied at the table, in order."""
        async with self._db.execute(
                "SELECT step, seat, user_id, by_ai, action, at FROM actions WHERE table_id = ? "
                "ORDER BY step", (table_id,)) as cur:
            rows = await cur.fetchall()
        return [LogRow(int(r[0]), int(r[1]), opt_int(r[2]), bool(r[3]), str(r[4]), float(r[5]))
                for r in rows]

    async def history(self, limit: int = 20) -> list[int]:
        """Ids of finished or abandoned tables, newest first."""
        async with self._db.execute(
                "SELECT id FROM tables WHERE status IN ('finished','abandoned') "
                "ORDER BY id DESC LIMIT ?", (limit,)) as cur:
            return [int(r[0]) for r in await cur.fetchall()]

    # ------------------------------------------------------------------ settings and meta

    async def guild_settings(self, guild_id: int | None) -> ServerDefaults | None:
        """A server's defaults for new tables (abilities, timer, AI level), or None when never
        set. A level this bot does not know reads as the default level."""
        if guild_id is None:
            return None
        async with self._db.execute(
                "SELECT abilities, timer, ai_level FROM settings WHERE guild_id = ?",
                (guild_id,)) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        level = next((lv for lv in LEVELS if lv == row[2]), DEFAULT_LEVEL)
        return ServerDefaults(bool(row[0]), int(row[1]), level)

    async def set_guild_settings(self, guild_id: int, defaults: ServerDefaults) -> None:
        """Store a server's defaults for new tables."""
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO settings (guild_id, abilities, timer, ai_level) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(guild_id) DO UPDATE SET abilities = excluded.abilities, "
                "timer = excluded.timer, ai_level = excluded.ai_level",
                (guild_id, int(defaults.abilities), defaults.timer, defaults.ai_level))

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
        Its settings row must exist: store its defaults with :meth:`set_guild_settings` first."""
        async with self._tx() as db:
            cur = await db.execute("UPDATE settings SET locale = ? WHERE guild_id = ?",
                                   (locale, guild_id))
            if cur.rowcount != 1:
                raise StorageError(f"server {guild_id} has no settings yet")

    async def active_in_guild(self, guild_id: int) -> list[int]:
        """Ids of a server's lobbies and running tables (oldest first)."""
        async with self._db.execute(
                "SELECT id FROM tables WHERE guild_id = ? AND status IN ('lobby','running') "
                "ORDER BY id", (guild_id,)) as cur:
            return [int(r[0]) for r in await cur.fetchall()]

    async def relocalise(self, table_id: int, locale: str) -> bool:
        """Set the language of a lobby or running table; True when it changed."""
        async with self._table_tx(table_id) as db:
            cur = await db.execute(
                "UPDATE tables SET locale = ?, updated_at = ? WHERE id = ? AND locale != ? "
                "AND status IN ('lobby','running')", (locale, self.clock(), table_id, locale))
            return cur.rowcount == 1

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

    async def raw_execute(self, sql: str, args: Sequence[object] = ()) -> None:
        """Run one write statement, on any table, in a transaction (maintenance and tests)."""
        async with self._table_tx(None) as db:
            await db.execute(sql, args)


__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "Store"]
