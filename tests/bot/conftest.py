from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from bot_helpers import Clock

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
    return GameService(store, agent_kind="heuristic", clock=clock, seeds=lambda: next(seeds))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "allow_errors(*texts): error log lines containing these texts are expected")
