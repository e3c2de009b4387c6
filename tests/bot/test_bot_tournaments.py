"""A server tournament on the stand-in with the real discord.py client: an admin opens it with
/goblin tournament new, three people sign up with the Join button (a second Join and a forged
click are refused privately), the host starts it, each round's match begins in a thread of its
own, the round's deadline on the bot's clock decides the match still playing (the timer pass),
the standings picture is posted in the tournament's channel and the next round seated, and at
the end the champion is announced; /goblin history tournament: then lists its matches with their
rounds, page by page. Every request is checked against Discord's API."""
from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from bot_helpers import Clock
from in_threads import ThreadPlayers, link, table_message
from live_bot import GUILD, LiveBot, record_requests
from players import (
    ADMIN,
    ANN,
    BOB,
    EVE,
    TinyRenderer,
    finished_match,
    forged_message,
    raw_click,
)
from storage.backends import make_room, no_room_for
from storage.helpers import played
from test_bot_forget import forget_me
from test_bot_outage import AnswerLost

from bot.discord_side.ui.custom_ids import (
    AbandonButton,
    HistoryButton,
    RematchButton,
    TournamentButton,
)
from bot.game.markup import plain
from bot.game.refusals import Illegal
from bot.workers.thinking import Thinking
from engine import Undo, observe
from engine.agents import make_agent
from engine.agents.offered import without_undo
from loopback import Channel, Loopback, Message, User
from loopback.components import TEXT_DISPLAY, walk
from loopback.permissions import CREATE_PUBLIC_THREADS, SEND_MESSAGES

#: Discord's Manage Channels permission bit.
MANAGE_CHANNELS = 1 << 4

NO_SUCH = ("This server has no such tournament to show: pick one from the list offered as you "
           "type.")


async def timer_pass(h: LiveBot) -> None:
    """One pass of the scheduler's sweeps (tournaments among them), settled."""
    for sweep in h.bot.scheduler.sweeps:
        await sweep()
    await h.settle()


def signup(h: LiveBot) -> Message:
    """The tournament's sign-up message in the channel."""
    return next(m for m in h.public() if "Tournament: Spring Cup" in h.message(m).text())


def listed(text: str, table: int) -> bool:
    """Whether a history page lists table ``table``."""
    return f"Table #{table}**" in text


async def tournament_history(h: LiveBot, tid: int, first: int, second: int, alone: int) -> None:
    """/goblin history tournament: of the finished two-round tournament ``tid`` (its matches
    ``first`` and ``second``, both decided at their round's deadline) and of no other match
    (``alone`` was played in the same channel before it): its rounds, a page button keeping
    the tournament (an older button without it still listing every match), the person filter
    composed, and the tournaments refused: another server's, a forged id, a cancelled one, any
    in direct messages."""
    page = h.reply(await h.command(ANN, "history", tournament=str(tid)))
    text = page.text()
    assert page.ephemeral and text.startswith("### Matches of Spring Cup")
    assert listed(text, second) and listed(text, first) and not listed(text, alone)
    # the later round first, each under its heading
    assert (text.index("### Round 2\n") < text.index(f"#{second}**")
            < text.index("### Round 1\n") < text.index(f"#{first}**"))
    assert text.count("Still being played at the round's deadline: decided as it stood then, "
                      "and not rated.") == 2
    assert "🏆" not in text  # decided at the deadline: no champion of the match
    assert HistoryButton.id_for(first, "o", None, tid) in page.custom_ids()
    # page 2, older than the round 2 match, stays the tournament's
    older = HistoryButton.id_for(second, "o", None, tid)
    button = forged_message(h, ANN, older)
    await h.click(ANN, button, older, forge=True)
    text = h.message(button).text()
    assert listed(text, first) and not listed(text, second) and not listed(text, alone)
    assert text.count("### Round") == 1 and "### Round 1\n" in text
    stale = HistoryButton.id_for(second, "o", None)  # drawn before tournaments: every match
    button = forged_message(h, ANN, stale)
    await h.click(ANN, button, stale, forge=True)
    assert listed(h.message(button).text(), alone)
    mine = h.reply(await h.command(ANN, "history", player=ANN.id, tournament=str(tid))).text()
    assert mine.startswith(f"### Matches of <@{ANN.id}> in Spring Cup") and listed(mine, first)

    service = h.bot.service
    other = await service.tournaments.create(guild_id=GUILD + 1, channel_id=5, host_id=BOB.id,
                                             name="Far Cup")
    winter = await service.tournaments.create(guild_id=GUILD, channel_id=h.channel.id,
                                              host_id=ADMIN.id, name="Winter Cup")
    assert await h.store.cancel_tournament(winter.id)
    for refused in (other.id, tid + 99, 2**70):
        assert h.said(await h.command(ANN, "history", tournament=str(refused))) == [NO_SUCH]
    assert h.said(await h.command(ANN, "history", tournament=str(winter.id))) == [
        "Winter Cup was cancelled during sign-up, so it has no matches."]
    choices = await h.autocomplete(ANN, "history", "tournament", "")
    assert [(c["name"], c["value"]) for c in choices] == [  # this server's, newest first
        ("Winter Cup · cancelled", str(winter.id)), ("Spring Cup · finished", str(tid))]
    assert [c["value"] for c in await h.autocomplete(ANN, "history", "tournament", "spr")] == [
        str(tid)]
    named = h.reply(await h.command(ANN, "history", tournament="spring cup")).text()
    assert named.startswith("### Matches of Spring Cup")  # its name typed in full
    assert h.said(await h.command(ANN, "history", tournament="Far Cup")) == [NO_SUCH]
    dms = h.lb.dm(ANN)
    assert await h.lb.autocomplete(ANN, dms, "goblin history", "tournament", "") == []
    assert h.said(await h.command(ANN, "history", channel=dms, tournament=str(tid))) == [
        NO_SUCH]


async def test_a_tournament_signs_up_plays_its_rounds_by_deadline_and_names_its_champion(
        h: LiveBot, clock: Clock) -> None:
    alone = await finished_match(h.store, played(1), channel=h.channel.id)
    assert h.said(await h.command(ANN, "tournament new", name="Ann's Cup")) == [
        "Only server admins (Manage Server) can open a tournament."]
    ix = await h.command(ADMIN, "tournament new", name="Spring Cup", rounds=2, table_size=3,
                         round_hours=1)
    assert not h.said(ix)  # the answer is the public sign-up message
    board = signup(h)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    assert board.custom_ids() == [TournamentButton.id_for(tid, "join"),
                                  TournamentButton.id_for(tid, "leave")]
    for user in (ANN, BOB, EVE):
        told = h.said(await h.click(user, board, TournamentButton.id_for(tid, "join")))
        assert told == ["You have entered Spring Cup."]
    assert "Entrants (3): Ann, Bob, Eve" in h.message(board).text()
    assert h.message(board).text().splitlines()[1:11] == [  # the terms, up front
        f"Hosted by <@{ADMIN.id}>.",
        "**Rounds:** 2.",
        "**Tables:** 3 seats; two players left over play at a table of 2, one left over has a "
        "bye (5 points).",
        "**Turn timer:** none.",
        "**Hero abilities:** off.",
        "**Round length:** 1\u00a0h. A match not finished by then is ranked as it stands (most "
        "keys, then most hit points) and is not rated.",
        "**Sign-up closes:** when the host starts the tournament.",
        "**Points by place:** 5/3/2/1 at a table of 4, 5/3/1 at a table of 3, 5/1 at a table "
        "of 2.",
        "**Ties:** opponents' points, then wins, then rating, then a draw by lot.",
        ""]
    again = h.said(await h.click(EVE, board, TournamentButton.id_for(tid, "join")))
    assert again == ["You have already entered Spring Cup."]
    forged = forged_message(h, ADMIN, TournamentButton.id_for(tid + 99, "join"))
    assert await raw_click(h, ADMIN, forged, TournamentButton.id_for(tid + 99, "join"), 2) == [
        "That tournament does not exist (any more)."]
    leave = forged_message(h, ADMIN, TournamentButton.id_for(tid, "leave"))
    assert await raw_click(h, ADMIN, leave, TournamentButton.id_for(tid, "leave"), 2) == [
        "You have not entered Spring Cup."]
    assert "Entrants (3): Ann, Bob, Eve" in h.message(board).text()
    refused = h.said(await h.command(ANN, "tournament start"))
    assert refused == ["Only the tournament's host, or someone who can manage its channel "
                       f"(<#{h.channel.id}>), can do that."]

    assert h.said(await h.command(ADMIN, "tournament start")) == [
        "Spring Cup has started: the first round is seated."]
    assert not h.message(board).custom_ids()  # sign-up is over
    assert "Sign-up is closed" in h.message(board).text()
    threads = h.lb.threads_of(h.channel)
    assert len(threads) == 1  # three players, tables of 3: one match, in its thread
    assert threads[0].name.startswith("Spring Cup, round 1 · ")  # named after the tournament
    first = await h.store.active_in_channel(threads[0].id)
    assert first is not None
    # no turn timer: the table message says when the round's end decides the match
    shown = table_message(h, threads[0]).text()
    assert "The tournament's round ends <t:" in shown and "Turn timer" not in shown, shown

    clock.now += 3601  # the round's deadline passes: the match is decided as it stands
    await timer_pass(h)
    assert (await h.bot.service.tables.load(first)).status == "abandoned"
    lines = [m.text() for m in h.public() if "was abandoned" in m.text()
             or "The round ended before the match between" in m.text()]
    assert len(lines) == 1 and "; the match counts as it stood →" in lines[0], lines
    closed = await h.bot.service.tables.load(first)  # its table message says why, too
    assert closed.message_id is not None
    table_text = h.lb.message(closed.message_id).text()
    assert "**The round ended before this match did: it counts as it stood then.**" in table_text
    assert "abandoned" not in table_text
    posted = [m for m in h.public() if "Standings: Spring Cup" in m.text()]
    assert len(posted) == 1 and posted[0].attachments
    assert "Round 1 of 2 is over: round 2 is seated." in posted[0].text()
    threads = h.lb.threads_of(h.channel)
    assert len(threads) == 2  # round 2 seated, its match in a thread of its own
    assert sorted(t.name.split(" · ")[0] for t in threads) == ["Spring Cup, round 1",
                                                               "Spring Cup, round 2"]

    clock.now += 3601
    await timer_pass(h)
    view = await h.bot.service.tournaments.view(tid)
    assert view.record.status == "finished"
    champion = view.standings[0]
    last = h.public()[-1]
    assert last.text().startswith(f"### <@{champion.user}> wins Spring Cup!")
    assert last.attachments
    assert h.said(await h.command(BOB, "tournament start")) == [
        "There is no tournament taking sign-ups or under way here."]
    rows = await h.store.tournament_rows(tid)
    assert rows is not None and [t.round for t in rows.tables] == [1, 2]
    await tournament_history(h, tid, rows.tables[0].table_id, rows.tables[1].table_id, alone)


