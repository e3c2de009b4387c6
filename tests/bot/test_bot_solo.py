"""Solo tables in the bot's direct messages and the guided first match (``/goblin learn``):
a solo match in a DM played to the end across a restart, a second person refused at a solo
table, tables refused in a group DM (where the bot may only answer), the commands offered in
every context, and ``/goblin learn`` meeting every lesson on its seed with the learner's seat
played by the agent that chose the seed."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from bot_helpers import Clock
from live_bot import GUILD, LiveBot, component, offered, table_id
from players import (
    ADMIN,
    ANN,
    BOB,
    Players,
    TinyRenderer,
    finished_match,
    forged_message,
)
from storage.helpers import played, taking_back
from test_bot_outage import timers_pass

from bot.discord_side.feed import RETRY_FIRST, retry_pause
from bot.discord_side.ui.custom_ids import (
    BackButton,
    LobbyButton,
    RematchButton,
    ReplayButton,
    ShareButton,
)
from bot.game.lessons import LESSON_LEVEL, LESSONS, advised
from bot.game.places import Place
from bot.game.play import Play
from bot.storage.records import SeatInfo
from engine import observe
from engine.agents import make_agent
from i18n import msg, translate
from loopback import Loopback, Message
from loopback.people import People

#: Ann alone against two easy AI seats.
SOLO = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
        SeatInfo(ai=True, hero="taia", level="easy"),
        SeatInfo(ai=True, hero="argentus", level="easy"))


async def open_in_dm(h: LiveBot, ai: int) -> int:
    """Ann opens a table in her direct messages with the bot, adds ``ai`` AI seats, starts."""
    h.channel = h.lb.dm(ANN)
    await h.command(ANN, "new")
    lobby = h.public()[-1]
    tid = table_id(lobby)
    for _ in range(ai):
        await h.click(ANN, lobby, LobbyButton.id_for(tid, "ai", None))
    await h.click(ANN, lobby, LobbyButton.id_for(tid, "start", None))
    return tid


async def test_the_commands_are_offered_in_dms_and_for_user_installs(bot: LiveBot) -> None:
    (goblin,) = bot.lb.registered(None)
    assert goblin["contexts"] == [0, 1, 2] and goblin["integration_types"] == [0, 1]


async def test_a_solo_match_in_a_dm_plays_to_the_end_across_a_restart(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    db = tmp_path / "k.db"
    h1 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    tid = await open_in_dm(h1, ai=2)
    rec = await h1.bot.service.tables.load(tid)
    assert rec.guild_id is None and rec.channel_id == h1.channel.id and rec.status == "running"
    players = Players(h1, tid, [ANN])
    for _ in range(6):
        assert await players.step()
    await h1.stop()

    h2 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        h2.channel = lb.dm(ANN)
        players = Players(h2, tid, [ANN])
        for _ in range(3000):
            if not await players.step():
                break
        rec = await h2.bot.service.tables.load(tid)
        assert rec.status == "finished" and rec.winner is not None
        assert "wins" in h2.public()[-1].text()
        assert all(m.channel_id == h2.channel.id for m in lb.messages.values()
                   if m.author.bot and m.guild_id is None)
        assert lb.breaches == []
    finally:
        await h2.stop()


async def test_a_second_person_is_refused_at_a_solo_table(bot: LiveBot) -> None:
    bot.channel = bot.lb.dm(ANN)
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    # its one person is seated: the lobby offers no Join (a server's lobby does, to the others)
    assert not any(":join" in c for c in lobby.custom_ids()), lobby.custom_ids()
    assert any(c.startswith(LobbyButton.id_for(tid, "leave", None)) for c in lobby.custom_ids())
    # nobody else sees a direct message; a forged click is refused all the same
    join = LobbyButton.id_for(tid, "join", None)
    ix = await bot.click(BOB, forged_message(bot, BOB, join, ephemeral=False), join, forge=True)
    assert any("solo table" in t for t in bot.said(ix))
    assert [s.user for s in (await bot.bot.service.tables.load(tid)).seats] == [ANN.id]


async def test_a_table_already_in_the_direct_messages_is_said_to_be_there(
        bot: LiveBot) -> None:
    """Where Ann's direct messages with the bot already hold a table, /goblin new, /goblin
    learn and Rematch on a finished match there are refused speaking of those direct messages,
    not of a channel, in every language: first the open lobby /goblin new points to, then the
    running table."""
    dm = bot.channel = bot.lb.dm(ANN)
    done = await finished_match(bot.store, played(2), seats=SOLO, channel=dm.id, guild=None)
    await bot.bot.poster.announce_end(await bot.bot.service.tables.load(done))
    await bot.settle()
    final = bot.public()[-1]
    await bot.command(ANN, "new")
    tid = table_id(bot.public()[-1])
    told = " ".join(bot.said(await bot.command(ANN, "new")))
    assert told.startswith(f"There is already a table waiting to start in your direct "
                           f"messages with me (#{tid}); its lobby is here: "), told
    await bot.click(ANN, bot.public()[-1], LobbyButton.id_for(tid, "ai", None))
    await bot.click(ANN, bot.public()[-1], LobbyButton.id_for(tid, "start", None))
    held = f"There is already a table in your direct messages with me (#{tid})"
    for sub in ("new", "learn"):
        told = " ".join(bot.said(await bot.command(ANN, sub)))
        assert told.startswith(f"{held}. Finish or abandon it first."), (sub, told)
    ix = await bot.click(ANN, final, RematchButton.id_for(done, "offer"))
    assert bot.said(ix)[0] == f"{held}: finish or abandon it before a rematch."
    for lc in ("fr", "cs"):
        for key in ("bot.error.table_exists_dm", "bot.error.lobby_exists_dm",
                    "rematch.error.table_active_dm"):
            text = translate(msg(key, table=tid, url="https://x"), lc)
            assert "{" not in text and ("messages privés" in text or "soukromých" in text), text
            assert "salon" not in text and "kanál" not in text, text


async def test_no_table_in_the_direct_messages_is_said_of_them(bot: LiveBot) -> None:
    """/goblin hand, status, start and abandon in Ann's direct messages with the bot, which hold
    no table, say there is none in her direct messages (and how to open one), not in "this
    channel"; in a server's channel the refusal speaks of the channel."""
    dm = bot.lb.dm(ANN)
    none_here = ("There is no table in your direct messages with me. Open one with /goblin "
                 "new, or learn the game with /goblin learn.")
    for sub in ("hand", "status", "start", "abandon"):
        told = bot.said(await bot.command(ANN, sub, channel=dm))
        assert told == [none_here], (sub, told)
    told = bot.said(await bot.command(ANN, "hand"))
    assert told == ["There is no table in this channel. Open one with /goblin new."], told
    for lc in ("fr", "cs"):
        text = translate(msg("bot.error.no_table_here_dm"), lc)
        assert ("messages privés" in text or "soukromých" in text), text
        assert "salon" not in text and "kanál" not in text, text


