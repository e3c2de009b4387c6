"""PostgreSQL storage through asyncpg: the second backend of
:class:`~bot.storage.interface.Storage`, for bots run as several processes on one database.

The same tables as SQLite's, in PostgreSQL's own types (:mod:`bot.storage.postgres_schema`);
the queries are the core's (:mod:`bot.storage.core`) in PostgreSQL's dialect
(:mod:`bot.storage.postgres_dialect`). Of two processes moving the same table one wins and the
other gets :class:`~bot.storage.records.StaleVersion`. A table read before is kept, but another
process may have written it since: it is served again only when its row's ``xmin`` is
unchanged, checked by the read itself (one query, which then skips the stored state). A write
of a table another process holds the lease of tells that process
(:mod:`bot.storage.postgres_listen`). A server out of reach makes a read or a write raise
:class:`~bot.storage.records.Unreachable` (the same may work once it is back; the pool
connects again by itself); a write's other refusals become
:class:`~bot.storage.records.CannotSave` (the server is out of room: the same write may work
later) or :class:`~bot.storage.records.DatabaseError`.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import asyncpg

from bot.storage.core.db import Db, Reads
from bot.storage.core.store import CoreStore
from bot.storage.interface import Storage, TableListener
from bot.storage.postgres_dialect import DIALECT, Connection, PostgresDb, set_codecs
from bot.storage.postgres_listen import Listener, OwnConnections, notify, tell
from bot.storage.postgres_schema import SCHEMA_VERSION, migrate, schema_version
from bot.storage.records import CannotSave, DatabaseError, SchemaTooNew, StorageError, Unreachable

#: Connections each process keeps open to the server.
POOL_SIZE = 4
#: Seconds a query, or a new connection, may take before the server counts as out of reach:
#: a way to it gone silent (a failover, a network cut that resets nothing) would otherwise hold
#: a click, and its table, until the operating system gives the connection up, many minutes
#: later (past the 15 minutes Discord lets the bot answer a click). Migrations run without it.
QUERY_WAIT = 20.0
#: Seconds a new connection may take when queries wait as long as they need (asyncpg's own).
CONNECT_WAIT = 60.0
#: What the server or the way to it says when the server cannot be reached: it is stopped,
#: starting, shutting down or crashed, or the way to it is cut (a connection refused, reset or
#: lost in the middle of a query).
UNREACHABLE = (OSError, asyncpg.PostgresConnectionError, asyncpg.CannotConnectNowError,
               asyncpg.AdminShutdownError, asyncpg.CrashShutdownError)
#: What else the server or the client says when it cannot take a write now (out of room).
CANNOT_TAKE = (asyncpg.InsufficientResourcesError, asyncpg.InterfaceError)


def out_of_reach(exc: BaseException) -> bool:
    """True when ``exc`` says the server cannot be reached (:data:`UNREACHABLE`), or is the
    client refusing a query on a connection that closed under it."""
    return (isinstance(exc, UNREACHABLE)
            or (isinstance(exc, asyncpg.InterfaceError) and "connection is closed" in str(exc)))


async def rollback(db: Connection) -> None:
    """Make a connection given back to the pool fit to lend again: only a transaction left
    open (its task cancelled) is rolled back. The store sets no other session state, so the
    pool's default reset (a query on every return) is not needed."""
    if db.is_in_transaction():
        await db.execute("ROLLBACK")


class Store(CoreStore):
    """The bot's PostgreSQL database. Open with :meth:`open`, close with :meth:`close`; other
    processes' writes heard by a :class:`~bot.storage.postgres_listen.Listener`."""

    def __init__(self, pool: asyncpg.Pool, clock: Callable[[], float] = time.time,
                 news: Listener | None = None) -> None:
        super().__init__(DIALECT, Reads(PostgresDb(pool), out_of_reach), clock)
        self._pool = pool
        self._news = news

    @classmethod
    async def open(cls, url: str, clock: Callable[[], float] = time.time,
                   pool_size: int = POOL_SIZE, wait: float | None = QUERY_WAIT) -> Store:
        """Connect to the database at ``url`` and run its missing migrations (on a connection
        of their own, however long they take); raises
        :class:`~bot.storage.records.SchemaTooNew` for a database of a newer bot. From then
        on a query or a connection that takes longer than ``wait`` seconds raises
        :class:`~bot.storage.records.Unreachable` (see :data:`QUERY_WAIT`; None: no limit,
        for the admin commands, whose one statement may read a whole server's years)."""
        own = OwnConnections()

        async def init(connection: asyncpg.Connection) -> None:
            await set_codecs(connection)
            await own(connection)

        migrating = await asyncpg.connect(url)
        try:
            await set_codecs(migrating)
            if (found := await migrate(migrating)) > SCHEMA_VERSION:
                raise SchemaTooNew(found, SCHEMA_VERSION)
        finally:
            await migrating.close()
        pool = await asyncpg.create_pool(url, min_size=1, max_size=pool_size, reset=rollback,
                                         init=init, command_timeout=wait,
                                         timeout=CONNECT_WAIT if wait is None else wait)
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
            with self.metrics.writing():
                async with self._pool.acquire() as db, db.transaction():
                    yield PostgresDb(db)
        except StorageError:
            raise
        except Exception as exc:
            if out_of_reach(exc):
                raise Unreachable(str(exc) or type(exc).__name__) from exc
            if isinstance(exc, CANNOT_TAKE):
                raise CannotSave(str(exc)) from exc
            if isinstance(exc, asyncpg.PostgresError):
                raise DatabaseError(str(exc)) from exc
            raise

    def _conflict(self, exc: DatabaseError) -> bool:
        """True when PostgreSQL refused a row that breaks a unique index."""
        return isinstance(exc.__cause__, asyncpg.UniqueViolationError)

    async def _wrote(self, db: Db, table_id: int) -> bool:
        """The process holding the table's lease, if not this one, hears of the write once it
        is committed; True when there is one."""
        return await notify(db, table_id, self._owner)

    async def _took(self, db: Db, tables: list[int]) -> None:
        """The processes that held the leases of ``tables`` hear of it once it is committed:
        they let those tables go at once."""
        await tell(db, tables)

    async def subscribe(self, listener: TableListener) -> None:
        """Tell ``listener`` the id of each table another process writes from now on (on a
        connection of its own, made again when it drops: then it is told None)."""
        if self._news is not None:
            await self._news.add(listener)


def _satisfies_the_interface(store: Store) -> Storage:
    """Nothing at run time: mypy checks here that :class:`Store` is a :class:`Storage`."""
    return store


__all__ = ["SCHEMA_VERSION", "Store", "out_of_reach"]
