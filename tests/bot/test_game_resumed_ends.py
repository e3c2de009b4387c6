"""A result a stopped process left unposted is taken up once by the process that finds it, on
both backends: the start's own attempt and a pass of the leases may both come to it at the same
moment (the start waits for the table's lease while the pass runs), and its post is queued
once, not once by each."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from storage.backends import Backend, PostgresBackend, SqliteBackend
from storage.helpers import Clock, finished

from bot.game.leases import Leases
from bot.game.scheduler import Scheduler
from bot.game.service import GameService
from bot.storage.interface import Storage
from bot.storage.records import TableRecord
from bot.supervision.tasks import Tasks


@pytest.fixture(params=("postgres", "sqlite"))
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "postgres":
        return PostgresBackend(request.getfixturevalue("postgres_server"))
    return SqliteBackend(tmp_path / "karak.sqlite3")


class HeldUp:
    """A store whose first lease claim of ``table`` waits until :attr:`go` is set (everything
    else passes)."""

    def __init__(self, store: Storage, table: int) -> None:
        self.store = store
        self.table = table
        self.waiting = asyncio.Event()
        self.go = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def claim(self, table_id: int, owner: str, ttl: float) -> bool:
        """The claim, the first one of :attr:`table` once :attr:`go` is set."""
        if table_id == self.table and not self.waiting.is_set():
            self.waiting.set()
            await self.go.wait()
        return bool(await self.store.claim(table_id, owner, ttl))


class Ends:
    """A process's posts, noting each game's end queued and each table let go (nothing else
    is asked of them)."""

    def __init__(self) -> None:
        self.queued: list[int] = []
        self.let_go_of: list[int] = []

    def end(self, record: TableRecord, resumed: bool = False, late: bool = False) -> None:
        """Note the end queued."""
        self.queued.append(record.id)

    def let_go(self, table: int) -> None:
        """Note the table let go (its queued posts would be dropped)."""
        self.let_go_of.append(table)


async def test_a_result_left_unposted_is_queued_once_by_the_start_and_a_pass_at_once(
        backend: Backend, clock: Clock) -> None:
    """A process stopped between a game's last move and its result's post, its lease of the
    table left to lapse. Another process starts: its start takes the result up and waits for
    the table's lease, and meanwhile its pass of the leases finds the same table among the
    ended ones left behind and takes it up too. The result's post is queued once, and the
lease the start got meanwhile is given up on the next pass, the post kept."""
    store = await backend.open(clock)
    try:
        tid = await finished(store, 2, channel=1, guild=9)
        stopped = Leases(store, "stopped", clock=clock)
        assert await stopped.claim(tid)
        await store.expire("stopped")  # it never gave the lease up
        assert await store.left_ends() == [tid]
        held = HeldUp(store, tid)
        service = GameService(held, clock=clock)  # type: ignore[arg-type]
        ends = Ends()
        leases = Leases(held, "started", clock=clock)  # type: ignore[arg-type]
        scheduler = Scheduler(service, Tasks(clock=clock), leases, ends)  # type: ignore[arg-type]
        [record] = await service.meta.unannounced(10)
        start = asyncio.ensure_future(scheduler._resume_end(record))  # the start's own try
        await held.waiting.wait()  # it waits for the lease
        await scheduler._lease_pass()  # the pass of the leases comes to the same table
        held.go.set()
        await start
        assert ends.queued == [tid]
        await scheduler._lease_pass()  # the next pass gives the ended table's lease up
        assert ends.let_go_of == []  # not taken for lost: its queued post is kept
        assert scheduler.leases.held() == [] and await store.left_ends() == []
    finally:
        await store.close()
