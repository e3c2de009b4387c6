"""A match in a thread of its own, on the stand-in with the real discord.py client: at Start the
match moves to a public thread created from its lobby message, named after the table, and the
lobby message becomes the channel's line (who plays, then the result, with the thread's link);
several matches run in one channel at once; where the bot may not create threads the host is
told which permission is missing and the match is played in the channel; an archived thread is
unarchived by the next move; a deleted thread ends its match as abandoned (its log kept); a
rematch gets a new thread, linked from the old one; /goblin new inside a thread plays there;
the links of /goblin turns open the thread.

These tests run the bot with threads on (the bot's own default); the other end-to-end tests
run it with threads off (:meth:`LiveBot.start`), so their table message is in the channel."""
from __future__ import annotations

import asyncio
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from bot_helpers import Clock
from discord import HTTPException
from in_threads import ThreadPlayers, link, start_lobby, started, table_message
from live_bot import GUILD, Call, LiveBot, component, offered, table_id
from players import (
    ADMIN,
    ANN,
    BOB,
    EVE,
    SEATS,
    Players,
    TinyRenderer,
    finished_match,
    open_table,
)
from storage.backends import make_room, no_room_for
from storage.helpers import played

from bot.discord_side.context import UNKNOWN_CHANNEL
from bot.discord_side.feed import Feeds
from bot.discord_side.pace import ChannelPace
from bot.discord_side.threads import MatchThreads, line, thread_name
from bot.discord_side.ui.custom_ids import ForgetButton, LobbyButton, RematchButton, ShareButton
from bot.game.results import movers
from bot.storage.records import SeatInfo
from bot.supervision.tasks import Tasks
from bot.workers.thinking import Thinking
from engine import Undo, observe
from engine.agents import make_agent
from i18n import msg, translate
from loopback import Loopback
from loopback.model import Channel
from loopback.permissions import CREATE_PUBLIC_THREADS, MANAGE_THREADS, SEND_MESSAGES_IN_THREADS
from loopback.world import Reply, Upload


async def test_a_match_moves_to_its_thread_at_start_and_its_line_tells_the_result(
        h: LiveBot) -> None:
    tid, thread = await started(h)
    record = await h.bot.service.tables.load(tid)
    assert record.thread_id == thread.id and record.channel_id == h.channel.id
    assert thread.name == "Karak · Ann and 1 AI"
    lobby = h.lb.starter(thread)
    assert lobby is not None and lobby.id == record.lobby_message_id
    assert h.lb.message(lobby.id).text() == f"Ann and 1 AI are playing →\u00a0{link(thread)}"
    assert not lobby.custom_ids()
    # the channel keeps one line; the table message, with its buttons, is in the thread
    assert [m.id for m in h.public()] == [lobby.id]
    assert table_message(h, thread).custom_ids() == [f"kg:hand:{tid}", f"kg:log:{tid}"]
    copy = h.reply(await h.command(ANN, "status", channel=thread)).text()  # names the thread
    assert "Only you see this copy: [the table message](" in copy, copy
    assert ") is in the match's thread." in copy and "the channel" not in copy, copy
    players = ThreadPlayers(h, tid, [ANN], thread)
    assert await players.step()
    hand = await players.open_hand(ANN)  # a take-back in the thread, then on to the end
    assert str(Undo()) in offered(hand)
    await h.play(ANN, hand, str(Undo()))
    while await players.step():
        pass
    assert any(row.undone for row in await h.store.action_log(tid))
    final = h.public(thread)[-1]
    assert RematchButton.id_for(tid, "offer") in final.custom_ids()
    line = h.lb.message(lobby.id).text()
    assert line.endswith(f"→\u00a0{link(thread)}") and " won against " in line
    assert [m.id for m in h.public()] == [lobby.id]
    # the history links the match to its thread
    assert f"Played in <#{thread.id}>" in " ".join(h.said(await h.command(ANN, "history")))
    # Replay, then Share: the animation is posted in the thread (by someone who may post
    # in threads there, as everyone may in a server's default permissions)
    h.lb.set_overwrite(h.channel, h.guild.everyone, allow=SEND_MESSAGES_IN_THREADS)
    await h.settle()
    replay = h.reply(await h.click(ANN, final, f"kg:rp:{tid}:0:h.open"))
    told = h.said(await h.click(ANN, replay, ShareButton.id_for(tid)))
    assert any(a.filename.endswith(".gif") for m in h.public(thread) for a in m.attachments), told
    assert [m.id for m in h.public()] == [lobby.id]
    final = next(m for m in reversed(h.public(thread))
                 if RematchButton.id_for(tid, "offer") in m.custom_ids())
    # a rematch: a new thread with its own line in the channel, linked from the old thread
    ix = await h.click(ANN, final, RematchButton.id_for(tid, "offer"))
    assert "has started" in h.said(ix)[0]
    threads = h.lb.threads_of(h.channel)
    assert len(threads) == 2
    again = threads[1]
    new = await h.store.active_in_channel(again.id)
    assert new is not None and new != tid
    assert table_message(h, again).custom_ids() == [f"kg:hand:{new}", f"kg:log:{new}"]
    assert h.public(thread)[-1].text() == f"Rematch →\u00a0{link(again)}"
    assert h.public()[-1].text() == f"Ann and 1 AI are playing →\u00a0{link(again)}"
    assert h.lb.starter(again) is not None and h.lb.starter(again).id == h.public()[-1].id


async def test_two_matches_run_at_once_in_one_channel(h: LiveBot) -> None:
    first, one = await started(h, ANN)
    second, two = await started(h, BOB)  # a new lobby opens beside the running match
    assert one.id != two.id and first != second
    assert two.name == "Karak · Bob and 1 AI"
    for tid, thread, user in ((first, one, ANN), (second, two, BOB)):
        assert (await h.bot.service.tables.load(tid)).status == "running"
        assert await h.store.active_in_channel(thread.id) == tid
        players = ThreadPlayers(h, tid, [user], thread)
        assert await players.step()
    # the channel holds the two lines; no table is played in the channel itself
    assert [m.text() for m in h.public()] == [f"Ann and 1 AI are playing →\u00a0{link(one)}",
                                              f"Bob and 1 AI are playing →\u00a0{link(two)}"]
    assert await h.store.active_in_channel(h.channel.id) is None
    # still at most one open lobby in the channel
    await h.command(ANN, "new")
    ix = await h.command(BOB, "new")
    assert any("already has a lobby" in t or "lobby" in t for t in h.said(ix))


async def test_without_the_thread_permission_the_match_is_played_in_the_channel(
        h: LiveBot) -> None:
    h.channel.bot_permissions &= ~CREATE_PUBLIC_THREADS
    ix = await h.command(ANN, "new")
    assert ("I can't open a thread for this match because I lack this permission here: "
            "Create Public Threads. It will be played in this channel.") in h.said(ix)
    tid = await start_lobby(h, h.public()[-1])
    assert not h.lb.threads_of(h.channel)
    assert table_message(h, h.channel).custom_ids() == [f"kg:hand:{tid}", f"kg:log:{tid}"]
    record = await h.bot.service.tables.load(tid)
    assert record.thread_id is None and not record.threaded


@pytest.mark.parametrize("by", ["click", "command"])
async def test_a_thread_permission_taken_before_start_plays_the_match_in_the_channel(
        h: LiveBot, by: str) -> None:
    """A moderator takes Send Messages in Threads from the bot while Ann's lobby waits: at
    Start (her click, or /goblin start) the match is played in the channel, and Ann is told
    privately which permission is missing, as /goblin new tells it; its thread would have
    stayed empty, its table refused there, with nobody told anything."""
    await h.command(ANN, "new")
    lobby = h.public()[-1]
    tid = table_id(lobby)
    await h.click(BOB, lobby, LobbyButton.id_for(tid, "join", None))
    h.channel.bot_permissions &= ~SEND_MESSAGES_IN_THREADS
    ix = (await h.click(ANN, lobby, LobbyButton.id_for(tid, "start", None)) if by == "click"
          else await h.command(ANN, "start"))
    assert ("I can't open a thread for this match because I lack this permission here: "
            "Send Messages in Threads. It will be played in this channel.") in h.said(ix)
    if by == "command":
        assert "started" in h.said(ix)[0], h.said(ix)
    assert not h.lb.threads_of(h.channel)
    record = await h.bot.service.tables.load(tid)
    assert record.thread_id is None and not record.threaded
    assert record.message_id == table_message(h, h.channel).id
    mover = record.seats[record.game.current].user
    assert f"<@{mover}>" in h.lb.message(record.message_id).text()