async def test_no_table_in_a_group_dm_but_the_rules_work_there(bot: LiveBot) -> None:
    group = bot.lb.create_group_dm([ANN, BOB])
    for sub in ("new", "learn"):
        ix = await bot.command(ANN, sub, channel=group)
        assert any("group conversation" in t for t in bot.said(ix)), sub
    assert await bot.store.active_in_channel(group.id) is None
    ix = await bot.command(ANN, "rules", channel=group)
    assert ix.status() == "done" and bot.said(ix)
    assert bot.lb.breaches == []


def user_installed_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's interactions come as from a server that did not install the bot, where
    a person's user install of the app answers them (Discord names only the user's install)."""
    made = People._interaction_payload

    def payload(self: People, ix: Any, channel: Any, message: Any) -> dict[str, Any]:
        out = made(self, ix, channel, message)
        if out.get("guild_id"):
            out["authorizing_integration_owners"] = {"1": str(ix.user.id)}
        return out

    monkeypatch.setattr(People, "_interaction_payload", payload)


async def test_no_table_nor_tournament_in_a_server_that_did_not_install_the_bot(
        bot: LiveBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """A user install answers in a server the bot is no member of, where it can post nothing
    that outlives an interaction: a tournament, whose matches are posted round after round,
    is refused there as a table is, and nothing is opened."""
    user_installed_only(monkeypatch)
    for sub, options in (("new", {}), ("learn", {}), ("tournament new", {"name": "Cup"})):
        ix = await bot.command(ADMIN, sub, **options)
        assert any("not a member of this server" in t for t in bot.said(ix)), (sub, bot.said(ix))
    assert await bot.store.active_in_channel(bot.channel.id) is None
    assert await bot.store.tournaments_with_status("signup", "running") == []
    assert bot.public() == []


async def test_no_settings_in_a_server_that_did_not_install_the_bot(
        bot: LiveBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """/goblin settings from a user install in a server the bot is no member of is refused as
    /goblin new is there: no table of the bot's can live in that server, and nothing is
    saved."""
    user_installed_only(monkeypatch)
    ix = await bot.command(ADMIN, "settings", abilities=True, language="fr")
    assert any("not a member of this server" in t for t in bot.said(ix)), bot.said(ix)
    assert await bot.store.guild_settings(GUILD) is None


async def test_share_in_a_group_dm_or_a_server_without_the_bot_says_why_it_cannot_post(
        bot: LiveBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """Share where the bot may only answer (a group conversation, a server that did not
    install it) says so; no admin could grant the bot anything there."""
    dm = bot.lb.dm(ANN)
    tid = await finished_match(bot.store, played(2), channel=dm.id, guild=None, seats=SOLO)
    group = bot.lb.create_group_dm([ANN, BOB])
    ix = await bot.command(ANN, "replay", id=tid, channel=group)
    ix = await bot.click(ANN, bot.reply(ix), ShareButton.id_for(tid))
    told = " ".join(bot.said(ix))
    assert "group conversation" in told and "admin" not in told, told
    server = await finished_match(bot.store, played(1))
    user_installed_only(monkeypatch)
    ix = await bot.command(ANN, "replay", id=server)
    ix = await bot.click(ANN, bot.reply(ix), ShareButton.id_for(server))
    told = " ".join(bot.said(ix))
    assert "not a member of this server" in told and "grant" not in told, told
    assert not [m for m in bot.lb.messages.values() if m.author.bot and m.attachments
                and any(a.filename.endswith(".gif") for a in m.attachments)]
    assert bot.lb.breaches == []


async def learner_hand(h: LiveBot, tid: int, shown: Message | None) -> Message:
    """Ann's newest hand message (opened from the table message when she has none)."""
    if shown is not None and offered(h.message(shown)):
        return h.message(shown)
    ix = await h.click(ANN, h.last_table_message(), f"kg:hand:{tid}")
    return h.reply(ix)


