"""The bot on Discord's bad days, on the stand-in: damaged database rows, hand messages gone
under a click, posts Discord refuses, a broken turn timer, clicks answered too late; and the
client's hold on global rate limits."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from bot_helpers import Clock
from live_bot import (
    CHANNEL,
    Call,
    LiveBot,
    User,
    dismissed_on_answer,
    offered,
    on_answer,
    resolve,
    table_id,
)
from players import (
    ANN,
    BOB,
    Players,
    TinyRenderer,
    before_a_turn_ends,
    my_turn_hand,
    open_table,
)
from storage.backends import SqliteBackend

from bot.discord_side.ui.custom_ids import LobbyButton
from bot.game.scheduler import TimersFailed
from bot.storage.sqlite import Store
from loopback import Loopback


@pytest.mark.allow_errors("cannot be resumed")
async def test_corrupt_row_hurts_only_its_table(lb: Loopback, tmp_path: Path,
                                                clock: Clock) -> None:
    from bot.game.service import GameService
    from engine import legal_actions

    db = tmp_path / "k.db"
    h1 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    t1 = await open_table(h1, ANN, [BOB])
    await h1.stop()
    # a second table in another channel, then damage the first one
    other = lb.create_channel(h1.guild, "other")
    store = await Store.open(db, clock=clock)
    svc = GameService(store, clock=clock)
    rec2 = await svc.lobby.create(guild_id=h1.guild.id, channel_id=other.id, host_id=ANN.id,
                            host_name="Ann")
    await svc.lobby.join(rec2.id, BOB.id, "Bob")
    await svc.lobby.start(rec2.id, ANN.id)
    await SqliteBackend(db).damage_table(store, t1, state='{"format": 1, "state": 3}')
    await store.close()
    h2 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)  # resumes: one clear error
    try:
        ix = await h2.command(ANN, "status")
        assert any("damaged" in t for t in h2.said(ix))
        # the other table plays on (and was resumed: its table message is posted)
        assert h2.public(other)
        rec = await h2.bot.service.tables.load(rec2.id)
        uid = rec.seats[rec.game.current].user
        assert uid is not None
        out = await h2.bot.service.play.act(rec2.id, uid, rec.version,
                                       str(legal_actions(rec.game)[0]))
        assert out.record.version == rec.version + 1
        # a channel manager clears the damaged table away; the channel is free again
        await h2.abandon(User(2000000000000000009, "Mod", admin=True))
        assert await h2.store.active_in_channel(CHANNEL) is None
        await h2.command(ANN, "new")
        assert await h2.store.active_in_channel(CHANNEL) is not None
    finally:
        await h2.stop()


async def test_a_failed_hand_edit_neither_freezes_the_table_nor_reports_a_failure(
        bot: LiveBot) -> None:
    """Every hand message is gone when its move is clicked (dismissed, deleted): the move is
    saved, the player gets a fresh private hand, no apology, and the AI seat plays its turns."""
    from engine import observe
    from engine.agents import make_agent

    tid = await open_table(bot, ANN, [], ai=1, heroes={ANN.id: "horan"})
    players = Players(bot, tid, [ANN])
    turns = 0
    for _ in range(60):
        rec = await bot.bot.service.tables.load(tid)
        if rec.status != "running":
            break
        assert not rec.seats[rec.game.current].ai, "the AI seat must have played its turn"
        hand = await players.open_hand(ANN)
        dismissed_on_answer(bot.lb, hand)
        obs = observe(rec.game, rec.game.current)
        ix = await bot.play(ANN, hand, str(make_agent("heuristic", rec.version).choose(obs)))
        assert hand.deleted
        after = await bot.bot.service.tables.load(tid)
        assert after.version > rec.version
        assert not any("went wrong" in t for t in bot.said(ix))
        fresh = [m for m in bot.new_answers(ix) if m.components]
        assert fresh and all(m.owner == ANN.id for m in fresh), "a new private hand message"
        if (after.game.round, after.game.turn) != (rec.game.round, rec.game.turn):
            turns += 1
        if turns >= 2:
            break
    assert turns >= 2
    log = await bot.store.action_log(tid)
    assert any(r.by_ai for r in log)


async def test_a_failed_table_post_at_start_does_not_stop_the_ai(
        lb: Loopback, calls: list[Call], tmp_path: Path, clock: Clock) -> None:
    bot = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock,
                              seeds=lambda: 2)
    try:
        await bot.command(ANN, "new")
        lobby = bot.public()[-1]
        tid = table_id(lobby)
        for _ in range(3):
            await bot.click(ANN, lobby, LobbyButton.id_for(tid, "ai", None))

        def revoke() -> None:  # the bot loses the right to post as the game starts
            bot.channel.bot_permissions = 0

        on_answer(lb, lobby, revoke)
        await bot.click(ANN, lobby, LobbyButton.id_for(tid, "start", None))
        assert [c.status for c in calls if c.channel_post][-1] == 403  # Discord refused
        rec = await bot.bot.service.tables.load(tid)
        log = await bot.store.action_log(tid)
        assert log and log[0].by_ai, "this seed lets an AI seat begin"
        assert rec.status == "finished" or not rec.seats[rec.game.current].ai
    finally:
        await bot.stop()


@pytest.mark.allow_errors("cannot be resumed")
@pytest.mark.parametrize(("column", "value"), [
    ("guild_id", "guild"), ("deadline", "tomorrow"), ("timer", "soon"),
    ("message_id", "gone"), ("created_at", "then"),
])
async def test_a_damaged_ordinary_column_neither_stops_the_start_nor_the_timers(
        lb: Loopback, tmp_path: Path, clock: Clock, column: str, value: str) -> None:
    db = tmp_path / "k.db"
    h1 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    await h1.command(ANN, "new", timer=60)
    lobby = h1.public()[-1]
    t1 = table_id(lobby)
    await h1.click(BOB, lobby, LobbyButton.id_for(t1, "join", None))
    await h1.click(ANN, lobby, LobbyButton.id_for(t1, "start", None))
    other = lb.create_channel(h1.guild, "other")
    svc = h1.bot.service
    rec2 = await svc.lobby.create(guild_id=h1.guild.id, channel_id=other.id, host_id=ANN.id,
                            host_name="Ann", timer=60)
    await svc.lobby.add_ai(rec2.id, ANN.id)
    await svc.lobby.start(rec2.id, ANN.id)
    await h1.stop()
    store = await Store.open(db, clock=clock)
    await SqliteBackend(db).damage_table(store, t1, **{column: value})
    await store.close()
    h2 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)  # starts all the same
    try:
        rec2 = await h2.bot.service.tables.load(rec2.id)
        assert rec2.message_id is not None  # the healthy table was resumed (its message posted)
        assert [m.id for m in h2.public(other)][-1] == rec2.message_id
        assert rec2.deadline is not None
        clock.now = rec2.deadline + 1
        await h2.bot.scheduler.check_timers()  # the damaged table does not stop the others
        await h2.settle()
        log = await h2.store.action_log(rec2.id)
        assert any(r.by_ai and r.seat == 0 for r in log)  # the AI played Ann's timed-out turn
    finally:
        await h2.stop()


async def test_a_stale_click_on_a_gone_hand_message_gets_a_fresh_hand(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    user, hand, rec = await my_turn_hand(bot, tid, [ANN, BOB])
    move = next(iter(offered(hand)))
    await bot.bot.service.play.act(tid, user.id, rec.version, move)
    dismissed_on_answer(bot.lb, hand)  # dismissed meanwhile
    ix = await bot.play(user, hand, move)
    assert hand.deleted
    fresh = [m for m in bot.new_answers(ix) if m.components]
    assert fresh and fresh[0].owner == user.id and "already played" in fresh[0].text()
    assert not any("went wrong" in t for t in bot.said(ix))


@pytest.mark.allow_errors("turn timer of table")
async def test_one_broken_timer_does_not_stop_the_others(
        bot: LiveBot, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    svc = bot.bot.service
    tids = []
    for n in range(2):
        channel = bot.lb.create_channel(bot.guild, f"table-{n}")
        rec = await svc.lobby.create(guild_id=bot.guild.id, channel_id=channel.id, host_id=ANN.id,
                               host_name="Ann", timer=60)
        await svc.lobby.join(rec.id, BOB.id, "Bob")
        await svc.lobby.start(rec.id, ANN.id)
        tids.append(rec.id)
    real = svc.play.expire

    async def expire(table: int, version: int, *going: Any) -> Any:
        if table == tids[0]:
            raise RuntimeError("boom")
        return await real(table, version, *going)

    monkeypatch.setattr(svc.play, "expire", expire)
    clock.now += 61
    with pytest.raises(TimersFailed, match="boom"):  # for the supervisor, once all ran
        await bot.bot.scheduler.check_timers()
    await bot.settle()
    assert (await svc.tables.load(tids[0])).version == 0
    assert (await svc.tables.load(tids[1])).version > 0


async def test_the_client_waits_out_global_rate_limits(bot: LiveBot) -> None:
    """discord.py's session carries the hooks that hold requests through a global 429 (their
    behaviour is tested against the stand-in in tests/loopback/test_loopback_discordpy_429.py)."""
    assert bot.bot.http.http_trace is bot.bot.global_wait.trace
    assert bot.bot.global_wait.hold


async def test_an_expired_click_is_one_warning_and_no_traceback(
        bot: LiveBot, calls: list[Call], caplog: pytest.LogCaptureFixture) -> None:
    """A click answered after Discord's 3 seconds (404, JSON code 10062) is logged in one
    warning line: no traceback, no second answer that would fail the same way."""
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    since = len(calls)
    with caplog.at_level(logging.WARNING):
        ix = await bot.lb.click(BOB, lobby, resolve(lobby, LobbyButton.id_for(tid, "join", None)))
        bot.lb.clock.advance(4)  # the answer comes too late
        await bot.handled(ix)
    answers = [c for c in calls[since:] if c.path.startswith(("/interactions/", "/webhooks/"))]
    assert len(answers) == 1 and answers[0].status == 404, [(c.path, c.status) for c in answers]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert any("expired" in r.getMessage() for r in caplog.records)
    assert [b.rule for b in bot.lb.breaches] == ["late"]
    bot.lb.breaches.clear()


def test_a_token_past_its_15_minutes_is_an_expired_click() -> None:
    """Discord refuses follow-ups and edits through a token older than 15 minutes (401, JSON
    code 50027): a click answered that late is expired, not a failure of the bot."""
    from types import SimpleNamespace

    from discord import HTTPException

    from bot.discord_side.context import expired

    def refused(status: int, code: int) -> HTTPException:
        response: Any = SimpleNamespace(status=status, reason="")
        return HTTPException(response, {"code": code, "message": ""})

    assert expired(refused(401, 50027)) and expired(refused(404, 10062))
    assert not expired(refused(403, 50013))


async def test_a_reply_cut_off_by_the_network_never_reports_a_saved_move_as_failed(
        bot: LiveBot) -> None:
    """The connection drops as the answer to a move's click goes out (the move is written):
    the player is not told something went wrong, and gets a fresh private hand."""
    import aiohttp

    tid = await open_table(bot, ANN, [BOB])
    user, hand, rec = await my_turn_hand(bot, tid, [ANN, BOB])
    session: Any = bot.bot.http._HTTPClient__session  # type: ignore[attr-defined]
    real = session.request
    cut: list[str] = []

    def request(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        if not cut and "/interactions/" in str(url):
            cut.append(str(url))
            raise aiohttp.ServerDisconnectedError()
        return real(method, url, *args, **kwargs)

    session.request = request
    try:
        notation = next(n for n, v in offered(hand).items() if v[1] is None and n != "merchant")
        ix = await bot.play(user, hand, notation)
    finally:
        session.request = real
    assert cut
    assert (await bot.bot.service.tables.load(tid)).version == rec.version + 1
    assert not any("went wrong" in t for t in bot.said(ix)), bot.said(ix)
    assert [m for m in bot.new_answers(ix) if m.components and m.owner == user.id]


async def test_a_turn_s_post_cut_off_by_the_network_is_edited_in_instead(bot: LiveBot) -> None:
    """The connection drops as the table message of a new turn is posted: as when Discord
    refuses that post, the table message standing is edited to show the turn."""
    import aiohttp

    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    svc = bot.bot.service
    rec, state, _, _ = await before_a_turn_ends(players)
    table = bot.last_table_message()
    session: Any = bot.bot.http._HTTPClient__session  # type: ignore[attr-defined]
    real = session.request
    cut: list[str] = []

    def request(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        if not cut and method == "POST" and str(url).endswith(f"/channels/{CHANNEL}/messages"):
            cut.append(str(url))
            raise aiohttp.ServerDisconnectedError()
        return real(method, url, *args, **kwargs)

    session.request = request
    try:
        assert await players.step()
    finally:
        session.request = real
    assert cut
    now = await svc.tables.load(tid)
    assert now.version == rec.version + 1
    shown = bot.message(table)
    nxt = now.seats[now.game.current].user
    assert nxt != rec.seats[state.current].user
    assert f"<@{nxt}>" in shown.text(), shown.text()  # whose turn it is now
    assert bot.last_table_message().id == table.id
    assert f"kg:hand:{tid}" in shown.custom_ids()


@pytest.mark.parametrize("columns", [{"timer": "soon"}, {"timer": -5}, {"threads": 7},
                                     {"abilities": "yes"}, {"locale": "xx"}])
async def test_a_damaged_server_settings_row_reads_as_the_defaults(
        bot: LiveBot, tmp_path: Path, columns: dict[str, object]) -> None:
    """A server's settings row damaged on disk (a careless hand, a bot of another version): each
    damaged setting reads as its default, so tables still open there, and its admins see the
    settings as they stand and set them again."""
    from players import ADMIN
    await bot.command(ADMIN, "settings", ai_level="hard", language="fr")
    await SqliteBackend(tmp_path / "k.db").damage_settings(bot.store, bot.guild.id, **columns)
    ix = await bot.command(ANN, "new")
    assert not bot.said(ix), bot.said(ix)
    rec = await bot.bot.service.tables.in_channel(CHANNEL)
    assert rec.ai_level == "hard" and rec.timer == 0  # the settings not damaged still hold
    assert rec.locale == ("en" if "locale" in columns else "fr")
    [text] = bot.said(await bot.command(ADMIN, "settings", timer=60))
    assert "turn timer: 1\u00a0min" in text and "AI level: hard" in text, text
    assert "bot.language" not in text, text


async def _move(players: Players) -> tuple[User, str]:
    """The seat to move plays the heuristic agent's move in its hand: who moved, and what
    their private answer says."""
    from engine import observe
    from engine.agents import make_agent

    rec = await players.h.bot.service.tables.load(players.tid)
    user = players.users[rec.seats[rec.game.current].user or 0]
    hand = await players.open_hand(user)
    want = str(make_agent("heuristic", rec.version).choose(observe(rec.game, rec.game.current)))
    ix = await players.h.play(user, hand, want)
    assert (await players.h.bot.service.tables.load(players.tid)).version > rec.version
    return user, " ".join([players.h.reply(ix).text(), *players.h.said(ix)])


async def test_a_mover_is_told_once_that_the_table_cannot_show_their_move(
        bot: LiveBot, clock: Clock) -> None:
    """A moderator takes View Channel from the bot mid-match: the moves are still played, and
    each person who moves is told once, in their hand, that the table cannot be updated and
    which permission to ask an admin for; told again once it was granted and taken again."""
    from loopback.permissions import VIEW_CHANNEL

    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    _, said = await _move(players)
    assert "View Channel" not in said
    bot.channel.bot_permissions &= ~VIEW_CHANNEL
    told: dict[int, int] = {}
    for _ in range(12):
        user, said = await _move(players)
        if "View Channel" in said:
            assert f"<#{CHANNEL}>" in said and "ask an admin" in said.lower(), said
            told[user.id] = told.get(user.id, 0) + 1
        await bot.settle()
    assert told == {ANN.id: 1, BOB.id: 1}, told  # each mover once, not on every click
    bot.channel.bot_permissions |= VIEW_CHANNEL
    _, said = await _move(players)
    assert "View Channel" not in said
    bot.channel.bot_permissions &= ~VIEW_CHANNEL
    _, said = await _move(players)
    assert "View Channel" in said  # taken again: told again
