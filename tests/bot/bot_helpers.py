"""Shared helpers of the bot tests (a unique module name: tests/bot is on sys.path)."""
from __future__ import annotations

import asyncio
import os
from pathlib import Path

from bot.game.tables import Tables
from bot.workers.thinking import advise, decide
from engine import Observation
from engine.agents.hint import Hint


class Clock:
    """The bot's time, moved by hand (seconds since 1970; ``start``: its first reading)."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


def normal_instead(level: str, seed: int, obs: Observation, seconds: float | None) -> str:
    """A worker's decision made at normal level (quick games with hard seats)."""
    return decide("normal", seed, obs, seconds)


def gated_decide(level: str, seed: int, obs: Observation, seconds: float | None) -> str:
    """A worker's decision that, while ``$KARAK_TEST_GATE/armed`` exists, first tells its pid
    through the FIFO ``started`` and waits until the test writes to the FIFO ``go``."""
    gate = Path(os.environ["KARAK_TEST_GATE"])
    if (gate / "armed").exists():
        (gate / "armed").unlink()
        with open(gate / "started", "w") as started:
            started.write(str(os.getpid()))
        with open(gate / "go") as go:
            go.read()
    return decide(level, seed, obs, seconds)


def gated_advise(obs: Observation, iterations: int) -> Hint:
    """A hint worker's job that, for the first job to find ``$KARAK_TEST_GATE/armed`` (it
    takes it away), first waits until the test writes to the FIFO ``go``."""
    gate = Path(os.environ["KARAK_TEST_GATE"])
    try:
        (gate / "armed").unlink()
    except FileNotFoundError:
        return advise(obs, iterations)
    with open(gate / "go") as go:
        go.read()
    return advise(obs, iterations)


def stuck_decide(level: str, seed: int, obs: Observation, seconds: float | None) -> str:
    """A worker that never answers (it waits on a FIFO nobody writes to)."""
    with open(Path(os.environ["KARAK_TEST_GATE"]) / "never") as never:
        never.read()
    return decide(level, seed, obs, seconds)  # pragma: no cover - never reached


def dying_decide(level: str, seed: int, obs: Observation, seconds: float | None) -> str:
    """A worker that dies in the middle of a decision."""
    os._exit(3)


async def holding(tables: Tables, table_id: int, release: asyncio.Event) -> asyncio.Task[None]:
    """A task that holds table ``table_id`` (as a long move does) until ``release`` is set;
    returned once the table is held."""
    held = asyncio.Event()

    async def hold() -> None:
        async with tables.hold(table_id):
            held.set()
            await release.wait()

    task = asyncio.create_task(hold())
    await held.wait()
    return task


def alive(pid: int) -> bool:
    """True while process ``pid`` runs (a child that ended and was waited for is gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