async def test_learn_meets_every_lesson_on_its_seed(bot: LiveBot) -> None:
    bot.channel = bot.lb.dm(ANN)
    ix = await bot.command(ANN, "learn")
    hand: Message | None = bot.reply(ix)
    assert hand is not None and hand.owner == ANN.id
    tid = table_id(bot.last_table_message())
    svc = bot.bot.service
    seen: dict[str, int] = {}
    for _ in range(400):
        rec = await svc.tables.load(tid)
        if len(seen) == len(LESSONS) or rec.status != "running":
            break
        state = rec.game
        assert state.current == 0, "the AI seats must have played by now"
        hand = await learner_hand(bot, tid, hand)
        obs = observe(state, 0)
        lesson = await svc.play.lesson(rec, 0)
        if lesson is not None:
            seen[lesson.name] = state.step
            assert f"({lesson.rule})" in hand.text()
            for notation in lesson.highlight:
                cid, value = offered(hand)[notation]
                if value is None:
                    assert component(hand, cid)["style"] == 1  # primary
            obs = advised(obs, lesson)  # the learner follows the lesson's advice
        choice = make_agent(LESSON_LEVEL, Play.seed_for(rec.seed, state.step)).choose(obs)
        move = str(choice if choice in obs.legal else obs.legal[0])
        await bot.play(ANN, hand, move)
    assert set(seen) == set(LESSONS) and max(seen.values()) < 40  # in the first turns
    # the learner leaves whenever they like: the Leave button, confirmed, closes the table
    hand = await learner_hand(bot, tid, hand)
    await bot.click(ANN, hand, f"kg:quit:{tid}")
    assert (await svc.tables.load(tid)).status == "running"
    assert "record" not in bot.message(hand).text()  # a guided match counts in no record
    ix = await bot.click(ANN, bot.message(hand), f"kg:quit:{tid}:y")
    assert any("left table" in t for t in bot.said(ix))
    assert (await svc.tables.load(tid)).status == "abandoned"
    assert await bot.store.player_results(Place.dms(ANN.id).key, ANN.id) == []
    assert bot.lb.breaches == []


