"""A person's data deleted on request, with the real discord.py client on the stand-in:
/goblin forget-me asks once privately; Cancel keeps everything; a click by someone else (or on a
forged question) is told it is not theirs; Confirm forgets them and a second Confirm finds
nothing left; other people's replays show the same moves and pictures (only the forgotten
person's name changes) and their history the same matches; a running match goes on to its end
with the AI in the forgotten seat; ``python -m bot.admin forget`` does the same from the command
line, and refuses on a SQLite database a running bot plays the person's table on."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import msgspec
import pytest
from bot_helpers import Clock
from live_bot import CHANNEL, GUILD, LiveBot, User, table_id
from players import (
    ADMIN,
    ANN,
    BOB,
    EVE,
    Players,
    TinyRenderer,
    finished_match,
    forged_message,
    open_table,
    raw_click,
)
from storage.backends import make_room, no_room_for
from storage.helpers import played
from storage.test_store_people import play_named
from test_bot_solo import SOLO, open_in_dm

from bot.discord_side.ui.custom_ids import (
    ForgetButton,
    LobbyButton,
    ReplayButton,
    ShareButton,
    TournamentButton,
)
from bot.game.shares import SHARE_WINDOW
from bot.game.standings import rate_result
from bot.process.admin import main
from bot.storage.records import SeatInfo
from bot.storage.sqlite import Store
from engine import Observation
from engine.replay import Replay
from i18n import msg, translate
from loopback import Loopback, Message

#: Ann and Bob played a rated match; the AI held the third seat.
SEATS = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
         SeatInfo(user=BOB.id, name="Bob", hero="taia"),
         SeatInfo(ai=True, hero="argentus", level="easy"))


class Recorder(TinyRenderer):
    """Draws nothing, and keeps what each table picture was drawn from."""

    def __init__(self) -> None:
        self.seen: list[Observation] = []

    def table(self, obs: Observation, locale: str, handed: tuple[int, ...] = ()) -> bytes:
        self.seen.append(obs)
        return super().table(obs, locale)


def anywhere(db: Path, text: str) -> list[str]:
    """The tables of the SQLite file ``db`` holding ``text`` in some column."""
    with closing(sqlite3.connect(db)) as con:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = "
                                           "'table' AND name NOT LIKE 'sqlite_%'")]
        return [n for n in names
                if any(text in repr(row) for row in con.execute(f"SELECT * FROM {n}"))]


def with_seat_named(pictures: list[Observation], seat: int, name: object) -> list[Any]:
    """The pictures' inputs as plain data, the name of ``seat`` (wherever it appears: the seat,
    the log's lines) written as one mark."""
    shown = json.loads(msgspec.json.encode(pictures[0].seats[seat].name))
    marked = json.loads(msgspec.json.encode(name))

    def mark(node: Any) -> Any:
        if node in (shown, marked):
            return "<seat>"
        if isinstance(node, list):
            return [mark(v) for v in node]
        if isinstance(node, dict):
            return {k: mark(v) for k, v in node.items()}
        return node

    return [mark(json.loads(msgspec.json.encode(p))) for p in pictures]


async def replay_pictures(bot: LiveBot, recorder: Recorder, user: User,
                          tid: int) -> tuple[list[Observation], list[int]]:
    """``user`` steps through the replay of ``tid`` from its first move to its last; what each
    picture was drawn from, and the steps shown."""
    recorder.seen.clear()
    ix = await bot.command(user, "replay", id=tid)
    message = bot.reply(ix)
    steps = []
    while True:
        cid = next((c for c in message.custom_ids()
                    if c.startswith(ReplayButton.prefix) and c.endswith("h.next")), None)
        steps.append(int(next(c for c in message.custom_ids()
                              if c.startswith(ReplayButton.prefix)).split(":")[3]))
        if cid is None or len(steps) > 12:
            break
        await bot.click(user, message, cid)
        message = bot.message(message)
    return list(recorder.seen), steps


