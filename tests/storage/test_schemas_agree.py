"""The two backends' migrations build the same schema, after each of them, read back from each
database by introspection (SQLite's ``sqlite_master`` and ``PRAGMA``s, PostgreSQL's
``information_schema`` and ``pg_catalog``): the same tables, columns (name, nullability, kind of
value), primary keys, foreign keys and indexes (columns, unique, partial or not).

A column's kind is its type family (integer, real, text, bytes), or what it means where the
schema says so (:data:`KINDS`: JSON text, a yes/no flag, a time in seconds). Each backend says
how it stores each meaning (:data:`SQLITE`, :data:`POSTGRES`): PostgreSQL in its own types
(``jsonb``, ``boolean``, ``timestamptz``) from migration
:data:`~bot.storage.postgres_baseline.BASELINE_VERSION` on, as SQLite does before it
(:data:`POSTGRES_BEFORE`: JSON as TEXT, flags as INTEGER, times as DOUBLE PRECISION).

A new PostgreSQL database is built from the baseline script, an older one by its migrations:
both end with the same schema, compared by introspection to the column types, defaults,
constraints and sequences.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import pytest
from postgres_server import Server

from bot.storage import postgres_schema as postgres_schema_module
from bot.storage.postgres import Store as PostgresStore
from bot.storage.postgres_baseline import BASELINE_VERSION
from bot.storage.sqlite import Store as SqliteStore
from bot.storage.sqlite_schema import SCHEMA_VERSION
from storage.backends import PostgresBackend, SqliteBackend
from storage.helpers import Clock

#: What a column means beyond its type, where the type alone does not say it.
KINDS: dict[tuple[str, str], str] = {
    **{("tables", c): "json" for c in ("seats", "state", "anchor")},
    ("rematches", "ready"): "json",
    **{("tables", c): "flag" for c in ("abilities", "lessons", "undo", "hints", "threaded",
                                       "thread_choice", "hints_choice")},
    **{("settings", c): "flag" for c in ("abilities", "undo", "threads")},
    **{("actions", c): "flag" for c in ("by_ai", "undone")},
    **{("result_seats", c): "flag" for c in ("handed_to_ai", "moved")},
    ("rematches", "closed"): "flag",
    ("notify", "dm"): "flag",
    **{("tables", c): "time" for c in ("created_at", "updated_at", "finished_at", "deadline")},
    ("actions", "at"): "time",
    ("results", "finished_at"): "time",
    ("rematches", "offered_at"): "time",
    ("hints", "at"): "time",
    ("leases", "expires_at"): "time",
    ("shares", "posted_at"): "time",
    ("sharers", "shared_at"): "time",
    ("reminders", "due"): "time",
    ("seat_seen", "seen_at"): "time",
    ("dms_closed", "noted_at"): "time",
    ("tournaments", "abilities"): "flag",
    **{("tournament_tables", c): "flag" for c in ("decided", "at_deadline")},
    **{("tournaments", c): "time" for c in ("closes_at", "deadline", "created_at",
                                            "updated_at")},
    ("tournament_entrants", "joined_at"): "time",
    ("tournament_rounds", "started_at"): "time",
}


@dataclass(frozen=True)
class Types:
    """How a backend stores values: its column types by family, and the family it stores each
    meaning of :data:`KINDS` as."""

    families: Mapping[str, str]
    kinds: Mapping[str, str]

    def kind(self, table: str, column: str, declared: str) -> str:
        """The kind of a column declared ``declared``: its meaning when the backend stores that
        meaning as this type, else the type's family (unknown types stay as they are)."""
        family = self.families.get(declared.lower(), declared)
        meaning = KINDS.get((table, column))
        return meaning if meaning is not None and self.kinds[meaning] == family else family


SQLITE = Types(families={"integer": "integer", "real": "real", "text": "text", "blob": "bytes"},
               kinds={"json": "text", "flag": "integer", "time": "real"})