async def test_standings_are_private_a_match_s_end_seats_the_next_round_and_a_player_drops(
        h: LiveBot) -> None:
    await h.command(ADMIN, "tournament new", name="Spring Cup", table_size=3)
    board = signup(h)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    for user in (ANN, BOB):
        await h.click(user, board, TournamentButton.id_for(tid, "join"))
    await h.command(ADMIN, "tournament start")
    ix = await h.command(ANN, "tournament standings")
    shown = h.reply(ix)
    assert shown.ephemeral and shown.attachments and "Standings: Spring Cup" in shown.text()
    # the round's last match ends (closed in its thread): the next round is seated at once
    thread = h.lb.threads_of(h.channel)[0]
    await h.abandon(ADMIN, channel=thread)
    posted = [m for m in h.public() if "Standings: Spring Cup" in m.text()]
    assert len(posted) == 1 and "Round 1 of 3 is over: round 2 is seated." in posted[0].text()
    assert len(h.lb.threads_of(h.channel)) == 2
    assert h.said(await h.command(BOB, "tournament drop")) == [
        "You have dropped out of Spring Cup; the points you already won stay in the standings."]
    assert h.said(await h.command(BOB, "tournament drop")) == [
        "You have already dropped out of Spring Cup."]


async def test_a_tournament_is_refused_where_the_bot_cannot_post(h: LiveBot) -> None:
    """The sign-up is the command's answer, which needs no permission of the bot's; its
    rounds' standings and its matches are posts: without Send Messages, a tournament is
    refused as a table is, saying which permission is missing, and nothing is opened."""
    h.channel.bot_permissions &= ~SEND_MESSAGES
    ix = await h.command(ADMIN, "tournament new", name="Spring Cup")
    assert h.said(ix) == ["I can't run a game in this channel because I lack this "
                          "permission here: Send Messages. Ask an admin to grant it to the "
                          "bot, or use another channel."]
    assert await h.bot.service.tournaments.open_in(h.guild.id) == []
    assert h.public() == []


async def test_its_host_cancels_a_tournament_during_sign_up(h: LiveBot) -> None:
    await h.command(ADMIN, "tournament new", name="Spring Cup")
    board = signup(h)
    assert h.said(await h.command(ANN, "tournament cancel")) == [
        "Only the tournament's host, or someone who can manage its channel "
        f"(<#{h.channel.id}>), can do that."]
    assert h.said(await h.command(ADMIN, "tournament cancel")) == ["Spring Cup is cancelled."]
    assert not h.message(board).custom_ids()
    assert "This tournament was cancelled." in h.message(board).text()


async def test_a_sign_up_whose_message_cannot_be_saved_still_takes_entrants(
        h: LiveBot, caplog: pytest.LogCaptureFixture) -> None:
    await no_room_for(h.store, "signup_message_id", "tournaments")
    ix = await h.command(ADMIN, "tournament new", name="Spring Cup")
    assert not h.said(ix)  # the sign-up is posted, and nobody is told that nothing changed
    assert "its sign-up message could not be saved" in caplog.text
    board = signup(h)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    told = h.said(await h.click(ANN, board, TournamentButton.id_for(tid, "join")))
    assert told == ["You have entered Spring Cup."]
    assert "Entrants (1): Ann" in h.message(board).text()  # the clicked sign-up, redrawn
    await make_room(h.store)


async def test_its_host_ends_a_round_early_and_the_next_one_is_seated(h: LiveBot) -> None:
    """/goblin tournament end-round: refused before the start and to anyone but the host (or a
    channel manager), privately; by the host, the match still playing is closed and decided as
    it stands, the standings are posted and the next round seated; the last round's end names
    the champion."""
    await h.command(ADMIN, "tournament new", name="Spring Cup", rounds=2, table_size=3)
    board = signup(h)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    for user in (ANN, BOB, EVE):
        await h.click(user, board, TournamentButton.id_for(tid, "join"))
    assert h.said(await h.command(ADMIN, "tournament end-round")) == [
        "Spring Cup is not under way."]
    await h.command(ADMIN, "tournament start")
    first = await h.store.active_in_channel(h.lb.threads_of(h.channel)[0].id)
    assert first is not None
    assert h.said(await h.command(ANN, "tournament end-round")) == [
        "Only the tournament's host, or someone who can manage its channel "
        f"(<#{h.channel.id}>), can do that."]
    assert (await h.bot.service.tables.load(first)).status == "running"

    ix = await h.command(ADMIN, "tournament end-round")
    assert h.reply(ix).ephemeral and h.said(ix) == [
        "Round 1 of Spring Cup is over: its unfinished matches were decided as they stood."]
    assert (await h.bot.service.tables.load(first)).status == "abandoned"
    posted = [m for m in h.public() if "Standings: Spring Cup" in m.text()]
    assert len(posted) == 1 and "Round 1 of 2 is over: round 2 is seated." in posted[0].text()
    assert len(h.lb.threads_of(h.channel)) == 2
    view = await h.bot.service.tournaments.view(tid)
    assert [s.place for s in view.standings] == [1, 2, 3]  # one place each
    assert all(r.at_deadline for r in view.tournament.rounds[0].results)

    await h.command(ADMIN, "tournament end-round")
    view = await h.bot.service.tournaments.view(tid)
    assert view.record.status == "finished"
    assert h.public()[-1].text().startswith(f"### <@{view.standings[0].user}> wins Spring Cup!")
    assert h.said(await h.command(ADMIN, "tournament end-round")) == [
        "There is no tournament taking sign-ups or under way here."]


async def _three_seated(h: LiveBot, people: tuple[User, ...] = (ANN, BOB, EVE)) -> int:
    """Spring Cup (2 rounds, tables of 3) with ``people`` (Ann, Bob and Eve), started; its
    first match's id."""
    await h.command(ADMIN, "tournament new", name="Spring Cup", rounds=2, table_size=3)
    board = signup(h)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    for user in people:
        await h.click(user, board, TournamentButton.id_for(tid, "join"))
    await h.command(ADMIN, "tournament start")
    view = await h.bot.service.tournaments.view(tid)
    return view.tables[0].table_id


async def test_a_match_refused_its_thread_is_played_in_the_channel_and_its_host_told(
        h: LiveBot) -> None:
    h.channel.bot_permissions &= ~CREATE_PUBLIC_THREADS  # Discord answers 403 (50013)
    table = await _three_seated(h)
    assert not h.lb.threads_of(h.channel)
    record = await h.bot.service.tables.load(table)
    assert record.status == "running" and record.thread_id is None and not record.threaded
    shown = [m for m in h.public() if f"kg:hand:{table}" in m.custom_ids()]
    assert len(shown) == 1  # the table message, in the channel: the match goes on
    told = [m.text() for m in h.public() if "could not open a thread" in m.text()]
    assert told == [f"<@{ADMIN.id}>, I could not open a thread for this match (I need the Create "
                    "Public Threads permission in this channel), so it is played here; nothing "
                    "is lost."]


async def test_a_server_that_turned_threads_off_plays_its_tournament_in_the_channel(
        h: LiveBot) -> None:
    await h.command(ADMIN, "settings", threads=False)
    table = await _three_seated(h)
    assert not h.lb.threads_of(h.channel)
    record = await h.bot.service.tables.load(table)
    assert record.status == "running" and not record.threaded
    assert [m for m in h.public() if f"kg:hand:{table}" in m.custom_ids()]
    assert not [m for m in h.public() if "could not open a thread" in m.text()]  # as chosen


