"""The bot's background work: every task started here is kept, its failure logged (never
raised), and all of it can be awaited or cancelled at shutdown.

Work that must keep going (the AI seats' play, the turn timers, table refreshes, resuming) is
*supervised*: when it fails, the failure is logged once for the whole streak of failures (not
one traceback per retry), the work is tried again after a growing pause (doubling, capped at
:data:`BACKOFF_CAP`), and a streak that lasts (:data:`UNHEALTHY_AFTER` failures or
:data:`UNHEALTHY_FOR` seconds) is reported to the container's health check by name. A database
that was full, once it has room again, lets the work go on without a restart.

Stopping (:meth:`Tasks.close`) begins at once: no loop starts another step (a loop between two
steps ends there and then; one in a step, an AI seat's move being written, ends once the step is
done), no failed work is tried again, and the work under way gets a grace time to finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("karak.bot")

Sleep = Callable[[float], Awaitable[None]]
#: Seconds before the first retry of failed work; each further failure doubles the pause...
BACKOFF_START = 1.0
#: ... up to this many seconds.
BACKOFF_CAP = 60.0
#: A failure streak this long (in failures, or in seconds) makes the bot unhealthy.
UNHEALTHY_AFTER = 5
UNHEALTHY_FOR = 120.0


def backoff(failures: int) -> float:
    """The pause in seconds before retrying work that failed ``failures`` times in a row."""
    return min(BACKOFF_CAP, BACKOFF_START * 2.0 ** min(failures - 1, 32))


class Misconfigured(Exception):
    """A failure that only a change of the bot's settings mends, its text saying which: logged
    without a traceback, never as one that will go away by itself, and reported whole."""


@dataclass
class Streak:
    """Failures in a row of one piece of background work."""

    since: float
    failures: int
    error: str
    reported: bool = False  # the streak was logged as lasting (unhealthy)


class Failures:
    """The failure streaks of the bot's background work, by the work's name."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.streaks: dict[str, Streak] = {}

    def failed(self, name: str, exc: BaseException) -> int:
        """Note a failure of ``name``: the first of a streak is logged with its traceback (a
        :class:`Misconfigured` one with what to mend), later ones only when the streak becomes
        lasting. Returns the failures in the streak."""
        now = self.clock()
        mend = isinstance(exc, Misconfigured)
        error = f"{type(exc).__name__}: {exc}"
        if not mend:
            error = error[:200]
        streak = self.streaks.get(name)
        if streak is None:
            streak = self.streaks[name] = Streak(now, 0, error)
            if mend:
                log.error("%s failed until the settings are mended: %s", name, exc)
            else:
                log.error("%s failed (%s); retrying until it works", name, error, exc_info=exc)
        streak.failures += 1
        streak.error = error
        self.lasting(name, streak, now)
        return streak.failures

    def lasting(self, name: str, streak: Streak, now: float) -> bool:
        """True when the streak makes the bot unhealthy (logged once per streak)."""
        if streak.failures < UNHEALTHY_AFTER and now - streak.since < UNHEALTHY_FOR:
            return False
        if not streak.reported:
            streak.reported = True
            log.warning("%s keeps failing (%d failures in %.0f s, last: %s)", name,
                        streak.failures, now - streak.since, streak.error)
        return True

    def worked(self, name: str) -> None:
        """``name`` succeeded: its failure streak, if any, is over."""
        streak = self.streaks.pop(name, None)
        if streak is not None:
            log.info("%s works again after %d failures", name, streak.failures)

    def drop(self, name: str) -> None:
        """``name`` ended (or was stopped): forget its streak without a word."""
        self.streaks.pop(name, None)

    def unhealthy(self) -> list[str]:
        """One line for each lasting failure streak (what the health check reports)."""
        now = self.clock()
        return [f"{name} failing: {s.failures} failures in {now - s.since:.0f} s, last: "
                f"{s.error}" for name, s in sorted(self.streaks.items())
                if self.lasting(name, s, now)]


