"""Every past match is shown where it was played: a match in one person's direct messages is
theirs alone (no other person's direct messages, no server, and no forged click reaches it), a
server's match is not shown in direct messages, a match played in a channel a member may not view
(its permission overwrites, their roles) is not shown to them (nor counted in someone else's
``/goblin stats``, the records against the AI too), and ``/goblin stats`` counts only the
matches of the server it is asked in, the records against the AI too; a tournament held in a
channel a member may not view is none to them, and a table's button forged at another place
is told no such table exists, as is a click in a channel the clicker may not view."""
from __future__ import annotations

from pathlib import Path

import pytest
from live_bot import GUILD, LiveBot, table_id
from players import ANN, BOB, EVE, finished_match, forged_message, open_table, raw_click
from storage.backends import SqliteBackend
from storage.helpers import played

from bot.discord_side.ui.custom_ids import (
    HandButton,
    HeroMenu,
    LobbyButton,
    LogButton,
    ShareButton,
    TournamentButton,
)
from bot.game.standings import rate_result
from bot.storage.records import SeatInfo
from loopback import MANAGE_THREADS, VIEW_CHANNEL, Channel
from loopback.model import PRIVATE_THREAD
from loopback.permissions import MEMBER_PERMISSIONS, SEND_MESSAGES_IN_THREADS

#: Ann alone against two easy AI seats.
SOLO = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
        SeatInfo(ai=True, hero="taia", level="easy"),
        SeatInfo(ai=True, hero="argentus", level="easy"))


def in_dms(table: int) -> str:
    """The answer to a match not in the asker's direct messages."""
    return f"Your direct messages with the bot have no match #{table} to show."


def in_server(table: int) -> str:
    """The answer to a match not in sight on the server."""
    return f"This server has no match #{table} to show."


def listed(text: str, table: int) -> bool:
    """Whether a history page lists table ``table``."""
    return f"Table #{table}**" in text


async def ann_solo_in_dms(bot: LiveBot) -> tuple[int, Channel]:
    """A finished solo match in Ann's direct messages, and those direct messages."""
    game = played(1)
    dms = bot.lb.dm(ANN)
    tid = await finished_match(bot.store, game, seats=SOLO, channel=dms.id, guild=None,
                               host=ANN)
    return tid, dms


async def test_a_dm_match_is_its_persons_alone(bot: LiveBot) -> None:
    tid, ann_dms = await ann_solo_in_dms(bot)
    ix = await bot.command(ANN, "replay", channel=ann_dms, id=tid)  # Ann sees her own match
    assert "Move 0 of" in bot.reply(ix).text()
    ix = await bot.command(ANN, "history", channel=ann_dms)
    assert listed(bot.reply(ix).text(), tid)

    bob_dms = bot.lb.dm(BOB)
    for where in (bob_dms, bot.channel):  # Bob's direct messages, and a server
        ix = await bot.command(BOB, "replay", channel=where, id=tid)
        assert bot.said(ix) == [in_dms(tid) if where is bob_dms else in_server(tid)]
        ix = await bot.command(BOB, "history", channel=where)
        assert not listed(bot.reply(ix).text(), tid)
    ix = await bot.command(ANN, "replay", id=tid)  # not from a server, not even for Ann
    assert "no match" in " ".join(bot.said(ix))


@pytest.mark.parametrize("custom_id, kind", [
    ("kg:rp:{t}:0:h.open", 2), ("kg:rp:{t}:0:h.next", 2), ("kg:rp:{t}:0:h.flip", 2),
    ("kg:rp:{t}:0:r.last", 2), ("kg:rs:{t}:r", 3), ("kg:rsh:{t}", 2)])
async def test_forged_clicks_in_another_persons_dms_reach_no_dm_match(
        bot: LiveBot, custom_id: str, kind: int) -> None:
    tid, _ = await ann_solo_in_dms(bot)
    bob_dms = bot.lb.dm(BOB)
    cid = custom_id.format(t=tid)
    told = await raw_click(bot, BOB, forged_message(bot, BOB, cid, kind, channel=bob_dms), cid,
                           kind, ["1"])
    assert in_dms(tid) in told
    assert not any(m.attachments for m in bot.lb.messages_for(bob_dms, BOB))  # nothing shared


