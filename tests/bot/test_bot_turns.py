"""Slow matches: a 3-day turn timer (its deadline stored, the time left said in English, French
and Czech, the AI playing once it runs out on the injected clock), ``/goblin turns`` listing a
person's matches on two servers and in direct messages (their move first, then others', with
links, time left and who plays; another person sees none of them; long lists turn pages, and a
forged page button is refused privately; a match the limit counts though the AI plays the
person's seat listed apart) and ``/goblin notify`` kept and answered."""
from __future__ import annotations

from dataclasses import replace

import pytest
from live_bot import CHANNEL, GUILD, LiveBot, table_id
from players import ANN, BOB, EVE, forged_message, open_table, raw_click
from storage.helpers import Clock, played

from bot.discord_side.ui.custom_ids import LobbyButton, TurnsButton
from bot.game.limits import MATCH_LIMIT
from bot.game.places import Place
from bot.game.play import MAX_TIMEOUTS
from bot.game.texts import timer_text
from bot.game.turns import PER_PAGE, TurnList, TurnRow, page_text
from bot.storage.records import SeatInfo
from i18n import translate
from loopback import Channel, User

THREE_DAYS = 3 * 86400
HOUR = 3600
#: Someone who sits at none of the tables.
DAN = replace(EVE, id=EVE.id + 100, name="Dan")


def people(*who: tuple[int, str]) -> tuple[SeatInfo, ...]:
    """The seats of the game of seed 1 (three heroes): people (id, name), then the AI."""
    heroes = ("horan", "taia", "argentus")
    return tuple(SeatInfo(user=who[i][0], name=who[i][1], hero=hero) if i < len(who)
                 else SeatInfo(ai=True, hero=hero, level="easy") for i, hero in enumerate(heroes))


async def running(bot: LiveBot, seats: tuple[SeatInfo, ...], channel: int, guild: int | None,
                  host: int, deadline: float | None, message: int | None = None) -> int:
    """A running table (the game of seed 1 of ``seats``' heroes at its start: seat 0 to move)
    stored as the bot stores one; its id."""
    state = played(1, tuple(s.hero for s in seats)).states[0]
    rec = await bot.store.create_table(
        guild_id=guild, place_key=Place.of(guild, host).key, channel_id=channel, host_id=host,
        seats=seats, abilities=False, timer=THREE_DAYS if deadline else 0,
        seed=state.config.seed)
    await bot.store.start_game(rec.id, seats, state, deadline)
    if message is not None:
        await bot.store.set_message(rec.id, message_id=message)
    return rec.id


async def turns_text(bot: LiveBot, user: User, channel: Channel | None = None) -> str:
    """What ``user`` is shown by /goblin turns (in ``channel``: the bot's channel if None)."""
    ix = await bot.command(user, "turns", channel=channel)
    reply = bot.reply(ix)
    assert reply.owner == user.id  # private
    return reply.text()


async def test_a_three_day_timer_is_stored_said_and_runs_out(bot: LiveBot,
                                                             clock: Clock) -> None:
    start = clock.now
    tid = await open_table(bot, ANN, [BOB], timer=THREE_DAYS)
    rec = await bot.bot.service.tables.load(tid)
    assert rec.timer == THREE_DAYS and rec.deadline == start + THREE_DAYS
    mover = ANN if rec.seats[rec.game.current].user == ANN.id else BOB
    # the table message says when the turn ends in each reader's language and time zone
    assert f"<t:{int(rec.deadline)}:R> (<t:{int(rec.deadline)}:f>)" in \
        bot.last_table_message().text()
    assert "3 days left" in await turns_text(bot, mover)
    clock.now = start + 26 * HOUR + 5 * 60
    assert "1 day 21\u00a0h left" in await turns_text(bot, mover)
    clock.now = rec.deadline - 1
    await bot.bot.scheduler.check_timers()  # not due yet: nothing happens
    assert (await bot.bot.service.tables.load(tid)).version == rec.version
    assert "less than a minute left" in await turns_text(bot, mover)
    clock.now = rec.deadline + 1
    await bot.bot.scheduler.check_timers()
    await bot.settle()
    after = await bot.bot.service.tables.load(tid)
    assert after.version > rec.version
    assert after.seats[rec.game.current].timeouts == 1  # the AI played the timed-out turn
    assert any("Time is up" in m.text() for m in bot.lb.messages.values()
               if m.channel_id == bot.channel.id)


