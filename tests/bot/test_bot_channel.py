"""A tidy channel: each table keeps one live table message (older ones deleted as turns pass,
the lobby message and the lines about turn timers too, so a whole match leaves its final table
message and its ratings),
/goblin status links to that very message with a real link, and /goblin abandon of a running
match asks once, answers at once and only privately."""

from __future__ import annotations

import asyncio
import re

from bot_helpers import Clock, holding
from live_bot import LiveBot, resolve
from players import ANN, BOB, EVE, Players, open_table

from bot.discord_side.ui.custom_ids import AbandonButton, HandButton


async def test_turns_leave_one_table_message_in_the_channel(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    posted = set()
    for _ in range(60):
        assert await players.step()
        await bot.settle()
        posted.add(bot.last_table_message().id)
    assert len(posted) > 2  # turns passed, each person's turn posted a new message (a ping)
    tables = [m for m in bot.public() if HandButton.id_for(tid) in m.custom_ids()]
    stubs = [m for m in bot.public() if "newer message" in m.text()]
    assert len(tables) == 1 and not stubs, [m.text()[:80] for m in bot.public()]
    assert (await bot.bot.service.tables.load(tid)).message_id == tables[0].id


async def test_status_links_to_the_live_table_message(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    record = await bot.bot.service.tables.load(tid)
    ix = await bot.command(EVE, "status")
    text = bot.reply(ix).text()
    url = (f"https://discord.com/channels/{record.guild_id}/{record.channel_id}/"
           f"{record.message_id}")
    assert f"[the table message]({url})" in text, text
    assert not re.search(r"https://\S*\*", text), text  # no asterisk glued to a bare link


async def test_abandon_answers_before_waiting_for_the_table(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    release = asyncio.Event()
    holder = await holding(bot.bot.service.tables, tid, release)  # a long move holds the table
    try:
        asked = await bot.lb.command(ANN, bot.channel, "goblin abandon")
        await asked.done(10)  # asked at once: the table is read without its lock
        question = bot.reply(asked)
        assert "Abandon table" in question.text() and question.ephemeral
        ix = await bot.lb.click(ANN, question, resolve(question, AbandonButton.id_for(tid)))
        await ix.answered()  # the confirmation too is answered at once
        assert (await bot.bot.service.tables.load(tid)).status == "running"
    finally:
        release.set()
        await holder
    await bot.handled(ix)
    assert (await bot.bot.service.tables.load(tid)).status == "abandoned"
    assert any("was abandoned" in t for t in bot.said(ix))
    # one answer: nothing about it was posted in the channel besides the table message
    assert not [m for m in bot.public() if "was abandoned" in m.text()
                and HandButton.id_for(tid) not in m.custom_ids()
                and "Karak: Goblin" not in m.text()]


async def test_a_whole_match_leaves_one_table_message_with_the_ratings(bot: LiveBot,
                                                                      clock: Clock) -> None:
    tid = await open_table(bot, ANN, [BOB], timer=60)
    lobby = await bot.bot.service.tables.load(tid)
    assert lobby.lobby_message_id is not None
    assert bot.lb.messages[lobby.lobby_message_id].deleted  # the table message took over
    rec = await bot.bot.service.tables.load(tid)
    assert rec.deadline is not None
    clock.now = rec.deadline + 1  # Ann's turn timer runs out: the AI plays that turn
    await bot.bot.scheduler.check_timers()
    await bot.settle()
    told = [m for m in bot.lb.messages.values() if "Time is up" in m.text()]
    assert told, "the table was told that time was up"
    players = Players(bot, tid, [ANN, BOB])
    while await players.step():
        await bot.settle()
    assert (await bot.bot.service.tables.load(tid)).status == "finished"
    public = bot.public()
    tables = [m for m in public if "wins" in m.text()]
    ratings = [m for m in public if "Ratings" in m.text()]
    assert len(tables) == 1 and ratings == tables, [m.text()[:80] for m in public]
    assert public == tables, [m.text()[:80] for m in public]  # the ratings are in the table


async def test_an_abandoned_table_names_nobody_to_play(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    rec = await bot.bot.service.tables.load(tid)
    turn = f"<@{rec.seats[rec.game.current].user}>"
    assert turn in bot.last_table_message().text()
    await bot.abandon(ANN)
    closed = next(m for m in bot.public() if f"table #{tid}" in m.text())
    head = closed.text().split("\n> ")[0]  # above the narration
    assert "This table was abandoned." in head and not closed.custom_ids()
    assert turn not in head and "choosing" not in head, head