POSTGRES_BEFORE = Types(
    families={"bigint": "integer", "integer": "integer", "smallint": "integer",
              "double precision": "real", "real": "real", "text": "text", "bytea": "bytes",
              "jsonb": "jsonb", "boolean": "boolean",
              "timestamp with time zone": "timestamptz"},
    kinds={"json": "text", "flag": "integer", "time": "real"})
POSTGRES = Types(POSTGRES_BEFORE.families,
                 {"json": "jsonb", "flag": "boolean", "time": "timestamptz"})

#: Tables one backend keeps for itself: PostgreSQL's schema version (SQLite's is a PRAGMA).
OWN_TABLES = {"schema_version", "sqlite_sequence"}


@dataclass(frozen=True)
class Index:
    """An index other than the primary key's: its name (None for SQLite's automatic index of a
    UNIQUE constraint, whose name PostgreSQL chooses otherwise), columns, and whether it is
    unique and partial."""

    name: str | None
    columns: tuple[str, ...]
    unique: bool
    partial: bool


@dataclass(frozen=True)
class Shape:
    """One table as the database holds it."""

    columns: dict[str, tuple[str, bool]]  # name -> (kind, nullable)
    primary_key: tuple[str, ...]
    foreign_keys: frozenset[tuple[tuple[str, ...], str, tuple[str, ...]]]
    indexes: frozenset[Index]


Schema = dict[str, Shape]


def sqlite_schema(backend: SqliteBackend) -> Schema:
    """The tables of the SQLite database. A primary key's columns count as NOT NULL (as
    PostgreSQL makes them; SQLite only enforces it for an INTEGER PRIMARY KEY, and the store
    never writes a NULL key)."""
    out: Schema = {}
    with backend.raw() as con:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in sorted(set(names) - OWN_TABLES):
            info = con.execute(f"PRAGMA table_info({table})").fetchall()
            columns = {name: (SQLITE.kind(table, name, declared), not notnull and not pk)
                       for _, name, declared, notnull, _, pk in info}
            key = tuple(name for *_, name, _, _, _, pk in sorted(info, key=lambda r: r[5]) if pk)
            foreign = con.execute(f"PRAGMA foreign_key_list({table})").fetchall()
            by_id: dict[int, list[tuple[str, str, str]]] = {}
            for fid, _, other, column, to, *_ in foreign:
                by_id.setdefault(fid, []).append((other, column, to))
            keys = frozenset((tuple(c for _, c, _ in refs), refs[0][0], tuple(t for *_, t in refs))
                             for refs in by_id.values())
            indexes = set()
            for _, name, unique, origin, partial in con.execute(f"PRAGMA index_list({table})"):
                if origin == "pk":
                    continue
                cols = tuple(r[2] for r in con.execute(f"PRAGMA index_info({name})"))
                indexes.add(Index(None if origin == "u" else name, cols, bool(unique),
                                  bool(partial)))
            out[table] = Shape(columns, key, keys, frozenset(indexes))
    return out


#: The columns of a constraint or index (``{attnums}`` of relation ``{rel}``), in their order.
ATTNAMES = ("ARRAY(SELECT a.attname FROM unnest({attnums}::int2[]) WITH ORDINALITY AS k(n, i) "
            "JOIN pg_attribute a ON a.attrelid = {rel} AND a.attnum = k.n ORDER BY k.i)")


