"""discord.py's own HTTP client against the stand-in's 429s.

discord.py waits for a global rate limit only before a request takes its route's bucket: a
request already queued on its bucket, or retrying after its own route's 429, goes out while a
global ``retry_after`` still runs. :class:`GlobalWait` is the fix through discord.py's documented
``http_trace`` option (an :class:`aiohttp.TraceConfig`, also ``discord.Client(http_trace=...)``):
it holds every request that is not an interaction's until the global wait it was told of is
over (interaction routes are outside Discord's global limit).
"""
from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord
import pytest

from loopback import FAKE_TOKEN, Loopback

#: Routes outside the global limit on Discord (an interaction's callback and webhook).
UNBOUND = ("/interactions/", "/webhooks/")


class GlobalWait:
    """Hooks for discord.py's ``http_trace``: after a global 429, hold every request but an
    interaction's until its ``retry_after`` is over (``hold`` False: watch only)."""

    def __init__(self, hold: bool = True) -> None:
        self.hold = hold
        self.until = 0.0  # time.monotonic() at which the last global wait ends
        self.trace = aiohttp.TraceConfig()
        self.trace.on_request_start.append(self._start)
        self.trace.on_request_end.append(self._end)

    async def _start(self, session: aiohttp.ClientSession, context: SimpleNamespace,
                     params: aiohttp.TraceRequestStartParams) -> None:
        if self.hold and not any(part in params.url.path for part in UNBOUND):
            while (wait := self.until - time.monotonic()) > 0:
                await asyncio.sleep(wait)

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


async def _client(hooks: GlobalWait) -> discord.http.HTTPClient:
    client = discord.http.HTTPClient(asyncio.get_running_loop(), http_trace=hooks.trace)
    await client.static_login(FAKE_TOKEN)
    return client


@contextlib.contextmanager
def routes_to(lb: Loopback) -> Iterator[None]:
    """discord.py's routes point at the stand-in meanwhile."""
    base = discord.http.Route.BASE
    discord.http.Route.BASE = lb.api_base
    try:
        yield
    finally:
        discord.http.Route.BASE = base


def _payload(text: str) -> discord.http.MultipartParameters:
    return discord.http.MultipartParameters(payload={"content": text}, multipart=None,
                                            files=None)


@pytest.mark.parametrize("hold", [False, True])
async def test_a_route_retry_waits_for_a_global_limit(lb: Loopback, hold: bool) -> None:
    """A request sleeping after its route's 429 (0.3 s) while another gets a global one (1 s)
    retries after the global wait only with :class:`GlobalWait`."""
    guild = lb.create_guild("Karak Club")
    hall, den = lb.create_channel(guild, "hall"), lb.create_channel(guild, "den")
    route = lb.inject_429(f"^/channels/{hall.id}/messages$", method="POST", retry_after=0.3)
    lb.inject_429(f"^/channels/{den.id}/messages$", method="POST", retry_after=1.0,
                  global_=True)
    with routes_to(lb):
        http = await _client(GlobalWait(hold))
        try:
            first = asyncio.create_task(http.send_message(hall.id, params=_payload("hall")))
            while not route.hits:
                await lb.changed(lb.version, 0.02)
            await http.send_message(den.id, params=_payload("den"))
            await first
        finally:
            await http.close()
    limiter = lb.world.limiter
    assert [r.global_ for r in limiter.retries if not r.honoured] == ([] if hold else [True])
    lb.breaches.clear()
