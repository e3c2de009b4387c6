"""The leases of tables' background work through the storage interface, on every backend and by
the stores' clock: a claim is granted when the lease is free, expired or the owner's already;
an owner renews all its leases in one call, gives one up, and the lobbies and running tables
whose lease lapsed are listed; of two processes claiming one table at once exactly one gets it."""

from __future__ import annotations

import asyncio

from bot.game.places import Place
from bot.storage.interface import Storage
from bot.storage.records import Shards
from storage.helpers import ANN, GUILD, SEATS, Clock, played, started

TTL = 15.0


async def lobby(store: Storage, channel: int) -> int:
    """A new lobby in ``channel``; its id."""
    record = await store.create_table(guild_id=GUILD, place_key=Place.of(GUILD, ANN).key,
                                      channel_id=channel, host_id=ANN,
                                      seats=SEATS[:1], abilities=False, timer=0, seed=1)
    return record.id


async def test_a_claim_is_granted_when_free_expired_or_already_the_owners(
        store: Storage, fresh: Storage, clock: Clock) -> None:
    tid = (await started(store, played(1).states[0])).id
    assert await store.claim(tid, "one", TTL)
    assert not await fresh.claim(tid, "two", TTL)  # held, by another process too
    clock.now += TTL - 1
    assert await fresh.claim(tid, "one", TTL)  # one's again (restarted): held until now + TTL
    clock.now += TTL - 1
    assert not await store.claim(tid, "two", TTL)
    clock.now += 1
    assert await store.claim(tid, "two", TTL)  # expired: anyone's
    assert not await fresh.claim(tid, "one", TTL)


async def test_an_owner_renews_all_its_leases_at_once(store: Storage, clock: Clock) -> None:
    one, two, other = [(await started(store, played(1).states[0], channel=c)).id
                       for c in (1, 2, 3)]
    waiting = await lobby(store, 4)
    for tid in (one, two, waiting):
        assert await store.claim(tid, "one", TTL)
    assert await store.claim(other, "two", TTL)
    clock.now += TTL - 1
    assert await store.renew("one", TTL) == [one, two, waiting]
    clock.now += TTL - 1  # past the first expiry, not the renewed one
    assert not await store.claim(one, "two", TTL)
    assert await store.claim(other, "three", TTL)  # two renewed nothing: it expired
    assert await store.renew("two", TTL) == []  # taken: two's renewal leaves it alone
    clock.now += TTL  # one's leases expired, but no one took them: renewing keeps them
    assert await store.renew("one", TTL) == [one, two, waiting]
    await store.set_status(two, "abandoned")  # an ended table's lease is no more renewed
    assert await store.renew("one", TTL) == [one, waiting]


async def test_a_released_lease_is_free_and_only_its_owner_releases_it(
        store: Storage) -> None:
    tid = (await started(store, played(1).states[0])).id
    assert await store.claim(tid, "one", TTL)
    await store.release(tid, "two")  # not two's: nothing happens
    assert not await store.claim(tid, "two", TTL)
    assert await store.lapsed() == []
    await store.release(tid, "one")
    assert await store.lapsed() == [tid]
    assert await store.claim(tid, "two", TTL)
    assert await store.renew("one", TTL) == []


async def test_an_owner_that_stopped_lets_its_leases_lapse_at_once(store: Storage) -> None:
    """A process stopping cleanly lets its leases lapse: any process may take its tables (of
    any server's shard), another owner's leases stay, and the owner restarted takes its own
    back."""
    mine = (await started(store, played(1).states[0], channel=1, guild=7 << 22)).id
    theirs = (await started(store, played(1).states[0], channel=2)).id
    assert await store.claim(mine, "one", TTL) and await store.claim(theirs, "two", TTL)
    assert await store.lapsed() == []
    await store.expire("one")
    assert await store.lapsed(Shards(2, (0,))) == [mine]  # expired: anyone's, not only shard 1's
    assert not await store.claim(theirs, "three", TTL)  # two's lease stays
    assert await store.renew("one", TTL) == [mine]  # one restarted: its own again
    assert await store.lapsed() == []