async def test_leaving_a_guided_match_says_it_is_not_listed_but_replayed(bot: LiveBot) -> None:
    """A guided match counts in no record, so /goblin history never lists it once left: the
    Leave button's question and its answer do not say it stays in the history, but point to
    /goblin replay, which opens it."""
    bot.channel = bot.lb.dm(ANN)
    hand = bot.reply(await bot.command(ANN, "learn"))
    tid = table_id(bot.last_table_message())
    await bot.click(ANN, hand, f"kg:quit:{tid}")
    asked = bot.message(hand).text()
    assert "stays in the history" not in asked and f"/goblin replay id:{tid}" in asked, asked
    ix = await bot.click(ANN, bot.message(hand), f"kg:quit:{tid}:y")
    told = " ".join(bot.said(ix))
    assert "left table" in told and "kept in the history" not in told, told
    assert f"/goblin replay id:{tid}" in told, told
    assert "No finished match" in bot.reply(await bot.command(ANN, "history")).text()
    assert f"Replay of table #{tid}" in bot.reply(await bot.command(ANN, "replay", id=tid)).text()


async def test_a_guided_match_the_database_cannot_start_is_learnt_once_it_can(
        bot: LiveBot) -> None:
    """/goblin learn in direct messages as the database stops taking writes part of the way
    through (here: no room for the match's state, once its table was opened): Ann is told
    nothing was saved, and no lobby of hers is left that nobody sees, to refuse her next
    /goblin learn there as "a table is already here". Once the database has room, the same
    command starts her guided match."""
    from storage.backends import make_room, no_room_for

    bot.channel = bot.lb.dm(ANN)
    await no_room_for(bot.store, "state")
    assert "could not save that" in " ".join(bot.said(await bot.command(ANN, "learn")))
    assert await bot.store.active_in_channel(bot.channel.id) is None
    await make_room(bot.store)
    hand = bot.reply(await bot.command(ANN, "learn"))
    assert hand.owner == ANN.id and "Your hand" in hand.text(), hand.text()
    tid = table_id(bot.last_table_message())
    assert (await bot.bot.service.tables.load(tid)).status == "running"


async def test_a_guided_match_s_public_end_speaks_to_everyone(bot: LiveBot) -> None:
    """A guided match learnt in a server channel ends in a public message: its note that it
    counts in no record is read by everyone there, so it does not speak of "your" games or
    record as if each reader were its learner."""
    hand = bot.reply(await bot.command(ANN, "learn"))
    tid = table_id(bot.last_table_message())
    assert hand.owner == ANN.id
    await bot.abandon(ANN)
    record = await bot.bot.service.tables.load(tid)
    assert record.status == "abandoned" and record.message_id is not None
    end = bot.lb.message(record.message_id)
    assert end.owner is None and "guided match" in end.text(), end.text()
    note = next(line for line in end.text().splitlines() if "guided match" in line)
    assert not {"your", "you"} & set(note.lower().replace(",", " ").split()), note


async def test_two_people_s_guided_matches_begun_within_minutes_each_get_their_table(
        bot: LiveBot) -> None:
    """Ann and Bob each start /goblin learn in their direct messages a moment apart: every
    guided match is dealt from the one lesson seed, yet Bob's table message is posted in his
    conversation, not answered with Ann's (Discord gives back the bot's message of a nonce
    used in the past minutes, in any channel), and his moves show there."""
    tables = {}
    for user in (ANN, BOB):
        ix = await bot.command(user, "learn", channel=bot.lb.dm(user))
        shown = [m for m in bot.public(bot.lb.dm(user)) if m.custom_ids()]
        assert len(shown) == 1, (user.name, shown)
        tables[user.id] = (table_id(shown[0]), shown[0], bot.reply(ix))
    (ann, ann_msg, _), (bob, bob_msg, hand) = tables[ANN.id], tables[BOB.id]
    assert ann != bob and ann_msg.id != bob_msg.id
    record = await bot.bot.service.tables.load(bob)
    assert record.message_id == bob_msg.id
    revisions = (ann_msg.revision, bob_msg.revision)
    obs = observe(record.game, 0)
    choice = make_agent(LESSON_LEVEL, Play.seed_for(record.seed, record.game.step)).choose(obs)
    await bot.play(BOB, hand, str(choice if choice in obs.legal else obs.legal[0]))
    assert (await bot.bot.service.tables.load(bob)).version > record.version
    # the move shows in Bob's table message, and Ann's is left alone
    assert bot.message(bob_msg).revision > revisions[1]
    assert bot.message(ann_msg).revision == revisions[0]


