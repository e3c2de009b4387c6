"""Lobbies (tables not yet started) after a crash: a lobby message whose last edit was lost, or
that was never posted, or was deleted while the bot was down, is redrawn from the database on
the next start; a refused click on a stale lobby message redraws it; a second /goblin new points
to the lobby (posting it again when it has no message)."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from discord_harness import CHANNEL, GUILD, FakeDiscord, Harness, Message
from test_bot_discord import ANN, BOB, EVE, TinyRenderer

from bot.records import TableRecord

LINK = f"https://discord.com/channels/{GUILD}/{CHANNEL}/"


def lobby_id(message: Message, op: str) -> str:
    """The custom_id of a lobby button (join, leave, ai, unai, start, cancel)."""
    return next(c for c in message.custom_ids() if c.startswith("kg:lobby:")
                and c.split(":")[3] == op)


def lobbies_of(fake: FakeDiscord, tid: int) -> list[Message]:
    """The public messages holding table ``tid``'s lobby buttons, oldest first."""
    return [m for m in fake.public() if any(c.startswith(f"kg:lobby:{tid}:")
                                            for c in m.custom_ids())]


async def ai_seats(h: Harness, tid: int) -> list[bool]:
    return [s.ai for s in (await h.bot.service.load(tid)).seats]


async def open_lobby(h: Harness) -> tuple[int, Message]:
    await h.command(ANN, "new")
    lobby = h.fake.public()[-1]
    return int(lobby_id(lobby, "join").split(":")[2]), lobby


async def created_without_message(h: Harness) -> TableRecord:
    """/goblin new saved the table, then the bot died before the lobby message was posted."""
    return await h.bot.service.create(guild_id=GUILD, channel_id=CHANNEL, host_id=ANN.id,
                                      host_name=ANN.name)


def original_edits(fake: FakeDiscord, since: int) -> list[Any]:
    return [c.body for c in fake.calls[since:]
            if c.template.endswith("/messages/@original") and c.method == "PATCH"]


