"""The real bot process against the stand-in: whole matches by simulated people, with the bot
killed (SIGKILL) at random points and started again on the same database."""
from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from e2e.botlog import bot_errors
from e2e.chaos import Chaos
from e2e.lobby import open_table, open_table_despite_crashes, until
from e2e.oracle import Oracle
from e2e.player import Player, check_acknowledged, play
from e2e.privacy import PrivacyWatch

from engine.replay import replay
from loopback import Channel, Loopback
from loopback.botproc import BotProcess


@pytest.fixture
async def bot(lb: Loopback, tmp_path: Path) -> AsyncIterator[BotProcess]:
    proc = BotProcess(lb, tmp_path / "karak.sqlite3")
    yield proc
    await proc.stop()


async def test_matches_survive_random_sigkills(lb: Loopback, bot: BotProcess,
                                               tmp_path: Path) -> None:
    rng = random.Random(20261122)
    watch = PrivacyWatch(lb, seating=Oracle(bot.db).heroes)
    lb.watchers.append(watch)
    guild = lb.create_guild("Karak Club", locale="en-US")
    hall, den = lb.create_channel(guild, "goblin-hall"), lb.create_channel(guild, "goblin-den")
    four = [lb.create_user("Ann", "en-US"), lb.create_user("Bruno", "fr"),
            lb.create_user("Cyril", "cs"), lb.create_user("Dora", "en-GB")]
    two = [lb.create_user("Eve", "en-US"), lb.create_user("Finn", "en-US")]
    await bot.start()
    oracle = Oracle(bot.db)
    # the bot dies 0-30 ms after some move clicks, and from a timer at any moment: while the
    # tables open, hands open, AI seats play alone, or just after the previous restart
    chaos = Chaos(bot, random.Random(rng.random()), every=(25, 90), timer=(2.0, 6.0))
    chaos.phase = "opening tables"
    chaos.start_timer(first=0.15)  # the first one while the hall's table opens
    t1 = await open_table_despite_crashes(lb, oracle, hall, four[0], four[1:])
    t2 = await open_table_despite_crashes(lb, oracle, den, two[0], two[1:], ai=2)
    players = ([Player(lb, u, hall, oracle, rng) for u in four]
               + [Player(lb, u, den, oracle, rng) for u in two])
    chaos.phase = "playing"
    await play(lb, players, [t1, t2], oracle, chaos)
    await chaos.stop_timer()

    def announced(channel: Channel) -> bool:
        public = [m for m in lb.messages_for(channel, four[0]) if m.owner is None]
        return bool(public) and any(  # game over: only Replay and Rematch left
            c.startswith("kg:rm:") for c in public[-1].custom_ids())

    await until(lb, lambda: announced(hall) and announced(den))

    assert chaos.kills - chaos.timed >= 3, f"too few kills after clicks: {chaos.log}"
    assert chaos.timed >= 4 and chaos.right_after >= 1, f"too few timed kills: {chaos.log}"
    assert ("timer", "opening tables") in chaos.log, chaos.log
    assert lb.breaches == [], "\n".join(map(str, lb.breaches))
    for tid in (t1, t2):
        rec = oracle.table(tid)
        assert rec.status == "finished" and rec.winner is not None
        # no state harmed: the stored game is exactly its action log replayed, take-backs and
        # the moves they took back (kept, marked undone) included
        log = oracle.log(tid)
        assert replay(rec.game.config, [r.action for r in log]) == rec.game
        assert replay(rec.game.config, [r.action for r in log
                                        if r.action != "undo" and not r.undone]) == rec.game
    takebacks = [r for tid in (t1, t2) for r in oracle.log(tid) if r.action == "undo"]
    undone = [r for tid in (t1, t2) for r in oracle.log(tid) if r.undone]
    assert len(takebacks) == len(undone) >= 3, "people took moves back"
    confirmed = check_acknowledged(players, oracle)
    assert confirmed > 100
    watch.check_moves(oracle)
    shown = watch.check_cards(oracle.history, [t1, t2])
    assert watch.problems == [] and watch.hands_seen > 50 and shown > 50
    assert all(p.unoffered == [] for p in players), [p.unoffered for p in players]
    # interactions lost only when the bot died under them, never otherwise
    failed = [ix for ix in lb.interactions.values() if ix.failed]
    assert all(ix in lb.orphaned or ix.failed == "the bot is offline" for ix in failed)
    assert bot_errors(bot, killed=True) == []


async def test_old_buttons_work_after_a_crash(lb: Loopback, bot: BotProcess) -> None:
    rng = random.Random(5)
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    ann, bob = lb.create_user("Ann"), lb.create_user("Bob")
    await bot.start()
    tid = await open_table(lb, channel, ann, [bob])
    oracle = Oracle(bot.db)
    rec = oracle.table(tid)
    current = ann if rec.seats[rec.game.current].user == ann.id else bob
    player = Player(lb, current, channel, oracle, rng)
    table_message = player.table_message()
    assert table_message is not None
    assert await player.open_hand(force=True)
    hand = player.hand()
    assert hand is not None
    bot.kill()
    await bot.wait()
    await bot.start()  # a new process, the same database; commands are not synced again
    sent = await player.send_move()
    assert sent is not None and sent[2].id == hand.id  # the hand message from before
    await player.finish_move(*sent)
    assert player.acknowledged and oracle.table(tid).version == rec.version + 1
    # the table message from before the crash still opens a hand
    ix = await lb.click(bob, table_message, f"kg:hand:{tid}")
    await ix.done()
    assert lb.message(ix.original_id or 0).owner == bob.id
    assert lb.breaches == [] and bot_errors(bot) == []