async def test_the_host_may_choose_no_thread(h: LiveBot) -> None:
    await h.command(ANN, "new", thread=False)
    tid = await start_lobby(h, h.public()[-1])
    assert not h.lb.threads_of(h.channel)
    assert table_message(h, h.channel).custom_ids() == [f"kg:hand:{tid}", f"kg:log:{tid}"]


async def test_an_archived_thread_is_unarchived_by_the_next_move(h: LiveBot) -> None:
    tid, thread = await started(h)
    players = ThreadPlayers(h, tid, [ANN], thread)
    assert await players.step()
    h.lb.archive_thread(thread)  # a moderator archives it mid-match
    await h.settle()
    for _ in range(3):  # the moves edit the table message or post it anew: both unarchive
        assert await players.step()
        assert not thread.archived
    assert (await h.bot.service.tables.load(tid)).status == "running"
    assert table_message(h, thread).custom_ids() == [f"kg:hand:{tid}", f"kg:log:{tid}"]


async def test_an_edit_in_an_archived_thread_unarchives_it_first(h: LiveBot) -> None:
    tid, thread = await started(h)
    h.lb.archive_thread(thread)
    await h.settle()
    record = h.bot.messages.current(await h.bot.service.tables.load(tid))
    await h.bot.messages.edit_table(record, repost=False)  # an edit, never a post
    assert not thread.archived


async def test_a_match_opened_in_a_thread_discord_archived_is_closed_there(
        h: LiveBot, clock: Clock) -> None:
    """A slow match opened with /goblin new inside a thread: Discord archives the thread after
    a day without messages; the match's edits unarchive it first, as in a thread of the
    match's own, so an abandoned match's table message loses its buttons."""
    talk = h.lb.create_thread(h.channel, "talk", owner=ANN)
    await h.settle()
    await h.command(ANN, "new", channel=talk, timer=3 * 86400)
    tid = await start_lobby(h, h.public(talk)[-1])
    table = table_message(h, talk)
    h.lb.clock.advance(25 * 3600)  # a day without a message: Discord archives the thread
    clock.now += 25 * 3600
    h.lb.check_deadlines()
    await h.settle()
    assert talk.archived
    record = h.bot.messages.current(await h.bot.service.tables.load(tid))
    await h.bot.messages.edit_table(record, repost=False)  # an edit, never a post
    assert not talk.archived
    h.lb.archive_thread(talk)
    await h.settle()
    await h.abandon(ANN, channel=talk)
    await h.settle()
    assert (await h.bot.service.tables.load(tid)).status == "abandoned"
    assert not h.message(table).custom_ids() and "abandoned" in h.message(table).text()


@pytest.mark.parametrize("how", ["deleted", "locked"])
async def test_a_thread_deleted_or_locked_ends_its_match_as_abandoned(h: LiveBot,
                                                                      how: str) -> None:
    """Deleting a match's thread, or locking it (a moderator's act: Discord never locks one by
    itself, and no one but moderators may write there any more), ends its match as abandoned,
    unrated, its log kept; the channel's line says why (with the link to read a locked one)
    and the channel is free for a new match."""
    tid, thread = await started(h)
    players = ThreadPlayers(h, tid, [ANN], thread)
    assert await players.step()
    kept = await h.store.action_log(tid)
    lobby = h.lb.starter(thread)
    assert lobby is not None
    heard = asyncio.ensure_future(h.bot.wait_for(
        "raw_thread_delete" if how == "deleted" else "raw_thread_update", timeout=10))
    if how == "deleted":
        h.lb.delete_thread(thread)
    else:
        h.lb.archive_thread(thread, locked=True)
    await heard
    await h.settle()
    assert (await h.bot.service.tables.load(tid)).status == "abandoned"
    assert await h.store.action_log(tid) == kept  # nothing of its log is lost
    line = h.lb.message(lobby.id).text()
    if how == "deleted":
        assert line == ("The match between Ann and 1 AI was abandoned: its thread was "
                        "deleted. Its log is kept.")
    else:
        assert line.startswith("The match between Ann and 1 AI was abandoned: a moderator "
                               "locked its thread. Its log is kept →")
        assert thread.locked and thread.archived  # left as the moderator left it
        h.lb.archive_thread(thread)  # archived again, unlocked (Discord's idle time)
        await h.settle()
        assert (await h.bot.service.tables.load(tid)).status == "abandoned"
    assert not h.bot.scheduler.busy(tid)
    await h.command(ANN, "new")  # the channel is free for a new match
    assert h.public()[-1].custom_ids()


@pytest.mark.parametrize(("how", "moves"), [("deleted", 2), ("locked", 2), ("deleted", 1)])
async def test_the_line_of_a_match_ended_with_its_thread_says_whether_it_was_rated(
        h: LiveBot, how: str, moves: int) -> None:
    """Ann and Bob's match ends with its thread deleted or locked: the channel's line, all
    anyone can see of it now, says what that did to the ratings, as the table message of a
    match abandoned otherwise does: rated as it stood, each change shown, once both moved;
    not rated while one of them had not moved."""
    await h.command(ANN, "new")
    lobby = h.public()[-1]
    tid = table_id(lobby)
    await h.click(BOB, lobby, LobbyButton.id_for(tid, "join", None))
    await start_lobby(h, lobby, ANN, ai=0)
    thread = h.lb.channel((await h.bot.service.tables.load(tid)).where)
    players = ThreadPlayers(h, tid, [ANN, BOB], thread)
    while len(movers(await h.store.action_log(tid))) < moves:
        assert await players.step()
    heard = asyncio.ensure_future(h.bot.wait_for(
        "raw_thread_delete" if how == "deleted" else "raw_thread_update", timeout=10))
    if how == "deleted":
        h.lb.delete_thread(thread)
    else:
        h.lb.archive_thread(thread, locked=True)
    await heard
    await h.settle()
    assert (await h.bot.service.tables.load(tid)).status == "abandoned"
    text = h.lb.message(lobby.id).text()
    assert text.startswith("The match between Ann and Bob was abandoned"), text
    if moves == 2:
        assert {c.user_id for c in await h.store.changes_of_table(tid)} == {ANN.id, BOB.id}
        assert "Rated as the match stood when it was abandoned." in text, text
        assert "Ratings" in text and "Ann 1," in text and "Bob 1," in text, text
    else:
        assert not await h.store.changes_of_table(tid)
        assert "Not rated: the match was abandoned before everyone had made a move." in text, \
            text
    if moves == 2:  # listed in the history: in its thread while there is one, else its channel
        history = " ".join(h.said(await h.command(ANN, "history")))
        assert f"Table #{tid}" in history, history
        played_in = h.channel.id if how == "deleted" else thread.id
        assert f"Played in <#{played_in}>" in history and (
            how == "locked" or f"<#{thread.id}>" not in history), history


async def test_the_history_names_the_channel_of_a_match_whose_thread_was_deleted(
        h: LiveBot) -> None:
    """A finished match's thread deleted since: /goblin history no longer links to it (Discord
    would show an unknown channel) but names the channel it was played in, in each language,
    and the table's messages would go there."""
    tid, thread = await started(h)
    players = ThreadPlayers(h, tid, [ANN], thread)
    while await players.step():
        pass
    await h.settle()
    assert (await h.bot.service.tables.load(tid)).status == "finished"
    assert f"Played in <#{thread.id}>" in " ".join(h.said(await h.command(ANN, "history")))
    heard = asyncio.ensure_future(h.bot.wait_for("raw_thread_delete", timeout=10))
    h.lb.delete_thread(thread)
    await heard
    await h.settle()
    record = await h.bot.service.tables.load(tid)
    assert record.thread_id is None and record.where == h.channel.id
    history = " ".join(h.said(await h.command(ANN, "history")))
    assert f"<#{thread.id}>" not in history and f"Played in <#{h.channel.id}>" in history, \
        history
    assert [translate(msg("history.channel", channel="#talk"), lc) for lc in ("fr", "cs")] == [
        "Jouée dans le salon #talk", "Hráno v kanálu #talk"]


async def test_a_thread_deleted_while_the_bot_was_away_ends_its_match_as_abandoned(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    db = tmp_path / "k.db"
    h = await LiveBot.start(lb, db, TinyRenderer(), clock=clock, thinking=Thinking(workers=0),
                            threads=True)
    try:
        tid, thread = await started(h)
        assert await ThreadPlayers(h, tid, [ANN], thread).step()
        lobby = h.lb.starter(thread)
        assert lobby is not None
        kept = await h.store.action_log(tid)
    finally:
        await h.stop()
    lb.delete_thread(thread)  # a moderator deletes it while the bot is stopped: no event heard
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock,
                                thinking=Thinking(workers=0), threads=True)
    try:
        record = await again.bot.service.tables.load(tid)
        assert record.status == "abandoned"  # found gone by the first request to its thread
        assert await again.store.action_log(tid) == kept
        assert lb.message(lobby.id).text() == (
            "The match between Ann and 1 AI was abandoned: its thread was deleted. "
            "Its log is kept.")
        assert not again.bot.scheduler.busy(tid)
    finally:
        await again.stop()


