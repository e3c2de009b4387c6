from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from bot_helpers import Clock
from storage.backends import SqliteBackend

from bot.game.play import MAX_TIMEOUTS
from bot.game.refusals import Damaged, Illegal, NotSeated, OutOfTurn, Refusal, Stale
from bot.game.results import movers
from bot.game.service import GameService
from bot.storage.records import CorruptTable
from bot.storage.sqlite import Store
from engine import Phase, Undo, apply, legal_actions, observe
from engine.agents import make_agent

A, B, C = 101, 202, 303


async def lobby(service: GameService, channel: int = 1) -> int:
    rec = await service.lobby.create(guild_id=9, channel_id=channel, host_id=A, host_name="Ann")
    return rec.id


async def started(service: GameService, channel: int = 1, timer: int = 0) -> int:
    rec = await service.lobby.create(guild_id=9, channel_id=channel, host_id=A, host_name="Ann",
                               timer=timer)
    await service.lobby.join(rec.id, B, "Bob")
    await service.lobby.start(rec.id, A)
    return rec.id


async def test_lobby_flow(service: GameService) -> None:
    tid = await lobby(service)
    with pytest.raises(Refusal) as info:
        await service.lobby.create(guild_id=9, channel_id=1, host_id=B, host_name="Bob")
    assert info.value.reason.key == "bot.error.table_exists"
    with pytest.raises(Refusal, match="too_few"):
        await service.lobby.start(tid, A)
    await service.lobby.join(tid, B, "Bob")
    with pytest.raises(Refusal, match="already_seated"):
        await service.lobby.join(tid, B, "Bob")
    with pytest.raises(Refusal, match="host_only"):
        await service.lobby.add_ai(tid, B)
    await service.lobby.add_ai(tid, A)
    await service.lobby.add_ai(tid, A)
    with pytest.raises(Refusal, match="table_full"):
        await service.lobby.join(tid, C, "Cy")
    await service.lobby.pick_hero(tid, A, "taia")
    with pytest.raises(Refusal, match="hero_taken"):
        await service.lobby.pick_hero(tid, B, "taia")
    with pytest.raises(NotSeated):
        await service.lobby.pick_hero(tid, C, "horan")
    with pytest.raises(Refusal, match="host_only"):
        await service.lobby.start(tid, B)
    rec = await service.lobby.start(tid, A)
    assert rec.status == "running" and rec.state is not None
    heroes = [s.hero for s in rec.seats]
    assert heroes[0] == "taia" and len(set(heroes)) == 4 and None not in heroes
    assert [s.ai for s in rec.seats] == [False, False, True, True]
    assert rec.version == rec.game.step == 0


async def test_host_leaving_passes_the_role_and_empty_lobby_closes(service: GameService) -> None:
    tid = await lobby(service)
    await service.lobby.join(tid, B, "Bob")
    rec = await service.lobby.leave(tid, A)
    assert rec.host_id == B and rec.status == "lobby"
    rec = await service.lobby.leave(tid, B)
    assert rec.status == "abandoned"
    assert await service.store.active_in_channel(1) is None


async def test_moves_stale_stranger_out_of_turn(service: GameService) -> None:
    tid = await started(service)
    rec = await service.tables.load(tid)
    state = rec.game
    current_user = rec.seats[state.current].user
    other_user = A if current_user == B else B
    assert current_user is not None
    move = str(legal_actions(state)[0])
    with pytest.raises(NotSeated):
        await service.play.act(tid, C, 0, move)
    with pytest.raises(OutOfTurn):
        await service.play.act(tid, other_user, 0, move)
    with pytest.raises(Illegal):
        await service.play.act(tid, current_user, 0, "nonsense:move")
    with pytest.raises(Illegal):
        await service.play.act(tid, current_user, 0, "fight:lord")
    out = await service.play.act(tid, current_user, 0, move)
    assert out.record.version == 1
    with pytest.raises(Stale):
        await service.play.act(tid, current_user, 0, move)
    log = await service.store.action_log(tid)
    assert [(r.step, r.action, r.user_id) for r in log] == [(1, move, current_user)]


