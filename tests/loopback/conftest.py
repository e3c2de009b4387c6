"""Fixtures of the stand-in's tests: a :class:`~loopback.Loopback` on a manual clock, a minimal
hand-written client of it (connected or not), and an autouse check that fails every test
leaving a Discord rule breach recorded by the stand-in (a test that provokes breaches on purpose
asserts them and clears ``lb.breaches``)."""
from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from minibot import MiniBot, connected
from shared_files import discord_api_checked

from loopback import Loopback, ManualClock


@pytest.fixture
def clock() -> ManualClock:
    """The stand-in's clock, moved by hand (deadlines and token lifetimes)."""
    return ManualClock()


@pytest.fixture
async def lb(clock: ManualClock) -> AsyncIterator[Loopback]:
    """A running stand-in on 127.0.0.1 (validating request bodies when Discord's OpenAPI
    description is at hand: see ``shared_files.discord_api_checked``)."""
    async with Loopback(clock=clock, validate=discord_api_checked()) as server:
        yield server


@pytest.fixture
async def mini(lb: Loopback) -> AsyncIterator[MiniBot]:
    """A minimal client of ``lb``, not connected yet (see ``minibot.connected``)."""
    bot = MiniBot(lb)
    yield bot
    await bot.close()


@pytest.fixture
async def client(lb: Loopback) -> AsyncIterator[MiniBot]:
    """A minimal client connected to ``lb`` (READY received, /goblin registered)."""
    mini = MiniBot(lb)
    await connected(lb, mini)
    yield mini
    await mini.close()


@pytest.fixture(autouse=True)
def no_leftover_breaches(request: pytest.FixtureRequest) -> Iterator[None]:
    """After the test (and its fixtures' clean-up: a bot stopping can still break a rule), fail
    it if the stand-in it used holds any breach."""
    yield
    server = request.node.funcargs.get("lb")
    if isinstance(server, Loopback) and server.breaches:
        pytest.fail("Discord rules broken (left over after the test):\n"
                    + "\n".join(map(str, server.breaches)), pytrace=False)
