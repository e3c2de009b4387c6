"""Hearing of other processes' writes on PostgreSQL, on the real server: every write of a table
by one store is told to the subscriber of the store holding its lease once committed (never a
write rolled back, never the subscriber's own store's writes, nothing for a table whose lease
the writer holds or nobody holds), and a listening connection that drops is made
again, the subscriber told that changes may have been missed. A table taken home by the process
of its server's shard is told as a write is. An AI seat's move by a process
not holding the table's lease is refused (its AI turns are the holder's); a person's move is
written by whichever process heard the click. An SQLite store tells nothing: no
other process writes its file."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from postgres_server import Server

from bot.game.places import Place
from bot.storage.postgres import Store
from bot.storage.postgres_listen import Listener
from bot.storage.records import LogRow, NotHeld, Shards, StaleVersion
from loopback.sharding import snowflake_on
from storage.backends import PostgresBackend, SqliteBackend
from storage.helpers import SEATS, Clock, played, started

#: Seconds a test waits at most for a notification (a safety net: they come at once).
PATIENCE = 30.0


class Heard:
    """A subscriber that keeps what it is told, in order."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[int | None] = asyncio.Queue()

    def __call__(self, table: int | None) -> None:
        self.queue.put_nowait(table)

    async def next(self) -> int | None:
        """The next thing told (waiting for it)."""
        return await asyncio.wait_for(self.queue.get(), PATIENCE)

    def nothing_more(self) -> bool:
        """True when nothing else was told."""
        return self.queue.empty()


def by_person(row: LogRow) -> LogRow:
    """``row`` as a person's move (written by whichever process heard the click)."""
    return replace(row, by_ai=False, user_id=1)


@pytest.fixture
def pg(postgres_server: Server) -> PostgresBackend:
    return PostgresBackend(postgres_server)


async def test_every_table_write_of_another_process_is_heard(
        pg: PostgresBackend, clock: Clock) -> None:
    game = played(1)
    mine, other = await pg.open(clock), await pg.open(clock)
    try:
        heard = Heard()
        await mine.subscribe(heard)
        rec = await other.create_table(guild_id=1, place_key=Place.of(1, 1).key,
                                       channel_id=1, host_id=1, seats=SEATS,
                                       abilities=False, timer=0, seed=1)
        await other.update_lobby(rec.id, SEATS)  # nobody holds the table yet: no one to wake
        assert await mine.claim(rec.id, "mine", 15.0)  # mine does its background work now
        await other.update_lobby(rec.id, SEATS)
        await other.start_game(rec.id, SEATS, game.states[0], None)
        await other.apply(rec.id, 0, game.states[1], by_person(game.log_row(0)))
        await other.set_message(rec.id, message_id=10)
        await other.relocalise(rec.id, "fr")
        assert [await heard.next() for _ in range(5)] == [rec.id] * 5
        with pytest.raises(StaleVersion):  # rolled back: nothing is told
            await other.apply(rec.id, 0, game.states[1], by_person(game.log_row(0)))
        await mine.apply(rec.id, 1, game.states[2], game.log_row(1))  # my own: not told
        await other.claim(rec.id, "other", 15.0)  # a lease is no change of the table
        await other.set_status(rec.id, "abandoned")
        assert await heard.next() == rec.id
        assert heard.nothing_more()
    finally:
        await mine.close()
        await other.close()


@dataclass
class Pair:
    """Two processes' stores on one database; ``heard`` listens through ``mine``."""

    mine: Store
    other: Store
    heard: Heard

    @property
    def news(self) -> Listener:
        assert self.mine._news is not None
        return self.mine._news


@pytest.fixture
async def pair(pg: PostgresBackend, clock: Clock) -> AsyncIterator[Pair]:
    mine, other = await pg.open(clock), await pg.open(clock)
    try:
        heard = Heard()
        await mine.subscribe(heard)
        yield Pair(mine, other, heard)
    finally:
        await mine.close()
        await other.close()


async def test_a_dropped_listening_connection_is_made_again(
        pg: PostgresBackend, pair: Pair) -> None:
    first = pair.news.server_pid()
    await pg.execute("SELECT pg_terminate_backend($1)", first)
    assert await pair.heard.next() is None  # listening again: changes may have been missed
    assert pair.news.server_pid() not in (None, first)
    rec = await pair.other.create_table(guild_id=1, place_key=Place.of(1, 1).key,
                                        channel_id=1, host_id=1, seats=SEATS,
                                        abilities=False, timer=0, seed=1)
    assert await pair.mine.claim(rec.id, "mine", 15.0)
    await pair.other.start_game(rec.id, SEATS, played(1).states[0], None)
    assert await pair.heard.next() == rec.id
    assert pair.heard.nothing_more()
    await pair.mine.close()
    await pair.other.close()
    left = await pg.rows("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = "
                         "current_database() AND pid != pg_backend_pid()")
    assert left == [(0,)]  # closing the stores closed every connection, the listener's too


