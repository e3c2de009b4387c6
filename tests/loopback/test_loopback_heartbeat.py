"""A real discord.py client measures a heartbeat latency of about the stand-in's simulated network
delay, not a whole heartbeat interval, and logs no "Can't keep up" warning.

The stand-in runs on its own thread and event loop, as Discord runs elsewhere: served from the
client's own loop, an instant ack could never overtake discord.py's keep-alive thread, and the
test would pass without the delay."""
from __future__ import annotations

import asyncio
import logging
import statistics
import threading
from collections.abc import Iterator

import discord
import pytest
from discordpy_client import discordpy_client

from loopback import Loopback, ManualClock

INTERVAL = 0.3  # seconds between heartbeats announced by the stand-in for this test


@pytest.fixture
def remote_lb() -> Iterator[Loopback]:
    """A stand-in served by its own thread and event loop (stopped after the test)."""
    started = threading.Event()
    box: dict[str, Loopback] = {}
    stop: list[asyncio.Event] = []
    loops: list[asyncio.AbstractEventLoop] = []

    async def serve() -> None:
        async with Loopback(clock=ManualClock(), validate=False,
                            heartbeat_interval=INTERVAL) as lb:
            box["lb"] = lb
            stop.append(asyncio.Event())
            loops.append(asyncio.get_running_loop())
            started.set()
            await stop[0].wait()

    thread = threading.Thread(target=asyncio.run, args=(serve(),), name="stand-in")
    thread.start()
    assert started.wait(30), "the stand-in did not start"
    try:
        yield box["lb"]
    finally:
        loops[0].call_soon_threadsafe(stop[0].set)
        thread.join(30)
        assert not thread.is_alive()


async def test_discordpy_latency_is_the_network_delay(
        remote_lb: Loopback, caplog: pytest.LogCaptureFixture) -> None:
    """Heartbeats from discord.py's keep-alive thread are each acknowledged after the stand-in's
    ack latency; the client's ``latency`` stays well under the interval (an ack arriving before
    the thread records its send time reads as about one interval)."""
    caplog.set_level(logging.WARNING, logger="discord.gateway")
    async with discordpy_client(remote_lb) as bot:
        latencies = [await _next_latency(bot, 20.0) for _ in range(4)]
    # the first ack may answer the heartbeat sent on HELLO, not one of the thread's
    assert all(latency < INTERVAL / 2 for latency in latencies[1:]), latencies
    # the keep-alive thread notes its send time just after sending, so a busy machine can read
    # one ack a few milliseconds early: the latency is the stand-in's delay give or take that
    # moment (without the delay it would be a fraction of a millisecond)
    delay = remote_lb.world.gateway.ack_latency
    assert statistics.median(latencies[1:]) >= 0.9 * delay, latencies
    assert min(latencies[1:]) >= 0.5 * delay, latencies
    assert not [r for r in caplog.records if "Can't keep up" in r.getMessage()]


async def _next_latency(bot: discord.Client, within: float) -> float:
    """The client's latency once a new HEARTBEAT_ACK has changed it (polled, bounded)."""
    loop = asyncio.get_running_loop()
    deadline, before = loop.time() + within, bot.latency
    while bot.latency == before:
        assert loop.time() < deadline, "no new HEARTBEAT_ACK"
        await asyncio.sleep(0.01)
    return bot.latency
