"""Server tournaments on every backend: sign-ups (once each, only while they are open), a round
seated with its matches in ONE guarded transaction (a second seating of the same round writes
nothing), several matches of one tournament in one channel, a table decided once, a drop, the
end once, and everything read back by a store opened again; a tournament and its rounds'
matches speak the language their server forced, also one forced as they are written."""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager

import pytest

from bot.game.service import GameService
from bot.storage.core.db import Db, Row
from bot.storage.interface import Storage
from bot.storage.records import NewTournamentTable, SeatInfo, ServerDefaults, TournamentRecord
from storage.backends import Backend
from storage.helpers import (
    ANN,
    BOB,
    PLACE,
    Clock,
    before_commit,
    new_tournament,
    played,
    started,
    waits_for_lock,
)

CAT, DAN, EVE = 303, 404, 505


def _tables(*pods: tuple[int, ...]) -> list[NewTournamentTable]:
    heroes = ("horan", "taia", "argentus", "lord")
    out = []
    for pod, users in enumerate(pods, start=1):
        game = played(pod, heroes[:len(users)])
        seats = tuple(SeatInfo(user=u, name=f"P{u}", hero=heroes[i])
                      for i, u in enumerate(users))
        out.append(NewTournamentTable(pod, seats, game.states[0], pod, None))
    return out


async def two_tables_seated(store: Storage) -> tuple[TournamentRecord, list[int]]:
    """A tournament of Ann, Bob, Cat and Dan whose first round seats them at two tables (Ann
    and Bob, Cat and Dan), with no deadline; the tournament and the tables' ids."""
    cup = await new_tournament(store)
    for user in (ANN, BOB, CAT, DAN):
        assert await store.enter(cup.id, user, str(user), 1000)
    ids = await store.seat_tournament_round(cup.id, 0, 11, None, _tables((ANN, BOB), (CAT, DAN)),
                                            None)
    assert ids is not None
    return cup, ids


async def test_sign_up_once_and_only_while_it_is_open(store: Storage, clock: Clock) -> None:
    cup = await new_tournament(store, ai_level="easy", closes_at=clock.now + 60, rounds=2)
    assert cup.status == "signup" and cup.round == 0 and cup.ai_level == "easy"
    assert await store.enter(cup.id, ANN, "Ann", 1500)
    assert not await store.enter(cup.id, ANN, "Ann", 1500)  # once
    assert await store.enter(cup.id, BOB, "Bob", 1400)
    assert await store.enter(cup.id, CAT, "Cat", 1300)
    assert await store.withdraw(cup.id, CAT)
    assert not await store.withdraw(cup.id, CAT)
    rows = await store.tournament_rows(cup.id)
    assert rows is not None and rows.record == cup
    assert [(e.user_id, e.rating) for e in rows.entrants] == [(ANN, 1500), (BOB, 1400)]
    assert await store.cancel_tournament(cup.id)
    assert not await store.enter(cup.id, CAT, "Cat", 1300)  # sign-up is over
    assert not await store.cancel_tournament(cup.id)
    assert await store.tournaments_with_status("cancelled") == [cup.id]
    assert await store.tournaments_of(PLACE, "signup", "running") == []


