"""The leases as the bot keeps them (:class:`bot.game.leases.Leases`), on both backends and the
stores' clock: a table is claimed once and then known held without asking the store (a move
costs no lease write), one renewal a pass keeps every lease, a table another process holds is
not asked for again until its lease could have lapsed, an ended table's lease is given up, and a
process's own name takes its leases back at once after a restart, and a process back on its
shards takes its servers' tables home from the process that took them over, which learns it
when it asks (told of the change) or on its next pass; two processes running one shard take
its tables from each other until that is found, and then stop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from storage.backends import Backend, PostgresBackend, SqliteBackend
from storage.helpers import Clock, played, started

from bot.game.leases import CONTESTED_PASSES, LEASE_TTL, Leases, Pass, SharedShards, instance_name
from bot.storage.interface import Storage
from bot.storage.records import Shards
from loopback.sharding import snowflake_on


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


@pytest.fixture
async def two_stores(backend: Backend, clock: Clock) -> AsyncIterator[tuple[Storage, Storage]]:
    """The stores of two processes on one database, on the test's clock."""
    first, second = await backend.open(clock), await backend.open(clock)
    try:
        yield first, second
    finally:
        await first.close()
        await second.close()


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
        assert await leases.keep() == Pass([], [])  # one pass: nothing ended, lapsed, lost
        assert counted.calls == ["claim", "renew", "renew", "lapsed"]
    finally:
        await store.close()


async def test_a_table_held_elsewhere_is_not_asked_for_until_it_may_have_lapsed(
        two_stores: tuple[Storage, Storage], clock: Clock) -> None:
    mine, theirs = two_stores
    tid = (await started(mine, played(1).states[0])).id
    other = Leases(theirs, "two", clock=clock)
    assert await other.holding(tid)
    counted = Counting(mine)
    leases = Leases(counted, "one", clock=clock)  # type: ignore[arg-type]
    assert not await leases.holding(tid)
    assert not await leases.holding(tid)
    assert counted.calls == ["claim"]
    clock.now += LEASE_TTL  # two stopped: its lease lapsed, one's pass takes the table
    assert (await leases.keep()).taken == [tid]
    assert leases.held() == [tid]
    assert not await other.holding(tid)  # two's renewal finds the table taken


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


async def test_a_process_back_on_its_shards_takes_its_servers_tables_home(
        two_stores: tuple[Storage, Storage], clock: Clock) -> None:
    here, there = two_stores
    game = played(1)
    mine, theirs = [(await started(here, game.states[0], channel=n + 1,
                                   guild=snowflake_on(n, 2))).id for n in (1, 0)]
    home = Leases(here, "one", clock=clock, shards=Shards(2, (1,)))
    away = Leases(there, "two", clock=clock, shards=Shards(2, (0,)))
    assert (await home.keep()).taken == [mine]  # a server's table: its shard's process
    assert (await away.keep()).taken == [theirs]
    assert await covering(away, clock) == Pass([mine], [])  # one stopped: anyone's now
    assert away.held() == [mine, theirs]
    back = Leases(here, "one", clock=clock, shards=Shards(2, (1,)))
    assert await back.start() == [mine]  # home at once, though the lease was two's
    clock.now += 1
    assert await away.keep() == Pass([], [mine])  # two learns it on its next pass
    assert away.held() == [theirs] and not await away.holding(mine)
    assert await covering(away, clock) == Pass([mine], [])  # one stopped again
    back = Leases(here, "one", clock=clock, shards=Shards(2, (1,)))
    assert await back.start() == [mine]
    assert away.holds(mine)  # two does not know yet (on PostgreSQL it is told at once)
    assert await away.confirm(theirs) and not await away.confirm(mine)  # and asks
    assert away.held() == [theirs]
    assert await away.keep() == Pass([], [])  # let go already: not lost twice
    assert await back.keep() == Pass([], []) and await away.keep() == Pass([], [])
    assert back.held() == [mine] and away.held() == [theirs]  # and they stay so


async def covering(leases: Leases, clock: Clock) -> Pass:
    """The other process stopped: ``leases`` renews its own until the other's lapsed (nothing
    taken meanwhile); the pass that takes them over."""
    for _ in range(2):
        assert (await leases.keep()).taken == []
        clock.now += LEASE_TTL / 2
    return await leases.keep()


