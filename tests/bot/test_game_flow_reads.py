"""A move reads its table once: a person's move, an AI seat's move and a timed-out turn each
read the table under its lock and carry the table they wrote on in their outcome, with nothing
read back. On PostgreSQL, where every read is a round trip, a move costs at most two
transactions (the read and the write), counted on the store's own connection pool."""

from __future__ import annotations

from typing import Any

import pytest
from storage.backends import PostgresBackend
from storage.helpers import ANN, BOB, Clock, Game, played

from bot.game.places import Place
from bot.game.play import Play
from bot.game.tables import Tables
from bot.storage import postgres
from bot.storage.records import SeatInfo, TableRecord
from bot.workers.thinking import Thinking

HEROES = ("horan", "taia", "argentus")
#: asyncpg pool calls that each make one transaction (a query on its own, or a connection
#: taken for a transaction of several statements).
ROUND_TRIPS = frozenset({"acquire", "fetch", "fetchrow", "fetchval", "execute",
                         "executemany"})


class CountingPool:
    """The store's asyncpg pool, counting the transactions asked of it."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool
        self.transactions = 0

    def __getattr__(self, name: str) -> Any:
        if name in ROUND_TRIPS:
            self.transactions += 1
        return getattr(self.pool, name)


class Counted:
    """A move's cost: table reads (``Storage.get``) and PostgreSQL transactions."""

    def __init__(self, store: postgres.Store) -> None:
        self.store = store
        self.pool = CountingPool(store._pool)
        store._pool = self.pool  # type: ignore[assignment]
        self.reads = 0
        real = store.get

        async def get(table_id: int) -> TableRecord | None:
            self.reads += 1
            return await real(table_id)

        store.get = get  # type: ignore[method-assign]

    def reset(self) -> None:
        """Count from now on."""
        self.reads = 0
        self.pool.transactions = 0


@pytest.fixture
def backend(postgres_server: Any) -> PostgresBackend:
    return PostgresBackend(postgres_server)


async def table(store: postgres.Store, game: Game, at: int, seats: tuple[SeatInfo, ...],
                timer: int = 0, deadline: float | None = None) -> TableRecord:
    """A running table at position ``at`` of ``game``."""
    rec = await store.create_table(guild_id=9, place_key=Place.server(9).key, channel_id=1,
                                   host_id=ANN, seats=seats, abilities=False, timer=timer,
                                   seed=game.states[0].config.seed)
    await store.start_game(rec.id, seats, game.states[at], deadline)
    found = await store.get(rec.id)
    assert found is not None
    return found


def people() -> tuple[SeatInfo, ...]:
    return tuple(SeatInfo(user=(ANN, BOB, 303)[s], name=f"P{s}", hero=h)
                 for s, h in enumerate(HEROES))


async def test_a_person_s_move_reads_its_table_once_in_two_transactions(
        backend: PostgresBackend, clock: Clock) -> None:
    game = played(1)
    store = await backend.open(clock)
    try:
        rec = await table(store, game, 0, people())
        play = Play(store, Tables(store), Thinking(workers=0), clock)
        counted = Counted(store)
        for i in range(4):
            counted.reset()
            seat, move = game.moves[i]
            outcome = await play.act(rec.id, people()[seat].user or 0, rec.version, move)
            assert counted.reads == 1 and counted.pool.transactions <= 2
            assert outcome.record == await store.get(rec.id)  # what was written, not read
            rec = outcome.record
    finally:
        await store.close()


async def test_an_ai_move_reads_its_table_once_in_two_transactions(
        backend: PostgresBackend, clock: Clock) -> None:
    game = played(1)
    seats = tuple(SeatInfo(ai=True, hero=h, level="easy") for h in HEROES)
    store = await backend.open(clock)
    try:
        rec = await table(store, game, 0, seats)
        play = Play(store, Tables(store), Thinking(workers=0), clock)
        counted = Counted(store)
        for _ in range(4):
            counted.reset()
            outcome = await play.ai_step(rec.id, known=rec)  # the last move's table
            assert outcome is not None
            assert counted.reads == 1 and counted.pool.transactions <= 2
            rec = outcome.record
        assert rec == await store.get(rec.id)
    finally:
        await store.close()


async def test_a_timed_out_turn_reads_its_table_once(backend: PostgresBackend,
                                                     clock: Clock) -> None:
    game = played(1)
    store = await backend.open(clock)
    try:
        rec = await table(store, game, 0, people(), timer=60, deadline=clock.now - 1)
        play = Play(store, Tables(store), Thinking(workers=0), clock)
        counted = Counted(store)
        out = await play.expire(rec.id, rec.version)
        assert out and all(o.timed_out for o in out)
        assert counted.reads == 1  # however many moves the AI made for the person
        assert counted.pool.transactions <= 1 + len(out) <= 2 * len(out)
        assert out[-1].record == await store.get(rec.id)
    finally:
        await store.close()
