"""A migration that fails on an upgrade, on both backends: the error names the migration, its
transaction is rolled back (nothing it did stays), the database stays at the last version that
worked, and once the migration works the same database is upgraded."""

from __future__ import annotations

import resource
import sqlite3
from pathlib import Path

import asyncpg
import pytest
from postgres_server import Server

from bot.process.app import explain_fatal, migration_line
from bot.storage import postgres_schema, sqlite_schema
from bot.storage.records import MigrationFailed
from bot.storage.sqlite_schema import SCHEMA_VERSION
from i18n import translate
from storage.backends import Backend, PostgresBackend, SqliteBackend
from storage.helpers import Clock

#: The last migration as a broken release would ship it: a first statement that works, then one
#: that fails.
BROKEN = """
CREATE TABLE half_done (x INTEGER);
INSERT INTO no_such_table VALUES (1);
"""


async def found(backend: Backend) -> tuple[int, bool]:
    """The database's schema version, and whether the broken migration's table is there."""
    if isinstance(backend, SqliteBackend):
        version = backend.rows("PRAGMA user_version")[0][0]
        tables = backend.rows("SELECT name FROM sqlite_master WHERE name = 'half_done'")
    else:
        assert isinstance(backend, PostgresBackend)
        version = (await backend.rows("SELECT MAX(version) FROM schema_version"))[0][0]
        tables = await backend.rows("SELECT tablename FROM pg_tables "
                                    "WHERE tablename = 'half_done'")
    assert isinstance(version, int)
    return version, bool(tables)


