"""Lobbies (tables not yet started) after a crash: a lobby message whose last edit was lost, or
that was never posted, or was deleted while the bot was down, is redrawn from the database on
the next start; a refused click on a stale lobby message redraws it; a second /goblin new points
to the lobby (posting it again when it has no message)."""
from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any

import pytest
from bot_helpers import Clock
from live_bot import CHANNEL, GUILD, LINK, Call, LiveBot, component, table_id
from players import ANN, BOB, EVE, TinyRenderer
from storage.backends import make_room, no_room_for

from bot.discord_side.ui.custom_ids import HeroMenu, LobbyButton
from bot.storage.records import TableRecord
from loopback import Loopback, Message
from loopback.world import Reply, Upload


def lobby_id(message: Message, op: str) -> str:
    """The custom_id of a lobby button (join, leave, ai, unai, start, cancel)."""
    return next(c for c in message.custom_ids() if c.startswith(LobbyButton.prefix)
                and c.split(":")[3] == op)


def lobbies_of(bot: LiveBot, tid: int) -> list[Message]:
    """The public messages holding table ``tid``'s lobby buttons, oldest first."""
    return [m for m in bot.public() if any(c.startswith(LobbyButton.start(tid))
                                           for c in m.custom_ids())]


def lost_edit(lb: Loopback, stale: Message) -> None:
    """The stand-in shows ``stale`` again, as if the bot's last edits of it never arrived."""
    lb.messages[stale.id] = copy.deepcopy(stale)


async def ai_seats(h: LiveBot, tid: int) -> list[bool]:
    return [s.ai for s in (await h.bot.service.tables.load(tid)).seats]


async def open_lobby(h: LiveBot) -> tuple[int, Message]:
    await h.command(ANN, "new")
    lobby = h.public()[-1]
    return table_id(lobby), lobby


async def created_without_message(h: LiveBot) -> TableRecord:
    """/goblin new saved the table, then the bot died before the lobby message was posted."""
    return await h.bot.service.lobby.create(guild_id=GUILD, channel_id=CHANNEL, host_id=ANN.id,
                                      host_name=ANN.name)


def original_edits(calls: list[Call], since: int) -> list[Call]:
    return [c for c in calls[since:] if c.original_edit]


async def test_restart_redraws_a_lobby_whose_last_edit_was_lost(lb: Loopback, tmp_path: Path,
                                                                  clock: Clock) -> None:
    db = tmp_path / "k.db"
    h1 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    tid, lobby = await open_lobby(h1)
    await h1.click(ANN, lobby, lobby_id(lobby, "ai"))
    assert await ai_seats(h1, tid) == [False, True]
    # an AI seat and a player are saved, then the bot dies before the lobby message is edited
    await h1.bot.service.lobby.add_ai(tid, ANN.id, 1)
    await h1.bot.service.lobby.join(tid, BOB.id, BOB.name)
    await h1.stop()
    assert lobby_id(lobby, "unai").endswith(":1")  # shows revision 1
    posted = len(h1.public())

    h2 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        assert len(h2.public()) == posted  # edited in place, not posted again
        assert lobby_id(lobby, "unai") == LobbyButton.id_for(tid, "unai", 3)
        assert f"<@{BOB.id}>" in lobby.text()
        assert component(lobby, lobby_id(lobby, "join"))["disabled"]  # the table is full
        ix = await h2.click(ANN, lobby, lobby_id(lobby, "unai"))
        assert not any("changed in the meantime" in t for t in h2.said(ix))
        assert await ai_seats(h2, tid) == [False, True, False]
        await h2.click(ANN, lobby, lobby_id(lobby, "ai"))
        assert await ai_seats(h2, tid) == [False, True, False, True]
    finally:
        await h2.stop()