async def test_leaving_a_solo_match_closes_it(bot: LiveBot) -> None:
    tid = await open_in_dm(bot, ai=1)
    ix = await bot.command(ANN, "leave")
    assert bot.said(ix)
    assert (await bot.bot.service.tables.load(tid)).status == "abandoned"
    assert not any(c.startswith("kg:hand:") for m in bot.public() for c in m.custom_ids())


@pytest.mark.parametrize("how", ["abandon", "leave", "button"])
async def test_a_solo_match_closed_any_way_ends_with_the_same_lines(bot: LiveBot,
                                                                    how: str) -> None:
    """/goblin abandon, /goblin leave and the hand's Leave button close a solo match alike:
    its table message tells the hints its person used, whichever way it was closed."""
    tid = await open_in_dm(bot, ai=1)
    assert await Players(bot, tid, [ANN]).step()
    record = await bot.bot.service.tables.load(tid)
    await bot.store.record_hint(tid, record.version, ANN.id, 0, b"hint", 1.0)
    if how == "abandon":
        await bot.abandon(ANN)
    elif how == "leave":
        await bot.command(ANN, "leave")
    else:
        hand = bot.reply(await bot.click(ANN, bot.last_table_message(), f"kg:hand:{tid}"))
        await bot.click(ANN, hand, f"kg:quit:{tid}")
        await bot.click(ANN, bot.message(hand), f"kg:quit:{tid}:y")
    await bot.settle()
    record = await bot.bot.service.tables.load(tid)
    assert record.status == "abandoned" and record.message_id is not None
    assert "Hints used: Ann 1." in bot.lb.message(record.message_id).text()


async def test_leaving_from_the_hand_asks_once_and_ends_with_no_button_left(
        bot: LiveBot) -> None:
    tid = await open_in_dm(bot, ai=1)
    table = bot.last_table_message()
    older = bot.reply(await bot.click(ANN, table, f"kg:hand:{tid}"))
    hand = bot.reply(await bot.click(ANN, table, f"kg:hand:{tid}"))
    leave = component(hand, f"kg:quit:{tid}")
    assert leave["style"] == 4 and leave["label"] == "Leave this match"  # red
    await bot.click(ANN, hand, f"kg:quit:{tid}")  # asked in the hand, privately
    asked = bot.message(hand)
    assert asked.ephemeral and "Leave table" in asked.text() and not asked.attachments
    assert asked.custom_ids() == [f"kg:quit:{tid}:y", BackButton.id_for(tid)]
    assert (await bot.bot.service.tables.load(tid)).status == "running"
    await bot.click(ANN, asked, BackButton.id_for(tid))  # Back: the hand again, nothing closed
    hand = bot.message(hand)
    assert f"kg:quit:{tid}" in hand.custom_ids() and offered(hand)
    await bot.click(ANN, hand, f"kg:quit:{tid}")
    ix = await bot.click(ANN, bot.message(hand), f"kg:quit:{tid}:y")
    assert "You left table" in bot.message(hand).text() and not bot.message(hand).custom_ids()
    assert any("left table" in t for t in bot.said(ix))
    assert (await bot.bot.service.tables.load(tid)).status == "abandoned"
    assert not any(c.startswith("kg:hand:") for m in bot.public() for c in m.custom_ids())
    # a move clicked in an older hand shows the hand of the closed table: no Leave button
    move = next(iter(offered(older)))
    await bot.play(ANN, older, move)
    older = bot.message(older)
    assert not offered(older) and f"kg:quit:{tid}" not in older.custom_ids(), older.custom_ids()
    assert bot.lb.breaches == []


async def test_leaving_a_solo_match_once_moved_counts_as_a_game_lost_against_the_ai(
        bot: LiveBot) -> None:
    """Closing a solo match is no way to keep a game about to be lost out of one's record:
    once its person moved, it counts as a game lost against the AI (asked first); before,
    it counts for nothing."""
    early = await open_in_dm(bot, ai=1)
    await bot.command(ANN, "leave")  # no move made yet
    assert (await bot.bot.service.tables.load(early)).status == "abandoned"
    assert "No finished game in direct messages yet." in bot.reply(
        await bot.command(ANN, "stats")).text()

    tid = await open_in_dm(bot, ai=1)
    players = Players(bot, tid, [ANN])
    while not any(row.user_id == ANN.id for row in await bot.store.action_log(tid)):
        assert await players.step()
    hand = bot.reply(await bot.click(ANN, bot.last_table_message(), f"kg:hand:{tid}"))
    await bot.click(ANN, hand, f"kg:quit:{tid}")
    assert "counts as a game lost in your record against the AI" in bot.message(hand).text()
    await bot.click(ANN, bot.message(hand), f"kg:quit:{tid}:y")
    assert (await bot.bot.service.tables.load(tid)).status == "abandoned"
    told = bot.reply(await bot.command(ANN, "stats")).text()
    assert "1 game played, 0 won." in told and "Place in the last game: 2" in told
    assert "Games against the AI alone in direct messages" in told and "0% won, 1 game" in told