async def test_the_sign_up_message_states_the_closing_time_and_the_ai_seats(
        h: LiveBot, clock: Clock) -> None:
    await h.command(ADMIN, "tournament new", name="Spring Cup", table_size=4, timer=3600,
                    ai_level="easy", signup_hours=2)
    text = h.message(signup(h)).text()
    at = int(clock.now) + 2 * 3600
    assert "**Rounds:** as many as the players need: 3 up to 8 players" in text
    assert ("**Tables:** 4 seats; AI seats fill the short tables (they take places but earn no "
            "points), so nobody has a bye.") in text
    assert "**Turn timer:** 1\u00a0h." in text
    assert "**Round length:** no limit;" in text and "is not rated." in text
    assert (f"**Sign-up closes:** <t:{at}:R> (<t:{at}:f>), and the tournament starts "
            "then.") in text
    # not "the host starts the tournament", which would say otherwise
    assert "\nPress *Join* to enter before sign-up closes.\n" in text
    assert "the host starts the tournament" not in text, text


async def test_a_tournament_opened_without_options_states_and_plays_the_server_s_defaults(
        h: LiveBot) -> None:
    """A server whose admins chose a timer and hero abilities in /goblin settings opens a
    tournament without either: its sign-up message states the server's, and its matches are
    played with them, as a lobby's would be, even after the settings change again."""
    await h.command(ADMIN, "settings", timer=3600, abilities=True)
    await h.command(ADMIN, "tournament new", name="Spring Cup", rounds=2, table_size=3)
    text = h.message(signup(h)).text()
    assert "**Turn timer:** 1\u00a0h." in text and "**Hero abilities:** on." in text, text
    await h.command(ADMIN, "settings", timer=0, abilities=False)  # after the opening
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    board = signup(h)
    for user in (ANN, BOB):
        await h.click(user, board, TournamentButton.id_for(tid, "join"))
    await h.command(ADMIN, "tournament start")
    table = (await h.bot.service.tournaments.view(tid)).tables[0].table_id
    record = await h.bot.service.tables.load(table)
    assert (record.timer, record.abilities) == (3600, True)
    assert "**Turn timer:** 1\u00a0h." in h.message(board).text()


async def test_a_tournament_match_played_to_its_end_moves_the_round_on_by_itself(
        h: LiveBot) -> None:
    """Round 1's match is played to its true end by its two people clicking in its thread (two
    players at tables of 3 sit at a table of 2: the cheapest whole match); the round then moves
    on by itself: the match is rated, the tournament's points follow its places (5/1 at a table
    of 2), the standings are posted and round 2 seated; ending round 2 names the champion."""
    table = await _three_seated(h, (ANN, BOB))
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    thread = h.lb.threads_of(h.channel)[0]
    players = ThreadPlayers(h, table, [ANN, BOB], thread)
    while await players.step():  # every request checked against Discord's API
        pass
    assert (await h.bot.service.tables.load(table)).status == "finished"
    result = await h.store.result_of(table)
    assert result is not None and result.abandoned_by is None
    for seat in result.seats:  # rated as any match
        assert seat.user_id is not None
        changes = await h.store.rating_changes(h.guild.id, seat.user_id)
        assert [c.table_id for c in changes] == [table]

    posted = [m for m in h.public() if "Standings: Spring Cup" in m.text()]
    assert len(posted) == 1 and "Round 1 of 2 is over: round 2 is seated." in posted[0].text()
    assert len(h.lb.threads_of(h.channel)) == 2
    view = await h.bot.service.tournaments.view(tid)
    points = {s.user: s.points for s in view.standings}
    assert points == {s.user_id: (5, 1)[s.place - 1] for s in result.seats
                      if s.user_id is not None}
    assert not view.tournament.rounds[0].results[0].at_deadline

    await h.command(ADMIN, "tournament end-round")
    view = await h.bot.service.tournaments.view(tid)
    assert view.record.status == "finished"
    assert h.public()[-1].text().startswith(f"### <@{view.standings[0].user}> wins Spring Cup!")


async def test_a_server_that_switched_taking_back_off_plays_its_tournament_without_it(
        h: LiveBot) -> None:
    """``/goblin settings undo:False`` holds for the server's new tables, a tournament's
    matches among them: a take-back is refused there as at any table that forbids it."""
    await h.command(ADMIN, "settings", undo=False)
    table = await _three_seated(h)
    play = h.bot.service.play
    for _ in range(400):  # people's moves until one of them could take a move back
        record = await h.bot.service.tables.load(table)
        assert record.status == "running", "the match ended first"
        state = record.game
        obs = observe(state, state.current)
        user = record.seats[state.current].user
        assert user is not None and not record.seats[state.current].ai
        if Undo() in obs.legal:
            break
        move = make_agent("heuristic", state.step).choose(without_undo(obs))
        await play.act(table, user, record.version, str(move), sure=True)
    else:
        raise AssertionError("never reached")
    assert not record.undo
    with pytest.raises(Illegal) as refused:
        await play.act(table, user, record.version, str(Undo()))
    assert refused.value.reason.key == "bot.undo.off"
    assert (await h.bot.service.tables.load(table)).version == record.version


async def test_the_rematch_of_a_tournament_match_is_hosted_by_one_of_its_players(
        h: LiveBot) -> None:
    """A tournament's match is hosted by the tournament's host, who may hold no seat there; its
    rematch, a match of its own, is hosted by the one who offered it: they may start it with
    those ready, and abandon it."""
    table = await _three_seated(h, (ANN, BOB))
    thread = h.lb.threads_of(h.channel)[0]
    players = ThreadPlayers(h, table, [ANN, BOB], thread)
    while await players.step():
        pass
    final = next(m for m in reversed(h.public(thread))
                 if RematchButton.id_for(table, "offer") in m.custom_ids())
    await h.click(ANN, final, RematchButton.id_for(table, "offer"))
    offer = h.public(thread)[-1]
    ix = await h.click(ANN, offer, RematchButton.id_for(table, "start"))
    assert h.said(ix) == ["A rematch needs at least 2 seats: wait for more people to be ready."]
    await h.click(BOB, offer, RematchButton.id_for(table, "ready"))
    again = h.lb.threads_of(h.channel)[-1]
    new = await h.store.active_in_channel(again.id)
    assert new is not None
    record = await h.bot.service.tables.load(new)
    assert record.status == "running" and record.host_id == ANN.id
    assert h.said(await h.abandon(ANN, channel=again)) == [
        f"Table #{new} was abandoned. The history does not list it, but you can still step "
        f"through it with /goblin replay id:{new}."]  # abandoned before anyone moved


async def test_its_host_abandoning_their_own_match_takes_its_last_place(h: LiveBot) -> None:
    """The tournament's host plays in it and abandons their match in its thread before anyone
    moved: the confirmation says they take its last place in the tournament though the match
    is not rated, and the standings then give them a last place's points, the others a shared
    first place's."""
    table = await _three_seated(h, (ADMIN, BOB, EVE))
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    thread = h.lb.threads_of(h.channel)[0]
    question = h.reply(await h.command(ADMIN, "abandon", channel=thread))
    assert ("The match will not be rated, but it is a tournament's match: you take its last "
            "place in the tournament") in question.text()
    await h.click(ADMIN, question, AbandonButton.id_for(table))
    assert (await h.bot.service.tables.load(table)).status == "abandoned"
    assert await h.store.result_of(table) is None  # not rated
    view = await h.bot.service.tournaments.view(tid)
    assert view.record.round == 2  # the round's only match ended: round 2 is seated
    assert {s.user: s.points for s in view.standings} == {ADMIN.id: 1, BOB.id: 5, EVE.id: 5}
    assert view.standings[-1].user == ADMIN.id


async def test_in_a_channel_holding_several_matches_of_a_tournament_each_player_reaches_theirs(
        h: LiveBot) -> None:
    """A server that turned threads off plays every match of a round in the tournament's
    channel: /goblin hand, status and leave there reach the match of the one who asks, not
    the oldest of them."""
    await h.command(ADMIN, "settings", threads=False)
    people = (ANN, BOB, EVE, User(2000000000000000004, "Dan"), User(2000000000000000005, "Cy"))
    await _three_seated(h, people)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    view = await h.bot.service.tournaments.view(tid)
    assert len(view.tables) == 2 and not h.lb.threads_of(h.channel)  # 3 + 2, in the channel
    second = view.tables[1]
    player = next(p for p in people if p.id == second.seats[0])
    status = h.reply(await h.command(player, "status")).text()
    assert f"#{second.table_id}" in status, status
    assert h.said(await h.command(player, "leave")) == [
        f"You left table #{second.table_id}."]
    record = await h.bot.service.tables.load(second.table_id)
    assert record.seats[record.seat_of(player.id) or 0].ai


