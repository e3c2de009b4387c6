from __future__ import annotations

import asyncio
import copy
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from discord_harness import CHANNEL, FakeDiscord, Harness, Message, User, body_text, snowflake

from bot.storage import Store
from engine import Observation

ANN = User(2000000000000000001, "Ann")
BOB = User(2000000000000000002, "Bob")
EVE = User(2000000000000000003, "Eve")
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16


class TinyRenderer:
    """Stands in for Pillow where a test plays hundreds of moves (images are tested apart)."""

    def table(self, obs: Observation, locale: str) -> bytes:
        return PNG

    def battle(self, obs: Observation, locale: str) -> bytes:
        assert obs.battle is not None
        return PNG

    def hand(self, obs: Observation, locale: str) -> bytes:
        assert obs.viewer is not None
        return PNG


async def test_new_table_posts_a_lobby(bot: Harness, fake: FakeDiscord) -> None:
    assert any(c.method == "PUT" for c in fake.calls)  # first start syncs the commands
    await bot.command(ANN, "new")
    lobby = fake.public()[-1]
    ids = lobby.custom_ids()
    assert any(i.startswith("kg:hero:") for i in ids)
    assert {i.split(":")[3] for i in ids if i.startswith("kg:lobby:")} == {
        "join", "leave", "ai", "unai", "start", "cancel"}


async def open_table(h: Harness, host: User, others: list[User], ai: int = 0,
                     heroes: dict[int, str] | None = None) -> int:
    await h.command(host, "new")
    lobby = h.fake.public()[-1]
    tid = int(next(i for i in lobby.custom_ids() if i.startswith("kg:lobby:")).split(":")[2])
    for u in others:
        await h.click(u, lobby, f"kg:lobby:{tid}:join")
        lobby = h.fake.messages[lobby.id]
    for _ in range(ai):
        await h.click(host, lobby, f"kg:lobby:{tid}:ai")
        lobby = h.fake.messages[lobby.id]
    for uid, hero in (heroes or {}).items():
        user = next(u for u in [host, *others] if u.id == uid)
        await h.choose(user, lobby, f"kg:hero:{tid}", [hero])
        lobby = h.fake.messages[lobby.id]
    await h.click(host, lobby, f"kg:lobby:{tid}:start")
    return tid


class Players:
    """Simulated people: they look at their hand message and click what they decide."""

    def __init__(self, h: Harness, tid: int, users: list[User]) -> None:
        self.h = h
        self.tid = tid
        self.users = {u.id: u for u in users}
        self.hand_msgs: dict[int, int] = {}
        self.clicks = 0

    async def open_hand(self, user: User) -> Any:
        table_msg = self.h.fake.last_table_message()
        token = await self.h.click(user, table_msg, f"kg:hand:{self.tid}")
        msg = self.h.reply(token)
        assert msg.flags & 64, "the hand message must be ephemeral"
        self.hand_msgs[user.id] = msg.id
        return msg

    async def step(self) -> bool:
        """One decision by the seat that must decide; False once the game is over."""
        from bot.service import GameService
        from engine import observe
        from engine.agents import make_agent

        svc: GameService = self.h.bot.service
        rec = await svc.load(self.tid)
        if rec.status != "running":
            return False
        state = rec.game
        seat = rec.seats[state.current]
        assert seat.user is not None and not seat.ai, "AI seats must have played by now"
        user = self.users[seat.user]
        msg = self.h.fake.messages.get(self.hand_msgs.get(user.id, 0))
        if msg is None or not msg.offered():
            msg = await self.open_hand(user)
        obs = observe(state, state.current)
        offered = msg.offered()
        assert set(offered) == {str(a) for a in obs.legal}, "exactly the legal moves"
        for cid, _ in offered.values():
            assert f":{rec.version}:" in cid and len(cid) <= 100
        want = str(make_agent("heuristic", state.step).choose(obs))
        cid, value = offered[want]
        if value is None:
            await self.h.click(user, msg, cid)
        else:
            await self.h.choose(user, msg, cid, [value])
        self.clicks += 1
        after = await svc.load(self.tid)
        assert after.version > rec.version, f"{want} was not applied"
        return True


