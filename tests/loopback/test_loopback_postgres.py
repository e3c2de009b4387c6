"""The real bot process on a PostgreSQL database against the stand-in: a match of people and an
AI seat, the bot killed (SIGKILL) twice mid-match and started again on the same database, and
every move it acknowledged still in the action log at the end."""
from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from e2e.botlog import bot_errors
from e2e.lobby import open_table
from e2e.pg_oracle import PgOracle
from e2e.player import Player, check_acknowledged, play, play_until
from postgres_server import Server

from engine.replay import replay
from loopback import Loopback
from loopback.botproc import BotProcess


@pytest.fixture
async def url(postgres_server: Server) -> str:
    return await postgres_server.new_database()


@pytest.fixture
async def bot(lb: Loopback, tmp_path: Path, url: str) -> AsyncIterator[BotProcess]:
    proc = BotProcess(lb, tmp_path / "unused.sqlite3", extra_env={"KARAK_DB": url})
    yield proc
    await proc.stop()


async def test_a_match_on_postgresql_survives_sigkills(lb: Loopback, bot: BotProcess,
                                                       url: str, tmp_path: Path) -> None:
    rng = random.Random(7)
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    people = [lb.create_user("Ann"), lb.create_user("Bob")]
    await bot.start()
    oracle = PgOracle(url)
    tid = await open_table(lb, channel, people[0], people[1:], ai=1)
    players = [Player(lb, u, channel, oracle, rng) for u in people]
    for kill_at in (8, 20):
        await play_until(lb, players, lambda upto=kill_at: oracle.table(tid).version >= upto)
        bot.kill()
        await bot.wait()
        await bot.start()  # a new process, the same PostgreSQL database
    await play(lb, players, [tid], oracle)
    rec = oracle.table(tid)
    assert rec.status == "finished" and rec.winner is not None
    assert replay(rec.game.config, [r.action for r in oracle.log(tid)]) == rec.game
    assert check_acknowledged(players, oracle) > 5
    assert not (tmp_path / "unused.sqlite3").exists()  # the bot never used a file
    assert lb.breaches == [] and bot_errors(bot, killed=True) == []