async def test_a_forged_history_page_in_another_persons_dms_lists_no_dm_match(
        bot: LiveBot) -> None:
    tid, _ = await ann_solo_in_dms(bot)
    bob_dms = bot.lb.dm(BOB)
    cid = f"kg:hist:{tid + 1}:o:0"
    page = forged_message(bot, BOB, cid, channel=bob_dms, ephemeral=False)
    await bot.click(BOB, page, cid, forge=True)
    assert not listed(bot.message(page).text(), tid)


async def test_a_servers_match_is_not_shown_in_direct_messages(bot: LiveBot) -> None:
    tid = await finished_match(bot.store, played(2))
    ann_dms = bot.lb.dm(ANN)
    ix = await bot.command(ANN, "replay", channel=ann_dms, id=tid)
    assert bot.said(ix) == [in_dms(tid)]
    ix = await bot.command(ANN, "history", channel=ann_dms)
    assert not listed(bot.reply(ix).text(), tid)
    cid = f"kg:rp:{tid}:0:r.last"
    told = await raw_click(bot, ANN, forged_message(bot, ANN, cid, channel=ann_dms), cid, 2)
    assert in_dms(tid) in told


async def test_stats_count_only_the_server_they_are_asked_in(bot: LiveBot) -> None:
    game = played(1)
    await finished_match(bot.store, game, start=len(game.moves) - 1, seats=SOLO,
                         rater=rate_result)  # Ann against the AI on this server
    dms = bot.lb.dm(ANN)
    await finished_match(bot.store, game, start=len(game.moves) - 1, seats=SOLO,
                         channel=dms.id, guild=None, host=ANN, rater=rate_result)
    other = bot.lb.create_guild("Elsewhere", guild_id=GUILD + 7)
    elsewhere = bot.lb.create_channel(other, "games")
    await bot.settle()

    ix = await bot.command(ANN, "stats")
    here = bot.reply(ix).text()
    assert "1 game played" in here and "Games against the AI alone" in here
    ix = await bot.command(ANN, "stats", channel=elsewhere)
    there = bot.reply(ix).text()
    assert "No finished game on this server yet." in there
    assert "against the AI" not in there  # neither this server's nor the DMs' records

    ix = await bot.command(ANN, "stats", channel=dms)  # her direct messages: her solo match
    mine = bot.reply(ix).text()
    assert "Ann's record in direct messages" in mine and "1 game played" in mine
    assert "Games against the AI alone in direct messages" in mine
    assert "never rated" in mine and not bot.reply(ix).attachments
    bob_dms = bot.lb.dm(BOB)
    ix = await bot.command(BOB, "stats", channel=bob_dms)  # not Ann's direct messages
    assert "No finished game in direct messages yet." in bot.reply(ix).text()
    ix = await bot.command(BOB, "stats", channel=bob_dms, player=str(ANN.id))
    assert bot.said(ix) == ["In direct messages only your own record is shown. Ask for "
                            "someone else's in a server you share."]


async def test_someone_elses_stats_count_only_the_matches_the_asker_may_view(
        bot: LiveBot) -> None:
    """Ann played one match in the open channel and one in a channel Bob may not view: her
    own stats count both, Bob asking about her counts the one he may look back at."""
    secret = await crew_only(bot)
    game = played(1)
    for channel in (bot.channel, secret):
        await finished_match(bot.store, game, start=len(game.moves) - 1, seats=SOLO,
                             channel=channel.id, rater=rate_result)
    mine = bot.reply(await bot.command(ANN, "stats")).text()
    assert "2 games played" in mine, mine
    told = bot.reply(await bot.command(BOB, "stats", player=str(ANN.id))).text()
    assert "1 game played" in told, told


async def test_someone_elses_records_against_the_ai_count_only_the_matches_the_asker_may_view(
        bot: LiveBot) -> None:
    """Ann played against the easy AI in the open channel and twice in a channel Bob may not
    view: her own record against the AI counts the three, Bob asking about her the one."""
    secret = await crew_only(bot)
    game = played(1)
    for channel in (bot.channel, secret, secret):
        await finished_match(bot.store, game, start=len(game.moves) - 1, seats=SOLO,
                             channel=channel.id, rater=rate_result)
    mine = bot.reply(await bot.command(ANN, "stats")).text()
    assert against_easy_ai(mine).endswith("won, 3 games"), mine
    told = bot.reply(await bot.command(BOB, "stats", player=str(ANN.id))).text()
    assert against_easy_ai(told).endswith("won, 1 game"), told