async def test_beside_a_lobby_in_the_tournament_s_channel_each_player_still_reaches_theirs(
        h: LiveBot) -> None:
    """A round's matches played in the tournament's channel (threads turned off) and a lobby
    someone opened beside them there: /goblin hand, status and leave still reach the match of
    the player who asks, and the lobby stays its host's table there."""
    await h.command(ADMIN, "settings", threads=False)
    people = (ANN, BOB, EVE, User(2000000000000000004, "Dan"), User(2000000000000000005, "Cy"))
    await _three_seated(h, people)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    view = await h.bot.service.tournaments.view(tid)
    zed = User(2000000000000000006, "Zed")
    await h.command(zed, "new")
    lobby = await h.store.active_in_channel(h.channel.id)
    assert lobby is not None and lobby not in {t.table_id for t in view.tables}
    second = view.tables[1]
    player = next(p for p in people if p.id == second.seats[0])
    status = h.reply(await h.command(player, "status")).text()
    assert f"#{second.table_id}" in status, status
    assert h.reply(await h.command(player, "hand")).ephemeral
    assert h.said(await h.command(player, "leave")) == [
        f"You left table #{second.table_id}."]
    assert f"#{lobby}" in h.reply(await h.command(zed, "status")).text()


async def test_in_a_match_s_thread_the_tournament_commands_reach_its_tournament(
        h: LiveBot) -> None:
    """A server holds two tournaments, in two channels: in the thread of a match of one of them,
    /goblin tournament standings and drop reach that tournament (the thread's channel)."""
    table = await _three_seated(h)
    other = h.lb.create_channel(h.guild, "winter")
    await h.command(ADMIN, "tournament new", channel=other, name="Winter Cup")
    await h.settle()
    assert len(await h.bot.service.tournaments.open_in(h.guild.id)) == 2
    thread = h.lb.threads_of(h.channel)[0]
    assert await h.store.active_in_channel(thread.id) == table
    shown = h.reply(await h.command(ANN, "tournament standings", channel=thread))
    assert "Standings: Spring Cup" in shown.text()
    assert h.said(await h.command(BOB, "tournament drop", channel=thread)) == [
        "You have dropped out of Spring Cup; the points you already won stay in the standings."]


async def test_a_tournament_opened_in_a_thread_plays_its_matches_in_that_thread(
        h: LiveBot) -> None:
    """A thread holds no thread: a tournament opened in one plays each match there, as a
    match opened in a thread does, and nobody is told that a thread was refused."""
    place = h.lb.create_thread(h.channel, "cup thread")
    await h.command(ADMIN, "tournament new", channel=place, name="Spring Cup", table_size=3)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    board = next(m for m in h.public(place) if "Tournament: Spring Cup" in h.message(m).text())
    for user in (ANN, BOB):
        await h.click(user, board, TournamentButton.id_for(tid, "join"))
    await h.command(ADMIN, "tournament start", channel=place)
    table = (await h.bot.service.tournaments.view(tid)).tables[0].table_id
    record = await h.bot.service.tables.load(table)
    assert record.status == "running" and record.thread_id is None and not record.threaded
    assert [m for m in h.public(place) if f"kg:hand:{table}" in m.custom_ids()]
    assert not [m for m in h.public(place) if "could not open a thread" in m.text()]
    assert h.lb.threads_of(h.channel) == [place]
    assert not h.message(board).custom_ids()
    assert "Sign-up is closed" in h.message(board).text()


async def test_a_match_refused_its_thread_names_a_forgotten_host_as_every_message_does(
        h: LiveBot) -> None:
    """The tournament's host asked the bot to forget them before it started: a match refused
    its thread tells the channel so naming them "Forgotten player", never by a raw pseudonym
    (``<@-...>``, which Discord shows as it is)."""
    h.channel.bot_permissions &= ~CREATE_PUBLIC_THREADS
    await h.command(ADMIN, "tournament new", name="Spring Cup", rounds=2, table_size=3)
    board = signup(h)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    for user in (ANN, BOB, EVE):
        await h.click(user, board, TournamentButton.id_for(tid, "join"))
    await h.bot.service.people.forget(ADMIN.id)
    await h.command(ADMIN, "tournament start")  # a channel manager still
    told = [m.text() for m in h.public() if "could not open a thread" in m.text()]
    assert told and all(t.startswith("Forgotten player, I could not open") for t in told), told


async def test_the_sign_up_redrawn_after_a_player_is_forgotten_mid_tournament_names_them(
        h: LiveBot) -> None:
    """Eve asked the bot to forget her while the tournament was under way: its sign-up
    message, drawn again, lists her among its entrants as "Forgotten player", never as an
    empty name."""
    await _three_seated(h)
    board = signup(h)
    asked = h.reply(await h.command(EVE, "forget-me"))
    await h.click(EVE, asked, next(c for c in asked.custom_ids() if c.endswith(":yes")))
    line = next(x for x in h.message(board).text().splitlines() if x.startswith("Entrants"))
    assert sorted(line.removeprefix("Entrants (3): ").split(", ")) == [
        "Ann", "Bob", "Forgotten player"], line


