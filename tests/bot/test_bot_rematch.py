"""Rematches on the stand-in: the final table offers Replay and Rematch under its summary
chart; the rematch starts at once when every person is ready, or when the host starts it with
those who are, with the same seats, heroes, AI levels and every setting of the table (each
checked on its own, hints, taking back and lessons included); an offer lapses on the clock
(its buttons go), is refused where the channel has an active table, and only the match's people
take part."""
from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from bot_helpers import Clock
from live_bot import CHANNEL, GUILD, LiveBot, resolve
from players import ADMIN, ANN, BOB, EVE, finished_match, planted
from storage.backends import make_room, no_room_for
from storage.helpers import played
from test_bot_forget import forget_me

from bot.discord_side.ui.custom_ids import RematchButton
from bot.game.rematch import LAPSE, SETTINGS
from bot.storage.records import SeatInfo, TableRecord
from loopback import Message
from loopback.permissions import SEND_MESSAGES


async def ended(bot: LiveBot, timer: int = 0) -> tuple[int, Message]:
    """A finished match of Ann (the host), Bob and an easy AI (``timer``: its seconds a turn),
    and its final table message."""
    tid = await finished_match(bot.store, played(2), timer=timer)
    record = await bot.bot.service.tables.load(tid)
    await bot.bot.poster.announce_end(record)
    await bot.settle()
    final = bot.public()[-1]
    assert final.custom_ids() == [f"kg:rp:{tid}:0:h.open", RematchButton.id_for(tid, "offer")]
    assert [a.filename for a in final.attachments] == ["table.png", "summary.png"]
    return tid, final


async def offered(bot: LiveBot, timer: int = 0) -> tuple[int, Message]:
    """Ann offers a rematch; the offer's public message."""
    tid, final = await ended(bot, timer)
    ix = await bot.click(ANN, final, RematchButton.id_for(tid, "offer"))
    assert "offer is posted" in bot.said(ix)[0]
    offer = bot.public()[-1]
    assert offer.custom_ids() == [RematchButton.id_for(tid, "ready"),
                                  RematchButton.id_for(tid, "start")]
    assert "Everyone keeps their hero" in offer.text()
    return tid, offer


async def test_replay_on_the_final_table_opens_a_private_replay(bot: LiveBot) -> None:
    tid, final = await ended(bot)
    ix = await bot.click(EVE, final, f"kg:rp:{tid}:0:h.open")  # anyone of the server may
    replay = bot.reply(ix)
    assert replay.owner == EVE.id and f"Replay of table #{tid}" in replay.text()
    assert f"kg:rp:{tid}:0:h.next" in replay.custom_ids()
    assert bot.message(final).custom_ids() == [f"kg:rp:{tid}:0:h.open",
                                               RematchButton.id_for(tid, "offer")]


async def test_the_rematch_starts_when_everyone_is_ready(bot: LiveBot) -> None:
    tid, offer = await offered(bot)
    ix = await bot.click(EVE, offer, RematchButton.id_for(tid, "ready"))  # Eve did not play it
    assert "Only the people who played" in " ".join(bot.said(ix))
    ix = await bot.click(ANN, offer, RematchButton.id_for(tid, "ready"))
    assert "already said" in " ".join(bot.said(ix))
    await bot.click(BOB, offer, RematchButton.id_for(tid, "ready"))
    new = await bot.store.active_in_channel(CHANNEL)
    assert new is not None and new != tid
    old, now = await bot.bot.service.tables.load(tid), await bot.bot.service.tables.load(new)
    assert now.status == "running" and now.host_id == old.host_id
    assert [(s.user, s.hero, s.ai, s.level) for s in now.seats] == [
        (s.user, s.hero, s.ai, s.level) for s in old.seats]
    assert (now.abilities, now.timer, now.locale) == (old.abilities, old.timer, old.locale)
    assert f"table #{new}" in bot.message(offer).text() and not bot.message(offer).custom_ids()
    assert bot.last_table_message().custom_ids() == [f"kg:hand:{new}", f"kg:log:{new}"]
    # a click on a copy of the offer that missed its last edit
    late = RematchButton.id_for(tid, "ready")
    ix = await bot.click(BOB, planted(bot.lb, BOB, late), late)
    assert f"already started: table #{new}" in " ".join(bot.said(ix))


