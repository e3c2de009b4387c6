"""A move flows once from the click to the messages: the table is read once per move, no
Discord request goes out while a table's lock is held, and each table's messages go out in
order on its own feed: a table whose channel is rate-limited holds up only itself, and the
moves made while its request waits make one edit of its message, showing the newest state;
the AI seats play on while the mover's own reply still waits for Discord."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import discord.http
import discord.webhook.async_
import pytest
from bot_helpers import Clock
from live_bot import Call, LiveBot, offered, record_requests, table_id
from pace_clock import PaceClock
from players import ANN, BOB, Players, TinyRenderer, open_table

from bot.discord_side.ui.custom_ids import HandButton, LobbyButton
from bot.game.tables import Tables
from bot.storage.records import TableRecord
from bot.workers.thinking import Thinking
from i18n import msg, translate
from loopback import Channel, Loopback, Message

#: A retry_after the test holds until it lets it pass (no real time goes by).
LONG = 600.0
#: True in the context of code that holds a table's lock.
HELD: contextvars.ContextVar[bool] = contextvars.ContextVar("held", default=False)


class HeldSleeps:
    """discord.py's ``asyncio``, with every pause of :data:`LONG` seconds or more held until
    :meth:`release` (the stand-in's clock is moved on by as much)."""

    def __init__(self, lb: Loopback) -> None:
        self.lb = lb
        self.released = asyncio.Event()
        self.holding = asyncio.Event()  # set once a pause is held
        self.held = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def sleep(self, delay: float, result: Any = None) -> Any:
        if delay < LONG:
            return await asyncio.sleep(delay, result)
        self.held += 1
        self.holding.set()
        await self.released.wait()
        return result

    def release(self) -> None:
        self.lb.clock.advance(LONG + 1)
        self.released.set()


class ChannelPlayers(Players):
    """Players of a table in another channel than the bot's default one."""

    def __init__(self, h: LiveBot, tid: int, users: list[Any], channel: Channel) -> None:
        super().__init__(h, tid, users)
        self.channel = channel

    async def open_hand(self, user: Any) -> Message:
        table_msg = table_message(self.h, self.channel)
        ix = await self.h.click(user, table_msg, HandButton.id_for(self.tid))
        hand = self.h.reply(ix)
        self.hand_msgs[user.id] = hand.id
        return hand


def table_message(h: LiveBot, channel: Channel) -> Message:
    """The newest table message in ``channel``."""
    return next(m for m in reversed(h.public(channel))
                if any(c.startswith(HandButton.prefix) for c in m.custom_ids()))


def footer(record: TableRecord) -> str:
    """The round and move line of the table message showing ``record``."""
    state = record.game
    return translate(msg("bot.table.footer", round=state.round, step=state.step), "en")


async def open_in(h: LiveBot, channel: Channel, host: Any, ai: int) -> int:
    """``host`` opens a table in ``channel`` with ``ai`` AI seats and starts it."""
    await h.command(host, "new", channel=channel)
    lobby = h.public(channel)[-1]
    tid = table_id(lobby)
    for _ in range(ai):
        await h.click(host, lobby, LobbyButton.id_for(tid, "ai", None))
    await h.click(host, lobby, LobbyButton.id_for(tid, "start", None))
    return tid


@pytest.fixture
async def h(lb: Loopback, tmp_path: Path, clock: Clock) -> AsyncIterator[LiveBot]:
    live = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock,
                               thinking=Thinking(workers=0))
    yield live
    await live.stop()


