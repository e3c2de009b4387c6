"""The bot's background loops never die silently: the database fills up (SQLite's own
"database or disk is full", from a page limit on the bot's connection) while AI seats play two
tables; their AI loops fail, are logged once per failure streak, back off and retry, the health
check names them, and once the database has room again both matches go on to the end without a
restart."""
from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from e2e.lobby import open_table
from inprocess import InProcessBot, inprocess_bot, quiet
from storage.backends import fill_up, make_room

from bot.supervision.health import healthy, problems
from bot.supervision.tasks import UNHEALTHY_AFTER
from loopback import Loopback


async def run_until(ib: InProcessBot, done: Callable[[], Awaitable[bool]], what: str,
                    jumps: int = 5000) -> None:
    """Let the bot's time pass, from one wake-up to the next, until ``done()``."""
    for _ in range(jumps):
        await quiet(ib)
        if await done():
            return
        await ib.time.advance(ib.time.next_wake() - ib.time.now)
    raise AssertionError(f"{what} never happened")


def records(caplog: pytest.LogCaptureFixture, level: int, name: str) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.levelno == level and r.getMessage().startswith(f"{name} ")]


async def test_a_full_database_freezes_ai_tables_only_until_it_has_room(
        lb: Loopback, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="karak.bot")
    guild = lb.create_guild("Karak Club")
    host = lb.create_user("Eve")
    async with inprocess_bot(lb, tmp_path / "karak.sqlite3") as ib:
        channels = {}
        for name in ("hall", "cellar"):
            channel = lb.create_channel(guild, name)
            tid = await open_table(lb, channel, host, [], ai=1)
            await (await lb.command(host, channel, "goblin leave")).done()  # all seats AI
            channels[tid] = channel
        tables = list(channels)
        await quiet(ib)
        await fill_up(ib.store)
        failures = ib.bot.tasks.failures

        async def both_failing_long() -> bool:
            return all(s.failures >= UNHEALTHY_AFTER for s in
                       (failures.streaks.get(f"ai-{t}") for t in tables) if s is not None) \
                and all(f"ai-{t}" in failures.streaks for t in tables)

        await run_until(ib, both_failing_long, "both AI loops failing")
        for tid in tables:
            assert (await ib.store.get(tid)).status == "running"  # type: ignore[union-attr]
        await ib.time.advance(5)  # a heartbeat
        await quiet(ib)
        said = problems(ib.heartbeat)
        assert not healthy(ib.heartbeat)
        for tid in tables:
            assert any(line.startswith(f"ai-{tid} failing") and "database or disk is full"
                       in line for line in said), said

        await make_room(ib.store)

        async def finished() -> bool:
            found = [await ib.store.get(t) for t in tables]
            return all(r is not None and r.status == "finished" for r in found)

        await run_until(ib, finished, "both matches finishing")
        await run_until(ib, lambda: _true(not ib.bot.tasks.failures.streaks), "recovery")
        await ib.time.advance(5)
        await quiet(ib)
        assert healthy(ib.heartbeat), problems(ib.heartbeat)
        for tid, channel in channels.items():  # the results were posted
            assert any(m.owner is None and "wins" in m.text()
                       for m in lb.messages_for(channel, host)), tid
        # one error line per failure streak, however many retries it took
        for tid in tables:
            errors = records(caplog, logging.ERROR, f"ai-{tid}")
            recovered = records(caplog, logging.INFO, f"ai-{tid}")
            assert 1 <= len(errors) == len(recovered), (errors, recovered)
            assert len(records(caplog, logging.WARNING, f"ai-{tid}")) >= 1  # kept failing
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == sum(len(records(caplog, logging.ERROR, f"ai-{t}"))
                                  for t in tables), [r.getMessage() for r in errors]


async def _true(value: bool) -> bool:
    return value
