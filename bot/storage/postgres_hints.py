"""The hints in PostgreSQL (as SQLite's, :mod:`bot.storage.sqlite_hints`): whether a table
allows them, and the hints given, one row per person and decision (the table's version), the
first one kept when two processes give one at once. :class:`~bot.storage.postgres.Store` takes
them in as a base class."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

import asyncpg

from bot.storage.postgres_rows import Db


class HintRows:
    """The hints, on the store's pool (``_pool``) and its write transactions (``_tx``, and
    ``_table_tx`` for a table's own row)."""

    _pool: asyncpg.Pool

    def _tx(self) -> AbstractAsyncContextManager[Db]:
        raise NotImplementedError  # the store's own

    def _table_tx(self, table_id: int) -> AbstractAsyncContextManager[Db]:
        raise NotImplementedError  # the store's own

    async def set_hints(self, table_id: int, hints: bool) -> None:
        """Allow (or not) hints at the table."""
        async with self._table_tx(table_id) as db:
            await db.execute("UPDATE tables SET hints = $1 WHERE id = $2", int(hints), table_id)

    async def stored_hint(self, table_id: int, version: int, user_id: int) -> bytes | None:
        """The hint ``user_id`` was given at ``version`` of the table, or None."""
        value = await self._pool.fetchval(
            "SELECT answer FROM hints WHERE table_id = $1 AND version = $2 AND user_id = $3",
            table_id, version, user_id)
        return None if value is None else bytes(value)

    async def record_hint(self, table_id: int, version: int, user_id: int, seat: int,
                          answer: bytes, at: float) -> bytes:
        """Keep the hint ``answer`` given to ``user_id`` (at ``seat``) at ``version``, unless one
        was kept already; the hint kept (the first one)."""
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO hints (table_id, version, user_id, seat, answer, at) "
                "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
                table_id, version, user_id, seat, answer, at)
            value = await db.fetchval(
                "SELECT answer FROM hints WHERE table_id = $1 AND version = $2 AND user_id = $3",
                table_id, version, user_id)
        assert value is not None
        return bytes(value)

    async def hints_used(self, table_id: int) -> dict[int, int]:
        """Seat -> how many hints the person at that seat was given at the table (seats that
        asked for none are left out)."""
        rows = await self._pool.fetch(
            "SELECT seat, COUNT(*) FROM hints WHERE table_id = $1 GROUP BY seat ORDER BY seat",
            table_id)
        return {int(seat): int(count) for seat, count in rows}


__all__ = ["HintRows"]
