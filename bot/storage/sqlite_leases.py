"""The leases in SQLite: who does each table's background work (its AI turns, its turn timer),
one ``leases`` row per table (its owner and when the lease expires, by the store's clock). One
process owns an SQLite file, so its claims are always granted and no other process's writes are
ever heard of. The :class:`~bot.storage.sqlite.Store` takes them in as a base class."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import aiosqlite

from bot.storage.interface import TableListener
from bot.storage.records import Shards

#: A lease is granted when there is none, when it expired, or when it is the owner's already.
CLAIM = ("INSERT INTO leases (table_id, owner, expires_at) VALUES (?, ?, ?) "
         "ON CONFLICT (table_id) DO UPDATE SET owner = excluded.owner, "
         "expires_at = excluded.expires_at "
         "WHERE leases.owner = excluded.owner OR leases.expires_at <= ?")


def lapsed_sql(shards: Shards | None, now: str = "?") -> str:
    """The ids of the lobbies and running tables whose lease expired at the parameter ``now``
    (SQLite's ``?``, PostgreSQL's ``$1``), and of those with no lease yet whose server is heard
    on ``shards`` (every one when None; direct-message tables are shard 0's). The same
    arithmetic in both databases; the shard numbers are whole numbers written into the text."""
    mine = ""
    if shards is not None:
        ids = ", ".join(str(int(i)) for i in shards.ids)
        mine = f" AND ((COALESCE(t.guild_id, 0) >> 22) % {int(shards.count)}) IN ({ids})"
    return ("SELECT t.id FROM tables t LEFT JOIN leases l ON l.table_id = t.id "
            "WHERE t.status IN ('lobby','running') "
            f"AND (l.expires_at <= {now} OR (l.table_id IS NULL{mine})) ORDER BY t.id")


class LeaseRows:
    """The leases, on the store's connection (``_db``), its write transactions (``_tx``) and
    its ``clock``."""

    _db: aiosqlite.Connection
    clock: Callable[[], float]

    def _tx(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        raise NotImplementedError  # the store's own

    async def claim(self, table_id: int, owner: str, ttl: float) -> bool:
        """Take the lease of table ``table_id`` for ``owner`` for ``ttl`` seconds; True when
        granted (free, expired, or ``owner``'s already)."""
        now = self.clock()
        async with self._tx() as db:
            cur = await db.execute(CLAIM, (table_id, owner, now + ttl, now))
            return cur.rowcount == 1

    async def renew(self, owner: str, ttl: float) -> list[int]:
        """Extend every lease of ``owner`` on a lobby or running table, in one statement; the
        ids of those tables."""
        async with self._tx() as db:
            async with db.execute(
                    "UPDATE leases SET expires_at = ? WHERE owner = ? AND table_id IN "
                    "(SELECT id FROM tables WHERE status IN ('lobby','running')) "
                    "RETURNING table_id", (self.clock() + ttl, owner)) as cur:
                rows = await cur.fetchall()
        return sorted(int(r[0]) for r in rows)

    async def release(self, table_id: int, owner: str) -> None:
        """Give up ``owner``'s lease of table ``table_id``."""
        async with self._tx() as db:
            await db.execute("DELETE FROM leases WHERE table_id = ? AND owner = ?",
                             (table_id, owner))

    async def lapsed(self, shards: Shards | None = None) -> list[int]:
        """Ids of the lobbies and running tables whose lease expired, and of those with no
        lease yet that are ``shards``' (every one when None)."""
        async with self._db.execute(lapsed_sql(shards), (self.clock(),)) as cur:
            return [int(r[0]) for r in await cur.fetchall()]

    async def subscribe(self, listener: TableListener) -> None:
        """Nothing to hear: no other process writes this file."""


__all__ = ["LeaseRows"]
