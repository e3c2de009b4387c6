"""Who sits where and each person's reminders, on every backend: a person's running tables are
found through ``table_seats``, kept in step with every write of a table's seats (a lobby joined
and left, a game started, a seat handed on with a move); the upgrade fills it from the tables
already stored (a damaged row skipped); a person's choice of direct-message reminders is kept.
A start held to a person's limit counts their running tables under their lock, after any start
of theirs another process is writing."""
from __future__ import annotations

from collections.abc import Sequence

import pytest

from bot.game.places import Place
from bot.storage.interface import Storage
from bot.storage.records import Limited, SeatInfo, TableRecord
from bot.storage.sqlite_schema import MIGRATIONS
from storage.backends import Backend
from storage.helpers import (
    ANN,
    BOB,
    GUILD,
    SEATS,
    Clock,
    before_commit,
    finished,
    play_on,
    played,
    started,
)
from storage.old_bots import old_rows

#: The migration that adds ``table_seats``.
SEATED = next(i for i, m in enumerate(MIGRATIONS, start=1)
              if isinstance(m, str) and "CREATE TABLE table_seats" in m)
CAROL = 303


async def test_a_person_s_running_tables_follow_every_seat_write(store: Storage) -> None:
    lobby = await store.create_table(guild_id=GUILD, place_key=Place.of(GUILD, ANN).key,
                                     channel_id=1, host_id=ANN, seats=SEATS[:1],
                                     abilities=False, timer=259200, seed=5)
    assert lobby.timer == 259200
    assert await store.running_of(ANN) == []  # a lobby is not running yet
    await store.update_lobby(lobby.id, (*SEATS[:1], SeatInfo(user=CAROL, name="Carol")))
    await store.update_lobby(lobby.id, SEATS)  # Carol left, Bob sat down
    game = played(1)
    await store.start_game(lobby.id, SEATS, game.states[0], deadline=None)
    assert [r.id for r in await store.running_of(ANN)] == [lobby.id]
    assert [r.id for r in await store.running_of(BOB)] == [lobby.id]
    assert await store.running_of(CAROL) == []
    other = await started(store, played(2).states[0], channel=2,
                          seats=(SeatInfo(user=CAROL, name="Carol", hero="horan"),
                                 SeatInfo(user=BOB, name="Bob", hero="taia"),
                                 SeatInfo(ai=True, hero="argentus", level="easy")),
                          guild=None, host=CAROL)
    assert [r.id for r in await store.running_of(BOB)] == [lobby.id, other.id]
    # Bob's seat goes to Carol with a move (as a seat handed on would be written)
    handed = (SEATS[0], SeatInfo(user=CAROL, name="Carol", hero="taia"), SEATS[2])
    await play_on(store, lobby.id, game, upto=1, seats=handed)
    assert [r.id for r in await store.running_of(BOB)] == [other.id]
    assert [r.id for r in await store.running_of(CAROL)] == [lobby.id, other.id]
    await store.update_seats(other.id, other.version, (*other.seats[:1], SEATS[1], SEATS[2]))
    assert [r.id for r in await store.running_of(BOB)] == [other.id]
    await store.set_status(other.id, "abandoned")
    assert await store.running_of(BOB) == []
    assert [r.id for r in await store.running_of(CAROL)] == [lobby.id]


async def test_a_finished_match_is_not_running(store: Storage) -> None:
    await finished(store, 3, channel=4)
    assert await store.running_of(ANN) == []


async def test_reminders_are_kept_per_person(backend: Backend, clock: Clock,
                                             store: Storage) -> None:
    assert not await store.notify_of(ANN)
    assert await store.notify_wanted([ANN, BOB]) == set()
    await store.set_notify(ANN, True)
    await store.set_notify(BOB, True)
    await store.set_notify(BOB, False)
    assert await store.notify_of(ANN) and not await store.notify_of(BOB)
    assert await store.notify_wanted([ANN, BOB, CAROL]) == {ANN}
    assert await store.notify_wanted([]) == set()
    await store.close()
    again = await backend.open(clock)  # kept across a restart
    try:
        assert await again.notify_wanted([ANN, BOB]) == {ANN}
    finally:
        await again.close()


