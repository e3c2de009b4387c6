"""Two tests that ``test_bot_teardown.py`` runs, in this order, in a pytest of their own (this
module is not collected with the suite): the first fails with a bot running, its hint worker
processes started; the second finds nothing of that bot left: its worker processes ended, its
database closed, no thread it started still running."""
from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from pathlib import Path

from bot_helpers import Clock, alive
from live_bot import LiveBot
from players import TinyRenderer

from loopback import Loopback

#: What the failing test said the next one should no longer find.
MESSAGE = "a step fails, the bot still running"


@dataclass
class Left:
    """The bot of the failing test: its worker processes, its database file, and the threads
    that ran before it started."""

    h: LiveBot
    workers: list[int]
    db: Path
    threads: set[threading.Thread]


LEFT: list[Left] = []


async def test_a_step_fails_with_the_bot_running(lb: Loopback, tmp_path: Path,
                                                 clock: Clock) -> None:
    threads = set(threading.enumerate())
    h = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock)
    h.bot.service.thinking.prepare_hints()
    async with asyncio.timeout(60):
        while len(h.bot.service.thinking.hints.pids()) < h.bot.service.thinking.hints.workers:
            await asyncio.sleep(0.05)
    LEFT.append(Left(h, h.bot.service.thinking.hints.pids(), tmp_path / "k.db", threads))
    raise AssertionError(MESSAGE)


def test_nothing_of_that_bot_is_left() -> None:
    left, = LEFT
    assert left.workers and not [pid for pid in left.workers if alive(pid)]
    assert left.h.bot.is_closed()
    assert not Path(f"{left.db}-wal").exists()  # SQLite removes it when the database closes
    started = [t for t in threading.enumerate() if t not in left.threads]
    for thread in started:
        thread.join(10)  # a thread ends a moment after it handed its last answer over
    assert [t.name for t in started if t.is_alive()] == []
    assert LiveBot.running == []