@pytest.mark.parametrize("manage", [False, True])
async def test_a_thread_locked_while_the_bot_was_away_ends_its_match_at_its_restart(
        lb: Loopback, tmp_path: Path, clock: Clock, manage: bool) -> None:
    """A moderator locks a match's thread, and a thread with a lobby in it, while the bot is
    stopped (no THREAD_UPDATE heard): the first request to each after the restart finds it
    locked, and its table ends as on a lock heard live, whether or not the bot may manage
    threads; the threads are left locked and archived, as the moderator left them."""
    db = tmp_path / "k.db"
    h = await LiveBot.start(lb, db, TinyRenderer(), clock=clock, thinking=Thinking(workers=0),
                            threads=True)
    try:
        tid, thread = await started(h)
        assert await ThreadPlayers(h, tid, [ANN], thread).step()
        lobby = h.lb.starter(thread)
        assert lobby is not None
        kept = await h.store.action_log(tid)
        chat = h.lb.create_thread(h.channel, "chat")  # a thread people opened: a lobby in it
        await h.command(BOB, "new", channel=chat)
        in_chat = table_id(h.public(chat)[-1])
    finally:
        await h.stop()
    lb.archive_thread(thread, locked=True)
    lb.archive_thread(chat, locked=True)
    if not manage:
        h.channel.bot_permissions &= ~MANAGE_THREADS
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock,
                                thinking=Thinking(workers=0), threads=True)
    try:
        assert (await again.bot.service.tables.load(tid)).status == "abandoned"
        assert await again.store.action_log(tid) == kept
        assert lb.message(lobby.id).text().startswith(
            "The match between Ann and 1 AI was abandoned: a moderator locked its thread. "
            "Its log is kept →")
        assert thread.locked and thread.archived and chat.locked and chat.archived
        assert (await again.bot.service.tables.load(in_chat)).status == "abandoned"
        assert not again.bot.scheduler.busy(tid)
        await again.command(ANN, "new")  # the channel is free for a new match
        assert again.public()[-1].custom_ids()
    finally:
        await again.stop()


@pytest.mark.parametrize("manage", [False, True])
async def test_a_thread_locked_and_left_open_while_the_bot_was_away_ends_its_match(
        lb: Loopback, tmp_path: Path, clock: Clock, manage: bool) -> None:
    """A moderator locks a match's thread, and a thread with a lobby in it, without archiving
    them, while the bot is stopped (no THREAD_UPDATE heard): at the restart Discord tells the
    bot of both, open and locked, and their tables end as on a lock heard live, whether or not
    the bot may manage threads (and so still post there); the threads stay locked."""
    db = tmp_path / "k.db"
    h = await LiveBot.start(lb, db, TinyRenderer(), clock=clock, thinking=Thinking(workers=0),
                            threads=True)
    try:
        tid, thread = await started(h)
        assert await ThreadPlayers(h, tid, [ANN], thread).step()
        lobby = h.lb.starter(thread)
        assert lobby is not None
        kept = await h.store.action_log(tid)
        chat = h.lb.create_thread(h.channel, "chat")  # a thread people opened: a lobby in it
        await h.command(BOB, "new", channel=chat)
        in_chat = table_id(h.public(chat)[-1])
    finally:
        await h.stop()
    lb.lock_thread(thread)
    lb.lock_thread(chat)
    if not manage:
        h.channel.bot_permissions &= ~MANAGE_THREADS
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock,
                                thinking=Thinking(workers=0), threads=True)
    try:
        await again.settle()
        assert (await again.bot.service.tables.load(tid)).status == "abandoned"
        assert await again.store.action_log(tid) == kept
        assert lb.message(lobby.id).text().startswith(
            "The match between Ann and 1 AI was abandoned: a moderator locked its thread. "
            "Its log is kept →")
        assert thread.locked and chat.locked
        assert (await again.bot.service.tables.load(in_chat)).status == "abandoned"
        assert not again.bot.scheduler.busy(tid)
        await again.command(ANN, "new")  # the channel is free for a new match
        assert again.public()[-1].custom_ids()
    finally:
        await again.stop()


@pytest.mark.parametrize(("locked", "manage"), [(True, False), (True, True), (False, False)])
async def test_a_rematch_offered_in_a_locked_thread_stands_and_its_people_are_told(
        h: LiveBot, locked: bool, manage: bool) -> None:
    """A moderator locks a finished match's thread (and so archives it): a rematch offered
    there stands, its people told; the bot posts neither the offer nor the link to the
    rematch there, even when it may manage threads (its post would take the thread out of
    the archive the moderator left it in). A thread only archived (idle, or by a moderator)
    gets both, as a post of anyone's would take it out of the archive, and the person who
    offered it is told it is posted in the match's thread (not in the channel). Either way the
    rematch moves to a new thread, from a new line in the channel."""
    tid = await finished_match(h.store, played(2), threaded=True)
    thread = h.lb.create_thread(h.channel, "the match")
    await h.settle()
    await h.store.set_thread(tid, thread.id, True)
    await h.bot.poster.announce_end(await h.bot.service.tables.load(tid))
    await h.settle()
    final = h.public(thread)[-1]
    if not manage:
        h.channel.bot_permissions &= ~MANAGE_THREADS
    h.lb.archive_thread(thread, locked=locked)  # a moderator, once the match is over
    await h.settle()
    ix = await h.click(ANN, final, RematchButton.id_for(tid, "offer"))
    assert h.said(ix) == ([
        "Your rematch offer stands, but I could not post it here (the thread may be locked, or "
        "I may no longer post in it): the others say they are ready by pressing *Rematch* on the "
        "final table."] if locked else ["Your rematch offer is posted in the match's thread."])
    ix = await h.click(BOB, final, RematchButton.id_for(tid, "offer"))  # Bob is ready: it starts
    assert h.said(ix) == ["The rematch has started: table #2."]
    again = h.lb.threads_of(h.channel)[-1]
    assert again.id != thread.id and await h.store.active_in_channel(again.id) == 2
    assert h.public()[-1].text() == f"Ann, Bob and 1 AI are playing →\u00a0{link(again)}"
    if locked:
        assert thread.locked and thread.archived  # left as the moderator left it
        assert h.public(thread)[-1].id == final.id  # nothing posted there since
    else:
        assert not thread.archived
        assert h.public(thread)[-1].text() == f"Rematch →\u00a0{link(again)}"


async def test_a_timed_out_turn_is_shown_where_the_bot_may_no_longer_post(
        h: LiveBot, clock: Clock) -> None:
    """The bot loses Send Messages in Threads during a slow match: a turn whose timer ran out
    can be neither posted afresh nor told in a line, so the table message is edited to show
    it (whose turn it is now, and their time)."""
    tid = await open_table(h, ANN, [BOB], timer=3 * 86400)
    thread = h.lb.threads_of(h.channel)[-1]
    record = await h.bot.service.tables.load(tid)
    assert record.deadline is not None
    h.channel.bot_permissions &= ~SEND_MESSAGES_IN_THREADS
    await h.settle()
    clock.now = record.deadline + 1
    await h.bot.scheduler.check_timers()
    await h.settle()
    now = await h.bot.service.tables.load(tid)
    assert now.version > record.version and now.deadline is not None
    mover = now.seats[now.game.current].name
    shown = h.message(table_message(h, thread)).text()
    assert f"{mover}'s turn" in shown and f"<t:{int(now.deadline)}:R>" in shown


async def test_new_inside_a_thread_plays_there(h: LiveBot) -> None:
    talk = h.lb.create_thread(h.channel, "talk", owner=ANN)
    await h.settle()
    await h.command(ANN, "new", channel=talk)
    tid = await start_lobby(h, h.public(talk)[-1])
    assert [t.id for t in h.lb.threads_of(h.channel)] == [talk.id]  # no thread in a thread
    assert table_message(h, talk).custom_ids() == [f"kg:hand:{tid}", f"kg:log:{tid}"]
    record = await h.bot.service.tables.load(tid)
    assert record.channel_id == talk.id and record.thread_id is None
    assert await ThreadPlayers(h, tid, [ANN], talk).step()
    # the thread deleted: its match ends as abandoned (nothing more is posted anywhere)
    kept = await h.store.action_log(tid)
    heard = asyncio.ensure_future(h.bot.wait_for("raw_thread_delete", timeout=10))
    before = len(h.public())
    h.lb.delete_thread(talk)
    await heard
    await h.settle()
    assert (await h.bot.service.tables.load(tid)).status == "abandoned"
    assert await h.store.action_log(tid) == kept and not h.bot.scheduler.busy(tid)
    assert len(h.public()) == before