def question(bot: LiveBot, ix: Any) -> Message:
    """The private question /goblin forget-me asked."""
    asked = bot.reply(ix)
    assert asked.ephemeral and asked.owner == ix.user.id
    assert {ForgetButton.id_for(ix.user.id, True), ForgetButton.id_for(ix.user.id, False)} \
        <= set(asked.custom_ids())
    return asked


async def test_forget_me_asks_once_and_leaves_other_people_their_past(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    recorder = Recorder()
    db = tmp_path / "k.db"
    bot = await LiveBot.start(lb, db, recorder, clock=clock)
    try:
        rated = await play_named(bot.store, 11, channel=CHANNEL, seats=SEATS, guild=GUILD,
                                 host=ANN.id, leases=bot.bot.scheduler.leases)
        running = await open_table(bot, ANN, [BOB])
        before_pictures, before_steps = await replay_pictures(bot, recorder, BOB, rated)
        before_history = bot.reply(await bot.command(BOB, "history")).text()
        assert "Ann" in before_history or f"<@{ANN.id}>" in before_history
        assert anywhere(db, str(ANN.id))

        asked = question(bot, await bot.command(ANN, "forget-me"))
        ix = await bot.click(ANN, asked, ForgetButton.id_for(ANN.id, False))
        assert "Nothing was deleted" in bot.message(asked).text()
        assert await bot.store.rating_of(GUILD, ANN.id) is not None

        forged = forged_message(bot, EVE, ForgetButton.id_for(ANN.id, True))
        ix = await bot.click(EVE, forged, ForgetButton.id_for(ANN.id, True), forge=True)
        assert any("asked of someone else" in t for t in bot.said(ix))
        assert await bot.store.rating_of(GUILD, ANN.id) is not None

        asked = question(bot, await bot.command(ANN, "forget-me"))
        ix = await bot.click(EVE, asked, ForgetButton.id_for(ANN.id, True), forge=True)
        assert any("asked of someone else" in t for t in bot.said(ix))  # a stranger's click
        assert await bot.store.rating_of(GUILD, ANN.id) is not None
        await bot.click(ANN, asked, ForgetButton.id_for(ANN.id, True))
        assert "what the bot kept about you is deleted" in bot.message(asked).text()
        assert not any(c.startswith(ForgetButton.prefix) for c in bot.message(asked).custom_ids())
        again = forged_message(bot, ANN, ForgetButton.id_for(ANN.id, True))  # a double click
        ix = await bot.click(ANN, again, ForgetButton.id_for(ANN.id, True), forge=True)
        assert "nothing was left to delete" in bot.message(again).text()

        assert anywhere(db, str(ANN.id)) == [] and anywhere(db, '"Ann"') == []
        assert await bot.store.rating_of(GUILD, ANN.id) is None
        assert await bot.store.rating_of(GUILD, BOB.id) is not None
        after_pictures, after_steps = await replay_pictures(bot, recorder, BOB, rated)
        assert after_steps == before_steps and len(after_pictures) == len(before_pictures)
        assert with_seat_named(before_pictures, 0, after_pictures[0].seats[0].name) == \
            with_seat_named(after_pictures, 0, before_pictures[0].seats[0].name)
        assert before_pictures[0].seats[0].name == "Ann"
        assert after_pictures[0].seats[0].name != "Ann"
        after_history = bot.reply(await bot.command(BOB, "history")).text()
        assert f"Table #{rated}" in after_history and "Ann" not in after_history
        assert f"<@{ANN.id}>" not in after_history and "Forgotten player" in after_history

        record = await bot.store.get(running)  # the match goes on, the AI in Ann's seat
        assert record is not None and record.status == "running"
        seat = next(s for s in record.seats if s.user != BOB.id)
        assert seat.ai and seat.user is not None and seat.user < 0 and seat.name == ""
        assert record.host_id == BOB.id  # someone can still close it
        players = Players(bot, running, [BOB])
        while await players.step():
            pass
        record = await bot.store.get(running)
        assert record is not None and record.status == "finished"
    finally:
        await bot.stop()


async def forget_me(bot: LiveBot, user: User) -> str:
    """``user`` runs /goblin forget-me in the bot's channel and confirms; what they are told."""
    asked = question(bot, await bot.command(user, "forget-me"))
    await bot.click(user, asked, ForgetButton.id_for(user.id, True))
    return bot.message(asked).text()


async def test_a_lobby_drops_the_person_and_its_host_role_passes_on(bot: LiveBot) -> None:
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    await bot.click(BOB, lobby, LobbyButton.id_for(tid, "join", None))
    assert "deleted" in await forget_me(bot, ANN)
    record = await bot.store.get(tid)
    assert record is not None and record.status == "lobby" and record.host_id == BOB.id
    assert [s.user for s in record.seats] == [BOB.id]
    assert "Ann" not in bot.message(lobby).text()  # the lobby is drawn again without her


async def test_a_tournament_s_sign_up_drops_the_person(bot: LiveBot) -> None:
    """A person forgotten while a tournament takes sign-ups is taken off its entrants (its
    sign-up message drawn again without them), so no round seats a player nobody plays; its
    host forgotten is no longer mentioned there."""
    await bot.command(ADMIN, "tournament new", name="Spring Cup", table_size=3)
    board = next(m for m in bot.public() if "Spring Cup" in m.text())
    cup = (await bot.bot.service.tournaments.open_in(GUILD))[0].id
    for user in (ANN, BOB, EVE):
        await bot.click(user, board, TournamentButton.id_for(cup, "join"))
    assert "Entrants (3): Ann, Bob, Eve" in bot.message(board).text()
    assert "deleted" in await forget_me(bot, EVE)
    assert "Entrants (2): Ann, Bob" in bot.message(board).text()
    view = await bot.bot.service.tournaments.view(cup)
    assert [e.user for e in view.tournament.entrants] == [ANN.id, BOB.id]
    assert "deleted" in await forget_me(bot, ADMIN)  # its host: no longer mentioned
    assert "Hosted by Forgotten player." in bot.message(board).text()
    assert str(ADMIN.id) not in bot.message(board).text()


async def test_a_solo_match_in_direct_messages_closes(bot: LiveBot) -> None:
    tid = await open_in_dm(bot, ai=1)
    assert "deleted" in await forget_me(bot, ANN)
    record = await bot.store.get(tid)
    assert record is not None and record.status == "abandoned"
    assert record.place_key.startswith("dm:-") and record.host_id < 0
    assert not any(c.startswith("kg:hand:") for m in bot.public() for c in m.custom_ids())


async def test_her_direct_messages_show_nothing_of_her_past_matches_once_forgotten(
        bot: LiveBot) -> None:
    """Ann played a solo match (counted in her record against the AI) and a guided match in
    her direct messages: once forgotten, her history, stats and replays there know neither,
    and a match she plays there afterwards is listed alone."""
    dms = bot.lb.dm(ANN)
    bot.channel = dms
    solo = await finished_match(bot.store, played(1), seats=SOLO, channel=dms.id, guild=None,
                                rater=rate_result)
    guided = await finished_match(bot.store, played(2), seats=SOLO, channel=dms.id,
                                  guild=None, lessons=True)
    history = bot.reply(await bot.command(ANN, "history")).text()
    assert f"Table #{solo}**" in history and f"Table #{guided}**" in history, history
    assert "1 game played" in bot.reply(await bot.command(ANN, "stats")).text()
    assert "deleted" in await forget_me(bot, ANN)
    assert "No finished match" in bot.reply(await bot.command(ANN, "history")).text()
    assert "No finished game in direct messages yet." in bot.reply(
        await bot.command(ANN, "stats")).text()
    for tid in (solo, guided):
        assert bot.said(await bot.command(ANN, "replay", id=tid)) == [
            f"Your direct messages with the bot have no match #{tid} to show."]
    again = await finished_match(bot.store, played(3), seats=SOLO, channel=dms.id, guild=None)
    history = bot.reply(await bot.command(ANN, "history")).text()
    assert f"Table #{again}**" in history and f"Table #{solo}**" not in history, history
    assert f"Table #{guided}**" not in history, history


@pytest.mark.parametrize("custom_id", ["kg:forget:0:yes", "kg:forget:-7:yes",
                                       "kg:forget:1:maybe", "kg:forget:99999999999999999999:no"])
async def test_a_forged_or_damaged_question_gets_a_polite_answer(bot: LiveBot,
                                                                 custom_id: str) -> None:
    texts = await raw_click(bot, ANN, forged_message(bot, ANN, custom_id), custom_id, 2)
    assert texts and ("damaged" in texts[0] or "someone else" in texts[0]), texts


async def test_the_admin_command_forgets_a_person(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "karak.sqlite3"
    store = await Store.open(db)
    rated = await play_named(store, 12, channel=1, seats=SEATS, guild=GUILD, host=ANN.id)
    await store.close()
    env = tmp_path / "bot.env"
    env.write_text(f"KARAK_DB={db}\n", encoding="utf-8")
    monkeypatch.delenv("KARAK_DB", raising=False)
    argv = ["--env-file", str(env), "forget", "--user", str(ANN.id)]
    assert await asyncio.to_thread(main, argv) == 0  # the command runs its own event loop
    assert f"User {ANN.id} is forgotten" in capsys.readouterr().out
    assert anywhere(db, str(ANN.id)) == [] and anywhere(db, '"Ann"') == []
    assert await asyncio.to_thread(main, argv) == 0
    assert "nothing to delete" in capsys.readouterr().out
    store = await Store.open(db)
    try:
        result = await store.result_of(rated)
        assert result is not None and result.seats[1].user_id == BOB.id
        assert result.seats[0].user_id is not None and result.seats[0].user_id < 0
    finally:
        await store.close()
    for user in ("0", str(2**63)):  # no Discord user id: refused in one line
        assert await asyncio.to_thread(main, [*argv[:-1], user]) == 2, user
        out = capsys.readouterr()
        assert "--user must be a Discord user id" in out.err and out.err.count("\n") == 1


async def test_the_admin_command_waits_for_a_bot_playing_the_person_on_sqlite(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "karak.sqlite3"
    store = await Store.open(db)
    running = await play_named(store, 13, channel=1, seats=SEATS, guild=GUILD, host=ANN.id,
                               upto=4)
    assert await store.claim(running, "bot-1", 3600)  # a bot holds the table
    await store.close()
    monkeypatch.setenv("KARAK_DB", str(db))
    argv = ["forget", "--user", str(ANN.id)]
    assert await asyncio.to_thread(main, argv) == 1
    assert "Stop the bot first" in capsys.readouterr().err
    assert anywhere(db, str(ANN.id))  # nothing was changed



async def test_the_admin_command_forgets_a_person_at_a_running_table_once_the_bot_stopped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With no bot on the SQLite file (stopped, as the refusal asks), a person seated at a
    running match is forgotten: the command's own connection to the file is no bot."""
    db = tmp_path / "karak.sqlite3"
    store = await Store.open(db)
    running = await play_named(store, 13, channel=1, seats=SEATS, guild=GUILD, host=ANN.id,
                               upto=4)
    await store.close()
    monkeypatch.setenv("KARAK_DB", str(db))
    assert await asyncio.to_thread(main, ["forget", "--user", str(ANN.id)]) == 0, \
        capsys.readouterr().err
    assert f"User {ANN.id} is forgotten" in capsys.readouterr().out
    assert anywhere(db, str(ANN.id)) == [] and anywhere(db, '"Ann"') == []
    store = await Store.open(db)
    try:
        record = await store.get(running)
        assert record is not None and record.status == "running"
        assert record.seats[0].ai and record.seats[0].user != ANN.id
    finally:
        await store.close()


async def test_a_replay_and_animation_kept_lose_a_name_forgotten_elsewhere(
        bot: LiveBot, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """A person forgotten through another process sharing the database (the store alone
    changes: this process drops nothing it keeps) is gone from the replay and the animation
    this process kept of a match they played."""
    drawn: list[list[str]] = []

    def animation(replay: Replay, locale: str, handed: tuple[int, ...] = ()) -> bytes:
        drawn.append([seat.name for seat in replay.final.config.seats])
        return b"GIF89a" + b"\0" * 16

    monkeypatch.setattr("bot.discord_side.past.match_animation", animation)
    rated = await play_named(bot.store, 11, channel=CHANNEL, seats=SEATS, guild=GUILD,
                             host=ANN.id, leases=bot.bot.scheduler.leases)
    ix = await bot.command(BOB, "replay", id=rated)
    await bot.click(BOB, bot.reply(ix), ShareButton.id_for(rated))
    assert drawn == [["Ann", "Bob", ""]]

    await bot.store.forget_person(ANN.id)  # as another process does
    clock.now += SHARE_WINDOW

    ix = await bot.command(BOB, "replay", id=rated)
    replay = bot.reply(ix)
    await bot.click(BOB, replay, ReplayButton.id_for(rated, 0, False, "last"))
    assert "Ann" not in bot.message(replay).text()
    await bot.click(BOB, bot.message(replay), ShareButton.id_for(rated))
    assert drawn[-1] == ["", "Bob", ""]


async def test_a_lobby_closed_by_forgetting_its_one_person_names_nobody_by_pseudonym(
        bot: LiveBot) -> None:
    """Ann alone in her lobby asks the bot to forget her: the lobby closes, and its message,
    drawn again, names her as every message names a forgotten person, never by a raw
    pseudonym (``<@-...>``, which Discord shows as it is)."""
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    assert "deleted" in await forget_me(bot, ANN)
    record = await bot.store.get(tid)
    assert record is not None and record.status == "abandoned"
    text = bot.message(lobby).text()
    assert "<@-" not in text and "Forgotten player" in text, text


async def test_a_solo_match_closed_by_forgetting_warns_of_no_lobby_message(
        bot: LiveBot, caplog: pytest.LogCaptureFixture) -> None:
    """A solo match's lobby message went when the match began: forgetting its person closes
    the match's table message, as /goblin leave does, and tries no edit of the lobby message
    gone (which only filled the log with a warning)."""
    await open_in_dm(bot, ai=1)
    caplog.clear()
    assert "deleted" in await forget_me(bot, ANN)
    await bot.settle()
    assert not [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert not any(c.startswith("kg:hand:") for m in bot.public() for c in m.custom_ids())


async def test_nothing_kept_of_a_forgotten_person_s_direct_messages_leads_back_to_them(
        bot: LiveBot, tmp_path: Path) -> None:
    """The channel of a person's direct messages with the bot is theirs alone, and the same
    one again when they come back: once forgotten, no stored row holds its id (else the
    matches played there would be found again beside those they play after)."""
    tid = await open_in_dm(bot, ai=1)
    dm = bot.channel.id
    assert "deleted" in await forget_me(bot, ANN)
    assert anywhere(tmp_path / "k.db", str(dm)) == [], tid



async def test_a_double_click_of_confirm_says_done_once(bot: LiveBot) -> None:
    """Two clicks of Confirm before either is answered: the first deletes and the question
    says Done; the second is told privately it is done already, never that nothing was kept."""
    await play_named(bot.store, 11, channel=CHANNEL, seats=SEATS, guild=GUILD, host=ANN.id,
                     leases=bot.bot.scheduler.leases)
    asked = question(bot, await bot.command(ANN, "forget-me"))
    button = ForgetButton.id_for(ANN.id, True)
    first = await bot.lb.click(bot._known(ANN), asked, button)
    second = await bot.lb.click(bot._known(ANN), asked, button)
    await bot.handled(first, second)
    text = bot.message(asked).text()
    assert "what the bot kept about you is deleted" in text, text
    assert any("You already confirmed" in t for t in bot.said(second)), bot.said(second)
    assert await bot.store.rating_of(GUILD, ANN.id) is None


async def test_cancel_after_confirm_is_too_late(bot: LiveBot) -> None:
    """Cancel clicked on a question just confirmed (before the answer took its buttons away):
    told privately it is too late, and the question says Done."""
    await play_named(bot.store, 11, channel=CHANNEL, seats=SEATS, guild=GUILD, host=ANN.id,
                     leases=bot.bot.scheduler.leases)
    asked = question(bot, await bot.command(ANN, "forget-me"))
    confirm = await bot.lb.click(bot._known(ANN), asked, ForgetButton.id_for(ANN.id, True))
    cancel = await bot.lb.click(bot._known(ANN), asked, ForgetButton.id_for(ANN.id, False))
    await bot.handled(confirm, cancel)
    assert "what the bot kept about you is deleted" in bot.message(asked).text()
    assert any("Too late to cancel" in t for t in bot.said(cancel)), bot.said(cancel)


async def test_a_forgotten_person_s_clicks_on_their_closed_dm_table_say_it_is_over(
        bot: LiveBot) -> None:
    """Ann forgotten, her solo table in her direct messages closed: a click on the buttons of
    her hand still shown there (its moves, Hint, Leave) says the game is over, not that it
    belongs to a table in another channel (its channel is her pseudonym's in the store)."""
    tid = await open_in_dm(bot, ai=1)
    hand = await Players(bot, tid, [ANN]).open_hand(ANN)
    assert "deleted" in await forget_me(bot, ANN)
    buttons = [c for c in bot.message(hand).custom_ids() if not c.startswith("kg:pick:")]
    assert len(buttons) >= 3
    for cid in buttons:
        said = await raw_click(bot, ANN, bot.message(hand), cid, 2)
        assert said == ["This game is over."], (cid, said)


async def test_a_confirm_whose_deletion_a_stop_cut_off_from_its_answer_says_done(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """Ann confirmed; the bot deleted her data and stopped before its answer reached the
    question, which kept its buttons. After the restart she clicks Confirm again: she is told
    it is done and nothing is kept, never that there was nothing to delete."""
    db = tmp_path / "k.db"
    bot = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await play_named(bot.store, 11, channel=CHANNEL, seats=SEATS, guild=GUILD,
                         host=ANN.id, leases=bot.bot.scheduler.leases)
        asked = question(bot, await bot.command(ANN, "forget-me"))
        assert (await bot.bot.service.people.forget(ANN.id)).anything  # the first Confirm
    finally:
        await bot.stop()
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await again.click(ANN, asked, ForgetButton.id_for(ANN.id, True))
        text = again.message(asked).text()
        assert text.startswith("Done") and "keeps nothing about you" in text, text
        assert "there was nothing to delete" not in text
        assert not any(c.startswith(ForgetButton.prefix)
                       for c in again.message(asked).custom_ids())
    finally:
        await again.stop()


async def test_cancel_on_a_question_whose_confirm_a_stop_cut_off_says_nothing_is_kept(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """Ann confirmed; the bot deleted her data and stopped before its answer reached the
    question, which kept its buttons. After the restart she clicks Cancel: she is told the bot
    keeps nothing about her (a Confirm may have deleted it), never that nothing was deleted, and
    the question loses its buttons. Bob's question, never confirmed, still cancels as ever."""
    db = tmp_path / "k.db"
    bot = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await play_named(bot.store, 11, channel=CHANNEL, seats=SEATS, guild=GUILD,
                         host=ANN.id, leases=bot.bot.scheduler.leases)
        asked = question(bot, await bot.command(ANN, "forget-me"))
        kept = question(bot, await bot.command(BOB, "forget-me"))
        assert (await bot.bot.service.people.forget(ANN.id)).anything  # the first Confirm
    finally:
        await bot.stop()
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        await again.click(ANN, asked, ForgetButton.id_for(ANN.id, False))
        text = again.message(asked).text()
        assert "Nothing was deleted" not in text, text
        assert "keeps nothing about you" in text, text
        assert not any(c.startswith(ForgetButton.prefix)
                       for c in again.message(asked).custom_ids())
        await again.click(BOB, kept, ForgetButton.id_for(BOB.id, False))
        assert again.message(kept).text() == "Nothing was deleted."
        assert await again.store.rating_of(GUILD, BOB.id) is not None
    finally:
        await again.stop()


def test_the_czech_cancel_after_a_cut_off_confirm_says_what_was_confirmed() -> None:
    """The Czech text names what may have been confirmed (the deletion): 'potvrdili, co o vás
    uchovával' read as confirming what the bot kept, the rest of the sentence left hanging."""
    text = translate(msg("forget.cancelled_nothing_kept"), "cs")
    assert "pokud jste smazání potvrdili už dříve, všechno, co o vás uchovával, je smazáno" in text


async def test_a_table_kept_damaged_does_not_keep_a_person_from_being_forgotten(
        bot: LiveBot, tmp_path: Path) -> None:
    """A past match whose seats the database keeps damaged (no longer JSON) while they still
    hold Bob's id: his forget-me goes on (the damaged seats cleared, a warning says so) and
    he is told what was deleted, rather than that something went wrong."""
    damaged = await play_named(bot.store, 1, CHANNEL, SEATS, guild=GUILD)
    await play_named(bot.store, 2, CHANNEL, SEATS, guild=GUILD)
    with closing(sqlite3.connect(tmp_path / "k.db")) as con, con:  # the bot's database
        con.execute("UPDATE tables SET seats = ? WHERE id = ?",
                    (f'[{{"user": {BOB.id}, "name": "Bob", "he', damaged))
    assert "deleted" in await forget_me(bot, BOB)
    assert anywhere(tmp_path / "k.db", str(BOB.id)) == []


async def test_a_forgetting_the_database_stops_part_of_the_way_says_what_it_did(
        bot: LiveBot) -> None:
    """Ann confirms while the database stops taking writes part of the way: she has left the
    lobby she was in (its host role passed to Bob) and her running match (the AI in her
    seat), but her past could not be deleted. She is told exactly that (not that nothing
    changed), the lobby is drawn again without her, and the same Confirm, once the database
    has room, deletes the rest; the match goes on to its end."""
    await play_named(bot.store, 11, channel=CHANNEL, seats=SEATS, guild=GUILD, host=ANN.id,
                     leases=bot.bot.scheduler.leases)
    running = await open_table(bot, ANN, [BOB])
    other = bot.lb.create_channel(bot.guild, "more games")
    await bot.command(ANN, "new", channel=other)
    lobby = bot.public(other)[-1]
    tid = table_id(lobby)
    await bot.click(BOB, lobby, LobbyButton.id_for(tid, "join", None))
    assert f"<@{ANN.id}>" in bot.message(lobby).text()
    await no_room_for(bot.store, "user_id", "result_seats")  # her past: no room to rename it
    asked = question(bot, await bot.command(ANN, "forget-me"))
    ix = await bot.click(ANN, asked, ForgetButton.id_for(ANN.id, True))
    said = " ".join(bot.said(ix))
    assert "nothing changed" not in said, said
    assert "you left the lobbies" in said and "Press *Delete my data* again" in said, said
    record = await bot.store.get(tid)
    assert record is not None and [s.user for s in record.seats] == [BOB.id]
    assert f"<@{ANN.id}>" not in bot.message(lobby).text()  # drawn again without her
    assert await bot.store.rating_of(GUILD, ANN.id) is not None  # not deleted yet
    match = await bot.store.get(running)
    assert match is not None and match.host_id == BOB.id
    assert [s.ai for s in match.seats if s.user == ANN.id] == [True]
    await make_room(bot.store)
    await bot.click(ANN, bot.message(asked), ForgetButton.id_for(ANN.id, True))
    assert "what the bot kept about you is deleted" in bot.message(asked).text()
    assert await bot.store.rating_of(GUILD, ANN.id) is None
    players = Players(bot, running, [BOB])
    while await players.step():
        pass
    match = await bot.store.get(running)
    assert match is not None and match.status == "finished"


async def test_a_sign_up_left_by_a_forgetting_stopped_part_of_the_way_is_drawn_again(
        bot: LiveBot) -> None:
    """Ann, signed up for a tournament, confirms while the database cannot take the deletion:
    she is off its entrants, and its sign-up message says so at once (the Confirm that later
    finishes no longer finds her there, so it would never draw it again)."""
    await play_named(bot.store, 11, channel=CHANNEL, seats=SEATS, guild=GUILD, host=BOB.id,
                     leases=bot.bot.scheduler.leases)
    await bot.command(ADMIN, "tournament new", name="Spring Cup", table_size=3)
    board = next(m for m in bot.public() if "Spring Cup" in m.text())
    cup = (await bot.bot.service.tournaments.open_in(GUILD))[0].id
    for user in (ANN, BOB, EVE):
        await bot.click(user, board, TournamentButton.id_for(cup, "join"))
    await no_room_for(bot.store, "user_id", "result_seats")
    asked = question(bot, await bot.command(ANN, "forget-me"))
    ix = await bot.click(ANN, asked, ForgetButton.id_for(ANN.id, True))
    assert any("you left the lobbies, matches and tournaments" in t for t in bot.said(ix))
    assert "Entrants (2): Bob, Eve" in bot.message(board).text()
    await make_room(bot.store)
    await bot.click(ANN, bot.message(asked), ForgetButton.id_for(ANN.id, True))
    assert "what the bot kept about you is deleted" in bot.message(asked).text()
    assert "Entrants (2): Bob, Eve" in bot.message(board).text()


async def test_a_share_of_a_match_of_their_direct_messages_forgotten_meanwhile_is_refused(
        bot: LiveBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ann shares her solo match from the replay in her direct messages, and is forgotten
    (through another process) between the replay's read and the share's claim: she is told
    privately why the match can no longer be shared, nothing is posted, and no stored row ties
    her, or her direct messages, to that match again."""
    dm = bot.lb.dm(ANN)
    tid = await finished_match(bot.store, played(2), seats=SOLO, channel=dm.id, guild=None)
    ix = await bot.command(ANN, "replay", id=tid, channel=dm)
    shares = bot.bot.service.shares
    claim = shares.claim

    async def forgotten_first(table: int, channel: int, user: int, slowmode: float) -> Any:
        await bot.store.forget_person(ANN.id)  # as another process does, meanwhile
        return await claim(table, channel, user, slowmode)

    monkeypatch.setattr(shares, "claim", forgotten_first)
    ix = await bot.click(ANN, bot.reply(ix), ShareButton.id_for(tid))
    assert bot.said(ix)[-1] == (
        f"Match #{tid} can no longer be shared: you asked the bot to forget you, so it no "
        "longer counts this match among yours. Nothing was posted.")
    assert not [m for m in bot.lb.state.messages.values()  # in her messages, or a thread
                if any(a.filename.endswith(".gif") for a in m.attachments)]
    db = tmp_path / "k.db"
    assert anywhere(db, str(ANN.id)) == [] and anywhere(db, str(dm.id)) == []