def against_easy_ai(stats: str) -> str:
    """The line of a ``/goblin stats`` answer on the games against the easy AI."""
    return next(line for line in stats.splitlines() if line.startswith("Easy AI: "))


async def crew_only(bot: LiveBot) -> Channel:
    """A channel of the bot's server that only the Crew role, which Ann has, may view."""
    lb, guild = bot.lb, bot.guild
    secret = lb.create_channel(guild, "crew-only")
    crew = lb.create_role(guild, "Crew")
    lb.give_role(guild, bot._known(ANN), crew)
    lb.set_overwrite(secret, guild.everyone, deny=VIEW_CHANNEL)
    lb.set_overwrite(secret, crew, allow=VIEW_CHANNEL)
    await bot.settle()
    return secret


async def test_a_private_channels_match_is_shown_only_to_who_may_view_it(bot: LiveBot) -> None:
    lb = bot.lb
    secret = await crew_only(bot)
    tid = await finished_match(bot.store, played(1), channel=secret.id)
    public = await finished_match(bot.store, played(2), start=len(played(2).moves) - 1)

    ix = await bot.command(ANN, "history")  # Ann has the role: she sees both, from anywhere
    assert listed(bot.reply(ix).text(), tid) and listed(bot.reply(ix).text(), public)
    ix = await bot.command(ANN, "replay", id=tid)
    assert "Move 0 of" in bot.reply(ix).text()

    ix = await bot.command(BOB, "history")  # Bob may not view the channel
    assert listed(bot.reply(ix).text(), public) and not listed(bot.reply(ix).text(), tid)
    ix = await bot.command(BOB, "history", player=ANN.id)
    assert not listed(bot.reply(ix).text(), tid)
    ix = await bot.command(BOB, "replay", id=tid)
    assert bot.said(ix) == [in_server(tid)]
    for cid, kind in ((f"kg:rp:{tid}:0:r.last", 2), (f"kg:rs:{tid}:h", 3),
                      (ShareButton.id_for(tid), 2)):
        told = await raw_click(bot, BOB, forged_message(bot, BOB, cid, kind), cid, kind, ["1"])
        assert in_server(tid) in told
    assert not any(m.attachments for m in lb.messages_for(bot.channel, BOB))  # nothing shared

    lb.set_overwrite(secret, bot._known(BOB), allow=VIEW_CHANNEL)  # let in by name
    await bot.settle()
    ix = await bot.command(BOB, "replay", id=tid)
    assert "Move 0 of" in bot.reply(ix).text()


async def test_a_private_channels_match_is_shared_only_where_it_was_played(
        bot: LiveBot) -> None:
    """Its animation posted in another channel would show it to people who may not view the
    channel it was played in: Share is refused there, and works in that channel."""
    lb = bot.lb
    secret = await crew_only(bot)
    tid = await finished_match(bot.store, played(1), channel=secret.id)

    ix = await bot.command(ANN, "replay", id=tid)  # in the public channel
    ix = await bot.click(ANN, bot.reply(ix), ShareButton.id_for(tid))
    assert "which not everyone here can see: share its animation from that channel" in \
        " ".join(bot.said(ix))
    gifs = [a.filename for m in lb.messages_for(bot.channel, ANN) for a in m.attachments
            if a.filename.endswith(".gif")]
    assert gifs == []

    ix = await bot.command(ANN, "replay", id=tid, channel=secret)  # where it was played
    ix = await bot.click(ANN, bot.reply(ix), ShareButton.id_for(tid))
    assert "is posted in the channel" in " ".join(bot.said(ix))
    assert [a.filename for m in lb.messages_for(secret, ANN) for a in m.attachments
            if a.filename.endswith(".gif")] == [f"match-{tid}.gif"]


