"""Past matches on the stand-in: /goblin history page by page, /goblin replay stepped to both
ends and sought by bookmark, its public view holding no card of any hand, the hands revealed
only for a finished match, a replay button working after a restart, matches that cannot be
replayed (other cards, a log that no longer replays), and the shared animation: posted once per
match and channel within a window however many click at once (the others pointed at it, after
a restart too), only by people allowed to attach files there (and a bot allowed to), and no more
often than the channel's slowmode lets a person post."""
from __future__ import annotations

import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest
from bot_helpers import Clock
from live_bot import CHANNEL, LINK, LiveBot, User, table_id
from players import (
    ADMIN,
    ANN,
    BOB,
    EVE,
    Players,
    TinyRenderer,
    finished_match,
    open_table,
    planted,
)
from storage.backends import no_room_for
from storage.helpers import played, taking_back

from bot.discord_side.ui.custom_ids import AbandonButton, ShareButton
from bot.game.results import movers
from bot.game.shares import SHARE_WINDOW
from bot.game.standings import rate_result
from bot.storage.sqlite import Store
from engine import validate
from engine.replay import Replay
from loopback import Loopback, Message
from loopback.model import ALL_PERMISSIONS, ATTACH_FILES, SEND_MESSAGES
from loopback.permissions import MANAGE_THREADS, MEMBER_PERMISSIONS, SEND_MESSAGES_IN_THREADS
from render.animation import MAX_BYTES, match_animation

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "loopback"))  # the e2e helpers
from e2e.privacy import Secrets  # noqa: E402 - the stand-in tests' privacy watch


def step_of(message: Message) -> int:
    """The step a replay message shows (from its Next button's custom id)."""
    cid = next(c for c in message.custom_ids() if c.startswith("kg:rp:"))
    return int(cid.split(":")[3])


async def replay_of(bot: LiveBot, tid: int) -> Message:
    ix = await bot.command(ANN, "replay", id=tid)
    return bot.reply(ix)


async def go(bot: LiveBot, message: Message, op: str) -> Message:
    cid = next(c for c in message.custom_ids() if c.startswith("kg:rp:") and c.endswith(op))
    await bot.click(ANN, message, cid)
    return bot.message(message)


# ---------------------------------------------------------------------------- history


async def test_history_pages_older_and_newer(bot: LiveBot) -> None:
    game = played(1)
    ids = [await finished_match(bot.store, game, start=len(game.moves) - 1,
                                channel=CHANNEL) for _ in range(7)]
    ix = await bot.command(ANN, "history")
    page = bot.reply(ix)
    assert page.ephemeral and page.owner == ANN.id
    shown = [t for t in ids if f"Table #{t}**" in page.text()]
    assert shown == ids[2:]
    older = next(c for c in page.custom_ids() if c.startswith("kg:hist:") and ":o:" in c)
    await bot.click(ANN, page, older)
    page = bot.message(page)
    assert [t for t in ids if f"Table #{t}**" in page.text()] == ids[:2]
    assert f"<@{ANN.id}>" in page.text() and "AI, easy level (" in page.text()
    for entry in page.text().split("\n\n")[1:3]:  # each match's seats listed by place
        places = [int(line[2:].split(".")[0]) for line in entry.splitlines()
                  if line.startswith("- ")]
        assert places == sorted(places) and len(set(places)) > 1
    newer = next(c for c in page.custom_ids() if ":n:" in c)
    await bot.click(ANN, page, newer)
    assert [t for t in ids if f"Table #{t}**" in bot.message(page).text()] == ids[2:]
    ix = await bot.command(ANN, "history", player=EVE.id)  # Eve never played here
    assert "No finished match" in bot.reply(ix).text()


@pytest.mark.parametrize(("table", "damage"), [
    ("result_seats", "place = 'x'"), ("result_seats", "ai_level = 'godlike'"),
    ("result_seats", "keys = 1.5"), ("results", "finished_at = 'noon'")])