async def test_learn_beside_another_s_lobby_says_where_to_learn_instead(bot: LiveBot) -> None:
    """With threads off a guided match would be played in the channel, whose one table is
    Ann's lobby: Bob's /goblin learn is refused, not told to finish or abandon a table that is
    not his, but told he can learn in a direct message with the bot; Ann's lobby is left as it
    was."""
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    ix = await bot.command(BOB, "learn")
    told = " ".join(bot.said(ix))
    assert "direct message" in told and "abandon" not in told, told
    assert str(lobby.id) in told  # the link to the table holding the channel
    assert (await bot.bot.service.tables.load(table_id(lobby))).status == "lobby"
    assert any(":join:" in c for c in bot.message(lobby).custom_ids())
    # in direct messages Bob's guided match starts
    ix = await bot.command(BOB, "learn", channel=bot.lb.dm(BOB))
    assert "Lesson (R10)" in bot.reply(ix).text()


async def test_a_solo_match_closed_once_moved_is_not_said_to_be_rated_in_the_history(
        bot: LiveBot) -> None:
    """A solo match closed after its person moved is kept as a game lost against the AI, never
    rated: the history says it was abandoned, not that it was rated as it stood."""
    tid = await open_in_dm(bot, ai=1)
    players = Players(bot, tid, [ANN])
    while not any(row.user_id == ANN.id for row in await bot.store.action_log(tid)):
        assert await players.step()
    await bot.command(ANN, "leave")
    assert (await bot.store.result_of(tid)) is not None
    told = bot.reply(await bot.command(ANN, "history")).text()
    assert f"#{tid}" in told and "rated as it stood" not in told, told
    assert "a game lost against the AI, never rated" in told, told


async def test_a_guided_match_played_to_its_end_counts_in_no_record(bot: LiveBot) -> None:
    """The guided match is a lesson on a fixed seed whose hand advises each move: played to
    its end it counts in no record, as when it is left, so replaying it with its advice
    collects no wins against the easy AI. Its end and the history say so; /goblin stats shows
    nothing of it, and a rebuild of the ratings and records counts it nowhere either."""
    bot.channel = bot.lb.dm(ANN)
    await bot.command(ANN, "learn")
    tid = table_id(bot.last_table_message())
    players = Players(bot, tid, [ANN])
    for _ in range(3000):
        if not await players.step():
            break
    await bot.settle()
    record = await bot.bot.service.tables.load(tid)
    assert record.status == "finished"
    end = bot.lb.message(record.message_id).text() if record.message_id else ""
    assert "guided match counts in no one's record" in end, end
    place = Place.dms(ANN.id).key
    assert await bot.store.ai_records(place, ANN.id) == []
    told = bot.reply(await bot.command(ANN, "stats")).text()
    assert "No finished game in direct messages yet." in told, told
    history = bot.reply(await bot.command(ANN, "history")).text()
    assert f"#{tid}" in history and "guided match, not counted in any record" in history, history
    await bot.bot.service.standings.recompute()
    assert await bot.store.ai_records(place, ANN.id) == []


