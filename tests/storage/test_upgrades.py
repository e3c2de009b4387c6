"""Every database of an earlier schema is upgraded in place, on both backends: each later
migration runs in turn from the schema before it, and after each one every row the older bot
stored is still there with its values; the upgraded store then reads it all (finished games'
results back-filled from their stored states, with the cards' version of their time), plays the
running game on and writes every kind of row."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from bot.game.ratings import AiSeat, Person, Rating, SeatResult, recompute
from bot.game.standings import rate_result
from bot.storage.migration_rules import CATALOGUE_5
from bot.storage.postgres import Store as PostgresStore
from bot.storage.postgres_baseline import BASELINE_VERSION
from bot.storage.records import (
    CorruptTable,
    PlayerRating,
    RematchOffer,
    ServerDefaults,
    StoredRating,
    TableResult,
    table_result,
)
from bot.storage.sqlite import Store as SqliteStore
from bot.storage.sqlite_schema import SCHEMA_VERSION
from storage.backends import Backend, plain
from storage.helpers import ANN, GUILD, PLACE, SEATS, Clock, play_on, played, started
from storage.old_bots import HANDED, by_table, old_database, read_back


def rated(result: TableResult) -> list[SeatResult]:
    """The seats of a stored result as the ratings module takes them."""
    return [SeatResult(AiSeat(s.ai_level or "normal") if s.user_id is None else
                       Person(s.user_id, forfeited=s.handed_to_ai), s.keys, s.hp,
                       won=s.seat == result.winner_seat) for s in result.seats]


#: The last schema before PostgreSQL stores JSON, flags and times in its own types.
MIGRATIONS_BEFORE_OWN_TYPES = BASELINE_VERSION - 1

#: The tables a migration counts again from other rows, by design (what they then hold is
#: checked by the tests of that migration): migration 13 counts the records against the AI
#: place by place from the stored results.
RECOUNTED = {13: {"ai_records"}}


async def upgrade_step_by_step(backend: Backend, version: int) -> None:
    """Run each migration after ``version`` in turn, checking after each one that every row of
    :func:`old_database` is still there with the values it was stored with (but in a table the
    migration counts again, :data:`RECOUNTED`, which holds what it counted from then on)."""
    kept = {key: Counter(tuple(map(plain, row)) for row in values.elements())
            for key, values in by_table(old_database(version)).items()}
    for number in range(version + 1, SCHEMA_VERSION + 1):
        await backend.build(number)
        recounted = RECOUNTED.get(number, set())
        kept = {key: values for key, values in kept.items() if key[0] not in recounted}
        for (table, columns), values in kept.items():
            lost = values - Counter(tuple(map(plain, row))
                                    for row in await backend.read_rows(table, columns))
            assert not lost, f"migration {number} lost {table} rows: {list(lost)[:2]}"


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
async def test_every_earlier_database_is_upgraded_in_place(
        backend: Backend, clock: Clock, version: int) -> None:
    await backend.build(version)
    await backend.insert_rows(old_database(version))
    await upgrade_step_by_step(backend, version)

    won, handed, running = played(1), played(2), played(3)
    store = await backend.open(clock)
    try:
        assert isinstance(store, SqliteStore | PostgresStore)
        assert await store.schema_version() == SCHEMA_VERSION
        level = "easy" if version >= 4 else "normal"
        expected = [
            table_result(2, GUILD, 102, CATALOGUE_5, read_back(HANDED, version), handed.final,
                         3002.0, PLACE),
            table_result(1, GUILD, 101, CATALOGUE_5, read_back(SEATS, version), won.final,
                         3001.0, PLACE)]
        assert await store.matches(PLACE) == expected
        assert expected[0].seats[1].handed_to_ai and expected[0].seats[1].kind == "person"
        assert await store.result_of(1) == expected[1]
        for tid in (3, 4, 5, 6):
            assert await store.result_of(tid) is None
        for tid in (1, 2, 3, 4, 5):  # the cards they were played with: those of their time
            rec = await store.get(tid)
            assert rec is not None and rec.catalogue == CATALOGUE_5 == "cee628b9678e08a7"
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
        await store.relocalise_guild(GUILD, None, "fr", "fr")
        assert await store.guild_locale(GUILD) == "fr"
        assert await store.get_meta("announced:1") == "1"
        assert await store.matches(PLACE, ANN) == expected  # a person's matches, and rematches
        await store.save_rematch(RematchOffer(1, ANN, 5.0, (ANN,)))
        assert await store.open_rematches() == [RematchOffer(1, ANN, 5.0, (ANN,))]
        assert await store.ratings(GUILD) == ([] if version < 9 else [  # the rebuild fills them
            PlayerRating(GUILD, ANN, StoredRating(27.5, 7.5), 1, 0, 1)])
        assert await store.recompute_ratings(rate_result) == 2
        assert recompute([rated(r) for r in expected[::-1]]) == {
            r.user_id: Rating(r.rating.mu, r.rating.sigma) for r in await store.ratings(GUILD)}
        assert (await started(store, won.states[0], channel=500)).id == 7
    finally:
        await store.close()
    again = await backend.open(clock)  # opened again: nothing written twice
    try:
        assert await again.matches(PLACE) == expected
    finally:
        await again.close()
    assert len(await backend.read_rows("result_seats", ["table_id"])) == 6


async def test_migration_5_computes_as_it_did_when_released(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """Today's rules changing (places counted otherwise, other cards) does not change what
    migration 5 writes for the games finished before it."""
    places = Counter((tid, s.seat, s.place) for tid, seats, seed in ((1, SEATS, 1), (2, HANDED, 2))
                     for s in table_result(tid, GUILD, 0, "", seats, played(seed).final, 0.0,
                                          PLACE).seats)
    monkeypatch.setattr("bot.storage.records.places", lambda state: (9,) * len(state.seats))
    monkeypatch.setattr("cards.digest.catalogue_version", lambda: "today's cards")
    await backend.build(4)
    await backend.insert_rows(old_database(4))
    await backend.build(5)
    assert Counter(await backend.read_rows("result_seats", ["table_id", "seat", "place"])) \
        == places
    assert set(await backend.read_rows("tables", ["catalogue"])) == {(CATALOGUE_5,)}


async def test_the_move_to_postgresqls_own_types_keeps_damaged_rows(backend: Backend,
                                                                     clock: Clock) -> None:
    """A text that is no JSON (a damaged row) survives the change of its column to JSON (as a
    JSON string), and reading its table still tells what is wrong; a flag other than 0 or 1
    reads as set."""
    version = MIGRATIONS_BEFORE_OWN_TYPES
    rows = old_database(version)
    damaged = next(columns for table, columns in rows if table == "tables" and columns["id"] == 6)
    damaged["state"] = "not JSON; {"
    rows.append(("settings", dict(guild_id=GUILD + 1, abilities=2, timer=60, ai_level="normal",
                                  undo=1)))
    await backend.build(version)
    await backend.insert_rows(rows)
    await backend.build(SCHEMA_VERSION)
    store = await backend.open(clock)
    try:
        with pytest.raises(CorruptTable):
            await store.get(6)
        assert (await store.host_of(6)) is not None
        settings = await store.guild_settings(GUILD + 1)
        assert settings is not None and settings.abilities
    finally:
        await store.close()
    assert [plain(v) for (v,) in await backend.read_rows("tables", ["state"])
            if isinstance(v, str) and "not JSON" in v] in (
                [json.dumps("not JSON; {")], ["not JSON; {"])
