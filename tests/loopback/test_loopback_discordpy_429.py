"""discord.py's own HTTP client against the stand-in's 429s, with and without the bot's
:class:`bot.discord_side.ratelimits.GlobalWait`
(see there why discord.py alone retries too early)."""
from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.discord_side.ratelimits import GlobalWait
from loopback import FAKE_TOKEN, Loopback


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


class Watched(GlobalWait):
    """The bot's :class:`GlobalWait`, noting when it learnt of a global 429 (and the wait it
    then set) and when each bound request went on after its checks."""

    def __init__(self) -> None:
        super().__init__()
        self.told: list[tuple[float, float]] = []  # (when the 429 arrived, the hold it set)
        self.passed: list[float] = []

    async def _end(self, session: Any, context: SimpleNamespace, params: Any) -> None:
        arrived = time.monotonic()
        await super()._end(session, context, params)
        if params.response.headers.get("X-RateLimit-Global") == "true":
            self.told.append((arrived, self.until))

    async def _start(self, session: Any, context: SimpleNamespace, params: Any) -> None:
        await super()._start(session, context, params)
        if context.bound:
            self.passed.append(time.monotonic())

    async def _connected(self, session: Any, context: SimpleNamespace, params: object) -> None:
        await super()._connected(session, context, params)
        if getattr(context, "bound", False):
            self.passed.append(time.monotonic())


async def test_a_storm_of_requests_across_channels_waits_for_a_global_limit(
        lb: Loopback) -> None:
    """Many tables write at once and global 429s come while their requests are on the way:
    once the bot has a global 429's answer, none of its requests goes on before the wait is
    over (one already sent before the answer came cannot be called back)."""
    guild = lb.create_guild("Karak Club")
    channels = [lb.create_channel(guild, f"table-{n}") for n in range(24)]
    for n in (0, 7, 15):
        lb.inject_429(f"^/channels/{channels[n].id}/messages$", method="POST",
                      retry_after=0.3, global_=True)
    hooks = Watched()
    with routes_to(lb):
        http = await _client(hooks)
        try:
            async def table(n: int) -> None:
                for turn in range(3):
                    await http.send_message(channels[n].id, params=_payload(f"turn {turn}"))
            await asyncio.gather(*(table(n) for n in range(len(channels))))
        finally:
            await http.close()
    assert hooks.told and hooks.passed
    early = [(at, until, p) for at, until in hooks.told for p in hooks.passed if at <= p < until]
    assert early == [], early
    assert lb.world.limiter.retries
    lb.breaches.clear()  # requests already sent when a 429 was answered arrive early


class Counted(GlobalWait):
    """The bot's :class:`GlobalWait` with its part of the global limit, noting when each bound
    request went on after the limit's check."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit=limit)
        self.went: list[float] = []

    async def _room(self) -> None:
        await super()._room()
        self.went.append(time.monotonic())


async def test_bound_requests_keep_within_the_process_part_of_the_global_limit(
        lb: Loopback) -> None:
    """With its part of the global limit (four requests a second here), no more than four
    bound requests start within any second, whoever makes them, before any 429."""
    guild = lb.create_guild("Karak Club")
    channels = [lb.create_channel(guild, f"table-{n}") for n in range(6)]
    hooks = Counted(limit=4)
    with routes_to(lb):
        http = await _client(hooks)
        try:
            await asyncio.gather(*(http.send_message(c.id, params=_payload("go"))
                                   for c in channels))
        finally:
            await http.close()
    went = sorted(hooks.went)
    assert len(went) == len(channels) + 1  # the login's request too
    assert all(went[n + 4] - went[n] >= 1.0 for n in range(len(went) - 4)), went
    assert lb.world.limiter.retries == []
