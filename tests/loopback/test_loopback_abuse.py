"""Everything people (and broken clients) throw at the real bot: double clicks, strangers,
stale messages, malformed custom_ids, fuzzed command options, rate limits, gateway faults.
Every interaction must be answered within Discord's 3 s with a clear, private message, and no
table state may change except by legal moves of the seat whose turn it is."""
from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from e2e.answers import answered
from e2e.botlog import bot_errors
from e2e.lobby import open_table, until
from e2e.messages import hand_button, moves_of
from e2e.oracle import Oracle
from e2e.player import Player, play, play_until
from e2e.privacy import PrivacyWatch

from bot.discord_side.ui.custom_ids import HandButton, MoveButton
from engine.replay import replay
from loopback import Loopback, ManualClock
from loopback.botproc import BotProcess

MALFORMED = ["kg:", "kg:do", "kg:do:abc:1:end", "kg:do:1:x:end", "kg:do:1:2:", "kg:hand:-4",
             "kg:lobby:1:explode", "kg:zzz:1", "kg:pick:1:1", "kg:" + "9" * 97, "kg:hand:99999",
             "kg:do:1:0:" + "x" * 90]


@pytest.fixture
async def bot(lb: Loopback, tmp_path: Path) -> AsyncIterator[BotProcess]:
    proc = BotProcess(lb, tmp_path / "karak.sqlite3")
    await proc.start()
    yield proc
    await proc.stop()


async def test_abuse_is_answered_clearly_and_harms_nothing(lb: Loopback, bot: BotProcess) -> None:
    rng = random.Random(7)
    watch = PrivacyWatch(lb, seating=Oracle(bot.db).heroes)
    lb.watchers.append(watch)
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    ann, bob = lb.create_user("Ann"), lb.create_user("Bob")
    eve, mod = lb.create_user("Eve"), lb.create_user("Mod", admin=True)
    tid = await open_table(lb, channel, ann, [bob])
    oracle = Oracle(bot.db)
    rec = oracle.table(tid)
    me = ann if rec.seats[rec.game.current].user == ann.id else bob
    other = bob if me is ann else ann
    player = Player(lb, me, channel, oracle, rng)
    table = player.table_message()
    assert table is not None

    # a stranger: "My hand" and a forged move are refused privately
    ix = await lb.click(eve, table, HandButton.id_for(tid))
    await answered(lb, ix, eve, "don't have a seat")
    assert await player.open_hand(force=True)
    old_hand = player.hand()
    assert old_hand is not None
    cid = next(c for c, v in moves_of(old_hand).values() if v is None)
    ix = await lb.click(eve, old_hand, cid, forge=True)
    await answered(lb, ix, eve, "don't have a seat")
    # another player forges a click on the current player's hand: it is not theirs
    ix = await lb.click(other, old_hand, cid, forge=True)
    await answered(lb, ix, other, "not yours")
    assert oracle.table(tid).version == rec.version

    # a second hand message, then a double click on it: exactly one move is applied
    asked = player.asked.copy()
    player.asked.clear()
    assert await player.open_hand(force=True)
    player.asked |= asked
    hand = player.hand()
    assert hand is not None and hand.id != old_hand.id
    # a move played at once (a visit to the merchant with nothing to pay is asked about first)
    notation, (cid, value) = next((n, v) for n, v in moves_of(hand).items()
                                  if v[1] is None and n != "merchant")
    first, second = await lb.click(me, hand, cid), await lb.click(me, hand, cid)
    await asyncio.gather(first.done(10), second.done(10))
    assert oracle.table(tid).version == rec.version + 1
    assert [r.action for r in oracle.log(tid)] == [notation]
    # the older hand message is stale now: its buttons answer "already played" and refresh it
    stale_cid, stale_value = next(iter(moves_of(old_hand).values()))
    if stale_value is None:
        ix = await lb.click(me, old_hand, stale_cid)
    else:
        ix = await lb.select(me, old_hand, stale_cid, [stale_value])
    await answered(lb, ix, me, "already played")
    assert oracle.table(tid).version == rec.version + 1

    # damaged custom_ids, on messages "an older bot" left in the channel
    rec2 = oracle.table(tid)
    bad_ids = [*MALFORMED, f"kg:do:{tid}:{rec2.version}:fight:9-9",
               f"kg:pick:{tid}:{rec2.version}:play0"]
    for i, bad in enumerate(bad_ids):
        user = [ann, bob, eve, me][i % 4]
        button = {"type": 2, "style": 2, "label": "?", "custom_id": bad}
        old = lb.plant_message(channel, [{"type": 1, "components": [button]}],
                               owner=user if i % 2 else None)
        ix = await lb.click(user, old, bad)
        await answered(lb, ix, user, "damaged", "does not exist", "not a move",
                       "already played", "don't have a seat", "Not your turn")
    # a move button of the right table and version on a PUBLIC message (an older bot's, say):
    # clicking it must not publish the player's hand there
    rec2 = oracle.table(tid)
    seat_user = ann if rec2.seats[rec2.game.current].user == ann.id else bob
    legal = next(iter(moves_of(player.hand() or old_hand)))
    for version in (rec2.version - 1, rec2.version):
        cid = MoveButton.id_for(tid, version, legal)
        old = lb.plant_message(channel, [{"type": 1, "components": [
            {"type": 2, "style": 2, "label": "?", "custom_id": cid}]}])
        ix = await lb.click(seat_user, old, cid)
        await ix.done(10)
    assert watch.problems == [], watch.problems
    moves_made = oracle.table(tid).version - rec.version

    # fuzzed command options (a modified client can send anything)
    alphabet = "aZ09 _-*~`|<>@#&!?/\\'\"\n\t\u00e9\u010d\u0159\u4e2d\U0001F47A\u200b"
    fuzz = ["", " ", "@everyone", "<@&1>", "`" * 200, "x" * 6000, "\u0000\u0001",
            *("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 120)))
              for _ in range(12))]
    for text in fuzz:
        user = rng.choice([ann, eve, mod])
        ix = await lb.command(user, channel, "goblin card", forge=True, name=text)
        await answered(lb, ix, user)
        choices = await lb.autocomplete(user, channel, "goblin card", "name", text[:100])
        assert len(choices) <= 25
    for options in ({"timer": -5}, {"timer": 10**15}, {"timer": "soon"}, {"abilities": "maybe"},
                    {"abilities": 3, "timer": 7}, {"nonsense": 1}):
        ix = await lb.command(ann, channel, "goblin new", forge=True, **options)
        await answered(lb, ix, ann)
    for user, sub in ((eve, "settings"), (eve, "abandon"), (eve, "leave"), (eve, "start"),
                      (bob, "start"), (eve, "join"), (eve, "hand"), (eve, "status")):
        ix = await lb.command(user, channel, f"goblin {sub}", forge=True)
        await answered(lb, ix, user)

    # nothing of all that touched the game
    final = oracle.table(tid)
    assert final.status == "running" and final.version == rec.version + moves_made
    assert moves_made in (1, 2)
    assert replay(final.game.config, [r.action for r in oracle.log(tid)]) == final.game
    assert lb.breaches == [], "\n".join(map(str, lb.breaches))
    assert all(ix.status() == "done" for ix in lb.interactions.values())
    watch.check_moves(oracle)
    assert watch.check_cards(oracle.history, [tid]) > 0
    assert watch.problems == [], watch.problems
    assert bot_errors(bot) == []