async def test_the_host_starts_with_those_who_are_ready(bot: LiveBot) -> None:
    tid, offer = await offered(bot)
    ix = await bot.click(BOB, offer, RematchButton.id_for(tid, "start"))
    assert "Only the host" in " ".join(bot.said(ix))
    await bot.click(ANN, offer, RematchButton.id_for(tid, "start"))
    new = await bot.store.active_in_channel(CHANNEL)
    assert new is not None
    now = await bot.bot.service.tables.load(new)
    assert [(s.user, s.hero, s.ai) for s in now.seats] == [
        (ANN.id, "horan", False), (None, "argentus", True)]


async def test_an_offer_lapses(bot: LiveBot, clock: Clock) -> None:
    tid, offer = await offered(bot)
    clock.now += LAPSE + 1
    ix = await bot.click(BOB, offer, RematchButton.id_for(tid, "ready"))
    assert "has lapsed" in " ".join(bot.said(ix))
    assert not bot.message(offer).custom_ids() and "has lapsed" in bot.message(offer).text()
    assert await bot.store.active_in_channel(CHANNEL) is None


async def test_a_lapsed_offer_loses_its_buttons_on_the_timers_pass(bot: LiveBot,
                                                                   clock: Clock) -> None:
    tid, offer = await offered(bot)
    await bot.bot.clicks.past.lapse_offers()
    assert bot.message(offer).custom_ids()  # not yet
    clock.now += LAPSE + 1
    await bot.bot.clicks.past.lapse_offers()
    assert not bot.message(offer).custom_ids() and "has lapsed" in bot.message(offer).text()
    _, final = tid, bot.public()[-2]
    ix = await bot.click(ANN, final, RematchButton.id_for(tid, "offer"))  # a new offer may be made
    assert "offer is posted" in bot.said(ix)[0]


async def test_a_slow_matchs_offer_lasts_a_turns_time(bot: LiveBot, clock: Clock) -> None:
    """People who play one move a day answer a rematch at that pace too."""
    day = 24 * 3600
    tid, offer = await offered(bot, timer=day)
    assert f"<t:{int(clock.now) + day}:R>" in offer.text()
    clock.now += LAPSE + 1
    await bot.bot.clicks.past.lapse_offers()
    assert bot.message(offer).custom_ids()  # still open after LAPSE
    clock.now += day - LAPSE
    ix = await bot.click(BOB, offer, RematchButton.id_for(tid, "ready"))
    assert "has lapsed" in " ".join(bot.said(ix))
    assert not bot.message(offer).custom_ids() and "has lapsed" in bot.message(offer).text()


async def test_a_rematch_is_refused_where_a_table_is_active(bot: LiveBot) -> None:
    tid, final = await ended(bot)
    await bot.command(EVE, "new")
    ix = await bot.click(ANN, final, RematchButton.id_for(tid, "offer"))
    assert "already has a table" in bot.said(ix)[0]
    assert await bot.bot.service.rematches.offer_of(tid) is None


async def test_a_rematch_is_refused_where_the_bot_may_no_longer_post(bot: LiveBot) -> None:
    """A moderator took Send Messages from the bot once the match was over: the offer stands
    (it cannot be posted), but the click that would start the rematch is refused as Start is,
    naming what is missing, and no table no one can see holds the channel; once the
    permission is back, the same click starts it and its table is posted."""
    tid, final = await ended(bot)
    bot.channel.bot_permissions &= ~SEND_MESSAGES
    ix = await bot.click(ANN, final, RematchButton.id_for(tid, "offer"))
    assert "offer stands" in bot.said(ix)[0]
    ix = await bot.click(BOB, final, RematchButton.id_for(tid, "offer"))
    assert bot.said(ix)[0] == ("I can't run a game in this channel because I lack this "
                               "permission here: Send Messages. Ask an admin to grant it "
                               "to the bot, or use another channel.")
    assert await bot.store.active_in_channel(CHANNEL) is None
    bot.channel.bot_permissions |= SEND_MESSAGES
    ix = await bot.click(BOB, final, RematchButton.id_for(tid, "offer"))
    new = await bot.store.active_in_channel(CHANNEL)
    assert new is not None and f"has started: table #{new}" in bot.said(ix)[0]
    assert bot.last_table_message().custom_ids() == [f"kg:hand:{new}", f"kg:log:{new}"]


