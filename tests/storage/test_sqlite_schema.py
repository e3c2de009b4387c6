"""The SQLite backend's own promises: WAL mode, a database of a newer bot refused, a full disk
told apart and the kept tables bounded (databases of earlier schemas: ``test_upgrades.py``)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.game.places import Place
from bot.storage.records import (
    CannotSave,
    ForeignDatabase,
    SchemaTooNew,
)
from bot.storage.sqlite import SCHEMA_VERSION, Store
from storage.backends import SqliteBackend, fill_up, make_room
from storage.helpers import ANN, SEATS, Clock, play_on, played, started


@pytest.fixture
def sqlite(tmp_path: Path) -> SqliteBackend:
    return SqliteBackend(tmp_path / "karak.sqlite3")


@pytest.fixture
async def store(sqlite: SqliteBackend, clock: Clock) -> AsyncIterator[Store]:
    opened = await sqlite.open(clock)
    yield opened
    await opened.close()


async def test_a_new_database_is_at_the_latest_schema_in_wal_mode(
        sqlite: SqliteBackend, store: Store) -> None:
    assert await store.schema_version() == SCHEMA_VERSION
    assert sqlite.rows("PRAGMA journal_mode") == [("wal",)]


async def test_a_newer_bots_database_is_refused(sqlite: SqliteBackend, store: Store) -> None:
    await store.close()
    sqlite.set_schema_version(SCHEMA_VERSION + 1)
    with pytest.raises(SchemaTooNew) as info:
        await Store.open(sqlite.path)
    assert (info.value.found, info.value.known) == (SCHEMA_VERSION + 1, SCHEMA_VERSION)


async def test_another_programs_database_is_refused_and_left_as_it_was(
        tmp_path: Path) -> None:
    """A SQLite file with tables but no schema version of this bot is another program's: the
    store refuses it before writing anything (its tables are not joined by the bot's), while
    an empty file is a new database, as a missing one is."""
    other = SqliteBackend(tmp_path / "photos.sqlite3")
    with other.raw() as con:
        con.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY)")
    before = other.path.read_bytes()
    with pytest.raises(ForeignDatabase):
        await Store.open(other.path)
    assert other.path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["photos.sqlite3"]
    for new in (tmp_path / "empty.sqlite3", tmp_path / "missing.sqlite3"):
        if new.name.startswith("empty"):
            new.touch()
        opened = await Store.open(new)
        assert await opened.schema_version() == SCHEMA_VERSION
        await opened.close()


async def test_a_full_disk_refuses_the_write_and_the_same_write_works_later(
        store: Store) -> None:
    game = played(1)
    rec = await started(store, game.states[0])
    await fill_up(store)
    for refused in range(len(game.moves)):  # moves go on while the pages in use have room
        try:
            await play_on(store, rec.id, game, upto=refused + 1)
        except CannotSave:
            break
    else:
        raise AssertionError("the disk never filled up")
    assert (await store.get(rec.id)).version == refused  # type: ignore[union-attr]
    assert len(await store.action_log(rec.id)) == refused
    await make_room(store)
    await play_on(store, rec.id, game, upto=refused + 1)
    assert len(await store.action_log(rec.id)) == refused + 1


async def test_what_is_kept_is_bounded(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bot.storage.core.tables.RECORDS", 2)
    ids = []
    for channel in range(1, 5):
        ids.append((await store.create_table(guild_id=9, place_key=Place.of(9, ANN).key,
                                             channel_id=channel, host_id=ANN,
                                             seats=SEATS[:1], abilities=False, timer=0,
                                             seed=1)).id)
    for tid in ids:
        assert (await store.get(tid)) is not None
    assert list(store._records) == ids[-2:]


async def test_a_write_cancelled_while_it_commits_ends_cancelled_and_committed(
        store: Store) -> None:
    """A write whose COMMIT was on its way when the task was cancelled (the bot stopping):
    the COMMIT still runs, and the cancellation is what the task ends with, not a failed
    ROLLBACK after it."""
    connection = store._connection
    gate = threading.Event()
    held: list[asyncio.Future[object]] = []

    async def write() -> None:
        async with connection.transaction() as db:
            await db.execute("PRAGMA user_version = 77")
            # the database's thread waits at the gate, queued before the COMMIT
            held.append(asyncio.ensure_future(db._execute(gate.wait)))
            await asyncio.sleep(0)

    task = asyncio.create_task(write())
    while not held:
        await asyncio.sleep(0)
    for _ in range(5):  # the task is now waiting for its COMMIT
        await asyncio.sleep(0)
    task.cancel()
    for _ in range(5):  # its ROLLBACK is queued behind the COMMIT
        await asyncio.sleep(0)
    gate.set()
    await held[0]
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await store.schema_version() == 77
    assert not connection.db.in_transaction


async def test_a_write_cancelled_while_it_begins_leaves_no_transaction_open(
        store: Store) -> None:
    """A write whose BEGIN was on its way when the task was cancelled (the bot stopping): the
    BEGIN still runs, and the transaction it opens is ended, so the next write can begin (the
    bot's last one as it stops: letting its leases lapse)."""
    connection = store._connection
    gate = threading.Event()
    # the database's thread waits at the gate, so the write's BEGIN is queued behind it
    held = asyncio.ensure_future(connection.db._execute(gate.wait))

    async def write() -> None:
        async with connection.transaction() as db:
            await db.execute("PRAGMA user_version = 77")

    task = asyncio.create_task(write())
    for _ in range(5):  # the task is now waiting for its BEGIN
        await asyncio.sleep(0)
    task.cancel()
    for _ in range(5):
        await asyncio.sleep(0)
    gate.set()
    await held
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not connection.db.in_transaction
    async with connection.transaction() as db:  # the next write begins
        await db.execute("PRAGMA user_version = 78")
    assert await store.schema_version() == 78
