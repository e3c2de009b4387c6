"""Two real bot processes on one PostgreSQL database, each connected to one of two Discord
shards, with a match in a guild of each shard: one process is SIGKILLed mid-match. The other
finishes its own match, takes over the killed process's table once its lease lapsed (the AI
seats there move again, though nobody can click in that guild any more), and when the killed
process starts again it takes its table home at once and the people there finish their match
too, with one table message in their channel. No move acknowledged to a player is missing from
the action log."""
from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from e2e.botlog import bot_errors
from e2e.lobby import open_table, until
from e2e.messages import hand_button
from e2e.pg_oracle import PgOracle
from e2e.player import Player, check_acknowledged, play, play_until
from postgres_server import Server

from bot.discord_side.ui.custom_ids import HandButton
from engine.replay import replay
from loopback import Loopback
from loopback.botproc import BotProcess
from loopback.sharding import snowflake_on

SHARDS = 2
#: Seconds between two moves of an AI seat in each process. The process killed is slow, so its
#: AI seats are still to move when it dies right after its player's move.
PACES = (0.2, 3.0)


@pytest.fixture
async def url(postgres_server: Server) -> str:
    return await postgres_server.new_database()


@pytest.fixture
async def bots(lb: Loopback, tmp_path: Path, url: str) -> AsyncIterator[list[BotProcess]]:
    """Process ``n`` connects shard ``n`` of two, as instance ``karak-n``."""
    procs = [BotProcess(lb, tmp_path / "unused.sqlite3", log=tmp_path / f"bot-{n}.log",
                        ai_pace=PACES[n],
                        extra_env={"KARAK_DB": url, "KARAK_SHARD_COUNT": str(SHARDS),
                                   "KARAK_SHARD_IDS": str(n), "KARAK_INSTANCE": f"karak-{n}"})
             for n in range(SHARDS)]
    yield procs
    for proc in procs:
        await proc.stop()


async def test_the_surviving_process_takes_over_the_killed_ones_tables(
        lb: Loopback, bots: list[BotProcess], url: str, tmp_path: Path) -> None:
    rng = random.Random(11)
    survivor, victim = bots
    guilds = [lb.create_guild(f"Club {n}", guild_id=snowflake_on(n, SHARDS))
              for n in range(SHARDS)]
    halls = [lb.create_channel(g, "goblin-hall") for g in guilds]
    ann, bob, cat = lb.create_user("Ann"), lb.create_user("Bob"), lb.create_user("Cat")
    oracle = PgOracle(url)

    def ai_to_move(tid: int) -> bool:
        rec = oracle.table(tid)
        return rec.status == "running" and rec.seats[rec.game.current].ai

    # the victim alone first, so that it holds its table's lease (else the survivor, claiming
    # the tables nobody holds, could take it before the victim has work there)
    await victim.start(shards=[1])
    taken = await open_table(lb, halls[1], cat, [], ai=2)
    cats = [Player(lb, cat, halls[1], oracle, rng)]
    await play_until(lb, cats, lambda: oracle.lease_owner(taken) == "karak-1")
    await survivor.start(shards=[0])
    kept = await open_table(lb, halls[0], ann, [bob], ai=1)
    players = [Player(lb, ann, halls[0], oracle, rng), Player(lb, bob, halls[0], oracle, rng),
               *cats]

    # both matches under way; Cat has just moved, so the victim's AI seats are due
    await play_until(lb, players, lambda: oracle.table(kept).version >= 6
                     and oracle.table(taken).version >= 3 and ai_to_move(taken))
    victim.kill()
    await victim.wait()
    at_kill = oracle.table(taken)
    assert ai_to_move(taken), "the victim's AI seat moved before the kill: the test proves nothing"
    assert oracle.lease_owner(taken) == "karak-1"

    # the survivor's own match goes on and ends; meanwhile its lease loop takes over the
    # victim's table once the lease lapsed, and plays its AI seats up to Cat's turn
    await play(lb, players[:2], [kept], oracle, shards=[0])
    await until(lb, lambda: not ai_to_move(taken), timeout=60)
    assert oracle.table(taken).version > at_kill.version
    assert all(row.by_ai for row in oracle.log(taken)[at_kill.version:])
    assert oracle.lease_owner(taken) == "karak-0"

    # the victim starts again and takes its server's table home: Cat plays on, the AI seats
    # answer there (as quickly as the survivor's did)
    victim.ai_pace = PACES[0]
    await victim.start(shards=[1])
    await until(lb, lambda: oracle.lease_owner(taken) == "karak-1", timeout=30)
    await play(lb, players, [kept, taken], oracle)
    assert oracle.lease_owner(taken) in ("karak-1", None)  # never back to the survivor
    shown = [m for m in lb.messages_for(halls[1], cat)
             if m.owner is None and hand_button(m) == HandButton.id_for(taken)]
    assert len(shown) <= 1, "the table message was posted twice"
    for tid in (kept, taken):
        rec = oracle.table(tid)
        assert rec.status == "finished" and rec.winner is not None
        assert replay(rec.game.config, [r.action for r in oracle.log(tid)]) == rec.game
    assert check_acknowledged(players, oracle) > 5
    assert not (tmp_path / "unused.sqlite3").exists()
    assert bot_errors(survivor) == [] and bot_errors(victim, killed=True) == []
    assert lb.breaches == []