async def test_the_links_to_a_match_open_its_thread(h: LiveBot) -> None:
    tid, thread = await started(h)
    ix = await h.command(ANN, "turns")
    assert f"https://discord.com/channels/{GUILD}/{thread.id}/" in " ".join(h.said(ix))
    ix = await h.command(ANN, "new")  # the channel's lobby opens; the link points to it
    record = await h.bot.service.tables.load(tid)
    from bot.discord_side.context import jump_url
    assert jump_url(h.bot.messages.current(record)).startswith(link(thread) + "/")


async def test_the_server_may_turn_threads_off(h: LiveBot) -> None:
    from players import ADMIN
    ix = await h.command(ADMIN, "settings", threads=False)
    assert "Each new match in a thread of its own: off." in " ".join(h.said(ix))
    await h.command(ANN, "new")
    await start_lobby(h, h.public()[-1])
    assert not h.lb.threads_of(h.channel)


async def test_the_channel_s_line_speaks_the_language_forced_during_the_match(
        h: LiveBot) -> None:
    """An admin forces French while a match is played in its thread: the channel's line of
    the match (who plays, the thread's link) speaks French at once, as its table message does,
    not only once the match ends."""
    from players import ADMIN
    tid, thread = await started(h)
    lobby = (await h.bot.service.tables.load(tid)).lobby_message_id
    assert lobby is not None
    await h.command(ADMIN, "settings", language="fr")
    now = await h.bot.service.tables.load(tid)
    assert now.locale == "fr"
    assert h.lb.message(lobby).text() == translate(line(now, thread.id), "fr")


async def test_a_running_match_s_thread_is_named_in_the_language_forced_during_it(
        h: LiveBot) -> None:
    """An admin forces French while a match is played in its thread: the thread is named
    again in French ("Karak · Ann et 1 IA"), as its channel's line and table message speak
    it."""
    from players import ADMIN
    tid, thread = await started(h)
    assert thread.name == "Karak · Ann and 1 AI"
    await h.command(ADMIN, "settings", language="fr")
    await h.settle()
    now = await h.bot.service.tables.load(tid)
    assert thread.name == thread_name(now) == "Karak · Ann et 1 IA"


@pytest.mark.parametrize("may_delete", [True, False])
async def test_a_match_whose_thread_cannot_be_saved_is_played_in_its_channel(
        h: LiveBot, caplog: pytest.LogCaptureFixture, may_delete: bool) -> None:
    if may_delete:  # the unused thread is deleted; else it is left, and a warning says so
        h.channel.bot_permissions |= MANAGE_THREADS
    else:
        h.channel.bot_permissions &= ~MANAGE_THREADS
    await no_room_for(h.store, "thread_id")
    await h.command(ANN, "new")
    tid = await start_lobby(h, h.public()[-1])
    assert "its thread could not be saved" in caplog.text
    # played in the channel, where the stored table says it is, and the host is not told to
    # grant a permission
    record = await h.bot.service.tables.load(tid)
    assert record.thread_id is None and record.where == h.channel.id
    assert len(h.lb.threads_of(h.channel)) == (0 if may_delete else 1)
    assert ("could not delete the unused thread" in caplog.text) is not may_delete
    assert [m.id for m in h.public()] == [table_message(h, h.channel).id]
    assert await Players(h, tid, [ANN]).step()
    await make_room(h.store)


async def test_a_rematch_whose_line_cannot_be_saved_is_played_in_its_channel(
        h: LiveBot, caplog: pytest.LogCaptureFixture) -> None:
    alone = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
             SeatInfo(ai=True, hero="taia", level="easy"),
             SeatInfo(ai=True, hero="argentus", level="easy"))
    tid = await finished_match(h.store, played(2), seats=alone, threaded=True)
    await h.bot.poster.announce_end(await h.bot.service.tables.load(tid))
    await h.settle()
    await no_room_for(h.store, "lobby_message_id")
    await h.click(ANN, h.public()[-1], RematchButton.id_for(tid, "offer"))
    new = await h.store.active_in_channel(h.channel.id)
    assert new is not None and new != tid
    assert "the line of its match could not be saved" in caplog.text
    assert not h.lb.threads_of(h.channel)  # no thread was opened, and the line is gone
    assert h.public()[-1].id == table_message(h, h.channel).id
    assert not any("are playing" in m.text() for m in h.public())
    await make_room(h.store)


async def test_a_lobby_in_an_archived_thread_is_redrawn_after_a_command(h: LiveBot) -> None:
    talk = h.lb.create_thread(h.channel, "talk", owner=ANN)
    await h.settle()
    await h.command(ANN, "new", channel=talk)
    lobby = h.public(talk)[-1]
    h.lb.archive_thread(talk)  # idle for a while, or a moderator archived it
    await h.settle()
    ix = await h.command(BOB, "join", channel=talk)
    assert "You joined" in " ".join(h.said(ix))
    shown = h.message(lobby)
    assert f"<@{BOB.id}>" in shown.text() and not talk.archived
    start = next(c for c in shown.custom_ids() if ":start:" in c)
    assert not component(shown, start).get("disabled")  # two seats: the host may start


async def test_a_guided_match_in_a_server_channel_moves_to_its_thread(
        h: LiveBot, calls: list[Call]) -> None:
    ix = await h.command(BOB, "learn")  # a guided match has no turn timer: it may last days
    hand = h.reply(ix)
    assert hand.owner == BOB.id and "Lesson (R10)" in hand.text()
    (thread,) = h.lb.threads_of(h.channel)
    tid = table_id(table_message(h, thread))
    line = h.lb.starter(thread)
    assert line is not None and h.public()[-1].id == line.id
    record = await h.bot.service.tables.load(tid)
    assert record.lessons and record.thread_id == thread.id
    assert await ThreadPlayers(h, tid, [BOB], thread).step()  # the hand plays in the thread
    # the channel stays open to other matches meanwhile
    await h.command(ANN, "new")
    lobby = h.public()[-1]
    assert table_id(lobby) != tid and any(":join:" in c for c in lobby.custom_ids())
    # the learner leaves: the match closes, its line says so and never showed a lobby again
    calls.clear()
    ix = await h.command(BOB, "leave", channel=thread)
    assert "You left table" in " ".join(h.said(ix))
    assert (await h.bot.service.tables.load(tid)).status == "abandoned"
    assert h.message(line).text().startswith("The match between Bob and 2 AI was abandoned")
    assert not [c for c in calls if c.method == "PATCH" and c.path.endswith(f"/{line.id}")
                and "new table" in str(c.body)]


async def test_without_the_thread_permission_a_guided_match_tells_its_learner_why(
        h: LiveBot) -> None:
    """/goblin learn where the bot may neither create threads nor post in them plays the
    lesson in the channel and tells the learner why (both permissions, in the plural), as
    /goblin new tells a host."""
    h.channel.bot_permissions &= ~(CREATE_PUBLIC_THREADS | SEND_MESSAGES_IN_THREADS)
    ix = await h.command(BOB, "learn")
    assert "Lesson (R10)" in h.reply(ix).text()
    assert ("I can't open a thread for this match because I lack these 2 permissions here: "
            "Create Public Threads, Send Messages in Threads. It will be played in this "
            "channel.") in h.said(ix)
    assert not h.lb.threads_of(h.channel)
    tid = table_id(h.last_table_message())
    record = await h.bot.service.tables.load(tid)
    assert record.lessons and record.thread_id is None and not record.threaded


