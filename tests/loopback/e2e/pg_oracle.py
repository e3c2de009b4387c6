"""The oracle (:mod:`e2e.oracle`) of a bot whose database is PostgreSQL: the same read-only
look, through a connection of its own made for each look in a thread of its own (the oracle is
called from the tests' event loop and answers at once)."""
from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import asyncpg

from bot.storage.core.rows import LOG_COLUMNS, TABLE_COLUMNS, read_log_row, read_record
from bot.storage.postgres_dialect import set_codecs
from bot.storage.records import LogRow, TableRecord
from e2e.oracle import Oracle


class PgOracle(Oracle):
    """Reads the bot's PostgreSQL database ``url`` while the bot runs."""

    def __init__(self, url: str) -> None:
        super().__init__(Path("/nonexistent"))
        self.url = url

    def _rows(self, sql: str, *args: object) -> list[tuple[object, ...]]:
        found: list[tuple[object, ...]] = []

        async def read() -> None:
            db = await asyncpg.connect(self.url)
            try:
                await set_codecs(db)  # times as the store reads them
                found.extend(tuple(r) for r in await db.fetch(sql, *args))
            finally:
                await db.close()

        thread = threading.Thread(target=asyncio.run, args=(read(),))
        thread.start()
        thread.join()
        return found

    def table(self, tid: int) -> TableRecord:
        rows = self._rows(f"SELECT {TABLE_COLUMNS} FROM tables WHERE id = $1", tid)
        assert rows, f"no table {tid}"
        return read_record(rows[0])

    def log(self, tid: int) -> list[LogRow]:
        return [read_log_row(r) for r in self._rows(
            f"SELECT {LOG_COLUMNS} FROM actions WHERE table_id = $1 ORDER BY seq", tid)]

    def active_in(self, channel: int) -> int | None:
        rows = self._rows("SELECT id FROM tables WHERE channel_id = $1 AND status IN "
                          "('lobby', 'running')", channel)
        return int(str(rows[0][0])) if rows else None

    def lease_owner(self, tid: int) -> str | None:
        """The process holding table ``tid``'s lease (its background work), if any."""
        rows = self._rows("SELECT owner FROM leases WHERE table_id = $1", tid)
        return str(rows[0][0]) if rows else None