async def test_a_refused_click_on_a_stale_lobby_redraws_it(bot: LiveBot) -> None:
    tid, lobby = await open_lobby(bot)
    await bot.click(ANN, lobby, lobby_id(lobby, "ai"))
    await bot.bot.service.lobby.add_ai(tid, ANN.id, 1)  # saved; the edit of the message was lost
    stale = copy.deepcopy(bot.message(lobby))
    for op in ("unai", "ai"):
        ix = await bot.click(ANN, bot.message(lobby), lobby_id(stale, op))
        assert any("changed in the meantime" in t for t in bot.said(ix))
        assert await ai_seats(bot, tid) == [False, True, True]  # nothing was done...
        fresh = bot.message(lobby)
        # ...but it is shown now
        assert lobby_id(fresh, "unai") == LobbyButton.id_for(tid, "unai", 2)
        lost_edit(bot.lb, stale)  # and lost again, for the next op
    await bot.click(ANN, bot.message(lobby), lobby_id(stale, "unai"))
    fresh = bot.message(lobby)
    await bot.click(ANN, fresh, lobby_id(fresh, "unai"))  # the next click works
    assert await ai_seats(bot, tid) == [False, True]
    assert lobby_id(bot.message(lobby), "unai") == LobbyButton.id_for(tid, "unai", 3)


async def test_a_click_on_a_lobby_that_changed_and_changed_back_is_refused(
        bot: LiveBot) -> None:
    """One join and one leave leave the seat count as it was, but not the lobby's revision: a
    Start or Add AI seat pressed on the message from before is refused, not applied."""
    tid, lobby = await open_lobby(bot)
    stale = copy.deepcopy(lobby)
    await bot.bot.service.lobby.join(tid, BOB.id, BOB.name)  # both saved; the edits were lost
    await bot.bot.service.lobby.leave(tid, BOB.id)
    for op in ("ai", "start"):  # Start is disabled with one seat: a modified client sends it
        ix = await bot.click(ANN, stale, lobby_id(stale, op), forge=op == "start")
        assert any("changed in the meantime" in t for t in bot.said(ix))
        rec = await bot.bot.service.tables.load(tid)
        assert rec.status == "lobby" and len(rec.seats) == 1 and rec.revision == 2


async def test_a_hero_taken_meanwhile_is_refused_and_the_menu_redrawn(bot: LiveBot) -> None:
    tid, lobby = await open_lobby(bot)
    await bot.click(BOB, lobby, lobby_id(lobby, "join"))
    await bot.bot.service.lobby.pick_hero(tid, ANN.id, "horan")  # saved; the edit was lost
    assert "horan" in [o["value"] for o in component(lobby, HeroMenu.id_for(tid))["options"]]
    ix = await bot.choose(BOB, lobby, HeroMenu.id_for(tid), ["horan"])
    assert any("already taken" in t for t in bot.said(ix))
    assert "horan" not in [o["value"] for o in component(lobby, HeroMenu.id_for(tid))["options"]]


async def test_a_refusal_on_an_up_to_date_lobby_redraws_nothing(bot: LiveBot,
                                                                 calls: list[Call]) -> None:
    tid, lobby = await open_lobby(bot)
    await bot.click(BOB, lobby, lobby_id(lobby, "join"))
    for user, op, said in ((BOB, "ai", "Only the host"), (BOB, "join", "already have a seat"),
                           (BOB, "start", "Only the host")):
        revision = lobby.revision
        since = len(calls)
        ix = await bot.click(user, lobby, lobby_id(lobby, op))
        assert any(said in t for t in bot.said(ix))
        assert original_edits(calls, since) == [] and lobby.revision == revision


async def test_restart_begins_a_started_table_whose_lobby_was_left_with_buttons(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """A Start saved, then the bot died before its table message went out: at the restart the
    game begins as at a Start (the lobby message deleted, the table posted), rather than the
    lobby staying with its buttons until someone clicks one."""
    db = tmp_path / "k.db"
    h1 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    tid, lobby = await open_lobby(h1)
    await h1.click(BOB, lobby, lobby_id(lobby, "join"))
    await h1.bot.service.lobby.start(tid, ANN.id)  # started, then the bot died
    await h1.stop()
    h2 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        assert lobby.deleted  # the game began: no lobby's buttons left in the channel
        assert h2.public()[-1].custom_ids() == [f"kg:hand:{tid}", f"kg:log:{tid}"]
    finally:
        await h2.stop()


async def test_restart_posts_a_lobby_that_was_never_posted(lb: Loopback, tmp_path: Path,
                                                           clock: Clock) -> None:
    db = tmp_path / "k.db"
    h1 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    record = await created_without_message(h1)
    await h1.stop()
    assert lobbies_of(h1, record.id) == []
    h2 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        [lobby] = lobbies_of(h2, record.id)
        assert lobby.channel_id == CHANNEL
        assert (await h2.bot.service.tables.load(record.id)).lobby_message_id == lobby.id
        await h2.click(BOB, lobby, lobby_id(lobby, "join"))
        assert f"<@{BOB.id}>" in lobby.text()
    finally:
        await h2.stop()
    h3 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)  # edits it, no new post
    await h3.stop()
    assert [m.id for m in lobbies_of(h3, record.id)] == [lobby.id]


