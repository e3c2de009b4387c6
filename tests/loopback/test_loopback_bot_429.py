"""The real bot process under the stand-in's seeded 429s (per route and global, 0.25 s each):
whole matches are played (one table, then six at once under a storm of global 429s), the bot
honours every ``retry_after`` (requests on the way when a global 429 comes included) and prints
no traceback."""
from __future__ import annotations

import random
from pathlib import Path

from e2e.lobby import open_table_despite_crashes
from e2e.oracle import Oracle
from e2e.player import Player, play
from shared_files import discord_api_checked

from loopback import Loopback, Schedule
from loopback.botproc import BotProcess


async def test_the_bot_honours_every_retry_after(tmp_path: Path) -> None:
    async with Loopback(rate_limits=Schedule(seed=9, rate=0.08, global_share=0.5),
                        validate=discord_api_checked()) as lb:
        bot = BotProcess(lb, tmp_path / "karak.sqlite3")
        try:
            guild = lb.create_guild("Karak Club", locale="en-US")
            hall = lb.create_channel(guild, "goblin-hall")
            host = lb.create_user("Eve", "en-US")
            await bot.start()
            oracle = Oracle(bot.db)
            table = await open_table_despite_crashes(lb, oracle, hall, host, [], ai=2)
            await play(lb, [Player(lb, host, hall, oracle, random.Random(5))], [table], oracle)
        finally:
            await bot.stop()
        limiter = lb.world.limiter
        assert limiter.scheduled >= 10 and limiter.retries
        assert [r for r in limiter.retries if not r.honoured] == []
        assert lb.breaches == []
        assert "Traceback" not in bot.log_text()


async def test_many_tables_under_a_storm_of_global_429s(tmp_path: Path) -> None:
    async with Loopback(rate_limits=Schedule(seed=9, rate=0.08, global_share=0.8),
                        validate=discord_api_checked()) as lb:
        bot = BotProcess(lb, tmp_path / "karak.sqlite3")
        try:
            guild = lb.create_guild("Karak Club", locale="en-US")
            await bot.start()
            oracle = Oracle(bot.db)
            players, tables = [], []
            for n in range(6):
                hall = lb.create_channel(guild, f"hall-{n}")
                host = lb.create_user(f"Player {n}", "en-US")
                tables.append(await open_table_despite_crashes(lb, oracle, hall, host, [],
                                                               ai=1))
                players.append(Player(lb, host, hall, oracle, random.Random(n)))
            await play(lb, players, tables, oracle)
        finally:
            await bot.stop()
        limiter = lb.world.limiter
        assert limiter.scheduled >= 50 and limiter.retries  # most of them global
        assert [r for r in limiter.retries if not r.honoured] == []
        assert lb.breaches == []
        assert "Traceback" not in bot.log_text()
