"""The real bot on the stand-in: lobbies, whole matches, restarts, double clicks, and the clicks
it refuses (strangers, out of turn, stale, damaged)."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
from bot_helpers import Clock
from live_bot import CHANNEL, Call, LiveBot, offered
from players import ANN, BOB, EVE, Players, TinyRenderer, my_turn_hand, open_table, planted

from loopback import Loopback


async def test_new_table_posts_a_lobby(bot: LiveBot, calls: list[Call]) -> None:
    assert [c.method for c in calls if c.path.endswith("/commands")] == ["PUT"]  # first start
    assert [c["name"] for c in bot.lb.registered(None)] == ["goblin"]  # synced the commands
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    ids = lobby.custom_ids()
    assert any(i.startswith("kg:hero:") for i in ids)
    assert {i.split(":")[3] for i in ids if i.startswith("kg:lobby:")} == {
        "join", "leave", "ai", "unai", "start", "cancel"}


async def test_whole_match_one_human_and_ai(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [], ai=2, heroes={ANN.id: "horan"})
    players = Players(bot, tid, [ANN])
    for _ in range(3000):
        if not await players.step():
            break
    rec = await bot.bot.service.tables.load(tid)
    assert rec.status == "finished" and rec.winner is not None
    log = await bot.store.action_log(tid)
    assert len(log) == rec.version
    assert sum(1 for r in log if not r.by_ai) == players.clicks > 0
    final = bot.public()[-1]
    assert "wins" in final.text()
    assert final.custom_ids() == [f"kg:rp:{tid}:0:h.open", f"kg:rm:{tid}:offer"]  # no moves


async def test_whole_match_two_humans(bot: LiveBot, calls: list[Call]) -> None:
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    for _ in range(3000):
        if not await players.step():
            break
    rec = await bot.bot.service.tables.load(tid)
    assert rec.status == "finished"
    pings = [m for m in bot.lb.messages.values() if m.owner is None and m.mentions]
    assert pings and all(set(m.mentions) <= {ANN.id, BOB.id} for m in pings)
    # every turn message names and pings the one to play (the ping survives as a mention)
    turns = [c.body for c in calls if c.channel_post and "your turn" in str(c.body)]
    assert turns and all(b["allowed_mentions"]["users"] in ([str(ANN.id)], [str(BOB.id)])
                         and b["allowed_mentions"]["parse"] == [] for b in turns)
    assert all(f"<@{b['allowed_mentions']['users'][0]}>" in str(b) for b in turns)
    # every older table message was reduced to a pointer: no ping is left standing
    assert not [m for m in bot.public() if "your turn" in m.text()]
    # every post allows user mentions and nothing else
    for c in calls:
        if c.channel_post:
            am = c.body.get("allowed_mentions") or {}
            assert "everyone" not in am.get("parse", []) and "roles" not in am.get("parse", [])


async def test_restart_in_the_middle_old_buttons_still_work(
        lb: Loopback, calls: list[Call], tmp_path: Path, clock: Clock) -> None:
    db = tmp_path / "k.db"
    h1 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    tid = await open_table(h1, ANN, [BOB])
    players = Players(h1, tid, [ANN, BOB])
    for _ in range(12):
        await players.step()
    user, hand, rec = await my_turn_hand(h1, tid, [ANN, BOB])
    table_msg = copy.deepcopy(h1.last_table_message())  # as a client still shows it
    syncs = sum(1 for c in calls if c.method == "PUT")
    await h1.stop()

    h2 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)  # a new process, same db
    try:
        assert sum(1 for c in calls if c.method == "PUT") == syncs == 1  # unchanged: no sync
        # the hand message opened before the restart still plays
        await h2.play(user, hand, next(iter(offered(hand))))
        assert (await h2.bot.service.tables.load(tid)).version == rec.version + 1
        # and the table message's "My hand" button from before the restart opens a hand
        ix = await h2.click(user, table_msg, f"kg:hand:{tid}")
        assert h2.reply(ix).owner == user.id
        players = Players(h2, tid, [ANN, BOB])
        for _ in range(3000):
            if not await players.step():
                break
        assert (await h2.bot.service.tables.load(tid)).status == "finished"
    finally:
        await h2.stop()


async def test_restart_reposts_a_deleted_table_message(lb: Loopback, tmp_path: Path,
                                                       clock: Clock) -> None:
    db = tmp_path / "k.db"
    h1 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    tid = await open_table(h1, ANN, [BOB])
    old = h1.last_table_message()
    await h1.stop()
    lb.delete_message(old)  # someone deleted it while the bot was down
    h2 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        new = h2.last_table_message()
        assert new.id != old.id
        assert (await h2.store.get(tid)).message_id == new.id  # type: ignore[union-attr]
    finally:
        await h2.stop()


async def test_double_click_applies_once(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    user, hand, rec = await my_turn_hand(bot, tid, [ANN, BOB])
    # a button played at once (a visit to the merchant with nothing to pay is asked about first)
    notation, (cid, _) = next((n, v) for n, v in offered(hand).items()
                              if v[1] is None and n != "merchant")
    first = await bot.lb.click(user, hand, cid)  # two clicks before either is answered
    second = await bot.lb.click(user, hand, cid)
    await bot.handled(first, second)
    after = await bot.bot.service.tables.load(tid)
    assert after.version == rec.version + 1
    log = await bot.store.action_log(tid)
    assert [r.action for r in log] == [notation]
    assert "already played" in " ".join(bot.said(first, second))


async def test_stranger_and_out_of_turn_are_refused(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    user, hand, rec = await my_turn_hand(bot, tid, [ANN, BOB])
    other = BOB if user.id == ANN.id else ANN
    cid = next(v[0] for v in offered(hand).values() if v[1] is None)
    # the hand is ephemeral: only a modified client could click it
    texts = bot.said(await bot.click(EVE, hand, cid, forge=True),
                     await bot.click(other, hand, cid, forge=True))
    assert any("don't have a seat" in t for t in texts)
    assert any("not yours" in t for t in texts)  # the hand message is the player's
    # the same move on a message of nobody in particular (an older bot's): not their turn
    public = bot.lb.plant_message(bot.lb.channel(CHANNEL), copy.deepcopy(hand.components),
                                  flags=hand.flags & ~64)
    assert any("Not your turn" in t for t in bot.said(await bot.click(other, public, cid)))
    assert (await bot.bot.service.tables.load(tid)).version == rec.version
    # a stranger asking for a hand is told politely, privately
    ix = await bot.click(EVE, bot.last_table_message(), f"kg:hand:{tid}")
    assert bot.reply(ix).owner == EVE.id
    assert any("don't have a seat" in t for t in bot.said(ix))
    # only the host starts or cancels; a stranger cannot take a seat in a running game
    await bot.abandon(EVE)
    assert (await bot.bot.service.tables.load(tid)).status == "running"


async def test_stale_version_answers_already_played(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    user, hand, rec = await my_turn_hand(bot, tid, [ANN, BOB])
    cid = next(v[0] for v in offered(hand).values() if v[1] is None)
    parts = cid.split(":", 4)
    await bot.bot.service.play.act(tid, user.id, rec.version,
                              next(iter(offered(hand))))  # someone moved in between
    stale = copy.deepcopy(hand)  # the hand as the player's client still shows it
    ix = await bot.click(user, stale, cid)
    assert (await bot.bot.service.tables.load(tid)).version == rec.version + 1
    assert "already played" in " ".join(bot.said(ix))
    assert parts[3] == str(rec.version)


@pytest.mark.parametrize("custom_id", [
    "kg:", "kg:do", "kg:do:abc:1:end", "kg:do:1:x:end", "kg:do:1:2:", "kg:hand:-4",
    "kg:lobby:1:explode", "kg:zzz:1", "kg:pick:1:1", "kg:" + "9" * 97,
    "kg:sure:1:x:end", "kg:sure:1:2:", "kg:back:1:2", "kg:back:x",
])
async def test_malformed_custom_ids_get_a_polite_answer(bot: LiveBot, custom_id: str) -> None:
    ix = await bot.click(ANN, planted(bot.lb, ANN, custom_id), custom_id)
    texts = bot.said(ix)
    assert texts and "damaged" in texts[0]


async def test_unknown_move_notation_is_refused(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    rec = await bot.bot.service.tables.load(tid)
    user = ANN if rec.seats[rec.game.current].user == ANN.id else BOB
    for cid in (f"kg:do:{tid}:{rec.version}:fight:9-9", f"kg:do:{tid}:{rec.version}:fight:lord",
                "kg:do:999:0:end"):
        ix = await bot.click(user, planted(bot.lb, user, cid), cid)
        assert bot.said(ix), cid
    assert (await bot.bot.service.tables.load(tid)).version == rec.version