async def test_a_person_forgotten_leaves_the_name_of_their_running_match_s_thread(
        h: LiveBot, caplog: pytest.LogCaptureFixture) -> None:
    """Bob asks the bot to forget him during a slow match played in a thread Discord
    archived meanwhile: the match goes on with the AI in his seat, and his name leaves the
    thread's name and the channel's line, where his seat is named by its hero, as everywhere a
    forgotten person sat. Once the bot may no longer name the thread, Eve forgotten leaves
    the channel's line, and a warning says the thread keeps her name."""
    tid = await open_table(h, ANN, [BOB, EVE])
    thread = h.lb.threads_of(h.channel)[-1]
    lobby = h.lb.starter(thread)
    assert lobby is not None
    assert thread.name == "Karak · Ann, Bob and Eve"
    h.lb.archive_thread(thread)  # a slow match: Discord archived its thread meanwhile
    await h.settle()
    asked = h.reply(await h.command(BOB, "forget-me"))
    await h.click(BOB, asked, ForgetButton.id_for(BOB.id, True))
    await h.settle()
    record = await h.bot.service.tables.load(tid)
    assert record.status == "running"
    heroes = {s.user: translate(f"hero.{record.game.seats[i].hero}.name", "en")
              for i, s in enumerate(record.seats)}
    bob = next(heroes[u] for u in heroes if u not in (ANN.id, EVE.id))
    assert thread.name == f"Karak · Ann, {bob} and Eve"
    assert h.lb.message(lobby.id).text() == (
        f"Ann, {bob} and Eve are playing →\u00a0{link(thread)}")
    # the bot may no longer name the thread: the line still loses the name, a warning tells
    h.channel.bot_permissions &= ~(MANAGE_THREADS | SEND_MESSAGES_IN_THREADS)
    await h.settle()
    asked = h.reply(await h.command(EVE, "forget-me"))
    await h.click(EVE, asked, ForgetButton.id_for(EVE.id, True))
    await h.settle()
    assert (await h.bot.service.tables.load(tid)).status == "running"
    assert thread.name == f"Karak · Ann, {bob} and Eve"
    assert h.lb.message(lobby.id).text() == (
        f"Ann, {bob} and {heroes[EVE.id]} are playing →\u00a0{link(thread)}")
    assert "could not name the thread of table 1 again (50013)" in caplog.text


async def test_a_learner_forgotten_leaves_the_name_of_their_guided_match_s_thread(
        h: LiveBot) -> None:
    """Bob asks the bot to forget him during his guided match, played in the thread the bot
    opened and named after him: the match closes, and his name leaves the channel's line and
    the thread's name alike (the match was running when he asked)."""
    await h.command(BOB, "learn")
    (thread,) = h.lb.threads_of(h.channel)
    tid = table_id(table_message(h, thread))
    line_message = h.lb.starter(thread)
    assert line_message is not None and thread.name == "Karak · Bob and 2 AI"
    asked = h.reply(await h.command(BOB, "forget-me"))
    await h.click(BOB, asked, ForgetButton.id_for(BOB.id, True))
    await h.settle()
    record = await h.bot.service.tables.load(tid)
    assert record.status == "abandoned"
    hero = translate(f"hero.{record.game.seats[0].hero}.name", "en")
    assert h.lb.message(line_message.id).text().startswith(
        f"The match between {hero} and 2 AI was abandoned")
    assert thread.name == f"Karak · {hero} and 2 AI"


@pytest.mark.parametrize("thread", [True, False])
async def test_a_match_started_as_the_bot_stopped_begins_at_the_restart(
        lb: Loopback, tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch,
        thread: bool) -> None:
    """The bot stops once a Start is saved, before any message of the match went out: at the
    restart the match begins as at a Start, its lobby message left with no lobby's buttons
    while the match is played: the match moves to its thread and the lobby message becomes
    the channel's line, or (no thread) the lobby message is deleted."""
    db = tmp_path / "k.db"
    h = await LiveBot.start(lb, db, TinyRenderer(), clock=clock, thinking=Thinking(workers=0),
                            threads=True)
    try:
        await h.command(ANN, "new", thread=thread)
        lobby = h.public()[-1]
        monkeypatch.setattr(h.bot.messages, "begin", lambda record: None)  # stopped first
        tid = await start_lobby(h, lobby)
        assert (await h.bot.service.tables.load(tid)).status == "running"
    finally:
        await h.stop()
    monkeypatch.undo()
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock,
                                thinking=Thinking(workers=0), threads=True)
    try:
        await again.settle()
        threads = lb.threads_of(again.channel)
        assert len(threads) == thread
        where = threads[0] if thread else again.channel
        assert table_message(again, where).custom_ids() == [f"kg:hand:{tid}", f"kg:log:{tid}"]
        if thread:
            assert [m.id for m in again.public()] == [lobby.id]
            assert lb.message(lobby.id).text() == (
                f"Ann and 1 AI are playing →\u00a0{link(threads[0])}")
        else:
            assert lobby.id not in [m.id for m in again.public()]
    finally:
        await again.stop()


async def test_a_mover_is_told_the_thread_s_table_cannot_show_their_move(h: LiveBot) -> None:
    """The bot loses Send Messages in Threads during a match played in its thread: the mover's
    hand says once that the table in the thread cannot be kept up to date, naming the
    permission as Discord's settings do."""
    tid, thread = await started(h)
    h.channel.bot_permissions &= ~SEND_MESSAGES_IN_THREADS
    await h.settle()
    players = ThreadPlayers(h, tid, [ANN], thread)
    said = []
    for _ in range(3):
        hand = await players.open_hand(ANN)
        rec = await h.bot.service.tables.load(tid)
        want = str(make_agent("heuristic", rec.version).choose(
            observe(rec.game, rec.game.current)))
        said.append(h.reply(await h.play(ANN, hand, want)).text())
        await h.settle()
    assert f"up to date in <#{thread.id}>" in said[0] and "Send Messages in Threads" in said[0]
    assert not any("Send Messages in Threads" in s for s in said[1:]), said


async def test_a_turn_begun_while_the_bot_could_not_post_pings_its_person_once_it_may(
        h: LiveBot, clock: Clock, caplog: pytest.LogCaptureFixture) -> None:
    """The bot loses Send Messages in Threads during a slow match: Ann is told as she moves,
    and Bob's turn begins with no ping (the table message is edited to show it). Once the
    permission is given back, a pass of the bot's timers posts Bob's turn afresh and pings
    him, without waiting for him to notice; it is not posted again after that."""
    tid = await open_table(h, ANN, [BOB], timer=3 * 86400)
    thread = h.lb.threads_of(h.channel)[-1]
    players = ThreadPlayers(h, tid, [ANN, BOB], thread)
    first = (await h.bot.service.tables.load(tid)).game.current
    h.channel.bot_permissions &= ~SEND_MESSAGES_IN_THREADS
    await h.settle()
    while (await h.bot.service.tables.load(tid)).game.current == first:
        assert await players.step()
    await h.settle()
    record = await h.bot.service.tables.load(tid)
    mover = record.seats[record.game.current].user
    assert mover is not None and mover not in {m for msg in h.public(thread)
                                               for m in msg.mentions}
    assert "could not post the turn of table" in caplog.text
    clock.now += 300
    await h.bot.scheduler._timer_pass()  # still refused: tried again later
    await h.settle()
    assert mover not in {m for msg in h.public(thread) for m in msg.mentions}
    h.channel.bot_permissions |= SEND_MESSAGES_IN_THREADS  # an admin gives it back
    clock.now += 300
    await h.bot.scheduler._timer_pass()
    await h.settle()
    table = table_message(h, thread)
    assert table.mentions == [mover] and f"<@{mover}>, it is your turn!" in table.text()
    clock.now += 300
    await h.bot.scheduler._timer_pass()
    await h.settle()
    assert table_message(h, thread).id == table.id  # pinged once


async def test_a_guided_match_starts_beside_a_lobby_waiting_in_the_channel(h: LiveBot) -> None:
    """Ann's lobby waits in the channel when Bob asks for /goblin learn: his guided match goes
    to a thread of its own, so it shares no table slot with her lobby and starts; her lobby
    stays open."""
    await h.command(ANN, "new")
    lobby = h.public()[-1]
    ix = await h.command(BOB, "learn")
    assert "Lesson (R10)" in h.reply(ix).text(), h.said(ix)
    (thread,) = h.lb.threads_of(h.channel)
    tid = table_id(table_message(h, thread))
    record = await h.bot.service.tables.load(tid)
    assert record.lessons and record.thread_id == thread.id and record.status == "running"
    assert (await h.bot.service.tables.load(table_id(lobby))).status == "lobby"
    assert any(":join:" in c for c in h.message(lobby).custom_ids())


def threads_refused(h: LiveBot) -> list[str]:
    """From now on Discord refuses every thread the bot opens (Missing Permissions, as when
    a moderator took Create Public Threads after the command was checked); the paths refused."""
    refused: list[str] = []
    real = h.lb.world.rest

    async def rest(method: str, path: str, query: dict[str, str], auth: str | None,
                   body: Any, uploads: list[Upload]) -> Reply:
        if method.upper() == "POST" and path.endswith("/threads"):
            refused.append(path)
            return Reply(403, {"message": "Missing Permissions", "code": 50013})
        return await real(method, path, query, auth, body, uploads)

    h.lb.world.rest = rest  # type: ignore[method-assign]
    return refused


