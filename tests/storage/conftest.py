"""The storage tests' fixtures: each test runs on every backend of :data:`BACKENDS`, on a real
database in the test's temporary folder."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bot.storage.interface import Storage
from storage.backends import Backend, SqliteBackend
from storage.helpers import Clock

#: Each backend by name, made on a test's temporary folder.
BACKENDS: dict[str, Callable[[Path], Backend]] = {
    "sqlite": lambda folder: SqliteBackend(folder / "karak.sqlite3"),
}


@pytest.fixture(params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """A storage backend on its own new database."""
    return BACKENDS[request.param](tmp_path)


@pytest.fixture
def clock() -> Clock:
    """The stores' clock, moved by hand."""
    return Clock()


@pytest.fixture
async def store(backend: Backend, clock: Clock) -> AsyncIterator[Storage]:
    """An open store on the backend's database, closed after the test."""
    opened = await backend.open(clock)
    yield opened
    await opened.close()


@pytest.fixture
async def fresh(backend: Backend, clock: Clock, store: Storage) -> AsyncIterator[Storage]:
    """A second store on the same database, as a restarted bot would open it: what the
    database holds (``store`` is opened first)."""
    other = await backend.open(clock)
    yield other
    await other.close()
