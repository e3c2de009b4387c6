"""The hints given (whether a table allows them is written with the table, or with its start),
one row per person and decision (the table's version) holding the hint as the bytes the game
service handed over, so a second click on the same decision gets the same hint back, even after
a restart (of two given at once, the first one kept), and the end of a match tells how many
hints each seat used."""

from __future__ import annotations

from bot.storage.core.base import Base
from bot.storage.core.db import lock_person
from bot.storage.core.rows import as_int
from bot.storage.core.seated import SEATED


def _data(value: object) -> bytes:
    """A stored hint's bytes; ValueError when the column holds anything else (damaged)."""
    if not isinstance(value, bytes | bytearray | memoryview):
        raise ValueError(f"answer {value!r:.40}")
    return bytes(value)


class HintRows(Base):
    """The hints part of the store."""

    async def stored_hint(self, table_id: int, version: int, user_id: int) -> bytes | None:
        """The hint ``user_id`` was given at ``version`` of the table, or None; ValueError when
        it is kept damaged (:meth:`record_hint` with ``mend`` replaces it)."""
        row = await self._read.fetchrow(
            "SELECT answer FROM hints WHERE table_id = ? AND version = ? AND user_id = ?",
            table_id, version, user_id)
        return None if row is None else _data(row[0])

    async def record_hint(self, table_id: int, version: int, user_id: int, seat: int,
                          answer: bytes, at: float, mend: bool = False) -> bytes:
        """Keep the hint ``answer`` given to ``user_id`` (at ``seat``) at ``version``, unless one
        was kept already; the hint kept (the first one). ``mend``: the one kept is damaged,
        ``answer`` replaces it. Kept only while ``user_id`` sits at the table: one forgotten
        meanwhile (by another process too) gets ``answer``, and nothing is kept under their
        id."""
        kept = ("(table_id, version, user_id) DO UPDATE SET answer = excluded.answer, "
                "at = excluded.at") if mend else "DO NOTHING"
        async with self._tx() as db:
            await lock_person(db, self.dialect, user_id)
            await db.execute(
                "INSERT INTO hints (table_id, version, user_id, seat, answer, at) "
                f"SELECT ?, ?, ?, ?, ?, ? WHERE {SEATED} ON CONFLICT {kept}",
                table_id, version, user_id, seat, answer, at, table_id, user_id)
            row = await db.fetchrow(
                "SELECT answer FROM hints WHERE table_id = ? AND version = ? AND user_id = ?",
                table_id, version, user_id)
        return answer if row is None else _data(row[0])

    async def hints_used(self, table_id: int) -> dict[int, int]:
        """Seat -> how many hints the person at that seat was given at the table (seats that
        asked for none are left out)."""
        rows = await self._read.fetch(
            "SELECT seat, COUNT(*) FROM hints WHERE table_id = ? GROUP BY seat ORDER BY seat",
            table_id)
        return {as_int(seat, "seat"): as_int(count, "count") for seat, count in rows}


__all__ = ["HintRows"]