async def test_restart_posts_again_a_lobby_deleted_while_the_bot_was_down(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    db = tmp_path / "k.db"
    h1 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    tid, lobby = await open_lobby(h1)
    await h1.stop()
    lb.delete_message(lobby)
    h2 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        new = lobbies_of(h2, tid)[-1]
        assert new.id != lobby.id
        assert (await h2.bot.service.tables.load(tid)).lobby_message_id == new.id
        await h2.click(ANN, new, lobby_id(new, "ai"))
        assert await ai_seats(h2, tid) == [False, True]
    finally:
        await h2.stop()


async def test_second_new_posts_a_lobby_that_has_no_message(bot: LiveBot) -> None:
    record = await created_without_message(bot)
    ix = await bot.command(BOB, "new")
    assert ix.response_type == 5 and ix.ephemeral  # answered first, privately
    [lobby] = lobbies_of(bot, record.id)
    assert (await bot.bot.service.tables.load(record.id)).lobby_message_id == lobby.id
    assert any("waiting for players" in t and LINK + str(lobby.id) in t for t in bot.said(ix))
    await bot.click(BOB, lobby, lobby_id(lobby, "join"))
    assert f"<@{BOB.id}>" in lobby.text()
    ix = await bot.command(EVE, "new")  # now it has one: pointed to, not posted again
    assert [m.id for m in lobbies_of(bot, record.id)] == [lobby.id]
    assert any(LINK + str(lobby.id) in t for t in bot.said(ix))


@pytest.mark.parametrize("room", [True, False])
async def test_second_new_posts_again_a_deleted_lobby(bot: LiveBot, room: bool,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    tid, lobby = await open_lobby(bot)
    bot.lb.delete_message(lobby)
    if not room:  # the new lobby's id cannot be saved: only a warning, the lobby works
        await no_room_for(bot.store, "lobby_message_id")
    ix = await bot.command(BOB, "new")
    new = lobbies_of(bot, tid)[-1]
    assert new.id != lobby.id
    assert any(LINK + str(new.id) in t for t in bot.said(ix))
    assert ("its lobby message could not be saved" in caplog.text) is not room
    await bot.click(BOB, new, lobby_id(new, "join"))
    assert (await bot.bot.service.tables.load(tid)).seat_of(BOB.id) == 1
    await make_room(bot.store)


async def test_join_by_command_posts_a_lobby_that_has_no_message(bot: LiveBot) -> None:
    record = await created_without_message(bot)
    await bot.command(BOB, "join")
    [lobby] = lobbies_of(bot, record.id)
    assert f"<@{BOB.id}>" in lobby.text()
    assert (await bot.bot.service.tables.load(record.id)).lobby_message_id == lobby.id


async def test_a_lobby_too_old_to_edit_is_posted_afresh(bot: LiveBot) -> None:
    """A lobby left open for hours takes only a few edits an hour (Discord's JSON error
    30046): once they are used up, the next change posts the lobby afresh (the old message
    deleted), so the person who joined sees their seat and the host can still start from it."""
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    bot.lb.rest_api.messages.old_message_edits = 0  # the hour's edits used up
    bot.lb.clock.advance(2 * 3600)
    await bot.click(BOB, lobby, LobbyButton.id_for(tid, "join", None))
    assert [b.rule for b in bot.lb.breaches] == ["old-edit"]
    bot.lb.breaches.clear()
    record = await bot.bot.service.tables.load(tid)
    assert [s.user for s in record.seats] == [ANN.id, BOB.id]
    assert lobby.deleted and record.lobby_message_id != lobby.id
    fresh = bot.public()[-1]
    assert fresh.id == record.lobby_message_id and f"<@{BOB.id}>" in fresh.text()
    bot.lb.clock.advance(2 * 3600)  # and by command, hours later
    await bot.command(EVE, "join")
    assert [b.rule for b in bot.lb.breaches] == ["old-edit"]
    bot.lb.breaches.clear()
    assert fresh.deleted
    fresh = bot.public()[-1]
    assert fresh.id == (await bot.bot.service.tables.load(tid)).lobby_message_id
    assert f"<@{EVE.id}>" in fresh.text()
    await bot.click(ANN, fresh, LobbyButton.id_for(tid, "start", None))
    assert (await bot.bot.service.tables.load(tid)).status == "running"


async def test_a_leave_clicked_on_the_lobby_as_it_started_keeps_the_seat(bot: LiveBot) -> None:
    """Bob clicks Leave on the lobby just after Ann started it (the message still shows the
    lobby's buttons): he asked to leave a lobby, not a match, so he keeps his seat and is told
    privately how to leave the match; the lobby message loses its buttons. /goblin leave
    still hands his seat to the AI."""
    tid, lobby = await open_lobby(bot)
    await bot.click(BOB, lobby, lobby_id(lobby, "join"))
    await bot.bot.service.lobby.start(tid, ANN.id)  # Ann's Start, its lobby redraw not yet out
    ix = await bot.click(BOB, lobby, lobby_id(lobby, "leave"))
    assert any("/goblin leave" in t for t in bot.said(ix)), bot.said(ix)
    assert await ai_seats(bot, tid) == [False, False]
    assert not bot.message(lobby).custom_ids()
    await bot.command(BOB, "leave")
    assert await ai_seats(bot, tid) == [False, True]


@pytest.mark.parametrize("later", ["join", "hero"])
async def test_a_join_by_command_held_up_never_shows_an_older_lobby_than_a_later_click(
        bot: LiveBot, later: str) -> None:
    """/goblin join redraws the lobby on the table's feed, as a click does: its edit held up
    on the way to Discord (a rate limit, a slow connection) while another person's Join
    click, or the host's hero pick, was made lands before that click's redraw, not after it,
    so the lobby ends showing both changes."""
    tid, lobby = await open_lobby(bot)
    held, release = asyncio.Event(), asyncio.Event()
    real = bot.lb.world.rest

    async def rest(method: str, path: str, query: dict[str, str], auth: str | None, body: Any,
                   uploads: list[Upload]) -> Reply:
        if method.upper() == "PATCH" and path == f"/channels/{CHANNEL}/messages/{lobby.id}":
            held.set()
            await release.wait()  # the command's edit of the lobby, held on its way
        return await real(method, path, query, auth, body, uploads)

    bot.lb.world.rest = rest  # type: ignore[method-assign]
    joined = await bot.lb.command(BOB, bot.channel, "goblin join")
    await asyncio.wait_for(held.wait(), 20)
    if later == "join":
        click = await bot.lb.click(EVE, lobby, lobby_id(lobby, "join"))
        seen = f"<@{EVE.id}>"
    else:
        click = await bot.lb.select(ANN, lobby, HeroMenu.id_for(tid), ["taia"])
        seen = f"<@{ANN.id}>: Taia"
    await click.answered(20)
    for _ in range(100):  # the click's own redraw, where it goes at once
        if seen in bot.message(lobby).text():
            break
        await asyncio.sleep(0.01)
    release.set()
    await joined.answered(20)
    await bot.settle()
    bot.lb.world.rest = real  # type: ignore[method-assign]
    record = await bot.bot.service.tables.load(tid)
    shown = bot.message(lobby).text()
    assert f"<@{BOB.id}>" in shown
    if later == "join":
        assert [s.user for s in record.seats] == [ANN.id, BOB.id, EVE.id]
    else:
        assert record.seats[0].hero == "taia"
    assert seen in shown
