"""Two bot processes on one PostgreSQL database (two real bots in the test's loop, each with its
own store, on the stand-in, on one injected time): only the process holding a table's lease
plays its AI turns (another's AI move is refused as it is written) and fires its timer; a
person's move handled by the other process wakes the holder at once; a stopped process's tables
are taken over within the lease and a third; a process restarted under its name takes its own
leases back at once; a table taken home by the process of its server's shard is let go at once
by the process that covered for it; two processes running one shard are found out, and say
so in the health check; only the process holding a lobby left a day closes it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from discordpy_client import discordpy_client
from inprocess import UNPACED, FakeTime, TinyRenderer
from live_bot import CHANNEL, GUILD
from postgres_server import Server
from storage.helpers import played

from bot.discord_side.client import KarakBot
from bot.discord_side.pace import ChannelPace
from bot.discord_side.ui.custom_ids import HandButton
from bot.game.leases import LEASE_TTL, Pass
from bot.game.lobby import LOBBY_IDLE, lapsed
from bot.game.places import Place
from bot.game.scheduler import SHARDS, Posts
from bot.game.service import GameService
from bot.process.compose import compose
from bot.storage.postgres import Store
from bot.storage.records import LogRow, SeatInfo, Shards
from bot.workers.thinking import Thinking
from engine import Action, GameState, Observation, observe
from engine.agents import make_agent
from loopback import Loopback
from render.keys import battle_key, table_key

ANN, BOB = 101, 202
#: Ann plays the first hero; the AI the two others.
SEATS = (SeatInfo(user=ANN, name="Ann", hero="horan"),
         SeatInfo(ai=True, hero="taia", level="easy"),
         SeatInfo(ai=True, hero="argentus", level="easy"))
ALL_AI = (SeatInfo(ai=True, hero="horan", level="easy"), *SEATS[1:])
TIMER = 60
#: Seconds of the test's time between two steps of the bots.
STEP = 1.0
#: Seconds a test waits at most for the other process to hear of a write (a safety net).
PATIENCE = 30.0


class Counted(Thinking):
    """The AI's thinking of one process, counting its decisions."""

    def __init__(self) -> None:
        super().__init__(workers=0)
        self.decisions = 0

    async def choose(self, level: str, seed: int, obs: Observation) -> Action:
        """Decide, and count it."""
        self.decisions += 1
        return await super().choose(level, seed, obs)


@dataclass
class Process:
    """One bot process: its bot, its store and its thinking."""

    bot: KarakBot
    store: Store
    thinking: Counted

    @property
    def held(self) -> list[int]:
        return self.bot.scheduler.leases.held()


@pytest.fixture
async def url(postgres_server: Server) -> str:
    return await postgres_server.new_database()


@contextlib.asynccontextmanager
async def process(lb: Loopback, url: str, owner: str, time: FakeTime
                  ) -> AsyncIterator[Process]:
    """A bot named ``owner`` on the database at ``url``, connected to ``lb`` (tables resumed);
    stopped on leaving, its leases left to lapse as a killed process's are."""
    store = await Store.open(url, clock=time.clock)
    thinking = Counted()
    service = GameService(store, clock=time.clock, thinking=thinking)
    pace = ChannelPace(limit=UNPACED, global_limit=UNPACED, clock=time.clock,
                          sleep=time.sleep)
    bot = compose(service, TinyRenderer(), ai_pace=STEP, pace=pace, timer_poll=3600,
                   sleep=time.sleep, owner=owner)
    try:
        async with discordpy_client(lb, bot):
            yield Process(bot, store, thinking)
    finally:
        await store.close()


async def table(url: str, time: FakeTime, seats: tuple[SeatInfo, ...]) -> int:
    """A running table in the bot's channel at the start of game 1, with a turn timer."""
    store = await Store.open(url, clock=time.clock)
    try:
        rec = await store.create_table(guild_id=GUILD, place_key=Place.of(GUILD, ANN).key,
                                       channel_id=CHANNEL, host_id=ANN,
                                       seats=seats, abilities=False, timer=TIMER, seed=1)
        await store.start_game(rec.id, seats, played(1).states[0], time.now + TIMER)
        return rec.id
    finally:
        await store.close()


