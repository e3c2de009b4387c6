"""A finished table's rematch offer changed by two writers at once: each process holds only its
own table locks, and forgetting a person (``/goblin forget-me``, or ``python -m bot.admin
forget`` in a process of its own) holds no finished table's, so another write can come between
the moment a click (or the timer pass closing lapsed offers) read the offer and the moment it
writes. The store writes an offer only while it is still as read: the click reads it again and
is made on it; the timer pass leaves alone an offer that changed. A started rematch is never
unlinked from its table, nobody's readiness is lost, and no forgotten person's id comes back.
The other write comes in at a fixed point (just before this process's write), not by timing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from bot_helpers import Clock
from players import ANN, BOB, EVE, finished_match
from storage.helpers import played

from bot.game.rematch import LAPSE
from bot.game.service import GameService
from bot.storage.records import SeatInfo
from bot.storage.sqlite import Store

#: A finished match of three people.
THREE = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
         SeatInfo(user=BOB.id, name="Bob", hero="taia"),
         SeatInfo(user=EVE.id, name="Eve", hero="argentus"))


@pytest.fixture
def other(store: Store, clock: Clock) -> GameService:
    """The other process: a game service of its own (its own table locks) on the database,
    its clock two seconds ahead of this one's (another machine, or a moment later)."""
    seeds = iter(range(5000, 100000))
    return GameService(store, clock=lambda: clock.now + 2, seeds=lambda: next(seeds))


def meddle(monkeypatch: pytest.MonkeyPatch, store: Store, write: str,
           theirs: Callable[[], Awaitable[object]]) -> None:
    """The next ``write`` (a store write's name) lets the other change ``theirs`` in first."""
    pending: list[Callable[[], Awaitable[object]]] = [theirs]
    original = getattr(store, write)

    async def meddled(*args: Any, **kwargs: Any) -> Any:
        if pending:
            await pending.pop()()
        return await original(*args, **kwargs)

    monkeypatch.setattr(store, write, meddled)


async def test_the_timer_pass_of_another_process_never_unlinks_a_rematch_started_meanwhile(
        service: GameService, other: GameService, store: Store, clock: Clock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The other process's timer pass read Ann's offer as lapsed just as Bob's Ready (the last
    one) started the rematch here: the offer keeps the link to the new match and is not
    reported closed (its message is not redrawn as lapsed)."""
    tid = await finished_match(store, played(2))
    await service.rematches.offer(tid, ANN.id)
    clock.now += LAPSE - 1  # lapsed for the other process, not yet for this one
    started: list[int] = []

    async def ready() -> None:
        state = await service.rematches.ready(tid, BOB.id)
        assert state.started is not None
        started.append(state.started.id)

    meddle(monkeypatch, store, "save_rematch", ready)
    assert await other.rematches.lapsed() == []
    offer = await store.rematch_of(tid)
    assert offer is not None and offer.closed and offer.new_table == started[0]


async def test_a_rematch_started_as_another_process_closed_the_offer_keeps_its_link(
        service: GameService, other: GameService, store: Store, clock: Clock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The other process closed the offer as lapsed while Bob's Ready was starting the
    rematch here: the match started, and the offer says so."""
    tid = await finished_match(store, played(2))
    await service.rematches.offer(tid, ANN.id)
    clock.now += LAPSE - 1
    meddle(monkeypatch, store, "start_game", other.rematches.lapsed)
    state = await service.rematches.ready(tid, BOB.id)
    assert state.started is not None
    offer = await store.rematch_of(tid)
    assert offer is not None and offer.closed and offer.new_table == state.started.id


async def test_a_ready_as_the_person_who_offered_is_forgotten_writes_no_id_back(
        service: GameService, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ann offered a rematch and asked to be forgotten as Bob clicked Ready, in the same
    process: her pseudonym stays in the offer, Bob is ready, and her id is nowhere in it."""
    tid = await finished_match(store, played(2), seats=THREE)
    await service.rematches.offer(tid, ANN.id)
    meddle(monkeypatch, store, "save_rematch", lambda: service.people.forget(ANN.id))
    state = await service.rematches.ready(tid, BOB.id)
    offer = await store.rematch_of(tid)
    assert offer is not None and state.started is None
    assert ANN.id not in (offer.offered_by, *offer.ready) and BOB.id in offer.ready
    assert offer.ready[0] < 0 and offer.offered_by == offer.ready[0]


async def test_two_ready_clicks_in_two_processes_both_count(
        service: GameService, other: GameService, store: Store,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Bob and Eve click Ready at once, each in a process of its own: both are ready, so the
    rematch starts with all three."""
    tid = await finished_match(store, played(2), seats=THREE)
    await service.rematches.offer(tid, ANN.id)
    meddle(monkeypatch, store, "save_rematch", lambda: other.rematches.ready(tid, EVE.id))
    state = await service.rematches.ready(tid, BOB.id)
    assert state.started is not None
    assert [s.user for s in state.started.seats] == [ANN.id, BOB.id, EVE.id]
    offer = await store.rematch_of(tid)
    assert offer is not None and offer.new_table == state.started.id
