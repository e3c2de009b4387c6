"""Chaos on the real bot process: ten matches played through the stand-in while the bot is
SIGKILLed at seeded moments, the stand-in answers seeded 429s and the disk refuses every write
for a moment (see :mod:`chaos_run`). The figures are printed (``pytest -s`` shows them);
``benchmarks/chaos.py`` runs a larger plan with the same code."""
from __future__ import annotations

from pathlib import Path

from chaos_run import ChaosRun, Plan
from shared_files import discord_api_checked

from loopback import Loopback
from loopback.botproc import BotProcess

PLAN = Plan(seed=20261124, tables=10, kills=10)


async def test_matches_survive_kills_429s_and_a_full_disk(tmp_path: Path) -> None:
    async with Loopback(rate_limits=PLAN.schedule(), validate=discord_api_checked()) as lb:
        bot = BotProcess(lb, tmp_path / "karak.sqlite3", ai_pace=PLAN.ai_pace)
        try:
            figures = await ChaosRun(PLAN, lb, bot).run()
        finally:
            await bot.stop()
        print("\n" + figures.report())
        assert figures.problems(PLAN) == []
        assert lb.breaches == [], "\n".join(map(str, lb.breaches))
        assert bot.group_pids() == []  # nothing of the bot is left running
