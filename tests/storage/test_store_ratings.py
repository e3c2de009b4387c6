"""Ratings stored with a finished match's result: the people's new ratings (AI seats at their
fixed ratings), each person's change, the record against the AI for a match with one person
(never rated), nothing for a match abandoned before everyone moved, the abandoner last in one
abandoned after, a person who never moved left out, and the rebuild from the stored results
equal to the live updates, also for matches ending in the same instant."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

import pytest
from postgres_server import Server

from bot.game.places import Place
from bot.game.ratings import AiSeat, Person, Rating, SeatResult, rate
from bot.game.results import abandoned_result, movers
from bot.game.standings import Standings, rate_result
from bot.storage.core import ratings as ratings_rows
from bot.storage.core.db import Db, Dialect
from bot.storage.core.rows import Row
from bot.storage.interface import Storage
from bot.storage.records import (
    AiRecord,
    LogRow,
    SeatInfo,
    StaleVersion,
    StoredRating,
    TableRecord,
    TableResult,
    table_result,
)
from storage.backends import PostgresBackend
from storage.helpers import ANN, BOB, GUILD, PLACE, SEATS, Clock, finished, play_on, played, started

CAT = 303
ALONE = (SeatInfo(user=ANN, name="Ann", hero="horan"),
         SeatInfo(ai=True, hero="taia", level="hard"),
         SeatInfo(ai=True, hero="argentus", level="easy"))


async def finish(store: Storage, seed: int, channel: int,
                 seats: tuple[SeatInfo, ...] = SEATS) -> int:
    """Table ``channel`` where game ``seed`` ends with the rater at work."""
    return await finished(store, seed, channel, seats=seats, rater=rate_result)


async def test_a_match_with_two_people_rates_them_against_the_ai_at_its_fixed_rating(
        store: Storage, clock: Clock) -> None:
    tid = await finish(store, 1, 1)
    final = played(1).final
    expected = rate([SeatResult(p, len(s.keys), s.hp, won=final.winner == i)
                     for i, (p, s) in enumerate(zip(
                         (Person(ANN), Person(BOB), AiSeat("easy")), final.seats,
                         strict=True))])
    ratings = {r.user_id: r for r in await store.ratings(GUILD)}
    assert {u: Rating(r.rating.mu, r.rating.sigma) for u, r in ratings.items()} == expected
    assert all(r.games == 1 and r.last_table == tid for r in ratings.values())
    assert sum(r.wins for r in ratings.values()) == int(final.winner in (0, 1))
    changes = await store.changes_of_table(tid)
    assert [(c.user_id, c.before, c.finished_at) for c in changes] == [
        (ANN, None, clock.now), (BOB, None, clock.now)]
    assert await store.ai_records(PLACE, ANN) == []  # a rated match is no record against the AI

    again = await finish(store, 2, 2)  # the second match starts from the stored ratings
    second = {c.user_id: c for c in await store.changes_of_table(again)}
    assert second[ANN].before == ratings[ANN].rating
    assert [c.table_id for c in await store.rating_changes(GUILD, ANN)] == [tid, again]
    rating = await store.rating_of(GUILD, ANN)
    assert rating is not None and rating.games == 2 and rating.rating == second[ANN].after


async def test_a_match_with_one_person_counts_only_against_each_ai_level(
        store: Storage) -> None:
    await finish(store, 1, 1, ALONE)
    await finish(store, 2, 2, ALONE)
    assert await store.ratings(GUILD) == []
    ann_won = [played(s).final.winner == 0 for s in (1, 2)]
    assert await store.ai_records(PLACE, ANN) == [
        AiRecord(ANN, "easy", "horan", 2, sum(ann_won)),
        AiRecord(ANN, "hard", "horan", 2, sum(ann_won))]


async def test_an_abandoned_match_changes_nothing(store: Storage) -> None:
    game = played(3)
    rec = await started(store, game.states[-5], channel=1)
    await play_on(store, rec.id, game, upto=len(game.moves) - 2, rater=rate_result)
    await store.set_status(rec.id, "abandoned")
    assert await store.ratings(GUILD) == []
    assert await store.changes_of_table(rec.id) == []


async def test_the_rebuild_gives_the_live_numbers(store: Storage, clock: Clock) -> None:
    handed = (SEATS[0], SEATS[1].model_copy(update={"ai": True}), SEATS[2])
    cat_seats = (SEATS[0], SeatInfo(user=CAT, name="Cat", hero="taia"), SEATS[1])
    for n, seats in enumerate((SEATS, handed, ALONE, cat_seats, SEATS, cat_seats)):
        clock.now += 100
        await finish(store, n + 1, n + 1, seats)
    live = (await store.ratings(GUILD), [await store.rating_changes(GUILD, u)
                                         for u in (ANN, BOB, CAT)],
            await store.ai_records(PLACE, ANN))
    assert len(live[0]) == 3 and live[2]
    assert await store.recompute_ratings(rate_result) == 6
    assert (await store.ratings(GUILD), [await store.rating_changes(GUILD, u)
                                         for u in (ANN, BOB, CAT)],
            await store.ai_records(PLACE, ANN)) == live
    assert await store.recompute_ratings(rate_result, GUILD) == 6  # one server's alone
    assert await store.ratings(GUILD) == live[0]
    assert await store.ai_records(PLACE, ANN) == live[2]


def test_the_rater_reads_a_forfeit_and_the_stored_ratings() -> None:
    final = played(1).final
    handed = (SEATS[0], SEATS[1].model_copy(update={"ai": True}), SEATS[2])
    result = table_result(1, GUILD, 1, "c", handed, final, 1.0, PLACE)
    mine = StoredRating(30.0, 4.0)
    new = rate_result(result, {ANN: mine})
    expected = rate([SeatResult(Person(ANN, Rating(30.0, 4.0)), len(final.seats[0].keys),
                                final.seats[0].hp, final.winner == 0),
                     SeatResult(Person(BOB, None, forfeited=True), len(final.seats[1].keys),
                                final.seats[1].hp, final.winner == 1),
                     SeatResult(AiSeat("easy"), len(final.seats[2].keys), final.seats[2].hp,
                                final.winner == 2)])
    assert {u: Rating(r.mu, r.sigma) for u, r in new.items()} == expected


async def finish_moved(store: Storage, seed: int, channel: int, moved: set[int],
                       seats: tuple[SeatInfo, ...] = SEATS) -> int:
    """Table ``channel`` where game ``seed`` ends with the rater at work and the result the
    game gives, in which only the people ``moved`` made a move of their own."""
    game = played(seed)
    rec = await started(store, game.states[-2], channel=channel, seats=seats)
    last = len(game.moves) - 1
    result = table_result(rec.id, GUILD, channel, rec.catalogue, seats, game.final, 0.0,
                          PLACE)
    result = replace(result, seats=tuple(replace(s, moved=s.user_id in moved)
                                         for s in result.seats))
    await store.apply(rec.id, last, game.final, game.log_row(last), rater=rate_result,
                      result=result)
    return rec.id


async def test_a_match_where_fewer_than_two_people_moved_is_not_rated(store: Storage) -> None:
    # Bob never made a move: his seat counts as one more AI seat, at the level it was played at
    for channel in (1, 2, 3):  # a second account joining and leaving at once, again and again
        await finish_moved(store, 1, channel, {ANN})
        assert await store.ratings(GUILD) == []
    ann_won = int(played(1).final.winner == 0)
    assert await store.ai_records(PLACE, ANN) == [AiRecord(ANN, "easy", "horan", 3, 3 * ann_won),
                                           AiRecord(ANN, "normal", "horan", 3, 3 * ann_won)]
    assert await store.ai_records(PLACE, BOB) == []
    standings = Standings(store)  # the records /goblin stats shows, read from each match
    assert (await standings.stats(Place.server(GUILD), ANN)).against_ai == tuple(
        await store.ai_records(PLACE, ANN))
    assert (await standings.stats(Place.server(GUILD), BOB)).against_ai == ()
    assert await store.recompute_ratings(rate_result) == 3
    assert await store.ratings(GUILD) == []
    await finish_moved(store, 1, 4, set())  # nobody moved: nothing at all
    assert await store.ratings(GUILD) == [] and len(await store.ai_records(PLACE, ANN)) == 2


def test_the_rater_leaves_out_a_person_who_never_moved() -> None:
    final = played(1).final
    cat_seats = (SEATS[0], SeatInfo(user=CAT, name="Cat", hero="taia", ai=True), SEATS[1])
    result = table_result(1, GUILD, 1, "c", cat_seats, final, 1.0, PLACE)
    result = replace(result, seats=tuple(replace(s, moved=s.user_id != CAT)
                                         for s in result.seats))
    new = rate_result(result, {})
    assert set(new) == {ANN, BOB}  # rated among the others only, Cat's seat an AI one
    expected = rate([SeatResult(Person(ANN), len(final.seats[0].keys), final.seats[0].hp,
                                final.winner == 0),
                     SeatResult(AiSeat("normal"), len(final.seats[1].keys), final.seats[1].hp,
                                final.winner == 1),
                     SeatResult(Person(BOB), len(final.seats[2].keys), final.seats[2].hp,
                                final.winner == 2)])
    assert {u: Rating(r.mu, r.sigma) for u, r in new.items()} == expected


async def abandoned_at(store: Storage, seed: int, channel: int) -> TableRecord:
    """Table ``channel`` running game ``seed`` two moves before its end."""
    game = played(seed)
    rec = await started(store, game.states[-5], channel=channel)
    await play_on(store, rec.id, game, upto=len(game.moves) - 2)
    found = await store.get(rec.id)
    assert found is not None
    return found


def own_moves(moved: list[tuple[int, int]]) -> list[LogRow]:
    """A log in which each (seat, user) of ``moved`` made a move, one taken back after it."""
    rows = [LogRow(i + 1, seat, user, False, "x", 0.0) for i, (seat, user) in enumerate(moved)]
    return [*rows, LogRow(len(rows) + 1, 2, CAT, False, "y", 0.0, undone=True),
            LogRow(len(rows) + 2, 2, CAT, False, "undo", 0.0)]


async def test_a_match_abandoned_before_everyone_moved_is_not_rated(store: Storage) -> None:
    rec = await abandoned_at(store, 3, 1)
    assert abandoned_result(rec, own_moves([(0, ANN)]), ANN, 0.0) is None  # Bob has not moved
    await store.abandon(rec.id, rec.version)
    found = await store.get(rec.id)
    assert found is not None and found.status == "abandoned"
    assert await store.result_of(rec.id) is None and await store.ratings(GUILD) == []


async def test_a_match_abandoned_after_everyone_moved_is_rated_its_abandoner_last(
        store: Storage, clock: Clock) -> None:
    rec = await abandoned_at(store, 3, 1)
    result = abandoned_result(rec, own_moves([(0, ANN), (1, BOB)]), ANN, 0.0)
    assert result is not None and result.abandoned_by == ANN
    with pytest.raises(StaleVersion):  # the match moved on since it was read
        await store.abandon(rec.id, rec.version - 1, result, rate_result)
    await store.abandon(rec.id, rec.version, result, rate_result)
    stored = await store.result_of(rec.id)
    assert stored == replace(result, finished_at=clock.now)
    state = rec.game
    assert stored.seats[0].place == 3  # Ann abandoned: last, the others by keys, then HP
    expected = rate([SeatResult(Person(ANN, forfeited=True), len(state.seats[0].keys),
                                state.seats[0].hp),
                     SeatResult(Person(BOB), len(state.seats[1].keys), state.seats[1].hp),
                     SeatResult(AiSeat("easy"), len(state.seats[2].keys), state.seats[2].hp)])
    ratings = {r.user_id: r for r in await store.ratings(GUILD)}
    assert {u: Rating(r.rating.mu, r.rating.sigma) for u, r in ratings.items()} == expected
    assert ratings[ANN].rating.mu < ratings[BOB].rating.mu
    assert ratings[ANN].wins == ratings[BOB].wins == 0  # nobody wins an abandoned match
    found = await store.get(rec.id)
    assert found is not None and found.status == "abandoned"
    live = await store.ratings(GUILD)
    assert await store.recompute_ratings(rate_result) == 1
    assert await store.ratings(GUILD) == live


async def test_matches_ending_in_the_same_instant_rate_alike_live_and_rebuilt(
        store: Storage) -> None:
    first = await started(store, played(1).states[-2], channel=1)
    second = await started(store, played(2).states[-2], channel=2)
    # the newer table ends first, in the same clock instant as the older one
    await play_on(store, second.id, played(2), rater=rate_result)
    await play_on(store, first.id, played(1), rater=rate_result)
    live = (await store.ratings(GUILD),
            [await store.rating_changes(GUILD, u) for u in (ANN, BOB)])
    assert [c.table_id for c in live[1][0]] == [second.id, first.id]
    assert await store.recompute_ratings(rate_result) == 2
    assert (await store.ratings(GUILD),
            [await store.rating_changes(GUILD, u) for u in (ANN, BOB)]) == live
    assert await store.recompute_ratings(rate_result, GUILD) == 2
    assert await store.ratings(GUILD) == live[0]


def test_a_move_taken_back_or_made_by_the_ai_is_no_move_of_ones_own() -> None:
    assert movers([LogRow(1, 0, ANN, False, "x", 0.0, undone=True),  # taken back
                   LogRow(2, 0, ANN, False, "undo", 0.0),  # the take-back itself
                   LogRow(3, 1, None, True, "y", 0.0),  # the AI, Bob's turn timer out
                   LogRow(4, 2, CAT, False, "z", 0.0)]) == {(2, CAT)}


@pytest.mark.parametrize("guild", [GUILD, None], ids=["one_server", "every_server"])
async def test_a_match_ending_while_the_ratings_are_rebuilt_keeps_its_rating(
        postgres_server: Server, clock: Clock, monkeypatch: pytest.MonkeyPatch,
        guild: int | None) -> None:
    """A match another process rates while the rebuild reads the results is rated after the
    rebuild, over the rebuilt ratings, never lost (PostgreSQL: processes write at once)."""
    pg = PostgresBackend(postgres_server)
    admin, bot = await pg.open(clock), await pg.open(clock)
    try:
        await finish(bot, 1, 1)
        ending: list[asyncio.Task[int]] = []
        read = ratings_rows.with_seats

        async def reading(db: Db, dialect: Dialect, heads: Sequence[Row]) -> list[TableResult]:
            found = await read(db, dialect, heads)
            if not ending:  # the bot ends a match meanwhile
                ending.append(asyncio.create_task(finish(bot, 2, 2)))
                await asyncio.wait(ending, timeout=2)
            return found

        monkeypatch.setattr(ratings_rows, "with_seats", reading)
        await admin.recompute_ratings(rate_result, guild)
        second = await ending[0]
        monkeypatch.undo()
        assert len(await bot.changes_of_table(second)) == 2
        live = (await bot.ratings(GUILD), [await bot.rating_changes(GUILD, u) for u in (ANN, BOB)])
        assert all(r.games == 2 for r in live[0])
        await admin.recompute_ratings(rate_result, guild)
        assert (await bot.ratings(GUILD),
                [await bot.rating_changes(GUILD, u) for u in (ANN, BOB)]) == live
    finally:
        await bot.close()
        await admin.close()
