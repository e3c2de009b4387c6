"""SQLite storage: the backend of :class:`~bot.storage.interface.Storage` that most bots need,
one file owned by one process.

One aiosqlite connection in WAL mode; the schema is versioned with ``PRAGMA user_version`` and
upgraded by the numbered migrations of :mod:`bot.storage.sqlite_schema`. Writes are made one at
a time, each one transaction; the queries are the core's (:mod:`bot.storage.core`), in SQLite's
dialect (:mod:`bot.storage.sqlite_dialect`). A read the file cannot be read for, or a write it
cannot be found or read for (:func:`unreadable`, :func:`out_of_reach`: the disk or share it is
on failing or gone, the file deleted), and a read or a write begun while another program holds
the file locked past SQLite's wait (:func:`held_away`), raise
:class:`~bot.storage.records.Unreachable`; any other write the disk refuses (full, failing)
raises :class:`~bot.storage.records.CannotSave`, any other one
:class:`~bot.storage.records.DatabaseError`.

The file opened is remembered: :meth:`Store.moved` tells when no file, or another file, is at
its path now (deleted or replaced under the bot, which SQLite does not notice: it goes on
writing into the file it opened), and :meth:`Store.save_as` copies what the bot has open.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite

from bot.storage.core.db import Db, Reads
from bot.storage.core.store import CoreStore
from bot.storage.core.tables import RECORDS
from bot.storage.interface import Storage, TableListener
from bot.storage.records import (
    CannotSave,
    DatabaseError,
    ForeignDatabase,
    MigrationFailed,
    NotADatabase,
    SchemaTooNew,
    StorageError,
    Unreachable,
)
from bot.storage.sqlite_dialect import DIALECT, SqliteDb
from bot.storage.sqlite_schema import SCHEMA_VERSION, run_migration, schema_version


def primary_code(exc: BaseException) -> int:
    """SQLite's primary result code of ``exc`` (its extended code's low byte; 0: none)."""
    return getattr(exc, "sqlite_errorcode", 0) & 0xFF


def busy(exc: BaseException) -> bool:
    """True when ``exc`` is SQLite saying another connection holds the database locked."""
    return (isinstance(exc, sqlite3.OperationalError)
            and primary_code(exc) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED))


def cannot_save(exc: BaseException) -> bool:
    """True when ``exc`` is SQLite saying the database or its disk is full, or an I/O error."""
    return (isinstance(exc, sqlite3.OperationalError)
            and primary_code(exc) in (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR))


#: SQLite's I/O errors met reading or finding the file (not writing it).
READING = frozenset({sqlite3.SQLITE_IOERR_READ, sqlite3.SQLITE_IOERR_SHORT_READ,
                     sqlite3.SQLITE_IOERR_FSTAT, sqlite3.SQLITE_IOERR_ACCESS})


def out_of_reach(exc: BaseException) -> bool:
    """True when ``exc`` is SQLite saying its file cannot be reached: it cannot open it
    (``unable to open database file``), the file was moved or deleted under it, or it could not
    read or find it (``disk I/O error`` while reading: the disk or the share the file is on
    failing or gone). Not an I/O error while writing (a quota, a failing disk: that write cannot
    be saved, see :func:`cannot_save`), a full disk, a busy or locked database, a damaged file
    or a mistake in the SQL."""
    code = getattr(exc, "sqlite_errorcode", 0)
    return isinstance(exc, sqlite3.OperationalError) and (
        primary_code(exc) == sqlite3.SQLITE_CANTOPEN or code in READING
        or code == sqlite3.SQLITE_READONLY_DBMOVED)


def unreadable(exc: BaseException) -> bool:
    """True when ``exc``, met by a read outside a transaction, says the file cannot be read:
    :func:`out_of_reach`, or any I/O error (a read writes nothing)."""
    return out_of_reach(exc) or (isinstance(exc, sqlite3.OperationalError)
                                 and primary_code(exc) == sqlite3.SQLITE_IOERR)


def held_away(exc: BaseException) -> bool:
    """True when ``exc``, met by a read outside a transaction or by the start of a write
    (nothing written yet), says the file cannot be used now: :func:`unreadable`, or another
    program holding it locked past SQLite's wait (:func:`busy`: a backup tool, an open
    ``sqlite3`` shell). Like a file out of reach, the same may work once it is let go."""
    return unreadable(exc) or busy(exc)


class Connection:
    """The open database: read with :attr:`db`, write inside :meth:`transaction`."""

    def __init__(self, db: aiosqlite.Connection, path: Path | None = None) -> None:
        self.db = db
        self.writing = asyncio.Lock()  # held by the one write under way
        self.path = path
        self.opened = file_identity(path) if path is not None else None

    def moved(self) -> bool:
        """True when the file opened is no longer at its path: deleted (its folder still
        there), or another file put in its place. A path that cannot be looked at now (a
        disk or share out of reach) tells nothing."""
        if self.path is None or self.opened is None:
            return False
        try:
            return file_identity(self.path) != self.opened
        except FileNotFoundError:
            return self.path.parent.is_dir()
        except OSError:
            return False

    @classmethod
    async def open(cls, path: Path | str) -> Connection:
        """Open (creating if needed) the database at ``path`` and run its missing migrations;
        raises :class:`SchemaTooNew` for a database of a newer bot,
        :class:`ForeignDatabase` for another program's SQLite database (both left as they
        were), :class:`NotADatabase` for a file that is no SQLite database (or is damaged past
        opening)."""
        db = await aiosqlite.connect(str(path), isolation_level=None)
        try:
            try:
                # a newer bot's database is refused before anything is written to it (the
                # switch to WAL rewrites its header)
                if (found := await schema_version(db)) > SCHEMA_VERSION:
                    raise SchemaTooNew(found, SCHEMA_VERSION)
                if found < 1 and await has_tables(db):  # the bot would add its own beside
                    raise ForeignDatabase(f"{path} holds tables but no schema of this bot")
                await db.execute("PRAGMA journal_mode=WAL")
            except sqlite3.DatabaseError as exc:
                if primary_code(exc) in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT):
                    raise NotADatabase(str(exc)) from exc
                raise
            await db.execute("PRAGMA foreign_keys=ON")
            await db.execute("PRAGMA busy_timeout=5000")
            await db.execute("PRAGMA synchronous=NORMAL")
            connection = cls(db, Path(path))
            await connection.migrate()
        except BaseException:
            await db.close()
            raise
        return connection

    async def close(self) -> None:
        """Wait for a write in progress, fold the write-ahead log in and close the database."""
        async with self.writing:
            try:
                await self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except Exception:  # a closed or broken connection: closing is all that is left
                pass
            await self.db.close()

    async def migrate(self) -> None:
        """Run every migration newer than the stored schema version, each in a transaction."""
        current = await schema_version(self.db)
        if current > SCHEMA_VERSION:
            raise SchemaTooNew(current, SCHEMA_VERSION)
        for number in range(current + 1, SCHEMA_VERSION + 1):
            try:
                async with self.transaction() as db:
                    await run_migration(db, number)
            except MigrationFailed as exc:
                exc.started = current
                raise
            except StorageError as exc:  # its COMMIT refused (a full or failing disk)
                cause = exc.__cause__
                if cause is not None and busy(cause):  # another program holds the file:
                    raise cause from None  # the start says so, nothing was migrated
                failed = MigrationFailed(number, exc)
                failed.started = current
                raise failed from exc

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction (after the write under way): committed when the block ends,
        rolled back when it raises; SQLite's refusals become storage errors."""
        async with self.writing:
            try:
                await self.db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if held_away(exc):  # nothing written yet: the file cannot be locked or read
                    raise Unreachable(str(exc)) from exc
                raise
            except asyncio.CancelledError:
                # a BEGIN whose wait was cancelled (the bot stopping) still runs: the
                # transaction it opens is ended here, or the next write could not begin
                await self._roll_back()
                raise
            try:
                yield self.db
                await self.db.execute("COMMIT")
            except BaseException as exc:
                # SQLite has already rolled back after some errors (a full disk): the
                # original error is what matters, not "no transaction is active"
                if self.db.in_transaction:
                    await self._roll_back()
                if out_of_reach(exc):
                    raise Unreachable(str(exc)) from exc
                if cannot_save(exc):
                    raise CannotSave(str(exc)) from exc
                if isinstance(exc, sqlite3.Error):
                    raise DatabaseError(str(exc)) from exc
                raise

    async def _roll_back(self) -> None:
        """Roll the transaction back. A COMMIT whose wait was cancelled (the bot stopping)
        still runs, ahead of this ROLLBACK: the transaction it ended needs no rollback."""
        try:
            await self.db.execute("ROLLBACK")
        except sqlite3.OperationalError:
            if self.db.in_transaction:
                raise


