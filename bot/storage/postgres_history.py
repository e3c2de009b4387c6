"""The PostgreSQL backend's queries of past matches and of rematch offers (as SQLite's,
:mod:`bot.storage.sqlite_history`): a server's (or one person's) finished matches page by page,
and the offers to play a finished table again. :class:`~bot.storage.postgres.Store` takes them
in as a base class."""

from __future__ import annotations

import json
from collections.abc import Collection
from contextlib import AbstractAsyncContextManager

import asyncpg

from bot.storage.postgres_rows import Db, with_seats
from bot.storage.records import RematchOffer, TableResult
from bot.storage.sqlite_history import OFFER_COLUMNS, bounded, read_offer
from bot.storage.sqlite_rows import RESULT_COLUMNS

_HEADS = ", ".join(f"r.{c.strip()}" for c in RESULT_COLUMNS.split(","))


class HistoryQueries:
    """Past matches and rematch offers, on the store's pool (``_pool``) and its write
    transactions (``_tx``)."""

    _pool: asyncpg.Pool

    def _tx(self) -> AbstractAsyncContextManager[Db]:
        raise NotImplementedError  # the store's own

    async def matches(self, place_key: str, user_id: int | None = None, limit: int = 20,
                      before: int | None = None, after: int | None = None,
                      channels: Collection[int] | None = None) -> list[TableResult]:
        """A place's finished matches, newest first (of person ``user_id`` when given, played
        in one of ``channels`` when given): at most ``limit``, older than table ``before`` or
        just newer than table ``after``."""
        values: list[object] = [place_key]
        where = ["r.place_key = $1"]
        source = "results r"
        if user_id is not None:
            source = "result_seats s JOIN results r ON r.table_id = s.table_id"
            values.append(bounded(user_id))
            where.append(f"s.user_id = ${len(values)}")
        if channels is not None:
            values.append(sorted(bounded(c) for c in channels))
            where.append(f"r.channel_id = ANY(${len(values)}::bigint[])")
        order = "DESC"
        if before is not None:
            values.append(bounded(before))
            where.append(f"r.table_id < ${len(values)}")
        elif after is not None:
            values.append(bounded(after))
            where.append(f"r.table_id > ${len(values)}")
            order = "ASC"
        values.append(limit)
        rows = await self._pool.fetch(
            f"SELECT DISTINCT {_HEADS} FROM {source} WHERE {' AND '.join(where)} "
            f"ORDER BY r.table_id {order} LIMIT ${len(values)}", *values)
        heads = [tuple(r) for r in rows]
        if order == "ASC":
            heads.reverse()
        return await with_seats(self._pool, heads)

    async def rematch_of(self, table_id: int) -> RematchOffer | None:
        """The rematch offer made at table ``table_id``, or None."""
        row = await self._pool.fetchrow(
            f"SELECT {OFFER_COLUMNS} FROM rematches WHERE table_id = $1", bounded(table_id))
        return None if row is None else read_offer(tuple(row))

    async def save_rematch(self, offer: RematchOffer) -> None:
        """Store a new rematch offer, or the change of one."""
        async with self._tx() as db:
            await db.execute(
                f"INSERT INTO rematches ({OFFER_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7) "
                "ON CONFLICT (table_id) DO UPDATE SET offered_by = excluded.offered_by, "
                "offered_at = excluded.offered_at, ready = excluded.ready, "
                "message_id = excluded.message_id, new_table = excluded.new_table, "
                "closed = excluded.closed",
                offer.table_id, offer.offered_by, offer.offered_at, json.dumps(offer.ready),
                offer.message_id, offer.new_table, int(offer.closed))

    async def open_rematches(self) -> list[RematchOffer]:
        """The offers neither started nor closed, oldest first."""
        rows = await self._pool.fetch(
            f"SELECT {OFFER_COLUMNS} FROM rematches WHERE closed = 0 ORDER BY offered_at")
        return [read_offer(tuple(r)) for r in rows]


__all__ = ["HistoryQueries"]
