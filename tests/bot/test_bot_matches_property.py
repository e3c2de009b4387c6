"""Every past match shown right, over many seeded matches played through the game service (no
Discord): people take moves back, leave, run out of time until the AI takes their seat over,
abandon tables and play rematches, several tables in play at once on two servers. Afterwards
every match, finished or abandoned, replays from its seed and the moves of its log that stand to
exactly its stored state; the action log's ``undone`` marks agree with its take-backs; finished
matches get their summary chart and their animation; and rebuilding every rating from the stored
results gives exactly the numbers the matches wrote as they ended. The whole test takes about
half a minute of CPU."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from bot_helpers import Clock

from bot.discord_side.past import round_series
from bot.game.places import Place, Sight
from bot.game.play import MAX_TIMEOUTS
from bot.game.refusals import Refusal
from bot.game.service import GameService
from bot.storage.records import UNDO, LogRow, TableRecord, standing
from bot.storage.sqlite import Store
from engine import Action, Undo, observe
from engine.agents import make_agent
from render.animation import match_animation
from render.charts import summary_chart

#: Matches started (rematches included).
MATCHES = 300
#: Tables in play at once, one per channel: (server, channel).
CHANNELS = ((9, 1), (9, 2), (9, 3), (10, 4), (10, 5))
#: The people who play (the first of a table's people is its host).
PEOPLE = (101, 202, 303, 404, 505)
#: The share of the matches played to their end; the host abandons each of the others after a
#: drawn number of moves, up to CUT (a whole match takes some 300 moves through the service,
#: about a third of a second of CPU: playing every match to its end would take minutes).
FINISHED_SHARE, CUT = 0.2, 30
#: Every finished match gets its summary chart, but drawing a match's animation takes some
#: seconds (longer than playing the match): it is drawn for every ANIMATED-th finished match
#: only (every match is replayed).
ANIMATED = 20
#: Chances, per decision of a person: taking a move back (when they may), letting the turn
#: timer run out (at a table with one), leaving for good, the host abandoning the table.
UNDO_CHANCE, TIMEOUT_CHANCE, LEAVE_CHANCE, ABANDON_CHANCE = 0.1, 0.01, 0.004, 0.001
#: The chance that the people of a finished match play a rematch.
REMATCH_CHANCE = 0.5


@dataclass
class Table:
    """A table in play in a channel, with the dice of its people's decisions."""

    record: TableRecord
    dice: random.Random
    cut: int | None  # the version at which the host abandons the table (None: never)
    away: set[int] = field(default_factory=set)  # people who let their timer run out


@dataclass
class Tally:
    """What the matches did, to show that each kind of event happened."""

    started: int = 0
    finished: list[int] = field(default_factory=list)
    abandoned: list[int] = field(default_factory=list)
    take_backs: int = 0
    timeouts: int = 0
    handed: int = 0
    left: int = 0
    rematches: int = 0


def fate(dice: random.Random) -> int | None:
    """When the host abandons a new table: never (:data:`FINISHED_SHARE` of the tables) or at
    a drawn version up to :data:`CUT`."""
    return None if dice.random() < FINISHED_SHARE else dice.randint(0, CUT)


async def open_table(service: GameService, guild: int, channel: int, dice: random.Random,
                     tally: Tally) -> Table:
    """A new table in ``channel``: one to three people, maybe an easy AI seat, maybe a turn
    timer and hero abilities, started."""
    people = dice.sample(PEOPLE, dice.choice((1, 1, 2, 2, 2, 3)))
    host = people[0]
    record = await service.lobby.create(guild_id=guild, channel_id=channel, host_id=host,
                                        host_name=f"P{host}", timer=dice.choice((0, 0, 60)),
                                        abilities=dice.random() < 0.5, ai_level="easy")
    for user in people[1:]:
        await service.lobby.join(record.id, user, f"P{user}")
    if len(people) == 1 or dice.random() < 0.3:
        await service.lobby.add_ai(record.id, host)
    record = await service.lobby.start(record.id, host)
    tally.started += 1
    return Table(record, dice, fate(dice))


async def step(service: GameService, clock: Clock, table: Table, tally: Tally) -> None:
    """One move at the table (or a person leaving, the timer running out, the table closed)."""
    clock.now += 1
    record = table.record
    state = record.game
    seat = record.seats[state.current]
    if table.cut is not None and record.version >= table.cut:
        table.record = await service.lobby.abandon_table(record.id, record.host_id, False)
        return
    if seat.ai:
        outcome = await service.play.ai_step(record.id)
        assert outcome is not None
        table.record = outcome.record
        return
    dice, user = table.dice, seat.user
    assert user is not None
    roll = dice.random()
    if roll < ABANDON_CHANCE:
        table.record = await service.lobby.abandon_table(record.id, record.host_id, False)
        return
    if roll < ABANDON_CHANCE + LEAVE_CHANCE:
        table.record = await service.lobby.leave(record.id, user)
        tally.left += 1
        return
    if record.deadline is not None and (
            user in table.away or roll < ABANDON_CHANCE + LEAVE_CHANCE + TIMEOUT_CHANCE):
        clock.now = max(clock.now, record.deadline + 1)
        outcomes = await service.play.expire(record.id, record.version)
        assert outcomes and all(o.by_ai and o.timed_out for o in outcomes)
        tally.timeouts += 1
        tally.handed += outcomes[-1].handed_to_ai
        if outcomes[-1].handed_to_ai or dice.random() < 0.5:  # back, or away for a while
            table.away.discard(user)
        else:
            table.away.add(user)
        table.record = await service.tables.load(record.id)
        return
    obs = observe(state, state.current)
    action: Action = make_agent("easy", dice.randrange(1 << 30)).choose(obs)
    if Undo() in obs.legal and dice.random() < UNDO_CHANCE:
        action = Undo()
        tally.take_backs += 1
    outcome = await service.play.act(record.id, user, record.version, str(action), sure=True)
    table.record = outcome.record


