"""A channel deleted while tables are open in it, on the stand-in with the real discord.py client:
Discord sends CHANNEL_DELETE alone (nothing of the channel's threads), and every lobby and match
opened there (played in the channel, in the match's own thread, or in a thread people opened)
is closed as when its thread is deleted: abandoned, its log kept, not rated while someone had not
moved, its turn timer and AI seats stopped, and nothing sent to the gone channel. A channel
deleted while the bot was stopped is found by the first request to it after the restart, and so
is a server that removed the bot meanwhile (Missing Access, the bot in it no more). A
tournament held in a deleted channel is cancelled: its round's matches are closed and no
further round is seated."""
from __future__ import annotations

import asyncio
import logging
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from bot_helpers import Clock
from in_threads import ThreadPlayers, start_lobby, started
from live_bot import LiveBot, record_requests, table_id
from players import ADMIN, ANN, BOB, EVE, TinyRenderer
from storage.helpers import new_tournament

from bot.discord_side.ui.custom_ids import LobbyButton, TournamentButton
from bot.game.places import Place
from bot.game.results import movers
from bot.workers.thinking import Thinking
from loopback import Channel, Loopback


async def deleted(h: LiveBot, channel: Channel) -> None:
    """A moderator deletes ``channel``; the bot heard it and settled."""
    heard = asyncio.ensure_future(h.bot.wait_for("guild_channel_delete", timeout=10))
    h.lb.delete_channel(channel)
    assert (await heard).id == channel.id
    await h.settle()


async def test_a_deleted_channel_closes_every_table_in_it_and_posts_nothing(
        h: LiveBot, clock: Clock, caplog: pytest.LogCaptureFixture) -> None:
    threaded, thread = await started(h, ANN)  # a match in its own thread, with an AI seat
    assert await ThreadPlayers(h, threaded, [ANN], thread).step()
    chat = h.lb.create_thread(h.channel, "chat")  # a thread people opened: a lobby in it
    await h.command(ADMIN, "new", channel=chat)
    in_chat = table_id(h.public(chat)[-1])
    await h.command(BOB, "new", thread=False, timer=60)  # a match played in the channel itself
    here = table_id(h.public()[-1])
    await h.click(EVE, h.public()[-1], LobbyButton.id_for(here, "join", None))
    await start_lobby(h, h.public()[-1], BOB, ai=0)
    record = await h.bot.service.tables.load(here)
    assert record.status == "running" and record.thread_id is None and record.deadline
    kept = {t: await h.store.action_log(t) for t in (threaded, here)}
    calls = record_requests(h.lb)
    caplog.clear()

    await deleted(h, h.channel)
    for table in (threaded, in_chat, here):
        assert (await h.bot.service.tables.load(table)).status == "abandoned"
        assert not h.bot.scheduler.busy(table) and not h.bot.messages.busy(table)
    for table, log in kept.items():
        assert await h.store.action_log(table) == log  # nothing of the logs is lost
    assert await h.store.changes_of_table(here) == []  # nobody had moved: not rated
    assert not calls  # nothing sent to the gone channel, nor to its threads
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    # the match's turn timer no longer runs out
    clock.now += 3600
    await h.bot.scheduler.check_timers()
    await h.settle()
    assert await h.store.action_log(here) == kept[here] and not calls
    # the server's other channels play on
    other = h.lb.create_channel(h.guild, "more games")
    await h.command(BOB, "new", channel=other)
    assert h.public(other)[-1].custom_ids()


async def test_a_channel_deleted_while_the_bot_was_away_is_found_at_its_restart(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    db = tmp_path / "k.db"
    h = await LiveBot.start(lb, db, TinyRenderer(), clock=clock, thinking=Thinking(workers=0),
                            threads=True)
    channel = lb.create_channel(h.guild, "games for now")
    other = lb.create_channel(h.guild, "more games")
    try:
        threaded, thread = await started(h, channel=channel)  # in a thread of the channel
        assert await ThreadPlayers(h, threaded, [ANN], thread).step()
        await h.command(BOB, "new", channel=channel)  # an open lobby in the channel
        lobby = table_id(h.public(channel)[-1])
        await h.command(EVE, "new", channel=other, thread=False)  # played in the other one
        here = await start_lobby(h, h.public(other)[-1], EVE)
        kept = {t: await h.store.action_log(t) for t in (threaded, here)}
    finally:
        await h.stop()
    lb.delete_channel(channel)  # deleted while the bot is stopped: no event heard
    lb.delete_channel(other)
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock,
                                thinking=Thinking(workers=0), threads=True)
    try:
        await again.settle()
        for table in (threaded, lobby, here):  # found gone by the first request to each
            assert (await again.bot.service.tables.load(table)).status == "abandoned"
            assert not again.bot.scheduler.busy(table)
        for table, log in kept.items():
            assert await again.store.action_log(table) == log
        fresh = lb.create_channel(again.guild, "new games")
        await again.command(BOB, "new", channel=fresh)
        assert again.public(fresh)[-1].custom_ids()
    finally:
        await again.stop()