async def test_a_move_and_the_ai_turn_after_it_read_the_table_once_a_move(h: LiveBot) -> None:
    tid = await open_table(h, ANN, [], ai=1)
    players = Players(h, tid, [ANN])
    reads = 0
    real = h.store.get

    async def get(table_id: int) -> TableRecord | None:
        nonlocal reads
        reads += 1
        return await real(table_id)

    checked = 0
    for i in range(12):
        rec = await h.bot.service.tables.load(tid)
        if rec.status != "running" or checked == 5:
            break
        hand = await players.open_hand(ANN)
        offered_moves = sorted(n for n in players_moves(hand) if n != "undo")
        reads = 0
        h.store.get = get  # type: ignore[method-assign]
        try:  # a move easy to regret is asked about first: not played, another one is
            await h.play(ANN, hand, offered_moves[i % len(offered_moves)], sure=False)
        finally:
            h.store.get = real  # type: ignore[method-assign]
        moves = (await h.bot.service.tables.load(tid)).version - rec.version
        if moves:
            checked += 1
            assert reads <= moves, (reads, moves)  # one for the move, one for each AI move
    assert checked


def players_moves(hand: Message) -> list[str]:
    """The moves a hand message offers (notations)."""
    return list(offered(hand))


async def test_no_discord_request_goes_out_while_a_table_is_held(
        h: LiveBot, monkeypatch: pytest.MonkeyPatch) -> None:
    under_lock: list[str] = []
    real_hold = Tables.hold
    real_locked = Tables.locked

    @asynccontextmanager
    async def hold(self: Tables, table_id: int) -> AsyncIterator[TableRecord]:
        token = HELD.set(True)
        try:
            async with real_hold(self, table_id) as record:
                yield record
        finally:
            HELD.reset(token)

    @asynccontextmanager
    async def locked(self: Tables, table_id: int) -> AsyncIterator[None]:
        token = HELD.set(True)
        try:
            async with real_locked(self, table_id):
                yield
        finally:
            HELD.reset(token)

    real_request = discord.http.HTTPClient.request
    real_hook = discord.webhook.async_.AsyncWebhookAdapter.request

    async def request(self: Any, route: Any, *args: Any, **kwargs: Any) -> Any:
        if HELD.get():
            under_lock.append(f"{route.method} {route.path}")
        return await real_request(self, route, *args, **kwargs)

    async def hook(self: Any, route: Any, *args: Any, **kwargs: Any) -> Any:
        if HELD.get():
            under_lock.append(f"{route.method} {route.path}")
        return await real_hook(self, route, *args, **kwargs)

    monkeypatch.setattr(Tables, "hold", hold)
    monkeypatch.setattr(Tables, "locked", locked)
    monkeypatch.setattr(discord.http.HTTPClient, "request", request)
    monkeypatch.setattr(discord.webhook.async_.AsyncWebhookAdapter, "request", hook)
    tid = await open_table(h, ANN, [BOB], ai=1)
    players = Players(h, tid, [ANN, BOB])
    for _ in range(12):
        if not await players.step():
            break
    await h.abandon(ANN)
    assert under_lock == []


async def test_a_rate_limited_table_holds_up_only_itself_and_its_edits_coalesce(
        lb: Loopback, tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    paced = PaceClock()
    h = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock,
                            thinking=Thinking(workers=0), pace=paced)
    try:
        await rate_limited(h, lb, paced, monkeypatch)
    finally:
        await h.stop()


