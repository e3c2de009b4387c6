"""PostgreSQL's dialect of the core's SQL and its native types.

The core's ``?`` placeholders become ``$1``, ``$2``... (:func:`numbered`, once per query
text); a list of values is one array argument (``= ANY(?)``); results are numbered from the
sequence ``results_seq`` under the place's advisory lock; a read inside a write locks its rows
(``FOR UPDATE``); a row's stamp is its ``xmin`` (the transaction that last wrote it, in any
process). The columns have PostgreSQL's own types (``jsonb``, ``boolean``, ``timestamptz``,
``bigint``), and the values the core sees are the same as SQLite's: JSON as text (asyncpg's own
``jsonb`` codec), flags as ``bool``, and times as float seconds since the epoch, which the codec
:func:`set_codecs` puts on every connection turns into ``timestamptz`` and back (to the
microsecond, PostgreSQL's precision)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from typing import TypeAlias

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from bot.storage.core.db import Dialect, Row

#: A connection: one of its own, or one lent by a pool.
Connection: TypeAlias = "asyncpg.Connection[asyncpg.Record] | PoolConnectionProxy[asyncpg.Record]"
#: The epoch of PostgreSQL's times (2000-01-01 UTC) in seconds since the Unix epoch.
PG_EPOCH = 946684800
_MARK = re.compile(r"\?")


def _array(values: Sequence[object]) -> object:
    return list(values)


DIALECT = Dialect(
    name="postgres", owned=False, stamp="xmin::text",
    next_result_seq="nextval('results_seq')", for_update=" FOR UPDATE",
    lock_place="SELECT pg_advisory_xact_lock(?, hashtext(?))",
    lock_ratings="LOCK TABLE ratings, rating_changes, ai_records",
    one_of="{column} = ANY(?)", many=_array,
    not_a_time="NOT isfinite({column})")  # a timestamptz holds a time, or infinity


@functools.lru_cache(maxsize=1024)
def numbered(sql: str) -> str:
    """``sql`` with its ``?`` placeholders numbered as PostgreSQL's ``$n`` (the core's SQL holds
    no ``?`` in a string literal)."""
    count = 0

    def number(_: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"${count}"

    return _MARK.sub(number, sql)


def changed(status: str) -> int:
    """The number of rows a statement reported (``"UPDATE 1"`` -> 1; none: 0)."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


def _encode_time(seconds: float) -> tuple[int]:
    """Float seconds since the Unix epoch as PostgreSQL's microseconds since its own."""
    return (round(seconds * 1_000_000) - PG_EPOCH * 1_000_000,)


def _decode_time(value: tuple[int]) -> float:
    """PostgreSQL's microseconds as float seconds since the Unix epoch: one division, so a
    time to the microsecond comes back as the very float it was."""
    return (value[0] + PG_EPOCH * 1_000_000) / 1_000_000


async def set_codecs(connection: asyncpg.Connection) -> None:
    """Make ``connection`` take and give times (``timestamptz``) as float seconds since the
    epoch, as the core and SQLite hold them."""
    await connection.set_type_codec("timestamptz", schema="pg_catalog", encoder=_encode_time,
                                    decoder=_decode_time, format="tuple")


class PostgresDb:
    """The core's :class:`~bot.storage.core.db.Db` on an asyncpg connection or pool."""

    def __init__(self, db: Connection | asyncpg.Pool) -> None:
        self.db = db

    async def fetch(self, sql: str, *args: object) -> list[Row]:
        """Every row of a query."""
        return [tuple(r) for r in await self.db.fetch(numbered(sql), *args)]

    async def fetchrow(self, sql: str, *args: object) -> Row | None:
        """The first row of a query, or None."""
        row = await self.db.fetchrow(numbered(sql), *args)
        return None if row is None else tuple(row)

    async def execute(self, sql: str, *args: object) -> int:
        """Run one statement; the number of rows it wrote."""
        return changed(await self.db.execute(numbered(sql), *args))

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        """Run one statement once per row of arguments."""
        await self.db.executemany(numbered(sql), rows)


__all__ = ["DIALECT", "Connection", "PostgresDb", "changed", "numbered", "set_codecs"]
