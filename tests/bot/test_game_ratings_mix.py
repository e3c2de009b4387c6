"""Ratings over a seeded mix of matches played through the game service, on both backends: two
servers and some people's direct messages; matches played to their end, abandoned before and
after everyone moved, left before a first move (the seat the AI's, the match then played out)
and after one (the AI in the seat winning or not), with moves taken back, rematch loops (a
take-back clicked after each end refused), and a tournament's match abandoned by a player who
forfeits it; one person forgotten on request half-way. Each
match changes the ratings once and only when the product's rules rate it, a server's rows never
hold another server's or a direct message's match, the forgotten person's rows are gone while
everyone else's stay as they were, and the rebuild (``ratings --recompute``, of all servers or
of one) writes exactly the rows the matches wrote as they ended."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from bot_helpers import Clock
from storage.backends import Backend, PostgresBackend, SqliteBackend

from bot.game.places import Place
from bot.game.refusals import Refusal
from bot.game.results import movers
from bot.game.service import GameService
from bot.game.standings import ranked
from bot.storage.interface import Storage
from bot.storage.records import TableRecord, TableResult
from engine import Undo, observe
from engine.agents import make_agent

#: The servers, each with its channels (one table at a time in each).
SERVERS = {9: (1, 2), 10: (3,)}
#: The people who play; the first is forgotten half-way.
PEOPLE = (101, 202, 303, 404)
#: What may happen to a table (drawn per table).
FATES = ("finish", "finish", "early", "after", "leave_first", "leave_after", "dm")


@pytest.fixture(params=("postgres", "sqlite"))
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "postgres":
        return PostgresBackend(request.getfixturevalue("postgres_server"))
    return SqliteBackend(tmp_path / "karak.sqlite3")


@pytest.fixture
async def mixed(backend: Backend, clock: Clock) -> AsyncIterator[GameService]:
    store = await backend.open(clock)
    seeds = iter(range(1000, 100000))
    try:
        yield GameService(store, clock=clock, seeds=lambda: next(seeds))
    finally:
        await store.close()


async def person_moves(service: GameService, record: TableRecord,
                       dice: random.Random) -> TableRecord:
    """One move of the person whose turn it is (sometimes taken back right after)."""
    state = record.game
    seat = state.current
    user = record.seats[seat].user
    assert user is not None
    obs = observe(state, seat)
    move = make_agent("easy", dice.randrange(1 << 30)).choose(obs)
    outcome = await service.play.act(record.id, user, record.version, str(move), sure=True)
    after = outcome.record
    if after.status == "running" and dice.random() < 0.05:
        again = observe(after.game, after.game.current)
        if Undo() in again.legal and after.seats[after.game.current].user == user:
            after = (await service.play.act(record.id, user, after.version, str(Undo()),
                                            sure=True)).record
    return after


async def one_move(service: GameService, record: TableRecord,
                   dice: random.Random) -> TableRecord:
    """The next move at a running table: an AI seat's, or its person's."""
    if record.seats[record.game.current].ai:
        outcome = await service.play.ai_step(record.id)
        assert outcome is not None
        return outcome.record
    return await person_moves(service, record, dice)


async def everyone_moved(service: GameService, record: TableRecord,
                         dice: random.Random) -> TableRecord:
    """Play on until every person still seated made a move that stands (or the end)."""
    while record.status == "running":
        moved = {u for _, u in movers(await service.store.action_log(record.id))}
        if all(s.ai or s.user is None or s.user in moved for s in record.seats):
            return record
        record = await one_move(service, record, dice)
    return record


#: A match still running after this many moves is abandoned by its host (two easy players
#: alone may take thousands of moves to reach the Lord).
LONGEST = 600


async def play_out(service: GameService, record: TableRecord,
                   dice: random.Random) -> TableRecord:
    """Play on to the end, or abandon the match past :data:`LONGEST` moves."""
    while record.status == "running":
        if record.version >= LONGEST:
            return await service.lobby.abandon_table(record.id, record.host_id, True)
        record = await one_move(service, record, dice)
    return record


async def open_table(service: GameService, guild: int | None, channel: int,
                     people: list[int], ai: bool) -> TableRecord:
    """A match of ``people`` (the first hosts), with an easy AI seat when ``ai`` (always for
    one person), started."""
    host = people[0]
    record = await service.lobby.create(guild_id=guild, channel_id=channel, host_id=host,
                                        host_name=f"P{host}", ai_level="easy")
    for user in people[1:]:
        await service.lobby.join(record.id, user, f"P{user}")
    if ai or len(people) == 1:
        await service.lobby.add_ai(record.id, host)
    return await service.lobby.start(record.id, host)


async def one_table(service: GameService, dice: random.Random, guild: int, channel: int,
                    who: tuple[int, ...]) -> TableRecord:
    """One table of a drawn fate, played until it ends."""
    fate = dice.choice(FATES)
    if fate == "dm":
        user = dice.choice(who)
        record = await open_table(service, None, 9000 + user, [user], True)
        return await play_out(service, record, dice)
    people = dice.sample(who, dice.choice((2, 2, 3)))
    record = await open_table(service, guild, channel, people, dice.random() < 0.5)
    if fate == "early":  # abandoned after its first move: not rated
        record = await one_move(service, record, dice)
        return await service.lobby.abandon_table(record.id, record.host_id, False)
    if fate == "after":  # abandoned once everyone moved: rated as it stands
        record = await everyone_moved(service, record, dice)
        if record.status == "running":
            return await service.lobby.abandon_table(record.id, record.host_id, False)
        return record
    if fate in ("leave_first", "leave_after"):
        leaver = people[-1]
        if fate == "leave_after":
            record = await everyone_moved(service, record, dice)
        if record.status == "running":
            record = await service.lobby.leave(record.id, leaver)
    return await play_out(service, record, dice)


async def tournament_match(service: GameService, dice: random.Random,
                           who: tuple[int, ...]) -> TableRecord:
    """A tournament of three on server 9 whose one match a player abandons once everyone
    moved: rated as it stands, the abandoner last, and their forfeit in the tournament."""
    cup = await service.tournaments.create(guild_id=9, channel_id=50, host_id=who[0],
                                           name="Cup", table_size=3, rounds=1)
    for user in who[:3]:
        await service.tournaments.join(cup.id, user, f"P{user}")
    progress = await service.tournaments.start(cup.id, who[0])
    assert progress.opened is not None
    [table] = progress.opened.tables
    record = await everyone_moved(service, table, dice)
    assert record.status == "running"
    quitter = next(s.user for s in record.seats if s.user is not None and s.user != who[0])
    assert quitter is not None
    record = await service.lobby.abandon_table(record.id, quitter, True)
    await service.tournaments.table_ended(record.id)
    return record


async def take_back_after_the_end(service: GameService, record: TableRecord) -> None:
    """A take-back clicked on the final table of a finished match is refused and changes
    nothing of the ratings."""
    before = await service.store.changes_of_table(record.id)
    for user in {s.user for s in record.seats if s.user is not None and s.user > 0}:
        with pytest.raises(Refusal):
            await service.play.act(record.id, user, record.version, str(Undo()), sure=True)
    assert await service.store.changes_of_table(record.id) == before


async def rematched(service: GameService, record: TableRecord,
                    dice: random.Random) -> TableRecord | None:
    """The people of a finished server match play it again (every one ready), played out or
    abandoned once everyone moved; None when they do not."""
    people = [s.user for s in record.seats if s.user is not None and s.user > 0]
    if record.guild_id is None or len(people) < 2 or dice.random() < 0.3:
        return None
    state = await service.rematches.offer(record.id, people[0])
    for user in people[1:]:
        state = await service.rematches.ready(record.id, user)
    if state.started is None:
        state = await service.rematches.start(record.id, record.host_id)
    again = state.started
    assert again is not None and again.status == "running"
    if dice.random() < 0.5:
        return await play_out(service, again, dice)
    again = await everyone_moved(service, again, dice)
    if again.status == "running":
        again = await service.lobby.abandon_table(again.id, again.host_id, False)
    return again


async def rows(store: Storage) -> tuple[object, ...]:
    """Every rating, rating change and record against the AI the store holds for the test's
    people, on each server and in each person's direct messages."""
    return (
        [await store.ratings(g) for g in SERVERS],
        [await store.rating_changes(g, u) for g in SERVERS for u in PEOPLE],
        [await store.ai_records(Place.server(g).key, u) for g in SERVERS for u in PEOPLE],
        [await store.ai_records(Place.dms(u).key, u) for u in PEOPLE])