async def rate_limited(h: LiveBot, lb: Loopback, paced: PaceClock,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The body of the test above."""
    other = lb.create_channel(h.guild, "other")
    slow = await open_table(h, ANN, [], ai=1)
    fast = await open_in(h, other, BOB, ai=1)
    tasks = h.bot.tasks
    # the other tables' paced edits do not wait for the held one (it waits for the test)
    paced.tasks = lambda: [t for t in tasks._tasks if t not in tasks.endless
                           and t.get_name() != f"feed-{slow}"]
    held = HeldSleeps(lb)
    monkeypatch.setattr(discord.http, "asyncio", held)
    calls: list[Call] = record_requests(lb)
    # the slow table's channel answers its next request with a long 429: its feed waits
    lb.world.limiter.inject_429(rf"^/channels/{h.channel.id}/messages", count=1,
                                retry_after=LONG)
    h.settle = partial(LiveBot.settle, h, but=f"feed-{slow}")  # type: ignore[method-assign]
    ann = Players(h, slow, [ANN])
    first = await h.bot.service.tables.load(slow)
    assert await ann.step()  # answered and applied, though its message must wait
    await asyncio.wait_for(held.holding.wait(), 30)  # the feed reaches its request in its time
    assert held.held == 1 and h.bot.messages.feeds.busy(slow)
    stuck = h.last_table_message().text()
    # the other table goes on: moves answered, applied and shown while the first one waits
    bob = ChannelPlayers(h, fast, [BOB], other)
    for _ in range(3):
        before = await h.bot.service.tables.load(fast)
        assert await bob.step()
        now = await h.bot.service.tables.load(fast)
        assert now.version > before.version
        assert footer(now) in table_message(h, other).text()
        assert h.bot.messages.feeds.busy(slow)
    # a burst of moves at the slow table: queued behind the waiting request, coalesced
    for _ in range(3):
        if not await ann.step():
            break
    assert h.bot.messages.feeds.queued(slow) == 1  # one edit, of the newest state
    assert h.last_table_message().text() == stuck  # nothing of the slow table went out
    since = len(calls)
    held.release()
    h.settle = partial(LiveBot.settle, h)  # type: ignore[method-assign]
    await h.settle()
    final = await h.bot.service.tables.load(slow)
    assert footer(final) in h.last_table_message().text()  # the newest state, shown last
    sent = [c for c in calls[since:] if c.path.startswith(f"/channels/{h.channel.id}/messages")
            and c.method in ("POST", "PATCH")]
    # the request held, then one edit: not one per move made meanwhile
    assert [c.method for c in sent] == ["PATCH", "PATCH"], sent
    assert final.version - first.version >= 3



async def test_the_ai_plays_on_while_the_movers_own_reply_waits_for_discord(
        lb: Loopback, tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """A person's move hands the turn to the AI: the table and the AI seat go on at once, while
    the edit of the mover's own hand message still waits for Discord."""
    paced = PaceClock()
    h = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock,
                            thinking=Thinking(workers=0), pace=paced)
    tasks = h.bot.tasks
    # the table's paced edits do not wait for the held reply (it waits for the test)
    paced.tasks = lambda: [t for t in tasks._tasks if t not in tasks.endless
                           and not t.get_name().startswith("discord-ui")]
    try:
        await ai_plays_on(h, lb, monkeypatch)
    finally:
        await h.stop()


async def ai_plays_on(h: LiveBot, lb: Loopback, monkeypatch: pytest.MonkeyPatch) -> None:
    """The body of the test above."""
    from engine import apply, observe
    from engine.agents import make_agent

    tid = await open_table(h, ANN, [], ai=1)
    players = Players(h, tid, [ANN])
    while True:  # Ann's moves until the next one hands the turn to the AI
        rec = await h.bot.service.tables.load(tid)
        state = rec.game
        move = make_agent("heuristic", state.step).choose(observe(state, state.current))
        if apply(state, move)[0].current != state.current:
            break
        assert await players.step()
    hand = await players.open_hand(ANN)
    waiting, released = asyncio.Event(), asyncio.Event()
    real_hook = discord.webhook.async_.AsyncWebhookAdapter.request

    async def slow_reply(self: Any, route: Any, *args: Any, **kwargs: Any) -> Any:
        if (route.method == "PATCH" and route.path.endswith("/messages/@original")
                or route.method == "POST" and route.path.endswith("/callback")):
            waiting.set()
            await released.wait()
        return await real_hook(self, route, *args, **kwargs)

    monkeypatch.setattr(discord.webhook.async_.AsyncWebhookAdapter, "request", slow_reply)
    cid, value = offered(hand)[str(move)]
    ix = await (lb.click(ANN, hand, cid) if value is None
                else lb.select(ANN, hand, cid, [value]))
    await asyncio.wait_for(waiting.wait(), 20)  # the mover's reply is on its way
    await h.settle(but="discord-ui")  # the table's messages and the AI seat's turn
    after = await h.bot.service.tables.load(tid)
    assert after.version >= rec.version + 2, "the AI waited for the mover's own reply"
    assert after.status != "running" or after.game.current == state.current
    assert not h.bot.messages.feeds.busy(tid)  # the table message is shown meanwhile
    released.set()
    await ix.answered(20)
    await h.settle()
    assert after.status != "running" or await players.step()