async def spring_cup(h: LiveBot, channel: Channel) -> int:
    """Spring Cup (2 rounds, one table of Ann, Bob and Eve) opened in ``channel`` and
    started; its id."""
    await h.command(ADMIN, "tournament new", channel=channel, name="Spring Cup", rounds=2,
                    table_size=3)
    board = next(m for m in h.public(channel)
                 if "Tournament: Spring Cup" in h.message(m).text())
    cup = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    for user in (ANN, BOB, EVE):
        await h.click(user, board, TournamentButton.id_for(cup, "join"))
    await h.command(ADMIN, "tournament start", channel=channel)
    return cup


async def test_a_tournament_whose_channel_is_deleted_is_cancelled(h: LiveBot,
                                                                  tmp_path: Path) -> None:
    cup = await spring_cup(h, h.channel)
    # another, taking sign-ups, in the same channel (opened before a channel took one
    # tournament at a time: the store refuses it now, so it is moved there by hand)
    autumn = (await new_tournament(h.store, guild_id=h.guild.id,
                                   place_key=Place.server(h.guild.id).key,
                                   channel_id=h.channel.id + 1, host_id=ADMIN.id)).id
    with closing(sqlite3.connect(tmp_path / "k.db")) as con, con:  # the fixture's file
        con.execute("UPDATE tournaments SET channel_id = ? WHERE id = ?",
                    (h.channel.id, autumn))
    view = await h.bot.service.tournaments.view(cup)
    assert view.record.status == "running" and autumn != cup
    table = view.tables[0].table_id
    calls = record_requests(h.lb)

    await deleted(h, h.channel)
    assert (await h.bot.service.tables.load(table)).status == "abandoned"
    for tournament in (cup, autumn):
        assert (await h.bot.service.tournaments.view(tournament)).record.status == "cancelled"
    view = await h.bot.service.tournaments.view(cup)
    assert view.record.round == 1 and len(view.tables) == 1  # no round seated after
    # the timer pass moves no cancelled tournament on
    for sweep in h.bot.scheduler.sweeps:
        await sweep()
    await h.settle()
    assert len((await h.bot.service.tournaments.view(cup)).tables) == 1
    assert not calls  # no standings posted, no match begun
    assert await h.bot.service.tournaments.open_in(h.guild.id) == []


async def test_a_tournament_whose_channel_was_deleted_while_the_bot_was_away_is_cancelled(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    db = tmp_path / "k.db"
    h = await LiveBot.start(lb, db, TinyRenderer(), clock=clock, thinking=Thinking(workers=0),
                            threads=True)
    channel = lb.create_channel(h.guild, "tournament")
    try:
        cup = await spring_cup(h, channel)
        table = (await h.bot.service.tournaments.view(cup)).tables[0].table_id
        assert (await h.bot.service.tables.load(table)).thread_id is not None
    finally:
        await h.stop()
    lb.delete_channel(channel)  # with the match's thread: nothing heard
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock,
                                thinking=Thinking(workers=0), threads=True)
    try:
        await again.settle()
        # the match's thread found gone, then its channel: the tournament is cancelled before
        # its match closes, so no second round is seated into the gone channel
        assert (await again.bot.service.tables.load(table)).status == "abandoned"
        view = await again.bot.service.tournaments.view(cup)
        assert view.record.status == "cancelled" and len(view.tables) == 1
    finally:
        await again.stop()


async def test_a_server_that_removed_the_bot_has_its_tables_and_tournaments_closed(
        h: LiveBot, clock: Clock, caplog: pytest.LogCaptureFixture) -> None:
    """The bot removed from a server (GUILD_DELETE, not an outage): nothing can be shown there
    any more, so its matches (in the channel, in threads), its lobbies and its tournaments are
    closed as those of a deleted channel, nothing is sent there, and no timer runs out."""
    threaded, thread = await started(h, ANN)
    assert await ThreadPlayers(h, threaded, [ANN], thread).step()
    other = h.lb.create_channel(h.guild, "more games")
    await h.command(BOB, "new", channel=other, thread=False, timer=60)
    here = table_id(h.public(other)[-1])
    await h.click(EVE, h.public(other)[-1], LobbyButton.id_for(here, "join", None))
    await start_lobby(h, h.public(other)[-1], BOB, ai=0)
    lobby_channel = h.lb.create_channel(h.guild, "lobbies")
    await h.command(EVE, "new", channel=lobby_channel)
    lobby = table_id(h.public(lobby_channel)[-1])
    await h.command(ADMIN, "tournament new", name="Autumn Cup")
    autumn = (await h.bot.service.tournaments.open_in(h.guild.id))[-1].id
    calls = record_requests(h.lb)
    caplog.clear()

    heard = asyncio.ensure_future(h.bot.wait_for("guild_remove", timeout=10))
    h.lb.remove_guild(h.guild)
    assert (await heard).id == h.guild.id
    await h.settle()
    for table in (threaded, here, lobby):
        assert (await h.bot.service.tables.load(table)).status == "abandoned"
        assert not h.bot.scheduler.busy(table) and not h.bot.messages.busy(table)
    assert (await h.bot.service.tournaments.view(autumn)).record.status == "cancelled"
    clock.now += 3600  # the match's turn timer no longer runs out
    await h.bot.scheduler.check_timers()
    await h.settle()
    assert not calls  # nothing sent to the server that removed the bot
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]



