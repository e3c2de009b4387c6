"""Slow matches remind people: at a 3-day timer, the table message posted when a person's turn
starts pings them; after a quarter of their time (18 h) one direct message goes to them if they
asked for reminders (a link to the table message, the time left), never a second one for that
turn; none when they did not ask, none when they clicked the table during their turn; a person
whose direct messages are closed (403, 50007) is noted once and never tried again; a reminder
due while the bot was stopped goes out once after it starts again."""
from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from live_bot import CHANNEL, GUILD, Call, LiveBot
from players import ADMIN, ANN, BOB, EVE, TinyRenderer, open_table
from storage.helpers import Clock

from bot.discord_side.ui.custom_ids import HandButton, LogButton
from bot.storage.core.reminders import CLOSED
from loopback import Loopback, Message, User

THREE_DAYS = 3 * 86400
HOUR = 3600


async def slow_match(bot: LiveBot, clock: Clock, notify: bool = True) -> tuple[int, User]:
    """A 3-day match of Ann and Bob whose players asked for reminders (or not); its id and
    who plays first."""
    for who in (ANN, BOB):
        await bot.command(who, "notify", state="on" if notify else "off")
    tid = await open_table(bot, ANN, [BOB], timer=THREE_DAYS)
    rec = await bot.bot.service.tables.load(tid)
    mover = ANN if rec.seats[rec.game.current].user == ANN.id else BOB
    return tid, mover


def dms(bot: LiveBot, user: User) -> list[Message]:
    """The bot's messages in its direct messages with ``user``."""
    channel = bot.lb.dm(user)
    return [m for m in bot.lb.messages.values() if m.channel_id == channel.id and m.author.bot]


async def remind(bot: LiveBot) -> None:
    """One pass of the reminders' loop, and what it sent."""
    await bot.bot.reminders.send_due()
    await bot.settle()


async def test_a_slow_turn_pings_then_reminds_once_after_a_quarter(bot: LiveBot,
                                                                   clock: Clock) -> None:
    start = clock.now
    tid, mover = await slow_match(bot, clock)
    table = bot.last_table_message()
    assert f"<@{mover.id}>" in table.text() and table.mentions == [mover.id]  # the ping
    clock.now = start + 18 * HOUR - 60
    await remind(bot)
    assert dms(bot, mover) == []  # not due yet
    clock.now = start + 18 * HOUR + 5
    await remind(bot)
    [sent] = dms(bot, mover)
    text = sent.text()
    assert f"table #{tid}" in text and "2 days 5\u00a0h left" in text
    assert f"https://discord.com/channels/{GUILD}/{CHANNEL}/{table.id}" in text
    clock.now += 6 * HOUR
    await remind(bot)
    assert len(dms(bot, mover)) == 1  # never two per turn
    other = BOB if mover is ANN else ANN
    assert dms(bot, other) == []  # not their turn


async def test_the_loop_passes_when_the_next_reminder_falls_due(bot: LiveBot,
                                                                clock: Clock) -> None:
    """The loop's next pass is when the next reminder falls due, not its poll later (many
    reminders due in one minute all go out within it); it takes one at once when the clock
    jumps."""
    reminders = bot.bot.reminders
    start = clock.now
    await slow_match(bot, clock)
    clock.now = start + 18 * HOUR - 60
    await remind(bot)
    assert reminders.pause() == pytest.approx(60.0)  # due in a minute: the poll is an hour
    clock.now += 45
    assert reminders.pause() == pytest.approx(15.0)
    clock.now += 30
    assert reminders.pause() == 0.0  # overdue: a pass at once
    await remind(bot)
    assert reminders.pause() == reminders.poll  # nothing more to come


async def test_a_jump_of_the_clock_sends_what_fell_due_at_once(bot: LiveBot,
                                                                 clock: Clock) -> None:
    """The playground's clock control jumps the bot's clock hours on: a pass is taken then,
    not at the loop's next one."""
    start = clock.now
    _, mover = await slow_match(bot, clock)
    await remind(bot)  # the loop's pass: the reminder is due in 18 h, it rests till then
    clock.now = start + 19 * HOUR
    bot.bot.clock_moved()
    await bot.settle()
    assert len(dms(bot, mover)) == 1


async def test_no_reminder_for_someone_who_did_not_ask(bot: LiveBot, clock: Clock) -> None:
    start = clock.now
    _, mover = await slow_match(bot, clock, notify=False)
    clock.now = start + 19 * HOUR
    await remind(bot)
    assert dms(bot, mover) == []