async def test_an_offer_whose_message_cannot_be_saved_is_still_made(
        bot: LiveBot, caplog: pytest.LogCaptureFixture) -> None:
    tid, final = await ended(bot)
    await no_room_for(bot.store, "message_id", "rematches")
    ix = await bot.click(ANN, final, RematchButton.id_for(tid, "offer"))
    assert "offer is posted" in bot.said(ix)[0]  # not "nothing changed": it was posted
    assert "its rematch offer's message could not be saved" in caplog.text
    assert bot.public()[-1].custom_ids() == [RematchButton.id_for(tid, "ready"),
                                             RematchButton.id_for(tid, "start")]
    await make_room(bot.store)


async def test_a_rematch_the_database_cannot_start_leaves_the_channel_free(
        bot: LiveBot) -> None:
    """The host starts the rematch as the database stops taking writes part of the way
    through (here: no room for the new match's state, once its table was opened): they are
    told nothing was saved, and no table is left holding the channel (a lobby nobody sees,
    which would refuse the rematch, and /goblin new, as "a table is already here"). Once
    the database has room, the same click starts the rematch, its table posted."""
    tid, offer = await offered(bot)
    await no_room_for(bot.store, "state")
    ix = await bot.click(ANN, offer, RematchButton.id_for(tid, "start"))
    assert "could not save that" in " ".join(bot.said(ix))
    assert await bot.store.active_in_channel(CHANNEL) is None
    await make_room(bot.store)
    ix = await bot.click(ANN, bot.message(offer), RematchButton.id_for(tid, "start"))
    new = await bot.store.active_in_channel(CHANNEL)
    assert new is not None and new != tid, bot.said(ix)
    assert (await bot.bot.service.tables.load(new)).status == "running"
    assert bot.last_table_message().custom_ids() == [f"kg:hand:{new}", f"kg:log:{new}"]


async def test_a_match_played_alone_with_the_ai_starts_again_at_once(bot: LiveBot) -> None:
    alone = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
             SeatInfo(ai=True, hero="taia", level="easy"),
             SeatInfo(ai=True, hero="argentus", level="hard"))
    tid = await finished_match(bot.store, played(2), seats=alone)
    await bot.bot.poster.announce_end(await bot.bot.service.tables.load(tid))
    await bot.settle()
    ix = await bot.click(ANN, bot.public()[-1], RematchButton.id_for(tid, "offer"))
    new = await bot.store.active_in_channel(CHANNEL)
    assert new is not None and f"has started: table #{new}" in bot.said(ix)[0]
    now = await bot.bot.service.tables.load(new)
    assert [(s.hero, s.ai, s.level) for s in now.seats][1:] == [
        ("taia", True, "easy"), ("argentus", True, "hard")]


#: What a table records about its one match, which a rematch starts afresh; every other field
#: of a table is a setting the rematch keeps.
PER_MATCH = {"id", "status", "seed", "seats", "state", "version", "message_id",
             "lobby_message_id", "deadline", "winner", "created_at", "updated_at", "revision",
             "catalogue", "thread_id", "finished_at", "tournament_id", "hints"}
ALONE = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
         SeatInfo(ai=True, hero="taia", level="easy"),
         SeatInfo(ai=True, hero="argentus", level="easy"))


def test_every_setting_of_a_table_is_kept_by_a_rematch() -> None:
    fields = {f.name for f in dataclasses.fields(TableRecord)}
    assert fields == PER_MATCH | set(SETTINGS), fields ^ (PER_MATCH | set(SETTINGS))


@pytest.mark.parametrize(("setting", "value"), [
    ("abilities", True), ("timer", 300), ("locale", "fr"), ("ai_level", "hard"),
    ("lessons", True), ("undo", False), ("hints", False), ("hints", True)])
async def test_a_rematch_keeps_the_setting(bot: LiveBot, setting: str, value: Any) -> None:
    settings = {"hints": True, setting: value}  # a started table's hints are decided
    tid = await finished_match(bot.store, played(2), seats=ALONE, **settings)
    old = await bot.bot.service.tables.load(tid)
    assert getattr(old, setting) == value
    await bot.bot.poster.announce_end(old)
    await bot.settle()
    # alone: starts at once
    await bot.click(ANN, bot.public()[-1], RematchButton.id_for(tid, "offer"))
    new = await bot.store.active_in_channel(CHANNEL)
    assert new is not None and new != tid
    now = await bot.bot.service.tables.load(new)
    assert {s: getattr(now, s) for s in SETTINGS} == {s: getattr(old, s) for s in SETTINGS}
    assert now.guild_id == GUILD


