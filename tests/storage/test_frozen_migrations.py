"""Released migrations are frozen: the schema modules, PostgreSQL's baseline and the rules they
compute with import nothing of the bot, the engine, the cards, the pictures or the translations
(only the standard library, the database drivers and each other), so a later change of live code
never changes what an old migration does. And a migration's script runs whole: a ``;`` inside a
string literal or a trigger's body does not cut it."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import aiosqlite
import asyncpg
import pytest
from postgres_server import Server

from bot.storage import postgres_schema, sqlite_schema

ROOT = Path(__file__).resolve().parent.parent.parent
#: The modules holding the migrations, the baseline and what they compute with: module -> file.
FROZEN = {f"bot.storage.{name}": f"bot/storage/{name}.py"
          for name in ("sqlite_schema", "postgres_schema", "postgres_baseline",
                       "migration_rules")}
#: The third-party packages a migration may use: the database drivers.
DRIVERS = {"aiosqlite", "asyncpg"}


def allowed(module: str) -> bool:
    """True when a frozen module may import ``module``."""
    top = module.split(".")[0]
    return module in FROZEN or top in DRIVERS or top in sys.stdlib_module_names \
        or top == "__future__"


def live_imports(root: Path) -> list[str]:
    """Every import of the frozen modules under ``root`` that :func:`allowed` refuses (at any
    depth of the source: an import inside a function counts too)."""
    out = []
    for path in FROZEN.values():
        tree = ast.parse((root / path).read_text(encoding="utf-8"), filename=path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = "." * node.level + (node.module or "")
                names = [base if allowed(base) else f"{base}.{alias.name}"
                         for alias in node.names]
            else:
                continue
            out += [f"{path}:{node.lineno} imports {name}" for name in names
                    if not allowed(name)]
    return out


def test_released_migrations_import_no_live_code() -> None:
    assert live_imports(ROOT) == []


def test_the_checker_sees_a_live_import(tmp_path: Path) -> None:
    for path in FROZEN.values():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("import json\nimport asyncpg.pool\n"
                                     "from bot.storage import migration_rules\n", "utf-8")
    (tmp_path / FROZEN["bot.storage.sqlite_schema"]).write_text(
        "import json\n\nasync def m(db):\n    from cards import catalogue_version\n"
        "    from bot.storage.records import SchemaTooNew, places\n"
        "    from . import sqlite_rows\n    import engine.serialize\n", "utf-8")
    assert live_imports(tmp_path) == [
        "bot/storage/sqlite_schema.py:4 imports cards.catalogue_version",
        "bot/storage/sqlite_schema.py:5 imports bot.storage.records.SchemaTooNew",
        "bot/storage/sqlite_schema.py:5 imports bot.storage.records.places",
        "bot/storage/sqlite_schema.py:6 imports ..sqlite_rows",
        "bot/storage/sqlite_schema.py:7 imports engine.serialize"]


# ------------------------------------------------------------------ scripts run whole

#: A ``;`` in a string literal, in a comment and in a trigger's body (SQLite's dialect).
SQLITE_SCRIPT = """
CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL DEFAULT 'one; two');
-- a comment; with a semicolon
CREATE TABLE seen (note INTEGER NOT NULL, body TEXT NOT NULL);
CREATE TRIGGER noted AFTER INSERT ON notes BEGIN
    INSERT INTO seen (note, body) VALUES (new.id, new.body || '; seen');
    UPDATE notes SET body = body || ';' WHERE id = new.id;
END;
INSERT INTO notes (id) VALUES (1);
INSERT INTO notes (id, body) VALUES (2, 'it''s; fine')
"""

#: The same in PostgreSQL's dialect: the trigger's function body is a dollar-quoted string.
POSTGRES_SCRIPT = """
CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT NOT NULL DEFAULT 'one; two');
-- a comment; with a semicolon
CREATE TABLE seen (note BIGINT NOT NULL, body TEXT NOT NULL);
CREATE FUNCTION note_seen() RETURNS trigger AS $$ BEGIN
    INSERT INTO seen (note, body) VALUES (new.id, new.body || '; seen');
    UPDATE notes SET body = body || ';' WHERE id = new.id;
    RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER noted AFTER INSERT ON notes FOR EACH ROW EXECUTE FUNCTION note_seen();
INSERT INTO notes (id) VALUES (1);
INSERT INTO notes (id, body) VALUES (2, 'it''s; fine')
"""

#: What both scripts leave.
NOTES = [(1, "one; two;"), (2, "it's; fine;")]
SEEN = [(1, "one; two; seen"), (2, "it's; fine; seen")]


def test_a_script_splits_only_where_a_statement_ends() -> None:
    found = [" ".join(s.split()) for s in sqlite_schema.statements(SQLITE_SCRIPT)]
    assert [s[:20] for s in found] == [
        "CREATE TABLE notes (", "-- a comment; with a", "CREATE TRIGGER noted",
        "INSERT INTO notes (i", "INSERT INTO notes (i"]
    assert found[2].endswith("WHERE id = new.id; END;")


async def test_sqlite_runs_a_script_whole_inside_the_transaction(tmp_path: Path) -> None:
    async with aiosqlite.connect(tmp_path / "script.sqlite3", isolation_level=None) as db:
        await db.execute("BEGIN IMMEDIATE")
        await sqlite_schema.run_script(db, SQLITE_SCRIPT)
        assert db.in_transaction  # nothing committed behind the migration's back
        await db.execute("ROLLBACK")
        async with db.execute("SELECT name FROM sqlite_master") as cur:
            assert await cur.fetchall() == []
        await db.execute("BEGIN IMMEDIATE")
        await sqlite_schema.run_script(db, SQLITE_SCRIPT)
        await db.execute("COMMIT")
        async with db.execute("SELECT id, body FROM notes ORDER BY id") as cur:
            assert [tuple(r) for r in await cur.fetchall()] == NOTES
        async with db.execute("SELECT note, body FROM seen ORDER BY note") as cur:
            assert [tuple(r) for r in await cur.fetchall()] == SEEN


async def test_postgres_runs_a_script_whole_inside_the_transaction(
        postgres_server: Server) -> None:
    db = await asyncpg.connect(await postgres_server.new_database())
    try:
        with pytest.raises(asyncpg.UndefinedTableError):
            async with db.transaction():
                await postgres_schema.run_script(db, POSTGRES_SCRIPT)
                await db.execute("SELECT * FROM nowhere")  # the transaction is rolled back
        assert await db.fetchval("SELECT to_regclass('notes')") is None
        async with db.transaction():
            await postgres_schema.run_script(db, POSTGRES_SCRIPT)
        assert [tuple(r) for r in await db.fetch("SELECT id, body FROM notes ORDER BY id")] \
            == NOTES
        assert [tuple(r) for r in await db.fetch("SELECT note, body FROM seen ORDER BY note")] \
            == SEEN
    finally:
        await db.close()
