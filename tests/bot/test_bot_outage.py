"""The table message during Discord's outage, on the stand-in: an edit Discord answers with a
server error (503: discord.py raises it at once; a 500 it retries on its own first) is tried
again after a growing pause on the bot's clock (passes of the timers) until the table message
shows the table as it is; a newer move shows the table instead, and nothing is tried again
once the table ended. A post is never tried again (Discord may have made it), but a game's first
table message (and its thread, and the channel's line of a rematch moved to its thread) which
nothing else would post before a restart, however long the outage lasts: its nonce makes Discord
give back the message a try made before its answer was lost, and once Discord may have
forgotten the nonce, that message is looked for first."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from bot_helpers import Clock
from in_threads import link, table_message
from live_bot import CHANNEL, Call, LiveBot, on_answer, table_id
from players import (
    ANN,
    BOB,
    EVE,
    Players,
    TinyRenderer,
    before_a_turn_ends,
    finished_match,
    open_table,
)
from storage.helpers import played

from bot.discord_side.feed import RETRIES, RETRY_FIRST, retry_pause
from bot.discord_side.ui.custom_ids import LobbyButton, RematchButton
from bot.storage.records import SeatInfo, TableRecord
from bot.workers.thinking import Thinking
from engine import apply, observe
from engine.agents import make_agent
from i18n import msg, translate
from loopback import Loopback, Message
from loopback.permissions import ATTACH_FILES, READ_MESSAGE_HISTORY, SEND_MESSAGES_IN_THREADS
from loopback.world import Reply, Upload


class Outage:
    """Discord answers every edit of the message ``message`` (or, without one, every post in
    the channel, and with ``reads`` every read of its messages too) with 503 while
    :attr:`down`; the requests it refused are counted."""

    def __init__(self, lb: Loopback, message: Message | None, reads: bool = False) -> None:
        self.down = True
        self.refused = 0
        target = f"/channels/{CHANNEL}/messages" + (f"/{message.id}" if message else "")
        verbs = ("PATCH",) if message else ("POST", "GET") if reads else ("POST",)
        real = lb.world.rest

        async def rest(method: str, path: str, query: dict[str, str], auth: str | None,
                       body: Any, uploads: list[Upload]) -> Reply:
            if self.down and method.upper() in verbs and path == target:
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


async def test_a_game_s_first_table_message_refused_by_discord_s_trouble_is_posted_later(
        bot: LiveBot, calls: list[Call], clock: Clock) -> None:
    """Start's table message is refused (503) while both seats are people's (no AI move
    follows to post it): it is tried again on a later pass of the timers, so the first player
    gets their buttons and the lobby message goes, without waiting for a restart."""
    outage = Outage(bot.lb, None)
    tid = await open_table(bot, ANN, [BOB])
    assert outage.refused == 1
    with pytest.raises(AssertionError):
        bot.last_table_message()
    outage.down = False
    await timers_pass(bot, clock, RETRY_FIRST)
    now = await bot.bot.service.tables.load(tid)
    table = bot.last_table_message()
    assert f"<@{now.seats[now.game.current].user}>" in table.text()
    assert now.message_id == table.id
    assert [m.id for m in bot.public()] == [table.id]  # the lobby message went
    since = len(calls)
    await timers_pass(bot, clock, 3600)  # done: nothing more
    assert not [c for c in calls[since:] if c.channel_post]


async def test_a_game_s_first_table_message_is_not_given_up_for_a_change_made_meanwhile(
        bot: LiveBot, clock: Clock) -> None:
    """Start's table message is refused by a long outage, and meanwhile Bob leaves the match
    (his seat goes to the AI: the table changed, not whose turn it is): the start is still
    tried again, rather than given up for an edit of a table message never posted, so once
    Discord is back Ann is pinged to play and the lobby message goes, without waiting for a
    restart."""
    outage = Outage(bot.lb, None)
    tid = await open_table(bot, ANN, [BOB], ai=1)
    assert outage.refused == 1
    assert "You left table #1." in bot.said(await bot.command(BOB, "leave"))
    await bot.settle()
    await outage_passes(bot, clock, range(RETRIES + 1))  # over twenty minutes
    outage.down = False
    await outage_passes(bot, clock, range(RETRIES + 1, RETRIES + 2))
    now = await bot.bot.service.tables.load(tid)
    assert now.seats[1].ai and now.game.current == 0
    table = bot.last_table_message()
    assert now.message_id == table.id
    assert [m.id for m in bot.public()] == [table.id]  # the lobby message went
    assert f"<@{ANN.id}>" in table.text()


class AnswerLost:
    """The connection drops as Discord answers the bot's next post in the channel (or the
    next POST whose path ends with ``ends``): Discord did what was asked, and the bot is not
    told (it sees the connection fail)."""

    def __init__(self, bot: LiveBot, ends: str = f"/channels/{CHANNEL}/messages") -> None:
        self.lost: list[str] = []
        session: Any = bot.bot.http._HTTPClient__session  # type: ignore[attr-defined]
        real = session.request
        outer = self

        class Lost:
            def __init__(self, made: Any) -> None:
                self.made = made

            async def __aenter__(self) -> Any:
                answer = await self.made.__aenter__()
                await answer.read()
                await self.made.__aexit__(None, None, None)
                raise aiohttp.ServerDisconnectedError()

            async def __aexit__(self, *exc: object) -> None:
                return None

        def request(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
            made = real(method, url, *args, **kwargs)
            if not outer.lost and method == "POST" and str(url).endswith(ends):
                outer.lost.append(str(url))
                return Lost(made)
            return made

        session.request = request


async def test_a_game_s_first_table_message_whose_answer_was_lost_is_not_posted_twice(
        bot: LiveBot, calls: list[Call], clock: Clock) -> None:
    """Discord made Start's table message but the connection dropped before the bot heard
    so: tried again, the post (its nonce enforced) gives back the message made, so the channel
    holds one table message, and the lobby message goes."""
    lost = AnswerLost(bot)
    tid = await open_table(bot, ANN, [BOB])
    assert lost.lost
    made = bot.last_table_message()
    await timers_pass(bot, clock, RETRY_FIRST)
    now = await bot.bot.service.tables.load(tid)
    assert now.message_id == made.id
    assert [m.id for m in bot.public()] == [made.id]  # one table message; the lobby went
    assert f"<@{now.seats[now.game.current].user}>" in made.text()


async def test_a_turn_begun_after_a_first_table_message_whose_answer_was_lost_pings_its_player(
        bot: LiveBot, clock: Clock) -> None:
    """Discord made Start's table message (pinging Ann) but the answer was lost; Ann, pinged,
    opens her hand from it and ends her turn at once: the start, tried again for Bob's turn,
    is given back that message for its nonce, and does not leave it standing as the table
    message, saying it is still Ann's turn: Bob is pinged by a table message showing the
    table as it is, the older one gone."""
    lost = AnswerLost(bot)
    tid = await open_table(bot, ANN, [BOB])
    assert lost.lost
    made = bot.last_table_message()
    assert f"<@{ANN.id}>" in made.text()
    state = (await bot.bot.service.tables.load(tid)).game
    ends = next(a for a in observe(state, state.current).legal
                if apply(state, a)[0].turn != state.turn)
    hand = await Players(bot, tid, [ANN, BOB]).open_hand(ANN)
    await bot.play(ANN, hand, str(ends))
    await timers_pass(bot, clock, RETRY_FIRST)
    now = await bot.bot.service.tables.load(tid)
    assert now.seats[now.game.current].user == BOB.id
    table = bot.last_table_message()
    assert now.message_id == table.id and footer(now) in table.text()
    assert BOB.id in table.mentions and f"<@{BOB.id}>, it is your turn" in table.text()
    assert [m.id for m in bot.public()] == [table.id]  # the older one went


async def outage_passes(bot: LiveBot, clock: Clock, tries: range) -> None:
    """The bot's clock (and the stand-in's) moves on through the retries ``tries`` (counted
    from 0) of a failed start, each pass of the timers once its pause is over."""
    for tried in tries:
        bot.lb.clock.advance(retry_pause(tried))
        await timers_pass(bot, clock, retry_pause(tried))


async def test_a_game_s_first_table_message_is_posted_after_a_long_outage(
        bot: LiveBot, clock: Clock) -> None:
    """Discord refuses every post for longer than the retries' doubling pauses add up to:
    Start's table message is still tried again, at the longest pause, and posted once Discord
    is back, without waiting for a restart."""
    outage = Outage(bot.lb, None)
    tid = await open_table(bot, ANN, [BOB])
    await outage_passes(bot, clock, range(RETRIES + 4))  # over half an hour
    assert outage.refused == RETRIES + 5
    assert bot.bot.messages.feeds.retrying(tid)
    outage.down = False
    await outage_passes(bot, clock, range(RETRIES + 4, RETRIES + 5))
    now = await bot.bot.service.tables.load(tid)
    table = bot.last_table_message()
    assert now.message_id == table.id
    assert [m.id for m in bot.public()] == [table.id]  # the lobby message went


async def test_a_game_s_start_refused_for_a_permission_for_long_is_posted_once_granted(
        bot: LiveBot, clock: Clock) -> None:
    """A moderator takes Attach Files from the bot the moment Ann's Start is answered, and
    grants it again only after the retries' doubling pauses add up: it is Ann's turn, so no
    move would ever post the table, and nobody could play without it. The start is still
    tried again, at the longest pause, and the table is posted pinging Ann once the bot may."""
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    await bot.click(BOB, lobby, LobbyButton.id_for(tid, "join", None))
    on_answer(bot.lb, lobby, lambda: setattr(
        bot.channel, "bot_permissions", bot.channel.bot_permissions & ~ATTACH_FILES))
    await bot.click(ANN, lobby, LobbyButton.id_for(tid, "start", None))
    assert (await bot.bot.service.tables.load(tid)).message_id is None
    await outage_passes(bot, clock, range(RETRIES + 4))  # over half an hour
    assert bot.bot.messages.feeds.retrying(tid)
    bot.channel.bot_permissions |= ATTACH_FILES
    await outage_passes(bot, clock, range(RETRIES + 4, RETRIES + 5))
    now = await bot.bot.service.tables.load(tid)
    table = bot.last_table_message()
    assert now.message_id == table.id and now.seats[now.game.current].user == ANN.id
    assert f"<@{ANN.id}>" in table.text()
    assert [m.id for m in bot.public()] == [table.id]  # the lobby message went


async def test_a_game_s_start_refused_for_long_warns_a_few_times_not_every_retry(
        bot: LiveBot, clock: Clock, caplog: pytest.LogCaptureFixture) -> None:
    """A start refused for a permission taken from the bot is tried again every few minutes
    for as long as the permission stays away, which may be forever: the log warns for the
    first tries as for an edit, then once more that it goes on trying, not once every try
    (about 360 warning lines a day for each such table), and says so when it is posted."""
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    await bot.click(BOB, lobby, LobbyButton.id_for(tid, "join", None))
    on_answer(bot.lb, lobby, lambda: setattr(
        bot.channel, "bot_permissions", bot.channel.bot_permissions & ~ATTACH_FILES))
    caplog.clear()
    await bot.click(ANN, lobby, LobbyButton.id_for(tid, "start", None))
    await outage_passes(bot, clock, range(4 * RETRIES))  # hours of retries
    assert bot.bot.messages.feeds.retrying(tid)
    warned = [r for r in caplog.records if r.levelname == "WARNING"
              and "of its message failed" in r.getMessage()]
    assert RETRIES <= len(warned) <= RETRIES + 2, [r.getMessage() for r in warned]
    bot.channel.bot_permissions |= ATTACH_FILES
    caplog.set_level(logging.INFO, logger="karak.bot")
    await outage_passes(bot, clock, range(4 * RETRIES, 4 * RETRIES + 1))
    assert (await bot.bot.service.tables.load(tid)).message_id == bot.last_table_message().id
    assert any(f"table {tid}" in r.getMessage() and "went through" in r.getMessage()
               for r in caplog.records if r.levelname == "INFO"), caplog.text


def attach_files_taken_at_start(bot: LiveBot) -> None:
    """A moderator takes Attach Files from the bot in the channel the moment its first table
    message of the game is on its way (after Start was checked and answered)."""
    real = bot.lb.world.rest
    taken: list[bool] = []

    async def rest(method: str, path: str, query: dict[str, str], auth: str | None,
                   body: Any, uploads: list[Upload]) -> Reply:
        if (method.upper() == "POST" and path == f"/channels/{CHANNEL}/messages" and uploads
                and not taken):
            taken.append(True)
            bot.channel.bot_permissions &= ~ATTACH_FILES
        return await real(method, path, query, auth, body, uploads)

    bot.lb.world.rest = rest  # type: ignore[method-assign]


@pytest.mark.parametrize("by", ["click", "command"])
async def test_the_host_is_told_privately_when_the_game_s_table_is_refused_at_start(
        bot: LiveBot, clock: Clock, by: str) -> None:
    """Discord refuses the game's first table message for a permission taken from the bot
    after Start was checked: the channel still shows the lobby, and nobody would know why
    the game does not show. Ann, who started it (Start clicked, or /goblin start), is told
    privately (the answer to her click or command needs no permission in the channel) where
    the table could not be posted, the permissions a table needs there, and that it is
    tried again; the table is posted once the permission is back."""
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    await bot.click(BOB, lobby, LobbyButton.id_for(tid, "join", None))
    attach_files_taken_at_start(bot)
    ix = (await bot.click(ANN, lobby, LobbyButton.id_for(tid, "start", None)) if by == "click"
          else await bot.command(ANN, "start"))
    told = [t for t in bot.said(ix) if "did not let me post" in t]
    assert told == [
        f"Table #{tid} has started, but Discord did not let me post its table message in "
        f"<#{CHANNEL}>: I probably lack one of these permissions there: View Channel, Send "
        "Messages, Embed Links, Attach Files. Ask an admin to grant it to the bot. I keep "
        "trying: the table message will appear within a few minutes once I am allowed to post it."
    ], bot.said(ix)
    assert (await bot.bot.service.tables.load(tid)).message_id is None
    await timers_pass(bot, clock, RETRY_FIRST)  # refused again: told once
    assert len([t for t in bot.said(ix) if "did not let me post" in t]) == 1
    bot.channel.bot_permissions |= ATTACH_FILES
    await timers_pass(bot, clock, retry_pause(1))
    now = await bot.bot.service.tables.load(tid)
    assert now.message_id == bot.last_table_message().id


def test_the_start_withheld_notice_promises_the_table_only_once_the_bot_may_post_it() -> None:
    """The table message appears a few minutes after the bot may post it, not a few minutes
    after the notice: a moderator may take days to give the permission back."""
    told = msg("bot.done.start_withheld", table=7, channel="<#1>", needed="View Channel")
    assert translate(told, "fr").endswith(
        "apparaîtra dans les minutes qui suivront le moment où je pourrai le publier.")
    assert translate(told, "cs").endswith("poté, co ji budu moct zveřejnit.")


async def test_the_host_of_a_match_in_a_thread_is_told_the_thread_s_permissions(
        bot: LiveBot) -> None:
    """Ann's lobby was opened in a thread someone started: a moderator takes Send Messages in
    Threads from the bot there the moment her Start is answered. She is told the permissions
    a table needs in a thread, Send Messages in Threads among them, not Send Messages, which
    the bot may well hold and which an admin would grant in vain."""
    thread = bot.lb.create_thread(bot.channel, "chat", owner=ANN)
    await bot.settle()
    await bot.command(ANN, "new", channel=thread)
    lobby = bot.public(thread)[-1]
    tid = table_id(lobby)
    await bot.click(BOB, lobby, LobbyButton.id_for(tid, "join", None))
    on_answer(bot.lb, lobby, lambda: setattr(
        thread, "bot_permissions", thread.bot_permissions & ~SEND_MESSAGES_IN_THREADS))
    ix = await bot.click(ANN, lobby, LobbyButton.id_for(tid, "start", None))
    told = [t for t in bot.said(ix) if "did not let me post" in t]
    assert len(told) == 1, bot.said(ix)
    assert (f"in <#{thread.id}>: I probably lack one of these permissions there: View "
            "Channel, Send Messages in Threads, Embed Links, Attach Files.") in told[0]
    assert (await bot.bot.service.tables.load(tid)).message_id is None


async def test_a_first_table_message_made_before_a_long_outage_is_not_posted_twice(
        bot: LiveBot, clock: Clock) -> None:
    """Discord made Start's table message but the answer was lost, then refused every post
    for longer than it remembers the post's nonce: the start tried again after that finds the
    message made instead of posting a second one."""
    lost = AnswerLost(bot)
    tid = await open_table(bot, ANN, [BOB])
    assert lost.lost
    made = bot.last_table_message()
    outage = Outage(bot.lb, None, reads=True)
    await outage_passes(bot, clock, range(3))
    assert outage.refused == 3
    outage.down = False
    await outage_passes(bot, clock, range(3, 4))  # 225 s on: Discord forgot the nonce
    now = await bot.bot.service.tables.load(tid)
    assert now.message_id == made.id
    assert [m.id for m in bot.public()] == [made.id]  # one table message; the lobby went
    assert f"<@{now.seats[now.game.current].user}>" in made.text()


async def test_a_first_table_message_is_posted_again_where_the_bot_may_not_read_history(
        bot: LiveBot, clock: Clock) -> None:
    """As above, where the bot may not read the channel's history (Discord then lists no
    messages): it cannot find the message made, and posts the table again rather than leave
    the match unshown."""
    lost = AnswerLost(bot)
    tid = await open_table(bot, ANN, [BOB])
    assert lost.lost
    made = bot.last_table_message()
    bot.channel.bot_permissions &= ~READ_MESSAGE_HISTORY
    outage = Outage(bot.lb, None, reads=True)
    await outage_passes(bot, clock, range(3))
    outage.down = False
    await outage_passes(bot, clock, range(3, 4))
    now = await bot.bot.service.tables.load(tid)
    assert now.message_id is not None and now.message_id != made.id
    assert now.message_id in [m.id for m in bot.public()]


async def test_a_match_s_thread_refused_by_discord_s_trouble_is_opened_later(
        h: LiveBot, clock: Clock) -> None:
    """Discord answers 503 when Start opens the match's thread: the match is not moved to
    the channel with its host told a permission is missing (none is); its start is tried
    again on a later pass of the timers, which opens the thread and posts the table there."""
    down = [True]
    refused: list[str] = []
    real = h.lb.world.rest

    async def rest(method: str, path: str, query: dict[str, str], auth: str | None,
                   body: Any, uploads: list[Upload]) -> Reply:
        if down[0] and method.upper() == "POST" and path.endswith("/threads"):
            refused.append(path)
            return Reply(503, {"message": "Service Unavailable", "code": 0})
        return await real(method, path, query, auth, body, uploads)

    h.lb.world.rest = rest  # type: ignore[method-assign]
    tid = await open_table(h, ANN, [BOB])
    assert refused
    down[0] = False
    await timers_pass(h, clock, RETRY_FIRST)
    now = await h.bot.service.tables.load(tid)
    assert now.thread_id is not None
    thread = h.lb.channel(now.thread_id)
    assert now.message_id == table_message(h, thread).id
    assert [m.id for m in h.public()] == [now.lobby_message_id]  # the channel's line alone
    assert h.lb.message(now.lobby_message_id).text().endswith(link(thread))


async def test_a_match_s_thread_whose_answer_was_lost_is_taken_up(
        h: LiveBot, clock: Clock) -> None:
    """Discord opened the match's thread but the connection dropped before the bot heard so:
    the start tried again finds the thread it opened (Discord opens one a message) and plays
    the match there, rather than in the channel with its host told a permission is missing."""
    lost = AnswerLost(h, "/threads")
    tid = await open_table(h, ANN, [BOB])
    assert lost.lost
    await timers_pass(h, clock, RETRY_FIRST)
    now = await h.bot.service.tables.load(tid)
    assert now.thread_id is not None and now.thread_id == now.lobby_message_id
    thread = h.lb.channel(now.thread_id)
    assert now.message_id == table_message(h, thread).id
    assert [m.id for m in h.public()] == [now.lobby_message_id]  # the channel's line alone
    assert h.lb.message(now.lobby_message_id).text().endswith(link(thread))


async def test_an_edit_refused_while_the_bot_may_not_view_the_channel_is_made_once_it_may(
        bot: LiveBot, clock: Clock) -> None:
    """A moderator hides the match's channel from the bot for a while (View Channel taken):
    its people play on, answered privately, but the table message can be neither edited nor
    posted afresh. Once the bot may view the channel again, the edit is tried again on a
    pass of the timers, so the table shows the turn as it stands, not as it was when the
    channel was hidden, without waiting for a move nobody knows is theirs."""
    from loopback.permissions import VIEW_CHANNEL

    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    await before_a_turn_ends(players)
    table = bot.last_table_message()
    bot.channel.bot_permissions &= ~VIEW_CHANNEL
    assert await players.step()  # the turn ends: the move is saved, nothing can be shown
    await bot.settle()
    now = await bot.bot.service.tables.load(tid)
    assert footer(now) not in bot.message(table).text()
    bot.channel.bot_permissions |= VIEW_CHANNEL
    await timers_pass(bot, clock, RETRY_FIRST)
    shown = bot.last_table_message()
    assert footer(now) in shown.text()
    assert f"<@{now.seats[now.game.current].user}>" in shown.text()



async def rematch_line_lost(h: LiveBot, clock: Clock) -> tuple[Message, TableRecord]:
    """Ann's match with two AI seats, played in a thread, ended; her Rematch starts the next
    one at once, whose line Discord makes in the channel but whose answer is lost, then Discord
    refuses every post and read in the channel for longer than it remembers the line's nonce:
    the line made, and the rematch once Discord is back."""
    alone = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
             SeatInfo(ai=True, hero="taia", level="easy"),
             SeatInfo(ai=True, hero="argentus", level="easy"))
    tid = await finished_match(h.store, played(2), seats=alone, threaded=True)
    await h.bot.poster.announce_end(await h.bot.service.tables.load(tid))
    await h.settle()
    lost = AnswerLost(h)
    await h.click(ANN, h.public()[-1], RematchButton.id_for(tid, "offer"))
    assert lost.lost
    made = [m for m in h.public() if "are playing" in m.text()]
    assert len(made) == 1
    outage = Outage(h.lb, None, reads=True)
    await outage_passes(h, clock, range(3))
    assert outage.refused == 3
    outage.down = False
    await outage_passes(h, clock, range(3, 4))  # 225 s on: Discord forgot the nonce
    new = await h.store.active_in_channel(h.lb.threads_of(h.channel)[-1].id)
    assert new is not None and new != tid
    return made[0], await h.bot.service.tables.load(new)


async def test_a_rematch_s_line_made_before_a_long_outage_is_not_posted_twice(
        h: LiveBot, clock: Clock) -> None:
    """The start of a rematch played in a thread, tried again once Discord forgot its line's
    nonce, finds the line made instead of posting a second one: the channel holds one line,
    which links the rematch's thread, where its table is."""
    made, now = await rematch_line_lost(h, clock)
    assert now.lobby_message_id == made.id and now.thread_id is not None
    assert [m.id for m in h.public() if "are playing" in m.text()] == [made.id]
    thread = h.lb.channel(now.thread_id)
    assert h.lb.message(made.id).text().endswith(link(thread))
    assert table_message(h, thread).id == now.message_id


