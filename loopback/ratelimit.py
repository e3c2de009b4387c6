"""Rate limits on demand: the stand-in answers chosen requests (:meth:`Limiter.inject_429`),
requests drawn on a seeded schedule (:class:`Schedule`), requests over a channel's message
limit (:class:`ChannelLimit`) or over the bot's global limit (:class:`GlobalLimit`) with 429
Too Many Requests, Discord's body and headers, global or for one route, and records every retry
after one and whether it honoured ``retry_after``."""

from __future__ import annotations

import math
import random
import re
import time
import zlib
from collections import deque
from contextvars import ContextVar
from dataclasses import dataclass, field

from loopback.clock import Clock
from loopback.errors import Reply
from loopback.referee import Referee

#: When the request being answered reached the stand-in (set by the server for each request).
ARRIVED: ContextVar[float | None] = ContextVar("arrived", default=None)
#: Tolerance for clock granularity when checking a retry against ``retry_after``.
RETRY_SLACK = 0.02


@dataclass
class RateLimit:
    """An injected rate limit: the next ``count`` matching requests get a 429."""

    pattern: re.Pattern[str]
    method: str | None
    count: int
    retry_after: float
    scope: str = "user"
    global_: bool = False
    hits: list[str] = field(default_factory=list)

    def matches(self, method: str, path: str) -> bool:
        """True for a request this rule still limits."""
        return (self.count > 0 and (self.method is None or self.method == method)
                and self.pattern.search(path) is not None)


@dataclass(frozen=True)
class Schedule:
    """429s the stand-in answers by itself, off unless given: each request is limited with
    probability ``rate`` (0 to 1), drawn from a generator seeded with ``seed`` (the same
    requests in the same order get the same 429s); ``global_share`` of them are global (the
    client must pause every request), the others limit the one route. Each asks the client
    to wait ``retry_after`` seconds. Interaction routes (the callback and the interaction's
    webhook) are not bound by the global limit, as on Discord, so their 429s are never
    global and a global 429 does not hold them back."""

    seed: int
    rate: float
    retry_after: float = 0.25
    global_share: float = 0.2


@dataclass(frozen=True)
class ChannelLimit:
    """Discord's limit on a channel's messages, off unless given: within any ``period``
    seconds (the stand-in's clock), at most ``limit`` posts in one channel, and as many edits
    and as many deletions of its messages (one bucket per route and channel, as discord.py
    sees them); the next request gets a 429 asking it to wait until the oldest leaves the
    window."""

    limit: int = 5
    period: float = 5.0


@dataclass(frozen=True)
class GlobalLimit:
    """Discord's global limit on a bot, off unless given: within any ``period`` seconds (the
    stand-in's clock), at most ``limit`` requests over all routes but the interactions' (the
    callback and the interaction's webhook, outside the global limit on Discord); the next one
    gets a global 429 asking every request to wait until the oldest leaves the window."""

    limit: int = 50
    period: float = 1.0


#: A channel's message routes: posting (``/channels/{id}/messages``), editing or deleting one.
CHANNEL_MESSAGES = re.compile(r"^/channels/(\d+)/messages(/\d+)?$")


@dataclass(frozen=True)
class Retry:
    """A request that came after a 429 asked it (or every request, for a global one) to
    wait: ``waited`` seconds of the ``asked`` ones; ``honoured`` when it waited enough."""

    route: str
    asked: float
    waited: float
    global_: bool

    @property
    def honoured(self) -> bool:
        """True when the client waited the ``retry_after`` it was given."""
        return self.waited >= self.asked - RETRY_SLACK


def crowded(times: deque[float], limit: int, period: float, now: float) -> float | None:
    """The seconds a request coming ``now`` must wait (until the oldest of ``times`` leaves the
    window) when ``limit`` requests came within the last ``period``; None when there is room,
    and the request is added to ``times`` (those that left the window are dropped)."""
    while times and times[0] <= now - period:
        times.popleft()
    if len(times) >= limit:
        return round(times[0] + period - now, 3)
    times.append(now)
    return None