async def has_tables(db: aiosqlite.Connection) -> bool:
    """True when the database holds any table (read only)."""
    async with db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1") as cur:
        return await cur.fetchone() is not None


def file_identity(path: Path) -> tuple[int, int]:
    """The device and inode of the file at ``path``: which file it is."""
    found = os.stat(path)
    return found.st_dev, found.st_ino


class Store(CoreStore):
    """The bot's SQLite database. Open with :meth:`open`, close with :meth:`close`; a table
    read is kept (:data:`~bot.storage.core.tables.RECORDS` at most) and served again without
    SQL until a write of it ends."""

    def __init__(self, connection: Connection, clock: Callable[[], float] = time.time) -> None:
        super().__init__(DIALECT, Reads(SqliteDb(connection.db), held_away), clock)
        self._connection = connection

    @classmethod
    async def open(cls, path: Path | str, clock: Callable[[], float] = time.time) -> Store:
        """Open (creating if needed) and migrate the database at ``path``."""
        return cls(await Connection.open(path), clock)

    async def close(self) -> None:
        """Wait for a write in progress, fold the write-ahead log in and close the database."""
        await self._connection.close()

    async def schema_version(self) -> int:
        """The schema version stored in ``PRAGMA user_version``."""
        return await schema_version(self._connection.db)

    def moved(self) -> bool:
        """True when the database file opened was deleted or replaced since (see
        :meth:`Connection.moved`)."""
        return self._connection.moved()

    async def save_as(self, target: Path) -> None:
        """Copy the database the store has open (every write it made, wherever its file is
        now) into the new file ``target``, with SQLite's online backup, after the write
        under way; raises :class:`CannotSave` when it cannot be written (OSError too)."""
        try:
            copy = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
            try:
                async with self._connection.writing:
                    await self._connection.db.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            finally:
                copy.close()
        except sqlite3.Error as exc:
            raise CannotSave(str(exc)) from exc

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[Db]:
        """One write transaction (see :meth:`Connection.transaction`)."""
        with self.metrics.writing():
            async with self._connection.transaction() as db:
                yield SqliteDb(db)

    def _conflict(self, exc: DatabaseError) -> bool:
        """True when SQLite refused a row that breaks a unique index."""
        return (isinstance(exc.__cause__, sqlite3.IntegrityError)
                and "UNIQUE" in str(exc.__cause__))

    async def subscribe(self, listener: TableListener) -> None:
        """Nothing to hear: no other process writes this file."""


def _satisfies_the_interface(store: Store) -> Storage:
    """Nothing at run time: mypy checks here that :class:`Store` is a :class:`Storage`."""
    return store


__all__ = ["RECORDS", "SCHEMA_VERSION", "Connection", "Store", "busy", "cannot_save",
           "held_away", "out_of_reach", "unreadable"]
