"""Ratings stored with a finished match's result: the people's new ratings (AI seats at their
fixed ratings), each person's change, the record against the AI for a match with one person
(never rated), nothing for an abandoned match, and the rebuild from the stored results equal
to the live updates."""

from __future__ import annotations

from bot.game.ratings import AiSeat, Person, Rating, SeatResult, rate
from bot.game.standings import rate_result
from bot.storage.interface import Storage
from bot.storage.records import AiRecord, SeatInfo, StoredRating
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
    from bot.storage.records import table_result
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