@pytest.mark.parametrize("left, en, fr, cs", [
    (THREE_DAYS, "3 days left", "il reste 3 jours", "zbývají 3 dny"),
    (2 * 86400 + 3 * HOUR + 59, "2 days 3 h left", "il reste 2 jours 3 h", "zbývají 2 dny 3 h"),
    (86400 + HOUR, "1 day 1 h left", "il reste 1 jour 1 h", "zbývá 1 den 1 h"),
    (5 * 86400, "5 days left", "il reste 5 jours", "zbývá 5 dní"),
    (5 * HOUR + 20 * 60, "5 h 20 min left", "il reste 5 h 20 min", "zbývá 5 h 20 min"),
    (2 * 60, "2 min left", "il reste 2 min", "zbývají 2 min"),
    (30, "less than a minute left", "il reste moins d'une minute", "zbývá méně než minuta"),
    (-5, "time is up", "le temps est écoulé", "čas vypršel"),
])
def test_the_time_left_is_said_in_each_language(left: float, en: str, fr: str,
                                                cs: str) -> None:
    row = TurnRow(7, "https://discord.com/channels/@me/1/2", True, left, ("Bob",), "Ann")
    for locale, said in (("en", en), ("fr", fr), ("cs", cs)):
        text = page_text(TurnList((row,), ()), 0, locale).replace("\u00a0", " ")
        assert said in text, (locale, text)


async def test_turns_lists_two_servers_and_direct_messages(bot: LiveBot,
                                                           clock: Clock) -> None:
    now = clock.now
    other = bot.lb.create_guild("Elsewhere", guild_id=GUILD + 7)
    elsewhere = bot.lb.create_channel(other, "secret-den")
    ann_dms = bot.lb.dm(ANN)
    await bot.settle()
    here = await running(bot, people((ANN.id, "Ann"), (BOB.id, "Bob")), CHANNEL, GUILD,
                         ANN.id, now + 2 * 86400 + 3 * HOUR, message=555)
    there = await running(bot, people((BOB.id, "Bob"), (ANN.id, "Ann")), elsewhere.id,
                          GUILD + 7, BOB.id, now + 5 * HOUR, message=777)
    solo = await running(bot, people((ANN.id, "Ann")), ann_dms.id, None, ANN.id, None)
    soon = await running(bot, people((ANN.id, "Ann"), (EVE.id, "Eve")), CHANNEL + 1, GUILD,
                         ANN.id, now + HOUR, message=999)

    text = await turns_text(bot, ANN, elsewhere)
    mine, waiting = text.split("Waiting for others")
    assert "Your move** (3 matches)" in mine
    assert mine.index(f"Table #{soon}") < mine.index(f"Table #{here}") < mine.index(
        f"Table #{solo}")  # least time left first; no timer last
    assert f"(https://discord.com/channels/{GUILD}/{CHANNEL}/555) against 2 opponents, Bob and " \
           "Argentus (AI): 2 days 3\u00a0h left." in mine
    assert f"(https://discord.com/channels/@me/{ann_dms.id}) against 2 opponents, Taia (AI) " \
           "and Argentus (AI): no turn timer." in mine
    assert f"(https://discord.com/channels/{GUILD + 7}/{elsewhere.id}/777): waiting for Bob, " \
           "5\u00a0h left." in waiting
    assert "secret-den" not in text and "Elsewhere" not in text  # links, never names

    bob = await turns_text(bot, BOB, bot.lb.dm(BOB))
    bob_mine, bob_waiting = bob.split("Waiting for others")
    assert f"Table #{there}" in bob_mine and f"Table #{here}" in bob_waiting
    assert f"Table #{solo}" not in bob and f"Table #{soon}" not in bob
    assert "You sit in no running match" in await turns_text(bot, DAN)