async def test_a_guided_match_refused_its_thread_beside_a_lobby_is_played_in_the_channel(
        h: LiveBot) -> None:
    """Discord refuses the thread of Bob's guided match, started beside Ann's lobby: the
    lesson is played in the channel, beside the lobby, and Bob is told why; in the channel
    each person's commands find their own table (a stranger's, the lobby), and both go on:
    Ann's match starts and Bob's lesson plays."""
    await h.command(ANN, "new")
    lobby = h.public()[-1]
    ann = table_id(lobby)
    refused = threads_refused(h)
    ix = await h.command(BOB, "learn")
    assert "Lesson (R10)" in h.reply(ix).text(), h.said(ix)
    assert refused and not h.lb.threads_of(h.channel)
    lesson = table_id(table_message(h, h.channel))
    record = await h.bot.service.tables.load(lesson)
    assert record.lessons and record.status == "running" and record.thread_id is None
    assert any("could not open a thread" in m.text() and f"<@{BOB.id}>" in m.text()
               for m in h.public())
    assert (await h.bot.service.tables.load(ann)).status == "lobby"
    # in the channel, each person finds their own table, a stranger the lobby
    assert f"kg:lobby:{ann}" in " ".join(h.reply(await h.command(ANN, "status")).custom_ids())
    assert f"table #{lesson}" in h.reply(await h.command(BOB, "status")).text()
    assert "Lesson" in h.reply(await h.command(BOB, "hand")).text()
    ix = await h.command(EVE, "join")
    assert f"You joined table #{ann}" in " ".join(h.said(ix)), h.said(ix)
    # a second lobby is still refused: Ann's holds the channel
    ix = await h.command(EVE, "new")
    assert str(ann) in " ".join(h.said(ix)), h.said(ix)
    # Ann starts her match (played in the channel: Discord still refuses threads)
    await start_lobby(h, h.message(lobby), ANN, 0)
    assert (await h.bot.service.tables.load(ann)).status == "running"
    assert await Players(h, ann, [ANN, EVE]).step()
    assert f"table #{ann}" in h.reply(await h.command(ANN, "status")).text()
    assert f"table #{lesson}" in h.reply(await h.command(BOB, "status")).text()
    # Bob leaves his lesson from the channel: it closes; Ann's match goes on
    ix = await h.command(BOB, "leave")
    assert f"You left table #{lesson}" in " ".join(h.said(ix)), h.said(ix)
    assert (await h.bot.service.tables.load(lesson)).status == "abandoned"
    assert (await h.bot.service.tables.load(ann)).status == "running"


async def test_a_lobby_opens_beside_a_guided_match_refused_its_thread(h: LiveBot) -> None:
    """Bob's guided match is played in the channel, Discord having refused its thread: it
    holds no place there, so Ann opens a lobby beside it; in the channel Eve's commands find
    the lobby, not Bob's lesson, and each of Ann and Bob finds their own table."""
    threads_refused(h)
    await h.command(BOB, "learn")
    lesson = table_id(table_message(h, h.channel))
    ix = await h.command(ANN, "new")
    lobby = h.public()[-1]
    ann = table_id(lobby)
    assert ann != lesson and any(":join:" in c for c in lobby.custom_ids()), h.said(ix)
    ix = await h.command(EVE, "join")
    assert f"You joined table #{ann}" in " ".join(h.said(ix)), h.said(ix)
    assert f"kg:lobby:{ann}" in " ".join(h.reply(await h.command(EVE, "status")).custom_ids())
    assert f"table #{lesson}" in h.reply(await h.command(BOB, "status")).text()
    assert f"kg:lobby:{ann}" in " ".join(h.reply(await h.command(ANN, "status")).custom_ids())
    await start_lobby(h, h.message(lobby), ANN, 0)
    assert await Players(h, ann, [ANN, EVE]).step()
    hand = h.reply(await h.command(BOB, "hand"))
    assert "Lesson" in hand.text()


async def test_lessons_in_their_threads_leave_the_channel_to_its_lobby_and_matches(
        h: LiveBot) -> None:
    """Bob and Eve each take a guided match beside Ann's lobby: two lessons, each in a thread
    of its own; in the channel everyone's commands find Ann's lobby (Bob and Eve sit at no
    table there), in his thread Bob's find his lesson; Ann's match starts to a thread of its
    own beside them, and a rematch of a finished match starts while they last."""
    alone = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
             SeatInfo(ai=True, hero="taia", level="easy"),
             SeatInfo(ai=True, hero="argentus", level="easy"))
    done = await finished_match(h.store, played(2), seats=alone, threaded=True)
    await h.bot.poster.announce_end(await h.bot.service.tables.load(done))
    await h.settle()
    final = h.public()[-1]
    await h.command(ANN, "new")
    lobby = h.public()[-1]
    ann = table_id(lobby)
    lessons = {}
    for user in (BOB, EVE):
        ix = await h.command(user, "learn")
        assert "Lesson (R10)" in h.reply(ix).text(), h.said(ix)
        thread = h.lb.threads_of(h.channel)[-1]
        lessons[user.id] = (table_id(table_message(h, thread)), thread)
    assert len({tid for tid, _ in lessons.values()}) == 2
    for user in (ANN, BOB, EVE):
        shown = h.reply(await h.command(user, "status")).custom_ids()
        assert f"kg:lobby:{ann}" in " ".join(shown), shown
    tid, thread = lessons[BOB.id]
    assert f"table #{tid}" in h.reply(await h.command(BOB, "status", channel=thread)).text()
    ix = await h.command(BOB, "leave")  # in the channel: he sits at no table there
    assert (await h.bot.service.tables.load(tid)).status == "running", h.said(ix)
    # Ann's match moves to a thread of its own; the lessons go on in theirs
    await start_lobby(h, h.message(lobby), ANN, 1)
    record = await h.bot.service.tables.load(ann)
    assert record.status == "running" and record.thread_id is not None
    assert await ThreadPlayers(h, ann, [ANN], h.lb.channel(record.thread_id)).step()
    for user in (BOB, EVE):
        tid, thread = lessons[user.id]
        assert await ThreadPlayers(h, tid, [user], thread).step()
    # the channel holds no table of its own: a rematch of the finished match starts
    ix = await h.click(ANN, final, RematchButton.id_for(done, "offer"))
    assert "has started" in h.said(ix)[0], h.said(ix)
    assert len(h.lb.threads_of(h.channel)) == 4


async def test_a_guided_match_s_rematch_starts_beside_a_lobby(h: LiveBot) -> None:
    """Bob's guided match, played in its thread, is over while Ann's lobby waits in the
    channel: his rematch, a guided match again, moves to a thread of its own as well, so it
    starts beside her lobby."""
    alone = (SeatInfo(user=BOB.id, name="Bob", hero="horan"),
             SeatInfo(ai=True, hero="taia", level="easy"),
             SeatInfo(ai=True, hero="argentus", level="easy"))
    done = await finished_match(h.store, played(2), seats=alone, host=BOB, threaded=True,
                                lessons=True)
    await h.bot.poster.announce_end(await h.bot.service.tables.load(done))
    await h.settle()
    final = h.public()[-1]
    await h.command(ANN, "new")
    lobby = h.public()[-1]
    ix = await h.click(BOB, final, RematchButton.id_for(done, "offer"))
    assert "has started" in h.said(ix)[0], h.said(ix)
    (thread,) = h.lb.threads_of(h.channel)
    record = await h.bot.service.tables.load(table_id(table_message(h, thread)))
    assert record.lessons and record.thread_id == thread.id and record.status == "running"
    assert (await h.bot.service.tables.load(table_id(lobby))).status == "lobby"


async def test_a_guided_match_played_in_the_channel_is_refused_beside_a_lobby(
        h: LiveBot) -> None:
    """Where the bot may not create threads, Bob's guided match would be played in the
    channel, whose one table is Ann's lobby: /goblin learn says where to learn instead, and
    the lobby is left as it was; so it is where the server turned threads off."""
    await h.command(ANN, "new")
    lobby = h.public()[-1]
    h.channel.bot_permissions &= ~CREATE_PUBLIC_THREADS
    await h.settle()
    ix = await h.command(BOB, "learn")
    told = " ".join(h.said(ix))
    assert "direct message" in told and str(table_id(lobby)) in told, told
    assert not h.lb.threads_of(h.channel)
    h.channel.bot_permissions |= CREATE_PUBLIC_THREADS
    await h.settle()
    await h.command(ADMIN, "settings", threads=False)
    ix = await h.command(BOB, "learn")
    assert "direct message" in " ".join(h.said(ix)), h.said(ix)
    assert (await h.bot.service.tables.load(table_id(lobby))).status == "lobby"
    assert await h.store.active_within(h.channel.id) == [table_id(lobby)]


