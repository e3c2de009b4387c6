"""A real discord.py client pointed at a stand-in (for tests running it in their own loop)."""
from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import discord

from bot.discord_side.client import route_to
from loopback import FAKE_TOKEN, Loopback

#: discord.py's URLs before the first client still open was pointed at a stand-in, and the
#: clients open (several bots of one test may close in any order)
_routed: list[tuple[str, str]] = []


@contextlib.asynccontextmanager
async def discordpy_client(lb: Loopback,
                           client: discord.Client | None = None) -> AsyncIterator[discord.Client]:
    """A discord.py client (``client``, else a plain one) connected to ``lb`` (READY
    received); closed, and discord.py's URLs restored once no such client is open, on
    leaving."""
    _routed.append((discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY))
    route_to(lb.api_base, lb.gateway_url)  # as the bot does when KARAK_API_BASE is set
    bot = client or discord.Client(intents=discord.Intents(guilds=True))
    running: asyncio.Task[None] | None = None
    try:
        await bot.login(FAKE_TOKEN)
        running = asyncio.get_running_loop().create_task(bot.connect(reconnect=False))
        await asyncio.wait_for(bot.wait_until_ready(), 20)
        yield bot
    finally:
        await bot.close()
        if running is not None:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await running
        base, gateway = _routed.pop()
        if not _routed:  # the first one's, as they were
            discord.http.Route.BASE = base
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway
