"""A database out of reach, on both backends: every read and write the store is asked while it
is away raises :class:`~bot.storage.records.Unreachable` (a :class:`CannotSave`), nothing is
written, and once it is back the store works again without being opened anew. Only what means
"out of reach" is sorted so: a locked SQLite file, a full one, a mistake in the SQL or a broken
constraint stay what they were.

PostgreSQL goes away through a relay of the test's own (``database_away.Relay``, cut and
restored: the shared test server is never stopped); SQLite's file through its descriptors
(``database_away.cut_file``)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import asyncpg
import pytest
from database_away import Relay, cut_file
from postgres_server import Server

from bot.process.app import database_problem
from bot.storage import postgres, sqlite
from bot.storage.records import CannotSave, Unreachable
from storage.backends import SqliteBackend, fill_up, make_room
from storage.helpers import Clock, play_on, played, started


async def test_a_postgresql_server_out_of_reach_fails_reads_and_writes_as_unreachable(
        relay: Relay, postgres_server: Server, clock: Clock) -> None:
    store = await postgres.Store.open(relay.url(await postgres_server.new_database()),
                                      clock=clock)
    try:
        game = played(1)
        rec = await started(store, game.states[0])
        await relay.cut()  # the connections reset, new ones refused
        for read in (lambda: store.get(rec.id), lambda: store.active_in_channel(rec.channel_id),
                     lambda: store.action_log(rec.id), store.history):
            with pytest.raises(Unreachable) as away:
                await read()
            assert isinstance(away.value, CannotSave)
        with pytest.raises(Unreachable):
            await play_on(store, rec.id, game, upto=1)  # a write (its table was read first)
        with pytest.raises(Unreachable):
            await store.set_thread(rec.id, 5, True)  # a write alone
        await relay.restore()  # the pool connects again by itself
        assert (await store.get(rec.id)).version == 0  # type: ignore[union-attr]
        await play_on(store, rec.id, game, upto=1)
        assert (await store.get(rec.id)).version == 1  # type: ignore[union-attr]
    finally:
        await store.close()


async def test_an_sqlite_file_out_of_reach_fails_reads_and_writes_as_unreachable(
        tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "karak.sqlite3"
    first = await sqlite.Store.open(path, clock=clock)
    game = played(1)
    rec = await started(first, game.states[0])
    await first.close()
    store = await sqlite.Store.open(path, clock=clock)  # what it reads comes from the file
    try:
        with cut_file(path):
            for read in (lambda: store.get(rec.id), lambda: store.action_log(rec.id),
                         store.history):
                with pytest.raises(Unreachable):
                    await read()
            with pytest.raises(Unreachable):
                await store.set_thread(rec.id, 5, True)
        assert (await store.get(rec.id)).version == 0  # type: ignore[union-attr]
        await play_on(store, rec.id, game, upto=1)
        assert (await store.get(rec.id)).version == 1  # type: ignore[union-attr]
    finally:
        await store.close()


async def test_a_locked_or_full_sqlite_file_or_bad_sql_is_not_out_of_reach(
        tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "karak.sqlite3"
    store = await sqlite.Store.open(path, clock=clock)
    try:
        errors = []
        with closing(sqlite3.connect(path, timeout=0, isolation_level=None)) as one, \
                closing(sqlite3.connect(path, timeout=0, isolation_level=None)) as two:
            one.execute("BEGIN IMMEDIATE")
            for doing in (lambda: two.execute("BEGIN IMMEDIATE"),  # database is locked
                          lambda: two.execute("SELEC 1"),  # a syntax error
                          lambda: two.execute("SELECT * FROM no_such_table")):
                with pytest.raises(sqlite3.OperationalError) as failed:
                    doing()
                errors.append(failed.value)
            one.execute("ROLLBACK")
        assert "database is locked" in str(errors[0])
        assert not any(sqlite.unreadable(e) or sqlite.out_of_reach(e) for e in errors)
        rec = await started(store, played(1).states[0])
        await fill_up(store)  # a full disk: the write cannot be saved, the file is there
        with pytest.raises(CannotSave) as full:
            await play_on(store, rec.id, played(1), upto=1)
        assert not isinstance(full.value, Unreachable)
        await make_room(store)
    finally:
        await store.close()


def test_postgresql_errors_that_are_not_out_of_reach() -> None:
    for error in (asyncpg.UniqueViolationError("duplicate key"),
                  asyncpg.PostgresSyntaxError("syntax error"),
                  asyncpg.DiskFullError("no space left on device"),
                  asyncpg.QueryCanceledError("canceling statement"),
                  asyncpg.DataError("invalid input for query argument")):
        assert not postgres.out_of_reach(error), error
    for error in (ConnectionRefusedError(111, "Connect call failed"),
                  asyncpg.ConnectionDoesNotExistError("connection was closed"),
                  asyncpg.CannotConnectNowError("the database system is starting up"),
                  asyncpg.AdminShutdownError("terminating connection due to administrator "
                                             "command")):
        assert postgres.out_of_reach(error), error


async def test_a_migration_another_program_holds_the_file_locked_for_is_told_so(
        tmp_path: Path) -> None:
    """A bot upgraded while another program holds its SQLite file locked for writing: the
    migration that cannot begin is told as the lock (the start's one line says to stop that
    program), not as a migration that failed, nor as the file out of reach."""
    path = tmp_path / "karak.sqlite3"
    await SqliteBackend(path).build(sqlite.SCHEMA_VERSION - 1)
    with closing(sqlite3.connect(path, timeout=0, isolation_level=None)) as other:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(sqlite3.OperationalError) as locked:
            await sqlite.Connection.open(path)
        other.execute("ROLLBACK")
    problem = database_problem(locked.value, str(path))
    assert problem is not None and "is locked by another program" in str(problem)


async def test_a_postgresql_query_waits_its_limit_and_an_admin_command_s_as_long_as_it_needs(
        postgres_server: Server, clock: Clock) -> None:
    """The bot's store counts a query that takes longer than its wait as the server out of
    reach; the admin commands' store (``open_storage(patient=True)``) waits for it."""
    from bot.storage.choice import open_storage

    url = await postgres_server.new_database()
    quick = await postgres.Store.open(url, clock=clock, wait=0.2)
    patient = await open_storage(url, clock=clock, patient=True)
    assert isinstance(patient, postgres.Store)
    try:
        with pytest.raises(Unreachable):
            async with quick._tx() as db:
                await db.fetchrow("SELECT pg_sleep(0.6)")
        async with patient._tx() as db:
            assert await db.fetchrow("SELECT pg_sleep(0.6), 1") is not None
    finally:
        await quick.close()
        await patient.close()
