"""The table message on Discord's terms: a message Discord no longer lets the bot edit is posted
afresh (and pings the person to play), and the old one is left without buttons."""
from __future__ import annotations

from discord_harness import FakeDiscord, Harness, body_text
from test_bot_discord import ANN, BOB, open_table


async def test_a_table_message_too_old_to_edit_is_posted_afresh(bot: Harness,
                                                                fake: FakeDiscord) -> None:
    tid = await open_table(bot, ANN, [BOB])
    old = fake.last_table_message()
    fake.too_old.add(old.id)  # older than an hour and edited too often: Discord says 30046
    since = len(fake.calls)
    bot.bot.messages.mark_dirty(tid)  # any change of the table asks for an edit
    await bot.settle()
    new = fake.last_table_message()
    assert new.id != old.id
    assert (await bot.bot.service.load(tid)).message_id == new.id
    rec = await bot.bot.service.load(tid)
    to_play = rec.seats[rec.game.current].user
    post = next(c.body for c in fake.calls[since:] if c.method == "POST")
    assert f"<@{to_play}>" in body_text(post)  # the fresh message names who plays now...
    assert "users" in post["allowed_mentions"].get("parse", [])  # ...and pings them
    # the old message refuses edits too: it is deleted, so no button or ping is left on it
    assert old.deleted and not [m for m in fake.public() if m.id == old.id]
    assert [m.id for m in fake.public() if f"kg:hand:{tid}" in m.custom_ids()] == [new.id]


async def test_an_older_table_message_points_to_the_newer_one(bot: Harness,
                                                              fake: FakeDiscord) -> None:
    tid = await open_table(bot, ANN, [BOB])
    old = fake.last_table_message()
    rec = await bot.bot.service.load(tid)
    await bot.bot.messages.post_table(rec)  # a new turn's message
    await bot.settle()
    new = fake.last_table_message()
    assert new.id != old.id and not old.custom_ids() and not old.pictures()
    assert str(new.id) in old.text() and "<@" not in old.text()
