"""The hints in SQLite: whether a table allows them, and the hints given, one row per person and
decision (the table's version) holding the hint as the bytes the game service handed over, so a
second click on the same decision gets the same hint back, even after a restart, and a match's
history tells how many hints each seat used. The :class:`~bot.storage.sqlite.Store` takes them
in as a base class."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

import aiosqlite


class HintRows:
    """The hints, on the store's connection (``_db``) and its write transactions (``_tx``, and
    ``_table_tx`` for a table's own row)."""

    _db: aiosqlite.Connection

    def _tx(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        raise NotImplementedError  # the store's own

    def _table_tx(self, table_id: int) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        raise NotImplementedError  # the store's own

    async def set_hints(self, table_id: int, hints: bool) -> None:
        """Allow (or not) hints at the table."""
        async with self._table_tx(table_id) as db:
            await db.execute("UPDATE tables SET hints = ? WHERE id = ?", (int(hints), table_id))

    async def stored_hint(self, table_id: int, version: int, user_id: int) -> bytes | None:
        """The hint ``user_id`` was given at ``version`` of the table, or None."""
        async with self._db.execute(
                "SELECT answer FROM hints WHERE table_id = ? AND version = ? AND user_id = ?",
                (table_id, version, user_id)) as cur:
            row = await cur.fetchone()
        return bytes(row[0]) if row is not None else None

    async def record_hint(self, table_id: int, version: int, user_id: int, seat: int,
                          answer: bytes, at: float) -> bytes:
        """Keep the hint ``answer`` given to ``user_id`` (at ``seat``) at ``version``, unless one
        was kept already; the hint kept (the first one)."""
        async with self._tx() as db:
            await db.execute(
                "INSERT OR IGNORE INTO hints (table_id, version, user_id, seat, answer, at) "
                "VALUES (?, ?, ?, ?, ?, ?)", (table_id, version, user_id, seat, answer, at))
            async with db.execute(
                    "SELECT answer FROM hints WHERE table_id = ? AND version = ? AND user_id = ?",
                    (table_id, version, user_id)) as cur:
                row = await cur.fetchone()
        assert row is not None
        return bytes(row[0])

    async def hints_used(self, table_id: int) -> dict[int, int]:
        """Seat -> how many hints the person at that seat was given at the table (seats that
        asked for none are left out)."""
        async with self._db.execute(
                "SELECT seat, COUNT(*) FROM hints WHERE table_id = ? GROUP BY seat ORDER BY seat",
                (table_id,)) as cur:
            rows = await cur.fetchall()
        return {int(seat): int(count) for seat, count in rows}


__all__ = ["HintRows"]