async def test_a_rematch_speaks_the_language_the_server_forced_since(bot: LiveBot) -> None:
    """The server's admins forced French after the match: its rematch speaks French, as a new
    table there would."""
    tid = await finished_match(bot.store, played(2), seats=ALONE, locale="en")
    await bot.bot.poster.announce_end(await bot.bot.service.tables.load(tid))
    await bot.settle()
    await bot.command(ADMIN, "settings", language="fr")
    await bot.click(ANN, bot.public()[-1], RematchButton.id_for(tid, "offer"))
    new = await bot.store.active_in_channel(CHANNEL)
    assert new is not None and new != tid
    assert (await bot.bot.service.tables.load(new)).locale == "fr"


async def test_a_rematch_of_a_table_with_hints_offers_the_hint_button(bot: LiveBot) -> None:
    tid = await finished_match(bot.store, played(2), hints=True)  # two people: off by default
    await bot.bot.poster.announce_end(await bot.bot.service.tables.load(tid))
    await bot.settle()
    await bot.click(ANN, bot.public()[-1], RematchButton.id_for(tid, "offer"))
    await bot.click(BOB, bot.public()[-1], RematchButton.id_for(tid, "ready"))
    new = await bot.store.active_in_channel(CHANNEL)
    assert new is not None and new != tid
    now = await bot.bot.service.tables.load(new)
    person = next(u for u in (ANN, BOB) if now.seats[now.game.current].user == u.id)
    hand = bot.reply(await bot.click(person, bot.last_table_message(), f"kg:hand:{new}"))
    assert f"kg:hint:{new}:{now.version}" in hand.custom_ids()


@pytest.mark.parametrize("chosen", [None, False])
async def test_a_rematch_of_one_person_decides_hints_from_who_sits_at_it(
        bot: LiveBot, chosen: bool | None) -> None:
    """Ann and Bob played with hints left to the default (off: two people played); Bob is not
    ready, Ann starts the rematch with the AI seat: one person plays, so hints are on, as at
    any match of one person. Had Ann chosen hints off at /goblin new, they stay off."""
    # what its start decided: two people played
    tid = await finished_match(bot.store, played(2), hints=chosen, decided=False)
    old = await bot.bot.service.tables.load(tid)
    assert old.hints is False and old.hints_choice is chosen
    await bot.bot.poster.announce_end(old)
    await bot.settle()
    await bot.click(ANN, bot.public()[-1], RematchButton.id_for(tid, "offer"))
    await bot.click(ANN, bot.public()[-1], RematchButton.id_for(tid, "start"))
    new = await bot.store.active_in_channel(CHANNEL)
    assert new is not None and new != tid
    now = await bot.bot.service.tables.load(new)
    assert [s.user for s in now.seats if s.user is not None] == [ANN.id]
    assert now.hints is (chosen is None) and now.hints_choice is chosen
    while now.seats[now.game.current].user != ANN.id:  # the AI seat moves first
        await bot.settle()
        now = await bot.bot.service.tables.load(new)
    hand = bot.reply(await bot.click(ANN, bot.last_table_message(), f"kg:hand:{new}"))
    assert (f"kg:hint:{new}:{now.version}" in hand.custom_ids()) is (chosen is None)


async def test_rematch_clicked_by_two_at_once_posts_one_offer(bot: LiveBot) -> None:
    """Ann and Bob click Rematch at the same moment: one offer is posted, and Bob is told he
    is ready on it (its message says so), not that he posted an offer of his own."""
    three = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
             SeatInfo(user=BOB.id, name="Bob", hero="taia"),
             SeatInfo(user=EVE.id, name="Eve", hero="argentus"))
    tid = await finished_match(bot.store, played(2), seats=three)
    await bot.bot.poster.announce_end(await bot.bot.service.tables.load(tid))
    await bot.settle()
    final = bot.public()[-1]
    before = len(bot.public())
    button = resolve(final, RematchButton.id_for(tid, "offer"))
    ann = await bot.lb.click(bot._known(ANN), final, button)
    bob = await bot.lb.click(bot._known(BOB), final, button)
    await bot.handled(ann, bob)
    offers = [m for m in bot.public()[before:]
              if RematchButton.id_for(tid, "ready") in m.custom_ids()]
    assert len(offers) == 1, [bot.message(m).text() for m in offers]
    assert bot.said(ann) == ["Your rematch offer is posted in the channel."]
    assert bot.said(bob) == ["You are ready for the rematch."]
    assert "2 people are ready" in bot.message(offers[0]).text()
    assert (await bot.bot.service.rematches.offer_of(tid)).message_id == offers[0].id


