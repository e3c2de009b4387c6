"""Who sits where, and what each person asked of the bot: a person's running tables (found
through ``table_seats``, one row per person and table, written with every write of a table's
seats) and their choice of direct-message reminders when their turn waits, with the Discord
language those reminders speak."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from bot.storage.core.base import Base
from bot.storage.core.db import Db
from bot.storage.core.rows import as_int
from bot.storage.records import CorruptTable, SeatInfo, TableRecord

#: SQL true while person ``?`` (the second argument) sits at table ``?`` (the first): a row
#: written about them at that table checks it under :func:`~bot.storage.core.db.lock_person`,
#: so none is written under their id once they are forgotten (their seat then holds their
#: pseudonym).
SEATED = "EXISTS (SELECT 1 FROM table_seats WHERE table_id = ? AND user_id = ?)"


async def write_seats(db: Db, table_id: int, seats: Sequence[SeatInfo]) -> None:
    """Inside a write of table ``table_id``'s seats: its rows of ``table_seats`` become the
    people of ``seats`` (an AI seat that never was a person's has none)."""
    await db.execute("DELETE FROM table_seats WHERE table_id = ?", table_id)
    people = sorted({s.user for s in seats if s.user is not None})
    if people:
        await db.executemany("INSERT INTO table_seats (table_id, user_id) VALUES (?, ?)",
                             [(table_id, user) for user in people])


class SeatedQueries(Base):
    """A person's running tables and their choice of reminders."""

    async def get(self, table_id: int) -> TableRecord | None:
        """The table (see :class:`~bot.storage.core.tables.TableQueries`)."""
        raise NotImplementedError  # the tables part's own

    async def running_of(self, user_id: int) -> list[TableRecord]:
        """The running tables where ``user_id`` holds a seat (or held one that went to the
        AI), by id; a damaged table is left out. One indexed query, then each table as the
        store serves it (a kept one costs no parse)."""
        rows = await self._read.fetch(
            "SELECT s.table_id FROM table_seats s JOIN tables t ON t.id = s.table_id "
            "WHERE s.user_id = ? AND t.status = 'running' ORDER BY s.table_id", user_id)
        out: list[TableRecord] = []
        for row in rows:
            try:
                record = await self.get(as_int(row[0], "table_id"))
            except CorruptTable:
                continue
            if record is not None and record.status == "running":
                out.append(record)
        return out

    async def set_notify(self, user_id: int, on: bool, locale: str | None = None) -> None:
        """Store whether ``user_id`` wants a direct message when their turn waits, and the
        Discord language their client speaks when ``locale`` is given (else the one stored
        stays)."""
        async with self._tx() as db:
            await db.execute("INSERT INTO notify (user_id, dm, locale) VALUES (?, ?, ?) ON "
                             "CONFLICT (user_id) DO UPDATE SET dm = excluded.dm, "
                             "locale = COALESCE(excluded.locale, notify.locale)",
                             user_id, on, locale)

    async def notify_locales(self, user_ids: Collection[int]) -> dict[int, str | None]:
        """The Discord language stored for each of ``user_ids`` who chose whether to get
        reminders (None: not known yet); those who never chose are left out."""
        if not user_ids:
            return {}
        rows = await self._read.fetch(
            f"SELECT user_id, locale FROM notify WHERE {self.dialect.any_of('user_id')}",
            self.dialect.many(sorted(set(user_ids))))
        return {as_int(r[0], "user_id"): r[1] if isinstance(r[1], str) else None
                for r in rows}

    async def note_locale(self, user_id: int, locale: str) -> None:
        """Store the Discord language ``user_id``'s client speaks now, when they chose whether
        to get reminders (nothing is stored for anyone else)."""
        async with self._tx() as db:
            await db.execute("UPDATE notify SET locale = ? WHERE user_id = ?", locale, user_id)

    async def notify_of(self, user_id: int) -> bool:
        """Whether ``user_id`` asked for direct-message reminders (never asked: no)."""
        row = await self._read.fetchrow("SELECT dm FROM notify WHERE user_id = ?", user_id)
        return row is not None and bool(row[0])

    async def notify_wanted(self, user_ids: Collection[int]) -> set[int]:
        """Those of ``user_ids`` who asked for direct-message reminders."""
        if not user_ids:
            return set()
        rows = await self._read.fetch(
            f"SELECT user_id FROM notify WHERE {self.dialect.any_of('user_id')} AND dm = ?",
            self.dialect.many(sorted(set(user_ids))), True)
        return {as_int(r[0], "user_id") for r in rows}


__all__ = ["SeatedQueries", "write_seats"]