async def test_a_private_channels_match_is_shared_in_its_threads_and_from_its_own(
        bot: LiveBot) -> None:
    """Whoever may view a thread may view its channel, and a public thread is viewed by all
    who view its channel: a match of the crew's channel is shared in a thread of that channel
    (where the crew talks about it), and a match played in a public thread of the crew's
    channel is shared in the channel itself and in another thread of it; none is refused as
    shown to people who may not view where it was played. The sharer is told where it went:
    in this thread, or in the channel."""
    lb = bot.lb
    secret = await crew_only(bot)
    crew = next(r for r in bot.guild.roles if r.name == "Crew")
    lb.set_overwrite(secret, crew, allow=VIEW_CHANNEL | SEND_MESSAGES_IN_THREADS)
    talk = lb.create_thread(secret, "crew talk", owner=ANN)
    await bot.settle()
    tid = await finished_match(bot.store, played(1), channel=secret.id)
    ix = await bot.command(ANN, "replay", id=tid, channel=talk)
    ix = await bot.click(ANN, bot.reply(ix), ShareButton.id_for(tid))
    assert "is posted in this thread" in " ".join(bot.said(ix))
    assert [a.filename for m in lb.messages_for(talk, ANN) for a in m.attachments
            if a.filename.endswith(".gif")] == [f"match-{tid}.gif"]

    inside = await finished_match(bot.store, played(2), channel=talk.id)  # /goblin new in it
    ix = await bot.command(ANN, "replay", id=inside, channel=secret)
    ix = await bot.click(ANN, bot.reply(ix), ShareButton.id_for(inside))
    assert "is posted in the channel" in " ".join(bot.said(ix))
    assert [a.filename for m in lb.messages_for(secret, ANN) for a in m.attachments
            if a.filename.endswith(".gif")] == [f"match-{inside}.gif"]
    later = lb.create_thread(secret, "next match talk", owner=ANN)  # another thread of it
    await bot.settle()
    ix = await bot.command(ANN, "replay", id=inside, channel=later)
    ix = await bot.click(ANN, bot.reply(ix), ShareButton.id_for(inside))
    assert "is posted in this thread" in " ".join(bot.said(ix))


async def test_a_private_channels_tournament_is_not_shown_elsewhere(bot: LiveBot) -> None:
    """A tournament held in a channel Bob may not view is no tournament to him: asked in a
    channel he may view, its standings are refused, as in /goblin history."""
    secret = await crew_only(bot)
    cup = await bot.bot.service.tournaments.create(
        guild_id=bot.guild.id, channel_id=secret.id, host_id=ANN.id, name="Crew Cup")
    ix = await bot.command(ANN, "tournament standings", channel=secret)  # Ann may view it
    assert bot.reply(ix).text().startswith("Crew Cup has not started yet")  # reached

    ix = await bot.command(BOB, "tournament standings")  # Bob, in the public channel
    told = " ".join(bot.said(ix))
    assert "Crew Cup" not in told and not bot.reply(ix).attachments
    assert told == "There is no tournament taking sign-ups or under way here."
    assert bot.said(await bot.command(BOB, "history", tournament=str(cup.id))) == [
        "This server has no such tournament to show: pick one from the list offered as you "
        "type."]


async def test_a_private_threads_match_is_not_shown_to_who_is_not_in_it(bot: LiveBot) -> None:
    """A private thread is seen only by those added to it (and those who may manage threads),
    not by everyone who may view its channel: a match played in one (/goblin new inside it)
    is not shown to Bob, who is not in it, and its animation is not shared in the channel."""
    lb = bot.lb
    thread = lb.create_thread(bot.channel, "crew talk", owner=ANN, kind=PRIVATE_THREAD)
    await bot.settle()
    tid = await finished_match(bot.store, played(1), channel=thread.id)

    ix = await bot.command(ANN, "history", channel=thread)  # in the thread: Ann is in it
    assert listed(bot.reply(ix).text(), tid)
    ix = await bot.command(BOB, "history")  # Bob may view the channel, not the thread
    assert not listed(bot.reply(ix).text(), tid)
    ix = await bot.command(BOB, "replay", id=tid)
    assert bot.said(ix) == [in_server(tid)]

    mods = lb.create_role(bot.guild, "Mods", MEMBER_PERMISSIONS | MANAGE_THREADS)
    lb.give_role(bot.guild, bot._known(EVE), mods)
    await bot.settle()
    ix = await bot.command(EVE, "replay", id=tid)  # who may manage threads sees them all
    assert "Move 0 of" in bot.reply(ix).text()
    ix = await bot.click(EVE, bot.reply(ix), ShareButton.id_for(tid))
    assert "which not everyone here can see: share its animation from that channel" in \
        " ".join(bot.said(ix))
    gifs = [a.filename for m in lb.messages_for(bot.channel, EVE) for a in m.attachments
            if a.filename.endswith(".gif")]
    assert gifs == []  # its animation is not posted where everyone in the channel sees it


