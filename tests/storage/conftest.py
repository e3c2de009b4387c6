"""The storage tests' fixtures: each test runs on every backend of :data:`BACKENDS`, on a real
database in the test's temporary folder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage.interface import Storage
from storage.backends import Backend, PostgresBackend, SqliteBackend
from storage.helpers import Clock

#: The backends every store test runs on.
BACKENDS = ("postgres", "sqlite")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """A storage backend on its own new database."""
    if request.param == "postgres":
        return PostgresBackend(request.getfixturevalue("postgres_server"))
    return SqliteBackend(tmp_path / "karak.sqlite3")


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