async def rematch(service: GameService, table: Table, tally: Tally) -> Table | None:
    """The people of a finished table play again (every one ready), or None."""
    record = table.record
    people = [s.user for s in record.seats if s.user is not None]
    if table.dice.random() >= REMATCH_CHANCE:
        return None
    state = await service.rematches.offer(record.id, people[0])
    for user in people[1:]:
        state = await service.rematches.ready(record.id, user)
    if state.started is None:
        state = await service.rematches.start(record.id, record.host_id)
    assert state.started is not None and state.started.status == "running"
    tally.started += 1
    tally.rematches += 1
    return Table(state.started, table.dice, fate(table.dice))


def takes_back_right(log: list[LogRow]) -> None:
    """The ``undone`` marks agree with the log's take-backs (each marks the latest action that
    still stood), and the moves that stand lead from step 1 on, one step each."""
    kept: list[int] = []
    for index, row in enumerate(log):
        if row.action == UNDO:
            assert not row.undone
            assert log[kept.pop()].undone
        else:
            kept.append(index)
    assert not any(log[i].undone for i in kept)
    assert [row.step for row in standing(log)] == list(range(1, len(kept) + 1))


async def ratings_of(store: Store) -> object:
    """Every rating, rating change and record against the AI the store holds."""
    guilds = sorted({guild for guild, _ in CHANNELS})
    return ([await store.ratings(g) for g in guilds],
            [await store.rating_changes(g, u) for g in guilds for u in PEOPLE],
            [await store.ai_records(Place.server(g).key, u) for g in guilds for u in PEOPLE])


async def test_seeded_matches_replay_draw_and_rate_right(service: GameService, store: Store,
                                                        clock: Clock) -> None:
    tally = Tally()
    tables: dict[int, Table] = {}  # channel -> its table in play
    seeds = iter(range(MATCHES * 2))
    while tables or tally.started < MATCHES:
        for guild, channel in CHANNELS:
            table = tables.get(channel)
            if table is None:
                if tally.started < MATCHES:
                    tables[channel] = await open_table(service, guild, channel,
                                                       random.Random(next(seeds)), tally)
                continue
            if table.record.status == "running":
                await step(service, clock, table, tally)
                continue
            del tables[channel]
            if table.record.status == "finished":
                tally.finished.append(table.record.id)
                again = await rematch(service, table, tally) \
                    if tally.started < MATCHES else None
                if again is not None:
                    tables[channel] = again
            else:
                tally.abandoned.append(table.record.id)
    assert tally.started == MATCHES
    assert len(tally.finished) > 40 and len(tally.abandoned) > 150, tally
    assert tally.take_backs > 300 and tally.rematches > 10 and tally.left > 10, tally
    assert tally.timeouts > 20 and tally.handed > MAX_TIMEOUTS, tally
    drawn = 0
    for tid in tally.finished + tally.abandoned:
        record = await service.tables.load(tid)
        takes_back_right(await store.action_log(tid))
        try:
            loaded = await service.history.replay(tid, Sight(Place.from_key(record.place_key)))
        except Refusal as exc:
            raise AssertionError(f"match {tid} does not replay: {exc.reason}") from exc
        assert loaded.replay.final == record.game
        assert loaded.finished == (record.status == "finished")
        if not loaded.finished:
            continue
        chart = summary_chart(round_series(loaded.replay), record.locale)
        assert chart.startswith(b"\x89PNG")
        if tally.finished.index(tid) % ANIMATED == 0:
            assert match_animation(loaded.replay, record.locale).startswith(b"GIF89a")
            drawn += 1
    assert drawn == -(-len(tally.finished) // ANIMATED)
    live = await ratings_of(store)
    assert live[0][0] and live[0][1], "both servers rated matches"
    # the matches with a result: every finished one, and those abandoned once everyone moved
    rated_abandons = [t for t in tally.abandoned if await store.result_of(t) is not None]
    assert rated_abandons, "some abandoned matches were rated as they stood"
    assert await service.standings.recompute() == len(tally.finished) + len(rated_abandons)
    assert await ratings_of(store) == live
