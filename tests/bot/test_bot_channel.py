"""A tidy channel: each table keeps one live table message (older ones deleted as turns pass),
and /goblin status links to that very message with a real link."""

from __future__ import annotations

import re

from live_bot import LiveBot
from test_bot_discord import ANN, BOB, EVE, Players, open_table


async def test_turns_leave_one_table_message_in_the_channel(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    posted = set()
    for _ in range(60):
        assert await players.step()
        await bot.settle()
        posted.add(bot.last_table_message().id)
    assert len(posted) > 2  # turns passed, each person's turn posted a new message (a ping)
    tables = [m for m in bot.public() if f"kg:hand:{tid}" in m.custom_ids()]
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
