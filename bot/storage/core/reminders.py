"""Slow matches' reminders: the reminder of each person's turn once handled (sent, or not
because they were active, their direct messages are closed or they left the match's server),
when each person last opened
or clicked each table, and who cannot get direct messages.

A turn is named by its deadline in whole seconds (:func:`turn_of`): set once when the turn
starts, it stays the same through all the moves of that turn, and the next turn gets a later
one."""

from __future__ import annotations

from collections.abc import Collection

from bot.storage.core.base import Base
from bot.storage.core.db import lock_person
from bot.storage.core.rows import as_float, as_int
from bot.storage.core.seated import SEATED

#: A reminder's states: sent; not sent because the person was active in the match since their
#: turn started; not sent because their direct messages are closed; not sent because they are
#: no longer in the match's server.
SENT, ACTIVE, CLOSED, AWAY = "sent", "active", "closed", "away"


def turn_of(deadline: float) -> int:
    """The name of the turn ending at ``deadline``: its deadline in whole seconds."""
    return round(deadline)


class ReminderRows(Base):
    """The rows of ``reminders``, ``seat_seen`` and ``dms_closed``."""

    async def claim_reminder(self, table_id: int, user_id: int, turn: int, due: float,
                             state: str) -> bool:
        """Record the reminder of ``user_id``'s turn ``turn`` (its deadline) at table
        ``table_id`` as ``state``; False when it was recorded already (by this process or
        another): never two per turn; False too when ``user_id`` no longer sits there
        (forgotten meanwhile, by another process too: nothing is kept under their id)."""
        async with self._tx() as db:
            await lock_person(db, self.dialect, user_id)
            row = await db.fetchrow(
                "INSERT INTO reminders (table_id, user_id, turn, due, state) "
                f"SELECT ?, ?, ?, ?, ? WHERE {SEATED} ON CONFLICT (table_id, user_id, turn) "
                "DO NOTHING RETURNING table_id", table_id, user_id, turn, due, state,
                table_id, user_id)
        return row is not None

    async def set_reminder(self, table_id: int, user_id: int, turn: int, state: str) -> None:
        """Change the state of a recorded reminder (a direct message refused)."""
        async with self._tx() as db:
            await db.execute("UPDATE reminders SET state = ? WHERE table_id = ? AND user_id = ? "
                             "AND turn = ?", state, table_id, user_id, turn)

    async def release_reminder(self, table_id: int, user_id: int, turn: int) -> None:
        """Forget the reminder of ``user_id``'s turn ``turn`` at table ``table_id`` recorded as
        sent, which was not (nothing reached Discord): a later pass claims it again."""
        async with self._tx() as db:
            await db.execute("DELETE FROM reminders WHERE table_id = ? AND user_id = ? "
                             "AND turn = ? AND state = ?", table_id, user_id, turn, SENT)

    async def reminders_of(self, table_ids: Collection[int]
                           ) -> dict[tuple[int, int, int], str]:
        """The recorded reminders of ``table_ids``: (table, user, turn) to its state (a
        damaged one left out, named once in a warning)."""
        if not table_ids:
            return {}
        rows = await self._read.fetch(
            "SELECT table_id, user_id, turn, state FROM reminders WHERE "
            f"{self.dialect.any_of('table_id')}", self.dialect.many(sorted(set(table_ids))))
        return dict(self._readable(
            rows, lambda r: ((as_int(r[0], "table_id"), as_int(r[1], "user_id"),
                              as_int(r[2], "turn")), str(r[3])),
            lambda r: f"the reminders row of user {r[1]} at table {r[0]} (turn {r[2]!r:.20})"))

    async def seen(self, table_id: int, user_id: int, at: float) -> None:
        """``user_id`` opened or clicked something of table ``table_id`` at ``at``: kept while
        they sit there (only a seat's person is reminded; one forgotten meanwhile, by another
        process too, leaves nothing under their id)."""
        async with self._tx() as db:
            await lock_person(db, self.dialect, user_id)
            await db.execute(
                "INSERT INTO seat_seen (table_id, user_id, seen_at) "
                f"SELECT ?, ?, ? WHERE {SEATED} "
                "ON CONFLICT (table_id, user_id) DO UPDATE SET seen_at = excluded.seen_at",
                table_id, user_id, at, table_id, user_id)

    async def seen_at(self, table_ids: Collection[int]) -> dict[tuple[int, int], float]:
        """When each person last opened or clicked each of ``table_ids``: (table, user) to
        the time (a damaged one left out, named once in a warning: as if they never had; their
        next click writes it anew)."""
        if not table_ids:
            return {}
        rows = await self._read.fetch(
            "SELECT table_id, user_id, seen_at FROM seat_seen WHERE "
            f"{self.dialect.any_of('table_id')}", self.dialect.many(sorted(set(table_ids))))
        return dict(self._readable(
            rows, lambda r: ((as_int(r[0], "table_id"), as_int(r[1], "user_id")),
                             as_float(r[2], "seen_at")),
            lambda r: f"the seat_seen row of user {r[1]} at table {r[0]}"))

    async def note_dms_closed(self, user_id: int, at: float) -> None:
        """Discord refused a direct message to ``user_id`` (their direct messages are closed):
        none is tried again."""
        async with self._tx() as db:
            await db.execute("INSERT INTO dms_closed (user_id, noted_at) VALUES (?, ?) "
                             "ON CONFLICT (user_id) DO NOTHING", user_id, at)

    async def clear_dms_closed(self, user_id: int) -> None:
        """``user_id`` asked for reminders again: their direct messages are tried once more."""
        async with self._tx() as db:
            await db.execute("DELETE FROM dms_closed WHERE user_id = ?", user_id)

    async def dms_closed(self, user_ids: Collection[int]) -> set[int]:
        """Those of ``user_ids`` whose direct messages were found closed."""
        if not user_ids:
            return set()
        rows = await self._read.fetch(
            f"SELECT user_id FROM dms_closed WHERE {self.dialect.any_of('user_id')}",
            self.dialect.many(sorted(set(user_ids))))
        return {as_int(r[0], "user_id") for r in rows}


__all__ = ["ACTIVE", "AWAY", "CLOSED", "SENT", "ReminderRows", "turn_of"]
