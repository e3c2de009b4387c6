"""The SQLite backend's own promises: WAL mode, a database of a newer bot refused, a full disk
told apart, the kept tables bounded, and every database of an earlier schema upgraded in place,
its finished games' results back-filled from their stored states."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiosqlite
import pytest

from bot.game.ratings import AiSeat, Person, Rating, SeatResult, recompute
from bot.game.standings import rate_result
from bot.storage.records import (
    CannotSave,
    CorruptTable,
    RematchOffer,
    SchemaTooNew,
    SeatInfo,
    ServerDefaults,
    TableResult,
    table_result,
)
from bot.storage.sqlite import SCHEMA_VERSION, Store
from bot.storage.sqlite_schema import insert_result_5
from cards import catalogue_version
from storage.backends import SqliteBackend, fill_up, make_room
from storage.helpers import ANN, GUILD, SEATS, Clock, Game, play_on, played, started
from storage.old_bots import HANDED, as_upgraded, old_rows, read_back


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
    monkeypatch.setattr("bot.storage.sqlite.RECORDS", 2)
    ids = []
    for channel in range(1, 5):
        ids.append((await store.create_table(guild_id=9, channel_id=channel, host_id=ANN,
                                             seats=SEATS[:1], abilities=False, timer=0,
                                             seed=1)).id)
    for tid in ids:
        assert (await store.get(tid)) is not None
    assert list(store._records) == ids[-2:]


# ------------------------------------------------------------------ databases of earlier bots

def old_table(sqlite: SqliteBackend, version: int, tid: int, status: str, game: Game | None,
              step: int, seats: tuple[SeatInfo, ...] = SEATS) -> None:
    """Table ``tid`` as the bot of schema ``version`` stored it (see :func:`old_rows`)."""
    for table, columns in old_rows(version, tid, status, game, step, seats):
        sqlite.insert(table, **columns)


async def old_results(sqlite: SqliteBackend, version: int,
                      finished: list[tuple[int, tuple[SeatInfo, ...], Game]]) -> None:
    """The results a bot of schema ``version`` stored as its games finished (from schema 5)."""
    if version < 5:
        return
    async with aiosqlite.connect(sqlite.path) as db:
        for tid, seats, game in finished:
            await insert_result_5(db, table_result(tid, GUILD, 100 + tid, catalogue_version(),
                                                   seats, game.final, 3000.0 + tid))
        await db.commit()


def rated(result: TableResult) -> list[SeatResult]:
    """The seats of a stored result as the ratings module takes them."""
    return [SeatResult(AiSeat(s.ai_level or "normal") if s.user_id is None or not s.moved else
                       Person(s.user_id, forfeited=s.handed_to_ai), s.keys, s.hp,
                       won=s.seat == result.winner_seat) for s in result.seats]


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
async def test_every_earlier_database_is_upgraded_in_place(
        sqlite: SqliteBackend, clock: Clock, version: int) -> None:
    await sqlite.build(version)
    sqlite.insert("settings", guild_id=GUILD, abilities=1, timer=300)
    won, handed, running = played(1), played(2), played(3)
    old_table(sqlite, version, 1, "finished", won, len(won.moves))
    old_table(sqlite, version, 2, "finished", handed, len(handed.moves), seats=HANDED)
    old_table(sqlite, version, 3, "running", running, 10)
    old_table(sqlite, version, 4, "abandoned", None, 0)
    old_table(sqlite, version, 5, "abandoned", running, 5)
    old_table(sqlite, version, 6, "finished", won, len(won.moves))
    await old_results(sqlite, version, [(1, SEATS, won), (2, HANDED, handed)])
    sqlite.insert("meta", key="announced:1", value="1")
    with sqlite.raw() as con:  # a finished game whose state was damaged: it has no result
        con.execute("UPDATE tables SET state = '{\"format\": 1}' WHERE id = 6")

    store = await Store.open(sqlite.path, clock=clock)
    try:
        assert await store.schema_version() == SCHEMA_VERSION
        level = "easy" if version >= 4 else "normal"
        expected = [as_upgraded(
            table_result(2, GUILD, 102, catalogue_version(), read_back(HANDED, version),
                         handed.final, 3002.0)), as_upgraded(
            table_result(1, GUILD, 101, catalogue_version(), read_back(SEATS, version),
                         won.final, 3001.0))]
        assert await store.results(GUILD) == expected
        assert expected[0].seats[1].handed_to_ai and expected[0].seats[1].kind == "person"
        # numbered in the order they ended, for the ratings to follow
        assert sqlite.rows("SELECT table_id, seq FROM results ORDER BY seq") == [(1, 1), (2, 2)]
        assert await store.result_of(1) == expected[1]
        for tid in (3, 4, 5, 6):
            assert await store.result_of(tid) is None
        for tid in (1, 2, 3, 4, 5):  # the cards they were played with: today's
            rec = await store.get(tid)
            assert rec is not None and rec.catalogue == catalogue_version()
            assert rec.ai_level == level
            assert not rec.lessons  # every older table was an ordinary one
            assert rec.undo  # players may take back a move, as they may at a new table
            assert rec.hints is None  # never chosen: the running game plays on without hints
        with pytest.raises(CorruptTable):
            await store.get(6)
        log = await store.action_log(1)
        assert [(r.step, r.action, r.at, r.undone) for r in log] == [
            (i + 1, won.moves[i][1], 1500.0 + i, False) for i in range(len(won.moves))]
        await play_on(store, 3, running, upto=12)  # the running game plays on
        assert [r.step for r in await store.action_log(3)] == list(range(1, 13))
        assert await store.lapsed() == [3]  # no process does its background work yet
        assert await store.claim(3, "main", 15.0) and await store.lapsed() == []
        assert await store.hints_used(3) == {}  # hints are counted from now on
        assert await store.record_hint(3, 12, ANN, 0, b"hint", 10.0) == b"hint"
        assert await store.record_hint(3, 12, ANN, 0, b"other", 11.0) == b"hint"
        assert await store.hints_used(3) == {0: 1}
        assert await store.guild_settings(GUILD) == ServerDefaults(True, 300, "normal", True)
        assert await store.guild_locale(GUILD) is None
        await store.set_guild_locale(GUILD, "fr")
        assert await store.guild_locale(GUILD) == "fr"
        assert await store.get_meta("announced:1") == "1"
        assert await store.matches(GUILD, ANN) == expected  # a person's matches, and rematches
        await store.save_rematch(RematchOffer(1, ANN, 5.0, (ANN,)))
        assert await store.open_rematches() == [RematchOffer(1, ANN, 5.0, (ANN,))]
        assert await store.ratings(GUILD) == []  # ratings start empty: the rebuild fills them
        assert await store.recompute_ratings(rate_result) == 2
        assert recompute([rated(r) for r in expected[::-1]]) == {
            r.user_id: Rating(r.rating.mu, r.rating.sigma) for r in await store.ratings(GUILD)}
    finally:
        await store.close()
    again = await Store.open(sqlite.path, clock=clock)  # opened again: nothing written twice
    try:
        assert await again.results(GUILD) == expected
    finally:
        await again.close()
    assert sqlite.rows("SELECT COUNT(*) FROM result_seats") == [(6,)]
