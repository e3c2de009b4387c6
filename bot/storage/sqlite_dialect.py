"""SQLite's dialect of the core's SQL: the core's ``?`` placeholders as they are, a list of
values given as one JSON argument read with ``json_each``, results numbered from the highest
``seq`` (write transactions run one at a time, so no lock is needed), and no row stamp: the
process owns its file. Its connection (:class:`SqliteDb`) hands rows over as SQLite holds them:
flags as 0 or 1, times as REAL seconds, JSON as text, all of which the core reads."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

import aiosqlite

from bot.storage.core.db import Dialect, Row


def _json_list(values: Sequence[object]) -> object:
    return json.dumps(values)


DIALECT = Dialect(
    name="sqlite", owned=True, stamp="NULL",
    next_result_seq="(SELECT COALESCE(MAX(seq), 0) + 1 FROM results)",
    for_update="", lock_place=None, lock_ratings=None,
    one_of="{column} IN (SELECT value FROM json_each(?))", many=_json_list,
    # a REAL column holds whatever is written there (a word, infinity)
    not_a_time="(typeof({column}) NOT IN ('integer', 'real', 'null') OR abs({column}) >= 9e999)")


class SqliteDb:
    """The core's :class:`~bot.storage.core.db.Db` on an aiosqlite connection."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db

    async def fetch(self, sql: str, *args: object) -> list[Row]:
        """Every row of a query (run and read in one trip to the connection's thread)."""
        return [tuple(r) for r in await self.db.execute_fetchall(sql, args)]

    async def fetchrow(self, sql: str, *args: object) -> Row | None:
        """The first row of a query (read to its end: a write's ``RETURNING`` completes)."""
        rows = await self.fetch(sql, *args)
        return rows[0] if rows else None

    async def execute(self, sql: str, *args: object) -> int:
        """Run one statement; the number of rows it wrote (one trip to the connection's
        thread: the finished statement's cursor is not closed by another)."""
        cur = await self.db.execute(sql, args)
        return cur.rowcount

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        """Run one statement once per row of arguments."""
        await self.db.executemany(sql, rows)


__all__ = ["DIALECT", "SqliteDb"]