async def test_a_match_whose_stored_result_is_damaged_hurts_only_itself(
        bot: LiveBot, tmp_path: Path, caplog: pytest.LogCaptureFixture, table: str,
        damage: str) -> None:
    """A finished match's stored result damaged in the database (a value its row, or one of
    its seats' rows, cannot hold): /goblin history lists every other match and says in one
    line that this one is damaged, in its place, so the Older and Newer buttons still reach
    every other match;
    /goblin stats and /goblin leaderboard answer, leaving it out (a warning names its table);
    its table still reads, so it is still replayed; nothing fails."""
    game = played(1)
    ids = [await finished_match(bot.store, game, start=0 if n == 4 else len(game.moves) - 1,
                                channel=CHANNEL, rater=rate_result) for n in range(7)]
    damaged = ids[4]
    with closing(sqlite3.connect(tmp_path / "k.db")) as con, con:
        con.execute(f"UPDATE {table} SET {damage} WHERE table_id = ?"
                    f"{' AND seat = 2' if table == 'result_seats' else ''}", (damaged,))
    page = bot.reply(await bot.command(ANN, "history"))
    assert [t for t in ids if f"Table #{t}**" in page.text()] == ids[2:]
    assert (f"**Table #{damaged}** · damaged in the database, so it cannot be shown here. An "
            "admin can check the logs.") in page.text()
    older = next(c for c in page.custom_ids() if c.startswith("kg:hist:") and ":o:" in c)
    await bot.click(ANN, page, older)
    page = bot.message(page)
    assert [t for t in ids if f"Table #{t}**" in page.text()] == ids[:2]
    newer = next(c for c in page.custom_ids() if ":n:" in c)
    await bot.click(ANN, page, newer)
    assert "damaged in the database" in bot.message(page).text()
    mine = bot.reply(await bot.command(ANN, "history", player=str(BOB.id))).text()
    assert f"**Table #{damaged}** · damaged" in mine
    [stats] = bot.said(await bot.command(ANN, "stats"))
    assert "6 games played" in stats, stats
    [board] = bot.said(await bot.command(ANN, "leaderboard"))
    assert "Leaderboard" in board
    told = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any(f"table {damaged}: its stored result is damaged" in t for t in told), told
    assert "Move 0 of" in (await replay_of(bot, damaged)).text()
    with closing(sqlite3.connect(tmp_path / "k.db")) as con, con:  # its table damaged too
        con.execute("UPDATE tables SET state = '{\"broken\"' WHERE id = ?", (damaged,))
    bot.bot.service.history.forget(damaged)
    store = bot.bot.service.store
    assert isinstance(store, Store)
    store._records.clear()  # forget the table it kept
    assert bot.said(await bot.command(ANN, "replay", id=damaged)) == [
        f"Match #{damaged} cannot be replayed: it is damaged in the database. An admin can "
        "check the logs."]
    told = bot.said(await bot.command(ANN, "replay", id=damaged, channel=bot.lb.dm(ANN)))
    assert told == [f"Your direct messages with the bot have no match #{damaged} to show."]

# ------------------------------------------------ what closing a table says of the history


async def test_closing_a_table_says_the_history_keeps_it_only_when_it_lists_it(
        bot: LiveBot) -> None:
    """/goblin abandon says a match stays in the history only when /goblin history lists it
    (a stored result: everyone had moved); a match abandoned before everyone moved is not
    listed, and its question and answer say so and point to /goblin replay, which opens it; a
    lobby closed before its match started is neither, and its answer claims nothing."""
    early = await open_table(bot, ANN, [BOB])
    assert await Players(bot, early, [ANN, BOB]).step()  # Bob has not moved yet
    await bot.settle()
    question = bot.reply(await bot.command(ANN, "abandon"))
    assert "stays in the history" not in question.text(), question.text()
    assert f"/goblin replay id:{early}" in question.text(), question.text()
    ix = await bot.click(ANN, question, AbandonButton.id_for(early))
    told = " ".join(bot.said(ix))
    assert "stays in the history" not in told and f"/goblin replay id:{early}" in told, told
    assert "No finished match to show yet." in bot.reply(await bot.command(ANN, "history")).text()
    assert step_of(await replay_of(bot, early)) == 0

    rated = await open_table(bot, ANN, [BOB])
    players = Players(bot, rated, [ANN, BOB])
    while len(movers(await bot.store.action_log(rated))) < 2:
        assert await players.step()
        await bot.settle()
    question = bot.reply(await bot.command(ANN, "abandon"))
    assert "it stays in the history" in question.text(), question.text()
    told = " ".join(bot.said(await bot.click(ANN, question, AbandonButton.id_for(rated))))
    assert told == f"Table #{rated} was abandoned; it stays in the history.", told
    assert f"Table #{rated}**" in bot.reply(await bot.command(ANN, "history")).text()

    await bot.command(ANN, "new")
    lobby = table_id(bot.public()[-1])
    told = " ".join(bot.said(await bot.command(ANN, "abandon")))
    assert told == f"Table #{lobby} was abandoned.", told
    assert bot.said(await bot.command(ANN, "replay", id=lobby)) == [
        f"This server has no match #{lobby} to show."]