async def test_whole_match_one_human_and_ai(bot: Harness, fake: FakeDiscord) -> None:
    tid = await open_table(bot, ANN, [], ai=2, heroes={ANN.id: "horan"})
    players = Players(bot, tid, [ANN])
    for _ in range(3000):
        if not await players.step():
            break
    rec = await bot.bot.service.load(tid)
    assert rec.status == "finished" and rec.winner is not None
    log = await bot.store.action_log(tid)
    assert len(log) == rec.version
    assert sum(1 for r in log if not r.by_ai) == players.clicks > 0
    final = fake.public()[-1]
    assert "wins" in final.text()
    assert not final.custom_ids()  # no buttons on a finished table


async def test_whole_match_two_humans(bot: Harness, fake: FakeDiscord) -> None:
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    for _ in range(3000):
        if not await players.step():
            break
    rec = await bot.bot.service.load(tid)
    assert rec.status == "finished"
    posts = [c.body for c in fake.calls if c.method == "POST"
             and c.template == "/channels/{channel_id}/messages"]
    pings = [b for b in posts if "your turn" in body_text(b)]
    assert pings and all(f"<@{ANN.id}>" in body_text(b) or f"<@{BOB.id}>" in body_text(b)
                         for b in pings)
    assert all("users" in b["allowed_mentions"].get("parse", []) for b in pings)
    # every older table message was reduced to a pointer: no ping is left standing
    assert not [m for m in fake.public() if "your turn" in m.text()]
    # every post that mentions a player allows user mentions and nothing else
    for c in fake.calls:
        if c.method == "POST" and c.template == "/channels/{channel_id}/messages":
            am = c.body.get("allowed_mentions") or {}
            assert "everyone" not in am.get("parse", [])


async def my_turn_hand(h: Harness, tid: int, users: list[User]) -> tuple[User, Any, Any]:
    rec = await h.bot.service.load(tid)
    uid = rec.seats[rec.game.current].user
    user = next(u for u in users if u.id == uid)
    players = Players(h, tid, users)
    msg = await players.open_hand(user)
    return user, msg, rec


