"""A tournament's past matches on every backend, as ``/goblin history tournament:`` reads them:
its tables only (no other match of the server, nor of another tournament or server), newest
first with their rounds, page by page both ways, a match its round's deadline closed unrated
listed without a result, a match still playing left out, and the person, channel and place
filters composed; and the history service's pages of it (rounds, the deadline's match as it
stood, refusals)."""
from __future__ import annotations

import pytest

from bot.game.history import InRound
from bot.game.places import Place, Sight
from bot.game.refusals import Refusal
from bot.game.service import GameService
from bot.storage.interface import Storage
from bot.storage.records import DamagedResult, NewTournamentTable, SeatInfo, places
from i18n import msg
from storage.backends import Backend
from storage.helpers import (
    ANN,
    BOB,
    PLACE,
    SEATS,
    Clock,
    finished,
    new_tournament,
    play_on,
    played,
)

CAT = 303
WITH_CAT = (SEATS[0], SeatInfo(user=CAT, name="Cat", hero="taia"), SEATS[2])


async def _round(store: Storage, cup: int, after: int,
                 pods: tuple[tuple[SeatInfo, ...], ...]) -> list[int]:
    """Round ``after + 1`` seated: one table a pod, each one move before its end (the first
    round's people signed up first, as the first round seats every entrant)."""
    game = played(1)
    if after == 0:
        people = {s.user: s.name for pod in pods for s in pod if s.user is not None and not s.ai}
        for user, name in people.items():
            assert await store.enter(cup, user, name, 1000)
    ids = await store.seat_tournament_round(
        cup, after, 7, None,
        [NewTournamentTable(pod, seats, game.states[-2], 1, None)
         for pod, seats in enumerate(pods, start=1)], None)
    assert ids is not None
    return ids


async def test_a_tournaments_matches_with_their_rounds_page_by_page(
        store: Storage) -> None:
    cup = await new_tournament(store, name="Cup", rounds=3, table_size=3, round_span=600)
    other = await new_tournament(store, name="Other", rounds=1, table_size=3, round_span=600,
                                 seed=6, channel_id=79)
    game = played(1)
    first = await _round(store, cup.id, 0, (SEATS, WITH_CAT))
    await play_on(store, first[0], game)  # ended: a result is stored
    late = await store.get(first[1])  # closed at the round's deadline, unrated
    assert late is not None
    assert await store.decide_tournament_table(cup.id, 1, 2, [1, 2, 3], True)
    await store.abandon(late.id, late.version)
    alone = await finished(store, 1, 77)  # a match of no tournament, in between
    second = await _round(store, cup.id, 1, (SEATS, WITH_CAT))
    await play_on(store, second[0], game)  # second[1] still plays: not listed
    elsewhere = await _round(store, other.id, 0, (SEATS,))
    await play_on(store, elsewhere[0], game)

    listed = await store.tournament_matches(cup.id, PLACE)
    assert [(m.table_id, m.round, m.pod, m.at_deadline) for m in listed] == [
        (second[0], 2, 1, False), (first[1], 1, 2, True), (first[0], 1, 1, False)]
    assert [m.result is None for m in listed] == [False, True, False]
    assert listed[0].result is not None and len(listed[0].result.seats) == 3
    assert alone not in [m.table_id for m in listed]
    newest = await store.tournament_matches(cup.id, PLACE, limit=2)
    assert [m.table_id for m in newest] == [second[0], first[1]]
    older = await store.tournament_matches(cup.id, PLACE, limit=2, before=first[1])
    assert [m.table_id for m in older] == [first[0]]
    back = await store.tournament_matches(cup.id, PLACE, limit=2, after=first[0])
    assert [m.table_id for m in back] == [second[0], first[1]]
    assert [m.table_id for m in await store.tournament_matches(cup.id, PLACE, CAT)] == [
        first[1]]
    assert [m.table_id for m in await store.tournament_matches(cup.id, PLACE, BOB)] == [
        second[0], first[0]]
    assert await store.tournament_matches(cup.id, PLACE, channels={78}) == []
    assert len(await store.tournament_matches(cup.id, PLACE, channels={77, 78})) == 3
    assert await store.tournament_matches(cup.id, "guild:10") == []  # another server
    assert [m.table_id for m in await store.tournament_matches(other.id, PLACE)] == elsewhere
    assert await store.tournament_matches(2**70, PLACE) == []  # a forged id


