"""Time for :class:`bot.discord_side.pace.ChannelPace` in tests: a clock that moves only when
the pace sleeps (or a test moves it), and only once everything else the bot was doing is done, so
the moves in flight all happen "before" the wait is over (a burst faster than the rate limit)."""
from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from bot.discord_side.pace import ChannelPace
from bot.supervision.tasks import Tasks


class PaceClock:
    """Injected time of a bot's pace: ``waits`` lists every wait the pace asked for. With
    ``base`` (a stand-in's :class:`~loopback.ManualClock`) the time is the stand-in's, and a
    wait moves both; ``limits`` go to the pace (:class:`ChannelPace`'s keywords)."""

    def __init__(self, base: Any = None, **limits: int) -> None:
        self.base = base
        self.limits = limits  # the pace's limits, when not Discord's
        self.offset = 1000.0
        self.waits: list[float] = []
        self._sleepers: set[asyncio.Task[Any]] = set()
        self.tasks: Callable[[], Iterable[asyncio.Task[Any]]] = set  # what a wait lets finish

    def __call__(self) -> float:
        return self.base() if self.base is not None else self.offset

    def advance(self, seconds: float) -> None:
        if self.base is not None:
            self.base.advance(seconds)
        else:
            self.offset += seconds

    async def sleep(self, seconds: float) -> None:
        """Let every other task of the bot finish (or wait as well), then move the clock."""
        me = asyncio.current_task()
        assert me is not None
        self.waits.append(seconds)
        self._sleepers.add(me)
        try:
            while others := [t for t in self.tasks() if not t.done()
                             and t not in self._sleepers]:
                await asyncio.wait(others, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._sleepers.discard(me)
        self.advance(seconds)

    def pace(self) -> ChannelPace:
        """A pace on this clock."""
        return ChannelPace(clock=self, sleep=self.sleep, **self.limits)

    def follow(self, tasks: Tasks) -> None:
        """A wait lets the background work of a bot (its
        :class:`~bot.supervision.tasks.Tasks`) finish first: its moves, AI turns and the other
        refreshes (not its endless loops: the turn timers, the leases)."""
        self.tasks = lambda: [t for t in tasks._tasks if t not in tasks.endless]