async def test_a_round_is_seated_once_with_its_tables_in_one_channel(
        store: Storage, fresh: Storage, clock: Clock) -> None:
    cup = await new_tournament(store)
    for user in (ANN, BOB, CAT, DAN):
        assert await store.enter(cup.id, user, str(user), 1000)
    pods = _tables((ANN, BOB), (CAT, DAN))
    ids = await store.seat_tournament_round(cup.id, 0, 11, None, pods, clock.now + 3600,
                                            {ANN: 1600, DAN: 900})
    assert ids is not None and len(ids) == 2
    assert await store.seat_tournament_round(cup.id, 0, 11, None, pods, None) is None  # again
    for tid in ids:
        table = await store.get(tid)
        assert table is not None and table.status == "running" and table.channel_id == 77
        assert table.threaded and table.place_key == PLACE
        assert table.hints is False and table.hints_choice is False  # a rematch's too
        assert await store.tournament_of_table(tid) == cup.id
    assert await store.tournament_of_table(-5) is None
    # the round's end, by match (a table of no tournament left out)
    assert await store.round_ends([*ids, -5]) == dict.fromkeys(ids, clock.now + 3600)
    assert [t.id for t in await store.running_of(CAT)] == [ids[1]]
    assert await store.decide_tournament_table(cup.id, 1, 1, [2, 1], False)
    assert not await store.decide_tournament_table(cup.id, 1, 1, [1, 2], True)  # once
    assert await store.drop_entrant(cup.id, DAN)
    assert not await store.drop_entrant(cup.id, DAN)
    await store.set_tournament_messages(cup.id, standings_message_id=55)
    rows = await fresh.tournament_rows(cup.id)  # what a restarted bot reads
    assert rows is not None
    assert rows.record.status == "running" and rows.record.round == 1
    assert rows.record.deadline == clock.now + 3600 and rows.record.standings_message_id == 55
    assert [(e.user_id, e.rating, e.dropped_after) for e in rows.entrants] == [
        (ANN, 1600, None), (BOB, 1000, None), (CAT, 1000, None), (DAN, 900, 1)]
    assert [(r.round, r.seed, r.bye_user) for r in rows.rounds] == [(1, 11, None)]
    assert [(t.pod, t.table_id, t.seats, t.places, t.decided) for t in rows.tables] == [
        (1, ids[0], (ANN, BOB), (2, 1), True), (2, ids[1], (CAT, DAN), (None, None), False)]
    assert not await store.finish_tournament(cup.id, 2)  # not at that round
    assert await store.finish_tournament(cup.id, 1)
    assert await store.round_ends(ids) == {}  # over: no round ends any more
    assert not await store.finish_tournament(cup.id, 1)
    assert await store.tournaments_with_status("finished") == [cup.id]


async def test_the_seat_that_abandoned_a_match_is_kept_on_its_tournament_table(
        store: Storage, fresh: Storage, clock: Clock) -> None:
    """A tournament's match abandoned by a person seated there keeps their seat on its row of
    the tournament (they take its last place), read back by a store opened again."""
    cup, ids = await two_tables_seated(store)
    first = await store.get(ids[0])
    assert first is not None
    await store.abandon(first.id, first.version, forfeit=1)
    rows = await fresh.tournament_rows(cup.id)
    assert rows is not None
    assert [(t.table_id, t.forfeit) for t in rows.tables] == [(ids[0], 1), (ids[1], None)]


async def test_a_tournament_decided_by_its_deadlines_after_a_restart(
        backend: Backend, store: Storage, fresh: Storage, clock: Clock) -> None:
    seeds = iter(range(1, 1000))
    service = GameService(store, clock=clock, seeds=lambda: next(seeds))
    cup = await service.tournaments.create(guild_id=9, channel_id=77, host_id=ANN, name="Cup",
                                           rounds=2, ai_level="easy", round_span=600)
    for user in (ANN, BOB, CAT, DAN, EVE):
        await service.tournaments.join(cup.id, user, str(user))
    first = await service.tournaments.start(cup.id, ANN)
    assert first.opened is not None
    assert [len(t.seats) for t in first.opened.tables] == [4, 4]  # AI seats fill them
    clock.now += 600
    restarted = GameService(fresh, clock=clock, seeds=lambda: 5)  # a bot started again
    if backend.shared:  # and, where two processes may share the database, one more
        passes = await asyncio.gather(restarted.tournaments.sweep(),
                                      service.tournaments.sweep())
    else:
        passes = (await restarted.tournaments.sweep(),)
    moved = [p for found in passes for p in found]
    assert sorted((d.pod, d.result.at_deadline) for p in moved for d in p.decided) == [
        (1, True), (2, True)]
    (second,) = [p for p in moved if p.opened is not None]  # seated once
    assert second.record.round == 2
    assert await restarted.tournaments.sweep() == []
    clock.now += 600
    (final,) = await restarted.tournaments.sweep()
    assert final.champion is not None and final.record.status == "finished"
    assert sum(s.played for s in final.standings) == 10
    assert await restarted.tournaments.sweep() == []