async def test_the_history_service_pages_a_tournament_with_its_rounds(
        store: Storage, clock: Clock) -> None:
    """The service's pages of one tournament, one match a page both ways: each with its round,
    the deadline's match laid out as it stood (its places, no result stored); a sight without
    its channel, another server's and direct messages refused; a cancelled one refused."""
    service = GameService(store, clock=clock, seeds=lambda: 5)
    cup = await new_tournament(store, name="Cup", rounds=2, table_size=3, round_span=600)
    game = played(1)
    first = await _round(store, cup.id, 0, (SEATS, WITH_CAT))
    await play_on(store, first[0], game)
    late = await store.get(first[1])
    assert late is not None
    assert await store.decide_tournament_table(cup.id, 1, 2, [1, 2, 3], True)
    await store.abandon(late.id, late.version)
    await finished(store, 1, 77)  # no tournament's
    second = await _round(store, cup.id, 1, (SEATS,))
    await play_on(store, second[0], game)
    history = service.history
    sight = Sight.of(Place.server(9), {77})
    page = await history.page(sight, tournament=cup.id, size=1)
    assert [r.table_id for r in page.results] == [second[0]] and page.newer is None
    assert page.tournament is not None and page.tournament.name == "Cup"
    assert page.rounds == {second[0]: InRound(2, False)}
    assert page.older is not None
    page = await history.page(sight, before=page.older, tournament=cup.id, size=1)
    (closed,) = page.results
    assert closed.table_id == first[1] and page.rounds[first[1]] == InRound(1, True)
    assert [s.place for s in closed.seats] == list(places(game.states[-2]))
    assert [s.user_id for s in closed.seats] == [ANN, CAT, None]
    assert page.older is not None and page.newer is not None
    page = await history.page(sight, before=page.older, tournament=cup.id, size=1)
    assert [r.table_id for r in page.results] == [first[0]] and page.older is None
    page = await history.page(sight, after=first[0], tournament=cup.id, size=1)
    assert [r.table_id for r in page.results] == [first[1]]
    mine = await history.page(sight, CAT, tournament=cup.id)
    assert [r.table_id for r in mine.results] == [first[1]]
    for elsewhere in (Sight.of(Place.server(9), {78}), Sight(Place.server(10)),
                      Sight(Place.dms(ANN))):
        with pytest.raises(Refusal) as refused:
            await history.page(elsewhere, tournament=cup.id)
        assert refused.value.reason == msg("history.tournament.no_such")
        assert await history.tournaments(elsewhere) == []
    assert [t.id for t in await history.tournaments(sight)] == [cup.id]
    assert (await history.tournament_typed(sight, " cup ")).id == cup.id
    closed_early = await new_tournament(store, name="Gone", table_size=3, round_span=0, seed=6,
                                  channel_id=79)
    assert await store.cancel_tournament(closed_early.id)
    with pytest.raises(Refusal) as refused:
        await history.page(Sight.of(Place.server(9), {77, 79}), tournament=closed_early.id)
    assert refused.value.reason == msg("history.tournament.cancelled", name="Gone")


async def test_a_tournaments_match_that_cannot_be_read_keeps_its_place_on_the_pages(
        backend: Backend, store: Storage, clock: Clock, caplog: pytest.LogCaptureFixture
        ) -> None:
    """A tournament's match its round's deadline closed, whose table is damaged in the
    database, and one whose stored result is damaged: each is listed, damaged, in its place
    with its round (a warning names it), so a page still counts it and the Older and Newer
    anchors reach every other match, one match a page."""
    service = GameService(store, clock=clock, seeds=lambda: 5)
    cup = await new_tournament(store, name="Cup", rounds=2, table_size=3, round_span=600)
    game = played(1)
    first = await _round(store, cup.id, 0, (SEATS, WITH_CAT))
    await play_on(store, first[0], game)
    late = await store.get(first[1])
    assert late is not None
    assert await store.decide_tournament_table(cup.id, 1, 2, [1, 2, 3], True)
    await store.abandon(late.id, late.version)
    second = await _round(store, cup.id, 1, (SEATS, WITH_CAT))
    for table in second:
        await play_on(store, table, game)
    await backend.damage_table(store, first[1], state='{"format": 1}')
    await backend.damage_result(second[0], 2, ai_level="godlike")
    sight = Sight.of(Place.server(9), {77})
    newest = [second[1], second[0], first[1], first[0]]
    shown, page = [], await service.history.page(sight, tournament=cup.id, size=1)
    while True:
        shown.append(page.results)
        if page.older is None:
            break
        page = await service.history.page(sight, before=page.older, tournament=cup.id, size=1)
    assert [[r.table_id for r in found] for found in shown] == [[t] for t in newest]
    assert [type(found[0]) is DamagedResult for found in shown] == [False, True, True, False]
    assert page.rounds == {first[0]: InRound(1, False)}
    back = await service.history.page(sight, after=first[0], tournament=cup.id, size=1)
    assert [r.table_id for r in back.results] == [first[1]]
    assert back.rounds == {first[1]: InRound(1, True)} and back.newer is not None
    whole = await service.history.page(sight, tournament=cup.id)
    assert [r.table_id for r in whole.results] == newest and whole.older is None
    told = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any(f"table {first[1]}:" in t for t in told), told
    assert any(f"table {second[0]}:" in t for t in told), told