async def test_restart_in_the_middle_old_buttons_still_work(
        fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    h1 = await Harness.start(fake, db, TinyRenderer())
    tid = await open_table(h1, ANN, [BOB])
    players = Players(h1, tid, [ANN, BOB])
    for _ in range(12):
        await players.step()
    user, hand, rec = await my_turn_hand(h1, tid, [ANN, BOB])
    table_msg = copy.deepcopy(fake.last_table_message())  # as a client still shows it
    syncs = sum(1 for c in fake.calls if c.method == "PUT")
    await h1.stop()

    h2 = await Harness.start(fake, db, TinyRenderer())  # a new process, same database
    try:
        assert sum(1 for c in fake.calls if c.method == "PUT") == syncs  # unchanged: no sync
        # the hand message opened before the restart still plays
        offered = hand.offered()
        notation, (cid, value) = next(iter(offered.items()))
        if value is None:
            await h2.click(user, hand, cid)
        else:
            await h2.choose(user, hand, cid, [value])
        assert (await h2.bot.service.load(tid)).version == rec.version + 1
        # and the table message's "My hand" button from before the restart opens a hand
        token = await h2.click(user, table_msg, f"kg:hand:{tid}")
        assert h2.reply(token).flags & 64
        players = Players(h2, tid, [ANN, BOB])
        for _ in range(3000):
            if not await players.step():
                break
        assert (await h2.bot.service.load(tid)).status == "finished"
    finally:
        await h2.stop()


async def test_restart_reposts_a_deleted_table_message(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    h1 = await Harness.start(fake, db, TinyRenderer())
    tid = await open_table(h1, ANN, [BOB])
    old = fake.last_table_message()
    await h1.stop()
    fake.missing.add(old.id)  # someone deleted it while the bot was down
    h2 = await Harness.start(fake, db, TinyRenderer())
    try:
        new = fake.last_table_message()
        assert new.id != old.id
        assert (await h2.store.get(tid)).message_id == new.id  # type: ignore[union-attr]
    finally:
        await h2.stop()


async def test_double_click_applies_once(bot: Harness, fake: FakeDiscord) -> None:
    tid = await open_table(bot, ANN, [BOB])
    user, hand, rec = await my_turn_hand(bot, tid, [ANN, BOB])
    notation, (cid, value) = next((n, v) for n, v in hand.offered().items() if v[1] is None)
    since = len(fake.calls)
    p1 = bot._base(user, 3, {"custom_id": cid, "component_type": 2}, hand)
    p2 = bot._base(user, 3, {"custom_id": cid, "component_type": 2}, hand)
    bot.bot._connection.parse_interaction_create(p1)  # type: ignore[arg-type]
    bot.bot._connection.parse_interaction_create(p2)  # type: ignore[arg-type]
    await bot.settle()
    after = await bot.bot.service.load(tid)
    assert after.version == rec.version + 1
    log = await bot.store.action_log(tid)
    assert [r.action for r in log] == [notation]
    texts = " ".join(bot.ephemeral_texts(since))
    embeds = json.dumps([c.body for c in fake.calls[since:]])
    assert "already played" in texts + embeds


async def test_stranger_and_out_of_turn_are_refused(bot: Harness, fake: FakeDiscord) -> None:
    tid = await open_table(bot, ANN, [BOB])
    user, hand, rec = await my_turn_hand(bot, tid, [ANN, BOB])
    other = BOB if user.id == ANN.id else ANN
    cid = next(v[0] for v in hand.offered().values() if v[1] is None)
    since = len(fake.calls)
    await bot.click(EVE, hand, cid)
    await bot.click(other, hand, cid)
    texts = bot.ephemeral_texts(since)
    assert any("don't have a seat" in t for t in texts)
    assert any("not yours" in t for t in texts)  # the hand message is the player's
    # the same move on a message of nobody in particular (an older bot's): not their turn
    public = Message(snowflake(), CHANNEL, components=copy.deepcopy(hand.components),
                     flags=hand.flags & ~64)
    fake.messages[public.id] = public
    since = len(fake.calls)
    await bot.click(other, public, cid)
    assert any("Not your turn" in t for t in bot.ephemeral_texts(since))
    assert (await bot.bot.service.load(tid)).version == rec.version
    # a stranger asking for a hand is told politely, privately
    since = len(fake.calls)
    token = await bot.click(EVE, fake.last_table_message(), f"kg:hand:{tid}")
    assert bot.reply(token).flags & 64
    assert any("don't have a seat" in t for t in bot.ephemeral_texts(since))
    # only the host starts or cancels; a stranger cannot take a seat in a running game
    await bot.command(EVE, "abandon")
    assert (await bot.bot.service.load(tid)).status == "running"


async def test_stale_version_answers_already_played(bot: Harness, fake: FakeDiscord) -> None:
    tid = await open_table(bot, ANN, [BOB])
    user, hand, rec = await my_turn_hand(bot, tid, [ANN, BOB])
    cid = next(v[0] for v in hand.offered().values() if v[1] is None)
    # forge a click on the same move one version back
    parts = cid.split(":", 4)
    await bot.bot.service.act(tid, user.id, rec.version,
                              next(iter(hand.offered())))  # someone moved in between
    since = len(fake.calls)
    await bot.click(user, hand, cid)
    assert (await bot.bot.service.load(tid)).version == rec.version + 1
    bodies = json.dumps([c.body for c in fake.calls[since:]])
    assert "already played" in bodies
    assert parts[3] == str(rec.version)


@pytest.mark.parametrize("custom_id", [
    "kg:", "kg:do", "kg:do:abc:1:end", "kg:do:1:x:end", "kg:do:1:2:", "kg:hand:-4",
    "kg:lobby:1:explode", "kg:zzz:1", "kg:pick:1:1", "kg:" + "9" * 97,
])
async def test_malformed_custom_ids_get_a_polite_answer(bot: Harness, fake: FakeDiscord,
                                                        custom_id: str) -> None:
    from discord_harness import CHANNEL, Message
    msg = Message(12345, CHANNEL, flags=64, components=[{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "x", "custom_id": custom_id}]}])
    fake.messages[msg.id] = msg
    since = len(fake.calls)
    await bot.click(ANN, msg, custom_id)
    texts = bot.ephemeral_texts(since)
    assert texts and "damaged" in texts[0]


async def test_unknown_move_notation_is_refused(bot: Harness, fake: FakeDiscord) -> None:
    from discord_harness import CHANNEL, Message
    tid = await open_table(bot, ANN, [BOB])
    rec = await bot.bot.service.load(tid)
    user = ANN if rec.seats[rec.game.current].user == ANN.id else BOB
    for cid in (f"kg:do:{tid}:{rec.version}:fight:9-9", f"kg:do:{tid}:{rec.version}:fight:lord",
                "kg:do:999:0:end"):
        msg = Message(99999, CHANNEL, flags=64, components=[{"type": 1, "components": [
            {"type": 2, "style": 1, "label": "x", "custom_id": cid}]}])
        fake.messages[msg.id] = msg
        since = len(fake.calls)
        await bot.click(user, msg, cid)
        assert bot.ephemeral_texts(since), cid
    assert (await bot.bot.service.load(tid)).version == rec.version


@pytest.mark.allow_errors("cannot be resumed")
async def test_corrupt_row_hurts_only_its_table(fake: FakeDiscord, tmp_path: Path) -> None:
    from discord_harness import CHANNEL
    db = tmp_path / "k.db"
    h1 = await Harness.start(fake, db, TinyRenderer())
    t1 = await open_table(h1, ANN, [BOB])
    await h1.stop()
    # a second table in another channel, then damage the first one
    import discord_harness
    store = await discord_harness.Store.open(db)
    from bot.service import GameService
    svc = GameService(store)
    rec2 = await svc.create(guild_id=1, channel_id=CHANNEL + 1, host_id=ANN.id, host_name="Ann")
    await svc.join(rec2.id, BOB.id, "Bob")
    await svc.start(rec2.id, ANN.id)
    await store.raw_execute("UPDATE tables SET state = '{\"format\": 1, \"state\": 3}' "
                            "WHERE id = ?", (t1,))
    await store.close()
    h2 = await Harness.start(fake, db, TinyRenderer())  # resumes: logs one clear error
    try:
        since = len(fake.calls)
        await h2.command(ANN, "status")
        assert any("damaged" in t for t in h2.ephemeral_texts(since))
        # the other table plays on
        rec = await h2.bot.service.load(rec2.id)
        uid = rec.seats[rec.game.current].user
        assert uid is not None
        out = await h2.bot.service.act(rec2.id, uid, rec.version,
                                       str(__import__("engine").legal_actions(rec.game)[0]))
        assert out.record.version == rec.version + 1
        # a channel manager clears the damaged table away; the channel is free again
        admin = User(2000000000000000009, "Mod", perms=discord_harness.ALL_PERMS)
        await h2.command(admin, "abandon")
        assert await h2.store.active_in_channel(CHANNEL) is None
        await h2.command(ANN, "new")
        assert await h2.store.active_in_channel(CHANNEL) is not None
    finally:
        await h2.stop()


async def test_a_failed_hand_edit_neither_freezes_the_table_nor_reports_a_failure(
        bot: Harness, fake: FakeDiscord) -> None:
    """Every hand message is gone when its move is clicked (dismissed, deleted): the move is
    saved, the player gets a fresh private hand, no apology, and the AI seat plays its turns."""
    from engine import observe
    from engine.agents import make_agent

    tid = await open_table(bot, ANN, [], ai=1, heroes={ANN.id: "horan"})
    players = Players(bot, tid, [ANN])
    turns = 0
    for _ in range(60):
        rec = await bot.bot.service.load(tid)
        if rec.status != "running":
            break
        assert not rec.seats[rec.game.current].ai, "the AI seat must have played its turn"
        hand = await players.open_hand(ANN)
        fake.missing.add(hand.id)
        obs = observe(rec.game, rec.game.current)
        cid, value = hand.offered()[str(make_agent("heuristic", rec.version).choose(obs))]
        since = len(fake.calls)
        if value is None:
            await bot.click(ANN, hand, cid)
        else:
            await bot.choose(ANN, hand, cid, [value])
        after = await bot.bot.service.load(tid)
        assert after.version > rec.version
        assert not any("went wrong" in t for t in bot.ephemeral_texts(since))
        fresh = [b for b in bot.followups(since) if b.get("components")]
        assert fresh and all(b["flags"] & 64 for b in fresh), "a new private hand message"
        if (after.game.round, after.game.turn) != (rec.game.round, rec.game.turn):
            turns += 1
        if turns >= 2:
            break
    assert turns >= 2
    log = await bot.store.action_log(tid)
    assert any(r.by_ai for r in log)