async def test_double_click_applies_exactly_once(service: GameService) -> None:
    tid = await started(service)
    rec = await service.tables.load(tid)
    user = rec.seats[rec.game.current].user
    assert user is not None
    move = str(legal_actions(rec.game)[0])
    results = await asyncio.gather(*(service.play.act(tid, user, 0, move) for _ in range(5)),
                                   return_exceptions=True)
    applied = [r for r in results if not isinstance(r, BaseException)]
    stale = [r for r in results if isinstance(r, Stale)]
    assert len(applied) == 1 and len(stale) == 4
    assert len(await service.store.action_log(tid)) == 1


async def test_ai_seats_play_a_whole_game(service: GameService) -> None:
    rec = await service.lobby.create(guild_id=9, channel_id=5, host_id=A, host_name="Ann")
    await service.lobby.add_ai(rec.id, A)
    await service.lobby.start(rec.id, A)
    await service.lobby.leave(rec.id, A)  # Ann's seat goes to the AI for good
    steps = 0
    while await service.play.ai_step(rec.id) is not None:
        steps += 1
        assert steps < 5000
    final = await service.tables.load(rec.id)
    assert final.status == "finished" and final.winner is not None
    assert final.game.phase is Phase.OVER
    log = await service.store.action_log(rec.id)
    assert len(log) == steps == final.version
    assert all(r.by_ai for r in log)
    assert await service.store.history() == [rec.id]


async def test_turn_timer_hands_the_seat_to_the_ai(service: GameService, clock: Clock) -> None:
    tid = await started(service, timer=60)
    rec = await service.tables.load(tid)
    assert rec.deadline == clock.now + 60
    assert await service.play.expire(tid, rec.version) == []  # not yet due
    seat = rec.game.current
    for n in range(1, MAX_TIMEOUTS + 1):
        rec = await service.tables.load(tid)
        while rec.game.current != seat:  # the other human plays their turn by the AI too
            clock.now = (rec.deadline or clock.now) + 1
            await service.play.expire(tid, rec.version)
            rec = await service.tables.load(tid)
        clock.now = (rec.deadline or clock.now) + 1
        outs = await service.play.expire(tid, rec.version)
        assert outs and all(o.timed_out and o.by_ai for o in outs)
        assert outs[-1].turn_changed or outs[-1].handed_to_ai
        after = await service.tables.load(tid)
        assert after.seats[seat].timeouts >= n or after.seats[seat].ai
    assert (await service.tables.load(tid)).seats[seat].ai