async def expected_changes(store: Storage, table_id: int) -> set[int]:
    """The people a match's rating changes must name: those who made a move in a server's
    match where two people or more did (none without a stored result)."""
    result = await store.result_of(table_id)
    if result is None:
        return set()
    assert isinstance(result, TableResult)
    moved = {s.user_id for s in result.seats if s.user_id is not None and s.moved}
    return moved if result.guild_id is not None and len(moved) >= 2 else set()


async def test_a_seeded_mix_rates_each_match_once_and_rebuilds_to_the_same_rows(
        mixed: GameService, clock: Clock) -> None:
    service, store = mixed, mixed.store
    dice = random.Random(7)
    ended: list[TableRecord] = []
    forgotten = PEOPLE[0]
    rematches = 0
    for n in range(14):
        clock.now += 60
        who = PEOPLE if n < 7 else PEOPLE[1:]
        if n == 7:
            before = await rows(store)
            await service.people.forget(forgotten)
            after = await rows(store)
            for mine, theirs in zip(before[0], after[0], strict=True):  # others' unchanged
                assert [r for r in mine if r.user_id != forgotten] == theirs
            assert not any(r.user_id == forgotten for board in after[0] for r in board)
            assert not any(c for changes in after[1] for c in changes
                           if c.user_id == forgotten)
        guild = dice.choice(sorted(SERVERS))
        record = await one_table(service, dice, guild, dice.choice(SERVERS[guild]), who)
        ended.append(record)
        while record is not None and record.status == "finished":  # a rematch loop
            await take_back_after_the_end(service, record)
            record = await rematched(service, record, dice)
            if record is not None:
                ended.append(record)
                rematches += 1
        if n == 3:
            ended.append(await tournament_match(service, dice, PEOPLE))
    kinds = {r.status for r in ended}
    assert kinds == {"finished", "abandoned"}, kinds
    results = [r for t in ended if isinstance(r := await store.result_of(t.id), TableResult)]
    seats = [s for r in results for s in r.seats if s.user_id is not None]
    assert any(s.handed_to_ai and s.moved for s in seats), "someone left after moving"
    assert any(s.handed_to_ai and not s.moved for s in seats), "someone left before moving"
    assert any(r.abandoned_by is not None and r.guild_id for r in results), "a rated abandon"
    assert any(r.guild_id is None for r in results), "a match in direct messages"
    assert rematches >= 2, rematches
    for record in ended:
        changed = {c.user_id for c in await store.changes_of_table(record.id)}
        # a forgotten person's changes are deleted: the result names their pseudonym
        assert changed == {u for u in await expected_changes(store, record.id) if u > 0}, \
            (record.id, changed)
    for guild in SERVERS:
        board = await store.ratings(guild)
        for rating in board:
            mine = await store.rating_changes(guild, rating.user_id)
            assert rating.games == len(mine)  # one change per rated match, no more
            assert all(c.guild_id == guild for c in mine)
        assert forgotten not in {r.user_id for r in ranked(board)}
    live = await rows(store)
    assert any(live[0]), "the mix rated some matches"
    await service.standings.recompute()
    assert await rows(store) == live
    for guild in SERVERS:
        await service.standings.recompute(guild)
        assert await rows(store) == live