async def test_the_next_round_begins_when_the_standings_post_is_cut_off(h: LiveBot) -> None:
    """The connection drops as the round's standings are posted: the standings are lost (a
    warning), but the next round's match still begins, its players given their table."""
    import aiohttp

    await _three_seated(h)
    session: Any = h.bot.http._HTTPClient__session  # type: ignore[attr-defined]
    real = session.request
    cut: list[str] = []

    def request(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        if not cut and method == "POST" and str(url).endswith(f"/channels/{h.channel.id}/messages"):
            cut.append(str(url))
            raise aiohttp.ServerDisconnectedError()
        return real(method, url, *args, **kwargs)

    session.request = request
    try:
        await h.command(ADMIN, "tournament end-round")
        await h.settle()
    finally:
        session.request = real
    assert cut
    assert not [m for m in h.public() if "Standings: Spring Cup" in m.text()]
    tid = (await h.bot.service.store.tournaments_with_status("running"))[0]
    view = await h.bot.service.tournaments.view(tid)
    second = view.tables[-1].table_id
    record = await h.bot.service.tables.load(second)
    assert record.status == "running" and record.message_id is not None
    assert len(h.lb.threads_of(h.channel)) == 2


async def test_a_round_seated_while_the_bot_may_not_post_begins_once_it_may(
        h: LiveBot, clock: Clock) -> None:
    """A moderator takes Send Messages from the bot in the tournament's channel during round
    1: its end cannot post the standings, nor round 2's match (its line, its thread, its table
    message). Once the permission is back, the start of round 2's match is tried again on a
    pass of the timers, so its people get their table and its thread without a restart."""
    from bot.discord_side.feed import RETRY_FIRST

    await _three_seated(h)
    h.channel.bot_permissions &= ~SEND_MESSAGES
    await h.command(ADMIN, "tournament end-round")
    await h.settle()
    tid = (await h.bot.service.store.tournaments_with_status("running"))[0]
    second = (await h.bot.service.tournaments.view(tid)).tables[-1].table_id
    assert (await h.bot.service.tables.load(second)).message_id is None
    h.channel.bot_permissions |= SEND_MESSAGES
    clock.now += RETRY_FIRST
    for sweep in h.bot.scheduler.sweeps:
        await sweep()
    await h.settle()
    record = await h.bot.service.tables.load(second)
    assert record.status == "running" and record.thread_id is not None
    thread = h.lb.channel(record.thread_id)
    assert record.message_id == table_message(h, thread).id
    assert len(h.lb.threads_of(h.channel)) == 2
    assert h.public()[-1].text().endswith(link(thread))  # the channel's line of the match
    assert not [m for m in h.public() if "could not open a thread" in m.text()]  # none refused


async def test_the_host_is_told_once_by_direct_message_when_a_round_s_match_is_refused(
        h: LiveBot, clock: Clock) -> None:
    """Round 2 is seated while the bot may not post in the tournament's channel: nobody
    started its match by a click, so nobody would know why it does not show. The tournament's
    host is told by direct message (the channel refuses the bot) where, and which permissions
    a table needs there, once, not at each of the start's retries."""
    from bot.discord_side.feed import RETRY_FIRST

    await _three_seated(h)
    h.channel.bot_permissions &= ~SEND_MESSAGES
    await h.command(ADMIN, "tournament end-round")
    await h.settle()
    tid = (await h.bot.service.store.tournaments_with_status("running"))[0]
    second = (await h.bot.service.tournaments.view(tid)).tables[-1].table_id
    assert (await h.bot.service.tables.load(second)).message_id is None
    told = [m.text() for m in _dms(h, ADMIN)]
    assert told == [
        f"Round 2 of Spring Cup is seated, but Discord did not let me post the table message "
        f"of table #{second} in <#{h.channel.id}>: I probably lack one of these permissions "
        "there: View Channel, Send Messages, Embed Links, Attach Files. Grant it to the bot, or "
        "ask an admin to. I keep trying: every match of the round held up this way will appear "
        "within a few minutes once I am allowed to post there."], told
    clock.now += RETRY_FIRST  # refused again: not told again
    await timer_pass(h)
    assert len(_dms(h, ADMIN)) == 1
    assert not any(_dms(h, user) for user in (ANN, BOB, EVE))


async def test_a_round_whose_matches_are_all_refused_tells_its_host_once(h: LiveBot) -> None:
    """Round 1's two matches are both refused their table (a permission taken from the bot in
    the tournament's channel): the host gets one direct message for the round, not one a
    match."""
    await h.command(ADMIN, "tournament new", name="Spring Cup", rounds=2, table_size=3)
    board = signup(h)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    for user in (ANN, BOB, EVE, ADMIN, h.lb.create_user("Cyril"), h.lb.create_user("Dana")):
        await h.click(user, board, TournamentButton.id_for(tid, "join"))
    h.channel.bot_permissions &= ~SEND_MESSAGES
    await h.command(ADMIN, "tournament start")
    await h.settle()
    tables = (await h.bot.service.tournaments.view(tid)).tables
    assert len(tables) == 2
    for table in tables:
        assert (await h.bot.service.tables.load(table.table_id)).message_id is None
    told = [m.text() for m in _dms(h, ADMIN)]
    assert len(told) == 1 and told[0].startswith("Round 1 of Spring Cup is seated"), told


async def _slow_turn_before_the_round_ends(h: LiveBot, clock: Clock) -> tuple[int, User, float]:
    """Spring Cup of Ann and Bob (who asked for reminders), 8-hour turns and rounds of a day:
    each plays their turn 7 hours into it, until a turn starts 3 hours before the round ends
    (its own deadline 5 hours after it); the match, who is to play and when the round ends."""
    for who in (ANN, BOB):
        await h.command(who, "notify", state="on")
    await h.command(ADMIN, "tournament new", name="Spring Cup", rounds=2, table_size=3,
                    timer=8 * 3600, round_hours=24)
    board = signup(h)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    for user in (ANN, BOB):
        await h.click(user, board, TournamentButton.id_for(tid, "join"))
    await h.command(ADMIN, "tournament start")
    ends = (await h.bot.service.tournaments.view(tid)).record.deadline
    assert ends is not None
    table = (await h.bot.service.tournaments.view(tid)).tables[0].table_id
    players = ThreadPlayers(h, table, [ANN, BOB], h.lb.threads_of(h.channel)[0])
    while True:
        record = await h.bot.service.tables.load(table)
        assert record.status == "running" and record.deadline is not None
        if record.deadline > ends:
            break
        clock.now = record.deadline - 3600  # an hour before their turn's time is up
        turn = (record.game.round, record.game.turn)
        while True:
            state = (await h.bot.service.tables.load(table)).game
            if (state.round, state.turn) != turn:
                break
            assert await players.step()
    mover = ANN if record.seats[record.game.current].user == ANN.id else BOB
    return table, mover, ends


def _dms(h: LiveBot, user: User) -> list[Message]:
    """The bot's messages in its direct messages with ``user``."""
    channel = h.lb.dm(user)
    return [m for m in h.lb.messages.values() if m.channel_id == channel.id and m.author.bot]


async def test_a_slow_tournament_match_s_reminder_counts_down_to_the_round_s_end(
        h: LiveBot, clock: Clock) -> None:
    """A turn of a tournament's match started 3 hours before the round's end, its 8-hour turn
    timer reaching past it: the match is decided as it stands when the round ends, so the
    reminder goes out within the time the turn truly has, and tells the time left until the
    round's end, not the turn's deadline that will never come."""
    table, mover, ends = await _slow_turn_before_the_round_ends(h, clock)
    record = await h.bot.service.tables.load(table)
    assert record.deadline is not None and record.deadline > ends > clock.now
    clock.now = ends - 2 * 3600  # more than a quarter of the 3 hours the turn has passed
    await h.bot.reminders.send_due()
    await h.settle()
    [sent] = _dms(h, mover)
    text = sent.text()
    assert f"table #{table}" in text and "2\u00a0h left" in text, text
    assert f"<t:{int(ends)}:f>" in text, text
    listed = h.reply(await h.command(mover, "turns")).text()  # their matches everywhere
    assert f"[Table #{table}]" in listed and ": 2\u00a0h left." in listed, listed


async def test_no_reminder_of_a_tournament_match_whose_round_ended(h: LiveBot,
                                                                   clock: Clock) -> None:
    """The round's end passed (the bot was stopped over it, or the timers' pass that closes
    the match is still to come) while the turn's own deadline is ahead: the match is decided
    as it stands at once, and its player gets no reminder of a turn they can no longer
    play."""
    _, mover, ends = await _slow_turn_before_the_round_ends(h, clock)
    clock.now = ends + 60
    await h.bot.reminders.send_due()
    await h.settle()
    assert _dms(h, mover) == []


async def test_a_round_that_ended_while_the_bot_was_stopped_decides_its_match_as_it_stood(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """The bot was stopped over the round's end and over the deadline of the turn under way,
    which came after it: started again, the first pass of its timers decides the match as it
    stood when the round ended. The AI does not first play that turn in its person's place
    (the turn was never over before the round was); the match is closed unrated, its moves
    those made before the round's end."""
    db = tmp_path / "k.db"
    bot = await LiveBot.start(lb, db, TinyRenderer(), clock=clock,
                              thinking=Thinking(workers=0), threads=True)
    try:
        table, _, ends = await _slow_turn_before_the_round_ends(bot, clock)
        before = await bot.bot.service.tables.load(table)
    finally:
        await bot.stop()
    assert before.deadline is not None and before.deadline > ends
    clock.now = before.deadline + 3600  # back an hour after the turn's own deadline
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock,
                                thinking=Thinking(workers=0), threads=True)
    try:
        await again.bot.scheduler.check_timers()  # one pass of the timers, as its loop takes it
        for sweep in again.bot.scheduler.sweeps:
            await sweep()
        await again.settle()
        after = await again.bot.service.tables.load(table)
        assert after.status == "abandoned" and await again.store.result_of(table) is None
        assert after.game.step == before.game.step  # no move after the round's end
        cup = await again.store.tournament_of_table(table)
        assert cup is not None
        rows = await again.store.tournament_rows(cup)
        assert rows is not None and rows.tables[0].at_deadline
    finally:
        await again.stop()


async def test_a_move_clicked_after_the_round_s_end_is_refused(h: LiveBot,
                                                              clock: Clock) -> None:
    """Ann and Bob play Spring Cup with an AI seat, rounds of an hour. The round's end passes
    before the timers' pass that closes their match: the person to play clicks a move and is
    told, privately, that the round is over and the match decided as it stood; nothing is
    played (nor does the AI seat play on). The pass then closes the match with the moves made
    before the round's end."""
    await h.command(ADMIN, "tournament new", name="Spring Cup", rounds=2, table_size=3,
                    ai_level="easy", round_hours=1)
    board = signup(h)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    for user in (ANN, BOB):
        await h.click(user, board, TournamentButton.id_for(tid, "join"))
    await h.command(ADMIN, "tournament start")
    await h.settle()
    view = await h.bot.service.tournaments.view(tid)
    table, ends = view.tables[0].table_id, view.record.deadline
    assert ends is not None
    players = ThreadPlayers(h, table, [ANN, BOB], h.lb.threads_of(h.channel)[0])
    record = await h.bot.service.tables.load(table)
    seat = record.game.current
    mover = ANN if record.seats[seat].user == ANN.id else BOB
    hand = await players.open_hand(mover)
    clock.now = ends
    move = str(make_agent("heuristic", 1).choose(without_undo(observe(record.game, seat))))
    ix = await h.play(mover, hand, move)
    assert h.said(ix) == ["The round's time is up: this match is decided as it stood then, "
                          "and no move counts any more."]
    await h.settle()
    assert (await h.bot.service.tables.load(table)).version == record.version
    await timer_pass(h)
    after = await h.bot.service.tables.load(table)
    assert after.status == "abandoned" and after.game == record.game



async def _signed_up_in_a_thread_archived(h: LiveBot, clock: Clock) -> tuple[int, Channel,
                                                                              Message]:
    """A tournament opened in a thread takes sign-ups for two days, Ann and Bob join, and
    nobody writes there since: Discord archives the idle thread, then sign-up closes on its
    own (the timers' pass seats round 1). The tournament's id, its thread, its sign-up."""
    place = h.lb.create_thread(h.channel, "cup thread")
    await h.command(ADMIN, "tournament new", channel=place, name="Spring Cup", table_size=3,
                    signup_hours=48)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    board = next(m for m in h.public(place) if "Tournament: Spring Cup" in h.message(m).text())
    for user in (ANN, BOB):
        await h.click(user, board, TournamentButton.id_for(tid, "join"))
    h.lb.clock.advance(48 * 3600 + 60)  # two quiet days: Discord archived the idle thread
    clock.now += 48 * 3600 + 60
    h.lb.check_deadlines()
    await h.settle()
    assert place.archived
    await timer_pass(h)  # sign-up closes: round 1 is seated
    assert (await h.bot.service.tournaments.view(tid)).record.status == "running"
    return tid, place, board


async def test_a_sign_up_closing_in_a_thread_discord_archived_loses_its_buttons(
        h: LiveBot, clock: Clock) -> None:
    """Sign-up closes in a thread Discord archived: the sign-up message loses its Join and
    Leave buttons all the same (the thread taken out of the archive first, as for any edit
    there)."""
    _, _, board = await _signed_up_in_a_thread_archived(h, clock)
    assert not h.message(board).custom_ids()
    assert "Sign-up is closed" in h.message(board).text()




async def test_a_round_seated_in_a_thread_discord_archived_plays_there_untold(
        h: LiveBot, clock: Clock) -> None:
    """A tournament opened in a thread takes sign-ups for two days; a moderator deleted its
    sign-up message, and nobody wrote there since: Discord archived the idle thread
    (discord.py no longer holds it). When sign-up closes on its own, round 1's match is
    played in that thread, as in an active one, and nobody is told that a thread was refused
    for want of a permission."""
    place = h.lb.create_thread(h.channel, "cup thread")
    await h.command(ADMIN, "tournament new", channel=place, name="Spring Cup", table_size=3,
                    signup_hours=48)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    board = next(m for m in h.public(place) if "Tournament: Spring Cup" in h.message(m).text())
    for user in (ANN, BOB):
        await h.click(user, board, TournamentButton.id_for(tid, "join"))
    h.lb.delete_message(board)
    h.lb.clock.advance(48 * 3600 + 60)
    clock.now += 48 * 3600 + 60
    h.lb.check_deadlines()
    await h.settle()
    assert place.archived
    await timer_pass(h)  # sign-up closes: round 1 is seated
    table = (await h.bot.service.tournaments.view(tid)).tables[0].table_id
    record = await h.bot.service.tables.load(table)
    assert record.status == "running" and record.message_id is not None
    assert [m for m in h.public(place) if f"kg:hand:{table}" in m.custom_ids()]
    assert not [m for m in h.public(place) if "could not open a thread" in m.text()]
    assert h.lb.threads_of(h.channel) == [place]


async def test_a_sign_up_left_with_its_buttons_by_a_stop_loses_them_at_the_restart(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """The host started Spring Cup and the bot stopped once round 1 was seated, before the
    sign-up message was edited: started again, the bot begins round 1's match and redraws the
    sign-up without its Join and Leave buttons (once: a later restart edits it no more)."""
    db = tmp_path / "k.db"
    bot = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await bot.command(ADMIN, "tournament new", name="Spring Cup", table_size=3)
        board = signup(bot)
        tid = (await bot.bot.service.tournaments.open_in(bot.guild.id))[0].id
        for user in (ANN, BOB):
            await bot.click(user, board, TournamentButton.id_for(tid, "join"))
        # what /goblin tournament start saves, the process stopping before it posts
        await bot.bot.service.tournaments.start(tid, ADMIN.id)
    finally:
        await bot.stop()
    assert bot.message(board).custom_ids()  # the stop left the buttons
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await again.settle()
        assert not again.message(board).custom_ids()
        assert "Sign-up is closed" in again.message(board).text()
        table = (await again.bot.service.tournaments.view(tid)).tables[0].table_id
        assert (await again.bot.service.tables.load(table)).message_id is not None
    finally:
        await again.stop()
    edits = record_requests(lb)
    third = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await third.settle()
        assert not [c for c in edits if c.method == "PATCH"
                    and c.path.endswith(f"/messages/{board.id}")]
    finally:
        await third.stop()


async def test_standings_a_crash_left_unposted_are_posted_once_at_the_restart(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """The bot dies once round 1's end is saved (round 2 seated) and before the standings are
    posted, then again once round 2's end is saved (the champion known): each start posts
    what the crash left unposted, once, and round 2's match begins; a later start posts
    nothing more."""
    db = tmp_path / "k.db"

    def posts(bot: LiveBot) -> tuple[list[str], list[str]]:
        texts = [m.text() for m in bot.public()]
        return ([t for t in texts if "Standings: Spring Cup" in t],
                [t for t in texts if "wins Spring Cup" in t])

    bot = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await _three_seated(bot)
        tid = (await bot.bot.service.tournaments.open_in(bot.guild.id))[0].id
        # what /goblin tournament end-round saves, the process dying before it posts
        await bot.bot.service.tournaments.close_round(tid, ADMIN.id)
    finally:
        await bot.stop()
    assert posts(bot) == ([], [])
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await again.settle()
        standings, _ = posts(again)
        assert len(standings) == 1 and "Round 1 of 2 is over: round 2 is seated." in standings[0]
        view = await again.bot.service.tournaments.view(tid)
        second = next(t.table_id for t in view.tables if t.round == 2)
        assert (await again.bot.service.tables.load(second)).message_id is not None
        await again.bot.service.tournaments.close_round(tid, ADMIN.id)  # dies again
    finally:
        await again.stop()
    assert posts(again) == (standings, [])
    third = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await third.settle()
        assert len(posts(third)[0]) == 1 and len(posts(third)[1]) == 1
    finally:
        await third.stop()
    fourth = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await fourth.settle()
        assert len(posts(fourth)[0]) == 1 and len(posts(fourth)[1]) == 1
    finally:
        await fourth.stop()


def _standings_posts(bot: LiveBot) -> list[str]:
    """The texts of Spring Cup's standings posts in the bot's public messages."""
    return [m.text() for m in bot.public() if "Standings: Spring Cup" in m.text()]


async def test_standings_noted_as_posting_by_a_crash_before_the_post_are_posted_at_the_restart(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """The bot dies once round 1's end is saved and the standings' post noted, before the
    post: the restart looks for it, finds none, posts it and notes it made; a later start
    posts nothing more."""
    db = tmp_path / "k.db"
    bot = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await _three_seated(bot)
        tid = (await bot.bot.service.tournaments.open_in(bot.guild.id))[0].id
        await bot.bot.service.tournaments.close_round(tid, ADMIN.id)
        await bot.bot.service.meta.posting_standings(tid, 2, False)  # then the process dies
    finally:
        await bot.stop()
    assert _standings_posts(bot) == []
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await again.settle()
        assert len(_standings_posts(again)) == 1
        assert await again.bot.service.meta.standings_posted(tid) == (2, True)
    finally:
        await again.stop()
    third = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await third.settle()
        assert len(_standings_posts(third)) == 1
    finally:
        await third.stop()


@pytest.mark.parametrize("away", [30.0, 300.0])
@pytest.mark.parametrize("final", [False, True])
async def test_standings_whose_answer_was_lost_are_not_posted_again_at_the_restart(
        lb: Loopback, tmp_path: Path, clock: Clock, away: float, final: bool) -> None:
    """Discord made round 1's standings post (``final``: the champion's, once round 2 ended)
    but the connection dropped before the bot heard so (the post not noted made), then the
    bot stopped and started again ``away`` seconds later (Discord still remembering the
    post's nonce, or not any more): the restarted bot finds the post made instead of posting
    it a second time, and notes it made."""
    db = tmp_path / "k.db"
    shown = "wins Spring Cup" if final else "Standings: Spring Cup"

    def posts(bot: LiveBot) -> list[str]:
        return [m.text() for m in bot.public() if shown in m.text()]

    bot = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await _three_seated(bot)
        tid = (await bot.bot.service.tournaments.open_in(bot.guild.id))[0].id
        if final:
            await bot.command(ADMIN, "tournament end-round")
            await bot.settle()
        lost = AnswerLost(bot)
        await bot.command(ADMIN, "tournament end-round")
        await bot.settle()
        [made] = posts(bot)
        assert lost.lost
        noted = await bot.bot.service.meta.standings_posted(tid)
        assert noted is not None and noted == (noted.reached, False)
    finally:
        await bot.stop()
    lb.clock.advance(away)
    clock.now += away
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await again.settle()
        assert posts(again) == [made]
        assert await again.bot.service.meta.standings_posted(tid) == (noted.reached, True)
    finally:
        await again.stop()


async def test_a_cancelled_sign_up_left_with_its_buttons_by_a_stop_loses_them_at_the_restart(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """The host cancelled Spring Cup and the bot stopped before the sign-up message was
    edited: started again, the bot redraws the sign-up as cancelled, without its Join and
    Leave buttons (once: a later restart edits it no more)."""
    db = tmp_path / "k.db"
    bot = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await bot.command(ADMIN, "tournament new", name="Spring Cup", table_size=3)
        board = signup(bot)
        tid = (await bot.bot.service.tournaments.open_in(bot.guild.id))[0].id
        await bot.click(ANN, board, TournamentButton.id_for(tid, "join"))
        # what /goblin tournament cancel saves, the process stopping before it edits
        await bot.bot.service.tournaments.cancel(tid, ADMIN.id, manager=True)
    finally:
        await bot.stop()
    assert bot.message(board).custom_ids()  # the stop left the buttons
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await again.settle()
        assert not again.message(board).custom_ids()
        assert "cancelled" in again.message(board).text().lower()
    finally:
        await again.stop()
    edits = record_requests(lb)
    third = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await third.settle()
        assert not [c for c in edits if c.method == "PATCH"
                    and c.path.endswith(f"/messages/{board.id}")]
    finally:
        await third.stop()


async def test_a_sign_up_whose_channel_was_deleted_is_not_redrawn_at_every_restart(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """Spring Cup's channel is deleted during sign-up (the tournament is cancelled with it):
    a restart tries its sign-up message's edit at most once, not at every start."""
    db = tmp_path / "k.db"
    bot = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        place = lb.create_channel(bot.guild, "cup")
        await bot.settle()
        await bot.command(ADMIN, "tournament new", channel=place, name="Spring Cup",
                          table_size=3)
        tid = (await bot.bot.service.tournaments.open_in(bot.guild.id))[0].id
        heard = asyncio.ensure_future(bot.bot.wait_for("guild_channel_delete", timeout=10))
        lb.delete_channel(place)
        await heard
        await bot.settle()
        assert (await bot.store.tournament(tid)).status == "cancelled"  # type: ignore[union-attr]
    finally:
        await bot.stop()
    for _ in range(2):
        again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
        await again.settle()
        await again.stop()
    edits = record_requests(lb)
    third = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await third.settle()
        assert not [c for c in edits if c.method == "PATCH" and f"/channels/{place.id}/" in c.path]
    finally:
        await third.stop()


#: A tournament's name of Discord's markdown: a heading, bold, a spoiler, a masked link and a
#: mention of someone who does not play (60 characters at most).
MARKED = f"# **Big** ||x|| [a](https://e.x) <@{EVE.id}>"


def markdown(message: Message) -> str:
    """The markdown of a message's text displays (what Discord renders)."""
    return "\n".join(str(c.get("content") or "") for c in walk(message.components)
                     if c.get("type") == TEXT_DISPLAY)


async def test_a_tournament_name_of_markdown_is_shown_as_typed(h: LiveBot) -> None:
    """The name its host typed is shown as typed wherever the bot's markdown names the
    tournament (the sign-up, the answers to its buttons and commands, its refusals, the
    standings and champion posts, /goblin history): escaped, never a heading, bold, hidden, a
    link or a mention; its matches' thread names, plain text, take it untouched."""
    await h.command(ADMIN, "tournament new", name=MARKED, rounds=1, table_size=3)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    board = next(m for m in h.public() if TournamentButton.id_for(tid, "join") in m.custom_ids())
    said = []
    for user in (ANN, BOB, ANN):
        said += h.said(await h.click(user, board, TournamentButton.id_for(tid, "join")))
    said += h.said(await h.command(ADMIN, "tournament end-round"))
    said += h.said(await h.command(ADMIN, "tournament start"))
    said += [markdown(h.reply(await h.command(ANN, "tournament standings")))]
    threads = h.lb.threads_of(h.channel)
    assert threads and threads[0].name.startswith(f"{MARKED}, round 1")
    said += h.said(await h.command(ADMIN, "tournament end-round"))
    said += [markdown(h.reply(await h.command(ANN, "history", tournament=str(tid))))]
    shown = "\n".join([*said, *(markdown(m) for m in h.public())])
    assert f"You have entered {plain(MARKED)}." in said
    assert f"You have already entered {plain(MARKED)}." in said
    assert f"{plain(MARKED)} is not under way." in said
    assert f"### Matches of {plain(MARKED)}" in shown
    assert f"wins {plain(MARKED)}!" in shown
    assert MARKED not in shown, shown
    assert f"<@{EVE.id}>" not in shown


async def test_a_sign_up_cancelled_by_its_closing_time_before_a_stop_shows_so_at_the_restart(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """Spring Cup's sign-up closed with one entrant, so the timers cancelled it, and the bot
    stopped before its sign-up message was edited: started again, the bot redraws the sign-up
    as cancelled, without its Join and Leave buttons."""
    db = tmp_path / "k.db"
    bot = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await bot.command(ADMIN, "tournament new", name="Spring Cup", table_size=3,
                          signup_hours=1)
        board = signup(bot)
        tid = (await bot.bot.service.tournaments.open_in(bot.guild.id))[0].id
        await bot.click(ANN, board, TournamentButton.id_for(tid, "join"))
        clock.now += 3601
        # what the timers' pass saves, the process stopping before it posts
        [cancelled] = await bot.bot.service.tournaments.sweep()
        assert cancelled.record.status == "cancelled"
    finally:
        await bot.stop()
    assert bot.message(board).custom_ids()  # the stop left the buttons
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await again.settle()
        assert not again.message(board).custom_ids()
        assert "This tournament was cancelled." in again.message(board).text()
    finally:
        await again.stop()


async def test_managing_another_channel_gives_no_say_over_the_server_s_tournament(
        h: LiveBot) -> None:
    """Ann may manage her own channel, not the tournament's: there, /goblin tournament
    end-round and drop player: still reach the server's only tournament, but she is refused as
    anyone but its host or a manager of its channel is, and nothing changes."""
    await _three_seated(h)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    lounge = h.lb.create_channel(h.guild, "ann's lounge")
    h.lb.set_overwrite(lounge, ANN, allow=MANAGE_CHANNELS)
    host_only = ["Only the tournament's host, or someone who can manage its channel "
                 f"(<#{h.channel.id}>), can do that."]
    assert h.said(await h.command(ANN, "tournament end-round", channel=lounge)) == host_only
    assert h.said(await h.command(ANN, "tournament drop", channel=lounge,
                                  player=BOB.id)) == host_only
    view = await h.bot.service.tournaments.view(tid)
    assert view.record.round == 1 and not [s for s in view.standings if s.dropped]
    # in the tournament's own channel, a manager of it may
    h.lb.set_overwrite(h.channel, BOB, allow=MANAGE_CHANNELS)
    assert h.said(await h.command(BOB, "tournament drop", player=EVE.id)) == [
        f"<@{EVE.id}> has dropped out of Spring Cup; the points already won stay in the "
        "standings."]


async def test_a_damaged_tournament_hurts_only_itself(h: LiveBot, tmp_path: Path,
                                                      clock: Clock) -> None:
    """One of a running tournament's rows damaged in the database (an entrant's time of
    sign-up a word): the timers' pass leaves it (no error at every pass), its standings are
    refused privately saying so, its match plays on, and anyone may still be forgotten."""
    table = await _three_seated(h)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    with closing(sqlite3.connect(tmp_path / "k.db")) as con, con:  # the fixture's file
        con.execute("UPDATE tournament_entrants SET joined_at = 'noon' WHERE tournament_id = ? "
                    "AND user_id = ?", (tid, EVE.id))
    clock.now += 2 * 24 * 3600  # past the round's deadline
    for _ in range(2):
        await timer_pass(h)
    [said] = h.said(await h.command(ANN, "tournament standings"))
    assert f"Tournament {tid} is damaged in the database" in said
    assert (await h.store.get(table)).status == "running"  # type: ignore[union-attr]
    assert "deleted" in await forget_me(h, EVE)


async def test_a_tournament_s_damaged_deadline_holds_up_no_reminder(
        h: LiveBot, clock: Clock, tmp_path: Path) -> None:
    """A running tournament whose round's deadline is damaged in the database (a word): the
    pass of the reminders goes on (its match reminded as one of a round without a deadline),
    and its player's list of their matches still answers."""
    table, mover, ends = await _slow_turn_before_the_round_ends(h, clock)
    with closing(sqlite3.connect(tmp_path / "k.db")) as con, con:  # the fixture's file
        con.execute("UPDATE tournaments SET deadline = 'noon'")
    clock.now = ends - 1800  # a quarter of the 8-hour turn started 3 hours before has passed
    await h.bot.reminders.send_due()
    await h.settle()
    [sent] = _dms(h, mover)
    assert f"table #{table}" in sent.text()
    listed = h.reply(await h.command(mover, "turns")).text()
    assert f"[Table #{table}]" in listed, listed


async def test_its_host_leaving_their_own_match_keeps_it_the_tournament_s(h: LiveBot) -> None:
    """The tournament's host plays in it and leaves their match to the AI with /goblin leave:
    the match stays hosted by the tournament's host, as when they time out for good or are
    forgotten, so none of its players becomes its host, who could abandon it for everyone."""
    table = await _three_seated(h, (ADMIN, BOB, EVE))
    thread = h.lb.threads_of(h.channel)[0]
    assert h.said(await h.command(ADMIN, "leave", channel=thread)) == [
        f"You left table #{table}."]
    record = await h.bot.service.tables.load(table)
    assert record.status == "running" and record.seats[record.seat_of(ADMIN.id) or 0].ai
    assert record.host_id == ADMIN.id
    assert h.said(await h.command(BOB, "abandon", channel=thread)) == [
        "Only the host or someone with Manage Channels can abandon the table."]
    assert (await h.bot.service.tables.load(table)).status == "running"


async def test_two_sign_ups_at_once_leave_the_sign_up_listing_both(
        h: LiveBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ann and Bob click Join at the same moment, and Ann's answer is the slower to reach
    Discord (read before Bob entered, sent after his): the sign-up message still lists both of
    them, never the older list of Ann alone."""
    await h.command(ADMIN, "tournament new", name="Spring Cup")
    board = signup(h)
    cup = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    tours = h.bot.service.tournaments
    read = tours.view
    held: list[asyncio.Event] = []

    async def slow_first(tournament_id: int) -> Any:
        view = await read(tournament_id)
        if not held:  # Ann's: read now, sent once Bob's answer is in
            held.append(asyncio.Event())
            await held[0].wait()
        return view

    monkeypatch.setattr(tours, "view", slow_first)
    join = TournamentButton.id_for(cup, "join")
    ann = await h.lb.click(h._known(ANN), board, join)
    while not held:
        await asyncio.sleep(0.01)
    bob = await h.lb.click(h._known(BOB), board, join)
    await bob.done()
    held[0].set()
    await h.handled(ann, bob)
    assert h.said(ann)[-1] == "You have entered Spring Cup."
    rows = await h.store.tournament_rows(cup)
    assert rows is not None and len(rows.entrants) == 2
    assert "Entrants (2): Ann, Bob" in h.message(board).text(), h.message(board).text()


async def test_a_slow_tournament_match_s_table_says_the_turn_ends_with_the_round(
        h: LiveBot, clock: Clock) -> None:
    """The table message of a tournament's match whose turn timer reaches past the round's
    end says the turn ends when the round does (the match is decided as it stands then), as
    the reminder and /goblin turns do, not at the turn's deadline that will never come."""
    table, _, ends = await _slow_turn_before_the_round_ends(h, clock)
    record = await h.bot.service.tables.load(table)
    assert record.deadline is not None and record.deadline > ends
    shown = table_message(h, h.lb.threads_of(h.channel)[0]).text()
    assert (f"The tournament's round ends <t:{int(ends)}:R> (<t:{int(ends)}:f>): this match is "
            "then decided as it stands.") in shown, shown  # the match's end, not the turn's
    assert f"<t:{int(record.deadline)}:" not in shown and "Turn timer" not in shown, shown


async def test_people_joining_a_sign_up_open_for_hours_are_all_entered_and_listed(
        h: LiveBot, clock: Clock) -> None:
    """A sign-up open for two days: over an hour old, its message takes only a few edits an
    hour (Discord's JSON error 30046), and five people join within one hour. Each is told they
    entered, and once the message refuses the edit it is posted anew (the old one deleted),
    listing everyone, its buttons on it alone."""
    await h.command(ADMIN, "tournament new", name="Spring Cup", rounds=2, table_size=3,
                    timer=86400, signup_hours=48)
    board = signup(h)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    h.lb.clock.advance(2 * 3600)
    clock.now += 2 * 3600
    people = [User(EVE.id + 100 + i, f"Player {i}") for i in range(5)]
    for user in people:
        ix = await h.click(user, h.message(signup(h)), TournamentButton.id_for(tid, "join"))
        assert h.said(ix) == ["You have entered Spring Cup."]
    assert [b.rule for b in h.lb.breaches] == ["old-edit"]  # refused once, then posted anew
    h.lb.breaches.clear()
    boards = [m for m in h.public() if "Tournament: Spring Cup" in m.text()]
    assert len(boards) == 1 and boards[0].id != board.id and h.message(board).deleted
    text = boards[0].text()
    assert all(f"Player {i}" in text for i in range(5)) and "5" in text, text
    assert TournamentButton.id_for(tid, "join") in boards[0].custom_ids()
    record = (await h.bot.service.tournaments.view(tid)).record
    assert record.signup_message_id == boards[0].id


async def test_its_host_dropping_someone_else_is_told_about_that_player_not_themselves(
        h: LiveBot) -> None:
    """The host drops a player who never entered, then drops Bob twice: the refusals name the
    player asked about, not "you" (the host never entered, nor dropped out)."""
    await _three_seated(h)
    zed = h.lb.create_user("Zed")
    assert h.said(await h.command(ADMIN, "tournament drop", player=zed.id)) == [
        f"<@{zed.id}> has not entered Spring Cup."]
    assert h.said(await h.command(ADMIN, "tournament drop", player=BOB.id)) == [
        f"<@{BOB.id}> has dropped out of Spring Cup; the points already won stay in the "
        "standings."]
    assert h.said(await h.command(ADMIN, "tournament drop", player=BOB.id)) == [
        f"<@{BOB.id}> has already dropped out of Spring Cup."]
    assert h.said(await h.command(BOB, "tournament drop")) == [  # their own: "you" still
        "You have already dropped out of Spring Cup."]
    assert h.said(await h.command(zed, "tournament drop")) == [
        "You have not entered Spring Cup."]


async def test_a_second_tournament_is_refused_in_a_channel_holding_one(h: LiveBot) -> None:
    """Spring Cup is under way in the channel: opening Winter Cup there too is refused,
    privately, saying which tournament holds the channel (its commands, asked there or in its
    matches' threads, would reach only the newer one: Spring Cup's round could no longer be
    ended, nor its players dropped). Another channel takes it; so does this one once Spring
    Cup is over."""
    await _three_seated(h)
    assert h.said(await h.command(ADMIN, "tournament new", name="Winter Cup")) == [
        "Spring Cup is already taking sign-ups or under way in this channel: open the new "
        "tournament in another channel, or once Spring Cup is over."]
    assert [t.name for t in await h.bot.service.tournaments.open_in(h.guild.id)] == [
        "Spring Cup"]
    other = h.lb.create_channel(h.guild, "winter")
    assert not h.said(await h.command(ADMIN, "tournament new", channel=other,
                                      name="Winter Cup"))
    await h.command(ADMIN, "tournament end-round")
    await h.command(ADMIN, "tournament end-round")  # Spring Cup is over
    assert not h.said(await h.command(ADMIN, "tournament new", name="Autumn Cup"))


async def test_two_tournaments_opened_at_once_in_one_channel_make_one(h: LiveBot) -> None:
    """Two admins open a tournament in the channel at the same moment: one is opened, with its
    sign-up message, and the other is told privately which tournament holds the channel."""
    admin2 = User(ADMIN.id + 1, "Second Mod", admin=True)
    first = await h.lb.command(h._known(ADMIN), h.channel, "goblin tournament new",
                               name="Spring Cup")
    second = await h.lb.command(h._known(admin2), h.channel, "goblin tournament new",
                                name="Winter Cup")
    await h.handled(first, second)
    opened = await h.bot.service.tournaments.open_in(h.guild.id)
    assert len(opened) == 1
    told = h.said(first, second)
    assert told == [f"{opened[0].name} is already taking sign-ups or under way in this "
                    "channel: open the new tournament in another channel, or once "
                    f"{opened[0].name} is over."], told
    assert len([m for m in h.public() if "Tournament:" in m.text()]) == 1


async def test_the_final_standings_are_shown_once_the_tournament_is_over(h: LiveBot) -> None:
    """The champion's post shows the podium only: once Spring Cup is over, /goblin tournament
    standings in its channel (or a thread of its matches) still shows its final standings,
    every player's place, privately, instead of answering that no tournament is there; a
    channel where none was held still has none."""
    await _three_seated(h, (ANN, BOB, EVE, h.lb.create_user("Cyril")))
    await h.command(ADMIN, "tournament end-round")
    await h.command(ADMIN, "tournament end-round")
    tid = (await h.store.tournaments_with_status("finished"))[0]
    assert (await h.bot.service.tournaments.view(tid)).record.status == "finished"
    for where in (h.channel, h.lb.threads_of(h.channel)[0]):
        shown = h.reply(await h.command(BOB, "tournament standings", channel=where))
        assert shown.ephemeral and shown.attachments, shown.text()
        assert "Standings: Spring Cup" in shown.text()
    other = h.lb.create_channel(h.guild, "lounge")
    assert h.said(await h.command(BOB, "tournament standings", channel=other)) == [
        "There is no tournament taking sign-ups or under way here."]
    # the commands that change a tournament still find none
    assert h.said(await h.command(ADMIN, "tournament end-round")) == [
        "There is no tournament taking sign-ups or under way here."]


async def test_the_player_with_a_bye_is_told_so_in_the_tournament_s_channel(h: LiveBot) -> None:
    """Four players at tables of 3: each round one of them has a bye. Round 1 posts no
    standings, so without a word they would only see the others' matches begin: a line in the
    tournament's channel tells the player with the bye (pinging them alone), once a round, and
    round 2 gives it to someone else."""
    cyril = h.lb.create_user("Cyril")
    await _three_seated(h, (ANN, BOB, EVE, cyril))
    tid = (await h.store.tournaments_with_status("running"))[0]

    def byes() -> list[Message]:
        return [m for m in h.public() if "has a bye this round" in m.text()]

    first = (await h.bot.service.tournaments.view(tid)).tournament.rounds[0].seating.bye
    assert first is not None
    [line] = byes()
    assert line.text() == f"<@{first}> has a bye this round and scores 5 points."
    await h.command(ADMIN, "tournament end-round")
    second = (await h.bot.service.tournaments.view(tid)).tournament.rounds[1].seating.bye
    assert second not in (None, first)
    assert [m.text() for m in byes()] == [
        f"<@{first}> has a bye this round and scores 5 points.",
        f"<@{second}> has a bye this round and scores 5 points."]


async def test_standings_asked_during_sign_up_say_the_tournament_has_not_started(
        h: LiveBot) -> None:
    """Before round 1 nothing is played: /goblin tournament standings showed a picture of
    "Round 0 of 3", every entrant at 0 points and "Places 1–2 were decided by lot". It now
    says, privately, that the standings begin with the first round."""
    await h.command(ADMIN, "tournament new", name="Spring Cup")
    board = signup(h)
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    for user in (ANN, BOB):
        await h.click(user, board, TournamentButton.id_for(tid, "join"))
    ix = await h.command(ANN, "tournament standings")
    assert not h.reply(ix).attachments
    assert h.said(ix) == ["Spring Cup has not started yet: its standings begin with its first "
                          "round. Its entrants are listed on its sign-up message."]
