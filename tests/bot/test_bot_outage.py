"""The table message during Discord's outage, on the stand-in: an edit Discord answers with a
server error (503: discord.py raises it at once; a 500 it retries on its own first) is tried
again after a growing pause on the bot's clock (passes of the timers) until the table message
shows the table as it is; a newer move shows the table instead, and nothing is tried again
once the table ended. A post is never tried again (Discord may have made it)."""
from __future__ import annotations

from typing import Any

from bot_helpers import Clock
from live_bot import CHANNEL, Call, LiveBot
from players import ANN, BOB, Players, before_a_turn_ends, open_table

from bot.discord_side.feed import RETRY_FIRST
from bot.storage.records import TableRecord
from engine import apply, observe
from engine.agents import make_agent
from i18n import msg, translate
from loopback import Loopback, Message
from loopback.world import Reply, Upload


class Outage:
    """Discord answers every edit of the message ``message`` (or, without one, every post in
    the channel) with 503 while :attr:`down`; the requests it refused are counted."""

    def __init__(self, lb: Loopback, message: Message | None) -> None:
        self.down = True
        self.refused = 0
        target = f"/channels/{CHANNEL}/messages" + (f"/{message.id}" if message else "")
        verb = "PATCH" if message else "POST"
        real = lb.world.rest

        async def rest(method: str, path: str, query: dict[str, str], auth: str | None,
                       body: Any, uploads: list[Upload]) -> Reply:
            if self.down and method.upper() == verb and path == target:
                self.refused += 1
                return Reply(503, {"message": "Service Unavailable", "code": 0})
            return await real(method, path, query, auth, body, uploads)

        lb.world.rest = rest  # type: ignore[method-assign]


def footer(record: TableRecord) -> str:
    """The round and move line of the table message showing ``record``."""
    state = record.game
    return translate(msg("bot.table.footer", round=state.round, step=state.step), "en")


def edits(calls: list[Call], since: int, message: Message) -> int:
    """The edits of ``message`` Discord took since call ``since``."""
    return sum(1 for c in calls[since:] if c.method == "PATCH"
               and c.path == f"/channels/{CHANNEL}/messages/{message.id}")


async def to_an_edit(bot: LiveBot, players: Players, tid: int) -> None:
    """Play on until the next move keeps the turn (it edits the table message)."""
    for _ in range(3000):
        state = (await bot.bot.service.tables.load(tid)).game
        action = make_agent("heuristic", state.step).choose(observe(state, state.current))
        after = apply(state, action)[0]
        if (after.round, after.turn) == (state.round, state.turn) and after.winner is None:
            return
        assert await players.step()
    raise AssertionError("no move that keeps the turn")


async def edit_refused(bot: LiveBot) -> tuple[int, Players, Message, Outage]:
    """Ann and Bob play on until a move edits the table message, and Discord refuses that
    edit: the table, its people, the table message and the outage (still down)."""
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    await to_an_edit(bot, players, tid)
    table = bot.last_table_message()
    outage = Outage(bot.lb, table)
    assert await players.step()  # the move is saved; its edit is refused
    assert outage.refused == 1 and bot.bot.messages.feeds.retrying(tid)
    return tid, players, table, outage


async def timers_pass(bot: LiveBot, clock: Clock, seconds: float) -> None:
    """``seconds`` go by, then a pass of the bot's timers' sweeps, settled."""
    clock.now += seconds
    for sweep in bot.bot.scheduler.sweeps:
        await sweep()
    await bot.settle()