async def test_a_forged_sign_up_click_reaches_no_tournament_out_of_sight(bot: LiveBot) -> None:
    """A Join button forged with the id of a tournament held in a channel the clicker may not
    view, on another server or in direct messages neither enters them nor names it."""
    secret = await crew_only(bot)
    cup = await bot.bot.service.tournaments.create(
        guild_id=bot.guild.id, channel_id=secret.id, host_id=ANN.id, name="Crew Cup")
    other = bot.lb.create_guild("Elsewhere", guild_id=GUILD + 7)
    elsewhere = bot.lb.create_channel(other, "games")
    await bot.settle()
    cid = TournamentButton.id_for(cup.id, "join")
    for where in (bot.channel, elsewhere, bot.lb.dm(BOB)):
        told = await raw_click(bot, BOB, forged_message(bot, BOB, cid, channel=where), cid, 2)
        assert told == ["That tournament does not exist (any more)."]
    rows = await bot.store.tournament_rows(cup.id)
    assert rows is not None and not rows.entrants

    told = await raw_click(bot, ANN, forged_message(bot, ANN, cid, channel=secret), cid, 2)
    assert "You have entered Crew Cup." in told  # where it is held


async def test_a_match_played_in_a_thread_stays_in_sight_once_the_thread_is_archived(
        bot: LiveBot) -> None:
    """A match played in a thread (/goblin new inside it) is seen by whoever may view the
    thread's channel, also after Discord archived the idle thread (discord.py's cache then no
    longer holds it)."""
    thread = bot.lb.create_thread(bot.channel, "chat", owner=ANN)
    await bot.settle()
    tid = await finished_match(bot.store, played(1), channel=thread.id)
    ix = await bot.command(ANN, "history")
    assert listed(bot.reply(ix).text(), tid)
    assert asked(bot, thread) == 0  # the cache knows it: Discord is not asked
    bot.lb.archive_thread(thread)  # a day without a message in it
    await bot.settle()
    ix = await bot.command(ANN, "history")
    assert listed(bot.reply(ix).text(), tid)
    ix = await bot.command(ANN, "replay", id=tid)
    assert "Move 0 of" in bot.reply(ix).text()


def asked(bot: LiveBot, channel: Channel) -> int:
    """How often the bot asked Discord for ``channel`` (GET /channels/{id})."""
    return sum(1 for _, method, path in bot.lb.requests
               if method == "GET" and path == f"/channels/{channel.id}")


async def test_an_archived_private_threads_match_stays_with_who_may_manage_threads(
        bot: LiveBot) -> None:
    """Once archived, a private thread's match is still not shown to those who may only view
    its channel, and is to those who may manage its threads; its animation is still not
    shared in the channel."""
    lb = bot.lb
    thread = lb.create_thread(bot.channel, "crew talk", owner=ANN, kind=PRIVATE_THREAD)
    mods = lb.create_role(bot.guild, "Mods", MEMBER_PERMISSIONS | MANAGE_THREADS)
    lb.give_role(bot.guild, bot._known(EVE), mods)
    tid = await finished_match(bot.store, played(1), channel=thread.id)
    lb.archive_thread(thread)
    await bot.settle()

    ix = await bot.command(BOB, "history")
    assert not listed(bot.reply(ix).text(), tid)
    ix = await bot.command(BOB, "replay", id=tid)
    assert bot.said(ix) == [in_server(tid)]
    ix = await bot.command(EVE, "history")
    assert listed(bot.reply(ix).text(), tid)
    ix = await bot.command(EVE, "replay", id=tid)
    assert "Move 0 of" in bot.reply(ix).text()
    ix = await bot.click(EVE, bot.reply(ix), ShareButton.id_for(tid))
    assert "which not everyone here can see: share its animation from that channel" in \
        " ".join(bot.said(ix))
    assert asked(bot, thread) == 1  # what Discord told is remembered