async def test_two_processes_running_one_shard_are_found_and_stop_taking_tables_home(
        two_stores: tuple[Storage, Storage], clock: Clock) -> None:
    here, there = two_stores
    game = played(1)
    tid = (await started(here, game.states[0], guild=snowflake_on(0, 2))).id
    one = Leases(here, "one", clock=clock, shards=Shards(2, (0,)))
    two = Leases(there, "two", clock=clock, shards=Shards(2, (0, 1)))  # shard 0 twice
    assert (await one.keep()).taken == [tid]
    # two takes the table home; one, losing it, takes it back within its pass (let go, as
    # two may have shown it meanwhile, and taken up afresh); and so on
    assert await both(two, one, clock) == (Pass([tid], []), Pass([tid], [tid]))
    assert await both(two, one, clock) == (Pass([tid], [tid]), Pass([tid], [tid]))
    assert two.shared is None and one.shared is None
    assert await both(two, one, clock) == (Pass([], [tid]), Pass([], []))  # found out:
    assert str(two.shared) == str(SharedShards(Shards(2, (0, 1))))  # two no longer takes
    assert "shard(s) 0, 1 of 2" in str(two.shared)  # tables home, and says why
    assert "KARAK_SHARD_IDS" in str(two.shared)
    for _ in range(3):  # and so the table stays where it is
        assert await both(two, one, clock) == (Pass([], []), Pass([], []))
    assert one.held() == [tid] and two.held() == []
    single = Leases(there, "three", clock=clock, shards=Shards(2, (1,)))
    for _ in range(3):  # a process of other shards is never found sharing
        await single.keep()
    assert single.shared is None and one.shared is None


async def both(first: Leases, second: Leases, clock: Clock) -> tuple[Pass, Pass]:
    """A pass of each, a second apart."""
    clock.now += 1
    passed = await first.keep()
    clock.now += 1
    return passed, await second.keep()


async def test_two_processes_of_one_shard_whose_passes_overlap_find_each_other_out(
        two_stores: tuple[Storage, Storage], clock: Clock) -> None:
    """Two processes running one shard, their passes at the same moments: each takes the
    table home while the other is still taking tables home, and hears at once that the other
    took it (its scheduler's wake asks :meth:`Leases.confirm`). Which of the two takes it
    first changes from pass to pass, so each takes it home only every other pass; they are
    found out all the same."""
    here, there = two_stores
    tid = (await started(here, played(1).states[0], guild=snowflake_on(0, 2))).id
    one_store, two_store = Overlapping(here), Overlapping(there)
    one = Leases(one_store, "one", clock=clock, shards=Shards(2, (0,)))  # type: ignore[arg-type]
    two = Leases(two_store, "two", clock=clock, shards=Shards(2, (0,)))  # type: ignore[arg-type]
    one_store.other, two_store.other = (two, two_store), (one, one_store)
    for turn in range(CONTESTED_PASSES + 3):
        clock.now += 1
        first = (one_store, two_store)[turn % 2]
        for store in (one_store, two_store):
            store.first = store is first
            store.begun.clear()
            store.done.clear()
        await asyncio.gather(one_store.passing(one), two_store.passing(two))
    # one of them finds it out and takes the table home no more: the other keeps it
    assert (one.shared, two.shared).count(None) == 1
    assert one.held() + two.held() == [tid]


class Overlapping:
    """The store of one of two processes whose passes overlap (``other``: the other process
    and its store). Tables are taken home once both passes have begun, this process's
    ``first`` or once the other's pass took its own (or ended), and the other process is told
    at once of each table taken."""

    def __init__(self, store: Storage) -> None:
        self.store = store
        self.first = True
        self.begun = asyncio.Event()  # this pass has read the lapsed tables
        self.done = asyncio.Event()  # this pass has taken its tables home
        self.other: tuple[Leases, Overlapping] | None = None

    async def passing(self, leases: Leases) -> None:
        """A pass of ``leases``, this store's process. Once it is over it counts as begun and
        done, whether or not it took tables home (a process found out takes none), so the
        other pass never waits for it in vain."""
        try:
            await leases.keep()
        finally:
            self.begun.set()
            self.done.set()

    async def lapsed(self, shards: Shards | None = None) -> list[int]:
        """The lapsed tables; this pass has begun."""
        found = await self.store.lapsed(shards)
        self.begun.set()
        return found

    async def home(self, owner: str, shards: Shards, ttl: float) -> list[int]:
        """This process's tables taken home in their turn; the other process told."""
        assert self.other is not None
        leases, store = self.other
        await store.begun.wait()
        if not self.first:
            await store.done.wait()
        taken = await self.store.home(owner, shards, ttl)
        for table in taken:
            await leases.confirm(table)
        self.done.set()
        return taken

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def test_each_process_is_named_by_its_instance_or_its_shards() -> None:
    assert instance_name(None, None) == "main"
    assert instance_name(None, (2, 3)) == "shards-2,3"
    assert instance_name("eu-1", (2, 3)) == "eu-1"