async def test_an_edit_refused_by_discord_s_trouble_is_tried_again_until_it_shows_the_table(
        bot: LiveBot, calls: list[Call], clock: Clock) -> None:
    tid, _, table, outage = await edit_refused(bot)
    now = await bot.bot.service.tables.load(tid)
    feeds = bot.bot.messages.feeds
    assert footer(now) not in bot.message(table).text()  # stale meanwhile
    since = len(calls)
    await timers_pass(bot, clock, RETRY_FIRST - 1)  # not yet
    assert outage.refused == 1 and feeds.retrying(tid)
    await timers_pass(bot, clock, 1)  # tried again: still down
    assert outage.refused == 2 and feeds.retrying(tid)
    await timers_pass(bot, clock, RETRY_FIRST)  # the pause doubled: not yet
    assert outage.refused == 2
    outage.down = False
    await timers_pass(bot, clock, RETRY_FIRST)
    assert outage.refused == 2 and edits(calls, since, table) == 1
    assert not feeds.retrying(tid)
    assert bot.last_table_message().id == table.id
    assert footer(now) in bot.message(table).text()  # the table as it is
    await timers_pass(bot, clock, 3600)  # done: nothing more
    assert edits(calls, since, table) == 1


async def test_a_newer_move_shows_the_table_instead_of_the_edit_tried_again(
        bot: LiveBot, calls: list[Call], clock: Clock) -> None:
    tid, players, table, outage = await edit_refused(bot)
    feeds = bot.bot.messages.feeds
    outage.down = False
    assert await players.step()  # the next move is shown: the failed edit is not needed
    assert not feeds.retrying(tid)
    now = await bot.bot.service.tables.load(tid)
    assert footer(now) in bot.last_table_message().text()
    since = len(calls)
    await timers_pass(bot, clock, 3600)
    assert edits(calls, since, table) == 0 and outage.refused == 1


async def test_nothing_is_tried_again_once_the_table_ended(
        bot: LiveBot, calls: list[Call], clock: Clock) -> None:
    tid, players, table, outage = await edit_refused(bot)
    feeds = bot.bot.messages.feeds
    outage.down = False
    await bot.abandon(ANN)  # the table closes: its message says so, and loses its buttons
    assert (await bot.bot.service.tables.load(tid)).status == "abandoned"
    assert not feeds.retrying(tid)
    closed = bot.message(table).text()
    since = len(calls)
    await timers_pass(bot, clock, 3600)
    assert edits(calls, since, table) == 0 and outage.refused == 1
    assert bot.message(table).text() == closed and not bot.message(table).custom_ids()


async def test_a_post_instead_of_a_gone_table_message_is_not_tried_again(
        bot: LiveBot, calls: list[Call], clock: Clock) -> None:
    """The table message was deleted: the edit posts the table afresh, and that post, refused
    by Discord's trouble, is not tried again (it may have been made); the table's next change
    shows it."""
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    await to_an_edit(bot, players, tid)
    rec = await bot.bot.service.tables.load(tid)
    seat = rec.seats[rec.game.current].user
    assert seat is not None
    await players.open_hand(players.users[seat])  # the hand stays open
    bot.lb.delete_message(bot.last_table_message())
    outage = Outage(bot.lb, None)
    assert await players.step()
    feeds = bot.bot.messages.feeds
    assert outage.refused == 1 and not feeds.retrying(tid)
    since = len(calls)
    await timers_pass(bot, clock, 3600)
    assert outage.refused == 1 and not [c for c in calls[since:] if c.channel_post]
    outage.down = False
    bot.bot.messages.mark_dirty(tid)  # the table's next change asks for an edit
    await bot.settle()
    now = await bot.bot.service.tables.load(tid)
    assert footer(now) in bot.last_table_message().text()


async def test_a_new_turn_refused_by_discord_s_trouble_is_edited_in_later(
        bot: LiveBot, clock: Clock) -> None:
    """A new turn's post is refused (never tried again), and so is the edit that stands in for
    it: that edit is tried again, and the table message standing shows whose turn it is."""
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    svc = bot.bot.service
    await before_a_turn_ends(players)
    table = bot.last_table_message()
    posts, edits_ = Outage(bot.lb, None), Outage(bot.lb, table)
    assert await players.step()
    assert posts.refused == 1 and edits_.refused == 1
    assert bot.bot.messages.feeds.retrying(tid)
    posts.down = edits_.down = False
    await timers_pass(bot, clock, RETRY_FIRST)
    now = await svc.tables.load(tid)
    assert posts.refused == 1 and bot.last_table_message().id == table.id
    assert footer(now) in bot.message(table).text()
    assert f"<@{now.seats[now.game.current].user}>" in bot.message(table).text()