async def test_a_timed_out_turn_cut_short_counts_once(service: GameService, clock: Clock,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A write failing while the AI plays a timed-out turn (a full disk; a crash is the
    same): the next pass plays the rest of that turn, and it still counts as one timeout,
    not a second one that hands the seat to the AI for good."""
    tid = await started(service, timer=60)
    rec = await service.tables.load(tid)
    assert rec.deadline is not None
    seat = rec.game.current
    real = service.store.apply
    writes = 0

    async def second_write_fails(*args: Any, **kwargs: Any) -> None:
        nonlocal writes
        writes += 1
        if writes == 2:
            raise OSError("disk full")
        await real(*args, **kwargs)

    monkeypatch.setattr(service.store, "apply", second_write_fails)
    clock.now = rec.deadline + 1
    with pytest.raises(OSError):
        await service.play.expire(tid, rec.version)
    cut = await service.tables.load(tid)
    assert cut.version == rec.version + 1 and cut.game.current == seat  # one move made
    assert cut.seats[seat].timeouts == 1
    outs = await service.play.expire(tid, cut.version)  # the next pass of the timers
    assert outs and not any(o.handed_to_ai for o in outs) and outs[-1].turn_changed
    after = await service.tables.load(tid)
    assert after.seats[seat].timeouts == 1 and not after.seats[seat].ai


async def test_corrupt_row_only_hurts_its_table(service: GameService, store: Store,
                                                tmp_path: Path) -> None:
    t1 = await started(service, channel=1)
    t2 = await started(service, channel=2)
    await database(tmp_path).damage_table(store, t1, state='{"format":1}')
    with pytest.raises(Damaged) as info:
        await service.tables.load(t1)
    assert str(t1) in str(info.value.reason.params)
    rec2 = await service.tables.load(t2)
    user = rec2.seats[rec2.game.current].user
    assert user is not None
    await service.play.act(t2, user, 0, str(legal_actions(rec2.game)[0]))
    assert [t for t, _, _ in await service.play.due()] == []
    with pytest.raises(Refusal):  # only a channel manager may close a damaged table
        await service.lobby.abandon(1, user, manager=False)
    assert await service.lobby.abandon(1, user, manager=True) == t1
    assert await store.active_in_channel(1) is None


def database(tmp_path: Path) -> SqliteBackend:
    """The raw door to the ``store`` fixture's database file."""
    return SqliteBackend(tmp_path / "karak.sqlite3")


#: Damage to ordinary columns (not the game state): (column, stored value).
DAMAGE = [("channel_id", "chan"), ("timer", "soon"), ("deadline", "tomorrow"), ("version", "v"),
          ("seats", "[1"), ("winner", "nobody")]


@pytest.mark.parametrize(("column", "value"), DAMAGE)
async def test_a_damaged_ordinary_column_only_hurts_its_table(
        service: GameService, store: Store, clock: Clock, tmp_path: Path, column: str,
        value: str) -> None:
    t1 = await started(service, channel=1, timer=60)
    t2 = await started(service, channel=2, timer=60)
    await database(tmp_path).damage_table(store, t1, **{column: value})
    with pytest.raises(CorruptTable):
        await store.get(t1)
    with pytest.raises(Damaged):
        await service.tables.load(t1)
    # the turn timers of every other table go on; the damaged one's timer, when its deadline
    # and version still read, runs out into a refusal that touches nothing
    due = dict((t, version) for t, version, _ in await service.play.due())
    assert t2 in due
    assert (t1 in due) == (column not in ("deadline", "version"))
    clock.now += 61
    if t1 in due:
        with pytest.raises(Damaged):
            await service.play.expire(t1, due[t1])
    rec2 = await service.tables.load(t2)
    assert await service.play.expire(t2, rec2.version)


async def test_a_move_taken_back_is_no_move_between_two_timeouts(service: GameService,
                                                                  clock: Clock) -> None:
    """A person who, turn after turn, makes a move, takes it back and lets the timer play the
    turn has had two timeouts in a row all the same: the seat goes to the AI for good. (Kept,
    the AI would play their whole match while they count as never seated, a seat theirs to
    claim with one move of their own once it goes well, and unrated when it does not.)"""
    tid = await started(service, timer=60)
    rec = await service.tables.load(tid)
    seat = rec.game.current
    user = rec.seats[seat].user
    assert user is not None
    for _ in range(MAX_TIMEOUTS):
        rec = await service.tables.load(tid)
        while rec.game.current != seat:  # the other person plays their turns
            state = rec.game
            other = rec.seats[state.current].user
            assert other is not None
            action = make_agent("heuristic", state.step).choose(observe(state, state.current))
            await service.play.act(tid, other, rec.version, str(action), sure=True)
            rec = await service.tables.load(tid)
        state = rec.game
        move = next(a for a in legal_actions(state)
                    if Undo() in observe(apply(state, a)[0], seat).legal)
        await service.play.act(tid, user, rec.version, str(move), sure=True)
        rec = await service.tables.load(tid)
        await service.play.act(tid, user, rec.version, str(Undo()))  # taken back: none
        rec = await service.tables.load(tid)
        assert rec.deadline is not None and not rec.seats[seat].ai
        clock.now = rec.deadline + 1
        assert await service.play.expire(tid, rec.version)
    after = await service.tables.load(tid)
    assert after.seats[seat].ai  # handed to the AI: their turns are no longer theirs to claim
    assert not movers(await service.store.action_log(tid)) & {(seat, user)}
