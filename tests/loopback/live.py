"""The real bot (:class:`bot.client.KarakBot`) in the test's own event loop, connected to a
stand-in, on a real SQLite file, with the game service's clock injected and tiny pictures.

Running in the test's loop (rather than as a process, see :mod:`loopback.botproc`) lets a race
test hold one request of the bot at a chosen point (:class:`Gate`) and so play a race the same
way every time.
"""
from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from discordpy_client import discordpy_client

from bot.client import KarakBot
from bot.service import GameService
from bot.storage import Store
from engine import Observation
from loopback import Loopback

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16


class TinyRenderer:
    """Stands in for Pillow: the same small PNG for every picture (pictures are tested apart)."""

    def table(self, obs: Observation, locale: str) -> bytes:
        return PNG

    def battle(self, obs: Observation, locale: str) -> bytes:
        return PNG

    def hand(self, obs: Observation, locale: str) -> bytes:
        return PNG


@dataclass
class Clock:
    """The game service's clock: it moves only when the test says so."""

    now: float = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Gate:
    """A point where the bot waits until the test opens the gate (``passed`` tells the test
    that the bot reached it)."""

    passed: asyncio.Event = field(default_factory=asyncio.Event)
    opened: asyncio.Event = field(default_factory=asyncio.Event)

    async def __call__(self) -> None:
        self.passed.set()
        await self.opened.wait()

    def open(self) -> None:
        self.opened.set()


@contextlib.asynccontextmanager
async def live_bot(lb: Loopback, db: Path, clock: Clock | None = None) -> AsyncIterator[KarakBot]:
    """The bot connected to ``lb`` (READY received, commands synced); stopped, its database
    closed and discord.py's URLs restored on leaving."""
    clock = clock or Clock()
    store = await Store.open(db, clock=clock)
    seeds = itertools.count(7)
    service = GameService(store, clock=clock, seeds=lambda: next(seeds))
    try:
        bot = KarakBot(service, TinyRenderer(), ai_pace=0, edit_delay=0, timer_poll=3600)
        async with discordpy_client(lb, bot):
            yield bot
    finally:
        await store.close()
