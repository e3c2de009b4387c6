"""The heartbeat the container's health check reads, written by the real bot on the stand-in:
while its gateway connection is cut and discord.py keeps trying to connect again, the bot is not
connected, so the file is not written (left alone it goes stale and the check says unhealthy);
it is written again once the connection is back."""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import discord.gateway
import pytest
from live_bot import LiveBot

from bot.supervision.health import healthy
from loopback import Loopback


async def until(condition: Any, within: float = 30.0) -> None:
    """Wait (polling) until ``condition()`` is true."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not condition():
        assert loop.time() < deadline, "never came"
        await asyncio.sleep(0.01)


async def test_a_bot_cut_off_from_the_gateway_writes_no_heartbeat_until_it_is_back(
        bot: LiveBot, lb: Loopback, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discord's gateway stops answering (its socket closed, every new one hanging): discord.py
    still calls the bot ready, but the bot is cut off and must not tell the health check it is
    alive; once Discord answers again the heartbeat is written again."""
    scheduler = bot.bot.scheduler
    alive = tmp_path / "karak.alive"
    scheduler.heartbeat = alive
    scheduler.beat()
    assert healthy(alive)
    answering = asyncio.Event()
    real = discord.gateway.DiscordWebSocket.from_client

    async def hanging(*args: Any, **kwargs: Any) -> Any:
        await answering.wait()
        return await real(*args, **kwargs)

    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "from_client", hanging)
    await lb.gateway.drop()
    await until(lambda: not lb.gateway.connected())
    await asyncio.sleep(0.1)  # discord.py noticed and is connecting again
    alive.unlink()
    scheduler.beat()
    assert not alive.exists(), "a bot cut off from Discord wrote its heartbeat"
    answering.set()
    await lb.gateway.wait_connected()
    await until(lambda: bot.bot.connected())
    scheduler.beat()
    assert healthy(alive)