# ---------------------------------------------------------------------------- replays


async def test_a_replay_steps_to_both_ends_and_seeks_by_bookmark(bot: LiveBot) -> None:
    game = played(2)
    tid = await finished_match(bot.store, game)
    message = await replay_of(bot, tid)
    assert message.ephemeral and step_of(message) == 0
    assert "Move 0 of" in message.text()
    message = await go(bot, message, "h.last")
    assert step_of(message) == len(game.moves) and "wins" in message.text()
    message = await go(bot, message, "h.prev")
    assert step_of(message) == len(game.moves) - 1
    message = await go(bot, message, "h.first")
    assert step_of(message) == 0
    message = await go(bot, message, "h.nturn")
    replay = Replay(game.final.config, [m for _, m in game.moves])
    assert step_of(message) == replay.turn_starts()[1]
    menu = next(c for c in message.items() if c.get("type") == 3)
    assert 1 <= len(menu["options"]) <= 25
    won = next(b for b in replay.bookmarks if b.kind == "won")
    await bot.choose(ANN, message, menu["custom_id"], [str(won.step)])
    message = bot.message(message)
    assert step_of(message) == won.step
    for shown in (0, won.step, len(game.moves)):  # what a spectator saw: no card of any hand
        state = replay.state(shown)
        if shown != won.step:
            message = await go(bot, message, "h.first" if shown == 0 else "h.last")
        assert Secrets.merged([Secrets.of(state, "en")]).leaks(message.text()) == []
    message = await go(bot, message, "h.flip")  # the match is over: the hands are shown
    assert "Every hand is shown." in message.text()
    assert any(c.startswith("kg:rp:") and ":r." in c for c in message.custom_ids())


async def test_the_hands_stay_hidden_before_the_end(bot: LiveBot) -> None:
    game = played(3)
    tid = await finished_match(bot.store, game, upto=40)
    ix = await bot.command(ANN, "replay", id=tid)
    assert "still being played" in bot.said(ix)[0]
    await bot.store.set_status(tid, "abandoned")
    message = await replay_of(bot, tid)
    flip = next(c for c in message.items() if str(c.get("custom_id")).endswith("h.flip"))
    assert flip.get("disabled") is True
    forged = f"kg:rp:{tid}:0:r.next"  # a forged click asking for the hands anyway
    ix = await bot.lb.click(ANN, message, flip["custom_id"], forge=True)
    await bot.handled(ix)
    assert "once the match is over" in " ".join(bot.said(ix))
    ix = await bot.click(ANN, planted(bot.lb, ANN, forged), forged)
    assert "once the match is over" in " ".join(bot.said(ix))


async def test_an_old_replay_button_works_after_a_restart(lb: Loopback, tmp_path: Path,
                                                          clock: Clock) -> None:
    db = tmp_path / "k.db"
    first = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    game = played(2)
    tid = await finished_match(first.store, game)
    message = await replay_of(first, tid)
    message = await go(first, message, "h.next")
    await first.stop()
    second = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        message = await go(second, message, "h.next")
        assert step_of(message) == 2
    finally:
        await second.stop()


async def test_a_match_of_other_cards_or_a_broken_log_is_not_replayed(
        bot: LiveBot, tmp_path: Path) -> None:
    game = played(2)
    other, broken = (await finished_match(bot.store, game), await finished_match(bot.store, game))
    with closing(sqlite3.connect(tmp_path / "k.db")) as con, con:
        con.execute("UPDATE tables SET catalogue = 'an-older-catalogue' WHERE id = ?", (other,))
        con.execute("UPDATE actions SET action = 'end' WHERE table_id = ? AND seq = 1",
                    (broken,))
    await bot.bot.service.store.close()  # forget what the store keeps of the tables
    bot.bot.service.store = bot.store = await Store.open(tmp_path / "k.db")
    svc = bot.bot.service
    svc.tables.store = svc.history.store = svc.store
    bot.bot.reminders.reminding.store = svc.store
    ix = await bot.command(ANN, "replay", id=other)
    assert "another version of the cards" in bot.said(ix)[0]
    ix = await bot.command(ANN, "replay", id=broken)
    assert "can no longer be replayed: its move 1" in bot.said(ix)[0]
    ix = await bot.command(ANN, "replay", id=999)
    assert "no match #999" in bot.said(ix)[0]