async def test_a_deleted_threads_match_is_out_of_sight(bot: LiveBot) -> None:
    """A match played in a thread deleted since is shown to no one: asked about after its
    deletion, Discord answers Unknown Channel; deleted after it was asked about as archived,
    the deletion is heard. Nothing is asked again once known."""
    lb = bot.lb
    gone, later = (lb.create_thread(bot.channel, name, owner=ANN) for name in ("gone", "later"))
    await bot.settle()
    first = await finished_match(bot.store, played(1), channel=gone.id)
    second = await finished_match(bot.store, played(2), channel=later.id)
    lb.delete_thread(gone)
    lb.archive_thread(later)
    await bot.settle()

    ix = await bot.command(ANN, "history")
    text = bot.reply(ix).text()
    assert not listed(text, first) and listed(text, second)
    ix = await bot.command(ANN, "replay", id=first)
    assert bot.said(ix) == [in_server(first)]
    assert (asked(bot, gone), asked(bot, later)) == (1, 1)

    lb.delete_thread(later)
    await bot.settle()
    ix = await bot.command(ANN, "history")
    assert not listed(bot.reply(ix).text(), second)
    ix = await bot.command(ANN, "replay", id=second)
    assert bot.said(ix) == [in_server(second)]
    assert (asked(bot, gone), asked(bot, later)) == (1, 1)
    assert lb.breaches == []


async def test_a_match_abandoned_unrated_in_a_thread_stays_in_sight_once_archived(
        bot: LiveBot) -> None:
    """A match played in a thread and abandoned before everyone moved (no result: not rated)
    is replayed while the thread is active, and still once Discord archived it."""
    thread = bot.lb.create_thread(bot.channel, "chat", owner=ANN)
    await bot.settle()
    tid = await finished_match(bot.store, played(1), channel=thread.id, upto=6)
    record = await bot.store.get(tid)
    assert record is not None
    await bot.store.abandon(tid, record.version)
    bot.bot.scheduler.leases.forget(tid)
    ix = await bot.command(ANN, "replay", id=tid)
    assert "Move 0 of" in bot.reply(ix).text()
    bot.lb.archive_thread(thread)
    await bot.settle()
    ix = await bot.command(ANN, "replay", id=tid)
    assert "Move 0 of" in bot.reply(ix).text(), bot.said(ix)


#: A button or menu of each kind bound to a table: its custom_id (``{t}``: the table) and
#: whether it is a menu.
TABLE_CONTROLS = [
    ("kg:hand:{t}", 2), ("kg:log:{t}", 2), ("kg:do:{t}:0:end", 2), ("kg:sure:{t}:0:end", 2),
    ("kg:back:{t}", 2), ("kg:hint:{t}:0", 2), ("kg:pick:{t}:0:fight00", 3), ("kg:quit:{t}", 2),
    ("kg:abandon:{t}", 2), ("kg:lobby:{t}:join", 2), ("kg:hero:{t}", 3),
    ("kg:level:{t}:1:0", 3), ("kg:rm:{t}:offer", 2), ("kg:rm:{t}:ready", 2)]


