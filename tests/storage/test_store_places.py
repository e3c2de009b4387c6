"""Places in storage, on every backend: the upgrade gives each stored table and result its place
(a server's, or its host's direct messages: never one place for all direct messages) and counts
the records against the AI again place by place; a new match's records stay at its place."""
from __future__ import annotations

import inspect

from bot.game.places import Place
from bot.game.standings import rate_result
from bot.storage.records import AiRecord, SeatInfo, TableResult, table_result
from bot.storage.sqlite_schema import MIGRATIONS
from cards import catalogue_version
from storage.backends import Backend, PostgresBackend
from storage.helpers import ANN, BOB, GUILD, PLACE, Clock, finished, played
from storage.old_bots import old_rows

#: The migration that gives every table its place.
PLACES = next(i for i, m in enumerate(MIGRATIONS, start=1)
              if isinstance(m, str) and "ADD COLUMN place_key" in m)


def solo(user: int) -> tuple[SeatInfo, ...]:
    """``user`` alone against two easy AI seats (the heroes of :func:`played`)."""
    return (SeatInfo(user=user, name="P", hero="horan"),
            SeatInfo(ai=True, hero="taia", level="easy"),
            SeatInfo(ai=True, hero="argentus", level="easy"))


async def insert(backend: Backend, table: str, **columns: object) -> None:
    """A row as an older bot wrote it (on either backend)."""
    done = backend.insert(table, **columns)
    if inspect.isawaitable(done):
        await done


async def old_results(backend: Backend, results: list[TableResult]) -> None:
    """The results the older bot stored (without places), with the columns of its time."""
    for result in results:
        await insert(backend, "results", table_id=result.table_id, guild_id=result.guild_id,
                     channel_id=result.channel_id, finished_at=result.finished_at,
                     rounds=result.rounds, actions=result.actions, catalogue=result.catalogue,
                     winner_seat=result.winner_seat, winner_user_id=result.winner_user_id)
        for s in result.seats:
            await insert(backend, "result_seats", table_id=result.table_id, seat=s.seat,
                         user_id=s.user_id, kind=s.kind, ai_level=s.ai_level, hero=s.hero,
                         keys=s.keys, hp=s.hp, place=s.place, handed_to_ai=int(s.handed_to_ai))


async def test_the_upgrade_gives_each_match_its_place(backend: Backend, clock: Clock) -> None:
    await backend.build(PLACES - 1)
    game = played(1)
    tables = [(1, GUILD, ANN, "finished"), (2, None, ANN, "finished"),
              (3, None, BOB, "finished"), (4, None, BOB, "running")]
    for tid, guild, host, status in tables:
        step = len(game.moves) if status == "finished" else 10
        for table, columns in old_rows(PLACES - 1, tid, status, game, step, solo(host)):
            if table == "tables":
                columns.update(guild_id=guild, host_id=host)
            else:
                columns.update(user_id=host)
            await insert(backend, table, **columns)
    if isinstance(backend, PostgresBackend):
        await backend.execute("SELECT setval('tables_id_seq', 4)")
    await old_results(backend, [
        table_result(tid, guild, 100 + tid, catalogue_version(), solo(host), game.final,
                     3000.0 + tid, "") for tid, guild, host, status in tables
        if status == "finished"])
    await insert(backend, "ai_records", user_id=ANN, level="easy", hero="horan", games=9,
                 wins=9)  # every place's count in one

    store = await backend.open(clock)
    try:
        places = [(await store.get(tid)) for tid in (1, 2, 3, 4)]
        assert [r.place_key if r else None for r in places] == [
            PLACE, f"dm:{ANN}", f"dm:{BOB}", f"dm:{BOB}"]
        for key, ids in ((PLACE, [1]), (Place.dms(ANN).key, [2]), (Place.dms(BOB).key, [3])):
            assert [r.table_id for r in await store.matches(key)] == ids
            assert all(r.place_key == key for r in await store.matches(key))
        assert [r.table_id for r in await store.matches(Place.dms(BOB).key, ANN)] == []
        won = int(game.final.winner == 0)
        for key, user in ((PLACE, ANN), (Place.dms(ANN).key, ANN), (Place.dms(BOB).key, BOB)):
            assert await store.ai_records(key, user) == [AiRecord(user, "easy", "horan", 1, won)]
        assert await store.ai_records(Place.dms(BOB).key, ANN) == []
    finally:
        await store.close()


async def test_records_against_the_ai_stay_at_their_place(backend: Backend,
                                                          clock: Clock) -> None:
    store = await backend.open(clock)
    try:
        await finished(store, 1, channel=1, seats=solo(ANN), rater=rate_result)
        await finished(store, 1, channel=2, seats=solo(ANN), rater=rate_result)
        await finished(store, 1, channel=3, guild=None, seats=solo(ANN), rater=rate_result)
        await finished(store, 1, channel=4, guild=GUILD + 1, seats=solo(ANN),
                       rater=rate_result, host=BOB)
        won = int(played(1).final.winner == 0)
        assert await store.ai_records(PLACE, ANN) == [AiRecord(ANN, "easy", "horan", 2, 2 * won)]
        assert await store.ai_records(Place.dms(ANN).key, ANN) == [
            AiRecord(ANN, "easy", "horan", 1, won)]
        assert await store.ai_records(Place.server(GUILD + 1).key, ANN) == [
            AiRecord(ANN, "easy", "horan", 1, won)]
        assert await store.ai_records(Place.dms(BOB).key, ANN) == []
        live = [await store.ai_records(p, ANN) for p in (PLACE, Place.dms(ANN).key)]
        assert await store.recompute_ratings(rate_result) == 4  # the rebuild agrees
        assert [await store.ai_records(p, ANN) for p in (PLACE, Place.dms(ANN).key)] == live
    finally:
        await store.close()
