"""How fast the bot writes to Discord: a table edit goes out at once while there is room, and
waits only when it would otherwise run into a rate limit, its channel's or the bot's own.

Discord limits the messages a bot posts and edits in one channel (a handful every few seconds,
per channel: discord.py keys its buckets by the channel id), and every request a bot makes
outside interactions to :data:`GLOBAL_LIMIT` a second (its global limit, shared by all its
channels). :class:`ChannelPace` counts the bot's own posts, edits and deletions
(:mod:`bot.discord_side.messages`, :mod:`~bot.discord_side.lobby_message`,
:mod:`~bot.discord_side.threads` and the others that write to channels count each through
:meth:`ChannelPace.request`) and tells a table edit when it may go:

- in its channel, no more than ``limit - reserve`` requests within any ``period`` before it;
- over all channels, no more than ``global_limit - global_reserve`` within any second.

The reserves are left for what a person waits for (the post that pings the next player, a
lobby, a past match): those go at once, and wait only when the whole global limit was used
within the last second. Table edits waiting for the bot's global room take their turns first
come, first served. A refresh that waited shows the latest state, so a burst of moves makes
one edit, and a busy bot edits each table message less often instead of meeting Discord's
429s.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable

#: Requests Discord lets a bot make on one channel's message routes within :data:`PERIOD`.
LIMIT = 5
#: Seconds of that window.
PERIOD = 5.0
#: Requests left for posts a person waits for (a new turn) when edits must wait.
RESERVE = 1
#: Requests Discord lets a bot make a second over all its routes but the interactions' (the
#: global limit).
GLOBAL_LIMIT = 50
#: Of those, requests a second left for what a person waits for when table edits must wait
#: (a fifth).
GLOBAL_RESERVE = GLOBAL_LIMIT // 5


class Window:
    """The times of the requests counted within the last ``period`` seconds (a sliding window;
    those that left it are dropped as it is read or added to)."""

    def __init__(self, period: float) -> None:
        self.period = period
        self.times: deque[float] = deque()

    def _drop(self, now: float) -> None:
        times = self.times
        while times and times[0] <= now - self.period:
            times.popleft()

    def wait(self, room: int, now: float) -> float:
        """Seconds from ``now`` before fewer than ``room`` requests are in the window (0: at
        once)."""
        self._drop(now)
        times = self.times
        if len(times) < room:
            return 0.0
        return max(0.0, times[len(times) - room] + self.period - now)

    def add(self, now: float) -> None:
        """Count a request made ``now``."""
        self._drop(now)
        self.times.append(now)

    def forget(self, at: float, now: float) -> None:
        """Take back the request counted ``at``, if it is still in the window."""
        self._drop(now)
        if self.times and at >= self.times[0]:
            self.times.remove(at)


class ChannelPace:
    """The bot's recent requests per channel and over all channels, and the wait a table edit
    needs (``clock`` and ``sleep`` are injected in tests). ``global_limit`` and
    ``global_reserve`` are this process's part of the bot's global limit (all of it unless the
    bot runs as several processes)."""

    def __init__(self, limit: int = LIMIT, period: float = PERIOD, reserve: int = RESERVE, *,
                 global_limit: int = GLOBAL_LIMIT, global_reserve: int = GLOBAL_RESERVE,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        if not 0 <= reserve < limit or period <= 0:
            raise ValueError("the pace needs 0 <= reserve < limit and a positive period")
        if not 0 <= global_reserve < global_limit:
            raise ValueError("the pace needs 0 <= global_reserve < global_limit")
        self.limit = limit
        self.period = period
        self.reserve = reserve
        self.global_limit = global_limit
        self.global_reserve = global_reserve
        self.clock = clock
        self.sleep = sleep
        self._sent: dict[int, Window] = {}  # channel -> its requests of the last period
        self._all = Window(1.0)  # every request counted, over the last second
        self._claimed: dict[int, deque[float]] = {}  # channel -> when its edits not yet
        # requested were counted
        self._turns: list[object] = []  # edits waiting for global room, in turn
        self._next_edit = 0.0  # when the next table edit may go, spaced from the last one

    async def request(self, channel: int) -> None:
        """The bot makes a request on ``channel``'s messages (a post, an edit, a deletion) now:
        it is counted, once the bot's global limit has room for it (it waits only when the
        whole limit was used within the last second; a table edit that took its turn was
        counted then)."""
        claims = self._claimed.get(channel)
        if claims:  # counted when it took its turn: counted from now on instead (it was drawn
            claimed = claims.popleft()  # meanwhile, and goes out only now)
            if not claims:
                del self._claimed[channel]
            self._all.forget(claimed, self.clock())
        else:
            while (wait := self._global_wait(self.global_limit)) > 0:
                await self.sleep(wait)
        now = self.clock()
        self._all.add(now)
        self._sent.setdefault(channel, Window(self.period)).add(now)

    def wait(self, channel: int) -> float:
        """Seconds before a table edit on ``channel`` stays within the channel's limit (0: at
        once)."""
        sent = self._sent.get(channel)
        if sent is None:
            return 0.0
        wait = sent.wait(self.limit - self.reserve, self.clock())
        if not sent.times:
            del self._sent[channel]
        return wait

    def global_wait(self) -> float:
        """Seconds before a table edit stays within the bot's global limit, less the reserve
        (0: at once)."""
        return self._global_wait(self.global_limit - self.global_reserve)

    def _global_wait(self, room: int) -> float:
        """Seconds before fewer than ``room`` requests were counted within the last second."""
        return self._all.wait(room, self.clock())

    def claim(self, channel: int) -> bool:
        """Count a table edit on ``channel`` now when it may go at once (True); its
        :meth:`request` is then not counted again. False: it must wait (:meth:`ready`)."""
        if self._turns or self.wait(channel) > 0 or self.global_wait() > 0:
            return False
        self._count(channel)
        return True

    async def ready(self, channel: int) -> None:
        """Wait until a table edit on ``channel`` stays within the channel's limit and the
        bot's, and count it (its :meth:`request` is then not counted again)."""
        while (wait := self.wait(channel)) > 0:
            await self.sleep(wait)
        if self._turns or self.global_wait() > 0:
            await self._global_turn()
        self._count(channel)

    def _count(self, channel: int) -> None:
        now = self.clock()
        self._all.add(now)
        self._next_edit = now + 1.0 / (self.global_limit - self.global_reserve)
        self._claimed.setdefault(channel, deque()).append(now)

    def queued(self) -> int:
        """How many table edits wait for the bot's global room."""
        return len(self._turns)

    async def _global_turn(self) -> None:
        """Wait for this edit's turn, first come, first served: the first in line goes once
        there is room and its share of a second after the edit before it (edits go at
        ``global_limit - global_reserve`` a second; spaced so, the edits waiting do not all go
        the moment the room frees, a burst that could reach Discord within the same second as
        the one before it); the others sleep about as long as the edits before them take, then
        look again."""
        me = object()
        self._turns.append(me)
        rate = self.global_limit - self.global_reserve
        try:
            while True:
                wait = max(self.global_wait(), self._next_edit - self.clock())
                place = self._turns.index(me)
                if place == 0 and wait <= 0:
                    return
                await self.sleep(max(wait, place / rate))
        finally:
            self._turns.remove(me)


def process_part(shards: int | None = None, of: int | None = None,
                 rate_limit: int = GLOBAL_LIMIT) -> int:
    """The requests a second a process running ``shards`` of the bot's ``of`` shards may make,
    when Discord lets the bot make ``rate_limit``: the processes of one bot share that limit,
    each in proportion to its shards (all of it when it runs every shard)."""
    if shards is None or of is None or not 0 < shards < of:
        return rate_limit
    return max(2, rate_limit * shards // of)


def process_pace(part: int = GLOBAL_LIMIT) -> ChannelPace:
    """The pace of a process that may make ``part`` requests a second (:func:`process_part`):
    a fifth of them kept for what people wait for."""
    return ChannelPace(global_limit=part, global_reserve=max(1, part // 5))


__all__ = ["GLOBAL_LIMIT", "GLOBAL_RESERVE", "LIMIT", "PERIOD", "RESERVE", "ChannelPace",
           "Window", "process_pace", "process_part"]
