"""The real bot process (``python -m bot``) running both shards of two (``KARAK_SHARD_COUNT=2``)
against the stand-in: a whole match in a server on shard 1, every click reaching the bot on
shard 1's connection, a server on shard 0 and a direct message answered on shard 0; without
shard settings, every shard of the count Discord recommends; and a bot Discord finds too few
shards for stopping in one line."""
from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from e2e.botlog import bot_errors
from e2e.lobby import open_table
from e2e.oracle import Oracle
from e2e.player import Player, play
from shared_files import discord_api_checked

from engine.replay import replay
from loopback import Interaction, Loopback, ManualClock
from loopback.botproc import BotExited, BotProcess
from loopback.sharding import snowflake_on


@pytest.fixture
async def bot(lb: Loopback, tmp_path: Path) -> AsyncIterator[BotProcess]:
    proc = BotProcess(lb, tmp_path / "karak.sqlite3", extra_env={"KARAK_SHARD_COUNT": "2"})
    yield proc
    await proc.stop()


def shard(lb: Loopback, ix: Interaction) -> int:
    """The shard whose connection the interaction reached the bot on."""
    return int(lb.gateway.sessions[ix.session or ""].shard)


async def test_a_match_in_a_server_on_shard_1(lb: Loopback, bot: BotProcess) -> None:
    far = lb.create_guild("Far club", guild_id=snowflake_on(1, 2))
    near = lb.create_guild("Near club", guild_id=snowflake_on(0, 2))
    hall, lounge = lb.create_channel(far, "goblin"), lb.create_channel(near, "goblin")
    ann, bob = lb.create_user("Ann"), lb.create_user("Bob")
    await bot.start(sync=True)
    assert sorted(lb.gateway.current) == [0, 1] and lb.gateway.connected()
    oracle = Oracle(bot.db)
    tid = await open_table(lb, hall, ann, [bob])
    players = [Player(lb, u, hall, oracle, random.Random(3)) for u in (ann, bob)]
    await play(lb, players, [tid], oracle)
    rec = oracle.table(tid)
    assert rec.status == "finished" and rec.guild_id == far.id
    assert replay(rec.game.config, [r.action for r in oracle.log(tid)]) == rec.game
    in_hall = [ix for ix in lb.interactions.values() if ix.channel_id == hall.id]
    assert len(in_hall) > 10 and {shard(lb, ix) for ix in in_hall} == {1}
    for channel in (lounge, lb.dm(ann)):  # the other server and a DM: shard 0
        ix = await lb.command(ann, channel, "goblin rules")
        await ix.done()
        assert shard(lb, ix) == 0 and ix.failed is None
    assert lb.breaches == [] and bot_errors(bot) == []


async def test_without_settings_the_bot_runs_the_recommended_shards(tmp_path: Path,
                                                                    clock: ManualClock) -> None:
    async with Loopback(clock=clock, shards=2, validate=discord_api_checked()) as lb:
        far = lb.create_channel(lb.create_guild("Far club", shard=1))
        ann = lb.create_user("Ann")
        # GET /gateway/bot names a gateway nobody serves: the bot keeps to KARAK_GATEWAY_URL
        lb.world.rest_api.gateway_url = lambda: "ws://127.0.0.1:9/gateway"
        proc = BotProcess(lb, tmp_path / "karak.sqlite3")
        try:
            await proc.start(sync=True, timeout=30)
            assert sorted(lb.gateway.current) == [0, 1] and lb.gateway.connected()
            ix = await lb.command(ann, far, "goblin rules")
            await ix.done()
            assert shard(lb, ix) == 1 and ix.failed is None
        finally:
            await proc.stop()
        assert lb.breaches == [] and bot_errors(proc) == []


async def test_too_few_shards_stop_the_bot_in_one_line(tmp_path: Path,
                                                       clock: ManualClock) -> None:
    async with Loopback(clock=clock, shards=2, required_shards=2,
                        validate=discord_api_checked()) as lb:
        proc = BotProcess(lb, tmp_path / "karak.sqlite3", extra_env={"KARAK_SHARD_COUNT": "1"})
        try:
            with pytest.raises(BotExited):
                await proc.start()
            assert await proc.wait() == 2
        finally:
            await proc.stop()
        last = proc.log_text().strip().splitlines()[-1]
        assert last.startswith("Discord says the bot is in too many servers for its shards")
        assert lb.breaches == []
