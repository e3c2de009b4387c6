"""The bot's own metadata: which command tree was last synced where, and which finished
tables had their result posted (a result is posted once, even across a restart)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.game.refusals import Refusal
from bot.game.tables import Tables
from bot.storage.interface import Storage
from bot.storage.records import TableRecord

#: Metadata key remembering that a finished table's result was posted.
ANNOUNCED = "announced:{}"
#: Metadata key of the hash of the last synced command tree.
SYNC_KEY = "commands_hash"


@dataclass
class BotMeta:
    """The command-sync digests and the announcements of results."""

    store: Storage
    tables: Tables

    async def unannounced(self, limit: int) -> list[TableRecord]:
        """Finished games among the ``limit`` most recent ended tables whose result was never
        posted (the bot stopped in between)."""
        out: list[TableRecord] = []
        for tid in await self.store.history(limit=limit):
            if await self.was_announced(tid):
                continue
            try:
                record = await self.tables.load(tid)
            except Refusal:
                continue
            if record.status == "finished" and record.state is not None \
                    and record.game.winner is not None:
                out.append(record)
        return out

    async def was_announced(self, table_id: int) -> bool:
        """True when the result of the table was posted."""
        return await self.store.get_meta(ANNOUNCED.format(table_id)) is not None

    async def announced(self, table_id: int) -> None:
        """Remember that the result of the table was posted."""
        await self.store.set_meta(ANNOUNCED.format(table_id), "1")

    async def synced(self, key: str) -> str | None:
        """The hash of the command tree last synced for ``key`` (a server or all)."""
        return await self.store.get_meta(f"{SYNC_KEY}:{key}")

    async def remember_sync(self, key: str, digest: str) -> None:
        """Remember the hash of the command tree just synced for ``key``."""
        await self.store.set_meta(f"{SYNC_KEY}:{key}", digest)


__all__ = ["BotMeta"]