async def test_czech_names_one_opponent_in_the_singular_and_two_counted(
        bot: LiveBot, clock: Clock) -> None:
    """Czech "soupeři" (opponents) said of a single one was wrong: a match against one person
    says "soupeř", one against two says "2 soupeři", also where the AI plays the seat."""
    jana = User(ANN.id, "Jana", locale="cs")
    one = await running(bot, people((ANN.id, "Jana"), (BOB.id, "Bob"))[:2], CHANNEL, GUILD,
                        ANN.id, clock.now + HOUR, message=555)
    two = await running(bot, people((ANN.id, "Jana"), (BOB.id, "Bob")), CHANNEL + 1, GUILD,
                        ANN.id, clock.now + 2 * HOUR, message=556)
    hosted = (SeatInfo(user=ANN.id, name="Jana", hero="horan", ai=True, level="normal"),
              SeatInfo(user=BOB.id, name="Bob", hero="taia"))
    alone = await running(bot, hosted, CHANNEL + 2, GUILD, ANN.id, None, message=557)
    text = (await turns_text(bot, jana)).replace("\u00a0", " ")
    link = f"https://discord.com/channels/{GUILD}"
    assert f"[Stůl č. {one}]({link}/{CHANNEL}/555), soupeř: Bob; zbývá 1 h." in text, text
    assert f"[Stůl č. {two}]({link}/{CHANNEL + 1}/556), 2 soupeři: Bob a Argentus (AI); " \
           "zbývají 2 h." in text, text
    assert f"[Stůl č. {alone}]({link}/{CHANNEL + 2}/557): za vás hraje AI, soupeř: Bob." \
           in text, text
    assert "soupeři: Bob;" not in text and "soupeři: Bob." not in text


async def test_a_long_list_turns_pages_for_its_person_only(bot: LiveBot, clock: Clock) -> None:
    count = PER_PAGE + 3
    for i in range(count):
        await running(bot, people((ANN.id, "Ann"), (BOB.id, "Bob")), CHANNEL + 10 + i, GUILD,
                      ANN.id, clock.now + (i + 1) * HOUR)
    ix = await bot.command(ANN, "turns")
    first = bot.reply(ix)
    assert "Page 1 of 2." in first.text() and "Your move** (15 matches)" in first.text()
    ids = first.custom_ids()
    assert ids == [TurnsButton.id_for(ANN.id, 0), TurnsButton.id_for(ANN.id, 1)]
    await bot.click(ANN, first, TurnsButton.id_for(ANN.id, 1))
    second = bot.message(first)
    assert "Page 2 of 2." in second.text() and second.text().count("- [Table #") == 3
    # someone else's list, through a forged button: refused privately
    cid = TurnsButton.id_for(ANN.id, 0)
    told = await raw_click(bot, BOB, forged_message(bot, BOB, cid), cid, 2)
    assert told == ["This list belongs to someone else: ask for your own with /goblin turns."]
    # a page past the end (the list got shorter): the last page
    cid = TurnsButton.id_for(ANN.id, 9)
    planted = forged_message(bot, ANN, cid)
    await raw_click(bot, ANN, planted, cid, 2)
    assert "Page 2 of 2." in bot.message(planted).text()
    # an unreadable one (page field broken) is answered too, privately
    cid = f"{TurnsButton.prefix}0:1"
    assert await raw_click(bot, ANN, forged_message(bot, ANN, cid), cid, 2)


async def test_notify_is_kept_and_answered(bot: LiveBot) -> None:
    ix = await bot.command(ANN, "notify")
    assert bot.said(ix) == ["Direct-message reminders of your turns are off. Turn them on "
                            "with /goblin notify on."]
    ix = await bot.command(ANN, "notify", state="on")
    assert bot.reply(ix).owner == ANN.id
    assert bot.said(ix) == ["From now on, the bot may send you a direct message when your "
                            "turn waits in a slow match."]
    assert await bot.store.notify_wanted([ANN.id, BOB.id]) == {ANN.id}
    ix = await bot.command(ANN, "notify", state="off", channel=bot.lb.dm(ANN))
    assert "will not send you direct messages" in bot.said(ix)[0]
    assert await bot.store.notify_wanted([ANN.id]) == set()
    french = replace(BOB, locale="fr")
    ix = await bot.command(french, "notify", state="on")
    assert bot.said(ix)[0].startswith("Désormais")


@pytest.mark.parametrize("timer, en, fr, cs", [
    (28800, "8\u00a0h", "8\u00a0h", "8\u00a0h"), (86400, "1 day", "1 jour", "1 den"),
    (THREE_DAYS, "3 days", "3 jours", "3 dny"), (7 * 86400, "7 days", "7 jours", "7 dní"),
    (600, "10\u00a0min", "10\u00a0min", "10\u00a0min"),
])
def test_a_timer_is_said_in_days_and_hours(timer: int, en: str, fr: str, cs: str) -> None:
    for locale, said in (("en", en), ("fr", fr), ("cs", cs)):
        assert translate(timer_text(timer), locale) == said