async def postgres_schema(url: str, types: Types = POSTGRES) -> Schema:
    """The tables of the PostgreSQL database's ``public`` schema (its values stored as
    ``types`` says)."""
    db = await asyncpg.connect(url)
    try:
        columns = await db.fetch(
            "SELECT table_name, column_name, data_type, is_nullable = 'YES' "
            "FROM information_schema.columns WHERE table_schema = 'public'")
        indexes = await db.fetch(
            "SELECT t.relname, i.relname, x.indisprimary, x.indisunique, x.indpred IS NOT NULL, "
            + ATTNAMES.format(attnums="x.indkey", rel="t.oid") + ", EXISTS (SELECT 1 FROM "
            "pg_constraint c WHERE c.conindid = x.indexrelid AND c.contype = 'u') "
            "FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid "
            "JOIN pg_class i ON i.oid = x.indexrelid "
            "JOIN pg_namespace s ON s.oid = t.relnamespace WHERE s.nspname = 'public'")
        foreign = await db.fetch(
            "SELECT t.relname, r.relname, " + ATTNAMES.format(attnums="c.conkey", rel="c.conrelid")
            + ", " + ATTNAMES.format(attnums="c.confkey", rel="c.confrelid") +
            " FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid "
            "JOIN pg_class r ON r.oid = c.confrelid "
            "JOIN pg_namespace s ON s.oid = t.relnamespace "
            "WHERE c.contype = 'f' AND s.nspname = 'public'")
    finally:
        await db.close()
    tables = sorted({r[0] for r in columns} - OWN_TABLES)
    out: Schema = {}
    for table in tables:
        key = next((tuple(r[5]) for r in indexes if r[0] == table and r[2]), ())
        out[table] = Shape(
            {name: (types.kind(table, name, declared), nullable)
             for t, name, declared, nullable in columns if t == table},
            key,
            frozenset((tuple(r[2]), r[1], tuple(r[3])) for r in foreign if r[0] == table),
            frozenset(Index(None if r[6] else r[1], tuple(r[5]), r[3], r[4])
                      for r in indexes if r[0] == table and not r[2]))
    return out


def differences(one: Schema, other: Schema) -> list[str]:
    """What differs between two schemas, one line per table and aspect."""
    out = [f"{t}: only in one" for t in sorted(set(one) ^ set(other))]
    for table in sorted(set(one) & set(other)):
        for aspect in ("columns", "primary_key", "foreign_keys", "indexes"):
            mine, theirs = getattr(one[table], aspect), getattr(other[table], aspect)
            if mine != theirs:
                out.append(f"{table}.{aspect}: {_show(mine)} != {_show(theirs)}")
    return out


def _show(value: object) -> object:
    return sorted(value, key=repr) if isinstance(value, Iterable) and not isinstance(
        value, str | tuple | dict) else value


@pytest.fixture
async def schemas(tmp_path: Path, postgres_server: Server) -> tuple[Schema, Schema, str]:
    """The schema of a new SQLite store and of a new PostgreSQL store (and the latter's URL)."""
    sqlite = SqliteBackend(tmp_path / "karak.sqlite3")
    await (await SqliteStore.open(sqlite.path, clock=Clock())).close()
    url = await PostgresBackend(postgres_server).database()
    await (await PostgresStore.open(url, clock=Clock())).close()
    return sqlite_schema(sqlite), await postgres_schema(url), url


async def test_both_backends_build_the_same_schema(schemas: tuple[Schema, Schema, str]) -> None:
    sqlite, postgres, _ = schemas
    assert "tables" in sqlite and sqlite["tables"].primary_key == ("id",)
    assert differences(sqlite, postgres) == []


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
async def test_each_earlier_schema_is_the_same_on_both_backends(
        tmp_path: Path, postgres_server: Server, version: int) -> None:
    sqlite, postgres = SqliteBackend(tmp_path / "karak.sqlite3"), PostgresBackend(postgres_server)
    await sqlite.build(version)
    await postgres.build(version)
    types = POSTGRES if version >= BASELINE_VERSION else POSTGRES_BEFORE
    assert differences(sqlite_schema(sqlite),
                       await postgres_schema(await postgres.database(), types)) == []