async def quiet(time: FakeTime, *running: Process) -> None:
    """Wait until every background task of the bots waits on the test's time."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + PATIENCE
    while time.sleeping() < sum(1 for p in running for t in p.bot.tasks._tasks if not t.done()):
        assert loop.time() < deadline, "the bots' background work never came to rest"
        await asyncio.sleep(0.005)


async def until(time: FakeTime, running: tuple[Process, ...],
                done: Callable[[], Awaitable[bool]], what: str, steps: int = 400) -> float:
    """Let the test's time pass, a step at a time, until ``done()``; the seconds it took."""
    start = time.now
    for _ in range(steps):
        await quiet(time, *running)
        if await done():
            return time.now - start
        await time.advance(STEP)
    raise AssertionError(f"{what} never happened")


async def version(p: Process, tid: int) -> int:
    rec = await p.store.get(tid)
    assert rec is not None
    return rec.version


async def test_a_stopped_processs_tables_move_on_in_another_within_the_lease(
        lb: Loopback, url: str) -> None:
    time = FakeTime()
    tid = await table(url, time, ALL_AI)
    async with process(lb, url, "two", time) as two:
        async with process(lb, url, "one", time) as one:
            assert two.held == [tid] and one.held == []  # the first to start took it
            await until(time, (one, two), lambda: _at_least(two, tid, 6), "six AI moves")
            assert one.thinking.decisions == 0  # never played there, not even tried
            before = await version(one, tid)
            assert await one.bot.service.play.ai_step(tid) is None  # asked to: refused
            assert one.thinking.decisions == 1 and await version(two, tid) == before
            await until(time, (one, two), lambda: _at_least(two, tid, 8), "two more")
        # one stopped (its leases untouched); two still holds the table and plays on
        played_by_two = two.thinking.decisions
        await until(time, (two,), lambda: _at_least(two, tid, 10), "two more")
        assert two.thinking.decisions > played_by_two

    async with process(lb, url, "one", time) as one:
        async with process(lb, url, "three", time) as three:
            assert one.held == [] and three.held == []  # two's lease has not lapsed yet
            stopped_at = await version(one, tid)
            took = await until(time, (one, three),
                               lambda: _at_least(one, tid, stopped_at + 1),
                               "a move after two stopped")
            assert took <= LEASE_TTL + LEASE_TTL / 3 + 2 * STEP  # about 20 s, well within 30
            holder, other = (one, three) if one.held == [tid] else (three, one)
            assert holder.held == [tid] and other.held == [] and other.thinking.decisions == 0
    log = await _log(url, time, tid)
    assert [r.step for r in log] == list(range(1, len(log) + 1))  # no move made twice


async def test_a_persons_move_in_one_process_wakes_the_holder_and_only_it_fires_the_timer(
        lb: Loopback, url: str) -> None:
    time = FakeTime()
    tid = await table(url, time, SEATS)
    game = played(1)
    async with process(lb, url, "one", time) as one:
        async with process(lb, url, "two", time) as two:
            assert one.held == [tid] and two.held == []
            for index in range(7):  # Ann's turn, her clicks handled by two (her guild's shard)
                seat, notation = game.moves[index]
                assert seat == 0
                outcome = await two.bot.service.play.act(tid, ANN, index, notation, sure=True)
                await two.bot.scheduler.after([outcome])
            await _heard(one, tid)  # one woke at once: its AI plays the two AI turns
            await until(time, (one, two), lambda: _ann_to_play(one, tid), "Ann's turn again")
            assert one.thinking.decisions >= 2 and two.thinking.decisions == 0
            record = await one.store.get(tid)
            assert record is not None and record.deadline is not None
            due = record.deadline
            await until(time, (one, two), lambda: _true(time.now > due), "Ann's timer out")
            await two.bot.scheduler.check_timers()  # not two's table: nothing
            assert await version(two, tid) == record.version
            await one.bot.scheduler.check_timers()
            await quiet(time, one, two)
            after = await one.store.get(tid)
            assert after is not None and after.version > record.version
            assert after.seats[0].timeouts == 1  # fired once, by one

        async with process(lb, url, "two", time) as again:  # two restarted
            assert again.held == []  # one's leases: not two's
        await quiet(time, one)
    async with process(lb, url, "one", time) as restarted:
        assert restarted.held == [tid]  # its own lease, taken back at once


