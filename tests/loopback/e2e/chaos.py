"""Killing the bot (SIGKILL) and starting it again on the same database, after move clicks
and at random moments."""
from __future__ import annotations

import asyncio
import random

from loopback.botproc import BotProcess


class Chaos:
    """Kills the bot (SIGKILL) and starts it again on the same database: after some move clicks
    (``every``: a countdown of clicks, the kill 0-30 ms after the click) and, once
    :meth:`start_timer` ran, from a timer at random moments (``timer``: seconds between kills),
    whatever is going on then: a table opening, a hand being opened, AI seats playing alone,
    the bot just back from the previous kill (every ``quick``-th timed kill is followed by one
    0.05-0.5 s after the restart; ``limit`` timed kills at most). ``phase`` names what the
    test is doing; :attr:`log` keeps (how, phase) of every kill."""

    def __init__(self, bot: BotProcess, rng: random.Random, every: tuple[int, int],
                 timer: tuple[float, float] | None = None, quick: int = 3,
                 limit: int = 12) -> None:
        self.bot = bot
        self.rng = rng
        self.every = every
        self.timer = timer
        self.quick = quick
        self.limit = limit  # timed kills at most (each restart costs a second or two)
        self.countdown = rng.randint(*every)
        self.kills = 0
        self.timed = 0
        self.right_after = 0
        self.phase = ""
        self.log: list[tuple[str, str]] = []
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None

    def due(self) -> bool:
        """Count one move click; True when the bot should die under it."""
        self.countdown -= 1
        return self.countdown <= 0 and self.every[1] > 0

    async def restart(self, how: str = "click") -> None:
        """SIGKILL the bot, wait for it to be gone, start it again (one at a time)."""
        async with self._lock:
            self.log.append((how, self.phase))
            self.bot.kill()
            await self.bot.wait()
            self.kills += 1
            self.countdown = self.rng.randint(*self.every)
            await self.bot.start()

    def start_timer(self, first: float | None = None) -> None:
        """Start killing the bot at random moments in the background (the first kill after
        ``first`` seconds when given)."""
        if self.timer is not None and self._task is None:
            self._task = asyncio.ensure_future(self._timed_kills(self.timer, first))

    async def stop_timer(self) -> None:
        """Stop the timer (the bot is left running)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
        async with self._lock:  # a restart under way completes
            pass

    async def _timed_kills(self, timer: tuple[float, float], first: float | None) -> None:
        quick = False
        delay = first
        while self.timed < self.limit:
            if delay is None:
                delay = self.rng.uniform(0.05, 0.5) if quick else self.rng.uniform(*timer)
            await asyncio.sleep(delay)
            delay = None
            await self.restart("right after a restart" if quick else "timer")
            self.timed += 1
            self.right_after += quick
            quick = not quick and self.timed % self.quick == 0
