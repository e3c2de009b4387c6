"""The real bot, run in this test's process so its drawings can be counted, against the
stand-in: a picture is drawn and uploaded only when what it shows changed, and a table edit
waits only when the channel's message limit or the bot's global limit would otherwise be hit
(injected clock)."""
from __future__ import annotations

import asyncio
import contextlib
import io
import itertools
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from discordpy_client import discordpy_client
from e2e.lobby import open_table
from e2e.messages import hand_button, moves_of
from pace_clock import PaceClock
from PIL import Image
from shared_files import discord_api_checked

from bot.discord_side.client import KarakBot
from bot.discord_side.ui.custom_ids import HandButton
from bot.game.service import GameService
from bot.process.compose import compose
from bot.storage.records import TableRecord
from bot.storage.sqlite import Store
from engine import Observation
from engine.actions import parse
from loopback import ChannelLimit, GlobalLimit, Loopback, Message, User


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 4), (40, 90, 60)).save(out, "PNG")
    return out.getvalue()


PNG = _png()


class CountingRenderer:
    """Tiny pictures, each drawing counted by kind."""

    def __init__(self) -> None:
        self.drawn: Counter[str] = Counter()

    def table(self, obs: Observation, locale: str, handed: tuple[int, ...] = ()) -> bytes:
        self.drawn["table"] += 1
        return PNG

    def battle(self, obs: Observation, locale: str) -> bytes:
        self.drawn["battle"] += 1
        return PNG

    def hand(self, obs: Observation, locale: str) -> bytes:
        self.drawn["hand"] += 1
        return PNG


@contextlib.asynccontextmanager
async def karak(lb: Loopback, db: Path, renderer: CountingRenderer,
                paced: PaceClock) -> AsyncIterator[KarakBot]:
    """The real bot connected to ``lb`` in this process (AI without pause, pace on ``paced``;
    no limit of matches at once, as one person opens a table in each of many channels),
    closed on leaving."""
    store = await Store.open(db)
    seeds = itertools.count(11)
    service = GameService(store, seeds=lambda: next(seeds), default_threads=False,
                          match_limit=0)

    bot = compose(service, renderer, ai_pace=0, pace=paced.pace(), timer_poll=3600)
    paced.follow(bot.tasks)
    try:
        async with discordpy_client(lb, bot):
            yield bot
    finally:
        await store.close()


def table_message(lb: Loopback, channel: Any, viewer: User, tid: int) -> Message:
    found = lb.latest(channel, viewer, lambda m: hand_button(m) == HandButton.id_for(tid))
    assert found is not None
    return found


async def move(lb: Loopback, bot: KarakBot, user: User, hand: Message, verb: str) -> str:
    """``user`` picks the first move of kind ``verb`` in their hand message; returns it once
    the bot has answered and finished its work."""
    offered = moves_of(lb.message(hand.id))
    notation = next(n for n in offered if parse(n).verb == verb)
    cid, value = offered[notation]
    ix = await (lb.click(user, hand, cid) if value is None
                else lb.select(user, hand, cid, [value]))
    await ix.done()
    await bot.tasks.idle()
    return notation


async def until_table(lb: Loopback, bot: KarakBot, tid: int,
                      done: Callable[[TableRecord], bool]) -> TableRecord:
    """Wait until the bot has nothing left to do and table ``tid`` is as ``done`` wants (the
    bot may start its work after answering)."""
    for _ in range(2000):
        await bot.tasks.idle()
        record = await bot.service.tables.load(tid)
        if done(record):
            return record
        await lb.changed(lb.version, 0.5)
    raise AssertionError(f"table {tid} never got there")


async def test_only_the_pictures_that_changed_are_drawn(lb: Loopback, tmp_path: Path) -> None:
    guild = lb.create_guild("Karak Club", locale="en-US")
    hall = lb.create_channel(guild, "goblin-hall")
    eve, bob = lb.create_user("Eve", "en-US"), lb.create_user("Bob", "en-US")
    renderer = CountingRenderer()
    async with karak(lb, tmp_path / "k.db", renderer, PaceClock(lb.clock)) as bot:
        tid = await open_table(lb, hall, eve, [bob])
        record = await until_table(lb, bot, tid, lambda r: r.status == "running")
        mover = eve if record.seats[record.game.current].user == eve.id else bob
        table = table_message(lb, hall, mover, tid)
        ix = await lb.click(mover, table, HandButton.id_for(tid))
        await ix.done()
        hand = lb.message(ix.original_id or 0)
        assert [a.filename for a in hand.attachments] == ["hand.png"]

        # a standing preference changes no picture: the hand and table messages are edited
        # with the attachments they carry, nothing is drawn or uploaded
        before, table_files = Counter(renderer.drawn), lb.message(table.id).attachments
        table_revision = lb.message(table.id).revision
        hand_files = lb.message(hand.id).attachments
        await move(lb, bot, mover, hand, "stack")
        assert renderer.drawn == before
        assert lb.message(hand.id).attachments == hand_files
        assert lb.message(table.id).revision > table_revision  # its text was brought up to date
        assert lb.message(table.id).attachments == table_files

        # a fight starts a battle: the table message shows the battle picture
        await move(lb, bot, mover, hand, "fight")
        assert [a.filename for a in lb.message(table.id).attachments] == ["battle.png"]

        # a played card redraws the battle (once, for both messages) and the mover's hand only
        before = Counter(renderer.drawn)
        await move(lb, bot, mover, hand, "play")
        assert renderer.drawn - before == Counter({"battle": 1, "hand": 1})
        assert sorted(a.filename for a in lb.message(hand.id).attachments) == [
            "battle.png", "hand.png"]
    assert lb.breaches == []


