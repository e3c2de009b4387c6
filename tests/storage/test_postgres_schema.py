"""The PostgreSQL backend's own promises: the same migrations as SQLite's, every database of an
earlier schema upgraded in place (finished games' results back-filled), a newer bot's database
refused, several processes opening one database at once, and of two processes making the same
move exactly one succeeding."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from postgres_server import Server

from bot.storage import postgres_schema, sqlite_schema
from bot.storage.postgres import Store
from bot.storage.postgres_schema import insert_result_5
from bot.storage.records import (
    SchemaTooNew,
    SeatInfo,
    ServerDefaults,
    StaleVersion,
    table_result,
)
from cards import catalogue_version
from storage.backends import PostgresBackend
from storage.helpers import GUILD, SEATS, Clock, Game, play_on, played, started
from storage.old_bots import HANDED, as_upgraded, old_rows, read_back


@pytest.fixture
def pg(postgres_server: Server) -> PostgresBackend:
    return PostgresBackend(postgres_server)


def test_both_backends_have_the_same_migrations() -> None:
    assert postgres_schema.SCHEMA_VERSION == sqlite_schema.SCHEMA_VERSION


async def old_table(pg: PostgresBackend, version: int, tid: int, status: str,
                    game: Game | None, step: int,
                    seats: tuple[SeatInfo, ...] = SEATS) -> None:
    """Table ``tid`` as the bot of schema ``version`` stored it, with its action log."""
    for table, columns in old_rows(version, tid, status, game, step, seats):
        await pg.insert(table, **columns)


@pytest.mark.parametrize("version", range(1, postgres_schema.SCHEMA_VERSION))
async def test_every_earlier_database_is_upgraded_in_place(
        pg: PostgresBackend, clock: Clock, version: int) -> None:
    await pg.build(version)
    await pg.insert("settings", guild_id=GUILD, abilities=1, timer=300)
    won, handed, running = played(1), played(2), played(3)
    await old_table(pg, version, 1, "finished", won, len(won.moves))
    await old_table(pg, version, 2, "finished", handed, len(handed.moves), seats=HANDED)
    await old_table(pg, version, 3, "running", running, 10)
    await old_table(pg, version, 4, "abandoned", None, 0)
    await pg.execute("SELECT setval('tables_id_seq', 4)")
    if version >= 5:  # the results that bot stored as its games finished
        db = await asyncpg.connect(await pg.database())
        try:
            for tid, seats, game in ((1, SEATS, won), (2, HANDED, handed)):
                await insert_result_5(db, table_result(tid, GUILD, 100 + tid, catalogue_version(),
                                                       seats, game.final, 3000.0 + tid))
        finally:
            await db.close()
    await pg.insert("meta", key="announced:1", value="1")

    store = await Store.open(await pg.database(), clock=clock)
    try:
        assert await store.schema_version() == postgres_schema.SCHEMA_VERSION
        expected = [as_upgraded(
            table_result(2, GUILD, 102, catalogue_version(), read_back(HANDED, version),
                         handed.final, 3002.0)), as_upgraded(
            table_result(1, GUILD, 101, catalogue_version(), read_back(SEATS, version),
                         won.final, 3001.0))]
        assert await store.results(GUILD) == expected
        assert await store.result_of(3) is None and await store.result_of(4) is None
        log = await store.action_log(1)
        assert [(r.step, r.action, r.at, r.undone) for r in log] == [
            (i + 1, won.moves[i][1], 1500.0 + i, False) for i in range(len(won.moves))]
        await play_on(store, 3, running, upto=12)  # the running game plays on
        assert [r.step for r in await store.action_log(3)] == list(range(1, 13))
        assert await store.lapsed() == [3]  # no process does its background work yet
        assert await store.claim(3, "main", 15.0) and await store.lapsed() == []
        assert await store.guild_settings(GUILD) == ServerDefaults(True, 300, "normal")
        assert await store.get_meta("announced:1") == "1"
        assert (await started(store, won.states[0], channel=500)).id == 5
    finally:
        await store.close()
    again = await Store.open(await pg.database(), clock=clock)  # nothing written twice
    try:
        assert await again.results(GUILD) == expected
    finally:
        await again.close()
    assert await pg.rows("SELECT COUNT(*) FROM result_seats") == [(6,)]


async def test_a_newer_bots_database_is_refused(pg: PostgresBackend, clock: Clock) -> None:
    await (await pg.open(clock)).close()
    await pg.execute("UPDATE schema_version SET version = version + 1")
    with pytest.raises(SchemaTooNew) as info:
        await pg.open(clock)
    assert info.value.found == postgres_schema.SCHEMA_VERSION + 1


async def test_processes_opening_a_new_database_at_once_migrate_it_once(
        pg: PostgresBackend, clock: Clock) -> None:
    stores = await asyncio.gather(*(pg.open(clock) for _ in range(4)))
    try:
        assert [await s.schema_version() for s in stores] == [postgres_schema.SCHEMA_VERSION] * 4
        assert await pg.rows("SELECT version FROM schema_version") == [
            (postgres_schema.SCHEMA_VERSION,)]
    finally:
        for opened in stores:
            await opened.close()


async def test_of_two_processes_making_the_same_move_one_wins(
        pg: PostgresBackend, clock: Clock) -> None:
    game = played(1)
    one, two = await pg.open(clock), await pg.open(clock)
    try:
        rec = await started(one, game.states[0])
        for index in range(6):
            outcomes = await asyncio.gather(
                *(s.apply(rec.id, index, game.states[index + 1], game.log_row(index))
                  for s in (one, two)), return_exceptions=True)
            assert sorted(type(o).__name__ for o in outcomes) == ["NoneType", "StaleVersion"]
            assert any(isinstance(o, StaleVersion) for o in outcomes)
        assert [r.step for r in await two.action_log(rec.id)] == [1, 2, 3, 4, 5, 6]
        assert (await one.get(rec.id)).state == game.states[6]  # type: ignore[union-attr]
    finally:
        await one.close()
        await two.close()