async def test_no_reminder_for_someone_active_in_their_turn(bot: LiveBot, clock: Clock) -> None:
    start = clock.now
    tid, mover = await slow_match(bot, clock)
    clock.now = start + 2 * HOUR
    await remind(bot)  # a pass of the loop (every few seconds) knows the slow matches
    await bot.click(mover, bot.last_table_message(), LogButton.id_for(tid))  # they looked
    await bot.settle()
    clock.now = start + 19 * HOUR
    await remind(bot)
    assert dms(bot, mover) == []


async def test_a_click_at_a_slow_match_while_the_database_is_away_is_answered_with_a_warning(
        bot: LiveBot, clock: Clock, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The click is answered as any click is while the database is out of reach; that it
    could not be noted (one write of each click at a slow match) is a warning, without a
    traceback, as the database's other troubles are, not an error."""
    from database_away import cut_file

    tid, mover = await slow_match(bot, clock)
    await remind(bot)  # a pass of the loop knows the slow match: its clicks are noted
    with cut_file(tmp_path / "k.db"):
        ix = await bot.click(mover, bot.last_table_message(), LogButton.id_for(tid))
    assert bot.said(ix), "the click got a private answer"
    found = [r for r in caplog.records if "could not note a click" in r.getMessage()]
    assert [(r.levelname, r.exc_info) for r in found] == [("WARNING", None)]


async def test_no_reminder_for_someone_who_opened_their_hand_as_the_match_began(
        bot: LiveBot, clock: Clock) -> None:
    """The first player, pinged as the slow match starts, opens their hand at once (before
    the reminders' loop passes again and finds the match running): they were active."""
    start = clock.now
    tid, mover = await slow_match(bot, clock)
    clock.now += 5
    await bot.click(mover, bot.last_table_message(), HandButton.id_for(tid))
    await bot.settle()
    clock.now = start + 19 * HOUR
    await remind(bot)
    assert dms(bot, mover) == []


async def test_closed_direct_messages_are_noted_once(bot: LiveBot, clock: Clock,
                                                     calls: list[Call]) -> None:
    start = clock.now
    shy = [replace(EVE, id=EVE.id + 200 + i, name=f"Shy{i}", dms_open=False) for i in (0, 1)]
    for who in shy:  # whoever plays first has their direct messages closed
        bot.lb.users[who.id] = who
        await bot.command(who, "notify", state="on")
    tid = await open_table(bot, shy[0], [shy[1]], timer=THREE_DAYS)
    rec = await bot.bot.service.tables.load(tid)
    mover = rec.seats[rec.game.current].user
    clock.now = start + 19 * HOUR
    since = len(calls)
    await remind(bot)
    refused = [c for c in calls[since:] if c.method == "POST" and c.path.endswith("/messages")]
    assert [c.status for c in refused] == [403]  # tried once: Discord says 50007
    assert all(dms(bot, who) == [] for who in shy)
    assert await bot.store.dms_closed([who.id for who in shy]) == {mover}
    assert list((await bot.store.reminders_of([tid])).values()) == [CLOSED]
    since = len(calls)
    clock.now += 3 * HOUR
    await remind(bot)  # never tried again
    assert [c for c in calls[since:] if c.method == "POST"] == []
    person = next(who for who in shy if who.id == mover)
    ix = await bot.command(person, "notify")
    assert "looked closed" in bot.reply(ix).text()  # told when they ask
    ix = await bot.command(person, "notify", state="on")  # asking again tries once more
    assert "looked closed" in bot.reply(ix).text()
    assert await bot.store.dms_closed([mover]) == set()


async def test_a_reminder_due_while_stopped_goes_out_once_after_a_restart(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    db = tmp_path / "k.db"
    start = clock.now
    bot = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        _, mover = await slow_match(bot, clock)
    finally:
        await bot.stop()
    clock.now = start + 20 * HOUR
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await remind(again)
        await remind(again)
        assert len(dms(again, mover)) == 1
    finally:
        await again.stop()
    third = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await remind(third)
        assert len(dms(third, mover)) == 1  # recorded: not sent again after a restart
    finally:
        await third.stop()


async def test_no_reminder_of_a_turn_whose_time_ran_out_while_stopped(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """The bot was stopped past a turn's deadline: the AI plays that turn at the next pass of
    the timers; its person gets no direct message "time is up" about it first."""
    db = tmp_path / "k.db"
    start = clock.now
    bot = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        for who in (ANN, BOB):
            await bot.command(who, "notify", state="on")
        await open_table(bot, ANN, [BOB], timer=8 * HOUR)
    finally:
        await bot.stop()
    clock.now = start + 9 * HOUR
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await remind(again)  # the loop's first pass, before the timers' first one
        assert dms(again, ANN) == [] and dms(again, BOB) == []
    finally:
        await again.stop()


@pytest.mark.parametrize("opening", [True, False], ids=["opening", "posting"])
async def test_a_reminder_cut_off_by_the_network_before_it_was_sent_goes_out_later(
        bot: LiveBot, clock: Clock, opening: bool) -> None:
    """The connection fails as the bot opens the direct messages of the person to remind, or
    before its request to post there went out (nothing was sent): the next pass sends the
    reminder, once; no failure is reported."""
    import aiohttp

    start = clock.now
    _, mover = await slow_match(bot, clock)
    clock.now = start + 19 * HOUR
    session: Any = bot.bot.http._HTTPClient__session  # type: ignore[attr-defined]
    real = session.request
    cut: list[str] = []
    where = "/users/@me/channels" if opening else f"/channels/{bot.lb.dm(mover).id}/messages"

    def request(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        if method == "POST" and str(url).endswith(where):
            cut.append(str(url))
            raise aiohttp.ServerDisconnectedError()
        return real(method, url, *args, **kwargs)

    session.request = request
    try:
        await remind(bot)
    finally:
        session.request = real
    assert cut and dms(bot, mover) == []
    clock.now += 60
    await remind(bot)
    await remind(bot)
    assert len(dms(bot, mover)) == 1


async def test_reminders_cut_off_by_a_stop_go_out_once_after_the_restart(
        lb: Loopback, tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many reminders fell due at once (the bot was stopped): the first direct message is held
    up by Discord's rate limit when the bot is stopped again (SIGTERM). What was sent is not
    sent again, and what was not (the held one, and any not begun) goes out after the next
    start: each reminder once."""
    import asyncio

    from bot.discord_side import client as client_module

    monkeypatch.setattr(client_module, "SHUTDOWN_GRACE", 0.5)
    db = tmp_path / "k.db"
    start = clock.now
    pairs = ((ANN, BOB), (BOB, EVE), (EVE, ANN))
    bot = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        for who in (ANN, BOB, EVE):
            await bot.command(who, "notify", state="on")
        movers: list[User] = []
        lobby = bot.bot.service.lobby
        for host, guest in pairs:
            where = lb.create_channel(bot.guild, f"{host.name} and {guest.name}")
            rec = await lobby.create(guild_id=bot.guild.id, channel_id=where.id,
                                     host_id=host.id, host_name=host.name, timer=THREE_DAYS)
            await lobby.join(rec.id, guest.id, guest.name)
            rec = await lobby.start(rec.id, host.id)
            movers.append(host if rec.seats[rec.game.current].user == host.id else guest)
    finally:
        await bot.stop()
    clock.now = start + 17 * HOUR
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        channels = {who.id: lb.dm(who).id for who in (ANN, BOB, EVE)}
        held = lb.inject_429(rf"^/channels/({'|'.join(map(str, channels.values()))})/messages$",
                             method="POST", count=1, retry_after=60.0)
        clock.now = start + 20 * HOUR
        again.bot.clock_moved()  # a pass, in the background: every reminder is due
        for _ in range(500):
            if held.hits:
                break
            await asyncio.sleep(0.01)
        [hit] = held.hits
        stuck = [m for m in movers if f"/channels/{channels[m.id]}/" in hit]
        others = len(movers) - len(stuck)
        for _ in range(500):  # the others go out meanwhile
            if sum(len(dms(again, who)) for who in (ANN, BOB, EVE)) == others:
                break
            await asyncio.sleep(0.01)
        await again.bot.close()  # SIGTERM, the held one still waiting out Discord's 429
    finally:
        await again.stop()
    assert sum(len(dms(again, who)) for who in (ANN, BOB, EVE)) == others
    lb.clock.advance(61)  # the restart comes after Discord's 429 is over
    third = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await remind(third)
        await remind(third)
        for who in (ANN, BOB, EVE):
            assert len(dms(third, who)) == movers.count(who), who.name
    finally:
        await third.stop()


async def test_no_reminder_for_someone_who_left_the_server_and_the_next_one_once_back(
        bot: LiveBot, clock: Clock, calls: list[Call]) -> None:
    """The person whose turn waits left the match's server (the bot hears nothing of it) and
    shares no other with the bot: Discord refuses the direct message, which is not taken for
    closed direct messages (the bot asks whether they are still a member, once a turn). Their
    turn is played by the turn timer, as anyone's who is away. Back in the server, they get the
    reminder of their next turn."""
    from players import Players

    start = clock.now
    tid, mover = await slow_match(bot, clock)
    other = BOB if mover is ANN else ANN
    bot.lb.leave_guild(bot.guild, mover)
    clock.now = start + 19 * HOUR
    since = len(calls)
    await remind(bot)
    assert dms(bot, mover) == []
    assert await bot.store.dms_closed([mover.id]) == set()
    await remind(bot)
    assert len([c for c in calls[since:] if "/members/" in c.path]) == 1  # asked once a turn
    bot.lb.join_guild(bot.guild, mover)
    clock.now = start + THREE_DAYS + 1  # their time is up: the AI plays their turn
    await bot.bot.scheduler.check_timers()
    await bot.settle()
    players = Players(bot, tid, [ANN, BOB])
    while (rec := await bot.bot.service.tables.load(tid)).seats[rec.game.current].user != mover.id:
        assert await players.step()  # the other plays their turn
    assert rec.deadline is not None
    clock.now = rec.deadline - THREE_DAYS + 19 * HOUR
    await remind(bot)
    assert len(dms(bot, mover)) == 1 and dms(bot, other) == []


@pytest.mark.parametrize("damaged", ["seat_seen", "reminders"])
async def test_a_damaged_reminder_row_holds_up_no_one_s_reminder(
        bot: LiveBot, clock: Clock, tmp_path: Path, damaged: str) -> None:
    """One damaged row of who clicked when, or of a reminder (a word where a number belongs):
    the pass of the reminders goes on, and the person whose turn waits is reminded."""
    start = clock.now
    tid, mover = await slow_match(bot, clock)
    other = BOB if mover is ANN else ANN
    clock.now = start + 2 * HOUR
    await remind(bot)  # a pass of the loop knows the slow match: its clicks are noted
    await bot.click(other, bot.last_table_message(), LogButton.id_for(tid))
    await bot.settle()
    with closing(sqlite3.connect(tmp_path / "k.db")) as con, con:  # the bot's database
        if damaged == "seat_seen":
            con.execute("UPDATE seat_seen SET seen_at = 'noon' WHERE user_id = ?", (other.id,))
        else:
            con.execute("INSERT INTO reminders (table_id, user_id, turn, due, state) "
                        "VALUES (?, ?, 'then', 0, 'sent')", (tid, other.id))
    clock.now = start + 19 * HOUR
    await remind(bot)
    assert len(dms(bot, mover)) == 1


@pytest.mark.parametrize(("client", "table", "says"), [
    ("fr", None, "Votre tour vous attend à la table n°"),  # a French person, an English table
    ("en-GB", "fr", "Your turn is waiting at table #"),  # an English person, a French table
    ("de", "fr", "Votre tour vous attend à la table n°"),  # a language the bot does not speak
])
async def test_a_reminder_speaks_its_person_s_own_language(
        bot: LiveBot, clock: Clock, monkeypatch: pytest.MonkeyPatch, client: str,
        table: str | None, says: str) -> None:
    """The person whose turn waits last used Discord in ``client``'s language (any command
    or click tells it; here /goblin turns, after /goblin notify in English): their reminder
    speaks it, whatever the table speaks (the server's language, or the one its admins forced),
    unless the bot speaks no such language: then the table's."""
    if table is not None:
        await bot.command(ADMIN, "settings", language=table)
    start = clock.now
    tid, mover = await slow_match(bot, clock)
    assert (await bot.bot.service.tables.load(tid)).locale == (table or "en")
    monkeypatch.setattr(mover, "locale", client)
    await bot.command(mover, "turns")
    clock.now = start + 18 * HOUR + 5
    await remind(bot)
    [sent] = dms(bot, mover)
    assert sent.text().startswith(says), sent.text()
    monkeypatch.undo()
    assert await bot.store.notify_locales([mover.id]) == {mover.id: client}


async def test_a_person_s_language_is_stored_only_when_it_changes(
        bot: LiveBot, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each interaction tells a person's language; it is written only when it differs from
    what is stored (read once, then kept in memory: no read either while it stays), and only
    for people who chose whether to get reminders (nobody else is reminded)."""
    writes: list[tuple[int, str]] = []
    reads: list[int] = []
    note, read = bot.store.note_locale, bot.store.notify_locales

    async def noted(user_id: int, locale: str) -> None:
        writes.append((user_id, locale))
        await note(user_id, locale)

    async def looked(user_ids: Any) -> dict[int, str | None]:
        reads.extend(user_ids)
        return await read(user_ids)

    monkeypatch.setattr(bot.store, "note_locale", noted)
    monkeypatch.setattr(bot.store, "notify_locales", looked)
    await bot.command(ANN, "notify", state="on")
    for _ in range(3):
        await bot.command(ANN, "turns")
        await bot.command(BOB, "turns")  # never chose: nothing stored for him
    assert writes == [] and sorted(reads) == [ANN.id, BOB.id]
    assert await read([ANN.id, BOB.id]) == {ANN.id: "en-US"}
    monkeypatch.setattr(ANN, "locale", "cs")
    for _ in range(3):
        await bot.command(ANN, "turns")
    assert writes == [(ANN.id, "cs")] and sorted(reads) == [ANN.id, ANN.id, BOB.id]
    assert await read([ANN.id]) == {ANN.id: "cs"}