@contextlib.asynccontextmanager
async def second_started(lb: Loopback, url: str, seats: tuple[SeatInfo, ...]
                         ) -> AsyncIterator[tuple[FakeTime, int, Process, Process]]:
    """A table of ``seats``, process two started (it takes the table), then process one:
    the time, the table, one and two."""
    time = FakeTime()
    tid = await table(url, time, seats)
    async with process(lb, url, "two", time) as two, process(lb, url, "one", time) as one:
        assert two.held == [tid] and one.held == []
        yield time, tid, one, two


async def test_a_table_gone_home_is_let_go_at_once_by_the_process_that_covered_for_it(
        lb: Loopback, url: str) -> None:
    async with second_started(lb, url, ALL_AI) as (time, tid, one, two):
        await until(time, (one, two), lambda: _at_least(two, tid, 2), "two AI moves")
        let_go: list[int] = []
        posts = two.bot.scheduler.posts
        two.bot.scheduler.posts = LetGo(posts, let_go)
        one.bot.scheduler.leases.shards = Shards(1, (0,))  # one runs the guild's shard
        assert (await one.bot.scheduler.leases.keep()).taken == [tid]  # takes it home
        now = time.now
        loop = asyncio.get_running_loop()
        deadline = loop.time() + PATIENCE
        while not let_go:  # told at once, not on its next pass
            assert loop.time() < deadline, "two never let the table go"
            await asyncio.sleep(0.005)
        assert let_go == [tid] and two.held == [] and one.held == [tid]
        assert time.now == now
        two.bot.scheduler.posts = posts


@pytest.mark.allow_errors("shards failed until the settings are mended: another process "
                         "runs shard(s) 0 of 1")
async def test_two_processes_running_one_shard_say_so_in_the_health_check(
        lb: Loopback, url: str) -> None:
    async with second_started(lb, url, SEATS) as (time, tid, one, two):
        for p in (one, two):  # both run the guild's shard: a configuration to mend
            p.bot.scheduler.leases.shards = Shards(1, (0,))
        await until(time, (one, two), lambda: _reported(one, two), "the report")
        said = [line for p in (one, two) for line in p.bot.tasks.failures.unhealthy()]
        # the first to find the other out says so; on a busy machine both passes may overlap,
        # and then both processes say it (each is set wrong)
        assert said and all(line.startswith(f"{SHARDS} failing") and "KARAK_SHARD_IDS" in line
                            for line in said), said
        holder = one if one.held else two
        await until(time, (one, two), lambda: _true(time.now > TIMER), "a minute")
        assert holder.held == [tid] and (two if holder is one else one).held == []


async def test_only_the_holder_closes_a_lobby_left_a_day(lb: Loopback, url: str) -> None:
    time = FakeTime()
    store = await Store.open(url, clock=lambda: time.now - LOBBY_IDLE)  # opened a day ago
    try:
        tid = (await store.create_table(guild_id=GUILD, place_key=Place.of(GUILD, ANN).key,
                                        channel_id=CHANNEL, host_id=ANN, seats=SEATS[:1],
                                        abilities=False, timer=0, seed=1)).id
    finally:
        await store.close()
    async with process(lb, url, "two", time) as two, process(lb, url, "one", time) as one:
        assert two.held == [tid] and one.held == []
        await one.bot.scheduler.close_idle_lobbies()  # not one's lobby: nothing
        found = await one.store.get(tid)
        assert found is not None and found.status == "lobby"
        await two.bot.scheduler.close_idle_lobbies()
        await quiet(time, one, two)
        closed = await one.store.get(tid)
        assert closed is not None and closed.status == "abandoned" and lapsed(closed)
        assert await one.store.active_in_channel(CHANNEL) is None