async def test_two_tournaments_opened_at_once_in_one_channel_make_one(
        store: Storage, fresh: Storage) -> None:
    """Two tournaments opened in one channel at the same moment, by two processes: one is
    opened, the other refused (None, nothing written); another channel takes one all the
    same, and so does this one once its tournament is over."""
    opened = await asyncio.gather(new_opening(store, "Spring Cup"),
                                  new_opening(fresh, "Winter Cup"))
    assert sum(cup is not None for cup in opened) == 1
    assert len(await store.tournaments_of(PLACE, "signup", "running", "cancelled")) == 1
    assert await new_opening(store, "Autumn Cup") is None
    assert await new_opening(store, "Far Cup", channel_id=78) is not None
    cup = next(c for c in opened if c is not None)
    assert await store.cancel_tournament(cup.id)
    assert await new_opening(fresh, "Autumn Cup") is not None


async def test_a_tournament_opened_while_another_is_written_in_its_channel_waits_for_it(
        backend: Backend, store: Storage, fresh: Storage,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process opens a tournament in the channel while the first one's row is written
    and not yet committed (PostgreSQL's READ COMMITTED would let its check miss that row):
    it waits for the first transaction, then finds the channel taken."""
    own = store._tx  # type: ignore[attr-defined]
    other: list[asyncio.Task[TournamentRecord | None]] = []

    class Hooked:
        """A transaction that starts the other opening once its own row is written."""

        def __init__(self, db: Db) -> None:
            self.db = db

        async def fetchrow(self, sql: str, *args: object) -> Row | None:
            row = await self.db.fetchrow(sql, *args)
            if sql.startswith("INSERT INTO tournaments") and not other:
                other.append(asyncio.ensure_future(new_opening(fresh, "Winter Cup")))
                while backend.shared and not other[0].done() and not await waits_for_lock(store):
                    await asyncio.sleep(0)  # until it waits for the lock (or got through)
            return row

        async def execute(self, sql: str, *args: object) -> int:
            return await self.db.execute(sql, *args)

    @asynccontextmanager
    async def tx() -> AsyncIterator[object]:
        async with own() as db:
            yield Hooked(db)

    monkeypatch.setattr(store, "_tx", tx)
    assert await new_opening(store, "Spring Cup") is not None
    monkeypatch.setattr(store, "_tx", own)
    assert await other[0] is None
    assert [t.name for t in await fresh.tournaments_of(PLACE, "signup")] == ["Spring Cup"]


async def new_opening(store: Storage, name: str, channel_id: int = 77
                      ) -> TournamentRecord | None:
    """A tournament named ``name`` opened in ``channel_id``, or None when it holds one."""
    return await store.create_tournament(
        guild_id=9, place_key=PLACE, channel_id=channel_id, host_id=ANN, name=name,
        rounds=None, table_size=4, timer=0, abilities=False, ai_level=None, round_span=0,
        closes_at=None, seed=5, locale="en")


async def test_a_sign_up_past_the_limit_is_refused_in_the_same_step(store: Storage) -> None:
    cup = await new_tournament(store)
    assert await store.enter(cup.id, ANN, "Ann", 1500, limit=2)
    assert await store.enter(cup.id, BOB, "Bob", 1400, limit=2)
    assert not await store.enter(cup.id, CAT, "Cat", 1300, limit=2)  # full
    assert await store.enter(cup.id, CAT, "Cat", 1300)  # no limit given
    rows = await store.tournament_rows(cup.id)
    assert rows is not None and [e.user_id for e in rows.entrants] == [ANN, BOB, CAT]


async def test_a_servers_language_moves_its_tournaments_under_way_only(
        store: Storage, fresh: Storage) -> None:
    signup = await new_tournament(store)
    running = await new_tournament(store, name="Winter Cup", channel_id=78)
    done = await new_tournament(store, name="Spring Cup", channel_id=79)
    elsewhere = await new_tournament(store, name="Far Cup", guild_id=10, channel_id=80)
    for user in (ANN, BOB):
        assert await store.enter(running.id, user, str(user), 1000)
    match = await store.seat_tournament_round(running.id, 0, 11, None, _tables((ANN, BOB)),
                                              None)
    assert match is not None
    assert await store.cancel_tournament(done.id)
    assert await store.relocalise_guild(9, ServerDefaults(), "fr", "fr") == (
        match, sorted([signup.id, running.id]))  # the round's match with its tournament
    assert await store.relocalise_guild(9, None, "fr", "fr") == ([], [])  # already in French
    locales = {cup.id: (await fresh.tournament(cup.id)) for cup in (signup, running, done,
                                                                     elsewhere)}
    assert {k: v.locale for k, v in locales.items() if v is not None} == {
        signup.id: "fr", running.id: "fr", done.id: "en", elsewhere.id: "en"}


async def test_a_tournament_opened_where_the_server_forced_a_language_speaks_it(
        store: Storage, fresh: Storage) -> None:
    """A tournament opened in the server's language in Discord (English) on a server whose
    admins forced French speaks French, read as it is written; one opened where the server
    forced none speaks the language it was given."""
    await store.relocalise_guild(9, ServerDefaults(), "fr", "fr")
    cup = await new_tournament(store, locale="en")
    assert cup.locale == "fr"
    assert (await fresh.tournament(cup.id)).locale == "fr"  # type: ignore[union-attr]
    elsewhere = await new_tournament(store, guild_id=10, channel_id=78, locale="cs")
    assert elsewhere.locale == "cs"


async def test_a_round_seated_as_another_process_changes_the_language_speaks_the_new_one(
        backend: Backend, store: Storage, fresh: Storage,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process forces French on the server while a tournament's first round is seated
    here: the seating waits for the change's transaction to end (PostgreSQL's READ COMMITTED
    would let it read the tournament's former language and open its matches in it, while the
    change, which cannot see those uncommitted matches, changes the tournament alone), then
    opens its matches in French, with their tournament."""
    theirs = fresh if backend.shared else store  # SQLite: one process holds the file
    cup = await new_tournament(store)
    for user in (ANN, BOB):
        assert await store.enter(cup.id, user, str(user), 1000)
    running = await started(store, played(1).states[0], channel=1)  # one the change writes
    # the round seated while the language is written, not yet committed
    seating = before_commit(monkeypatch, theirs, store, backend.shared,
                            lambda: store.seat_tournament_round(cup.id, 0, 11, None,
                                                                _tables((ANN, BOB)), None))
    assert await theirs.relocalise_guild(9, ServerDefaults(), "fr", "fr") == (
        [running.id], [cup.id])
    ids = await seating[0]
    assert ids is not None
    assert [(await fresh.get(i)).locale for i in ids] == ["fr"]  # type: ignore[union-attr]
    assert (await fresh.tournament(cup.id)).locale == "fr"  # type: ignore[union-attr]


async def test_the_tournaments_of_a_deleted_channel_are_cancelled(store: Storage,
                                                                  clock: Clock) -> None:
    done = await new_tournament(store, name="Old Cup")
    assert await store.cancel_tournament(done.id)
    running = await new_tournament(store)
    for user in (ANN, BOB):
        assert await store.enter(running.id, user, str(user), 1000)
    assert await store.seat_tournament_round(running.id, 0, 11, None, _tables((ANN, BOB)),
                                             clock.now + 3600) is not None
    signup = await new_tournament(store, name="Winter Cup", channel_id=79)
    elsewhere = await new_tournament(store, channel_id=78)
    assert await store.cancel_tournaments_in(77) == [running.id]
    assert await store.cancel_tournaments_in(77) == []  # once
    assert await store.cancel_tournaments_in(79) == [signup.id]
    for cup, status in ((running, "cancelled"), (signup, "cancelled"), (elsewhere, "signup"),
                        (done, "cancelled")):
        found = await store.tournament(cup.id)
        assert found is not None and found.status == status
    found = await store.tournament(running.id)
    assert found is not None and found.deadline is None and found.round == 1
    assert await store.seat_tournament_round(running.id, 1, 12, None, _tables((ANN, BOB)),
                                             None) is None  # no round seated after


async def test_of_a_tournaments_matches_in_one_channel_each_player_finds_theirs(
        store: Storage, clock: Clock) -> None:
    """A round's matches played in the tournament's channel itself (threads turned off): the
    channel's table for a player is the one they sit at, for anyone else the oldest."""
    cup, ids = await two_tables_seated(store)
    assert await store.active_in_channel(77) == ids[0]
    assert await store.active_in_channel(77, DAN) == ids[1]
    assert await store.active_in_channel(77, ANN) == ids[0]
    assert await store.active_in_channel(77, EVE) == ids[0]


async def test_a_round_seating_a_player_who_dropped_meanwhile_is_not_seated(
        store: Storage, clock: Clock) -> None:
    """Round 2 was drawn while Dan was still in, and Dan dropped out before it was written:
    nothing is written (the round is drawn again); drawn without him, it is seated. A drop
    saved after a round was seated counts the rounds seated by then."""
    cup, ids = await two_tables_seated(store)
    for pod in (1, 2):
        assert await store.decide_tournament_table(cup.id, 1, pod, [1, 2], False)
    assert await store.drop_entrant(cup.id, DAN)
    assert await store.seat_tournament_round(cup.id, 1, 12, None, _tables((ANN, CAT), (BOB, DAN)),
                                             None) is None
    assert await store.seat_tournament_round(cup.id, 1, 12, DAN, _tables((ANN, BOB, CAT)),
                                             None) is None  # nor given the bye
    assert await store.seat_tournament_round(cup.id, 1, 12, None, _tables((ANN, BOB, CAT)),
                                             None) is not None
    assert await store.drop_entrant(cup.id, CAT)
    rows = await store.tournament_rows(cup.id)
    assert rows is not None and rows.record.round == 2
    assert [(e.user_id, e.dropped_after) for e in rows.entrants] == [
        (ANN, None), (BOB, None), (CAT, 2), (DAN, 1)]


async def test_a_first_round_drawn_before_a_sign_up_or_a_leave_is_not_seated(
        store: Storage) -> None:
    """The first round was drawn with Ann, Bob, Cat and Dan; Dan left (or Eve signed up)
    before it was written: nothing is written (the round is drawn again); drawn with the
    entrants as they are, it is seated."""
    cup = await new_tournament(store)
    for user in (ANN, BOB, CAT, DAN):
        assert await store.enter(cup.id, user, str(user), 1000)
    drawn = _tables((ANN, BOB), (CAT, DAN))
    assert await store.withdraw(cup.id, DAN)
    assert await store.seat_tournament_round(cup.id, 0, 11, None, drawn, None) is None
    assert await store.enter(cup.id, DAN, str(DAN), 1000)
    assert await store.enter(cup.id, EVE, str(EVE), 1000)
    assert await store.seat_tournament_round(cup.id, 0, 11, None, drawn, None) is None
    assert await store.seat_tournament_round(cup.id, 0, 11, EVE, drawn, None) is not None


class _Seating:
    """A store whose transactions run ``meanwhile`` (once) right after a read of a
    tournament's entrants, then give it time to get as far as it can."""

    def __init__(self, store: Storage, meanwhile: Callable[[], Awaitable[bool]]) -> None:
        self.store = store
        self.meanwhile = meanwhile
        self.task: asyncio.Task[bool] | None = None
        self.own = store._tx  # type: ignore[attr-defined]

    @asynccontextmanager
    async def tx(self) -> AsyncIterator[Db]:
        async with self.own() as db:
            yield _Hooked(db, self)


class _Hooked:
    """A transaction's connection that starts :attr:`_Seating.meanwhile` after it read the
    entrants."""

    def __init__(self, db: Db, seating: _Seating) -> None:
        self.db = db
        self.seating = seating

    async def fetch(self, sql: str, *args: object) -> list[Row]:
        rows = await self.db.fetch(sql, *args)
        if "FROM tournament_entrants" in sql and self.seating.task is None:
            self.seating.task = asyncio.ensure_future(self.seating.meanwhile())
            await asyncio.sleep(0.5)  # the other process gets as far as it can
        return rows

    async def fetchrow(self, sql: str, *args: object) -> Row | None:
        return await self.db.fetchrow(sql, *args)

    async def execute(self, sql: str, *args: object) -> int:
        return await self.db.execute(sql, *args)

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        await self.db.executemany(sql, rows)


async def test_a_leave_while_the_first_round_is_written_waits_and_finds_sign_up_over(
        store: Storage, fresh: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process's leave (or sign-up) comes while the first round is being written,
    after it read the entrants: it waits for the round, then finds sign-up over; the round
    seats the entrants it read, and they stay entrants."""
    for channel, change in enumerate(("leave", "sign-up"), start=77):
        cup = await new_tournament(store, channel_id=channel)
        for user in (ANN, BOB, CAT, DAN):
            assert await store.enter(cup.id, user, str(user), 1000)

        async def meanwhile(tid: int = cup.id, change: str = change) -> bool:
            if change == "leave":
                return await fresh.withdraw(tid, DAN)
            return await fresh.enter(tid, EVE, str(EVE), 1000)

        seating = _Seating(store, meanwhile)
        monkeypatch.setattr(store, "_tx", seating.tx)
        assert await store.seat_tournament_round(cup.id, 0, 11, None,
                                                 _tables((ANN, BOB), (CAT, DAN)), None)
        monkeypatch.setattr(store, "_tx", seating.own)
        assert seating.task is not None and not await seating.task
        rows = await store.tournament_rows(cup.id)
        assert rows is not None and [e.user_id for e in rows.entrants] == [ANN, BOB, CAT, DAN]


async def test_a_match_is_closed_at_its_round_s_deadline_only_as_it_stood(
        store: Storage) -> None:
    """Closing a match at its round's deadline keeps its places and closes it in one step,
    guarded by the version and revision the places were taken at: once a move came in, or
    the seats changed, nothing is written; a table decided already is closed, its places kept
    as they were."""
    cup, ids = await two_tables_seated(store)
    table = await store.get(ids[0])
    assert table is not None
    for version, revision in ((table.version + 1, table.revision),
                              (table.version, table.revision + 1)):
        assert not await store.close_at_deadline(cup.id, 1, 1, [2, 1], ids[0], version,
                                                 revision)
    rows = await store.tournament_rows(cup.id)
    assert rows is not None and not rows.tables[0].decided
    assert (await store.get(ids[0])).status == "running"  # type: ignore[union-attr]
    assert await store.close_at_deadline(cup.id, 1, 1, [2, 1], ids[0], table.version,
                                         table.revision)
    assert not await store.close_at_deadline(cup.id, 1, 1, [1, 2], ids[0], table.version,
                                             table.revision + 1)
    assert await store.decide_tournament_table(cup.id, 1, 2, [1, 2], False)
    other = await store.get(ids[1])
    assert other is not None
    assert not await store.close_at_deadline(cup.id, 1, 2, [2, 1], ids[1], other.version,
                                             other.revision)
    rows = await store.tournament_rows(cup.id)
    assert rows is not None
    assert [(t.places, t.decided, t.at_deadline) for t in rows.tables] == [
        ((2, 1), True, True), ((1, 2), True, False)]
    for tid in ids:
        closed = await store.get(tid)
        assert closed is not None and closed.status == "abandoned"
        assert await store.result_of(tid) is None  # not rated