async def test_a_match_played_in_the_channel_beside_a_guided_match_in_its_thread(
        h: LiveBot) -> None:
    """Bob's guided match plays in its thread when Ann opens a lobby in the channel with
    threads off for her match: it starts in the channel, beside his lesson; in the channel
    Ann's /goblin hand and /goblin leave are about her match, Bob's (seated at no table
    there) leave both alone, and in his thread his are about his lesson."""
    await h.command(BOB, "learn")
    (thread,) = h.lb.threads_of(h.channel)
    lesson = table_id(table_message(h, thread))
    await h.command(ANN, "new", thread=False)
    ann = await start_lobby(h, h.public()[-1], ANN, 1)
    record = await h.bot.service.tables.load(ann)
    assert record.status == "running" and record.thread_id is None
    assert table_id(table_message(h, h.channel)) == ann
    assert await Players(h, ann, [ANN]).step()
    ix = await h.command(BOB, "leave")
    assert "don't have a seat at this table" in " ".join(h.said(ix)), h.said(ix)
    assert (await h.bot.service.tables.load(ann)).seats[0].user == ANN.id
    assert "Lesson" in h.reply(await h.command(BOB, "hand", channel=thread)).text()
    assert f"table #{ann}" in h.reply(await h.command(ANN, "status")).text()
    assert f"table #{lesson}" in h.reply(await h.command(BOB, "status", channel=thread)).text()
    assert f"kg:hint:{ann}:" in " ".join(h.reply(await h.command(ANN, "hand")).custom_ids())
    ix = await h.command(ANN, "leave")
    assert f"You left table #{ann}" in " ".join(h.said(ix)), h.said(ix)
    assert (await h.bot.service.tables.load(lesson)).status == "running"
    ix = await h.command(BOB, "leave", channel=thread)
    assert f"You left table #{lesson}" in " ".join(h.said(ix)), h.said(ix)
    assert (await h.bot.service.tables.load(lesson)).status == "abandoned"


async def test_a_guided_match_refused_its_thread_stays_in_the_channel_at_a_restart(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """Bob's guided match, played in the channel since Discord refused its thread, is not
    moved to a thread at the bot's restart, where Discord would take one now: it goes on
    where its table message is."""
    db = tmp_path / "k.db"
    h = await LiveBot.start(lb, db, TinyRenderer(), clock=clock, thinking=Thinking(workers=0),
                            threads=True)
    real = lb.world.rest
    try:
        threads_refused(h)
        await h.command(BOB, "learn")
        shown = table_message(h, h.channel)
        tid = table_id(shown)
    finally:
        await h.stop()
        lb.world.rest = real  # type: ignore[method-assign]
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock,
                                thinking=Thinking(workers=0), threads=True)
    try:
        await again.settle()
        assert not lb.threads_of(again.channel)
        assert table_message(again, again.channel).id == shown.id
        record = await again.bot.service.tables.load(tid)
        assert record.thread_id is None and record.message_id == shown.id
        assert "Lesson" in again.reply(await again.command(BOB, "hand")).text()
    finally:
        await again.stop()


async def test_a_slow_matchs_rematch_offer_lapses_in_its_archived_thread(
        h: LiveBot, clock: Clock) -> None:
    """A slow match's rematch offer stays open a turn's time (three days here), longer than
    Discord leaves an idle thread unarchived (a day): when the offer lapses, its message in
    the archived thread loses its buttons all the same (the thread taken out of the archive
    first, as for any edit there)."""
    days = 3 * 86400
    tid = await finished_match(h.store, played(2), threaded=True, timer=days)
    thread = h.lb.create_thread(h.channel, "the match")
    await h.settle()
    await h.store.set_thread(tid, thread.id, True)
    await h.bot.poster.announce_end(await h.bot.service.tables.load(tid))
    await h.settle()
    final = h.public(thread)[-1]
    ix = await h.click(ANN, final, RematchButton.id_for(tid, "offer"))
    assert "offer is posted" in h.said(ix)[0]
    offer = h.public(thread)[-1]
    assert offer.custom_ids() == [RematchButton.id_for(tid, "ready"),
                                  RematchButton.id_for(tid, "start")]
    h.lb.clock.advance(days + 60)  # nobody answered: Discord archived the idle thread
    clock.now += days + 60
    h.lb.check_deadlines()
    await h.settle()
    assert thread.archived
    await h.bot.clicks.past.lapse_offers()
    await h.settle()
    assert not h.message(offer).custom_ids() and "has lapsed" in h.message(offer).text()


@pytest.mark.parametrize(("timer", "idle"), [(0, 1440), (3600, 1440), (86400, 1440),
                                             (3 * 86400, 4320), (7 * 86400, 10080)])
async def test_a_match_s_thread_stays_in_the_channel_s_list_for_a_whole_turn(
        h: LiveBot, timer: int, idle: int) -> None:
    """Discord hides a thread from its channel's list once it was idle for its auto-archive
    duration. A slow match's thread is kept there for a whole turn of its timer (three days,
    a week), never less than the channel's own default (a day): a person who takes two days
    over a three-day turn still finds the match beside the channel."""
    tid = await open_table(h, ANN, [BOB], timer=timer)
    thread = h.lb.threads_of(h.channel)[-1]
    assert (await h.bot.service.tables.load(tid)).thread_id == thread.id
    assert thread.auto_archive == idle
    h.lb.clock.advance(idle * 60 - 60)  # nobody wrote in it for almost that long
    h.lb.check_deadlines()
    assert not thread.archived


async def _slow_match_left(lb: Loopback, db: Path, clock: Clock,
                           timer: int) -> tuple[int, Channel]:
    """Ann and Bob, reminders on, start a match of turn timer ``timer`` in a thread of its
    own; then the bot stops. The table's id and its thread."""
    h = await LiveBot.start(lb, db, TinyRenderer(), clock=clock, thinking=Thinking(workers=0),
                            threads=True)
    try:
        for who in (ANN, BOB):
            await h.command(who, "notify", state="on")
        tid = await open_table(h, ANN, [BOB], timer=timer)
        return tid, h.lb.threads_of(h.channel)[-1]
    finally:
        await h.stop()


async def test_no_reminder_of_a_match_whose_thread_was_deleted_while_the_bot_was_away(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """A slow match's thread is deleted while the bot is stopped, and its person's reminder
    falls due meanwhile: at the restart the match is found gone (abandoned) by the first
    request to its thread, and no reminder goes out pointing to the deleted thread."""
    db = tmp_path / "k.db"
    tid, thread = await _slow_match_left(lb, db, clock, 3 * 86400)
    clock.now += 20 * 3600  # past a quarter of the turn: its reminder is due
    lb.delete_thread(thread)  # a moderator deletes it while the bot is stopped
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock,
                                thinking=Thinking(workers=0), threads=True)
    try:
        await again.bot.reminders.send_due()
        await again.settle()
        assert (await again.bot.service.tables.load(tid)).status == "abandoned"
        assert not [m for m in lb.messages.values() if m.author.bot
                    and m.channel_id in (lb.dm(ANN).id, lb.dm(BOB).id)]
    finally:
        await again.stop()


async def test_a_slow_match_goes_on_in_its_thread_discord_archived_while_the_bot_was_away(
        lb: Loopback, tmp_path: Path) -> None:
    """A one-day match's thread idles past its auto-archive duration while the bot is
    stopped: Discord archives it, and discord.py, restarted, no longer knows it. The timed-out
    turn is posted there all the same (which takes the thread out of the archive), the next
    person's reminder links to it, and after another idle day the next turn is posted there
    as well."""
    clock = Clock(start=float(int(time.time())))  # as Discord's message ids tell the time
    db = tmp_path / "k.db"
    tid, thread = await _slow_match_left(lb, db, clock, 86400)
    assert thread.auto_archive == 1440

    def later(seconds: int) -> None:
        clock.now += seconds
        lb.clock.advance(seconds)
        lb.check_deadlines()

    later(86400 + 600)
    assert thread.archived
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock,
                                thinking=Thinking(workers=0), threads=True)
    try:
        await again.bot.scheduler.check_timers()  # Ann's turn ran out: the AI played it
        await again.settle()
        record = await again.bot.service.tables.load(tid)
        assert not thread.archived and record.status == "running"
        table = table_message(again, thread)
        assert "Time is up for Ann" in table.text() and table.mentions == [BOB.id]
        later(6 * 3600 + 60)
        await again.bot.reminders.send_due()
        await again.settle()
        [reminder] = [m for m in lb.messages.values()
                      if m.author.bot and m.channel_id == lb.dm(BOB).id]
        assert f"{thread.id}/{table.id}" in reminder.text()
        later(18 * 3600)  # Bob's day passed without a message: archived again
        assert thread.archived
        await again.bot.scheduler.check_timers()
        await again.settle()
        assert not thread.archived
        assert table_message(again, thread).mentions == [ANN.id]
        assert (await again.bot.service.tables.load(tid)).version > record.version
    finally:
        await again.stop()


