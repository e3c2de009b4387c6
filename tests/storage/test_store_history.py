"""Past matches page by page (a server's, one person's, older or newer than a table) and the
rematch offers, through the storage interface."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.game.places import Place
from bot.game.standings import rate_result
from bot.storage.interface import Storage
from bot.storage.records import (
    DamagedResult,
    DamagedResults,
    RematchOffer,
    SeatInfo,
    TableResult,
    table_result,
)
from storage.backends import Backend
from storage.helpers import (
    ANN,
    BOB,
    GUILD,
    PLACE,
    SEATS,
    Clock,
    new_tournament,
    play_on,
    played,
    started,
)

#: Eve plays instead of Bob.
EVE = 303
WITH_EVE = (SEATS[0], SeatInfo(user=EVE, name="Eve", hero="taia"), SEATS[2])


async def finished(store: Storage, count: int, channel: int = 1,
                   seats: tuple[SeatInfo, ...] = SEATS, guild: int | None = GUILD,
                   rated: bool = False) -> list[int]:
    """``count`` finished tables (each started one move before its end), oldest first
    (``rated``: each rated as it ends)."""
    game = played(1)
    out = []
    for _ in range(count):
        rec = await started(store, game.states[-2], channel, seats, guild)
        await play_on(store, rec.id, game, rater=rate_result if rated else None)
        out.append(rec.id)
    return out


async def test_matches_page_by_page_both_ways(store: Storage) -> None:
    ids = await finished(store, 7)
    await finished(store, 2, guild=GUILD + 1)  # another server's are never listed
    newest = [r.table_id for r in await store.matches(PLACE, limit=3)]
    assert newest == ids[::-1][:3]
    older = [r.table_id for r in await store.matches(PLACE, limit=3, before=newest[-1])]
    assert older == ids[::-1][3:6]
    back = [r.table_id for r in await store.matches(PLACE, limit=3, after=older[0])]
    assert back == newest
    last = [r.table_id for r in await store.matches(PLACE, limit=3, before=ids[1])]
    assert last == [ids[0]]
    assert await store.matches(PLACE, limit=3, after=ids[-1]) == []


async def test_a_persons_matches_only(store: Storage) -> None:
    with_bob = await finished(store, 2)
    with_eve = await finished(store, 3, seats=WITH_EVE)
    assert [r.table_id for r in await store.matches(PLACE, EVE)] == with_eve[::-1]
    assert [r.table_id for r in await store.matches(PLACE, BOB)] == with_bob[::-1]
    both = [r.table_id for r in await store.matches(PLACE, ANN, limit=10)]
    assert both == sorted(with_bob + with_eve, reverse=True)
    page = await store.matches(PLACE, EVE, limit=2, before=with_eve[-1])
    assert [r.table_id for r in page] == [with_eve[1], with_eve[0]]
    assert all(len(r.seats) == 3 for r in page)



@pytest.mark.parametrize(("seat", "column", "value"), [
    (0, "place", "x"), (1, "keys", 1.5), (2, "ai_level", "godlike"), (0, "user_id", "Ann"),
    (None, "rounds", "seven"), (None, "finished_at", "noon"), (None, "abandoned_by", "Ann")])
async def test_a_damaged_result_hurts_only_its_own_match(
        backend: Backend, store: Storage, seat: int | None, column: str, value: object) -> None:
    """A value of a stored result (its row, or one of its seats' rows) that its column cannot
    hold, as a bad disk or a careless hand leaves it: each read of past matches still reads
    every other match, the damaged one in its place (so a page counts it and the pages beyond
    it are reached), and the rebuild of the ratings is refused before it changes anything
    (PostgreSQL's column types refuse some of these damages: skipped there)."""
    ids = await finished(store, 5, rated=True)
    damaged = ids[2]
    await backend.damage_result(damaged, seat, **{column: value})
    page = await store.matches(PLACE, limit=3)
    assert [r.table_id for r in page] == ids[::-1][:3]
    assert [type(r) for r in page] == [TableResult, TableResult, DamagedResult]
    assert page[2] == DamagedResult(damaged, page[2].reason, PLACE, 1), page[2]
    assert column in page[2].reason
    older = await store.matches(PLACE, limit=3, before=damaged)
    assert [r.table_id for r in older] == ids[1::-1]
    his = await store.matches(PLACE, BOB, limit=10)  # Bob's own seat row never damaged
    assert [r.table_id for r in his] == ids[::-1]
    assert isinstance(await store.result_of(damaged), DamagedResult)
    assert isinstance(await store.result_of(ids[3]), TableResult)
    theirs = await store.player_results(PLACE, BOB)
    assert sorted((r.table_id, isinstance(r, DamagedResult)) for r in theirs) == [
        (t, t == damaged) for t in ids]
    assert [r.table_id for r in await store.matches(PLACE)] == ids[::-1]
    ratings = await store.ratings(GUILD)
    with pytest.raises(DamagedResults) as refused:
        await store.recompute_ratings(rate_result)
    assert refused.value.table_ids == (damaged,)
    with pytest.raises(DamagedResults):
        await store.recompute_ratings(rate_result, GUILD)
    assert await store.ratings(GUILD) == ratings  # nothing changed

async def test_a_persons_matches_leave_out_those_they_left_before_their_first_move(
        store: Storage) -> None:
    """Bob left one match before his first move (the AI played his seat): counted as never
    seated there, it is not one of his matches, but it is Ann's and the place's."""
    played_out = await finished(store, 1)
    game = played(1)
    left = (SEATS[0], SeatInfo(user=BOB, name="Bob", hero="taia", ai=True, level="normal"),
            SEATS[2])
    rec = await started(store, game.states[-2], 1, left)
    result = table_result(rec.id, GUILD, 1, rec.catalogue, left, game.final, 0.0, PLACE)
    result = replace(result, seats=tuple(replace(s, moved=s.user_id == ANN)
                                         for s in result.seats))
    index = len(game.moves) - 1
    await store.apply(rec.id, index, game.final, game.log_row(index), result=result)
    assert [r.table_id for r in await store.matches(PLACE, BOB)] == played_out
    assert [r.table_id for r in await store.matches(PLACE, ANN)] == [rec.id, *played_out]
    assert [r.table_id for r in await store.matches(PLACE)] == [rec.id, *played_out]


async def test_the_channels_of_a_places_past_matches_and_tournaments(store: Storage) -> None:
    """Each channel once, a running match's left out until it ends, another place's never."""
    await finished(store, 2, channel=11)
    await finished(store, 1, channel=12)
    running = await started(store, played(1).states[-2], channel=13)
    await finished(store, 1, channel=21, guild=GUILD + 1)
    await finished(store, 1, channel=31, guild=None)  # Ann's direct messages
    await new_tournament(store, channel_id=14)
    await new_tournament(store, place_key=Place.server(GUILD + 1).key, channel_id=22)
    assert await store.past_channels(PLACE) == {11, 12, 14}
    await play_on(store, running.id, played(1))
    assert await store.past_channels(PLACE) == {11, 12, 13, 14}
    assert await store.past_channels(Place.server(GUILD + 1).key) == {21, 22}
    assert await store.past_channels(Place.dms(ANN).key) == {31}
    assert await store.past_channels(Place.server(GUILD + 2).key) == set()


async def test_a_rematch_offer_is_stored_and_changed(store: Storage, clock: Clock) -> None:
    tid = (await finished(store, 1))[0]
    assert await store.rematch_of(tid) is None
    offer = RematchOffer(tid, ANN, clock.now, (ANN,))
    assert await store.save_rematch(offer)
    assert await store.rematch_of(tid) == offer
    assert await store.open_rematches() == [offer]
    later = RematchOffer(tid, ANN, clock.now, (ANN, BOB), message_id=55, new_table=9,
                         closed=True)
    assert await store.save_rematch(later, offer)
    assert await store.rematch_of(tid) == later
    assert await store.open_rematches() == []


async def test_a_rematch_offer_changed_since_it_was_read_is_not_written_over(
        store: Storage, clock: Clock) -> None:
    """An offer is written only while it is as read: a change another writer made since
    (another process's Ready, a started rematch) is kept."""
    tid = (await finished(store, 1))[0]
    offer = RematchOffer(tid, ANN, clock.now, (ANN,))
    assert await store.save_rematch(offer)
    assert not await store.save_rematch(RematchOffer(tid, BOB, clock.now, (BOB,)))
    started = replace(offer, new_table=9, closed=True)
    assert await store.save_rematch(started, offer)
    assert not await store.save_rematch(replace(offer, closed=True), offer)
    assert await store.rematch_of(tid) == started