async def test_a_listening_connection_that_no_longer_answers_is_made_again(
        pair: Pair) -> None:
    news = pair.news
    assert news._connection is not None
    await news.check()  # it answers: kept
    assert pair.heard.nothing_more()
    first = news.server_pid()
    news.ping = 0.05  # the way to the server breaks: answers are never read any more
    news._connection._transport.pause_reading()  # type: ignore[attr-defined]
    await news.check()
    assert await pair.heard.next() is None
    assert news.server_pid() not in (None, first)
    rec = await pair.other.create_table(guild_id=1, place_key=Place.of(1, 1).key,
                                        channel_id=1, host_id=1, seats=SEATS,
                                        abilities=False, timer=0, seed=1)
    assert await pair.mine.claim(rec.id, "mine", 15.0)
    await pair.other.set_message(rec.id, message_id=10)
    assert await pair.heard.next() == rec.id


async def test_a_write_by_the_lease_holder_wakes_no_one(pair: Pair) -> None:
    """The usual case, a server's clicks and its tables' AI in one process, sends nothing:
    PostgreSQL commits notifying transactions one at a time."""
    rec = await started(pair.other, played(1).states[0])
    assert await pair.other.claim(rec.id, "other", 15.0)
    game = played(1)
    await pair.other.apply(rec.id, 0, game.states[1], game.log_row(0))
    assert await pair.mine.claim(rec.id, "mine", 15.0) is False  # held by other
    await pair.other.set_message(rec.id, message_id=10)
    assert await pair.mine.claim(rec.id, "other", 15.0)  # the holder's name, another process
    await pair.other.set_message(rec.id, message_id=11)  # of the same owner: nothing to tell
    marker = await started(pair.other, played(1).states[0], channel=2)
    assert await pair.mine.claim(marker.id, "mine", 15.0)
    await pair.other.set_message(marker.id, message_id=12)  # a table mine holds: told, and first
    assert await pair.heard.next() == marker.id  # (notifications come in commit order)
    assert pair.heard.nothing_more()


async def test_an_ai_move_by_a_process_not_holding_the_table_is_refused(pair: Pair) -> None:
    game = played(1)
    rec = await started(pair.other, game.states[0])
    assert await pair.mine.claim(rec.id, "mine", 15.0)
    with pytest.raises(NotHeld):  # rolled back: nothing written, nobody told
        await pair.other.apply(rec.id, 0, game.states[1], game.log_row(0))
    refused = await pair.mine.get(rec.id)
    assert refused is not None and refused.version == 0
    assert await pair.mine.action_log(rec.id) == []
    await pair.other.apply(rec.id, 0, game.states[1], by_person(game.log_row(0)))
    assert await pair.heard.next() == rec.id
    await pair.mine.apply(rec.id, 1, game.states[2], game.log_row(1))  # the holder's AI
    written = await pair.other.get(rec.id)
    assert written is not None and written.version == 2
    assert [r.by_ai for r in await pair.other.action_log(rec.id)] == [False, True]
    assert pair.heard.nothing_more()


async def test_a_table_taken_home_is_told_to_the_process_that_held_it(pair: Pair) -> None:
    """A process back on its shards takes its servers' tables from the one that covered for
    it: that one hears of each at once, and lets it go."""
    game = played(1)
    shard_one = await started(pair.other, game.states[0], guild=snowflake_on(1, 2))
    shard_zero = await started(pair.other, game.states[0], channel=2, guild=snowflake_on(0, 2))
    for rec in (shard_one, shard_zero):
        assert await pair.mine.claim(rec.id, "mine", 15.0)  # mine covered for the stopped one
    assert await pair.other.home("other", Shards(2, (1,)), 15.0) == [shard_one.id]
    assert await pair.heard.next() == shard_one.id
    assert await pair.other.home("other", Shards(2, (1,)), 15.0) == []  # home already
    await pair.other.set_message(shard_zero.id, message_id=10)  # a table mine holds still:
    assert await pair.heard.next() == shard_zero.id  # told, and first (in commit order)
    assert pair.heard.nothing_more()


async def test_an_sqlite_store_tells_nothing(tmp_path: Path, clock: Clock) -> None:
    sqlite = SqliteBackend(tmp_path / "karak.sqlite3")
    store, other = await sqlite.open(clock), await sqlite.open(clock)
    try:
        heard = Heard()
        await store.subscribe(heard)
        await started(other, played(1).states[0])
        assert heard.nothing_more()
    finally:
        await store.close()
        await other.close()
