"""Supervised background work: a failure streak is one error line, the retries back off
(doubling, capped), a lasting streak is named in the heartbeat file the health check reads, and
the work goes on once the trouble passes."""
from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
from pathlib import Path

import pytest

from bot.process.health import main as check
from bot.supervision import health
from bot.supervision.tasks import BACKOFF_CAP, UNHEALTHY_AFTER, Misconfigured, Tasks


class Pauses:
    """A ``sleep`` that records the pauses asked for and a clock they move."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.asked: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.asked.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


@pytest.mark.allow_errors("ai-7 failed")
async def test_a_failure_streak_is_logged_once_backs_off_and_ends(
        caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    caplog.set_level(logging.INFO, logger="karak.bot")
    pauses = Pauses()
    tasks = Tasks(pauses.sleep, pauses.clock)
    calls: list[int] = []
    seen_unhealthy: list[list[str]] = []

    async def step() -> bool:
        calls.append(1)
        seen_unhealthy.append(tasks.failures.unhealthy())
        if len(calls) <= 8:
            raise sqlite3.OperationalError("database or disk is full")
        return len(calls) < 10

    await tasks.repeat(step, "ai-7", pause=1.5)
    assert len(calls) == 10
    # each run waits its pause; each failure its backoff: 1, 2, 4 ... capped
    backoffs = [p for p in pauses.asked if p != 1.5]
    assert backoffs == [1, 2, 4, 8, 16, 32, BACKOFF_CAP, BACKOFF_CAP]
    # unhealthy once the streak reached UNHEALTHY_AFTER failures, named; healthy after
    assert seen_unhealthy[UNHEALTHY_AFTER - 1] == []
    lines = seen_unhealthy[UNHEALTHY_AFTER]
    assert len(lines) == 1 and lines[0].startswith("ai-7 failing: 5 failures")
    assert "database or disk is full" in lines[0]
    assert tasks.failures.unhealthy() == []
    logged = [(r.levelno, r.getMessage()) for r in caplog.records]
    assert [m for lv, m in logged if lv == logging.ERROR] == [
        "ai-7 failed (OperationalError: database or disk is full); retrying until it works"]
    assert len([m for lv, m in logged if lv == logging.WARNING]) == 1
    assert [m for lv, m in logged if lv == logging.INFO] == ["ai-7 works again after 8 failures"]
    assert sum(1 for r in caplog.records if r.exc_info) == 1  # one traceback, not eight


@pytest.mark.allow_errors("turn-timers failed")
async def test_a_long_streak_is_unhealthy_by_time_too() -> None:
    pauses = Pauses()
    tasks = Tasks(pauses.sleep, pauses.clock)
    tasks.failures.failed("turn-timers", RuntimeError("boom"))
    assert tasks.failures.unhealthy() == []
    pauses.now += 121
    assert [line.split(":")[0] for line in tasks.failures.unhealthy()] == [
        "turn-timers failing"]
    tasks.failures.worked("turn-timers")
    assert tasks.failures.unhealthy() == []


@pytest.mark.allow_errors("shards failed until the settings are mended")
async def test_a_failure_only_the_settings_mend_says_so_whole_and_without_a_traceback(
        caplog: pytest.LogCaptureFixture) -> None:
    pauses = Pauses()
    tasks = Tasks(pauses.sleep, pauses.clock)
    told = "give each shard to one process only (KARAK_SHARD_IDS). " + "Until then " * 30
    for _ in range(UNHEALTHY_AFTER):
        tasks.failures.failed("shards", Misconfigured(told))
    [error] = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert error.getMessage() == f"shards failed until the settings are mended: {told}"
    assert not error.exc_info and "retrying" not in error.getMessage()
    [line] = tasks.failures.unhealthy()
    assert line.endswith(f"last: Misconfigured: {told}")  # whole, past 200 characters


async def test_stopping_lets_an_answer_in_flight_finish_and_cancels_one_too_slow() -> None:
    """An interaction being answered when the bot stops is finished within the grace time
    (its messages are sent before the connection closes); one slower than that is cancelled."""
    tasks = Tasks()
    release, done = asyncio.Event(), []

    async def answer(name: str) -> None:
        async with tasks.in_flight():
            await release.wait()
            done.append(name)

    quick = asyncio.create_task(answer("quick"))
    await asyncio.sleep(0)  # the answer starts (a discord.py task of its own)
    closing = asyncio.create_task(tasks.close(grace=60))
    await asyncio.sleep(0)
    assert not closing.done()  # waiting for the answer in flight
    release.set()
    await closing
    assert done == ["quick"] and quick.done() and not quick.cancelled()

    tasks, release = Tasks(), asyncio.Event()
    slow = asyncio.create_task(answer("slow"))
    await asyncio.sleep(0)
    await tasks.close(grace=0)  # no grace: the answer in flight is cancelled
    assert slow.cancelled() and done == ["quick"]
    async with tasks.in_flight():  # once stopped, nothing more is waited for
        assert not tasks._tasks


async def test_a_stop_ends_resting_loops_at_once_and_lets_a_step_under_way_finish() -> None:
    """Once a stop begins, a loop between two steps ends there and then, even an endless one;
    a loop in the middle of a step (a move being written) finishes it and starts no other."""
    tasks = Tasks()
    inside, release = asyncio.Event(), asyncio.Event()
    steps: list[str] = []

    async def writing() -> bool:
        steps.append("write")
        inside.set()
        await release.wait()
        return True  # it would go on

    async def resting() -> bool:
        steps.append("rest")  # pragma: no cover - the loop never gets past its pause
        return True

    busy = tasks.repeat(writing, "ai-1", 0.0)
    idle = tasks.repeat(resting, "turn-timers", 3600.0, endless=True)
    await inside.wait()
    closing = asyncio.create_task(tasks.close(grace=60))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert tasks.stopping and idle.done() and idle.cancelled()  # ended in its pause
    assert not closing.done()  # waiting for the step under way
    release.set()
    await closing
    assert steps == ["write"] and busy.done() and not busy.cancelled()


async def test_a_loop_asks_its_pause_before_each_rest() -> None:
    """A loop whose pause is a function asks it before each rest, after the step before (the
    reminders' loop rests until the next reminder falls due)."""
    pauses = Pauses()
    tasks = Tasks(pauses.sleep, pauses.clock)
    planned = iter([0.0, 60.0, 3.5])
    steps: list[float] = []

    async def step() -> bool:
        steps.append(pauses.now)
        return len(steps) < 3

    # a safety net only: the loop takes no time (a pause that is no number would be retried
    # after every backoff, for ever)
    await asyncio.wait_for(tasks.repeat(step, "reminders", lambda: next(planned)), 30)
    assert pauses.asked == [0.0, 60.0, 3.5] and steps == [1000.0, 1060.0, 1063.5]


def test_the_health_check_reports_failing_loops(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "alive"
    monkeypatch.setenv("KARAK_HEARTBEAT", str(path))
    monkeypatch.chdir(tmp_path)  # no .env of the developer's read
    assert check([]) == 1
    assert "no heartbeat file" in capsys.readouterr().out
    health.write_heartbeat(path, [])
    assert health.healthy(path) and check([]) == 0
    line = "ai-3 failing: 6 failures in 31 s, last: OperationalError: database or disk is full"
    health.write_heartbeat(path, [line])
    assert not health.healthy(path)
    assert check([]) == 1
    assert capsys.readouterr().out.strip() == line
    health.write_heartbeat(path, [])
    stat = path.stat()
    os.utime(path, (stat.st_atime, stat.st_mtime - 120))
    assert health.problems(path) == ["heartbeat 120 s old"]