async def test_a_server_that_removed_the_bot_while_it_was_away_is_found_at_its_restart(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """The bot is removed from a server while it is stopped (no GUILD_DELETE heard): the first
    request to one of its tables' channels answers Missing Access, the bot is in that server
    no more, and its tables and tournaments are closed as on a removal heard live; AI seats
    and turn timers no longer play there, and the bot's other servers play on."""
    db = tmp_path / "k.db"
    club = lb.create_guild("Goblin Den")
    games = lb.create_channel(club, "games")
    h = await LiveBot.start(lb, db, TinyRenderer(), clock=clock, thinking=Thinking(workers=0),
                            threads=True)
    try:
        threaded, thread = await started(h, ANN, channel=games)  # an AI seat plays next
        assert await ThreadPlayers(h, threaded, [ANN], thread).step()
        other = h.lb.create_channel(club, "more games")
        await h.command(BOB, "new", channel=other, thread=False, timer=60)
        here = table_id(h.public(other)[-1])
        await h.click(EVE, h.public(other)[-1], LobbyButton.id_for(here, "join", None))
        await start_lobby(h, h.public(other)[-1], BOB, ai=0)
        lobbies = h.lb.create_channel(club, "lobbies")
        await h.command(EVE, "new", channel=lobbies)
        lobby = table_id(h.public(lobbies)[-1])
        await h.command(ADMIN, "tournament new", channel=games, name="Autumn Cup")
        autumn = (await h.bot.service.tournaments.open_in(club.id))[-1].id
        await h.command(ANN, "new")  # a lobby in the server the bot stays in
        stays = table_id(h.public()[-1])
        kept = {t: await h.store.action_log(t) for t in (threaded, here)}
    finally:
        await h.stop()
    lb.remove_guild(club)
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock,
                                thinking=Thinking(workers=0), threads=True)
    try:
        await again.settle()
        for table in (threaded, here, lobby):  # found by the first request to its channel
            assert (await again.bot.service.tables.load(table)).status == "abandoned"
            assert not again.bot.scheduler.busy(table)
        for table, log in kept.items():
            assert await again.store.action_log(table) == log
        assert (await again.bot.service.tournaments.view(autumn)).record.status == "cancelled"
        assert (await again.bot.service.tables.load(stays)).status == "lobby"
        calls = record_requests(lb)
        clock.now += 3600  # the match's turn timer no longer runs out
        await again.bot.scheduler.check_timers()
        await again.settle()
        assert await again.store.action_log(here) == kept[here] and not calls
    finally:
        await again.stop()


async def test_matches_everyone_moved_in_are_rated_as_they_stand_when_their_place_goes(
        h: LiveBot) -> None:
    """A match everyone had moved in ends with its deleted thread as any match abandoned then
    does: rated as it stands, with nobody last (no one at the table abandoned it); a
    tournament's match ends so with its deleted channel, and is left undecided in the
    cancelled tournament (no places, no points)."""
    await h.command(ANN, "new")
    lobby = h.public()[-1]
    own = table_id(lobby)
    await h.click(BOB, lobby, LobbyButton.id_for(own, "join", None))
    await start_lobby(h, lobby, ANN, ai=0)
    thread = h.lb.channel((await h.bot.service.tables.load(own)).where)
    players = ThreadPlayers(h, own, [ANN, BOB], thread)
    while len(movers(await h.store.action_log(own))) < 2:
        assert await players.step()
    heard = asyncio.ensure_future(h.bot.wait_for("raw_thread_delete", timeout=10))
    h.lb.delete_thread(thread)
    await heard
    await h.settle()
    assert (await h.bot.service.tables.load(own)).status == "abandoned"
    result = await h.store.result_of(own)
    assert result is not None and result.abandoned_by not in (ANN.id, BOB.id)
    assert {c.user_id for c in await h.store.changes_of_table(own)} == {ANN.id, BOB.id}

    tournament = h.lb.create_channel(h.guild, "tournament")
    cup = await spring_cup(h, tournament)
    match = (await h.bot.service.tournaments.view(cup)).tables[0].table_id
    thread = h.lb.channel((await h.bot.service.tables.load(match)).where)
    players = ThreadPlayers(h, match, [ANN, BOB, EVE], thread)
    while len(movers(await h.store.action_log(match))) < 3:
        assert await players.step()
    await deleted(h, tournament)
    result = await h.store.result_of(match)
    assert result is not None and result.abandoned_by not in (ANN.id, BOB.id, EVE.id)
    assert {c.user_id for c in await h.store.changes_of_table(match)} == {ANN.id, BOB.id, EVE.id}
    rows = await h.store.tournament_rows(cup)
    assert rows is not None and not rows.tables[0].decided
    assert rows.tables[0].places == (None, None, None)
