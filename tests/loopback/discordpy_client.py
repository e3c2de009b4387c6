"""A real discord.py client pointed at a stand-in (for tests running it in their own loop)."""
from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

import discord
import yarl

from loopback import FAKE_TOKEN, Loopback

C = TypeVar("C", bound=discord.Client)


@contextlib.asynccontextmanager
async def discordpy_client(lb: Loopback, make: Callable[[], C] | None = None) -> AsyncIterator[C]:
    """A discord.py client (a plain one, or ``make()``'s, e.g. the bot's) connected to ``lb``
    (READY received); closed, and discord.py's URLs restored, on leaving."""
    base, gateway = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = lb.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(lb.gateway_url)
    bot = make() if make is not None else discord.Client(intents=discord.Intents(guilds=True))
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
        discord.http.Route.BASE = base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway
