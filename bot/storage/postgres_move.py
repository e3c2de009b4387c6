"""Moving a bot from its SQLite file to a PostgreSQL database: every table of the file (tables,
action logs, settings, metadata, results, and whatever a later migration adds) copied row for
row, ids kept, in ONE PostgreSQL transaction, so a move that fails leaves the target empty.

Both databases are first brought to this bot's schema (the file's own migrations run as when the
bot opens it), so their tables and columns match; the target's tables must be empty. SQLite's
plain values go into PostgreSQL's own types as the store's dialect writes them
(:mod:`bot.storage.postgres_dialect`): times as float seconds, JSON as its text, and a flag's
0 or 1 as a boolean.
"""

from __future__ import annotations

from pathlib import Path

import aiosqlite
import asyncpg

from bot.storage import postgres, sqlite
from bot.storage.postgres_dialect import set_codecs
from bot.storage.records import StorageError


class CannotMove(StorageError):
    """The move was refused before or while copying; ``str()`` says why, nothing was copied."""


async def copy_sqlite_to_postgres(source: Path, url: str) -> dict[str, int]:
    """Copy the SQLite database ``source`` into the empty PostgreSQL database ``url``; returns
    the number of rows copied per table. Raises :class:`CannotMove`."""
    if not source.is_file():
        raise CannotMove(f"{source} is not a database file")
    await (await sqlite.Store.open(source)).close()  # the file at this bot's schema
    await (await postgres.Store.open(url)).close()  # and so is the target
    async with aiosqlite.connect(source) as src:
        names = await copy_order(src)
        content = {name: await read_table(src, name) for name in names}
    db = await asyncpg.connect(url)
    try:
        await set_codecs(db)
        async with db.transaction():
            for name, (columns, rows) in content.items():
                if await db.fetchval(f"SELECT EXISTS (SELECT 1 FROM {name})"):
                    raise CannotMove(f"the PostgreSQL database already holds {name}")
                if rows:
                    flags = await boolean_columns(db, name, columns)
                    await db.copy_records_to_table(
                        name, records=[as_flags(row, flags) for row in rows], columns=columns)
            await db.execute("SELECT setval('tables_id_seq', GREATEST(COALESCE(MAX(id), 0), 1), "
                             "MAX(id) IS NOT NULL) FROM tables")
            await db.execute("SELECT setval('tournaments_id_seq', GREATEST(COALESCE(MAX(id), "
                             "0), 1), MAX(id) IS NOT NULL) FROM tournaments")
            await db.execute("SELECT setval('results_seq', COALESCE(MAX(seq), 0) + 1, false) "
                             "FROM results")
    except (asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        raise CannotMove(f"{type(exc).__name__}: {exc}") from exc
    finally:
        await db.close()
    return {name: len(rows) for name, (_, rows) in content.items()}


async def boolean_columns(db: asyncpg.Connection, name: str, columns: list[str]) -> set[int]:
    """The positions in ``columns`` of table ``name``'s boolean columns in PostgreSQL."""
    found = await db.fetch("SELECT column_name FROM information_schema.columns WHERE "
                           "table_schema = 'public' AND table_name = $1 AND data_type = 'boolean'",
                           name)
    names = {str(row[0]) for row in found}
    return {i for i, column in enumerate(columns) if column in names}


def as_flags(row: tuple[object, ...], flags: set[int]) -> tuple[object, ...]:
    """``row`` with SQLite's 0 or 1 at the positions ``flags`` as booleans."""
    if not flags:
        return row
    return tuple(bool(v) if i in flags and v is not None else v for i, v in enumerate(row))


async def copy_order(src: aiosqlite.Connection) -> list[str]:
    """The file's tables, each after the tables its rows refer to."""
    found = await src.execute_fetchall(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name")
    names = [str(row[0]) for row in found]
    parents: dict[str, set[str]] = {}
    for name in names:
        keys = await src.execute_fetchall(f'PRAGMA foreign_key_list("{name}")')
        parents[name] = {str(key[2]) for key in keys} - {name}
    order: list[str] = []
    while len(order) < len(names):
        ready = [n for n in names if n not in order and parents[n] <= set(order)]
        if not ready:
            raise CannotMove("the tables refer to each other in a circle")
        order += ready
    return order


async def read_table(src: aiosqlite.Connection,
                     name: str) -> tuple[list[str], list[tuple[object, ...]]]:
    """A table's column names and every row."""
    columns = [str(row[1]) for row in await src.execute_fetchall(f'PRAGMA table_info("{name}")')]
    quoted = ", ".join(f'"{c}"' for c in columns)
    rows = await src.execute_fetchall(f'SELECT {quoted} FROM "{name}"')
    return columns, [tuple(row) for row in rows]


__all__ = ["CannotMove", "copy_sqlite_to_postgres"]