async def test_restart_redraws_a_lobby_whose_last_edit_was_lost(fake: FakeDiscord,
                                                                  tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    h1 = await Harness.start(fake, db, TinyRenderer())
    tid, lobby = await open_lobby(h1)
    await h1.click(ANN, lobby, lobby_id(lobby, "ai"))
    assert await ai_seats(h1, tid) == [False, True]
    # an AI seat and a player are saved, then the bot dies before the lobby message is edited
    await h1.bot.service.add_ai(tid, ANN.id, 1)
    await h1.bot.service.join(tid, BOB.id, BOB.name)
    await h1.stop()
    assert lobby_id(fake.messages[lobby.id], "unai").endswith(":1")  # shows revision 1
    posted = len(fake.public())

    h2 = await Harness.start(fake, db, TinyRenderer())
    try:
        lobby = fake.messages[lobby.id]
        assert len(fake.public()) == posted  # edited in place, not posted again
        assert lobby_id(lobby, "unai") == f"kg:lobby:{tid}:unai:3"
        assert f"<@{BOB.id}>" in lobby.text()
        assert lobby.component(lobby_id(lobby, "join"))["disabled"]  # the table is full
        since = len(fake.calls)
        await h2.click(ANN, lobby, lobby_id(lobby, "unai"))
        assert not any("changed in the meantime" in t for t in h2.ephemeral_texts(since))
        assert await ai_seats(h2, tid) == [False, True, False]
        lobby = fake.messages[lobby.id]
        await h2.click(ANN, lobby, lobby_id(lobby, "ai"))
        assert await ai_seats(h2, tid) == [False, True, False, True]
    finally:
        await h2.stop()


async def test_a_refused_click_on_a_stale_lobby_redraws_it(bot: Harness,
                                                           fake: FakeDiscord) -> None:
    tid, lobby = await open_lobby(bot)
    await bot.click(ANN, lobby, lobby_id(lobby, "ai"))
    await bot.bot.service.add_ai(tid, ANN.id, 1)  # saved; the edit of the message was lost
    stale = copy.deepcopy(fake.messages[lobby.id])
    for op in ("unai", "ai"):
        since = len(fake.calls)
        await bot.click(ANN, fake.messages[lobby.id], lobby_id(stale, op))
        assert any("changed in the meantime" in t for t in bot.ephemeral_texts(since))
        assert await ai_seats(bot, tid) == [False, True, True]  # nothing was done...
        fresh = fake.messages[lobby.id]
        assert lobby_id(fresh, "unai") == f"kg:lobby:{tid}:unai:2"  # ...but it is shown now
        fake.messages[lobby.id] = copy.deepcopy(stale)  # and lost again, for the next op
    fake.messages[lobby.id] = stale
    await bot.click(ANN, stale, lobby_id(stale, "unai"))
    fresh = fake.messages[lobby.id]
    await bot.click(ANN, fresh, lobby_id(fresh, "unai"))  # the next click works
    assert await ai_seats(bot, tid) == [False, True]
    assert lobby_id(fake.messages[lobby.id], "unai") == f"kg:lobby:{tid}:unai:3"


async def test_a_click_on_a_lobby_that_changed_and_changed_back_is_refused(
        bot: Harness, fake: FakeDiscord) -> None:
    """One join and one leave leave the seat count as it was, but not the lobby's revision: a
    Start or Add AI seat pressed on the message from before is refused, not applied."""
    tid, lobby = await open_lobby(bot)
    stale = copy.deepcopy(fake.messages[lobby.id])
    await bot.bot.service.join(tid, BOB.id, BOB.name)  # both saved; the edits were lost
    await bot.bot.service.leave(tid, BOB.id)
    for op in ("ai", "start"):
        since = len(fake.calls)
        await bot.click(ANN, stale, lobby_id(stale, op))
        assert any("changed in the meantime" in t for t in bot.ephemeral_texts(since))
        rec = await bot.bot.service.load(tid)
        assert rec.status == "lobby" and len(rec.seats) == 1 and rec.revision == 2


async def test_a_hero_taken_meanwhile_is_refused_and_the_menu_redrawn(
        bot: Harness, fake: FakeDiscord) -> None:
    tid, lobby = await open_lobby(bot)
    await bot.click(BOB, lobby, lobby_id(lobby, "join"))
    await bot.bot.service.pick_hero(tid, ANN.id, "horan")  # saved; the edit was lost
    lobby = fake.messages[lobby.id]
    assert "horan" in [o["value"] for o in lobby.component(f"kg:hero:{tid}")["options"]]
    since = len(fake.calls)
    await bot.choose(BOB, lobby, f"kg:hero:{tid}", ["horan"])
    assert any("already taken" in t for t in bot.ephemeral_texts(since))
    lobby = fake.messages[lobby.id]
    assert "horan" not in [o["value"] for o in lobby.component(f"kg:hero:{tid}")["options"]]


async def test_a_refusal_on_an_up_to_date_lobby_redraws_nothing(bot: Harness,
                                                                 fake: FakeDiscord) -> None:
    tid, lobby = await open_lobby(bot)
    await bot.click(BOB, lobby, lobby_id(lobby, "join"))
    lobby = fake.messages[lobby.id]
    for user, op, said in ((BOB, "ai", "Only the host"), (BOB, "join", "already have a seat"),
                           (BOB, "start", "Only the host")):
        since = len(fake.calls)
        await bot.click(user, lobby, lobby_id(lobby, op))
        assert any(said in t for t in bot.ephemeral_texts(since))
        assert original_edits(fake, since) == []


async def test_restart_redraws_a_started_tables_lobby_left_with_buttons(
        fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    h1 = await Harness.start(fake, db, TinyRenderer())
    tid, lobby = await open_lobby(h1)
    await h1.click(BOB, lobby, lobby_id(lobby, "join"))
    await h1.bot.service.start(tid, ANN.id)  # started, then the bot died
    await h1.stop()
    h2 = await Harness.start(fake, db, TinyRenderer())
    try:
        lobby = fake.messages[lobby.id]
        assert lobby.custom_ids()  # a running table's lobby is not redrawn on start...
        since = len(fake.calls)
        await h2.click(EVE, lobby, lobby_id(lobby, "join"))
        assert any("already started" in t for t in h2.ephemeral_texts(since))
        assert not fake.messages[lobby.id].custom_ids()  # ...but a click on it closes it
        assert "started" in fake.messages[lobby.id].text()
    finally:
        await h2.stop()


async def test_restart_posts_a_lobby_that_was_never_posted(fake: FakeDiscord,
                                                           tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    h1 = await Harness.start(fake, db, TinyRenderer())
    record = await created_without_message(h1)
    await h1.stop()
    assert lobbies_of(fake, record.id) == []
    h2 = await Harness.start(fake, db, TinyRenderer())
    try:
        [lobby] = lobbies_of(fake, record.id)
        assert lobby.channel_id == CHANNEL
        assert (await h2.bot.service.load(record.id)).lobby_message_id == lobby.id
        await h2.click(BOB, lobby, lobby_id(lobby, "join"))
        assert f"<@{BOB.id}>" in fake.messages[lobby.id].text()
    finally:
        await h2.stop()
    h3 = await Harness.start(fake, db, TinyRenderer())  # the next start edits it, no new post
    await h3.stop()
    assert [m.id for m in lobbies_of(fake, record.id)] == [lobby.id]


async def test_restart_posts_again_a_lobby_deleted_while_the_bot_was_down(
        fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    h1 = await Harness.start(fake, db, TinyRenderer())
    tid, lobby = await open_lobby(h1)
    await h1.stop()
    fake.missing.add(lobby.id)
    h2 = await Harness.start(fake, db, TinyRenderer())
    try:
        new = lobbies_of(fake, tid)[-1]
        assert new.id != lobby.id
        assert (await h2.bot.service.load(tid)).lobby_message_id == new.id
        await h2.click(ANN, new, lobby_id(new, "ai"))
        assert await ai_seats(h2, tid) == [False, True]
    finally:
        await h2.stop()


async def test_second_new_posts_a_lobby_that_has_no_message(bot: Harness,
                                                            fake: FakeDiscord) -> None:
    record = await created_without_message(bot)
    since = len(fake.calls)
    await bot.command(BOB, "new")
    first = [c.body for c in fake.calls[since:] if c.template.endswith("/callback")][0]
    assert first["type"] == 5 and first["data"]["flags"] & 64  # answered first, privately
    [lobby] = lobbies_of(fake, record.id)
    assert (await bot.bot.service.load(record.id)).lobby_message_id == lobby.id
    assert any("waiting for players" in t and LINK + str(lobby.id) in t
               for t in bot.ephemeral_texts(since))
    await bot.click(BOB, lobby, lobby_id(lobby, "join"))
    assert f"<@{BOB.id}>" in fake.messages[lobby.id].text()
    since = len(fake.calls)
    await bot.command(EVE, "new")  # now it has one: pointed to, not posted again
    assert [m.id for m in lobbies_of(fake, record.id)] == [lobby.id]
    assert any(LINK + str(lobby.id) in t for t in bot.ephemeral_texts(since))


async def test_second_new_posts_again_a_deleted_lobby(bot: Harness, fake: FakeDiscord) -> None:
    tid, lobby = await open_lobby(bot)
    fake.missing.add(lobby.id)
    since = len(fake.calls)
    await bot.command(BOB, "new")
    new = lobbies_of(fake, tid)[-1]
    assert new.id != lobby.id
    assert any(LINK + str(new.id) in t for t in bot.ephemeral_texts(since))
    await bot.click(BOB, new, lobby_id(new, "join"))
    assert (await bot.bot.service.load(tid)).seat_of(BOB.id) == 1


async def test_join_by_command_posts_a_lobby_that_has_no_message(bot: Harness,
                                                                 fake: FakeDiscord) -> None:
    record = await created_without_message(bot)
    await bot.command(BOB, "join")
    [lobby] = lobbies_of(fake, record.id)
    assert f"<@{BOB.id}>" in lobby.text()
    assert (await bot.bot.service.load(record.id)).lobby_message_id == lobby.id