async def _reported(*running: Process) -> bool:
    return any(p.bot.tasks.failures.unhealthy() for p in running)


class LetGo:
    """A process's posts, noting each table it lets go."""

    def __init__(self, posts: Posts, noted: list[int]) -> None:
        self.posts = posts
        self.noted = noted

    def let_go(self, table: int) -> None:
        """Note it, and let it go."""
        self.noted.append(table)
        self.posts.let_go(table)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.posts, name)


async def _at_least(p: Process, tid: int, wanted: int) -> bool:
    return await version(p, tid) >= wanted


async def _ann_to_play(p: Process, tid: int) -> bool:
    rec = await p.store.get(tid)
    assert rec is not None
    return rec.game.current == 0 and rec.version > 7


async def _true(value: bool) -> bool:
    return value


async def _heard(p: Process, tid: int) -> None:
    """Wait until ``p`` started the AI of ``tid`` (it heard of the other process's move)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + PATIENCE
    while tid not in p.bot.scheduler._ai:
        assert loop.time() < deadline, "the holder never heard of the move"
        await asyncio.sleep(0.005)


async def _log(url: str, time: FakeTime, tid: int) -> list[LogRow]:
    store = await Store.open(url, clock=time.clock)
    try:
        return await store.action_log(tid)
    finally:
        await store.close()


async def test_a_tournament_round_is_seated_by_its_servers_process_and_shown_once(
        lb: Loopback, url: str) -> None:
    time = FakeTime()
    start = time.now
    async with process(lb, url, "one", time) as one, process(lb, url, "two", time) as two:
        home = (GUILD >> 22) % 2
        one.bot.scheduler.leases.shards = Shards(2, (home,))  # one hears the server
        two.bot.scheduler.leases.shards = Shards(2, (1 - home,))
        tours = two.bot.service.tournaments
        cup = await tours.create(guild_id=GUILD, channel_id=CHANNEL, host_id=ANN, name="Cup",
                                 table_size=3, ai_level="easy", closes_at=time.now + 60)
        for user, name in ((ANN, "Ann"), (BOB, "Bob")):
            await tours.join(cup.id, user, name)
        await until(time, (one, two), lambda: _true(time.now > start + 61),
                    "sign-up closing")
        for p in (two, one):  # two's pass comes first, one's lease pass in between
            desk = p.bot.clicks.tournaments
            assert desk is not None
            await desk.sweep()
            await one.bot.scheduler._kept(await one.bot.scheduler.leases.keep())
        (match,) = await one.store.ids_with_status("running")
        await until(time, (one, two), lambda: _true(_posted(lb, match) > 0), "the match")
        await until(time, (one, two), lambda: _true(time.now > start + 80), "a while")
        shown = [m for m in lb.state.messages.values()
                 if not m.deleted and HandButton.id_for(match) in m.custom_ids()]
        assert len(shown) == 1 and shown[0].channel_id != CHANNEL  # in the match's thread
        assert shown[0].mentions == [ANN] or shown[0].mentions == [BOB]  # one ping
        assert one.held == [match] and two.held == []

async def test_a_result_a_killed_process_never_posted_is_posted_once_by_another(
        lb: Loopback, url: str) -> None:
    """The process holding a table is killed between its game's last move and the post of
    its result: the other process, running on, claims the lapsed lease of the finished
    table, posts the result once, and gives the lease up."""
    time = FakeTime()
    tid = await table(url, time, ALL_AI)
    async with contextlib.AsyncExitStack() as running:
        killed = contextlib.AsyncExitStack()
        two = await killed.enter_async_context(process(lb, url, "two", time))
        one = await running.enter_async_context(process(lb, url, "one", time))
        assert two.held == [tid] and one.held == []
        two.bot.scheduler.ai_pace = 0.0
        unposted: list[int] = []
        two.bot.scheduler.posts.end = (  # type: ignore[method-assign]
            lambda record, resumed=False, late=False: unposted.append(record.id))
        await until(time, (one, two), lambda: _finished(one, tid), "the end")
        assert unposted == [tid]
        await killed.aclose()  # its lease of the finished table left to lapse
        await until(time, (one,), lambda: one.bot.service.meta.was_announced(tid),
                    "the result posted")
        await until(time, (one,), lambda: _true(time.now > LEASE_TTL * 3), "a while")
        assert len(_results(lb)) == 1
        assert await one.store.left_ends() == []


async def _finished(p: Process, tid: int) -> bool:
    rec = await p.store.get(tid)
    assert rec is not None
    return rec.status == "finished"


def _results(lb: Loopback) -> list[str]:
    """The texts of the posts of a game's result."""
    return [m.text() for m in lb.state.messages.values() if not m.deleted and "wins" in m.text()]


