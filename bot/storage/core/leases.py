"""The leases: who does each table's background work (its AI turns, its turn timer), one
``leases`` row per table (its owner and when the lease expires, by the store's clock). Of two
processes claiming one table at once, the row's lock lets one in first and the other finds the
lease taken (not expired, not its own): exactly one is granted. Hearing of other processes'
writes is the backend's (``subscribe``)."""

from __future__ import annotations

from bot.storage.core.base import Base
from bot.storage.core.db import Db
from bot.storage.core.rows import as_float, as_int
from bot.storage.records import Shards

#: A lease is granted when there is none, when it expired, or when it is the owner's already
#: (the row comes back only then).
CLAIM = ("INSERT INTO leases (table_id, owner, expires_at) VALUES (?, ?, ?) "
         "ON CONFLICT (table_id) DO UPDATE SET owner = excluded.owner, "
         "expires_at = excluded.expires_at "
         "WHERE leases.owner = excluded.owner OR leases.expires_at <= ? RETURNING table_id")


def of_shards(shards: Shards) -> str:
    """The condition that table ``t``'s server is heard on ``shards`` (direct-message tables
    are shard 0's). The shard numbers are whole numbers written into the text."""
    ids = ", ".join(str(int(i)) for i in shards.ids)
    return f"((COALESCE(t.guild_id, 0) >> 22) % {int(shards.count)}) IN ({ids})"


def lapsed_sql(shards: Shards | None, no_time: str = "FALSE") -> str:
    """The ids and lease expiries of the lobbies and running tables whose lease expired at the
    one argument (now) or whose expiry is damaged (``no_time``: SQL true for such a
    ``l.expires_at``), and of those with no lease yet whose server is heard on ``shards``
    (every one when None)."""
    mine = "" if shards is None else f" AND {of_shards(shards)}"
    return ("SELECT t.id, l.expires_at FROM tables t LEFT JOIN leases l ON l.table_id = t.id "
            f"WHERE t.status IN ('lobby','running') AND (l.expires_at <= ? OR {no_time} "
            f"OR (l.table_id IS NULL{mine})) ORDER BY t.id")


def home_sql(shards: Shards) -> str:
    """Give the owner (the first argument) until the second the leases other owners (the
    third: the owner again) hold on the lobbies and running tables of ``shards``' servers;
    the ids of those tables."""
    return ("UPDATE leases SET owner = ?, expires_at = ? WHERE owner <> ? AND table_id IN "
            "(SELECT t.id FROM tables t WHERE t.status IN ('lobby','running') "
            f"AND {of_shards(shards)}) RETURNING table_id")


class LeaseRows(Base):
    """The leases part of the store."""

    #: The owner this store claims and renews leases for (None until it first does): its
    #: writes of a table that owner holds wake no one.
    _owner: str | None = None

    async def claim(self, table_id: int, owner: str, ttl: float) -> bool:
        """Take the lease of table ``table_id`` for ``owner`` for ``ttl`` seconds; True when
        granted (free, expired, or ``owner``'s already; a lease whose expiry is damaged is
        expired, named once in a warning)."""
        self._owner = owner
        now = self.clock()
        async with self._tx() as db:
            if await db.fetchrow(CLAIM, table_id, owner, now + ttl, now) is not None:
                return True
            row = await db.fetchrow("SELECT expires_at FROM leases WHERE table_id = ?",
                                    table_id)
            try:
                as_float(None if row is None else row[0], "expires_at")
            except ValueError as exc:  # damaged: expired, so anyone's
                self._damaged(f"the leases row of table {table_id}", exc)
                await db.execute("UPDATE leases SET owner = ?, expires_at = ? "
                                 "WHERE table_id = ?", owner, now + ttl, table_id)
                return True
            return False

    async def renew(self, owner: str, ttl: float) -> list[int]:
        """Extend every lease of ``owner`` on a lobby or running table, in one statement; the
        ids of those tables."""
        self._owner = owner
        async with self._tx() as db:
            rows = await db.fetch(
                "UPDATE leases SET expires_at = ? WHERE owner = ? AND table_id IN "
                "(SELECT id FROM tables WHERE status IN ('lobby','running')) "
                "RETURNING table_id", self.clock() + ttl, owner)
        return sorted(as_int(r[0], "table_id") for r in rows)

    async def release(self, table_id: int, owner: str) -> None:
        """Give up ``owner``'s lease of table ``table_id``."""
        async with self._tx() as db:
            await db.execute("DELETE FROM leases WHERE table_id = ? AND owner = ?",
                             table_id, owner)

    async def expire(self, owner: str) -> None:
        """Let every lease ``owner`` holds lapse now."""
        now = self.clock()
        async with self._tx() as db:
            await db.execute("UPDATE leases SET expires_at = ? WHERE owner = ? "
                             "AND expires_at > ?", now, owner, now)

    async def left_ends(self) -> list[int]:
        """Ids of the tables that ended (finished or closed) whose lease expired without
        being given up: the process that held them stopped before its next pass, maybe
        before it posted a finished game's result."""
        rows = await self._read.fetch(
            "SELECT l.table_id FROM leases l JOIN tables t ON t.id = l.table_id "
            "WHERE t.status NOT IN ('lobby','running') AND l.expires_at <= ? "
            "ORDER BY l.table_id", self.clock())
        return [as_int(r[0], "table_id") for r in rows]

    async def home(self, owner: str, shards: Shards, ttl: float) -> list[int]:
        """Take for ``owner`` the leases other owners hold on the lobbies and running tables
        of ``shards``' servers, in one statement (the processes that held them are told, as
        of a write of each); the ids of those tables."""
        self._owner = owner
        async with self._tx() as db:
            rows = await db.fetch(home_sql(shards), owner, self.clock() + ttl, owner)
            taken = sorted(as_int(r[0], "table_id") for r in rows)
            if taken:
                await self._took(db, taken)
        return taken

    async def _took(self, db: Db, tables: list[int]) -> None:
        """Called inside the transaction that took ``tables`` from their owners: the backend
        may tell the processes that held them (nothing where one process owns the
        database)."""

    async def lapsed(self, shards: Shards | None = None) -> list[int]:
        """Ids of the lobbies and running tables whose lease expired (or whose expiry is
        damaged, named once in a warning), and of those with no lease yet that are
        ``shards``' (every one when None)."""
        rows = await self._read.fetch(lapsed_sql(shards, self.dialect.no_time("l.expires_at")),
                                      self.clock())
        for row in rows:
            if row[1] is not None:
                try:
                    as_float(row[1], "expires_at")
                except ValueError as exc:
                    self._damaged(f"the leases row of table {row[0]}", exc)
        return [as_int(r[0], "id") for r in rows]


__all__ = ["LeaseRows", "home_sql", "lapsed_sql", "of_shards"]
