"""Honour Discord's global rate limit on every request the bot makes.

discord.py waits for a global 429 only before a request takes its route's bucket: a request
already queued on its bucket, or retrying after its own route's 429, may go out while a global
``retry_after`` still runs. :class:`GlobalWait` closes that gap through discord.py's documented
``http_trace`` option (an :class:`aiohttp.TraceConfig`): after a global 429 it holds every request
that is not an interaction's until the wait it was told of is over. Interaction callbacks and
webhooks are outside Discord's global limit, and holding them would cost their 3-second window.
"""
from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

import aiohttp

#: Routes outside the global limit on Discord (an interaction's callback and webhook).
UNBOUND = ("/interactions/", "/webhooks/")


class GlobalWait:
    """Trace hooks for discord.py's ``http_trace``: after a global 429, hold every request but an
    interaction's until its ``retry_after`` is over (``hold`` False: only watch)."""

    def __init__(self, hold: bool = True) -> None:
        self.hold = hold
        self.until = 0.0  # time.monotonic() at which the last global wait ends
        self.trace = aiohttp.TraceConfig()
        self.trace.on_request_start.append(self._start)
        # a request may wait for its connection after it started: hold it again once it has one
        self.trace.on_connection_create_end.append(self._connected)
        self.trace.on_connection_reuseconn.append(self._connected)
        self.trace.on_request_end.append(self._end)

    async def _wait(self) -> None:
        while (wait := self.until - time.monotonic()) > 0:
            await asyncio.sleep(wait)

    async def _start(self, session: aiohttp.ClientSession, context: SimpleNamespace,
                     params: aiohttp.TraceRequestStartParams) -> None:
        context.bound = self.hold and not any(part in params.url.path for part in UNBOUND)
        if context.bound:
            await self._wait()

    async def _connected(self, session: aiohttp.ClientSession, context: SimpleNamespace,
                         params: object) -> None:
        if getattr(context, "bound", False):
            await self._wait()

    async def _end(self, session: aiohttp.ClientSession, context: SimpleNamespace,
                   params: aiohttp.TraceRequestEndParams) -> None:
        if params.response.status != 429:
            return
        try:
            body: Any = await params.response.json(content_type=None)
        except (ValueError, aiohttp.ClientError):
            return
        if not isinstance(body, dict) or body.get("global") is not True:
            return
        wait = body.get("retry_after")
        if isinstance(wait, int | float):
            self.until = max(self.until, time.monotonic() + wait)