def _picture(state: GameState) -> str:
    """The key of the picture a table message shows of ``state`` (in English)."""
    obs = observe(state, None)
    return table_key(obs) if obs.battle is None else f"battle {battle_key(obs)}"


def _posted(lb: Loopback, table: int) -> int:
    """The table messages of ``table`` shown (with their My hand button)."""
    hand = HandButton.id_for(table)
    return sum(1 for m in lb.state.messages.values()
               if not m.deleted and hand in m.custom_ids())


async def test_a_table_taken_back_in_the_pass_that_found_it_taken_shows_the_newest_message(
        lb: Loopback, url: str) -> None:
    """A process of the table's server could not renew its leases for longer than a lease
    lasts (its database out of reach), so another process took the table up, and posted a
    newer table message (a turn pinged); the pass that finds the lease taken also takes it
    home. What the first process knew of the table's messages is out of date then: the
    player's next move shows the table on the newest message, leaving one table message live,
    not a second one beside a stale one whose buttons still stand."""
    time = FakeTime()
    tid = await table(url, time, SEATS)
    game = played(1)
    async with process(lb, url, "one", time) as one, process(lb, url, "two", time) as two:
        assert one.held == [tid]
        await quiet(time, one, two)
        first = _live(lb, tid)
        assert len(first) == 1
        two.bot.scheduler.ai_pace = 0.0  # its AI turns go by without the test's time
        leases = one.bot.scheduler.leases
        keep = leases.keep
        leases.keep = _stalled  # type: ignore[method-assign]
        await until(time, (one, two), lambda: _true(two.held == [tid]), "two taking it up")
        leases.keep = keep  # type: ignore[method-assign]
        for index in range(7):  # Ann's turn, her clicks handled by one (her guild's shard)
            seat, notation = game.moves[index]
            outcome = await one.bot.service.play.act(tid, ANN, index, notation, sure=True)
            await one.bot.scheduler.after([outcome])
        await _heard(two, tid)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + PATIENCE
        while not await _ann_to_play(two, tid) or _live(lb, tid) == first:
            assert loop.time() < deadline, "two never pinged Ann's next turn"
            await asyncio.sleep(0.005)
        await quiet(time, one, two)
        [newest] = _live(lb, tid)  # two's, pinging Ann; the older one retired
        assert newest != first[0]
        leases.shards = Shards(1, (0,))  # one runs the guild's shard
        await one.bot.scheduler._kept(await leases.keep())  # finds it taken, takes it home
        assert one.held == [tid]
        await quiet(time, one, two)
        record = await one.bot.service.tables.load(tid)
        state = record.game
        action = make_agent("heuristic", state.step).choose(observe(state, state.current))
        outcome = await one.bot.service.play.act(tid, ANN, record.version, str(action),
                                                 sure=True)
        await one.bot.scheduler.after([outcome])
        await quiet(time, one, two)
        for _ in range(50):
            await asyncio.sleep(0.01)
        assert _live(lb, tid) == [newest]


async def _stalled() -> Pass:
    """A pass of the leases that cannot reach the database: nothing renewed, nothing known."""
    return Pass([], [])