def webhook_calls(calls: list[Call], ix: Any) -> list[Call]:
    """The requests that answered ``ix`` after its first response (edits, follow-ups)."""
    return [c for c in calls if c.path.startswith("/webhooks/") and ix.token in c.path]


async def test_a_hand_ready_soon_is_the_clicks_only_answer(bot: LiveBot,
                                                           calls: list[Call]) -> None:
    """Opening a hand and a move in it are each answered with the hand itself, in one request:
    a new private message, then the clicked message edited. Nothing is deferred first."""
    tid = await open_table(bot, ANN, [BOB])
    rec = await bot.bot.service.tables.load(tid)
    user = ANN if rec.seats[rec.game.current].user == ANN.id else BOB
    opened = await bot.click(user, bot.last_table_message(), HandButton.id_for(tid))
    hand = bot.reply(opened)
    assert opened.response_type == 4 and hand.owner == user.id and hand.attachments
    assert webhook_calls(calls, opened) == []
    move = next(iter(offered(hand)))
    played = await bot.play(user, hand, move, sure=True)
    assert played.response_type == 7 and bot.reply(played).id == hand.id
    assert webhook_calls(calls, played) == []
    answer = [c for c in calls if c.path.startswith(f"/interactions/{played.id}/")]
    assert [c.body["type"] for c in answer] == [7] and answer[0].body["data"]["components"]
    assert (await bot.bot.service.tables.load(tid)).version > rec.version


async def test_a_hand_not_ready_soon_is_acknowledged_first(
        bot: LiveBot, calls: list[Call], monkeypatch: pytest.MonkeyPatch) -> None:
    """When the hand is not drawn within the grace time, the click is acknowledged on its own
    (deferred: a "thinking" private message for a hand opened, nothing shown for a move), and
    the hand is edited in once it is ready."""
    bot.bot.clicks.grace = 0.01
    tid = await open_table(bot, ANN, [BOB])
    rec = await bot.bot.service.tables.load(tid)
    user = ANN if rec.seats[rec.game.current].user == ANN.id else BOB
    drawing = bot.bot.messages.hand_payload
    released = asyncio.Event()

    async def slow_hand(*args: Any, **kwargs: Any) -> Any:
        await released.wait()
        return await drawing(*args, **kwargs)

    monkeypatch.setattr(bot.bot.messages, "hand_payload", slow_hand)
    opened = await bot.lb.click(user, bot.last_table_message(), HandButton.id_for(tid))
    await opened.answered(20)
    assert opened.response_type == 5  # "thinking", privately
    assert not bot.reply(opened).components
    released.set()
    await bot.settle()
    hand = bot.reply(opened)
    assert hand.owner == user.id and offered(hand) and hand.attachments
    assert [c.method for c in webhook_calls(calls, opened)] == ["PATCH"]

    released.clear()
    move = next(iter(offered(hand)))
    cid, value = offered(hand)[move]
    played = await (bot.lb.click(user, hand, cid) if value is None
                    else bot.lb.select(user, hand, cid, [value]))
    await played.answered(20)
    assert played.response_type == 6  # deferred: the hand stays as it is meanwhile
    released.set()
    await bot.settle()
    assert [c.method for c in webhook_calls(calls, played)] == ["PATCH"]
    assert (await bot.bot.service.tables.load(tid)).version > rec.version