@pytest.mark.parametrize("custom_id, kind", TABLE_CONTROLS)
async def test_a_forged_click_on_another_places_table_is_told_no_such_table(
        bot: LiveBot, custom_id: str, kind: int) -> None:
    """A table's button forged on another server or in someone else's direct messages gets the
    answer an id naming no table gets: not that the table is in another channel (which tells
    the id names a table somewhere), and nothing changes at it."""
    running = await open_table(bot, ANN, [BOB])
    done = await finished_match(bot.store, played(2),
                                channel=bot.lb.create_channel(bot.guild, "past").id)
    ann_dms, _ = await ann_solo_in_dms(bot)
    other = bot.lb.create_guild("Elsewhere", guild_id=GUILD + 7)
    elsewhere = bot.lb.create_channel(other, "games")
    await bot.settle()
    before = await bot.store.get(running)
    for table, places in ((running, (elsewhere, bot.lb.dm(EVE))),
                          (done, (elsewhere, bot.lb.dm(EVE))),
                          (ann_dms, (elsewhere, bot.channel, bot.lb.dm(BOB)))):
        cid = custom_id.format(t=table)
        for where in places:
            clicker = BOB if where is bot.lb.dm(BOB) else EVE
            told = await raw_click(bot, clicker, forged_message(bot, clicker, cid, kind,
                                                                channel=where),
                                   cid, kind, ["x"])
            assert told == [f"Table #{table} does not exist."], (cid, where.id, told)
    after = await bot.store.get(running)
    assert after is not None and before is not None
    assert (after.version, after.seats) == (before.version, before.seats)
    assert await bot.store.rematch_of(done) is None


@pytest.mark.parametrize("custom_id, kind", TABLE_CONTROLS)
async def test_a_forged_click_on_another_places_damaged_table_is_told_no_such_table(
        bot: LiveBot, tmp_path: Path, custom_id: str, kind: int) -> None:
    """A table whose stored game is damaged is told damaged where it is played only: a button
    of it forged on another server or in someone's direct messages gets the answer an id naming
    no table gets, as for a table that is not damaged; so it does where even its place cannot
    be read, but in its own channel."""
    tid = await open_table(bot, ANN, [BOB])
    other = bot.lb.create_guild("Elsewhere", guild_id=GUILD + 7)
    elsewhere = bot.lb.create_channel(other, "games")
    await bot.settle()
    backend = SqliteBackend(tmp_path / "k.db")
    cid = custom_id.format(t=tid)
    for damage in ({"state": '{"broken"'}, {"place_key": ""}):
        await backend.damage_table(bot.store, tid, **damage)
        for where, clicker in ((elsewhere, EVE), (bot.lb.dm(EVE), EVE), (bot.lb.dm(BOB), BOB)):
            told = await raw_click(bot, clicker, forged_message(bot, clicker, cid, kind,
                                                                channel=where),
                                   cid, kind, ["x"])
            assert told == [f"Table #{tid} does not exist."], (cid, damage, where.id, told)
        told = await raw_click(bot, BOB, forged_message(bot, BOB, cid, kind), cid, kind, ["x"])
        assert len(told) == 1 and "is damaged in the database" in told[0], (cid, damage, told)


async def test_a_click_in_a_channel_the_clicker_may_not_view_reaches_no_table(
        bot: LiveBot) -> None:
    """Only a modified client clicks a message of a channel its person may not view: Eve's
    clicks on the lobby and table messages of a channel only the Crew may view neither seat
    her nor tell her its turns or a hand, and are told there is no such table."""
    secret = await crew_only(bot)
    await bot.command(ANN, "new", channel=secret)
    lobby = bot.public(secret)[-1]
    tid = table_id(lobby)
    none = [f"Table #{tid} does not exist."]
    for cid, kind in ((LobbyButton.id_for(tid, "join", None), 2), (HeroMenu.id_for(tid), 3)):
        assert await raw_click(bot, EVE, lobby, cid, kind, ["horan"]) == none, cid
    assert (await bot.bot.service.tables.load(tid)).seat_of(EVE.id) is None
    await bot.click(ANN, lobby, LobbyButton.id_for(tid, "ai", None))
    await bot.click(ANN, lobby, LobbyButton.id_for(tid, "start", None))
    table = bot.public(secret)[-1]
    assert HandButton.id_for(tid) in table.custom_ids()
    for cid in (LogButton.id_for(tid), HandButton.id_for(tid)):
        assert await raw_click(bot, EVE, table, cid, 2) == none, cid

    lb = bot.lb  # let in by name: her clicks are answered as anyone's
    lb.set_overwrite(secret, bot._known(EVE), allow=VIEW_CHANNEL)
    await bot.settle()
    told = await raw_click(bot, EVE, table, LogButton.id_for(tid), 2)
    assert told and "the last two turns" in told[-1], told
