"""Fixtures of the stand-in's tests: a :class:`~loopback.Loopback` on a manual clock, and an
autouse check that fails every test leaving a Discord rule breach recorded by the stand-in (a test
that provokes breaches on purpose asserts them and clears ``lb.breaches``)."""
from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from minibot import GOBLIN, MiniBot

from loopback import Loopback, ManualClock


@pytest.fixture
def clock() -> ManualClock:
    """The stand-in's clock, moved by hand (deadlines and token lifetimes)."""
    return ManualClock()


@pytest.fixture
async def lb(clock: ManualClock) -> AsyncIterator[Loopback]:
    """A running stand-in on 127.0.0.1."""
    async with Loopback(clock=clock) as server:
        yield server


@pytest.fixture
async def client(lb: Loopback) -> AsyncIterator[MiniBot]:
    """A minimal client connected to ``lb`` (READY received, /goblin registered)."""
    mini = MiniBot(lb)
    await mini.connect("zlib-stream")
    await mini.next_op(0, "READY")
    await mini.register([GOBLIN])
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
