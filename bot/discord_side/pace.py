"""How fast the bot writes in a channel: a table edit goes out at once while the channel is
quiet, and waits only when it would otherwise run into the channel's rate limit.

Discord limits the messages a bot posts and edits in one channel (a handful every few seconds,
per channel: discord.py keys its buckets by the channel id). :class:`ChannelPace` counts the
bot's own posts, edits and deletions in each channel (:mod:`bot.discord_side.messages`,
:mod:`~bot.discord_side.lobby_message` and :mod:`~bot.discord_side.threads` make them all, and
note each) and tells how long a table edit must wait so that, within any ``period``, no more
than ``limit - reserve`` requests go out before it: the ``reserve`` is left for what a person
waits for (the post that pings the next player). A refresh that waited shows the latest state,
so a burst of moves makes one edit.
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


class ChannelPace:
    """The bot's recent requests per channel and the wait a table edit needs (``clock`` and
    ``sleep`` are injected in tests)."""

    def __init__(self, limit: int = LIMIT, period: float = PERIOD, reserve: int = RESERVE, *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        if not 0 <= reserve < limit or period <= 0:
            raise ValueError("the pace needs 0 <= reserve < limit and a positive period")
        self.limit = limit
        self.period = period
        self.reserve = reserve
        self.clock = clock
        self.sleep = sleep
        self._sent: dict[int, deque[float]] = {}

    def note(self, channel: int) -> None:
        """The bot makes a request on ``channel``'s messages now."""
        now = self.clock()
        sent = self._recent(channel, now)
        sent.append(now)
        self._sent[channel] = sent

    def _recent(self, channel: int, now: float) -> deque[float]:
        sent = self._sent.get(channel, deque())
        while sent and sent[0] <= now - self.period:
            sent.popleft()
        if not sent:
            self._sent.pop(channel, None)
        return sent

    def wait(self, channel: int) -> float:
        """Seconds before a table edit on ``channel`` stays within the limit (0: at once)."""
        now = self.clock()
        sent = self._recent(channel, now)
        room = self.limit - self.reserve
        if len(sent) < room:
            return 0.0
        return max(0.0, sent[len(sent) - room] + self.period - now)

    async def ready(self, channel: int) -> bool:
        """Wait until a table edit on ``channel`` stays within the limit; True when it had to
        wait (the state to show may have changed meanwhile)."""
        waited = False
        while (wait := self.wait(channel)) > 0:
            waited = True
            await self.sleep(wait)
        return waited


__all__ = ["LIMIT", "PERIOD", "RESERVE", "ChannelPace"]
