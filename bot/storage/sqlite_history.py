"""The SQLite backend's queries of past matches and of rematch offers: a server's (or one
person's) finished matches page by page, and the offers to play a finished table again. The
:class:`~bot.storage.sqlite.Store` takes them in as a base class."""

from __future__ import annotations

import json
from collections.abc import Collection
from contextlib import AbstractAsyncContextManager

import aiosqlite

from bot.storage.records import RematchOffer, TableResult
from bot.storage.sqlite_rows import RESULT_COLUMNS, as_float, as_int, opt_int, with_seats

#: The range of SQLite's integers: an id outside it names nothing.
SQLITE_MIN, SQLITE_MAX = -(2**63), 2**63 - 1
OFFER_COLUMNS = "table_id, offered_by, offered_at, ready, message_id, new_table, closed"
_HEADS = ", ".join(f"r.{c.strip()}" for c in RESULT_COLUMNS.split(","))


def bounded(value: int) -> int:
    """``value`` within the range of a 64-bit integer column."""
    return max(SQLITE_MIN, min(value, SQLITE_MAX))


def read_offer(row: aiosqlite.Row | tuple[object, ...]) -> RematchOffer:
    """A ``rematches`` row (:data:`OFFER_COLUMNS`) read."""
    ready = json.loads(str(row[3]))
    if not isinstance(ready, list) or not all(isinstance(u, int) for u in ready):
        raise ValueError("ready must be a list of user ids")
    return RematchOffer(
        table_id=as_int(row[0], "table_id"), offered_by=as_int(row[1], "offered_by"),
        offered_at=as_float(row[2], "offered_at"), ready=tuple(ready),
        message_id=opt_int(row[4], "message_id"), new_table=opt_int(row[5], "new_table"),
        closed=bool(row[6]))


class HistoryQueries:
    """Past matches and rematch offers, on the store's connection (``_db``) and its write
    transactions (``_tx``)."""

    _db: aiosqlite.Connection

    def _tx(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        raise NotImplementedError  # the store's own

    async def matches(self, place_key: str, user_id: int | None = None, limit: int = 20,
                      before: int | None = None, after: int | None = None,
                      channels: Collection[int] | None = None) -> list[TableResult]:
        """A place's finished matches, newest first (of person ``user_id`` when given, played
        in one of ``channels`` when given): at most ``limit``, older than table ``before`` or
        just newer than table ``after``."""
        where = ["r.place_key = ?"]
        values: list[object] = [place_key]
        source = "results r"
        if user_id is not None:
            source = "result_seats s JOIN results r ON r.table_id = s.table_id"
            where.append("s.user_id = ?")
            values.append(bounded(user_id))
        if channels is not None:
            where.append("r.channel_id IN (SELECT value FROM json_each(?))")
            values.append(json.dumps(sorted(bounded(c) for c in channels)))
        order = "DESC"
        if before is not None:
            where.append("r.table_id < ?")
            values.append(bounded(before))
        elif after is not None:
            where.append("r.table_id > ?")
            values.append(bounded(after))
            order = "ASC"
        values.append(limit)
        async with self._db.execute(
                f"SELECT DISTINCT {_HEADS} FROM {source} WHERE {' AND '.join(where)} "
                f"ORDER BY r.table_id {order} LIMIT ?", values) as cur:
            heads = list(await cur.fetchall())
        if order == "ASC":
            heads.reverse()
        return await with_seats(self._db, heads)

    async def rematch_of(self, table_id: int) -> RematchOffer | None:
        """The rematch offer made at table ``table_id``, or None."""
        async with self._db.execute(f"SELECT {OFFER_COLUMNS} FROM rematches WHERE table_id = ?",
                                    (bounded(table_id),)) as cur:
            row = await cur.fetchone()
        return None if row is None else read_offer(row)

    async def save_rematch(self, offer: RematchOffer) -> None:
        """Store a new rematch offer, or the change of one."""
        async with self._tx() as db:
            await db.execute(
                f"INSERT INTO rematches ({OFFER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(table_id) DO UPDATE SET offered_by = excluded.offered_by, "
                "offered_at = excluded.offered_at, ready = excluded.ready, "
                "message_id = excluded.message_id, new_table = excluded.new_table, "
                "closed = excluded.closed",
                (offer.table_id, offer.offered_by, offer.offered_at, json.dumps(offer.ready),
                 offer.message_id, offer.new_table, int(offer.closed)))

    async def open_rematches(self) -> list[RematchOffer]:
        """The offers neither started nor closed, oldest first."""
        async with self._db.execute(
                f"SELECT {OFFER_COLUMNS} FROM rematches WHERE closed = 0 ORDER BY offered_at"
        ) as cur:
            return [read_offer(r) for r in await cur.fetchall()]


__all__ = ["OFFER_COLUMNS", "HistoryQueries", "bounded", "read_offer"]