class Tasks:
    """Background tasks of one bot (``sleep`` and ``clock``: injectable for tests)."""

    def __init__(self, sleep: Sleep = asyncio.sleep,
                 clock: Callable[[], float] = time.time) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self.endless: set[asyncio.Task[Any]] = set()  # loops that never finish by themselves
        self.sleep = sleep
        self.failures = Failures(clock)
        self.stopping = False  # a stop began: no loop starts another step
        self.closed = False  # the grace time is over: no new work starts
        self._resting: set[asyncio.Task[Any]] = set()  # loops between two steps

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str,
              endless: bool = False) -> asyncio.Task[Any]:
        """Run ``coro`` in the background, logging (never raising) its failure. Once the bot is
        stopping, the work is cancelled before it starts (the database may be closed already)."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        if self.closed:
            task.cancel()
            return task
        self._tasks.add(task)
        if endless:
            self.endless.add(task)
        task.add_done_callback(self._finished)
        return task

    @contextlib.asynccontextmanager
    async def in_flight(self) -> AsyncIterator[None]:
        """Count the running task (an interaction being answered) as work to finish before the
        bot stops: :meth:`close` gives it the grace time, then cancels it."""
        task = asyncio.current_task()
        if task is None or self.closed or task in self._tasks:
            yield
            return
        self._tasks.add(task)
        try:
            yield
        finally:
            self._tasks.discard(task)

    def supervise(self, work: Callable[[], Coroutine[Any, Any, Any]], name: str,
                  endless: bool = False) -> asyncio.Task[Any]:
        """Run ``work()`` in the background until it returns; whenever it fails, run it again
        after the backoff pause (see the module's docstring)."""
        return self.spawn(self._supervised(work, name), name, endless)

    def repeat(self, step: Callable[[], Awaitable[bool]], name: str,
               pause: float | Callable[[], float], endless: bool = False) -> asyncio.Task[Any]:
        """Supervise ``step``, run after a rest of ``pause`` seconds (a number, or a function
        asked before each rest) until it returns False or a stop begins; each success ends a
        failure streak."""

        async def loop() -> None:
            while not self.stopping:
                await self._rest(pause() if callable(pause) else pause)
                if self.stopping:
                    return
                going = await step()
                self.failures.worked(name)
                if not going:
                    return

        return self.supervise(loop, name, endless)

    async def _supervised(self, work: Callable[[], Coroutine[Any, Any, Any]],
                          name: str) -> None:
        while True:
            try:
                await work()
            except Exception as exc:  # noqa: BLE001 - logged once per streak, then retried
                pause = backoff(self.failures.failed(name, exc))
                if self.stopping:
                    return
                await self._rest(pause)
                continue
            self.failures.worked(name)
            return

    async def _rest(self, seconds: float) -> None:
        """The pause of a loop between two steps (a stop ends it at once)."""
        task = asyncio.current_task()
        assert task is not None
        self._resting.add(task)
        try:
            await self.sleep(seconds)
        finally:
            self._resting.discard(task)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        self.endless.discard(task)
        self.failures.drop(task.get_name())
        if not task.cancelled() and task.exception() is not None:
            log.error("background task %s failed", task.get_name(), exc_info=task.exception())

    async def idle(self, endless: bool = False) -> None:
        """Wait until no background work is left but the endless loops (tests), or none at all
        (``endless``: once a stop began, a loop ends after its step)."""
        while True:
            pending = [t for t in self._tasks if not t.done()
                       and (endless or t not in self.endless)]
            if not pending:
                return
            await asyncio.gather(*pending, return_exceptions=True)

    async def close(self, grace: float = 0.0) -> None:
        """Stop: the loops start no new step (those resting between steps end now), the work
        under way gets ``grace`` seconds to finish, then what is left is cancelled; work
        started from then on is cancelled at once."""
        self.stopping = True
        for task in list(self._resting):
            task.cancel()
        if grace > 0:
            try:
                await asyncio.wait_for(self.idle(endless=True), grace)
            except TimeoutError:
                log.warning("stopping with background work unfinished")
        self.closed = True
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


__all__ = ["BACKOFF_CAP", "Failures", "Misconfigured", "Sleep", "Streak", "Tasks",
           "UNHEALTHY_AFTER", "UNHEALTHY_FOR", "backoff"]
