"""The table the store keeps after reading it: served again without asking the database, and
never different from what the database holds (after a write, a failed write, a read overtaken by
a write, or a row damaged behind the store's back)."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage.interface import Storage
from bot.storage.records import CorruptTable, DatabaseError, StaleVersion, TableRecord
from storage.backends import Backend, forget
from storage.helpers import SEATS, played, started


async def in_database(fresh: Storage, table_id: int) -> TableRecord:
    forget(fresh)  # a fresh store's own kept records must not answer either
    found = await fresh.get(table_id)
    assert found is not None
    return found


async def test_a_table_read_twice_is_read_once(backend: Backend, store: Storage,
                                               fresh: Storage) -> None:
    rec = await started(store, played(1).states[0])
    assert await store.get(rec.id) is await store.get(rec.id)
    if backend.shared:  # another process writes the table: the next read sees it
        await fresh.set_message(rec.id, message_id=5)
        assert (await store.get(rec.id)).message_id == 5  # type: ignore[union-attr]


async def test_every_write_shows_in_the_next_read(store: Storage, fresh: Storage) -> None:
    game = played(1)
    rec = await started(store, game.states[0])
    await store.apply(rec.id, 0, game.states[1], game.log_row(0))
    moved = await store.get(rec.id)
    assert moved is not None and moved.version == 1
    assert moved == await in_database(fresh, rec.id)
    await store.set_message(rec.id, message_id=77)
    assert (await store.get(rec.id)) == await in_database(fresh, rec.id)
    assert (await store.get(rec.id)).message_id == 77  # type: ignore[union-attr]
    await store.relocalise(rec.id, "fr")
    assert (await store.get(rec.id)).locale == "fr"  # type: ignore[union-attr]
    await store.update_seats(rec.id, 1, SEATS[:2] + (SEATS[2].model_copy(update={"timeouts": 1}),))
    assert (await store.get(rec.id)).seats[2].timeouts == 1  # type: ignore[union-attr]
    assert (await store.get(rec.id)) == await in_database(fresh, rec.id)


async def test_a_failed_write_leaves_the_stored_table(backend: Backend, store: Storage,
                                                      fresh: Storage) -> None:
    game = played(1)
    rec = await started(store, game.states[0])
    await backend.refuse(store, "actions")  # the move's log row is refused: nothing is written
    kept = await store.get(rec.id)
    with pytest.raises(DatabaseError):
        await store.apply(rec.id, 0, game.states[1], game.log_row(0))
    after = await store.get(rec.id)
    # SQLite drops what it kept; PostgreSQL sees the row unwritten (the same xmin) and keeps it
    assert (after is kept) == backend.shared and after == await in_database(fresh, rec.id)
    assert after is not None and after.version == 0 and after.state == game.states[0]
    assert await store.action_log(rec.id) == []
    with pytest.raises(StaleVersion):  # a stale writer changes nothing either
        await store.update_seats(rec.id, 5, rec.seats)
    assert await store.get(rec.id) == await in_database(fresh, rec.id)


async def test_a_read_overtaken_by_a_write_is_not_kept(store: Storage) -> None:
    rec = await started(store, played(1).states[0])
    for message in range(1, 4):
        await store.set_message(rec.id, message_id=100 + message)  # nothing kept now
        # the read starts while the write is under way and ends after it
        await asyncio.gather(store.set_message(rec.id, message_id=message), store.get(rec.id))
        assert (await store.get(rec.id)).message_id == message  # type: ignore[union-attr]


async def test_a_damaged_row_is_never_kept(backend: Backend, store: Storage) -> None:
    rec = await started(store, played(1).states[0])
    assert await store.get(rec.id) is not None
    await backend.damage_table(store, rec.id, state='{"format":1}')
    with pytest.raises(CorruptTable):
        await store.get(rec.id)
    with pytest.raises(CorruptTable):  # a damaged row is never kept
        await store.get(rec.id)
