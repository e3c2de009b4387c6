"""Two processes on one database change one lobby: each holds only its own table locks, so
another process's lobby change (a seat taken or left, the lobby started, closed, or closed by
the timer pass after a day without a change) can come between the moment a click read the
lobby and the moment it writes. The store writes a lobby change only while the lobby is still
at the revision read; the click then reads the lobby again and is made on it, or refused as
any click on that lobby would be: no seat is lost, none is written onto a closed lobby, and a
started match is never closed as a lobby. The other process's change comes in at a fixed point
(just before this process's write), not by timing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from bot_helpers import Clock

from bot.game.lobby import LOBBY_IDLE
from bot.game.refusals import Refusal, Stale
from bot.game.results import movers
from bot.game.service import GameService
from bot.storage.records import with_seat
from bot.storage.sqlite import Store
from engine import legal_actions

ANN, BOB, CY = 101, 202, 303


@pytest.fixture
def other(store: Store, clock: Clock) -> GameService:
    """The other process: a game service of its own (its own table locks) on the database."""
    seeds = iter(range(5000, 100000))
    return GameService(store, clock=clock, seeds=lambda: next(seeds))


def meddle(monkeypatch: pytest.MonkeyPatch, store: Store, writes: str,
           theirs: Callable[[], Awaitable[object]]) -> None:
    """The next of ``writes`` (names of the store's writes, space-separated) lets the other
    process's change ``theirs`` in first."""
    pending: list[Callable[[], Awaitable[object]]] = [theirs]

    def meddled(original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def write(*args: Any, **kwargs: Any) -> Any:
            if pending:
                await pending.pop()()
            return await original(*args, **kwargs)
        return write

    for name in writes.split():
        monkeypatch.setattr(store, name, meddled(getattr(store, name)))


async def lobby(service: GameService) -> int:
    """Ann's new lobby."""
    record = await service.lobby.create(guild_id=9, channel_id=1, host_id=ANN,
                                        host_name="Ann")
    return record.id


def people(service: GameService, record: Any) -> list[int | None]:
    """Who sits at each seat."""
    return [s.user for s in record.seats]


async def test_a_join_as_the_timer_pass_closes_the_idle_lobby_is_refused(
        service: GameService, other: GameService, store: Store, clock: Clock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    tid = await lobby(service)
    clock.now += LOBBY_IDLE
    meddle(monkeypatch, store, "update_lobby", lambda: other.lobby.close_idle({tid}))
    with pytest.raises(Refusal) as refused:
        await service.lobby.join(tid, BOB, "Bob")
    assert refused.value.reason.key == "bot.error.not_lobby"
    closed = await service.tables.load(tid)
    assert closed.status == "abandoned" and people(service, closed) == [ANN]


async def test_two_joins_in_two_processes_both_take_a_seat(
        service: GameService, other: GameService, store: Store,
        monkeypatch: pytest.MonkeyPatch) -> None:
    tid = await lobby(service)
    meddle(monkeypatch, store, "update_lobby", lambda: other.lobby.join(tid, CY, "Cy"))
    record = await service.lobby.join(tid, BOB, "Bob")
    assert record.status == "lobby" and people(service, record) == [ANN, CY, BOB]


async def test_the_host_leaving_as_another_joins_keeps_the_new_seat(
        service: GameService, other: GameService, store: Store,
        monkeypatch: pytest.MonkeyPatch) -> None:
    tid = await lobby(service)
    await service.lobby.join(tid, BOB, "Bob")
    meddle(monkeypatch, store, "update_lobby", lambda: other.lobby.join(tid, CY, "Cy"))
    record = await service.lobby.leave(tid, ANN)
    assert record.status == "lobby" and record.host_id == BOB
    assert people(service, record) == [BOB, CY]


async def test_the_last_person_leaving_as_another_joins_leaves_the_lobby_open(
        service: GameService, other: GameService, store: Store,
        monkeypatch: pytest.MonkeyPatch) -> None:
    tid = await lobby(service)
    meddle(monkeypatch, store, "set_status", lambda: other.lobby.join(tid, BOB, "Bob"))
    record = await service.lobby.leave(tid, ANN)
    assert record.status == "lobby" and record.host_id == BOB
    assert people(service, record) == [BOB]


async def test_a_start_after_another_process_seated_someone_is_refused(
        service: GameService, other: GameService, store: Store,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Ann started the lobby she saw (her and an AI seat): Bob, seated meanwhile, is not
    left out of a match that started without him; she sees the lobby with him and starts
    again."""
    tid = await lobby(service)
    seen = (await service.lobby.add_ai(tid, ANN)).revision
    meddle(monkeypatch, store, "start_game", lambda: other.lobby.join(tid, BOB, "Bob"))
    with pytest.raises(Stale) as refused:
        await service.lobby.start(tid, ANN, seen)
    assert refused.value.reason.key == "bot.error.lobby_moved"
    assert refused.value.record is not None and refused.value.record.revision == seen + 1
    record = await service.tables.load(tid)
    assert record.status == "lobby" and people(service, record) == [ANN, None, BOB]
    started = await service.lobby.start(tid, ANN, record.revision)
    assert started.status == "running" and people(service, started) == [ANN, None, BOB]


async def test_a_start_by_command_as_another_joins_starts_with_them(
        service: GameService, other: GameService, store: Store,
        monkeypatch: pytest.MonkeyPatch) -> None:
    tid = await lobby(service)
    await service.lobby.add_ai(tid, ANN)
    meddle(monkeypatch, store, "start_game", lambda: other.lobby.join(tid, BOB, "Bob"))
    started = await service.lobby.start(tid, ANN)
    assert started.status == "running" and people(service, started) == [ANN, None, BOB]


async def test_a_start_in_two_processes_at_once_starts_once(
        service: GameService, other: GameService, store: Store,
        monkeypatch: pytest.MonkeyPatch) -> None:
    tid = await lobby(service)
    seen = (await service.lobby.join(tid, BOB, "Bob")).revision
    meddle(monkeypatch, store, "start_game", lambda: other.lobby.start(tid, ANN, seen))
    with pytest.raises(Refusal) as refused:
        await service.lobby.start(tid, ANN, seen)
    assert refused.value.reason.key == "bot.error.already_started"
    record = await service.tables.load(tid)
    assert record.status == "running" and record.version == 0


async def test_a_cancel_as_another_process_starts_the_match_is_refused(
        service: GameService, other: GameService, store: Store,
        monkeypatch: pytest.MonkeyPatch) -> None:
    tid = await lobby(service)
    await service.lobby.join(tid, BOB, "Bob")
    meddle(monkeypatch, store, "set_status", lambda: other.lobby.start(tid, ANN))
    with pytest.raises(Refusal) as refused:
        await service.lobby.cancel(tid, ANN)
    assert refused.value.reason.key == "bot.error.already_started"
    record = await service.tables.load(tid)
    assert record.status == "running" and record.state is not None


async def test_two_people_leaving_a_match_in_two_processes_both_hand_their_seats_to_the_ai(
        service: GameService, other: GameService, store: Store,
        monkeypatch: pytest.MonkeyPatch) -> None:
    tid = await lobby(service)
    await service.lobby.join(tid, BOB, "Bob")
    await service.lobby.join(tid, CY, "Cy")
    await service.lobby.start(tid, ANN)
    meddle(monkeypatch, store, "update_seats", lambda: other.lobby.leave(tid, CY))
    record = await service.lobby.leave(tid, BOB)
    assert record.status == "running" and [s.ai for s in record.seats] == [False, True, True]


async def test_a_host_forgotten_as_another_process_plays_keeps_the_move_s_seats(
        service: GameService, other: GameService, store: Store,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A match hosted by someone not playing it (a tournament's host) who asks to be
    forgotten: the host's role passes on, and the seats a move written meanwhile by another
    process (the mover's count of timed-out turns back to none) are not written back."""
    tid = await lobby(service)
    await service.lobby.join(tid, BOB, "Bob")
    record = await service.lobby.start(tid, ANN)
    mover = record.game.current
    late = with_seat(record.seats, mover, record.seats[mover].model_copy(
        update={"timeouts": 1}))
    await store.update_seats(tid, record.version, late, host_id=CY)
    record = await service.tables.load(tid)
    user = record.seats[mover].user
    assert user is not None and record.host_id == CY
    move = str(legal_actions(record.game)[0])
    meddle(monkeypatch, store, "update_lobby update_seats",
           lambda: other.play.act(tid, user, record.version, move))
    await service.people.forget(CY)
    after = await service.tables.load(tid)
    assert after.host_id == ANN and after.version == record.version + 1
    assert after.seats[mover].timeouts == 0


async def test_an_abandon_as_another_process_plays_a_move_closes_the_match(
        service: GameService, other: GameService, store: Store,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The host confirmed /goblin abandon as a move was written by another process: the
    match is closed as it stands after the move, not refused as a move already played."""
    tid = await lobby(service)
    await service.lobby.join(tid, BOB, "Bob")
    record = await service.lobby.start(tid, ANN)
    user = record.seats[record.game.current].user
    assert user is not None
    move = str(legal_actions(record.game)[0])
    meddle(monkeypatch, store, "abandon", lambda: other.play.act(tid, user, 0, move))
    closed = await service.lobby.abandon_table(tid, ANN, False)
    assert closed.status == "abandoned" and closed.version == 1
    assert [row.action for row in await store.action_log(tid)] == [move]


@pytest.mark.parametrize(("threaded", "key"), [(False, "bot.error.leave_started"),
                                               (True, "bot.error.leave_started_thread")])
async def test_a_lobby_leave_after_the_start_tells_where_to_leave_the_match(
        service: GameService, threaded: bool, key: str) -> None:
    """Bob clicks the lobby's Leave as Ann starts it: he keeps his seat and is told to use
    /goblin leave where the match is played, its thread when it moves to one (the same command
    in the lobby's channel finds no table there)."""
    record = await service.lobby.create(guild_id=9, channel_id=1, host_id=ANN, host_name="Ann",
                                        threaded=threaded)
    await service.lobby.join(record.id, BOB, "Bob")
    await service.lobby.start(record.id, ANN)
    with pytest.raises(Refusal) as refused:
        await service.lobby.leave(record.id, BOB, lobby_only=True)
    assert refused.value.reason.key == key
    started = await service.tables.load(record.id)
    assert started.status == "running" and people(service, started) == [ANN, BOB]


async def test_an_abandon_as_another_process_forgets_a_player_keeps_nothing_of_them(
        service: GameService, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ann moved, then left the match to the AI (as forgetting her does first); Bob, its host
    now, confirms /goblin abandon as another process forgets her: the match is closed as it
    stands once she is forgotten, and no result, rating or change keeps her id."""
    tid = await lobby(service)
    await service.lobby.join(tid, BOB, "Bob")
    record = await service.lobby.start(tid, ANN)
    while {u for _, u in movers(await store.action_log(tid))} != {ANN, BOB}:
        user = record.seats[record.game.current].user
        assert user is not None
        record = (await service.play.act(tid, user, record.version,
                                         str(legal_actions(record.game)[0]))).record
    await service.lobby.leave(tid, ANN)
    meddle(monkeypatch, store, "abandon", lambda: store.forget_person(ANN))
    closed = await service.lobby.abandon_table(tid, BOB, False)
    assert closed.status == "abandoned"
    assert not await store.keeps_about(ANN)