class Limiter:
    """The rate limits in force (injected rules, the seeded schedule), the 429s answered and
    every retry after one (:attr:`retries`; :attr:`early` counts those that came too soon,
    each also a breach ``retry``)."""

    def __init__(self, clock: Clock, referee: Referee, schedule: Schedule | None = None,
                 channel_limit: ChannelLimit | None = None,
                 global_limit: GlobalLimit | None = None) -> None:
        self.clock = clock
        self.referee = referee
        self.rules: list[RateLimit] = []
        self.schedule = schedule
        self.channel_limit = channel_limit
        self.global_limit = global_limit
        self._channel_writes: dict[str, deque[float]] = {}
        self._bound: deque[float] = deque()  # requests within the global limit's window
        self.channel_limited = 0  # 429s answered for a channel's message limit
        self.global_limited = 0  # 429s answered for the global limit
        self.busiest = 0  # the most requests bound by the global limit seen within its window
        self._draw = random.Random(schedule.seed if schedule else 0)
        self._limited: dict[str, tuple[float, float]] = {}
        self._global: tuple[float, float] | None = None
        self.retries: list[Retry] = []
        self.scheduled = 0  # 429s answered by the schedule

    @property
    def early(self) -> int:
        """How many requests came before the ``retry_after`` of their 429."""
        return sum(not r.honoured for r in self.retries)

    def inject_429(self, pattern: str = ".", *, method: str | None = None, count: int = 1,
                   retry_after: float = 0.3, scope: str = "user",
                   global_: bool = False) -> RateLimit:
        """Answer the next ``count`` requests whose path matches ``pattern`` (a regex searched
        in the path after ``/api/v10``) with 429 Too Many Requests, as Discord does."""
        rule = RateLimit(re.compile(pattern), method.upper() if method else None, count,
                         retry_after, scope, global_)
        self.rules.append(rule)
        return rule

    def _retried(self, route: str, key: str, now: float, interaction: bool) -> None:
        """Record the request as a retry when a 429 asked its route (or everyone but the
        interaction routes) to wait."""
        for limit, global_ in ((self._limited.pop(key, None), False), (self._global, True)):
            if limit is None or (global_ and interaction):
                continue
            at, wait = limit
            if global_ and now >= at + wait:
                self._global = None
                continue
            retry = Retry(route, wait, now - at, global_)
            self.retries.append(retry)
            if not retry.honoured:
                self.referee.breach("retry", f"retried {now - at:.3f} s after a "
                                    f"{'global ' if global_ else ''}429 asking for {wait:g} s",
                                    route)
            if global_:
                self._global = None

    def check(self, method: str, path: str, key: str, interaction: bool = False) -> Reply | None:
        """A 429 answer for this request when a rule or the schedule limits it, else None.
        ``key`` names the request's bucket (a route, or an interaction token's);
        ``interaction``: the route answers an interaction (outside the global limit). A retry
        is judged by when the request reached the stand-in (:data:`ARRIVED`, before its body
        was read and checked), as Discord judges it on arrival."""
        now = self.clock()
        route = f"{method} {path}"
        arrived = ARRIVED.get()
        self._retried(route, key, now if arrived is None else min(arrived, now), interaction)
        for rule in self.rules:
            if rule.matches(method, path):
                rule.count -= 1
                rule.hits.append(route)
                return self._limit(key, now, rule.retry_after, rule.scope, rule.global_)
        if self.schedule is not None and self._draw.random() < self.schedule.rate:
            self.scheduled += 1
            global_ = self._draw.random() < self.schedule.global_share and not interaction
            return self._limit(key, now, self.schedule.retry_after, "user", global_)
        return (None if interaction else self._global_check(key, now)) or self._channel_check(
            method, path, key, now)

    def _global_check(self, key: str, now: float) -> Reply | None:
        """A global 429 when a request bound by the global limit goes over
        :attr:`global_limit`, else None (and counted)."""
        limit = self.global_limit
        if limit is None:
            return None
        wait = crowded(self._bound, limit.limit, limit.period, now)
        if wait is not None:
            self.global_limited += 1
            return self._limit(key, now, wait, "user", True)
        self.busiest = max(self.busiest, len(self._bound))
        return None

    def _channel_check(self, method: str, path: str, key: str, now: float) -> Reply | None:
        """A 429 when the request goes over :attr:`channel_limit`, else None (and counted)."""
        found = CHANNEL_MESSAGES.match(path)
        limit = self.channel_limit
        if limit is None or found is None or method == "GET":
            return None
        bucket = f"{method} {found.group(1)} {'message' if found.group(2) else 'channel'}"
        wait = crowded(self._channel_writes.setdefault(bucket, deque()), limit.limit,
                       limit.period, now)
        if wait is not None:
            self.channel_limited += 1
            return self._limit(key, now, wait, "shared", False)
        return None

    def _limit(self, key: str, now: float, retry_after: float, scope: str,
               global_: bool) -> Reply:
        """The 429 answer, Discord's body and headers; the wait it asks is remembered."""
        if global_:
            self._global = (now, retry_after)
        else:
            self._limited[key] = (now, retry_after)
        reset = time.time() + retry_after
        headers = {
            "Retry-After": str(max(1, math.ceil(retry_after))),
            "X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": f"{reset:.3f}",
            "X-RateLimit-Reset-After": f"{retry_after:.3f}",
            "X-RateLimit-Bucket": "loopback" + str(zlib.crc32(key.encode())),
            "X-RateLimit-Scope": "global" if global_ else scope,
            "Via": "1.1 google",
        }
        if global_:
            headers["X-RateLimit-Global"] = "true"
        return Reply(429, {"message": "You are being rate limited.",
                           "retry_after": retry_after, "global": global_}, headers)
