"""Table access: the one part of the bot that takes a table's lock and loads tables.

Every operation that reads a table to change it runs inside :meth:`Tables.hold`, which takes the
table's asyncio lock and re-reads the table from the store, so two simultaneous clicks are
serialised and the second sees the first's result. A table that cannot be read is a
:class:`~bot.game.refusals.NoTable` or :class:`~bot.game.refusals.Damaged` refusal.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from bot.game.refusals import Damaged, NoTable
from bot.storage.core.rows import keep
from bot.storage.interface import Storage
from bot.storage.records import CorruptTable, Status, TableRecord
from i18n import msg

#: Tournament matches whose round's end is kept (the oldest let go first).
KEPT_ENDS = 4096


def no_table_here(dms: bool) -> NoTable:
    """The refusal of a command about the table of a channel that has none (``dms``: the
    person's direct messages with the bot, named as such)."""
    return NoTable(msg("bot.error.no_table_here_dm" if dms else "bot.error.no_table_here"))


@dataclass
class Tables:
    """The per-table locks and the loading of tables from ``store``."""

    store: Storage
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict)
    #: When the tournament's round that opened each of its matches ends (None: a round with
    #: no deadline), read once: it is set as the round opens them.
    _ends: dict[int, float | None] = field(default_factory=dict)

    @asynccontextmanager
    async def hold(self, table_id: int) -> AsyncIterator[TableRecord]:
        """Hold table ``table_id`` (its lock) and yield its latest record."""
        async with self._lock(table_id):
            yield await self.load(table_id)

    @asynccontextmanager
    async def locked(self, table_id: int) -> AsyncIterator[None]:
        """Hold table ``table_id`` without reading it (it may be damaged or gone)."""
        async with self._lock(table_id):
            yield

    def busy(self, table_id: int) -> bool:
        """True while some operation holds table ``table_id``."""
        found = self._locks.get(table_id)
        return found is not None and found.locked()

    def _lock(self, table_id: int) -> asyncio.Lock:
        found = self._locks.get(table_id)
        if found is None:
            found = self._locks[table_id] = asyncio.Lock()
        return found

    def forget(self, table_id: int) -> None:
        """Drop the lock of a table that ended (nothing is done with it any more), and its
        round's end."""
        self._ends.pop(table_id, None)
        if not self.busy(table_id):
            self._locks.pop(table_id, None)

    async def round_end(self, record: TableRecord) -> float | None:
        """When the tournament's round that opened ``record``'s table ends, which decides its
        match as it stands then; None for a table of its own (nothing read) or a round with
        no deadline. Read once a table."""
        if record.tournament_id is None:
            return None
        if record.id not in self._ends:
            keep(self._ends, record.id,
                 (await self.store.round_ends([record.id])).get(record.id), KEPT_ENDS)
        return self._ends[record.id]

    def known(self, table_id: int) -> bool:
        """True while a lock of table ``table_id`` is kept (it was used and not forgotten)."""
        return table_id in self._locks

    async def load(self, table_id: int) -> TableRecord:
        """The table, or a :class:`NoTable` / :class:`Damaged` refusal."""
        try:
            record = await self.store.get(table_id)
        except CorruptTable as exc:
            raise Damaged(msg("bot.error.damaged", table=exc.table_id), place_key=exc.place_key,
                          channels=exc.channels) from exc
        if record is None:
            raise NoTable(msg("bot.error.no_such_table", table=table_id))
        return record

    async def in_channel(self, channel_id: int, user_id: int | None = None,
                         dms: bool = False) -> TableRecord:
        """The channel's active table, or a :class:`NoTable` refusal (``user_id``: of a
        tournament's matches played in the channel, the one they sit at; ``dms``: the channel
        is the person's direct messages with the bot, as the refusal says)."""
        tid = await self.store.active_in_channel(channel_id, user_id)
        if tid is None:
            raise no_table_here(dms)
        return await self.load(tid)

    async def ids_with_status(self, status: Status) -> list[int]:
        """Ids of the tables with ``status`` (oldest first)."""
        return await self.store.ids_with_status(status)

    async def set_message(self, table_id: int, *, message_id: int | None = None,
                          lobby_message_id: int | None = None) -> None:
        """Remember the table's current public message (or its lobby message)."""
        await self.store.set_message(table_id, message_id=message_id,
                                     lobby_message_id=lobby_message_id)

    async def set_thread(self, table_id: int, thread_id: int | None, threaded: bool) -> None:
        """Remember the thread the table's match moved to (None: it is played in its channel,
        ``threaded`` false: it no longer waits for a thread)."""
        await self.store.set_thread(table_id, thread_id, threaded)

    async def thread_gone(self, thread_id: int) -> list[int]:
        """Thread ``thread_id`` was deleted: the finished and closed tables played in it no
        longer name it (the history places them in their channel); their ids."""
        return await self.store.thread_gone(thread_id)


__all__ = ["Tables", "no_table_here"]
