"""The real bot process under the stand-in's seeded 429s (per route and global, 0.25 s each):
a whole match is played, the bot honours every ``retry_after`` and prints no traceback."""
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
