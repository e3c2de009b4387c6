"""The leases as the bot keeps them (:class:`bot.game.leases.Leases`), on both backends and the
stores' clock: a table is claimed once and then known held without asking the store (a move
costs no lease write), one renewal a pass keeps every lease, a table another process holds is
not asked for again until its lease could have lapsed, an ended table's lease is given up, and a
process's own name takes its leases back at once after a restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from storage.backends import Backend, PostgresBackend, SqliteBackend
from storage.helpers import Clock, played, started

from bot.discord_side.background import instance_name
from bot.game.leases import LEASE_TTL, Leases
from bot.storage.interface import Storage


class Counting:
    """A store that counts the lease calls made through it (everything else passes)."""

    def __init__(self, store: Storage) -> None:
        self.store = store
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.store, name)
        if name in ("claim", "renew", "release", "lapsed"):
            self.calls.append(name)
        return found


@pytest.fixture(params=("postgres", "sqlite"))
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "postgres":
        return PostgresBackend(request.getfixturevalue("postgres_server"))
    return SqliteBackend(tmp_path / "karak.sqlite3")


async def test_a_table_is_claimed_once_and_then_held_without_asking(
        backend: Backend, clock: Clock) -> None:
    store = await backend.open(clock)
    try:
        tid = (await started(store, played(1).states[0])).id
        counted = Counting(store)
        leases = Leases(counted, "one", clock=clock)  # type: ignore[arg-type]
        assert await leases.holding(tid)
        for _ in range(50):  # the moves of a while: no lease call
            clock.now += 0.1
            assert await leases.holding(tid)
        assert counted.calls == ["claim"]
        clock.now += LEASE_TTL  # a pause longer than the lease: renewed before answering
        assert await leases.holding(tid)
        assert counted.calls == ["claim", "renew"]
        assert await leases.keep() == []  # one pass: nothing ended, nothing lapsed
        assert counted.calls == ["claim", "renew", "renew", "lapsed"]
    finally:
        await store.close()


async def test_a_table_held_elsewhere_is_not_asked_for_until_it_may_have_lapsed(
        backend: Backend, clock: Clock) -> None:
    mine, theirs = await backend.open(clock), await backend.open(clock)
    try:
        tid = (await started(mine, played(1).states[0])).id
        other = Leases(theirs, "two", clock=clock)
        assert await other.holding(tid)
        counted = Counting(mine)
        leases = Leases(counted, "one", clock=clock)  # type: ignore[arg-type]
        assert not await leases.holding(tid)
        assert not await leases.holding(tid)
        assert counted.calls == ["claim"]
        clock.now += LEASE_TTL  # two stopped: its lease lapsed, one's pass takes the table
        assert await leases.keep() == [tid]
        assert leases.held() == [tid]
        assert not await other.holding(tid)  # two's renewal finds the table taken
    finally:
        await mine.close()
        await theirs.close()


async def test_an_ended_tables_lease_is_given_up_and_a_restart_takes_the_rest_back(
        backend: Backend, clock: Clock) -> None:
    store = await backend.open(clock)
    try:
        game = played(1)
        ended, going = [(await started(store, game.states[0], channel=c)).id for c in (1, 2)]
        leases = Leases(store, "one", clock=clock)
        assert await leases.start() == [ended, going]
        await store.set_status(ended, "abandoned")
        leases.forget(ended)
        assert leases.held() == [going]
        await leases.keep()
        assert not await store.claim(going, "two", LEASE_TTL)
        assert await store.claim(ended, "two", LEASE_TTL)  # given up
        restarted = Leases(store, "one", clock=clock)  # the same name, a moment later
        assert await restarted.start() == [going]
    finally:
        await store.close()


def test_each_process_is_named_by_its_instance_or_its_shards(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KARAK_INSTANCE", raising=False)
    monkeypatch.delenv("KARAK_SHARD_IDS", raising=False)
    assert instance_name() == "main"
    monkeypatch.setenv("KARAK_SHARD_IDS", "2, 3")
    assert instance_name() == "shards-2,3"
    monkeypatch.setenv("KARAK_INSTANCE", "eu-1")
    assert instance_name() == "eu-1"