async def test_a_failed_table_post_at_start_does_not_stop_the_ai(
        fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await Harness.start(fake, tmp_path / "k.db", TinyRenderer(), seeds=lambda: 2)
    try:
        await bot.command(ANN, "new")
        lobby = fake.public()[-1]
        tid = int(lobby.custom_ids()[0].split(":")[2])
        for _ in range(3):
            await bot.click(ANN, fake.messages[lobby.id], f"kg:lobby:{tid}:ai")
        fake.forbidden = True  # the bot lost the right to post in the channel
        await bot.click(ANN, fake.messages[lobby.id], f"kg:lobby:{tid}:start")
        rec = await bot.bot.service.load(tid)
        log = await bot.store.action_log(tid)
        assert log and log[0].by_ai, "this seed lets an AI seat begin"
        assert rec.status == "finished" or not rec.seats[rec.game.current].ai
    finally:
        await bot.stop()


@pytest.mark.allow_errors("cannot be resumed")
@pytest.mark.parametrize(("column", "value"), [
    ("guild_id", "'guild'"), ("deadline", "'tomorrow'"), ("timer", "'soon'"),
    ("message_id", "'gone'"), ("created_at", "'then'"),
])
async def test_a_damaged_ordinary_column_neither_stops_the_start_nor_the_timers(
        fake: FakeDiscord, tmp_path: Path, column: str, value: str) -> None:
    from bot_helpers import Clock
    from discord_harness import CHANNEL

    clock = Clock()
    db = tmp_path / "k.db"
    h1 = await Harness.start(fake, db, TinyRenderer(), clock=clock)
    await h1.command(ANN, "new", timer=60)
    t1 = int(fake.public()[-1].custom_ids()[0].split(":")[2])
    await h1.click(BOB, fake.public()[-1], f"kg:lobby:{t1}:join")
    await h1.click(ANN, fake.messages[fake.public()[-1].id], f"kg:lobby:{t1}:start")
    svc = h1.bot.service
    rec2 = await svc.create(guild_id=1, channel_id=CHANNEL + 1, host_id=ANN.id, host_name="Ann",
                            timer=60)
    await svc.add_ai(rec2.id, ANN.id)
    await svc.start(rec2.id, ANN.id)
    await h1.stop()
    store = await Store.open(db)
    await store.raw_execute(f"UPDATE tables SET {column} = {value} WHERE id = ?", (t1,))
    await store.close()
    h2 = await Harness.start(fake, db, TinyRenderer(), clock=clock)  # starts all the same
    try:
        rec2 = await h2.bot.service.load(rec2.id)
        assert rec2.message_id is not None  # the healthy table was resumed (its message posted)
        if rec2.seats[rec2.game.current].ai:
            await h2.settle()
            rec2 = await h2.bot.service.load(rec2.id)
        assert rec2.deadline is not None
        clock.now = rec2.deadline + 1
        await h2.bot.background.check_timers()  # the damaged table does not stop the others
        await h2.settle()
        log = await h2.store.action_log(rec2.id)
        assert any(r.by_ai and r.seat == 0 for r in log)  # the AI played Ann's timed-out turn
    finally:
        await h2.stop()


async def test_a_stale_click_on_a_gone_hand_message_gets_a_fresh_hand(
        bot: Harness, fake: FakeDiscord) -> None:
    tid = await open_table(bot, ANN, [BOB])
    user, hand, rec = await my_turn_hand(bot, tid, [ANN, BOB])
    cid, value = next(iter(hand.offered().values()))
    await bot.bot.service.act(tid, user.id, rec.version, next(iter(hand.offered())))
    fake.missing.add(hand.id)  # dismissed meanwhile
    since = len(fake.calls)
    if value is None:
        await bot.click(user, hand, cid)
    else:
        await bot.choose(user, hand, cid, [value])
    fresh = [b for b in bot.followups(since) if b.get("components")]
    assert fresh and fresh[0]["flags"] & 64 and "already played" in json.dumps(fresh[0])
    assert not any("went wrong" in t for t in bot.ephemeral_texts(since))


@pytest.mark.allow_errors("turn timer of table")
async def test_one_broken_timer_does_not_stop_the_others(
        fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot_helpers import Clock
    from discord_harness import CHANNEL

    clock = Clock()
    h = await Harness.start(fake, tmp_path / "k.db", TinyRenderer(), clock=clock)
    try:
        svc = h.bot.service
        tids = []
        for n in range(2):
            rec = await svc.create(guild_id=1, channel_id=CHANNEL + 10 + n, host_id=ANN.id,
                                   host_name="Ann", timer=60)
            await svc.join(rec.id, BOB.id, "Bob")
            await svc.start(rec.id, ANN.id)
            tids.append(rec.id)
        real = svc.expire

        async def expire(table: int, version: int) -> Any:
            if table == tids[0]:
                raise RuntimeError("boom")
            return await real(table, version)

        monkeypatch.setattr(svc, "expire", expire)
        clock.now += 61
        await h.bot.background.check_timers()
        await h.settle()
        assert (await svc.load(tids[0])).version == 0
        assert (await svc.load(tids[1])).version > 0
    finally:
        await h.stop()


async def test_the_client_waits_out_global_rate_limits(bot: Harness) -> None:
    """discord.py's session carries the hooks that hold requests through a global 429 (their
    behaviour is tested against the stand-in in tests/loopback/test_loopback_discordpy_429.py)."""
    assert bot.bot.http.http_trace is bot.bot.global_wait.trace
    assert bot.bot.global_wait.hold


async def test_an_expired_click_is_one_warning_and_no_traceback(
        bot: Harness, fake: FakeDiscord, caplog: pytest.LogCaptureFixture) -> None:
    """A click whose answer Discord no longer takes (404, JSON code 10062) is logged in one
    warning line: no traceback, no second answer that would fail the same way."""
    await bot.command(ANN, "new")
    lobby = fake.public()[-1]
    tid = int(next(i for i in lobby.custom_ids() if i.startswith("kg:lobby:")).split(":")[2])
    fake.expired = True
    since = len(fake.calls)
    with caplog.at_level(logging.WARNING):
        await bot.click(BOB, lobby, f"kg:lobby:{tid}:join")
        for _ in range(20):
            await asyncio.sleep(0)
    answers = [c for c in fake.calls[since:] if c.template.startswith(("/interactions/",
                                                                      "/webhooks/"))]
    assert len(answers) == 1, [c.template for c in answers]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert any("expired" in r.getMessage() for r in caplog.records)
