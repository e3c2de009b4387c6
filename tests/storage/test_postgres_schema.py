"""The PostgreSQL backend's own promises: as many migrations as SQLite's (the schemas they build
are compared in ``test_schemas_agree.py``, upgrades tested in ``test_upgrades.py``), a newer bot's
database refused, several processes opening one database at once, and of two processes making
the same move exactly one succeeding, and a move cancelled while it commits."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from postgres_server import Server

from bot.storage import postgres_schema, sqlite_schema
from bot.storage.postgres import POOL_SIZE
from bot.storage.records import (
    SchemaTooNew,
    StaleVersion,
)
from storage.backends import PostgresBackend
from storage.helpers import Clock, played, started


@pytest.fixture
def pg(postgres_server: Server) -> PostgresBackend:
    return PostgresBackend(postgres_server)


def test_both_backends_have_the_same_migrations() -> None:
    assert postgres_schema.SCHEMA_VERSION == sqlite_schema.SCHEMA_VERSION


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


async def test_a_move_cancelled_while_it_commits_leaves_the_store_whole(
        pg: PostgresBackend, clock: Clock) -> None:
    """A move whose COMMIT is under way on the server when its task is cancelled (the bot
    stopping): the task ends cancelled, the connection given back is fit to lend again, and the
    table holds either the move or not, never half of it: the same move made again is taken or
    refused as stale, and the next one is taken."""
    game = played(2)
    store = await pg.open(clock)
    holder = await asyncpg.connect(await pg.database())
    try:
        rec = await started(store, game.states[0])
        # the COMMIT of a move runs a deferred trigger that waits for a lock the test holds
        await pg.execute(
            "CREATE FUNCTION wait_for_test() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN PERFORM pg_advisory_xact_lock(4242); RETURN NULL; END $$")
        await pg.execute(
            "CREATE CONSTRAINT TRIGGER commit_waits AFTER UPDATE ON tables "
            "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION wait_for_test()")
        await holder.execute("SELECT pg_advisory_lock(4242)")
        move = asyncio.create_task(store.apply(rec.id, 0, game.states[1], game.log_row(0)))
        while not await holder.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND query = 'COMMIT;' AND wait_event_type = 'Lock'"):
            assert not move.done()
            await asyncio.sleep(0.01)
        move.cancel()
        with pytest.raises(asyncio.CancelledError):
            await move
        await holder.execute("SELECT pg_advisory_unlock(4242)")
        await pg.execute("DROP TRIGGER commit_waits ON tables")
        steps = [r.step for r in await store.action_log(rec.id)]
        assert steps in ([], [1])
        if steps:  # the move was kept: made again, it is refused as stale
            with pytest.raises(StaleVersion):
                await store.apply(rec.id, 0, game.states[1], game.log_row(0))
        else:  # the move was not kept: made again, it is taken
            await store.apply(rec.id, 0, game.states[1], game.log_row(0))
        for _ in range(2 * POOL_SIZE):  # every connection of the pool lends well
            assert (await store.get(rec.id)).state == game.states[1]  # type: ignore[union-attr]
        await store.apply(rec.id, 1, game.states[2], game.log_row(1))
        assert [r.step for r in await store.action_log(rec.id)] == [1, 2]
    finally:
        await holder.close()
        await store.close()