async def test_the_tables_of_a_thread_found_gone_settle_until_they_are_closed() -> None:
    """A request finds a match's thread deleted, or a thread locked, while the bot was away:
    the tables there count as settling (their reminders wait: they would point to what is
    gone) until their own closing is done."""
    tasks, pace = Tasks(), ChannelPace()
    closed = {50: asyncio.Event(), 6: asyncio.Event()}
    told: list[tuple[int, int | None, str]] = []

    async def gone(channel: int, parent: int | None, ending: str) -> None:
        told.append((channel, parent, ending))
        await closed[channel].wait()

    threads = MatchThreads(cast(Any, None), cast(Any, None), pace, Feeds(tasks, pace),
                           gone=gone)
    in_thread = cast(Any, SimpleNamespace(id=1, where=50, channel_id=5))
    in_channel = cast(Any, SimpleNamespace(id=2, where=6, channel_id=6))
    deleted = HTTPException(cast(Any, SimpleNamespace(status=404, reason="")),
                            {"code": UNKNOWN_CHANNEL, "message": ""})
    assert not threads.settling(in_thread) and not threads.settling(in_channel)
    assert threads.vanished(50, deleted, parent=5)
    threads.locked(6)
    assert threads.settling(in_thread) and threads.settling(in_channel)
    first = next(t for t in asyncio.all_tasks() if t.get_name() == "channel-deleted-50")
    closed[50].set()
    await first
    assert not threads.settling(in_thread) and threads.settling(in_channel)
    closed[6].set()
    await tasks.idle()
    assert not threads.settling(in_channel)
    assert told == [(50, 5, "deleted"), (6, None, "locked")]


async def test_czech_names_the_winner_s_one_opponent_in_the_singular(h: LiveBot) -> None:
    """The channel's line of a finished match in Czech: one opponent is "soupeř" (the plural
    "soupeři" said of one was wrong), two are counted, "2 soupeři"."""
    said = []
    for seats in (SEATS[:2], SEATS):  # Ann and Bob; Ann, Bob and an AI
        game = played(2, tuple(s.hero for s in seats))
        tid = await finished_match(h.store, game, seats=seats, locale="cs")
        said.append(translate(line(await h.bot.service.tables.load(tid), 77, "won"), "cs"))
    thread = f"https://discord.com/channels/{GUILD}/77"
    assert said == [f"Hru vyhrává Bob, soupeř: Ann →\u00a0{thread}",
                    f"Hru vyhrává Ann, 2 soupeři: Bob a 1 AI →\u00a0{thread}"]



async def test_a_win_against_ai_seats_alone_counts_them_once(h: LiveBot) -> None:
    """The channel's line of a match a person won against AI seats only names the AI seats
    by their number, once: "Ann won against 2 AI", not "against 2 opponents, 2 AI"; the
    number stays on the line of "AI" (French "IA"), which a phone's line would otherwise part
    from it ("a gagné contre 2" / "IA")."""
    seats = (SEATS[0], SeatInfo(ai=True, hero="taia", level="easy"),
             SeatInfo(ai=True, hero="argentus", level="easy"))
    game = played(2, tuple(s.hero for s in seats))
    tid = await finished_match(h.store, game, seats=seats)
    record = await h.bot.service.tables.load(tid)
    assert record.state is not None and record.state.winner == 0
    thread = f"https://discord.com/channels/{GUILD}/77"
    assert [translate(line(record, 77, "won"), lc) for lc in ("en", "fr", "cs")] == [
        f"Ann won against 2\u00a0AI →\u00a0{thread}",
        f"Ann a gagné contre 2\u00a0IA →\u00a0{thread}",
        f"Hru vyhrává Ann, soupeři: 2\u00a0AI →\u00a0{thread}"]

async def test_a_lobby_follows_the_server_turning_threads_off_before_its_start(
        h: LiveBot) -> None:
    """Ann's lobby opens while the server plays each match in a thread of its own (the bot's
    default); an admin turns threads off before she starts it: her match is played in the
    channel, as the server says at its start."""
    await h.command(ANN, "new")
    lobby = h.public()[-1]
    await h.command(ADMIN, "settings", threads=False)
    tid = await start_lobby(h, lobby)
    assert not h.lb.threads_of(h.channel)
    assert table_message(h, h.channel).custom_ids() == [f"kg:hand:{tid}", f"kg:log:{tid}"]
    record = await h.bot.service.tables.load(tid)
    assert not record.threaded and record.thread_id is None


async def test_a_lobby_follows_the_server_turning_threads_on_before_its_start(
        h: LiveBot) -> None:
    await h.command(ADMIN, "settings", threads=False)
    await h.command(ANN, "new")
    lobby = h.public()[-1]
    await h.command(ADMIN, "settings", threads=True)
    tid = await start_lobby(h, lobby)
    (thread,) = h.lb.threads_of(h.channel)
    assert table_message(h, thread).custom_ids() == [f"kg:hand:{tid}", f"kg:log:{tid}"]
    assert (await h.bot.service.tables.load(tid)).thread_id == thread.id


@pytest.mark.parametrize("chosen", [True, False])
async def test_the_host_s_own_thread_choice_stands_whatever_the_server_chooses_meanwhile(
        h: LiveBot, chosen: bool) -> None:
    """Ann chose herself whether her match moves to a thread (``thread:`` of /goblin new): an
    admin turning threads the other way while her lobby waits changes nothing."""
    await h.command(ADMIN, "settings", threads=not chosen)
    await h.command(ANN, "new", thread=chosen)
    lobby = h.public()[-1]
    await h.command(ADMIN, "settings", threads=chosen)
    await h.command(ADMIN, "settings", threads=not chosen)
    tid = await start_lobby(h, lobby)
    assert len(h.lb.threads_of(h.channel)) == int(chosen)
    record = await h.bot.service.tables.load(tid)
    assert record.threaded == chosen and (record.thread_id is not None) == chosen


async def test_a_lobby_inside_a_thread_plays_there_though_the_server_turned_threads_on(
        h: LiveBot) -> None:
    await h.command(ADMIN, "settings", threads=False)
    talk = h.lb.create_thread(h.channel, "talk", owner=ANN)
    await h.settle()
    await h.command(ANN, "new", channel=talk)
    lobby = h.public(talk)[-1]
    await h.command(ADMIN, "settings", threads=True)
    tid = await start_lobby(h, lobby)
    assert [t.id for t in h.lb.threads_of(h.channel)] == [talk.id]  # no thread in a thread
    assert table_message(h, talk).custom_ids() == [f"kg:hand:{tid}", f"kg:log:{tid}"]
    record = await h.bot.service.tables.load(tid)
    assert record.channel_id == talk.id and record.thread_id is None and not record.threaded


@pytest.mark.parametrize("chosen", [True, False])
async def test_a_rematch_follows_the_server_s_threads_unless_its_host_chose_a_thread(
        h: LiveBot, chosen: bool) -> None:
    """Ann's match moved to a thread, by her own choice or the server's; the server turns
    threads off before its rematch: the rematch keeps her choice, or follows the server's and
    is played in the channel."""
    alone = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
             SeatInfo(ai=True, hero="taia", level="easy"),
             SeatInfo(ai=True, hero="argentus", level="easy"))
    done = await finished_match(h.store, played(2), seats=alone, threaded=True,
                                thread_chosen=chosen)
    await h.bot.poster.announce_end(await h.bot.service.tables.load(done))
    await h.settle()
    final = h.public()[-1]
    await h.command(ADMIN, "settings", threads=False)
    ix = await h.click(ANN, final, RematchButton.id_for(done, "offer"))
    assert "has started" in h.said(ix)[0], h.said(ix)
    new = await h.bot.service.tables.load(done + 1)
    assert new.status == "running" and new.threaded == chosen
    assert len(h.lb.threads_of(h.channel)) == int(chosen)
    assert (new.thread_id is not None) == chosen