async def test_a_guided_match_with_take_backs_is_replayed_shared_and_rematched_as_one(
        bot: LiveBot) -> None:
    """Ann's guided match in her direct messages, where she took moves back: its replay steps
    to its end through the moves that stand, Share posts it there, and Rematch starts another
    guided match (lessons, no record), whose answer says so rather than leaving her to find out
    at its end that it counted in no record either."""
    dms = bot.lb.dm(ANN)
    bot.channel = dms
    game = taking_back(2)
    assert len(game.standing) < len(game.moves)
    tid = await finished_match(bot.store, game, seats=SOLO, channel=dms.id, guild=None,
                               lessons=True)
    await bot.bot.poster.announce_end(await bot.bot.service.tables.load(tid))
    await bot.settle()
    end = bot.public()[-1]
    replay = bot.reply(await bot.command(ANN, "replay", id=tid))
    last = ReplayButton.id_for(tid, 0, False, "last")
    await bot.click(ANN, replay, last)
    assert f"Move {len(game.standing)} of {len(game.standing)}" in bot.message(replay).text()
    ix = await bot.click(ANN, bot.message(replay), ShareButton.id_for(tid))
    assert bot.said(ix) == [f"The animation of match #{tid} is posted in these direct messages."]
    ix = await bot.click(ANN, bot.message(replay), ShareButton.id_for(tid))  # again, at once
    assert bot.said(ix)[0].startswith(
        f"The animation of match #{tid} was already posted in these direct messages "), bot.said(ix)
    ix = await bot.click(ANN, end, RematchButton.id_for(tid, "offer"))
    new = await bot.store.active_in_channel(dms.id)
    assert new is not None and (await bot.bot.service.tables.load(new)).lessons
    told = " ".join(bot.said(ix))
    assert f"table #{new}" in told and "guided match again" in told, told
    assert "counts in no record" in told and "/goblin new" in told, told


async def test_a_solo_table_refused_by_closed_dms_is_told_and_posted_once_they_open(
        bot: LiveBot, clock: Clock) -> None:
    """Ann closed her direct messages to the bot (or blocked it): her commands and clicks are
    still answered there, but Discord refuses the bot's own posts (403, 50007). Her solo
    table starts all the same: she is told privately, once, that its table message could
    not be posted in her direct messages and why, and it is posted once she opens them."""
    shy = replace(ANN, dms_open=False)
    bot.channel = bot.lb.dm(shy)
    await bot.command(shy, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    await bot.click(shy, lobby, LobbyButton.id_for(tid, "ai", None))
    ix = await bot.click(shy, lobby, LobbyButton.id_for(tid, "start", None))
    told = [t for t in bot.said(ix) if "did not let me post" in t]
    assert told == [
        f"Table #{tid} has started, but Discord did not let me post its table message in "
        "your direct messages: you may have closed them to the bot or blocked it. Open them "
        "again and the table message will appear within a few minutes; meanwhile /goblin hand "
        "shows your hand."], bot.said(ix)
    assert (await bot.bot.service.tables.load(tid)).message_id is None
    await timers_pass(bot, clock, RETRY_FIRST)  # refused again: told once
    assert len([t for t in bot.said(ix) if "did not let me post" in t]) == 1
    # /goblin status meanwhile speaks of her direct messages, not of a channel
    copy = bot.reply(await bot.command(shy, "status")).text()
    assert ("**Only you see this copy: the table message is not in these direct messages yet. "
            "It will appear here as soon as I can post it; if you closed your direct messages "
            "to the bot, open them again.**") in copy, copy
    shy.dms_open = True
    await timers_pass(bot, clock, retry_pause(1))
    now = await bot.bot.service.tables.load(tid)
    assert now.message_id == bot.last_table_message().id
    copy = bot.reply(await bot.command(shy, "status")).text()
    assert "is further up in these direct messages." in copy and "the channel" not in copy, copy


async def test_share_in_dms_closed_to_the_bot_says_to_open_them(bot: LiveBot) -> None:
    """Ann's solo match in her direct messages can be shared only there (no other channel
    replays it): when she closed them to the bot, or blocked it, Discord refuses the post,
    and she is told to open them, not to share it from another channel."""
    shy = replace(ANN, dms_open=False)
    dms = bot.lb.dm(shy)
    tid = await finished_match(bot.store, played(2), seats=SOLO, channel=dms.id, guild=None)
    ix = await bot.command(shy, "replay", id=tid, channel=dms)
    ix = await bot.click(shy, bot.reply(ix), ShareButton.id_for(tid))
    assert bot.said(ix)[-1] == (
        f"Discord refused my post of the animation of match #{tid} in your direct messages: "
        "you may have closed them to the bot or blocked it. Open them again to share it.")
    shy.dms_open = True  # the claim was given back: shared at once once they are open
    ix = await bot.click(shy, bot.reply(await bot.command(shy, "replay", id=tid, channel=dms)),
                         ShareButton.id_for(tid))
    assert bot.said(ix)[-1] == f"The animation of match #{tid} is posted in these direct messages."