async def test_a_rematch_goes_on_without_a_host_who_was_forgotten(bot: LiveBot) -> None:
    """Ann hosted the match and asked the bot to forget her: nobody can be ready in her
    place, so Bob's rematch starts without her (alone with the AI seat: at once), never kept
    waiting for "a forgotten player" or for her to start it."""
    tid, final = await ended(bot)
    await bot.bot.service.people.forget(ANN.id)
    ix = await bot.click(BOB, final, RematchButton.id_for(tid, "offer"))
    new = await bot.store.active_in_channel(CHANNEL)
    assert new is not None and f"has started: table #{new}" in bot.said(ix)[0]
    now = await bot.bot.service.tables.load(new)
    assert now.host_id == BOB.id
    assert [(s.user, s.ai) for s in now.seats] == [(BOB.id, False), (None, True)]


async def test_a_rematch_seats_nobody_forgotten_after_saying_they_were_ready(
        bot: LiveBot) -> None:
    """Ann offered the rematch, then asked the bot to forget her: once Bob is ready it starts
    with Bob and the AI seat, no seat held for her pseudonym."""
    tid, offer = await offered(bot)
    await bot.bot.service.people.forget(ANN.id)
    await bot.click(BOB, offer, RematchButton.id_for(tid, "ready"))
    new = await bot.store.active_in_channel(CHANNEL)
    assert new is not None and new != tid
    now = await bot.bot.service.tables.load(new)
    assert [(s.user, s.ai) for s in now.seats] == [(BOB.id, False), (None, True)]



async def test_a_rematch_offered_by_its_host_who_was_forgotten_may_still_be_started(
        bot: LiveBot) -> None:
    """Ann hosted the match of three people and an AI seat and offered the rematch, Bob said
    he was ready, then Ann asked the bot to forget her: Bob, ready and still playing, hosts
    the rematch and may start it with those who are ready (Eve need not come back for it),
    as Ann could before."""
    seats = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
             SeatInfo(user=BOB.id, name="Bob", hero="taia"),
             SeatInfo(user=EVE.id, name="Eve", hero="argentus"),
             SeatInfo(ai=True, hero="xanros", level="easy"))
    tid = await finished_match(bot.store, played(2, ("horan", "taia", "argentus", "xanros")),
                               seats=seats)
    await bot.bot.poster.announce_end(await bot.bot.service.tables.load(tid))
    await bot.settle()
    final = bot.public()[-1]
    await bot.click(ANN, final, RematchButton.id_for(tid, "offer"))
    offer = bot.public()[-1]
    await bot.click(BOB, offer, RematchButton.id_for(tid, "ready"))
    await bot.bot.service.people.forget(ANN.id)
    ix = await bot.click(BOB, offer, RematchButton.id_for(tid, "start"))
    new = await bot.store.active_in_channel(CHANNEL)
    assert new is not None and new != tid, bot.said(ix)
    now = await bot.bot.service.tables.load(new)
    assert now.host_id == BOB.id
    assert [(s.user, s.ai) for s in now.seats] == [(BOB.id, False), (None, True)]


async def test_a_rematch_offered_by_someone_forgotten_is_hosted_by_one_who_plays_it(
        bot: LiveBot) -> None:
    """Ann hosted the match and offered the rematch, then asked the bot to forget her: the
    rematch Bob then starts by saying he is ready is his to host, never her pseudonym's
    (nobody could close it but the channel's managers)."""
    tid, offer = await offered(bot)
    await bot.bot.service.people.forget(ANN.id)
    await bot.click(BOB, offer, RematchButton.id_for(tid, "ready"))
    new = await bot.store.active_in_channel(CHANNEL)
    assert new is not None and new != tid
    assert (await bot.bot.service.tables.load(new)).host_id == BOB.id