@pytest.mark.parametrize("change", ["cards", "damage"])
async def test_a_listed_match_whose_table_no_longer_reads_is_not_said_to_be_none(
        bot: LiveBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    """A finished match /goblin history lists, whose stored table no longer reads: played
    with cards since changed (a monster added since: its stored state breaks today's rules),
    or damaged in the database. Its replay says why it cannot be replayed, not that the
    server has no such match; asked from elsewhere, it is still no match."""
    tid = await finished_match(bot.store, played(2))
    with closing(sqlite3.connect(tmp_path / "k.db")) as con, con:
        if change == "cards":
            con.execute("UPDATE tables SET catalogue = 'older' WHERE id = ?", (tid,))
            con.execute("UPDATE results SET catalogue = 'older' WHERE table_id = ?", (tid,))
        else:
            con.execute("UPDATE tables SET state = '{\"broken\"' WHERE id = ?", (tid,))
    if change == "cards":
        expected = validate._cards_expected
        monkeypatch.setattr(validate, "_cards_expected",
                            lambda state: [*expected(state), "a-monster-added-since"])
    await bot.bot.service.store.close()  # forget what the store keeps of the tables
    bot.bot.service.store = bot.store = await Store.open(tmp_path / "k.db")
    svc = bot.bot.service
    svc.tables.store = svc.history.store = svc.lobby.store = svc.store
    bot.bot.reminders.reminding.store = svc.store
    assert f"Table #{tid}**" in bot.reply(await bot.command(ANN, "history")).text()
    told = bot.said(await bot.command(ANN, "replay", id=tid))
    assert told == [f"Match #{tid} was played with another version of the cards, so it cannot "
                    "be replayed: it would be a different game." if change == "cards" else
                    f"Match #{tid} cannot be replayed: it is damaged in the database. An admin "
                    "can check the logs."]
    told = bot.said(await bot.command(ANN, "replay", id=tid, channel=bot.lb.dm(ANN)))
    assert told == [f"Your direct messages with the bot have no match #{tid} to show."]


@pytest.mark.parametrize("damage", [
    "action = 'no-such-move'", "step = 'seven'", "at = 'noon'"])
async def test_a_match_whose_stored_log_row_is_damaged_is_refused_privately(
        bot: LiveBot, tmp_path: Path, damage: str) -> None:
    """A row of the match's action log damaged in the database (a column holding what it
    cannot, an action in no notation): the replay, and the Share of a replay opened before,
    are refused privately, as a log that no longer replays is, and nothing fails."""
    tid = await finished_match(bot.store, played(2))
    message = await replay_of(bot, tid)
    with closing(sqlite3.connect(tmp_path / "k.db")) as con, con:
        con.execute(f"UPDATE actions SET {damage} WHERE table_id = ? AND seq = 2", (tid,))
    await bot.bot.service.store.close()  # forget what the store and the history keep
    bot.bot.service.store = bot.store = await Store.open(tmp_path / "k.db")
    svc = bot.bot.service
    svc.tables.store = svc.history.store = svc.shares.store = svc.store
    bot.bot.reminders.reminding.store = svc.store
    svc.history.forget(tid)
    ix = await bot.command(ANN, "replay", id=tid)
    assert bot.said(ix) == [f"Match #{tid} cannot be replayed: its stored moves are damaged."]
    ix = await bot.click(ANN, message, ShareButton.id_for(tid))
    assert "its stored moves are damaged" in " ".join(bot.said(ix))
    assert animations(bot) == []


@pytest.mark.parametrize("room", [True, False])
async def test_the_shared_animation_is_posted_under_the_upload_limit(
        bot: LiveBot, room: bool, caplog: pytest.LogCaptureFixture) -> None:
    game = played(2)
    tid = await finished_match(bot.store, game)
    message = await replay_of(bot, tid)
    if not room:  # the post's id cannot be saved: posted all the same, and said so
        await no_room_for(bot.store, "message_id", "shares")
    ix = await bot.click(ANN, message, ShareButton.id_for(tid))
    assert "is posted in the channel" in bot.said(ix)[0]
    assert ("its animation's message could not be saved" in caplog.text) is not room
    posted = bot.public()[-1]
    gif = posted.attachments[0]
    assert gif.filename == f"match-{tid}.gif" and 0 < gif.size <= MAX_BYTES
    assert gif.data is not None and gif.data.startswith(b"GIF89a")


@pytest.mark.parametrize("custom_id", [
    "kg:rp:1:x:h.next", "kg:rp:1:2:z.next", "kg:rp:1:2:h.jump", "kg:hist:1:q:0",
    "kg:hist:0:o:0", "kg:rm:1:explode", "kg:rsh:1:2",
])
async def test_damaged_past_match_ids_get_a_polite_answer(bot: LiveBot, custom_id: str) -> None:
    ix = await bot.click(ANN, planted(bot.lb, ANN, custom_id), custom_id)
    assert "damaged" in " ".join(bot.said(ix))


async def test_a_step_beyond_the_match_and_a_forged_bookmark_are_handled(bot: LiveBot) -> None:
    game = played(2)
    tid = await finished_match(bot.store, game)
    beyond = f"kg:rp:{tid}:99999:h.prev"  # drawn at no step of the match: taken to its end
    ix = await bot.click(ANN, planted(bot.lb, ANN, beyond), beyond)
    assert step_of(bot.reply(ix)) == len(game.moves) - 1
    message = await replay_of(bot, tid)
    menu = next(c for c in message.items() if c.get("type") == 3)
    ix = await bot.choose(ANN, message, menu["custom_id"], ["99999"], forge=True)
    assert "not part of this match" in " ".join(bot.said(ix))


# ---------------------------------------------------------------------------- sharing


def animations(bot: LiveBot) -> list[Message]:
    """The channel's posts of a match's animation, oldest first."""
    return [m for m in bot.public() if any(a.filename.endswith(".gif") for a in m.attachments)]


async def share(bot: LiveBot, user: User, tid: int) -> str:
    """``user`` opens the replay of ``tid`` and clicks Share; what they were told."""
    ix = await bot.command(user, "replay", id=tid)
    ix = await bot.click(user, bot.reply(ix), ShareButton.id_for(tid))
    return " ".join(bot.said(ix))


async def test_twenty_clicks_at_once_post_the_animation_once(bot: LiveBot) -> None:
    tid = await finished_match(bot.store, played(2))
    message = await replay_of(bot, tid)
    clicks = [await bot.lb.click(ANN, message, ShareButton.id_for(tid)) for _ in range(20)]
    await bot.handled(*clicks)
    [posted] = animations(bot)
    told = [" ".join(bot.said(ix)) for ix in clicks]
    assert sum("is posted in the channel" in t for t in told) == 1
    pointed = [t for t in told if f"{LINK}{posted.id}" in t]
    assert len(pointed) == 19
    assert all(f"The animation of match #{tid} was already posted in this channel" in t
               for t in pointed)


async def test_the_clicker_and_the_bot_need_to_be_allowed_to_attach_files(
        bot: LiveBot) -> None:
    tid = await finished_match(bot.store, played(2))
    zoe = User(2000000000000000004, "Zoé", locale="fr")
    bot.lb.set_overwrite(bot.channel, zoe, deny=ATTACH_FILES)
    told = await share(bot, zoe, tid)
    assert "vous ne pouvez pas partager l'animation dans ce salon" in told
    assert "il vous manque ici cette permission\u00a0: Joindre des fichiers." in told
    bot.lb.set_overwrite(bot.channel, EVE, deny=SEND_MESSAGES | ATTACH_FILES)
    told = await share(bot, EVE, tid)
    assert "you're missing these 2 permissions here: Send Messages, Attach Files." in told
    bot.channel.bot_permissions = ALL_PERMISSIONS & ~ATTACH_FILES
    told = await share(bot, ANN, tid)
    assert "I lack this permission here: Attach Files. Ask an admin to grant it" in told
    bot.channel.bot_permissions = ALL_PERMISSIONS & ~(SEND_MESSAGES | ATTACH_FILES)
    told = await share(bot, ANN, tid)
    assert ("I lack these 2 permissions here: Send Messages, Attach Files. "
            "Ask an admin to grant them") in told
    assert animations(bot) == []


async def test_a_person_shares_no_more_often_than_the_channels_slowmode(
        bot: LiveBot, clock: Clock) -> None:
    first, second = [await finished_match(bot.store, played(s)) for s in (2, 3)]
    bot.lb.set_slowmode(bot.channel, 60)
    assert "is posted in the channel" in await share(bot, ANN, first)
    shared_at = clock.now
    clock.now += 30
    told = await share(bot, ANN, second)
    assert f"you can share an animation here again <t:{int(shared_at) + 60}:R>" in told
    assert len(animations(bot)) == 1
    clock.now += 30
    assert "is posted in the channel" in await share(bot, ANN, second)
    clock.now += SHARE_WINDOW  # a moderator is not slowed down, and the window is over
    assert "is posted in the channel" in await share(bot, ADMIN, first)
    assert "is posted in the channel" in await share(bot, ADMIN, second)
    assert len(animations(bot)) == 4


async def test_who_may_manage_a_threads_threads_shares_there_beyond_its_slowmode(
        bot: LiveBot, clock: Clock) -> None:
    """In a thread, Discord's slowmode spares who may manage threads as well: a moderator of
    threads shares one match after another in a thread with slowmode on, while another person
    is still told when they may share there again."""
    thread = bot.lb.create_thread(bot.channel, "after the match")
    bot.lb.set_overwrite(bot.channel, bot.guild.everyone, allow=SEND_MESSAGES_IN_THREADS)
    bot.lb.set_slowmode(thread, 60)
    mods = bot.lb.create_role(bot.guild, "Thread mods", MEMBER_PERMISSIONS | MANAGE_THREADS)
    bot.lb.give_role(bot.guild, bot._known(EVE), mods)
    await bot.settle()
    first, second, third, fourth = [await finished_match(bot.store, played(s))
                                    for s in (2, 3, 4, 5)]
    for tid in (first, second):
        ix = await bot.command(EVE, "replay", id=tid, channel=thread)
        ix = await bot.click(EVE, bot.reply(ix), ShareButton.id_for(tid))
        assert "is posted in this thread" in " ".join(bot.said(ix))
    shared_at = clock.now
    for tid in (third, fourth):
        ix = await bot.command(ANN, "replay", id=tid, channel=thread)
        ix = await bot.click(ANN, bot.reply(ix), ShareButton.id_for(tid))
    assert f"you can share an animation here again <t:{int(shared_at) + 60}:R>" in \
        " ".join(bot.said(ix))


async def test_an_earlier_post_is_pointed_at_after_a_restart(lb: Loopback, tmp_path: Path,
                                                             clock: Clock) -> None:
    db = tmp_path / "k.db"
    first = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        tid = await finished_match(first.store, played(2))
        assert "is posted in the channel" in await share(first, ANN, tid)
    finally:
        await first.stop()
    second = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        clock.now += SHARE_WINDOW - 1
        [posted] = animations(second)
        assert f"{LINK}{posted.id}" in await share(second, BOB, tid)
        assert len(animations(second)) == 1
    finally:
        await second.stop()


async def test_a_post_a_moderator_deleted_is_shared_again(bot: LiveBot, clock: Clock) -> None:
    """The animation's post deleted by a moderator within the window: the next Share posts it
    again (Discord answers Unknown Message for the earlier one) rather than linking to a
    message that is gone; while it stands, a Share still points at it."""
    tid = await finished_match(bot.store, played(2))
    assert "is posted in the channel" in await share(bot, ANN, tid)
    [posted] = animations(bot)
    clock.now += 60
    assert f"{LINK}{posted.id}" in await share(bot, BOB, tid)
    bot.lb.delete_message(posted)
    clock.now += 60
    assert "is posted in the channel" in await share(bot, BOB, tid)
    [again] = animations(bot)
    assert again.id != posted.id
    assert f"{LINK}{again.id}" in await share(bot, EVE, tid)
    assert len(animations(bot)) == 1


async def test_a_post_another_process_is_making_is_announced(bot: LiveBot) -> None:
    tid = await finished_match(bot.store, played(2))
    claim = await bot.bot.service.shares.claim(tid, CHANNEL, BOB.id, 0)  # as another process
    assert claim.granted
    assert "is being posted in this channel right now" in await share(bot, ANN, tid)
    assert animations(bot) == []


async def test_a_match_with_take_backs_is_replayed_shared_and_charted(bot: LiveBot) -> None:
    """Taking back is on by default: a match whose seats took moves back steps through the
    moves that stand, is shared as an animation and gets its summary chart at the end."""
    game = taking_back(2)
    assert len(game.standing) < len(game.moves)  # moves were taken back, twice in a row too
    tid = await finished_match(bot.store, game)
    message = await replay_of(bot, tid)
    assert "can no longer be replayed" not in message.text() and step_of(message) == 0
    message = await go(bot, message, "h.last")
    assert step_of(message) == len(game.standing) and "wins" in message.text()
    assert "takes back" not in message.text()
    ix = await bot.click(ANN, message, ShareButton.id_for(tid))
    assert "is posted in the channel" in bot.said(ix)[0]
    assert bot.public()[-1].attachments[0].filename == f"match-{tid}.gif"
    await bot.bot.poster.announce_end(await bot.bot.service.tables.load(tid))
    assert "summary.png" in [a.filename for a in bot.public()[-1].attachments]


async def test_a_post_discord_refuses_is_told_privately_and_may_be_tried_again(
        bot: LiveBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the permissions shown at the click do not tell: a moderator shares in the match's
    thread, locked since, where the bot may not manage threads; a permission of the bot's taken
    away while the animation is drawn. Each is told privately, nothing is counted against the
    channel or the person, and a share once Discord takes it posts at once."""
    thread = bot.lb.create_thread(bot.channel)
    tid = await finished_match(bot.store, played(2), channel=thread.id)
    bot.lb.archive_thread(thread, locked=True)
    bot.channel.bot_permissions = ALL_PERMISSIONS & ~MANAGE_THREADS
    ix = await bot.command(ADMIN, "replay", id=tid, channel=thread)
    ix = await bot.click(ADMIN, bot.reply(ix), ShareButton.id_for(tid))
    assert "Discord refused my post of the animation of match" in " ".join(bot.said(ix))
    bot.lb.unarchive_thread(thread)
    bot.channel.bot_permissions = ALL_PERMISSIONS
    ix = await bot.command(ADMIN, "replay", id=tid, channel=thread)
    ix = await bot.click(ADMIN, bot.reply(ix), ShareButton.id_for(tid))
    assert "is posted in this thread" in " ".join(bot.said(ix))

    drawn = match_animation

    def losing_rights(replay: Replay, locale: str, handed: tuple[int, ...] = ()) -> bytes:
        bot.channel.bot_permissions = ALL_PERMISSIONS & ~ATTACH_FILES
        return drawn(replay, locale, handed)

    monkeypatch.setattr("bot.discord_side.past.match_animation", losing_rights)
    other = await finished_match(bot.store, played(3))
    told = await share(bot, ANN, other)
    assert "Discord refused my post of the animation of match" in told
    assert animations(bot) == []
    bot.channel.bot_permissions = ALL_PERMISSIONS
    assert "is posted in the channel" in await share(bot, ANN, other)


async def test_a_post_kept_damaged_is_shared_again(bot: LiveBot, clock: Clock,
                                                   tmp_path: Path) -> None:
    """A match's post, and a person's last share, whose times the database keeps damaged (a
    word where a time belongs): the next Share posts the animation again, as after the
    window, rather than answering that something went wrong at every click."""
    tid = await finished_match(bot.store, played(2))
    assert "is posted in the channel" in await share(bot, ANN, tid)
    with closing(sqlite3.connect(tmp_path / "k.db")) as con, con:  # the bot's database
        con.execute("UPDATE shares SET posted_at = 'noon'")
        con.execute("UPDATE sharers SET shared_at = 'noon'")
    bot.lb.set_slowmode(bot.channel, 60)
    clock.now += 60
    assert "is posted in the channel" in await share(bot, ANN, tid)
    assert len(animations(bot)) == 2
