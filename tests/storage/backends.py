"""The storage backends the tests run on: each opens a store on a real database and is the ONE
place that reaches into that database behind the store's back (damaging a row on purpose,
refusing writes, filling the disk, building an old schema), so a second backend only adds a
class here and a parameter in ``conftest.py``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Literal, Protocol

import aiosqlite
import asyncpg
import pytest
from postgres_server import Server

from bot.storage import postgres, postgres_schema
from bot.storage.interface import Storage
from bot.storage.postgres_dialect import set_codecs
from bot.storage.sqlite import Store
from bot.storage.sqlite_schema import run_migration, schema_version

#: What a backend can be made to refuse: the action log's writes, or the results'.
Refused = Literal["actions", "results"]
#: SQLite's largest page limit: "room again".
NO_LIMIT = 1073741823


class Backend(Protocol):
    """A storage backend under test, on its own database."""

    name: str
    #: True when several processes may write the database (the store keeps no table).
    shared: bool

    async def open(self, clock: Callable[[], float]) -> Storage:
        """A store on the backend's database (a second call: a second store on it, as a
        restarted bot would open it)."""
        ...

    async def damage_table(self, store: Storage, table_id: int, **columns: object) -> None:
        """Overwrite stored columns of table ``table_id`` as a bad disk or a careless hand
        would; ``store`` then forgets what it kept."""
        ...

    async def damage_settings(self, store: Storage, guild_id: int, **columns: object) -> None:
        """Overwrite stored columns of a server's settings."""
        ...

    async def damage_result(self, table_id: int, seat: int | None, **columns: object) -> None:
        """Overwrite stored columns of the result of table ``table_id``: of its ``results``
        row (``seat`` None), or of the ``result_seats`` row of ``seat``."""
        ...

    async def damage_row(self, table: str, where: dict[str, object],
                         **columns: object) -> None:
        """Overwrite stored columns of the one row of ``table`` whose columns hold ``where``'s
        values (a table no store keeps: ratings, offers, tournaments, reminders...)."""
        ...

    async def refuse(self, store: Storage, what: Refused) -> None:
        """Make the database refuse every write of ``what`` from now on."""
        ...

    async def build(self, version: int) -> None:
        """Bring the database (new, or at an earlier schema) to schema ``version``: the
        migrations it lacks up to ``version`` applied, each in its transaction, as the bot of
        that version left it."""
        ...

    async def insert_rows(self, rows: Sequence[tuple[str, dict[str, object]]]) -> None:
        """Insert ``(table, columns)`` rows in order, as an older bot wrote them (PostgreSQL:
        the table id sequence then follows the highest id, as it did for that bot)."""
        ...

    async def read_rows(self, table: str, columns: Sequence[str]) -> list[tuple[object, ...]]:
        """The values of ``columns`` in every row of ``table``, as the database holds them."""
        ...

    async def every_row(self) -> dict[str, list[str]]:
        """Every row of every table of the database (found by asking the database, so a table
        added later is in), each row as one text holding all its values (JSON included)."""
        ...


