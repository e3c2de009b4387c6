from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from bot_helpers import Clock
from live_bot import Call, LiveBot, record_requests
from players import TinyRenderer
from shared_files import discord_api_checked

from bot.game.service import GameService
from bot.storage.sqlite import Store
from bot.workers.thinking import Thinking
from loopback import Loopback, ManualClock


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def store(tmp_path: Path, clock: Clock) -> AsyncIterator[Store]:
    s = await Store.open(tmp_path / "karak.sqlite3", clock=clock)
    yield s
    await s.close()


@pytest.fixture
def service(store: Store, clock: Clock) -> GameService:
    seeds = iter(range(1000, 100000))
    return GameService(store, clock=clock, seeds=lambda: next(seeds))


@pytest.fixture(autouse=True)
def no_errors_logged(caplog: pytest.LogCaptureFixture,
                     request: pytest.FixtureRequest) -> Iterator[None]:
    """Every bot test fails when the bot logs an error (the catch-all handlers turn any failure,
    a request Discord's API would reject included, into a polite reply plus an error log line),
    unless the test expects it (``@pytest.mark.allow_errors``), and when the stand-in it used
    recorded a broken Discord rule (a request breaking the API schema or a limit, a late answer:
    whoever caught the failure). A test that provokes breaches on purpose asserts them and
    clears ``lb.breaches``."""
    caplog.set_level("WARNING")
    yield
    marker = request.node.get_closest_marker("allow_errors")
    allowed = marker.args if marker else ()
    records = caplog.get_records("setup") + caplog.get_records("call")
    bad = [r.getMessage() for r in records if r.levelno >= 40
           and not any(a in r.getMessage() for a in allowed)]
    assert not bad, bad
    server = request.node.funcargs.get("lb")
    if isinstance(server, Loopback) and server.breaches:
        pytest.fail("Discord rules broken:\n" + "\n".join(map(str, server.breaches)),
                    pytrace=False)


@pytest.fixture(autouse=True)
def bots_stopped(request: pytest.FixtureRequest) -> None:
    """Every bot a test starts on the stand-in (:meth:`LiveBot.start`) is stopped when the test
    ends, passed or failed: see ``left_bots_stopped`` (only for the tests using ``lb``: the
    others run no event loop of their own for it)."""
    if "lb" in request.fixturenames:
        request.getfixturevalue("left_bots_stopped")


@pytest.fixture
async def left_bots_stopped(lb: Loopback) -> AsyncIterator[None]:
    """At the end of the test, stop the bots started on ``lb`` that are still running (their
    connection, database and worker processes), before the stand-in closes; a test that stops
    its bots itself, in its body or in a fixture, leaves nothing to do here."""
    yield
    await LiveBot.stop_left(lb)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "allow_errors(*texts): error log lines containing these texts are expected")


@pytest.fixture
async def lb() -> AsyncIterator[Loopback]:
    """The stand-in on 127.0.0.1 with the bot's guild and channel (requests validated against
    Discord's OpenAPI description when it is at hand: see ``shared_files.discord_api_checked``),
    on a clock moved by hand."""
    async with Loopback(clock=ManualClock(), validate=discord_api_checked()) as server:
        LiveBot.world(server)
        yield server


@pytest.fixture
def calls(lb: Loopback) -> list[Call]:
    """Every request the stand-in receives during the test (bodies included)."""
    return record_requests(lb)


@pytest.fixture
async def bot(lb: Loopback, calls: list[Call], tmp_path: Path,
              clock: Clock) -> AsyncIterator[LiveBot]:
    """The real bot on the stand-in and a fresh database, with pictures stood in by a tiny
    PNG."""
    live = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock)
    yield live
    await live.stop()


@pytest.fixture
async def h(lb: Loopback, tmp_path: Path, clock: Clock) -> AsyncIterator[LiveBot]:
    """The bot with threads on, as it runs by default, and no AI worker process (the threads
    tests use it; a module that needs another bot defines its own ``h``)."""
    live = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock,
                               thinking=Thinking(workers=0), threads=True)
    yield live
    await live.stop()