async def test_the_upgrade_fills_who_sits_where(backend: Backend, clock: Clock) -> None:
    await backend.build(SEATED - 1)
    game = played(1)
    rows = [row for tid, status, step in ((1, "running", 10), (2, "finished", len(game.moves)),
                                          (3, "running", 5))
            for row in old_rows(SEATED - 1, tid, status, game, step)]
    damaged = ['"not a list"', '[1, "x", {"user": "y"}]']
    if backend.name == "sqlite":  # PostgreSQL's JSONB column holds no broken JSON
        damaged.append("not json")
    rows.extend(("tables", dict(id=tid, guild_id=GUILD, channel_id=100 + tid, host_id=ANN,
                                status="running", seed=tid, seats=seats, version=0,
                                created_at=1.0, updated_at=1.0, place_key="x"))
                for tid, seats in enumerate(damaged, start=4))
    await backend.insert_rows(rows)
    await backend.build(SEATED)
    store = await backend.open(clock)
    try:
        assert [r.id for r in await store.running_of(ANN)] == [1, 3]
        assert [r.id for r in await store.running_of(BOB)] == [1, 3]
    finally:
        await store.close()


async def test_the_language_of_each_person_s_reminders_is_kept(backend: Backend, clock: Clock,
                                                               store: Storage) -> None:
    """Stored with a person's choice of reminders and noted anew as it changes; nothing for
    someone who never chose; the upgrade leaves it unknown for those who chose before."""
    await store.set_notify(ANN, True, "fr")
    await store.set_notify(ANN, False)  # no language told: the stored one stays
    await store.set_notify(BOB, True)
    await store.note_locale(CAROL, "cs")  # never chose: nothing stored
    assert await store.notify_locales([ANN, BOB, CAROL]) == {ANN: "fr", BOB: None}
    await store.note_locale(BOB, "en-US")
    await store.note_locale(ANN, "cs")
    assert await store.notify_locales([]) == {}
    await store.close()
    again = await backend.open(clock)  # kept across a restart
    try:
        assert await again.notify_locales([ANN, BOB]) == {ANN: "cs", BOB: "en-US"}
        assert not await again.notify_of(ANN) and await again.notify_of(BOB)
    finally:
        await again.close()


async def test_the_upgrade_keeps_each_choice_of_reminders_without_a_language(
        backend: Backend, clock: Clock) -> None:
    await backend.build(24)
    await backend.insert_rows([("notify", dict(user_id=ANN, dm=1)),
                               ("notify", dict(user_id=BOB, dm=0))])
    await backend.build(25)
    store = await backend.open(clock)
    try:
        assert await store.notify_wanted([ANN, BOB]) == {ANN}
        assert await store.notify_locales([ANN, BOB]) == {ANN: None, BOB: None}
    finally:
        await store.close()


class Full(Exception):
    """A start refused by its limit: the person already plays ``count`` matches."""

    def __init__(self, count: int) -> None:
        super().__init__(count)
        self.count = count


def at_most_one(running: Sequence[TableRecord]) -> None:
    """A limit of one match at once."""
    if running:
        raise Full(len(running))


async def test_a_limited_start_waits_for_another_process_s_start_of_that_person(
        backend: Backend, store: Storage, fresh: Storage,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two processes start a match of Ann at the same moment, each held to a limit of one
    match at once. The second's count waits for the first start's transaction to end
    (PostgreSQL's READ COMMITTED would let a count made meanwhile miss the first start), so it
    finds that match and is refused, nothing written: its lobby stays open."""
    theirs = fresh if backend.shared else store  # SQLite: one process holds the file
    game = played(1)
    mine, other = [await store.create_table(
        guild_id=GUILD, place_key=Place.of(GUILD, ANN).key, channel_id=channel, host_id=ANN,
        seats=SEATS, abilities=False, timer=60, seed=game.states[0].config.seed)
        for channel in (1, 2)]
    limited = Limited(ANN, at_most_one)
    # this start made while theirs is written, not yet committed: it waits for Ann's lock
    mine_started = before_commit(
        monkeypatch, theirs, store, backend.shared,
        lambda: store.start_game(mine.id, SEATS, game.states[0], None, limited=limited))
    await theirs.start_game(other.id, SEATS, game.states[0], None, limited=limited)
    with pytest.raises(Full) as refused:
        await mine_started[0]
    assert refused.value.count == 1
    assert [r.id for r in await store.running_of(ANN)] == [other.id]
    found = await store.get(mine.id)
    assert found is not None and found.status == "lobby"