async def test_table_edits_wait_only_for_the_channel_limit(tmp_path: Path) -> None:
    """On the stand-in's clock: a quiet channel's edit goes out at once; a burst of AI moves
    faster than the channel's limit (5 writes in 5 s) makes few edits, and never a 429."""
    from loopback import ManualClock

    clock = ManualClock()
    async with Loopback(clock=clock, channel_limit=ChannelLimit(5, 5.0),
                        validate=discord_api_checked()) as lb:
        guild = lb.create_guild("Karak Club", locale="en-US")
        hall = lb.create_channel(guild, "goblin-hall")
        eve = lb.create_user("Eve", "en-US")
        paced = PaceClock(clock)
        renderer = CountingRenderer()
        async with karak(lb, tmp_path / "k.db", renderer, paced) as bot:
            tid = await open_table(lb, hall, eve, [], ai=1)
            await until_table(lb, bot, tid,
                              lambda r: r.seats[r.game.current].user == eve.id)
            clock.advance(60)  # the channel has been quiet for a minute
            table = table_message(lb, hall, eve, tid)
            # Eve's move (a preference: her turn goes on) is shown at once
            revision, waits = lb.message(table.id).revision, len(paced.waits)
            ix = await lb.click(eve, table, HandButton.id_for(tid))
            await ix.done()
            await move(lb, bot, eve, lb.message(ix.original_id or 0), "stack")
            assert lb.message(table.id).revision > revision
            assert len(paced.waits) == waits  # nothing waited for the channel
            # Eve leaves: the AI plays every seat to the end, as fast as it can
            writes = len([r for r in lb.requests if r[2].startswith(f"/channels/{hall.id}/")])
            ix = await lb.command(eve, hall, "goblin leave")
            await ix.done()
            record = await until_table(lb, bot, tid, lambda r: r.status == "finished")
        written = [r for r in lb.requests if r[2].startswith(f"/channels/{hall.id}/")]
        assert lb.limiter.channel_limited == 0
        assert paced.waits  # the channel was busy: edits waited and were coalesced
        assert len(written) - writes < record.version / 4, (len(written) - writes,
                                                             record.version)
        assert lb.breaches == []


async def test_table_edits_keep_within_the_bots_global_limit(tmp_path: Path) -> None:
    """Eight tables' messages refreshed at once, on the stand-in's clock: the edits take turns
    for the bot's global room (three a second here, one more left for posts), so the stand-in,
    holding the bot to four requests a second, answers no 429; every table is edited once."""
    from loopback import ManualClock

    clock = ManualClock()
    async with Loopback(clock=clock, validate=discord_api_checked()) as lb:
        guild = lb.create_guild("Karak Club", locale="en-US")
        eve = lb.create_user("Eve", "en-US")
        paced = PaceClock(clock, global_limit=4, global_reserve=1)
        async with karak(lb, tmp_path / "k.db", CountingRenderer(), paced) as bot:
            halls = [lb.create_channel(guild, f"hall-{n}") for n in range(8)]
            tables = [await open_table(lb, hall, eve, [], ai=1) for hall in halls]
            records = [await until_table(lb, bot, tid,
                                         lambda r: r.seats[r.game.current].user == eve.id)
                       for tid in tables]
            await asyncio.wait_for(bot.tasks.idle(), 30)
            clock.advance(60)  # the bot has been quiet for a minute
            lb.world.limiter.global_limit = GlobalLimit(4, 1.0)
            since, waits = len(lb.requests), len(paced.waits)
            for record in records:
                bot.messages.show(record)
            await asyncio.wait_for(bot.tasks.idle(), 30)
        edits = [(at, path) for at, method, path in lb.requests[since:] if method == "PATCH"]
        assert sorted(path.split("/")[2] for _, path in edits) == sorted(
            str(hall.id) for hall in halls)
        assert lb.world.limiter.global_limited == 0 and lb.world.limiter.busiest <= 4
        assert len(paced.waits) > waits  # edits waited for their turn
        seconds = {int(at - edits[0][0]) for at, _ in edits}
        assert len(seconds) >= 3  # eight edits at three a second
        assert lb.breaches == []