async def test_an_open_offer_is_drawn_again_without_a_person_forgotten(bot: LiveBot) -> None:
    """Ann offered a rematch of her match with Bob and Eve, Bob said he was ready, then Bob
    asked the bot to forget him: the offer's message is drawn again at once (not at the next
    click on it), with him neither mentioned nor counted ready (he will not play it), still
    waiting for Eve; Eve forgotten too, it waits for nobody and Ann may start it."""
    seats = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
             SeatInfo(user=BOB.id, name="Bob", hero="taia"),
             SeatInfo(user=EVE.id, name="Eve", hero="argentus"),
             SeatInfo(ai=True, hero="xanros", level="easy"))
    tid = await finished_match(bot.store, played(2, ("horan", "taia", "argentus", "xanros")),
                               seats=seats)
    await bot.bot.poster.announce_end(await bot.bot.service.tables.load(tid))
    await bot.settle()
    await bot.click(ANN, bot.public()[-1], RematchButton.id_for(tid, "offer"))
    offer = bot.public()[-1]
    await bot.click(BOB, offer, RematchButton.id_for(tid, "ready"))
    assert f"2 people are ready: <@{ANN.id}>, <@{BOB.id}>" in bot.message(offer).text()
    assert "deleted" in await forget_me(bot, BOB)
    text = bot.message(offer).text()
    assert f"<@{BOB.id}>" not in text and "<@-" not in text, text
    assert f"1 person is ready: <@{ANN.id}>\n" in text, text
    assert f"Still waiting for: <@{EVE.id}>" in text, text
    assert "deleted" in await forget_me(bot, EVE)
    text = bot.message(offer).text()
    assert f"<@{EVE.id}>" not in text and "waiting for" not in text, text
    assert bot.message(offer).custom_ids() == [RematchButton.id_for(tid, "ready"),
                                               RematchButton.id_for(tid, "start")]
    await bot.click(ANN, offer, RematchButton.id_for(tid, "start"))
    new = await bot.store.active_in_channel(CHANNEL)
    assert new is not None and new != tid


async def test_a_damaged_offer_hurts_only_its_own_match(bot: LiveBot, clock: Clock,
                                                        tmp_path: Path) -> None:
    """An offer whose row is damaged in the database: a click on it is told so privately, and
    the timers' pass still lapses every other offer and goes on to its other sweeps (the
    tournaments' pass, the message edits tried again)."""
    first, damaged = await offered(bot)
    second, offer = await offered(bot)
    with closing(sqlite3.connect(tmp_path / "k.db")) as con, con:  # the bot fixture's file
        con.execute("UPDATE rematches SET ready = '[Ann' WHERE table_id = ?", (first,))
    ix = await bot.click(BOB, damaged, RematchButton.id_for(first, "ready"))
    assert f"rematch offer of match #{first} is damaged" in " ".join(bot.said(ix))
    clock.now += LAPSE + 1
    for _ in range(2):
        assert await bot.bot.scheduler._timer_pass()
    assert not bot.message(offer).custom_ids() and "has lapsed" in bot.message(offer).text()
    assert bot.message(damaged).custom_ids()  # nothing of it can be read to be drawn
    assert second != first


async def test_a_ready_answered_late_leaves_a_started_rematch_s_offer_without_buttons(
        bot: LiveBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bob says he is ready as Ann starts the rematch, and his answer is the slower to reach
    Discord (read before the start, sent after it): the offer still says the rematch started,
    with no Ready or Start left on it, never the open offer Bob's click read."""
    three = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
             SeatInfo(user=BOB.id, name="Bob", hero="taia"),
             SeatInfo(user=EVE.id, name="Eve", hero="argentus"))
    tid = await finished_match(bot.store, played(2), seats=three)
    await bot.bot.poster.announce_end(await bot.bot.service.tables.load(tid))
    await bot.settle()
    await bot.click(ANN, bot.public()[-1], RematchButton.id_for(tid, "offer"))
    offer = bot.public()[-1]
    rematches = bot.bot.service.rematches
    ready = rematches.ready
    held: list[asyncio.Event] = []

    async def slow_answer(*args: Any) -> Any:
        state = await ready(*args)
        held.append(asyncio.Event())  # Bob's: read now, sent once Ann's answer is in
        await held[0].wait()
        return state

    monkeypatch.setattr(rematches, "ready", slow_answer)
    bob = await bot.lb.click(bot._known(BOB), offer, resolve(offer, RematchButton.id_for(
        tid, "ready")))
    while not held:
        await asyncio.sleep(0.01)
    ann = await bot.lb.click(bot._known(ANN), offer, resolve(offer, RematchButton.id_for(
        tid, "start")))
    await ann.done()
    held[0].set()
    await bot.handled(bob, ann)
    new = await bot.store.active_in_channel(CHANNEL)
    assert new is not None and new != tid
    shown = bot.message(offer)
    assert f"table #{new}" in shown.text() and not shown.custom_ids(), shown.text()