async def test_the_comparison_sees_a_difference(schemas: tuple[Schema, Schema, str]) -> None:
    sqlite, _, url = schemas
    db = await asyncpg.connect(url)
    try:
        await db.execute("ALTER TABLE meta ADD COLUMN note TEXT")
        await db.execute("ALTER TABLE settings ALTER COLUMN locale SET NOT NULL")
        await db.execute("ALTER TABLE hints ALTER COLUMN answer TYPE TEXT")
        await db.execute("DROP INDEX leases_by_owner")
        await db.execute("CREATE INDEX leases_by_owner ON leases(owner) WHERE owner <> ''")
        await db.execute("ALTER TABLE shares DROP CONSTRAINT shares_table_id_fkey")
        await db.execute("ALTER TABLE sharers ADD UNIQUE (user_id)")
    finally:
        await db.close()
    assert [line.split(":")[0] for line in differences(sqlite, await postgres_schema(url))] == [
        "hints.columns", "leases.indexes", "meta.columns", "settings.columns",
        "sharers.indexes", "shares.foreign_keys"]


def test_postgresql_must_store_each_meaning_in_its_own_type() -> None:
    assert POSTGRES.kind("tables", "state", "jsonb") == SQLITE.kind("tables", "state", "TEXT")
    assert POSTGRES.kind("tables", "undo", "boolean") == SQLITE.kind("tables", "undo", "INTEGER")
    assert POSTGRES.kind("actions", "at", "timestamp with time zone") == "time"
    assert POSTGRES.kind("tables", "state", "text") == "text"  # JSON as text is a difference
    assert POSTGRES.kind("tables", "undo", "integer") == "integer"


async def postgres_details(url: str) -> list[tuple[object, ...]]:
    """What :func:`postgres_schema` leaves out, as the database holds it: each column's exact
    type, default and position among the columns, each constraint's definition by name, and
    each sequence."""
    db = await asyncpg.connect(url)
    try:
        columns = await db.fetch(
            "SELECT 'column', table_name, column_name, data_type, column_default, "
            "is_nullable, ordinal_position FROM information_schema.columns "
            "WHERE table_schema = 'public' ORDER BY table_name, ordinal_position")
        constraints = await db.fetch(
            "SELECT 'constraint', t.relname, c.conname, pg_get_constraintdef(c.oid) "
            "FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid "
            "JOIN pg_namespace s ON s.oid = t.relnamespace WHERE s.nspname = 'public' "
            "ORDER BY t.relname, c.conname")
        indexes = await db.fetch(
            "SELECT 'index', tablename, indexname, indexdef FROM pg_indexes "
            "WHERE schemaname = 'public' ORDER BY tablename, indexname")
        sequences = await db.fetch(
            "SELECT 'sequence', sequence_name, data_type, start_value, increment "
            "FROM information_schema.sequences WHERE sequence_schema = 'public' "
            "ORDER BY sequence_name")
    finally:
        await db.close()
    return [tuple(r) for r in (*columns, *constraints, *indexes, *sequences)]


async def test_a_new_database_from_the_baseline_is_an_old_one_migrated(
        postgres_server: Server) -> None:
    new, old = PostgresBackend(postgres_server), PostgresBackend(postgres_server)
    await new.build(SCHEMA_VERSION)  # a new database: the baseline, then what follows it
    await old.build(BASELINE_VERSION - 1)  # a database of the last bot before the baseline
    await old.build(SCHEMA_VERSION)  # upgraded by its migrations
    assert await new.rows("SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]
    new_url, old_url = await new.database(), await old.database()
    assert differences(await postgres_schema(new_url), await postgres_schema(old_url)) == []
    found, expected = await postgres_details(new_url), await postgres_details(old_url)
    assert found == expected
    assert ("column", "tables", "state", "jsonb") in {r[:4] for r in found}


async def test_a_new_database_runs_the_baseline_alone(
        postgres_server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[int] = []
    migration = postgres_schema_module.run_migration

    async def counted(db: postgres_schema_module.Db, number: int) -> None:
        ran.append(number)
        await migration(db, number)

    monkeypatch.setattr(postgres_schema_module, "run_migration", counted)
    await PostgresBackend(postgres_server).build(SCHEMA_VERSION)
    assert ran == list(range(BASELINE_VERSION + 1, SCHEMA_VERSION + 1))
    await PostgresBackend(postgres_server).build(BASELINE_VERSION - 1)
    assert ran[-1] == BASELINE_VERSION - 1  # an older schema is built by its migrations
