"""The leases in PostgreSQL (as SQLite's, :mod:`bot.storage.sqlite_leases`): who does each
table's background work, one ``leases`` row per table. Of two processes claiming one table at
once, the row's lock lets one in first and the other finds the lease taken (not expired, not its
own): exactly one is granted. :class:`~bot.storage.postgres.Store` takes them in as a base
class."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import asyncpg

from bot.storage.interface import TableListener
from bot.storage.postgres_listen import Listener
from bot.storage.postgres_rows import Db
from bot.storage.records import Shards
from bot.storage.sqlite_leases import lapsed_sql

#: A lease is granted when there is none, when it expired, or when it is the owner's already
#: (the row comes back only then).
CLAIM = ("INSERT INTO leases (table_id, owner, expires_at) VALUES ($1, $2, $3) "
         "ON CONFLICT (table_id) DO UPDATE SET owner = excluded.owner, "
         "expires_at = excluded.expires_at "
         "WHERE leases.owner = excluded.owner OR leases.expires_at <= $4 RETURNING table_id")


class LeaseRows:
    """The leases, on the store's pool (``_pool``), its write transactions (``_tx``) and its
    ``clock``; other processes' writes heard through its listener (``_news``)."""

    _pool: asyncpg.Pool
    _news: Listener | None
    clock: Callable[[], float]
    #: The owner this store claims and renews leases for (None until it first does): its
    #: writes of a table that owner holds wake no one.
    _owner: str | None = None

    def _tx(self) -> AbstractAsyncContextManager[Db]:
        raise NotImplementedError  # the store's own

    async def claim(self, table_id: int, owner: str, ttl: float) -> bool:
        """Take the lease of table ``table_id`` for ``owner`` for ``ttl`` seconds; True when
        granted (free, expired, or ``owner``'s already)."""
        self._owner = owner
        now = self.clock()
        async with self._tx() as db:
            granted = await db.fetchval(CLAIM, table_id, owner, now + ttl, now)
        return granted is not None

    async def renew(self, owner: str, ttl: float) -> list[int]:
        """Extend every lease of ``owner`` on a lobby or running table, in one statement; the
        ids of those tables."""
        self._owner = owner
        async with self._tx() as db:
            rows = await db.fetch(
                "UPDATE leases SET expires_at = $1 WHERE owner = $2 AND table_id IN "
                "(SELECT id FROM tables WHERE status IN ('lobby','running')) "
                "RETURNING table_id", self.clock() + ttl, owner)
        return sorted(int(r[0]) for r in rows)

    async def release(self, table_id: int, owner: str) -> None:
        """Give up ``owner``'s lease of table ``table_id``."""
        async with self._tx() as db:
            await db.execute("DELETE FROM leases WHERE table_id = $1 AND owner = $2",
                             table_id, owner)

    async def lapsed(self, shards: Shards | None = None) -> list[int]:
        """Ids of the lobbies and running tables whose lease expired, and of those with no
        lease yet that are ``shards``' (every one when None)."""
        rows = await self._pool.fetch(lapsed_sql(shards, "$1"), self.clock())
        return [int(r[0]) for r in rows]

    async def subscribe(self, listener: TableListener) -> None:
        """Tell ``listener`` the id of each table another process writes from now on (on a
        connection of its own, made again when it drops: then it is told None)."""
        if self._news is not None:
            await self._news.add(listener)


__all__ = ["LeaseRows"]