async def test_rate_limits_gateway_faults_and_old_tokens(
        lb: Loopback, bot: BotProcess, clock: ManualClock) -> None:
    rng = random.Random(11)
    watch = PrivacyWatch(lb, seating=Oracle(bot.db).heroes)
    lb.watchers.append(watch)
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    ann, bob = lb.create_user("Ann"), lb.create_user("Bob", locale="fr")
    # Discord slows everything down for a while
    rules = [lb.inject_429(r"/channels/\d+/messages$", method="POST", count=3, retry_after=0.4),
             lb.inject_429(r"/channels/\d+/messages/\d+$", method="PATCH", count=3,
                           retry_after=0.3),
             lb.inject_429(r"/callback$", count=4, retry_after=0.5),
             lb.inject_429(r"/messages/@original$", count=4, retry_after=0.3),
             lb.inject_429(r"/channels/\d+/messages$", count=1, retry_after=0.2, global_=True)]
    tid = await open_table(lb, channel, ann, [bob], ai=2)
    oracle = Oracle(bot.db)
    players = [Player(lb, u, channel, oracle, rng) for u in (ann, bob)]

    async def some_moves(n: int) -> None:
        start = sum(p.clicks for p in players)
        await play_until(lb, players, lambda: sum(p.clicks for p in players) >= start + n)

    await some_moves(12)
    # the connection drops: the bot resumes, and a click made meanwhile is replayed
    resumes = lb.gateway.resumes
    await lb.gateway.drop()
    await some_moves(3)
    await until(lb, lambda: lb.gateway.resumes > resumes and lb.gateway.connected())
    # Discord asks for a reconnect (op 7), then invalidates the session (op 9): the bot must
    # come back to the stand-in, not to discord.com
    resumes = lb.gateway.resumes
    lb.gateway.send_reconnect()
    await until(lb, lambda: lb.gateway.resumes > resumes and lb.gateway.connected())
    await some_moves(3)
    identifies = lb.gateway.identifies
    lb.gateway.invalidate(resumable=False)
    await until(lb, lambda: lb.gateway.identifies > identifies and lb.gateway.connected())
    # sixteen minutes pass: old tokens are dead, old messages and buttons still work
    await asyncio.sleep(0.2)
    clock.advance(16 * 60)
    await play(lb, players, [tid], oracle)
    await until(lb, lambda: HandButton.id_for(tid) not in [m for m in lb.messages_for(channel, ann)
                                                      if m.owner is None][-1].custom_ids())

    assert lb.breaches == [], "\n".join(map(str, lb.breaches))
    assert all(r.hits for r in rules), [len(r.hits) for r in rules]
    rec = oracle.table(tid)
    assert rec.status == "finished"
    assert replay(rec.game.config, [r.action for r in oracle.log(tid)]) == rec.game
    lost = [ix for ix in lb.interactions.values() if ix.status() != "done"]
    assert all(ix in lb.orphaned for ix in lost)
    assert hand_button(lb.messages_for(channel, bob)[0]) is None  # the lobby, closed
    watch.check_moves(oracle)
    assert watch.check_cards(oracle.history, [tid]) > 10
    assert watch.problems == [], watch.problems
    assert bot_errors(bot) == []