def _live(lb: Loopback, table: int) -> list[int]:
    """The ids of ``table``'s table messages that still carry their My hand button."""
    hand = HandButton.id_for(table)
    return sorted(m.id for m in lb.state.messages.values()
                  if not m.deleted and hand in m.custom_ids())


async def test_a_language_changed_by_the_servers_process_during_a_move_of_the_holder_is_shown(
        lb: Loopback, url: str) -> None:
    """The server's language changes (in the process of its shard) while the process holding
    one of its tables writes an AI move: the move is shown in the new language, not in the
    one the table had when the move was decided."""
    async with second_started(lb, url, SEATS) as (time, tid, one, two):
        store = two.store
        apply = store.apply
        changed: list[int] = []

        async def racing(table_id: int, before: int, state: Any, *args: Any,
                         **kwargs: Any) -> None:
            if not changed and state.current == 0:  # the move that hands Ann her turn
                told = await one.bot.service.servers.change_settings(GUILD, True,
                                                                     language="fr")
                changed.extend(told.relocalised)
                for table_id in told.relocalised:
                    one.bot.scheduler.posts.messages.relocalised(table_id)
            await apply(table_id, before, state, *args, **kwargs)

        store.apply = racing  # type: ignore[method-assign]
        game = played(1)
        for index in range(7):  # Ann's first turn, her clicks handled by one
            outcome = await one.bot.service.play.act(tid, ANN, index, game.moves[index][1],
                                                     sure=True)
            await one.bot.scheduler.after([outcome])
        await until(time, (one, two), lambda: _ann_to_play(one, tid), "Ann's turn")
        await quiet(time, one, two)
        for _ in range(50):
            await asyncio.sleep(0.01)
        assert changed == [tid]
        shown = [m for m in lb.state.messages.values()
                 if not m.deleted and HandButton.id_for(tid) in m.custom_ids()]
        assert len(shown) == 1 and "Ma main" in shown[0].text(), shown[0].text()  # French


async def test_pictures_another_process_replaced_are_drawn_again_not_sent_back(
        lb: Loopback, url: str) -> None:
    """The server's language goes to French and back (in the process of its shard, which
    redraws the table message each time, with pictures of its own) between two AI moves of the
    process holding the table: that process's next edit, whose picture did not change, draws
    it again instead of sending back an attachment the message no longer carries, so the
    table message is edited in place, not posted again."""
    async with second_started(lb, url, ALL_AI) as (time, tid, one, two):
        apply = two.store.apply
        flipped: list[int] = []

        async def shown_in(word: str, before: set[int]) -> None:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + PATIENCE
            while True:
                message = lb.state.messages[message_id]
                if word in message.text() and not {a.id for a in message.attachments} & before:
                    return
                assert loop.time() < deadline, "the redraw never came"
                await asyncio.sleep(0.005)

        async def flipping(table_id: int, before: int, state: Any, *args: Any,
                           **kwargs: Any) -> None:
            record = await two.store.get(table_id)
            assert record is not None
            if (not flipped and record.message_id is not None and record.version >= 3
                    and _picture(state) == _picture(record.game)
                    and two.bot.scheduler.posts.messages.shown.version((tid, None, "en"))
                    == record.version):
                flipped.append(record.version)
                nonlocal message_id
                message_id = record.message_id
                for language, word in (("fr", "Ma main"), ("en", "My hand")):
                    carried = {a.id for a in lb.state.messages[message_id].attachments}
                    told = await one.bot.service.servers.change_settings(
                        GUILD, True, language=language)
                    for relocalised in told.relocalised:
                        one.bot.scheduler.posts.messages.relocalised(relocalised)
                    await shown_in(word, carried)
            await apply(table_id, before, state, *args, **kwargs)

        message_id = 0
        two.store.apply = flipping  # type: ignore[method-assign]
        await until(time, (one, two), lambda: _true(bool(flipped)), "a move keeping its picture")
        await until(time, (one, two), lambda: _at_least(two, tid, flipped[0] + 3), "moves after")
        assert _live(lb, tid) == [message_id]  # edited in place all along
