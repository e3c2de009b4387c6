"""Honour Discord's global rate limit on every request the bot makes.

discord.py waits for a global 429 only before a request takes its route's bucket: a request
already queued on its bucket, or retrying after its own route's 429, may go out while a global
``retry_after`` still runs. :class:`GlobalWait` closes that gap through discord.py's documented
``http_trace`` option (an :class:`aiohttp.TraceConfig`): after a global 429 it holds every request
that is not an interaction's until the wait it was told of is over. Interaction callbacks and
webhooks are outside Discord's global limit, and holding them would cost their 3-second window.

The wait is taken from the 429's headers the moment its response arrives, before its body is
read: while the body is being read, other requests (of other tables) would otherwise start and
pass. The body's ``retry_after`` then makes the wait exact.

A request already sent when a global 429 comes back cannot be called back. So for
:data:`CAREFUL` seconds after a global 429, bound requests go out one at a time: each next one
leaves only once the previous one's answer is in, so a further global 429 finds no other
request on the way and holds all of them.

Before any 429, given the process's part of the bot's global limit, it also holds a bound
request while that many went out within the last second: every request is counted as it
starts, whoever makes it (the table messages' pace, :mod:`bot.discord_side.pace`, keeps the
edits well under it; this is the last guard, for the requests it does not see and for those
the event loop let out together).
"""
from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import aiohttp

from bot.discord_side.pace import Window
from bot.supervision.metrics import UNCOUNTED

#: Routes outside the global limit on Discord (an interaction's callback and webhook).
UNBOUND = ("/interactions/", "/webhooks/")
#: Seconds after a global 429 during which bound requests go out one at a time.
CAREFUL = 30.0
#: Discord's epoch (2015-01-01) in milliseconds of Unix time: a snowflake's time starts there.
DISCORD_EPOCH = 1_420_070_400_000


class GlobalWait:
    """Trace hooks for discord.py's ``http_trace``: after a global 429, hold every request but an
    interaction's until its ``retry_after`` is over, then send them one at a time for a while;
    with a ``limit``, hold one while ``limit`` went out within the last second (``hold``
    False: only watch)."""

    def __init__(self, hold: bool = True, limit: int | None = None) -> None:
        self.hold = hold
        self.limit = limit
        self._started = Window(1.0)  # bound requests started within the last second
        self.metrics = UNCOUNTED  # the bot's, once it is built: 429s and first answers counted
        self.until = 0.0  # time.monotonic() at which the last global wait ends
        self.careful_until = 0.0  # one request at a time until then
        self._one = asyncio.Lock()
        self.trace = aiohttp.TraceConfig()
        self.trace.on_request_start.append(self._start)
        # a request may wait for its connection after it started: hold it again once it has one
        self.trace.on_connection_create_end.append(self._connected)
        self.trace.on_connection_reuseconn.append(self._connected)
        self.trace.on_request_end.append(self._end)
        self.trace.on_request_exception.append(self._failed)

    async def _wait(self) -> None:
        while (wait := self.until - time.monotonic()) > 0:
            await asyncio.sleep(wait)

    async def _start(self, session: aiohttp.ClientSession, context: SimpleNamespace,
                     params: aiohttp.TraceRequestStartParams) -> None:
        context.bound = self.hold and not any(part in params.url.path for part in UNBOUND)
        if context.bound:
            await self._wait()
            await self._room()

    async def _room(self) -> None:
        """Hold a bound request while :attr:`limit` started within the last second, then count
        it."""
        if self.limit is None:
            return
        while (wait := self._started.wait(self.limit, time.monotonic())) > 0:
            await asyncio.sleep(wait)
        self._started.add(time.monotonic())

    async def _connected(self, session: aiohttp.ClientSession, context: SimpleNamespace,
                         params: object) -> None:
        if not getattr(context, "bound", False):
            return
        if time.monotonic() < self.careful_until and not getattr(context, "single", False):
            await self._one.acquire()  # released when its answer (or failure) comes
            context.single = True
        await self._wait()

    def _let_next(self, context: SimpleNamespace) -> None:
        """The request's answer is in: the next one-at-a-time request may go."""
        if getattr(context, "single", False):
            context.single = False
            self._one.release()

    async def _failed(self, session: aiohttp.ClientSession, context: SimpleNamespace,
                      params: object) -> None:
        self._let_next(context)

    def _hold_for(self, wait: float) -> None:
        """Hold every bound request for ``wait`` more seconds from now (never less than a
        wait already running)."""
        now = time.monotonic()
        self.until = max(self.until, now + wait)
        self.careful_until = max(self.careful_until, now + wait + CAREFUL)

    async def _end(self, session: aiohttp.ClientSession, context: SimpleNamespace,
                   params: aiohttp.TraceRequestEndParams) -> None:
        self._count(params)
        if params.response.status != 429:
            self._let_next(context)
            return
        headers = params.response.headers
        if headers.get("X-RateLimit-Global", "").lower() == "true":  # at once, before any await
            self._hold_for(header_wait(headers))
        self._let_next(context)
        try:
            body: Any = await params.response.json(content_type=None)
        except (ValueError, aiohttp.ClientError):
            return
        if not isinstance(body, dict) or body.get("global") is not True:
            return
        wait = body.get("retry_after")
        if isinstance(wait, int | float):
            self._hold_for(wait)


    def _count(self, params: aiohttp.TraceRequestEndParams) -> None:
        """Count a 429 by its scope, and time an interaction's first answer (its callback) from
        the interaction's creation, which its id tells."""
        headers = params.response.headers
        if params.response.status == 429:
            scope = headers.get("X-RateLimit-Scope", "user").lower()
            if headers.get("X-RateLimit-Global", "").lower() == "true":
                scope = "global"
            self.metrics.rate_limited(scope)
        created = callback_of(params.url.path)
        if created is not None:
            self.metrics.responded(time.time() - created)


def callback_of(path: str) -> float | None:
    """The Unix time at which the interaction whose callback ``path`` is
    (``.../interactions/<id>/<token>/callback``) was created; None for another path."""
    parts = path.rstrip("/").split("/")
    if len(parts) < 4 or parts[-1] != "callback" or parts[-4] != "interactions":
        return None
    if not parts[-3].isdigit():
        return None
    return ((int(parts[-3]) >> 22) + DISCORD_EPOCH) / 1000


def header_wait(headers: Mapping[str, str]) -> float:
    """The seconds a 429's headers ask to wait: ``X-RateLimit-Reset-After`` (to the
    millisecond), else ``Retry-After`` (whole seconds), else one second."""
    for name in ("X-RateLimit-Reset-After", "Retry-After"):
        try:
            return max(0.0, float(headers.get(name, "")))
        except ValueError:
            continue
    return 1.0