async def test_a_rematch_click_drawn_after_a_language_change_leaves_the_new_language(
        bot: LiveBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bob clicks Rematch on an open offer as the server's admins force French: his click read
    the offer in English, and its redraw is the slower to reach Discord, after the language
    change's own redraw. The offer ends in French, never drawn over by the English one."""
    three = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
             SeatInfo(user=BOB.id, name="Bob", hero="taia"),
             SeatInfo(user=EVE.id, name="Eve", hero="argentus"))
    tid = await finished_match(bot.store, played(2), seats=three, locale="en")
    await bot.bot.poster.announce_end(await bot.bot.service.tables.load(tid))
    await bot.settle()
    final = bot.public()[-1]
    await bot.click(ANN, final, RematchButton.id_for(tid, "offer"))
    offer = bot.public()[-1]
    assert "Everyone keeps their hero" in offer.text()
    pace = bot.bot.messages.pace
    request = pace.request
    reached, go = asyncio.Event(), asyncio.Event()

    async def held_once(*args: Any) -> Any:
        if not reached.is_set():  # Bob's redraw: read now, sent once the language changed
            reached.set()
            await go.wait()
        return await request(*args)

    monkeypatch.setattr(pace, "request", held_once)
    bob = await bot.lb.click(bot._known(BOB), final, resolve(final, RematchButton.id_for(
        tid, "offer")))
    await reached.wait()
    admin = await bot.lb.command(bot._known(ADMIN), bot.channel, "goblin settings",
                                 language="fr")
    await admin.answered(20)
    await bot.settle(but=("discord-ui-dynamic-item-RematchButton", "offer-"))
    go.set()
    await bot.handled(bob, admin)
    shown = bot.message(offer).text()
    assert "Chacun garde son héros" in shown, shown


async def test_a_ready_click_answered_after_a_language_change_shows_the_new_language(
        bot: LiveBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bob says he is ready as the server's admins force French, and his answer is the slower
    to reach Discord (read before the change, sent after it): the offer it redraws speaks
    French, as the language change's redraw did."""
    three = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
             SeatInfo(user=BOB.id, name="Bob", hero="taia"),
             SeatInfo(user=EVE.id, name="Eve", hero="argentus"))
    tid = await finished_match(bot.store, played(2), seats=three, locale="en")
    await bot.bot.poster.announce_end(await bot.bot.service.tables.load(tid))
    await bot.settle()
    await bot.click(ANN, bot.public()[-1], RematchButton.id_for(tid, "offer"))
    offer = bot.public()[-1]
    rematches = bot.bot.service.rematches
    ready = rematches.ready
    reached, go = asyncio.Event(), asyncio.Event()

    async def slow_answer(*args: Any) -> Any:
        state = await ready(*args)
        reached.set()
        await go.wait()
        return state

    monkeypatch.setattr(rematches, "ready", slow_answer)
    bob = await bot.lb.click(bot._known(BOB), offer, resolve(offer, RematchButton.id_for(
        tid, "ready")))
    await reached.wait()
    admin = await bot.lb.command(bot._known(ADMIN), bot.channel, "goblin settings",
                                 language="fr")
    await admin.answered(20)
    await bot.settle(but="discord-ui-dynamic-item-RematchButton")
    assert "Chacun garde son héros" in bot.message(offer).text()
    go.set()
    await bot.handled(bob, admin)
    shown = bot.message(offer).text()
    assert "Chacun garde son héros" in shown, shown