async def test_a_failing_migration_is_named_and_leaves_the_last_good_version(
        backend: Backend, clock: Clock, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    await backend.build(SCHEMA_VERSION - 1)
    for schema in (sqlite_schema, postgres_schema):
        monkeypatch.setattr(schema, "MIGRATIONS", (*schema.MIGRATIONS[:-1], BROKEN))
    with pytest.raises(MigrationFailed) as info:
        await backend.open(clock)
    assert info.value.number == SCHEMA_VERSION
    said = str(info.value)
    assert f"migration {SCHEMA_VERSION} failed" in said
    assert f"stays at schema version {SCHEMA_VERSION - 1}" in said and "no_such_table" in said
    assert await found(backend) == (SCHEMA_VERSION - 1, False)
    # the bot, stopped by it, says so in one line and exits 2
    assert explain_fatal(info.value) == 2
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and line.startswith(
        f"Database migration {SCHEMA_VERSION} failed and was rolled back: the database stays "
        f"at schema version {SCHEMA_VERSION - 1}") and "no_such_table" in line, line

    monkeypatch.undo()  # the fixed release
    await (await backend.open(clock)).close()
    assert await found(backend) == (SCHEMA_VERSION, False)


async def test_an_upgrade_across_releases_that_fails_late_says_the_old_bot_cannot_open_it(
        backend: Backend, clock: Clock, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """An upgrade over two releases whose second migration fails keeps the first: the
    database is then newer than the previous bot knows, so the line does not send the admin
    back to that bot (which would refuse it as a newer bot's) but to the backup."""
    await backend.build(SCHEMA_VERSION - 2)
    for schema in (sqlite_schema, postgres_schema):
        monkeypatch.setattr(schema, "MIGRATIONS", (*schema.MIGRATIONS[:-1], BROKEN))
    with pytest.raises(MigrationFailed) as info:
        await backend.open(clock)
    assert (info.value.number, info.value.started) == (SCHEMA_VERSION, SCHEMA_VERSION - 2)
    assert await found(backend) == (SCHEMA_VERSION - 1, False)
    assert explain_fatal(info.value) == 2
    line = capsys.readouterr().err
    assert line.count("\n") == 1, line
    assert f"stays at schema version {SCHEMA_VERSION - 1}" in line, line
    assert "as it was" not in line and "Run the previous version" not in line, line
    assert "Restore the backup made before the upgrade" in line, line
    assert "no_such_table" in line and f"past the version {SCHEMA_VERSION - 2}" in line, line


async def test_an_upgrade_on_a_full_disk_is_named_as_the_migration_that_failed(
        tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """SQLite writes a migration out at its COMMIT: on a full disk that is where it fails. The
    bot still says which migration failed, that it was rolled back and why (SQLite's words
    for the refused write), in its one line, not that it stopped on an unexpected error; and
    once there is room the same database is upgraded."""
    backend = SqliteBackend(tmp_path / "karak.sqlite3")
    await backend.build(SCHEMA_VERSION - 1)
    roomy = (*sqlite_schema.MIGRATIONS[:-1],
             "CREATE TABLE roomy (x BLOB); INSERT INTO roomy VALUES (zeroblob(400000));")
    monkeypatch.setattr(sqlite_schema, "MIGRATIONS", roomy)
    # as on a full disk: no file of this process grows past 64 KiB (the write-ahead log
    # the COMMIT writes the migration into), every other write works
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, hard))
    try:
        with pytest.raises(MigrationFailed) as info:
            await backend.open(clock)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert (info.value.number, info.value.started) == (SCHEMA_VERSION, SCHEMA_VERSION - 1)
    assert await found(backend) == (SCHEMA_VERSION - 1, False)
    assert explain_fatal(info.value) == 2
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and line.startswith(
        f"Database migration {SCHEMA_VERSION} failed and was rolled back: the database stays "
        f"at schema version {SCHEMA_VERSION - 1}") and str(info.value.__cause__) in line, line
    await (await backend.open(clock)).close()
    assert backend.rows("PRAGMA user_version")[0][0] == SCHEMA_VERSION


async def test_a_migration_that_fills_the_database_asks_for_room_not_a_report(
        tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """SQLite refusing a migration's write as ``database or disk is full`` (SQLITE_FULL) is no
    bug of the migration: the line says the disk is full and to free space and start again,
    and asks for no report; once there is room the same database is upgraded."""
    backend = SqliteBackend(tmp_path / "karak.sqlite3")
    await backend.build(SCHEMA_VERSION - 1)
    # as on a full disk: the database may not grow past its size (SQLite says SQLITE_FULL)
    filling = (*sqlite_schema.MIGRATIONS[:-1],
               "PRAGMA max_page_count = 1; CREATE TABLE roomy (x BLOB); "
               "INSERT INTO roomy VALUES (zeroblob(400000));")
    monkeypatch.setattr(sqlite_schema, "MIGRATIONS", filling)
    with pytest.raises(MigrationFailed) as info:
        await backend.open(clock)
    assert "database or disk is full" in str(info.value)
    assert await found(backend) == (SCHEMA_VERSION - 1, False)
    assert explain_fatal(info.value) == 2
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and f"Database migration {SCHEMA_VERSION} " in line, line
    assert f"stays at schema version {SCHEMA_VERSION - 1}" in line, line
    assert "disk holding the database is full" in line and "report" not in line, line
    monkeypatch.undo()
    await (await backend.open(clock)).close()
    assert backend.rows("PRAGMA user_version")[0][0] == SCHEMA_VERSION


@pytest.mark.parametrize("full", [
    sqlite3.OperationalError("database or disk is full"),
    asyncpg.DiskFullError('could not extend file "base/16384/16412": No space left on device')])
def test_a_migration_refused_for_a_full_disk_asks_for_room_not_a_report(
        full: Exception, capsys: pytest.CaptureFixture[str]) -> None:
    """A migration the server or SQLite refused because the disk is full (SQLite's
    SQLITE_FULL, PostgreSQL's SQLSTATE 53100) is no bug to report: the line says to free
    space and start the bot again, after an upgrade across releases too, in every language."""
    if isinstance(full, sqlite3.OperationalError):
        full.sqlite_errorcode = sqlite3.SQLITE_FULL  # type: ignore[attr-defined]
    for started in (SCHEMA_VERSION - 1, SCHEMA_VERSION - 3):
        failed = MigrationFailed(SCHEMA_VERSION, full)
        failed.__cause__ = full
        failed.started = started
        assert explain_fatal(failed) == 2
        line = capsys.readouterr().err
        assert line.count("\n") == 1 and "disk holding the database is full" in line, line
        assert "report" not in line and "Free some space" in line and str(full) in line, line
        assert f"stays at schema version {SCHEMA_VERSION - 1}" in line, line
        for language in ("fr", "cs"):
            said = translate(migration_line(failed), language)
            assert str(full) in said and said != translate(migration_line(failed)), said


#: What a migration's COMMIT meets on a server whose disk filled up meanwhile, without filling a
#: disk: a check deferred to the COMMIT (of the version the migration records) that refuses it
#: with PostgreSQL's SQLSTATE for a full disk.
FULL_AT_COMMIT = """
CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    RAISE EXCEPTION 'could not extend file "base/16384/16412": No space left on device'
        USING ERRCODE = '53100';
END $$;
CREATE CONSTRAINT TRIGGER full_at_commit AFTER INSERT ON schema_version
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION disk_full();
"""


async def started_bot(url: str) -> Exception:
    """What stopped the bot started on the database ``url`` (as ``python -m bot`` runs it,
    before its Discord login)."""
    from bot.process.app import run
    from bot.process.settings import load_settings

    token = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"
    settings = load_settings({"DISCORD_TOKEN": token, "KARAK_DB": url}, env_file=None)
    with pytest.raises(Exception) as info:
        await run(settings)
    return info.value


async def test_a_postgresql_migration_whose_commit_finds_the_disk_full_asks_for_room(
        postgres_server: Server, clock: Clock, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A migration the server refuses at its COMMIT because its disk is full (SQLSTATE 53100)
    stops the bot as SQLite's does: the line names the migration, says it was rolled back and
    to free space, not that the server refused the connection; once there is room the same
    database is upgraded."""
    pg = PostgresBackend(postgres_server)
    await pg.build(SCHEMA_VERSION - 1)
    last = postgres_schema.MIGRATIONS[-1]

    async def filling(db: postgres_schema.Db) -> None:
        """The last migration, whose COMMIT then finds the disk full."""
        await (postgres_schema.run_script(db, last) if isinstance(last, str) else last(db))
        await postgres_schema.run_script(db, FULL_AT_COMMIT)

    monkeypatch.setattr(postgres_schema, "MIGRATIONS",
                        (*postgres_schema.MIGRATIONS[:-1], filling))
    stopped = await started_bot(await pg.database())
    assert isinstance(stopped, MigrationFailed), repr(stopped)
    assert (stopped.number, stopped.started) == (SCHEMA_VERSION, SCHEMA_VERSION - 1)
    assert isinstance(stopped.__cause__, asyncpg.DiskFullError)
    assert await found(pg) == (SCHEMA_VERSION - 1, False)
    assert await pg.rows("SELECT proname FROM pg_proc WHERE proname = 'disk_full'") == []
    assert explain_fatal(stopped) == 2
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and line.startswith(
        f"Database migration {SCHEMA_VERSION} could not be written: the disk holding the "
        "database is full"), line
    assert f"stays at schema version {SCHEMA_VERSION - 1}" in line and "report" not in line
    monkeypatch.undo()
    await (await pg.open(clock)).close()
    assert await found(pg) == (SCHEMA_VERSION, False)


async def test_a_new_postgresql_database_on_a_full_disk_asks_for_room(
        postgres_server: Server, clock: Clock, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A new database is built by the baseline, in one transaction: refused for a full disk, the
    line says the first migration could not be written and the database stays new (version
    0), nothing of it kept; once there is room the same database is built."""
    from bot.storage import postgres_baseline

    pg = PostgresBackend(postgres_server)
    monkeypatch.setattr(postgres_baseline, "BASELINE",
                        postgres_baseline.BASELINE + FULL_AT_COMMIT)
    stopped = await started_bot(await pg.database())
    assert isinstance(stopped, MigrationFailed), repr(stopped)
    assert (stopped.number, stopped.started) == (1, 0)
    assert await pg.rows("SELECT tablename FROM pg_tables "
                         "WHERE schemaname = current_schema()") == []
    assert explain_fatal(stopped) == 2
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and line.startswith(
        "Database migration 1 could not be written: the disk holding the database is full"), line
    assert "stays at schema version 0" in line, line
    monkeypatch.undo()
    await (await pg.open(clock)).close()
    assert await found(pg) == (SCHEMA_VERSION, False)
