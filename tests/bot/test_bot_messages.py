"""The table message on Discord's terms: a message Discord no longer lets the bot edit is posted
afresh (and pings the person to play), and the old one is deleted: the channel keeps one live
message per table (folded into a pointer only when Discord refuses the deletion)."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from bot_helpers import Clock
from live_bot import Call, LiveBot
from players import ANN, BOB, Players, TinyRenderer, open_table

from bot.discord_side.context import posted_at
from bot.discord_side.ui.custom_ids import HandButton
from loopback import Loopback
from loopback.permissions import SEND_MESSAGES


@pytest.fixture
def clock() -> Clock:
    """The bot's clock, starting at the time Discord's new ids tell (as a real bot's does)."""
    return Clock(start=float(int(time.time())))


def test_a_message_id_tells_when_it_was_posted() -> None:
    # the example of Discord's reference: 2016-04-30 11:18:25.796 UTC
    assert posted_at(175928847299117063) == 1462015105.796


async def test_a_table_message_too_old_to_edit_is_posted_afresh(bot: LiveBot,
                                                                calls: list[Call]) -> None:
    tid = await open_table(bot, ANN, [BOB])
    old = bot.last_table_message()
    # older than an hour, and the hour's edits used up: Discord answers 429 with code 30046
    bot.lb.rest_api.messages.old_message_edits = 0
    bot.lb.clock.advance(3601)
    since = len(calls)
    bot.bot.messages.mark_dirty(tid)  # any change of the table asks for an edit
    await bot.settle()
    # the edit of the table is refused; the old message is then deleted, never edited again
    assert [b.rule for b in bot.lb.breaches] == ["old-edit"]
    bot.lb.breaches.clear()
    new = bot.last_table_message()
    assert new.id != old.id
    assert (await bot.bot.service.tables.load(tid)).message_id == new.id
    rec = await bot.bot.service.tables.load(tid)
    to_play = rec.seats[rec.game.current].user
    assert to_play is not None
    post = next(c.body for c in calls[since:] if c.channel_post)
    assert f"<@{to_play}>" in new.text()  # the fresh message names who plays now...
    assert post["allowed_mentions"].get("users") == [str(to_play)]  # ...and pings them only
    assert new.mentions == [to_play]
    # the old message refuses edits too: it is deleted, so no button or ping is left on it
    assert old.deleted and not [m for m in bot.public() if m.id == old.id]
    assert [m.id for m in bot.public() if HandButton.id_for(tid) in m.custom_ids()] == [new.id]


async def test_an_older_table_message_is_deleted(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    old = bot.last_table_message()
    rec = await bot.bot.service.tables.load(tid)
    await bot.bot.messages.post_table(rec)  # a new turn's message
    await bot.settle()
    new = bot.last_table_message()
    assert new.id != old.id and old.deleted
    assert [m.id for m in bot.public() if HandButton.id_for(tid) in m.custom_ids()] == [new.id]


async def test_an_older_table_message_that_cannot_be_deleted_points_to_the_newer_one(
        bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    old = bot.last_table_message()
    rec = await bot.bot.service.tables.load(tid)
    bot.lb.inject_429(rf"/messages/{old.id}$", method="DELETE", count=10, retry_after=0.01)
    await bot.bot.messages.post_table(rec)  # a new turn's message
    await bot.settle()
    new = bot.last_table_message()
    assert new.id != old.id and not old.deleted
    assert not old.custom_ids() and not old.images()
    assert str(new.id) in old.text() and "<@" not in old.text()


async def test_a_slow_turn_played_hours_after_its_ping_is_pinged_once(bot: LiveBot,
                                                                      calls: list[Call]) -> None:
    """A slow match's turn is played the day after it began: its table message, posted (and
    pinging its person) as the turn began, is over an hour old, and Discord takes only a few
    edits an hour of such a message (JSON error 30046). The turn's moves never run into that
    limit, and the person playing is not pinged a second time for the turn they are playing:
    the table is posted afresh, without a ping, at their first move, and edited from then on."""
    tid = await open_table(bot, ANN, [BOB], timer=3 * 86400)
    rec = await bot.bot.service.tables.load(tid)
    mover = rec.seats[rec.game.current].user
    turn = (rec.game.round, rec.game.turn)
    first = bot.last_table_message()
    assert first.mentions == [mover]
    since = len(calls)
    bot.lb.clock.advance(20 * 3600)  # the turn is played the next day
    clock = bot.bot.service.clock
    clock.now += 20 * 3600  # type: ignore[attr-defined]
    players = Players(bot, tid, [ANN, BOB])
    moves = 0
    while (rec.game.round, rec.game.turn) == turn:
        assert await players.step()
        moves += 1
        rec = await bot.bot.service.tables.load(tid)
    await bot.settle()
    assert moves > 3  # more edits than Discord lets through on a message over an hour old
    assert not bot.lb.breaches
    pinged = [c.body["allowed_mentions"].get("users") for c in calls[since:]
              if c.channel_post and c.body.get("allowed_mentions", {}).get("users")]
    nxt = rec.seats[rec.game.current].user
    assert pinged == [[str(nxt)]]  # the next turn's person only: the mover was pinged before
    assert first.deleted
    assert [m.id for m in bot.public() if HandButton.id_for(tid) in m.custom_ids()] == [
        bot.last_table_message().id]


async def test_a_slow_turn_s_table_is_edited_where_the_bot_may_no_longer_post(
        bot: LiveBot) -> None:
    """A slow match's table message over an hour old, in a channel where a moderator took
    the bot's Send Messages since: it cannot be posted afresh, so it is edited, as it was."""
    tid = await open_table(bot, ANN, [BOB], timer=3 * 86400)
    first = bot.last_table_message()
    bot.lb.clock.advance(20 * 3600)
    clock = bot.bot.service.clock
    clock.now += 20 * 3600  # type: ignore[attr-defined]
    bot.channel.bot_permissions &= ~SEND_MESSAGES
    revision = bot.message(first).revision
    assert await Players(bot, tid, [ANN, BOB]).step()
    await bot.settle()
    assert not bot.message(first).deleted and bot.message(first).revision > revision
    assert (await bot.bot.service.tables.load(tid)).message_id == first.id


async def test_a_slow_turn_after_a_restart_posts_its_hour_old_table_afresh(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """The bot restarts while a slow match waits on its turn; the turn is played the next day.
    The table message's age is read from its id (Discord's ids tell when they were made), so
    the new process posts the table afresh at the first move, rather than running into
    Discord's few edits an hour of a message over an hour old."""
    db = tmp_path / "k.db"
    first_bot = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    tid = await open_table(first_bot, ANN, [BOB], timer=3 * 86400)
    first = first_bot.last_table_message()
    await first_bot.stop()
    lb.clock.advance(20 * 3600)  # the turn is played the next day
    clock.now += 20 * 3600
    lb.rest_api.messages.old_message_edits = 0  # any edit of the old message is refused
    bot = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    assert await Players(bot, tid, [ANN, BOB]).step()
    await bot.settle()
    assert not bot.lb.breaches
    assert bot.message(first).deleted
    assert (await bot.bot.service.tables.load(tid)).message_id == bot.last_table_message().id
    await bot.stop()