async def test_the_lobbies_and_running_tables_whose_lease_lapsed_are_listed(
        store: Storage, fresh: Storage, clock: Clock) -> None:
    game = played(1)
    running, held, expiring = [(await started(store, game.states[0], channel=c)).id
                               for c in (1, 2, 3)]
    waiting, ended = await lobby(store, 4), await lobby(store, 5)
    await store.set_status(ended, "abandoned")
    done = (await started(store, game.states[-2], channel=6)).id
    await store.apply(done, len(game.moves) - 1, game.final, game.log_row(len(game.moves) - 1))
    assert await store.lapsed() == [running, held, expiring, waiting]  # none taken yet
    assert await store.claim(held, "one", 2 * TTL)
    assert await store.claim(expiring, "two", TTL)
    assert await fresh.lapsed() == [running, waiting]
    clock.now += TTL
    assert await fresh.lapsed() == [running, expiring, waiting]  # expired at that instant
    assert await store.claim(running, "one", TTL) and await store.claim(waiting, "one", TTL)
    assert await store.claim(expiring, "one", TTL)
    assert await store.lapsed() == []


async def test_of_two_processes_claiming_a_table_at_once_one_gets_it(
        store: Storage, fresh: Storage, clock: Clock) -> None:
    tids = [(await started(store, played(1).states[0], channel=c)).id for c in range(1, 9)]
    for tid in tids:  # never leased, then expired: each time exactly one claim is granted
        for _ in range(2):
            granted = await asyncio.gather(store.claim(tid, "one", TTL),
                                           fresh.claim(tid, "two", TTL))
            assert sorted(granted) == [False, True]
            clock.now += TTL


async def test_a_table_nobody_took_is_left_to_a_process_of_its_servers_shard(
        store: Storage, clock: Clock) -> None:
    """A process of shard 1 of 2 takes up a server's new table only when that server is heard
    on shard 1 (direct messages: shard 0); a lease that expired is anyone's."""
    first, second = Shards(2, (0,)), Shards(2, (1,))
    on_zero, on_one = 4 << 22, 7 << 22  # servers heard on shards 0 and 1
    ours = (await started(store, played(1).states[0], channel=1, guild=on_zero)).id
    theirs = (await started(store, played(1).states[0], channel=2, guild=on_one)).id
    direct = (await started(store, played(1).states[0], channel=3, guild=None)).id
    assert await store.lapsed(first) == [ours, direct]
    assert await store.lapsed(second) == [theirs]
    assert await store.lapsed(Shards(2, (0, 1))) == await store.lapsed() == [ours, theirs, direct]
    assert await store.claim(theirs, "shards-1", TTL)
    clock.now += TTL  # shard 1's process stopped renewing: its table is the others' to take
    assert await store.lapsed(first) == [ours, theirs, direct]


async def test_the_ended_tables_whose_lease_lapsed_unreleased_are_listed(
        store: Storage, clock: Clock) -> None:
    """A table that ended keeps its lease row until its holder gives it up: one whose lease
    expired without that (the holder stopped first) is listed, until someone releases it."""
    game = played(1)
    done, given_up, running = [(await started(store, game.states[-2], channel=c)).id
                               for c in (1, 2, 3)]
    closed = await lobby(store, 4)
    for tid in (done, given_up, running, closed):
        assert await store.claim(tid, "one", TTL)
    for tid in (done, given_up):
        await store.apply(tid, len(game.moves) - 1, game.final,
                          game.log_row(len(game.moves) - 1))
    await store.set_status(closed, "abandoned")
    await store.release(given_up, "one")
    assert await store.left_ends() == []  # held still
    clock.now += TTL
    assert await store.left_ends() == [done, closed]  # not a running table's lapsed lease
    assert await store.claim(done, "two", TTL)
    await store.release(done, "two")
    assert await store.left_ends() == [closed]
