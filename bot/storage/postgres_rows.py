"""PostgreSQL's rows in the stored values' terms: a result's rows written and read. A table's
row and the action log read as SQLite's do (:mod:`bot.storage.sqlite_rows` reads plain values
and holds no driver call), and so does a result once fetched."""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from bot.storage.postgres_schema import Db
from bot.storage.records import TableResult
from bot.storage.sqlite_rows import RESULT_COLUMNS, SEAT_RESULT_COLUMNS, Row, read_results


def changed(status: str) -> int:
    """The number of rows an ``UPDATE`` reported (``"UPDATE 1"`` -> 1)."""
    return int(status.rsplit(" ", 1)[-1])


async def insert_result(db: Db, result: TableResult) -> None:
    """Write ``result``: its ``results`` row and one ``result_seats`` row per seat (inside the
    caller's transaction; a table has one result: a second one is refused). The row's ``seq``
    is the next of the sequence ``results_seq``: the caller holds its server's rating lock
    (:func:`~bot.storage.postgres_ratings.lock_ratings`), so a server's results are numbered
    in the order their ratings are computed."""
    await db.execute(
        f"INSERT INTO results ({RESULT_COLUMNS}, seq) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, nextval('results_seq'))",
        result.table_id, result.guild_id, result.channel_id, result.finished_at, result.rounds,
        result.actions, result.catalogue, result.winner_seat, result.winner_user_id,
        result.place_key, result.abandoned_by)
    await db.executemany(
        f"INSERT INTO result_seats ({SEAT_RESULT_COLUMNS}) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        [(result.table_id, s.seat, s.user_id, s.kind, s.ai_level, s.hero, s.keys, s.hp, s.place,
          int(s.handed_to_ai), int(s.moved)) for s in result.seats])


async def with_seats(db: Db | asyncpg.Pool,
                     heads: Sequence[Row]) -> list[TableResult]:
    """The results of the ``results`` rows ``heads`` (``RESULT_COLUMNS``), read with their
    seats."""
    if not heads:
        return []
    ids = [head[0] for head in heads]
    seats = await db.fetch(
        f"SELECT {SEAT_RESULT_COLUMNS} FROM result_seats WHERE table_id = ANY($1::bigint[]) "
        "ORDER BY table_id, seat", ids)
    return read_results(heads, [tuple(r) for r in seats])


__all__ = ["Db", "insert_result", "with_seats"]
