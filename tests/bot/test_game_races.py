"""Two processes on one PostgreSQL database: another process writes a table between the moment
an AI seat's move (or a timed-out turn) read it and the moment it writes. The table's lock only
serialises one process, so the store refuses the write (a stale version); the AI reads the table
again and plays on from where it is, or stops without a word when the move is no longer its
own. Likewise another process starts a match of the same person between the moment a start
counted their matches and the moment it writes: the person's limit of matches at once holds;
or it changes the server's language as a rematch is offered or opened, or a tournament
opened: the offer, the rematch and the tournament speak the new language. The other
process's write comes in at a fixed point (just before the first write), not by timing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from storage.backends import Backend, PostgresBackend, SqliteBackend
from storage.helpers import ANN, BOB, Clock, Game, finished, played, started
from test_game_tournaments import play_out

from bot.game.limits import MATCH_LIMIT, TooMany
from bot.game.places import Place
from bot.game.play import Play
from bot.game.service import GameService
from bot.game.tables import Tables
from bot.storage.interface import Storage
from bot.storage.records import SeatInfo, ServerDefaults, TableRecord, TournamentRecord
from bot.workers.thinking import Thinking

#: Every seat played by the AI at easy level.
AI_SEATS = tuple(SeatInfo(ai=True, hero=h, level="easy") for h in ("horan", "taia", "argentus"))


class Meddled:
    """A store whose next write first lets ``meddle`` (another process's write) in."""

    def __init__(self, store: Storage) -> None:
        self.store = store
        self.meddle: Callable[[], Awaitable[None]] | None = None
        self.writes = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def _first(self) -> None:
        """Let the meddling write in when one is due, and count the write that follows."""
        meddle, self.meddle = self.meddle, None
        if meddle is not None:
            await meddle()
        self.writes += 1

    async def apply(self, *args: Any, **kwargs: Any) -> None:
        """The write, after the meddling one when one is due."""
        await self._first()
        await self.store.apply(*args, **kwargs)

    async def create_table(self, *args: Any, **kwargs: Any) -> TableRecord:
        """A new table, after the meddling write when one is due."""
        await self._first()
        return await self.store.create_table(*args, **kwargs)

    async def save_rematch(self, *args: Any, **kwargs: Any) -> bool:
        """A rematch offer written, after the meddling write when one is due."""
        await self._first()
        return bool(await self.store.save_rematch(*args, **kwargs))

    async def create_tournament(self, *args: Any, **kwargs: Any) -> TournamentRecord | None:
        """A new tournament, after the meddling write when one is due."""
        await self._first()
        return await self.store.create_tournament(*args, **kwargs)

    async def start_game(self, *args: Any, **kwargs: Any) -> None:
        """A match's start, after the meddling write when one is due."""
        await self._first()
        await self.store.start_game(*args, **kwargs)


async def _force_french(other: GameService) -> None:
    """/goblin settings language:fr on server 9, by ``other`` (another process): it finds no
    table of the server to change."""
    changed = await other.servers.change_settings(9, True, language="fr")
    assert changed.forced_locale == "fr" and not changed.relocalised


@pytest.fixture
def backend(postgres_server: Any) -> PostgresBackend:
    return PostgresBackend(postgres_server)


@pytest.fixture(params=("postgres", "sqlite"))
def any_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """Each backend: PostgreSQL, where two processes share the database, and SQLite, where
    one process holds it (its "other process" is a second service on the same store)."""
    if request.param == "postgres":
        return PostgresBackend(request.getfixturevalue("postgres_server"))
    return SqliteBackend(tmp_path / "karak.sqlite3")


def play_on(store: Meddled, clock: Clock) -> Play:
    """This process's moves over ``store``."""
    tables = Tables(store)
    return Play(store, tables, Thinking(workers=0), clock)


def other_writes(theirs: Storage, table_id: int, game: Game, index: int,
                 deadline: float | None = None) -> Callable[[], Awaitable[None]]:
    """The other process plays move ``index`` of ``game`` at ``table_id``."""
    async def write() -> None:
        record = await theirs.get(table_id)
        assert record is not None and record.game == game.states[index]
        await theirs.apply(table_id, record.version, game.states[index + 1],
                           game.log_row(index), deadline=deadline)
    return write


def first(game: Game, found: Callable[[int], bool]) -> int:
    """The first move index of ``game`` for which ``found`` holds."""
    return next(i for i in range(len(game.moves) - 1) if found(i))


def same_turn(game: Game, i: int) -> bool:
    """True when move ``i`` leaves the same seat's same turn going."""
    a, b = game.states[i], game.states[i + 1]
    return (a.round, a.turn, a.current) == (b.round, b.turn, b.current)


async def test_an_ai_move_read_before_another_process_wrote_is_made_again(
        backend: PostgresBackend, clock: Clock) -> None:
    game = played(1)
    mine, theirs = await backend.open(clock), await backend.open(clock)
    try:
        tid = (await started(mine, game.states[0], seats=AI_SEATS)).id
        store = Meddled(mine)
        store.meddle = other_writes(theirs, tid, game, 0)
        outcome = await play_on(store, clock).ai_step(tid)
        assert outcome is not None and outcome.by_ai  # played on from the other's move
        assert outcome.before == game.states[1] and outcome.record.version == 2
        assert store.writes == 2  # the refused write, and the one made again
        log = await mine.action_log(tid)
        assert [r.action for r in log][:1] == [game.moves[0][1]] and len(log) == 2
    finally:
        await mine.close()
        await theirs.close()


async def test_an_ai_move_another_process_made_meanwhile_is_not_made_twice(
        backend: PostgresBackend, clock: Clock) -> None:
    game = played(1)
    i = first(game, lambda i: game.states[i + 1].current != game.states[i].current)
    ai = game.states[i].current  # whose move i ends their turn
    seats = tuple(AI_SEATS[s] if s == ai else SeatInfo(user=1000 + s, name=f"P{s}", hero=h)
                  for s, h in enumerate(("horan", "taia", "argentus")))
    mine, theirs = await backend.open(clock), await backend.open(clock)
    try:
        tid = (await started(mine, game.states[i], seats=seats)).id
        store = Meddled(mine)
        store.meddle = other_writes(theirs, tid, game, i)
        assert await play_on(store, clock).ai_step(tid) is None  # a person's turn now
        assert store.writes == 1  # the refused write only
        assert [r.action for r in await mine.action_log(tid)] == [game.moves[i][1]]
    finally:
        await mine.close()
        await theirs.close()


async def test_a_timed_out_turn_another_process_moved_in_is_played_on(
        backend: PostgresBackend, clock: Clock) -> None:
    game = played(1)
    i = first(game, lambda i: same_turn(game, i))  # the person's turn goes on after move i
    person = game.states[i].current
    seats = tuple(SeatInfo(user=(ANN, BOB, 303)[s], name=f"P{s}", hero=h)
                  for s, h in enumerate(("horan", "taia", "argentus")))
    mine, theirs = await backend.open(clock), await backend.open(clock)
    try:
        rec = await mine.create_table(guild_id=9, place_key=Place.server(9).key, channel_id=1,
                                      host_id=ANN, seats=seats,
                                      abilities=False, timer=60, seed=game.states[0].config.seed)
        due = clock.now - 1
        await mine.start_game(rec.id, seats, game.states[i], due)
        store = Meddled(mine)
        # the person's move, handled by the other process as the time ran out
        store.meddle = other_writes(theirs, rec.id, game, i, deadline=due)
        out = await play_on(store, clock).expire(rec.id, 0)
        assert out and all(o.timed_out and o.seat == person for o in out)
        assert out[0].before == game.states[i + 1]  # from where the other process left it
        assert out[-1].turn_changed  # the rest of the turn was played
        now = await mine.get(rec.id)
        assert now is not None and now.seats[person].timeouts == 1
        assert len(await mine.action_log(rec.id)) == 1 + len(out)
    finally:
        await mine.close()
        await theirs.close()


async def test_a_timed_out_turn_never_writes_back_a_person_another_process_forgot(
        backend: PostgresBackend, clock: Clock) -> None:
    game = played(1)
    i = first(game, lambda i: same_turn(game, i))
    person = game.states[i].current
    gone = next(s for s in range(3) if s != person)  # forgotten meanwhile, elsewhere
    users = (ANN, BOB, 303)
    seats = tuple(SeatInfo(user=users[s], name=f"P{s}", hero=h)
                  for s, h in enumerate(("horan", "taia", "argentus")))
    mine, theirs = await backend.open(clock), await backend.open(clock)
    try:
        rec = await mine.create_table(guild_id=9, place_key=Place.server(9).key, channel_id=1,
                                      host_id=users[person], seats=seats, abilities=False,
                                      timer=60, seed=game.states[0].config.seed)
        await mine.start_game(rec.id, seats, game.states[i], clock.now - 1)
        store = Meddled(mine)

        async def forget() -> None:  # /goblin forget-me answered by the other process
            await GameService(theirs, clock=clock).people.forget(users[gone])
        store.meddle = forget
        out = await play_on(store, clock).expire(rec.id, 0)
        assert out and all(o.seat == person for o in out)
        now = await mine.get(rec.id)
        assert now is not None
        assert now.seats[gone].ai and now.seats[gone].user != users[gone]
        assert now.seats[gone].name == ""
        assert await mine.running_of(users[gone]) == []  # nothing leads to them
    finally:
        await mine.close()
        await theirs.close()



async def test_a_person_s_move_read_before_another_process_changed_the_language_is_made(
        backend: PostgresBackend, clock: Clock) -> None:
    """Another process changes the server's language (the table's revision, not its version)
    between the read of a person's click and its write: the click still stands, so its move
    is checked and made on the table as it is, not refused as already played."""
    game = played(1)
    i = 0
    person = game.states[i].current
    seats = tuple(SeatInfo(user=(ANN, BOB, 303)[s], name=f"P{s}", hero=h)
                  for s, h in enumerate(("horan", "taia", "argentus")))
    mine, theirs = await backend.open(clock), await backend.open(clock)
    try:
        rec = await started(mine, game.states[i], seats=seats, guild=9)
        store = Meddled(mine)

        async def relocalise() -> None:  # /goblin settings language:fr, in the other process
            await theirs.relocalise_guild(9, ServerDefaults(), "fr", "fr")
        store.meddle = relocalise
        out = await play_on(store, clock).act(rec.id, seats[person].user or 0, rec.version,
                                              game.moves[i][1], channel_id=1,
                                              place_key=Place.server(9).key)
        assert out.before == game.states[i] and out.record.version == rec.version + 1
        assert out.record.locale == "fr"  # shown in the language now set
        assert store.writes == 2  # the refused write, and the one made again
    finally:
        await mine.close()
        await theirs.close()


async def _round_at_its_deadline(service: GameService, clock: Clock) -> tuple[int, int]:
    """A cup of three people (users 1, 2, 3) at one table of three, its one round of an hour
    begun and its deadline passed before anyone moved: the cup's id and its match's."""
    cup = await service.tournaments.create(guild_id=9, channel_id=500, host_id=1,
                                           name="Goblin Cup", table_size=3, rounds=1,
                                           round_span=3600)
    for user in (1, 2, 3):
        await service.tournaments.join(cup.id, user, f"P{user}")
    first = await service.tournaments.start(cup.id, 1)
    assert first.opened is not None
    clock.now += 3600
    return cup.id, first.opened.tables[0].id


def closing_meddled(monkeypatch: pytest.MonkeyPatch, store: Storage,
                    theirs: Callable[[], Awaitable[object]]) -> None:
    """The next close of a match at its round's deadline lets ``theirs`` in first."""
    pending = [theirs]
    original = store.close_at_deadline

    async def close(*args: Any, **kwargs: Any) -> bool:
        if pending:
            await pending.pop()()
        return await original(*args, **kwargs)
    monkeypatch.setattr(store, "close_at_deadline", close)


@pytest.mark.parametrize("change", ["leave", "forget"])
async def test_a_seat_changed_by_another_process_as_the_deadline_closes_the_match_counts(
        backend: PostgresBackend, clock: Clock, monkeypatch: pytest.MonkeyPatch,
        change: str) -> None:
    """Another process hands player 2's seat to the AI (they left the match, or asked to be
    forgotten) between the moment the round's deadline read their match and the moment it
    closes it: the close is made again on the seats as they are, so player 2 is last, and a
    forgotten person's id is kept nowhere in the places decided."""
    mine, theirs = await backend.open(clock), await backend.open(clock)
    try:
        service = GameService(mine, clock=clock, seeds=lambda: 7)
        other = GameService(theirs, clock=clock, seeds=lambda: 8)
        cup, table = await _round_at_its_deadline(service, clock)

        async def meddle() -> None:
            if change == "leave":
                await other.lobby.leave(table, 2)
            else:
                await other.people.forget(2)
        closing_meddled(monkeypatch, mine, meddle)
        [progress] = await service.tournaments.sweep()
        [decided] = progress.decided
        assert decided.result.at_deadline
        places = dict(decided.result.places)
        gone = 2 if change == "leave" else next(u for u in places if u not in (1, 3))
        assert places == {1: 1, 3: 1, gone: 3}
        assert gone == 2 or gone < 0  # the pseudonym, never the forgotten id
        rows = await mine.tournament_rows(cup)
        assert rows is not None
        [stored] = rows.tables
        assert stored.places[stored.seats.index(gone)] == 3
    finally:
        await mine.close()
        await theirs.close()


async def test_a_match_ended_before_the_pass_counts_a_person_forgotten_meanwhile_by_pseudonym(
        backend: PostgresBackend, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Player 2's match ended before the round's pass; another process forgets player 2
    after the pass read the tournament and before it decides the match: the places the pass
    hands on (to the standings, the champion's post) hold the pseudonym, as the stored ones
    do, never the forgotten id."""
    mine, theirs = await backend.open(clock), await backend.open(clock)
    try:
        service = GameService(mine, clock=clock, seeds=lambda: 7)
        other = GameService(theirs, clock=clock, seeds=lambda: 8)
        cup, table = await _round_at_its_deadline(service, clock)
        clock.now -= 3600  # played out within the round's hour
        assert (await play_out(service, table)).status == "finished"
        pending = [2]
        result_of = mine.result_of

        async def forgotten_first(table_id: int) -> Any:
            while pending:
                await other.people.forget(pending.pop())
            return await result_of(table_id)
        monkeypatch.setattr(mine, "result_of", forgotten_first)
        [progress] = await service.tournaments.sweep()
        [decided] = progress.decided
        assert not pending and not decided.result.at_deadline
        places = dict(decided.result.places)
        rows = await mine.tournament_rows(cup)
        assert rows is not None
        [stored] = rows.tables
        assert places == dict(zip(stored.seats, stored.places, strict=True))
        assert 2 not in places and min(places) < 0  # the pseudonym, never the forgotten id
        assert 2 not in [s.user for s in progress.standings]
    finally:
        await mine.close()
        await theirs.close()


async def _lobby(service: GameService, channel: int) -> int:
    """Ann's lobby in ``channel`` of server 9, with an AI seat."""
    record = await service.lobby.create(guild_id=9, channel_id=channel, host_id=ANN,
                                        host_name="Ann")
    await service.lobby.add_ai(record.id, ANN)
    return record.id


async def test_two_starts_of_one_person_in_two_processes_leave_them_at_the_limit(
        any_backend: Backend, clock: Clock) -> None:
    """Ann starts two matches at the same moment, one below the limit of matches at once, each
    Start answered by another process (two servers on two shards): the other process's start
    is written between the moment this one counted her matches and the moment it writes. Only
    one starts; the other is refused with the limit and its lobby waits, nothing lost."""
    mine = await any_backend.open(clock)
    theirs = await any_backend.open(clock) if any_backend.shared else mine
    try:
        store = Meddled(mine)
        service = GameService(store, clock=clock)  # type: ignore[arg-type]
        other = GameService(theirs, clock=clock)  # its own locks, as another process's
        for channel in range(100, 100 + MATCH_LIMIT - 1):
            await service.lobby.start(await _lobby(service, channel), ANN)
        here, there = await _lobby(service, 1), await _lobby(service, 2)

        async def start_there() -> None:  # Ann's other Start, answered by the other process
            await other.lobby.start(there, ANN)
        store.meddle = start_there
        with pytest.raises(TooMany) as refused:
            await service.lobby.start(here, ANN)
        assert refused.value.count == MATCH_LIMIT and refused.value.limit == MATCH_LIMIT
        assert (await service.tables.load(there)).status == "running"
        assert (await service.tables.load(here)).status == "lobby"  # it waits
        assert await service.limit.playing(ANN) == MATCH_LIMIT
    finally:
        await mine.close()
        if theirs is not mine:
            await theirs.close()


async def test_a_rematch_opened_as_another_process_changes_the_language_speaks_the_new_one(
        any_backend: Backend, clock: Clock) -> None:
    """Ann, alone with the AI, clicks Rematch as the server's admins force French, answered by
    another process: the language is changed between the moment her rematch read the server's
    language and the moment it opens its table. The rematch speaks French all the same (that
    process's change found no table of it to change)."""
    mine = await any_backend.open(clock)
    theirs = await any_backend.open(clock) if any_backend.shared else mine
    try:
        alone = (SeatInfo(user=ANN, name="Ann", hero="horan"), *AI_SEATS[1:])
        tid = await finished(mine, 2, channel=1, guild=9, seats=alone)
        store = Meddled(mine)
        service = GameService(store, clock=clock)  # type: ignore[arg-type]
        other = GameService(theirs, clock=clock)

        store.meddle = partial(_force_french, other)
        state = await service.rematches.offer(tid, ANN)
        assert state.started is not None and store.writes >= 1
        assert state.started.locale == "fr"
        assert (await mine.get(state.started.id)).locale == "fr"  # type: ignore[union-attr]
    finally:
        await mine.close()
        if theirs is not mine:
            await theirs.close()


async def test_a_rematch_offered_as_another_process_changes_the_language_speaks_the_new_one(
        any_backend: Backend, clock: Clock) -> None:
    """Ann clicks Rematch on a match she played with Bob as the server's admins force French,
    answered by another process: the language is changed between the moment her click read
    the finished table and the moment it writes the offer (that change found no open offer to
    change). The offer speaks French, as one made a moment later would, and so does what it
    is drawn from, now and when it is drawn again."""
    mine = await any_backend.open(clock)
    theirs = await any_backend.open(clock) if any_backend.shared else mine
    try:
        tid = await finished(mine, 2, channel=1, guild=9)
        store = Meddled(mine)
        service = GameService(store, clock=clock)  # type: ignore[arg-type]
        other = GameService(theirs, clock=clock)

        store.meddle = partial(_force_french, other)
        state = await service.rematches.offer(tid, ANN)
        assert state.started is None and store.writes == 1
        assert state.record.locale == "fr"  # the offer posted now
        now = await service.rematches.now(tid)
        assert now is not None and now.record.locale == "fr"  # and each redraw
    finally:
        await mine.close()
        if theirs is not mine:
            await theirs.close()


async def test_a_tournament_opened_as_another_process_changes_the_language_speaks_the_new_one(
        any_backend: Backend, clock: Clock) -> None:
    """Ann opens a tournament (the server's language in Discord: English) as the server's
    admins force French, answered by another process: the language is changed between the
    moment the opening checked the channel and the moment it writes. The tournament, its
    sign-up and standings, speaks French all the same (that process's change found no
    tournament to change)."""
    mine = await any_backend.open(clock)
    theirs = await any_backend.open(clock) if any_backend.shared else mine
    try:
        store = Meddled(mine)
        service = GameService(store, clock=clock)  # type: ignore[arg-type]
        other = GameService(theirs, clock=clock)

        async def force_french() -> None:  # /goblin settings language:fr, elsewhere
            changed = await other.servers.change_settings(9, True, language="fr")
            assert changed.forced_locale == "fr" and changed.tournaments == ()
        store.meddle = force_french
        cup = await service.tournaments.create(guild_id=9, channel_id=77, host_id=ANN,
                                               name="Autumn Cup", locale="en")
        assert store.writes == 1
        assert cup.locale == "fr"
        assert (await theirs.tournament(cup.id)).locale == "fr"  # type: ignore[union-attr]
    finally:
        await mine.close()
        if theirs is not mine:
            await theirs.close()
