"""The SQLite database file: one aiosqlite connection in WAL mode, its schema brought up to date
on opening, and its writes made one at a time, each one transaction whose refusal by SQLite
becomes a storage error (:class:`~bot.storage.records.CannotSave` for a full or failing disk,
:class:`~bot.storage.records.DatabaseError` for anything else).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite

from bot.storage.records import CannotSave, DatabaseError, SchemaTooNew
from bot.storage.sqlite_schema import SCHEMA_VERSION, run_migration, schema_version


def cannot_save(exc: BaseException) -> bool:
    """True when ``exc`` is SQLite saying the database or its disk is full, or an I/O error."""
    return (isinstance(exc, sqlite3.OperationalError)
            and getattr(exc, "sqlite_errorcode", 0) & 0xFF
            in (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR))


class Connection:
    """The open database: read with :attr:`db`, write inside :meth:`transaction`."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db
        self.writing = asyncio.Lock()  # held by the one write under way

    @classmethod
    async def open(cls, path: Path | str) -> Connection:
        """Open (creating if needed) the database at ``path`` and run its missing migrations;
        raises :class:`SchemaTooNew` for a database of a newer bot."""
        db = await aiosqlite.connect(str(path), isolation_level=None)
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute("PRAGMA foreign_keys=ON")
            await db.execute("PRAGMA busy_timeout=5000")
            await db.execute("PRAGMA synchronous=NORMAL")
            connection = cls(db)
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

    async def schema_version(self) -> int:
        """The schema version stored in ``PRAGMA user_version``."""
        return await schema_version(self.db)

    async def migrate(self) -> None:
        """Run every migration newer than the stored schema version, each in a transaction."""
        current = await self.schema_version()
        if current > SCHEMA_VERSION:
            raise SchemaTooNew(current, SCHEMA_VERSION)
        for number in range(current + 1, SCHEMA_VERSION + 1):
            async with self.transaction() as db:
                await run_migration(db, number)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction (after the write under way): committed when the block ends,
        rolled back when it raises."""
        async with self.writing:
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
                await self.db.execute("COMMIT")
            except BaseException as exc:
                # SQLite has already rolled back after some errors (a full disk): the
                # original error is what matters, not "no transaction is active"
                if self.db.in_transaction:
                    await self.db.execute("ROLLBACK")
                if cannot_save(exc):
                    raise CannotSave(str(exc)) from exc
                if isinstance(exc, sqlite3.Error):
                    raise DatabaseError(str(exc)) from exc
                raise


__all__ = ["Connection", "cannot_save"]
