from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from bot_helpers import Clock
from discord_harness import FakeDiscord, Harness, route_of
from shared_files import discord_api_checked

from bot.service import GameService
from bot.storage import Store


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
    unless the test expects it (``@pytest.mark.allow_errors``), and when any captured request
    broke Discord's API schema, whoever caught the failure."""
    FakeDiscord.instances.clear()
    caplog.set_level("WARNING")
    yield
    marker = request.node.get_closest_marker("allow_errors")
    allowed = marker.args if marker else ()
    records = caplog.get_records("setup") + caplog.get_records("call")
    bad = [r.getMessage() for r in records if r.levelno >= 40
           and not any(a in r.getMessage() for a in allowed)]
    assert not bad, bad
    broken = [v for fake in FakeDiscord.instances for v in fake.violations]
    FakeDiscord.instances.clear()
    assert not broken, broken


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "allow_errors(*texts): error log lines containing these texts are expected")


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDiscord]:
    """The captured Discord HTTP layer of one test (requests checked against the API schema when
    its description is at hand: see ``shared_files.discord_api_checked``). When they are, the
    routes the fake finds without the description must be the ones the description names."""
    f = FakeDiscord(validate=discord_api_checked())
    f.install(monkeypatch)
    yield f
    if f.validate:
        assert [route_of(c.path) for c in f.calls] == [c.template for c in f.calls]


@pytest.fixture
async def bot(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[Harness]:
    """The real client on a fresh database, with pictures stood in by a tiny PNG."""
    from test_bot_discord import TinyRenderer

    h = await Harness.start(fake, tmp_path / "k.db", TinyRenderer())
    yield h
    await h.stop()