class SqliteBackend:
    """The SQLite backend on the file ``path``; raw access through :mod:`sqlite3`."""

    name = "sqlite"
    shared = False

    def __init__(self, path: Path) -> None:
        self.path = path

    async def open(self, clock: Callable[[], float]) -> Store:
        """A store on the file."""
        return await Store.open(self.path, clock=clock)

    @contextlib.contextmanager
    def raw(self) -> Iterator[sqlite3.Connection]:
        """A connection of its own to the file, committed and closed on leaving."""
        con = sqlite3.connect(self.path, timeout=10)
        try:
            with con:
                yield con
        finally:
            con.close()

    async def damage_table(self, store: Storage, table_id: int, **columns: object) -> None:
        """Overwrite columns of the ``tables`` row ``table_id`` (in a thread: a bot running in
        this event loop may be in the middle of a write, which it must be able to finish)."""
        await asyncio.to_thread(self._update, "tables", "id", table_id, columns)
        forget(store)

    async def damage_settings(self, store: Storage, guild_id: int, **columns: object) -> None:
        """Overwrite columns of the ``settings`` row of ``guild_id`` (in a thread, as
        :meth:`damage_table`)."""
        await asyncio.to_thread(self._update, "settings", "guild_id", guild_id, columns)
        forget(store)

    async def damage_result(self, table_id: int, seat: int | None, **columns: object) -> None:
        """Overwrite columns of a result's row, or of one of its seats' rows (no store keeps
        results)."""
        if seat is None:
            await asyncio.to_thread(self._update, "results", "table_id", table_id, columns)
        else:
            await asyncio.to_thread(self._update, "result_seats", "table_id", table_id, columns,
                                    f" AND seat = {int(seat)}")

    async def damage_row(self, table: str, where: dict[str, object],
                         **columns: object) -> None:
        """Overwrite columns of one row of ``table`` (in a thread, as :meth:`damage_table`)."""
        await asyncio.to_thread(self._update_where, table, where, columns)

    def _update_where(self, table: str, where: dict[str, object],
                      columns: dict[str, object]) -> None:
        sets = ", ".join(f"{name} = ?" for name in columns)
        keys = " AND ".join(f"{name} = ?" for name in where)
        with self.raw() as con:
            changed = con.execute(f"UPDATE {table} SET {sets} WHERE {keys}",
                                  (*columns.values(), *where.values())).rowcount
        assert changed == 1, f"test setup: no {table} row {where}"

    def _update(self, table: str, key: str, value: int, columns: dict[str, object],
                also: str = "") -> None:
        sets = ", ".join(f"{name} = ?" for name in columns)
        with self.raw() as con:
            changed = con.execute(f"UPDATE {table} SET {sets} WHERE {key} = ?{also}",
                                  (*columns.values(), value)).rowcount
        assert changed == 1, f"test setup: no {table} row {value}"

    async def refuse(self, store: Storage, what: Refused) -> None:
        """A trigger aborts every insert into ``what``."""
        with self.raw() as con:
            con.execute(f"CREATE TRIGGER refuse_{what} BEFORE INSERT ON {what} "
                        "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")

    def column(self, table_id: int, column: str) -> object:
        """A stored column of the ``tables`` row ``table_id``, as SQLite holds it."""
        with self.raw() as con:
            row = con.execute(f"SELECT {column} FROM tables WHERE id = ?", (table_id,)).fetchone()
        assert row is not None, f"no table {table_id}"
        return row[0]

    def set_schema_version(self, number: int) -> None:
        """Write ``number`` as the schema version, as a newer bot would."""
        with self.raw() as con:
            con.execute(f"PRAGMA user_version = {int(number)}")

    async def build(self, version: int) -> None:
        """The database brought to schema ``version`` (see :meth:`Backend.build`)."""
        async with aiosqlite.connect(self.path, isolation_level=None) as db:
            await db.execute("PRAGMA foreign_keys=ON")
            for number in range(await schema_version(db) + 1, version + 1):
                await db.execute("BEGIN IMMEDIATE")
                await run_migration(db, number)
                await db.execute("COMMIT")

    def insert(self, table: str, **columns: object) -> None:
        """Insert one row (written by an older bot, with that version's columns)."""
        names = ", ".join(columns)
        marks = ", ".join("?" for _ in columns)
        with self.raw() as con:
            con.execute(f"INSERT INTO {table} ({names}) VALUES ({marks})", tuple(columns.values()))

    def rows(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        """Read rows as SQLite holds them."""
        with self.raw() as con:
            return [tuple(r) for r in con.execute(sql, args).fetchall()]

    async def insert_rows(self, rows: Sequence[tuple[str, dict[str, object]]]) -> None:
        """Insert rows in order, in one transaction."""
        with self.raw() as con:
            for table, columns in rows:
                con.execute(f"INSERT INTO {table} ({', '.join(columns)}) "
                            f"VALUES ({', '.join('?' for _ in columns)})",
                            tuple(columns.values()))

    async def read_rows(self, table: str, columns: Sequence[str]) -> list[tuple[object, ...]]:
        """The values of ``columns`` in every row of ``table``."""
        return self.rows(f"SELECT {', '.join(columns)} FROM {table}")

    async def every_row(self) -> dict[str, list[str]]:
        """Every row of every table, each as the text of its values."""
        names = [str(r[0]) for r in self.rows("SELECT name FROM sqlite_master WHERE type = "
                                              "'table' AND name NOT LIKE 'sqlite_%'")]
        return {name: [repr(row) for row in self.rows(f"SELECT * FROM {name}")]
                for name in names}


class PostgresBackend:
    """The PostgreSQL backend on a new database of the throwaway ``server``; raw access through
    a connection of its own."""

    name = "postgres"
    shared = True

    def __init__(self, server: Server) -> None:
        self.server = server
        self.url = ""

    async def database(self) -> str:
        """The URL of the backend's database, created on first use."""
        if not self.url:
            self.url = await self.server.new_database()
        return self.url

    async def open(self, clock: Callable[[], float]) -> postgres.Store:
        """A store on the database."""
        return await postgres.Store.open(await self.database(), clock=clock)

    async def execute(self, sql: str, *args: object) -> str:
        """Run one statement on a connection of its own (times given as float seconds)."""
        db = await asyncpg.connect(await self.database())
        try:
            await set_codecs(db)
            return str(await db.execute(sql, *args))
        finally:
            await db.close()

    async def rows(self, sql: str, *args: object) -> list[tuple[object, ...]]:
        """Read rows as the store reads them (times as float seconds: the dialect's codecs)."""
        db = await asyncpg.connect(await self.database())
        try:
            await set_codecs(db)
            return [tuple(r) for r in await db.fetch(sql, *args)]
        finally:
            await db.close()

    async def damage_table(self, store: Storage, table_id: int, **columns: object) -> None:
        """Overwrite columns of the ``tables`` row ``table_id`` (damage its column types
        refuse cannot happen here: the test skips)."""
        await self._update("tables", "id", table_id, columns)

    async def damage_settings(self, store: Storage, guild_id: int, **columns: object) -> None:
        """Overwrite columns of the ``settings`` row of ``guild_id``."""
        await self._update("settings", "guild_id", guild_id, columns)

    async def damage_result(self, table_id: int, seat: int | None, **columns: object) -> None:
        """Overwrite columns of a result's row, or of one of its seats' rows."""
        if seat is None:
            await self._update("results", "table_id", table_id, columns)
        else:
            await self._update("result_seats", "table_id", table_id, columns,
                               f" AND seat = {int(seat)}")

    async def damage_row(self, table: str, where: dict[str, object],
                         **columns: object) -> None:
        """Overwrite columns of one row of ``table`` (damage its column types refuse cannot
        happen here: the test skips)."""
        keys = " AND ".join(f"{name} = ${i}" for i, name in enumerate(where, start=1))
        sets = ", ".join(f"{name} = ${i}" for i, name in enumerate(columns, start=len(where) + 1))
        try:
            status = await self.execute(f"UPDATE {table} SET {sets} WHERE {keys}",
                                        *where.values(), *columns.values())
        except (asyncpg.DataError, asyncpg.PostgresError) as exc:
            pytest.skip(f"PostgreSQL's column types refuse this damage ({type(exc).__name__})")
        assert status == "UPDATE 1", f"test setup: no {table} row {where}"
        stored = await self.rows(f"SELECT {', '.join(columns)} FROM {table} WHERE {keys}",
                                 *where.values())
        if [tuple(map(plain, row)) for row in stored] != [tuple(map(plain, columns.values()))]:
            pytest.skip("PostgreSQL's column types turn this damage into a valid value")

    async def _update(self, table: str, key: str, value: int, columns: dict[str, object],
                      also: str = "") -> None:
        sets = ", ".join(f"{name} = ${i}" for i, name in enumerate(columns, start=2))
        try:
            status = await self.execute(f"UPDATE {table} SET {sets} WHERE {key} = $1{also}",
                                        value, *columns.values())
        except (asyncpg.DataError, asyncpg.PostgresError) as exc:
            pytest.skip(f"PostgreSQL's column types refuse this damage ({type(exc).__name__})")
        assert status == "UPDATE 1", f"test setup: no {table} row {value}"
        names = ", ".join(columns)
        stored = await self.rows(f"SELECT {names} FROM {table} WHERE {key} = $1{also}", value)
        if [tuple(map(plain, row)) for row in stored] != [tuple(map(plain, columns.values()))]:
            # e.g. 1.5 rounded into a BIGINT column
            pytest.skip("PostgreSQL's column types turn this damage into a valid value")

    async def refuse(self, store: Storage, what: Refused) -> None:
        """A trigger aborts every insert into ``what``."""
        await self.execute(
            "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN "
            "RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql")
        await self.execute(f"CREATE TRIGGER refuse_{what} BEFORE INSERT ON {what} "
                           "FOR EACH ROW EXECUTE FUNCTION refuse()")

    async def build(self, version: int) -> None:
        """The database brought to schema ``version`` (see :meth:`Backend.build`)."""
        db = await asyncpg.connect(await self.database())
        try:
            await postgres_schema.migrate(db, upto=version)
        finally:
            await db.close()

    async def insert(self, table: str, **columns: object) -> None:
        """Insert one row (written by an older bot, with that version's columns)."""
        names = ", ".join(columns)
        marks = ", ".join(f"${i}" for i in range(1, len(columns) + 1))
        await self.execute(f"INSERT INTO {table} ({names}) VALUES ({marks})", *columns.values())

    async def insert_rows(self, rows: Sequence[tuple[str, dict[str, object]]]) -> None:
        """Insert rows in order, in one transaction on one connection (a flag written as 0 or 1
        goes into a ``boolean`` column as what it means); the table id sequence then follows
        the highest id."""
        db = await asyncpg.connect(await self.database())
        try:
            await set_codecs(db)
            flags = {(r[0], r[1]) for r in await db.fetch(
                "SELECT table_name, column_name FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND data_type = 'boolean'")}
            async with db.transaction():
                for table, columns in rows:
                    marks = ", ".join(f"${i}" for i in range(1, len(columns) + 1))
                    values = [bool(v) if (table, c) in flags and isinstance(v, int) else v
                              for c, v in columns.items()]
                    await db.execute(f"INSERT INTO {table} ({', '.join(columns)}) "
                                     f"VALUES ({marks})", *values)
                await db.execute("SELECT setval('tables_id_seq', MAX(id)) FROM tables")
        finally:
            await db.close()

    async def read_rows(self, table: str, columns: Sequence[str]) -> list[tuple[object, ...]]:
        """The values of ``columns`` in every row of ``table``."""
        return await self.rows(f"SELECT {', '.join(columns)} FROM {table}")

    async def every_row(self) -> dict[str, list[str]]:
        """Every row of every table of the schema, each as PostgreSQL's text of the row."""
        names = [str(r[0]) for r in await self.rows(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")]
        return {name: [str(r[0]) for r in await self.rows(f"SELECT t::text FROM {name} t")]
                for name in names}


def plain(value: object) -> object:
    """A stored value as it compares across the backends' types: JSON text by what it holds
    (PostgreSQL's ``jsonb`` gives it back spaced and ordered its own way), a flag as 0 or 1."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.dumps(json.loads(value), sort_keys=True)
        except ValueError:
            return value
    return int(value) if isinstance(value, bool) else value


def forget(store: Storage) -> None:
    """Make ``store`` forget the tables it kept: the database changed behind its back (a
    PostgreSQL store keeps none)."""
    if isinstance(store, Store):
        store._records.clear()


async def fill_up(store: Store) -> None:
    """Make the database of ``store`` full: no page may be added (a page limit on the store's
    own connection), and the free pages are taken."""
    connection = store._connection
    async with connection.writing:  # never inside one of the store's transactions
        db = connection.db
        await _page_limit(db, 0)
        for size in (4000, 1000, 100, 10):
            while True:
                try:
                    await db.execute("INSERT INTO filler VALUES (zeroblob(?))", (size,))
                except sqlite3.OperationalError as exc:
                    assert "full" in str(exc)
                    break


async def no_room_for(store: Store, column: str, table: str = "tables") -> None:
    """From now on, a write of ``column`` of ``table`` in the database of ``store`` needs more
    room than is left (SQLite's own "database or disk is full"), and other writes still fit:
    a page limit a little above today's size, and a trigger that takes more than that."""
    connection = store._connection
    async with connection.writing:  # never inside one of the store's transactions
        db = connection.db
        await _page_limit(db, 100)
        await db.execute(f"CREATE TEMP TRIGGER roomy AFTER UPDATE OF {column} ON main.{table} "
                         "BEGIN INSERT INTO filler VALUES (zeroblob(2000000)); END")


async def _page_limit(db: aiosqlite.Connection, spare: int) -> None:
    """A table ``filler`` to take room with, and a page limit ``spare`` pages above the size
    of the database of ``db``."""
    await db.execute("CREATE TABLE IF NOT EXISTS filler (x BLOB)")
    async with db.execute("PRAGMA page_count") as cursor:
        row = await cursor.fetchone()
    assert row is not None
    await db.execute(f"PRAGMA max_page_count = {int(row[0]) + spare}")


async def make_room(store: Store) -> None:
    """Lift the page limit :func:`fill_up` set: the database has room again."""
    connection = store._connection
    async with connection.writing:
        await connection.db.execute(f"PRAGMA max_page_count = {NO_LIMIT}")