def test_the_list_s_headings_agree_with_their_counts() -> None:
    rows = tuple(TurnRow(i, "l", True, None, ("Bob",), "Ann") for i in range(1, 3))
    wait = (TurnRow(9, "l", False, 60.0, ("Bob",), "Bob"),)
    text = page_text(TurnList(rows, wait), 0, "cs")
    assert "Jste na tahu** (2 hry)" in text and "Čeká se na ostatní** (1 hra)" in text


async def test_turns_lists_each_match_the_limit_counts_a_match_left_to_the_ai_marked(
        bot: LiveBot) -> None:
    """Ann plays as many matches at once as the bot allows, one of them a match she still hosts
    though the AI plays her seat (planted with Bob to move, so that it waits: left to the AI
    alone, it would play on to its end meanwhile): her next
    Start is refused, pointing to /goblin turns, and /goblin turns lists that match too, marked,
    saying the AI plays her seat and how to end it; Bob's list shows it as his match."""
    tables = [await running(bot, people((ANN.id, "Ann"), (BOB.id, "Bob")), CHANNEL + 10 + i,
                            GUILD, ANN.id, None) for i in range(MATCH_LIMIT - 1)]
    seats = people((BOB.id, "Bob"), (ANN.id, "Ann"))  # Bob to move, the AI in Ann's seat
    seats = (seats[0], seats[1].model_copy(update={"ai": True, "level": "normal"}), seats[2])
    left = await running(bot, seats, CHANNEL + 30, GUILD, ANN.id, None, message=4242)
    assert await bot.bot.service.limit.playing(ANN.id) == MATCH_LIMIT
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    await bot.click(ANN, lobby, LobbyButton.id_for(tid, "ai", None))
    refused = bot.said(await bot.click(ANN, bot.lb.message(lobby.id),
                                       LobbyButton.id_for(tid, "start", None)))
    assert refused[0].startswith(f"You already play {MATCH_LIMIT} matches")
    assert "/goblin turns lists yours" in refused[0]

    text = await turns_text(bot, ANN)
    assert all(f"Table #{t}" in text for t in [*tables, left]), text
    mine, ai_plays = text.split("The AI plays your seat")
    assert f"Table #{left}" not in mine and "(1 match)" in ai_plays
    assert f"(https://discord.com/channels/{GUILD}/{CHANNEL + 30}/4242): the AI plays your " \
           "seat against 2 opponents, Bob and Argentus (AI)." in ai_plays
    assert "You no longer play this match, but you still host it" in ai_plays
    assert "/goblin abandon" in ai_plays
    bob = await turns_text(bot, BOB)
    assert f"Table #{left}" in bob.split("Waiting for others")[0]  # his move there
    assert "The AI plays your seat" not in bob
    for language, heading, note in (
            ("fr", "L'IA joue à votre place** (1 partie)", "Vous ne jouez plus cette partie"),
            ("cs", "Za vás hraje AI** (1 hra)", "Tuto hru už nehrajete")):
        said = await turns_text(bot, replace(ANN, locale=language))
        assert heading in said and f"{left}" in said.split(heading)[1], (language, said)
        assert note in said.split(heading)[1], (language, said)


async def test_a_host_timed_out_for_good_hands_the_host_s_role_to_who_plays_on(
        bot: LiveBot, clock: Clock) -> None:
    """Ann hosts a match with Bob and her turn timer runs out a second time: the AI takes her
    seat for good and, as when she leaves it, Bob, who plays on, now hosts the match: it no
    longer counts among Ann's matches nor shows in her list, and Bob may end it."""
    state = played(1).states[0]
    seats = people((ANN.id, "Ann"), (BOB.id, "Bob"))  # Ann to move
    seats = (seats[0].model_copy(update={"timeouts": MAX_TIMEOUTS - 1}), *seats[1:])
    rec = await bot.store.create_table(
        guild_id=GUILD, place_key=Place.of(GUILD, ANN.id).key, channel_id=CHANNEL,
        host_id=ANN.id, seats=seats, abilities=False, timer=60, seed=state.config.seed)
    await bot.store.start_game(rec.id, seats, state, clock.now + 60)
    await bot.settle()
    clock.now += 61
    await bot.bot.scheduler.check_timers()
    await bot.settle()
    after = await bot.bot.service.tables.load(rec.id)
    assert after.seats[0].ai and after.status == "running"
    assert after.host_id == BOB.id
    assert await bot.bot.service.limit.playing(ANN.id) == 0
    assert f"Table #{rec.id}" not in await turns_text(bot, ANN)
