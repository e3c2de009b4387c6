"""discord.py's own HTTP client against the stand-in's 429s, with and without the bot's
:class:`bot.discord_side.ratelimits.GlobalWait`
(see there why discord.py alone retries too early)."""
from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

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