async def test_a_rematch_s_line_is_posted_again_where_the_bot_may_not_read_history(
        h: LiveBot, clock: Clock) -> None:
    """As above, where the bot may not read the channel's history (Discord then lists no
    messages): it cannot find the line made, and posts it again rather than leave the rematch
    unshown; the match is played in its thread."""
    h.channel.bot_permissions &= ~READ_MESSAGE_HISTORY
    made, now = await rematch_line_lost(h, clock)
    assert now.lobby_message_id is not None and now.lobby_message_id != made.id
    assert now.thread_id is not None
    thread = h.lb.channel(now.thread_id)
    assert table_message(h, thread).id == now.message_id
    assert h.lb.message(now.lobby_message_id).text().endswith(link(thread))


async def test_a_first_table_message_made_before_a_restart_past_its_nonce_is_not_posted_twice(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """Discord made Start's table message but the answer was lost, then the bot was stopped
    and started again on the same database once Discord forgot the post's nonce (a longer
    outage, a slow restart): the restarted bot, which cannot know when the stopped one tried,
    finds the message made instead of posting a second one beside it."""
    db = tmp_path / "k.db"
    first = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    lost = AnswerLost(first)
    tid = await open_table(first, ANN, [BOB])
    assert lost.lost
    made = first.last_table_message()
    await first.stop()
    lb.clock.advance(300)  # Discord forgot the nonce meanwhile
    clock.now += 300
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    now = await again.bot.service.tables.load(tid)
    assert now.message_id == made.id
    assert [m.id for m in again.public()] == [made.id]  # one table message; the lobby went
    await again.stop()


async def test_a_match_left_to_the_ai_that_ends_before_its_start_is_posted_opens_its_thread(
        h: LiveBot, clock: Clock) -> None:
    """Discord answers 503 when Start opens the match's thread, and meanwhile Ann and Bob
    both leave the match to the AI, which plays it to its end before the start is tried
    again: the match still moves to its thread, its end is posted there (not in the channel,
    without the thread), and the channel keeps its line telling the result."""
    down = [True]
    real = h.lb.world.rest

    async def rest(method: str, path: str, query: dict[str, str], auth: str | None,
                   body: Any, uploads: list[Upload]) -> Reply:
        if down[0] and method.upper() == "POST" and path.endswith("/threads"):
            return Reply(503, {"message": "Service Unavailable", "code": 0})
        return await real(method, path, query, auth, body, uploads)

    h.lb.world.rest = rest  # type: ignore[method-assign]
    tid = await open_table(h, ANN, [BOB])
    await h.command(ANN, "leave")
    await h.command(BOB, "leave")
    await h.settle()
    ended = await h.bot.service.tables.load(tid)
    assert ended.status == "finished"
    down[0] = False
    await outage_passes(h, clock, range(RETRIES + 1))
    now = await h.bot.service.tables.load(tid)
    assert now.thread_id is not None, [m.text() for m in h.public()]
    thread = h.lb.channel(now.thread_id)
    assert [m.id for m in h.public()] == [now.lobby_message_id]  # the channel's line alone
    assert " won against " in h.lb.message(now.lobby_message_id).text()
    [final] = h.public(thread)
    assert final.id == now.message_id and "The game is over" in final.text()
    assert RematchButton.id_for(tid, "offer") in final.custom_ids()


async def test_a_match_left_to_the_ai_that_ends_during_an_outage_at_its_start_shows_its_end(
        bot: LiveBot, clock: Clock) -> None:
    """Discord refuses every post from Start on (503), and meanwhile Ann and Bob both leave
    the match to the AI, which plays it to its end: the start is still tried again once
    Discord is back, and the end follows it, so the channel shows the final table in place of
    the lobby message, without waiting for a restart."""
    outage = Outage(bot.lb, None)
    tid = await open_table(bot, ANN, [BOB])
    await bot.command(ANN, "leave")
    await bot.command(BOB, "leave")
    await bot.settle()
    assert (await bot.bot.service.tables.load(tid)).status == "finished"
    await outage_passes(bot, clock, range(3))
    outage.down = False
    await outage_passes(bot, clock, range(3, RETRIES + 1))
    now = await bot.bot.service.tables.load(tid)
    [final] = bot.public()
    assert final.id == now.message_id and "The game is over" in final.text()
    assert RematchButton.id_for(tid, "offer") in final.custom_ids()


async def test_the_same_player_s_next_turn_after_a_lost_first_table_message_pings_them(
        bot: LiveBot, clock: Clock) -> None:
    """Discord made Start's table message (pinging Ann) but the answer was lost, and then
    refuses every post for a while (503); Ann, pinged, plays her turn to its end from her
    hand, the AI seat plays its own, and Ann's next turn begins: the start, tried again once
    Discord is back, is given back the message pinging Ann for her first turn, and does not
    just edit it (no ping for a turn she may not know began): a new table message pings her,
    the older one gone."""
    lost = AnswerLost(bot)
    tid = await open_table(bot, ANN, [], ai=1)
    assert lost.lost
    made = bot.last_table_message()
    first = await bot.bot.service.tables.load(tid)
    assert first.seats[first.game.current].user == ANN.id and f"<@{ANN.id}>" in made.text()
    outage = Outage(bot.lb, None)
    players = Players(bot, tid, [ANN])
    while True:  # Ann plays her turn; the AI seat plays its own
        assert await players.step()
        now = await bot.bot.service.tables.load(tid)
        if now.game.round != first.game.round:
            break
    assert now.seats[now.game.current].user == ANN.id and outage.refused
    outage.down = False
    await timers_pass(bot, clock, RETRY_FIRST)
    now = await bot.bot.service.tables.load(tid)
    table = bot.last_table_message()
    assert now.message_id == table.id and footer(now) in table.text()
    assert table.id != made.id and ANN.id in table.mentions
    assert [m.id for m in bot.public()] == [table.id]  # the older one went


async def test_a_match_left_to_the_ai_that_ended_before_its_start_opens_its_thread_on_restart(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """Discord answers 503 whenever Start opens the match's thread, and meanwhile Ann and Bob
    both leave the match to the AI, which plays it to its end; the bot is stopped before the
    start is tried again, and started again once Discord is back: the restarted bot still
    moves the match to its thread and posts its end there (not in the channel, without the
    thread), and the lobby message makes way for the channel's line telling the result."""
    db = tmp_path / "k.db"
    first = await LiveBot.start(lb, db, TinyRenderer(), clock=clock,
                                thinking=Thinking(workers=0), threads=True)
    down = [True]
    real = lb.world.rest

    async def rest(method: str, path: str, query: dict[str, str], auth: str | None,
                   body: Any, uploads: list[Upload]) -> Reply:
        if down[0] and method.upper() == "POST" and path.endswith("/threads"):
            return Reply(503, {"message": "Service Unavailable", "code": 0})
        return await real(method, path, query, auth, body, uploads)

    lb.world.rest = rest  # type: ignore[method-assign]
    tid = await open_table(first, ANN, [BOB])
    await first.command(ANN, "leave")
    await first.command(BOB, "leave")
    await first.settle()
    assert (await first.bot.service.tables.load(tid)).status == "finished"
    await first.stop()
    down[0] = False
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock,
                                thinking=Thinking(workers=0), threads=True)
    await again.settle()
    now = await again.bot.service.tables.load(tid)
    assert now.thread_id is not None, [m.text() for m in again.public()]
    thread = lb.channel(now.thread_id)
    assert [m.id for m in again.public()] == [now.lobby_message_id]  # the channel's line alone
    assert " won against " in lb.message(now.lobby_message_id).text()
    [final] = again.public(thread)
    assert final.id == now.message_id and "The game is over" in final.text()
    assert RematchButton.id_for(tid, "offer") in final.custom_ids()
    await again.stop()


async def test_a_player_s_next_turn_after_a_lost_first_table_message_is_pinged_after_a_restart(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """Discord made Start's table message (pinging Ann) but the answer was lost, and then
    refuses every post (503); Ann, pinged, plays her turn from her hand, the AI seat plays its
    own, and Ann's next turn begins; the bot is stopped and started again once Discord is
    back: the start taken up finds the message pinging Ann for her first turn, and does not
    just edit it (edits never ping): a new table message pings her, the older one gone."""
    db = tmp_path / "k.db"
    first = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    lost = AnswerLost(first)
    tid = await open_table(first, ANN, [], ai=1)
    assert lost.lost
    made = first.last_table_message()
    began = await first.bot.service.tables.load(tid)
    assert began.seats[began.game.current].user == ANN.id and f"<@{ANN.id}>" in made.text()
    outage = Outage(lb, None)
    players = Players(first, tid, [ANN])
    while True:  # Ann plays her turn; the AI seat plays its own
        assert await players.step()
        now = await first.bot.service.tables.load(tid)
        if now.game.round != began.game.round:
            break
    assert now.seats[now.game.current].user == ANN.id and outage.refused
    await first.stop()
    outage.down = False
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    await again.settle()
    now = await again.bot.service.tables.load(tid)
    table = again.last_table_message()
    assert now.message_id == table.id and footer(now) in table.text()
    assert table.id != made.id and ANN.id in table.mentions
    assert [m.id for m in again.public()] == [table.id]  # the older one went
    await again.stop()


async def test_a_learner_is_told_privately_when_the_guided_match_s_table_is_refused(
        bot: LiveBot, clock: Clock) -> None:
    """/goblin learn starts its match at once: when Discord refuses its first table message
    for a permission taken from the bot after the command was checked, the learner has only
    their hand, and no table to open it from again. They are told privately, as a host who
    clicked Start is, once, below their hand (which stays their answer); the table is posted
    once the permission is back."""
    attach_files_taken_at_start(bot)
    ix = await bot.command(ANN, "learn")
    hand = bot.reply(ix)
    assert hand.owner == ANN.id and "Your hand" in hand.text(), hand.text()
    tid = (await bot.bot.service.tables.in_channel(CHANNEL, ANN.id)).id
    told = [t for t in bot.said(ix) if "did not let me post" in t]
    assert told == [
        f"Table #{tid} has started, but Discord did not let me post its table message in "
        f"<#{CHANNEL}>: I probably lack one of these permissions there: View Channel, Send "
        "Messages, Embed Links, Attach Files. Ask an admin to grant it to the bot. I keep "
        "trying: the table message will appear within a few minutes once I am allowed to post it."
    ], bot.said(ix)
    await timers_pass(bot, clock, RETRY_FIRST)  # refused again: told once
    assert len([t for t in bot.said(ix) if "did not let me post" in t]) == 1
    bot.channel.bot_permissions |= ATTACH_FILES
    await timers_pass(bot, clock, retry_pause(1))
    assert (await bot.bot.service.tables.load(tid)).message_id == bot.last_table_message().id


async def test_status_before_the_first_table_message_says_it_is_not_posted_yet(
        bot: LiveBot) -> None:
    """Eve asks /goblin status after Start, while Discord refuses the game's first table
    message (a permission taken from the bot): her copy does not call the lobby message "the
    table message" nor link to it (it is deleted once the table is posted); it says the table
    message is not in the channel yet."""
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    await bot.click(BOB, lobby, LobbyButton.id_for(tid, "join", None))
    attach_files_taken_at_start(bot)
    await bot.click(ANN, lobby, LobbyButton.id_for(tid, "start", None))
    assert (await bot.bot.service.tables.load(tid)).message_id is None
    text = bot.reply(await bot.command(EVE, "status")).text()
    assert str(lobby.id) not in text and "[the table message]" not in text, text
    assert "the table message is not in the channel yet" in text, text
