"""The table the store keeps after reading it: served again without SQL, and never different
from what the database holds (after a write, a failed write, a read overtaken by a write, or a
row damaged behind the bot's back)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from bot_helpers import Clock

from bot.game.service import GameService
from bot.storage.records import CorruptTable, StaleVersion, TableRecord
from bot.storage.sqlite import Store
from engine import legal_actions

A, B = 101, 202


@pytest.fixture
async def fresh(tmp_path: Path, clock: Clock) -> AsyncIterator[Store]:
    """A second store on the same file, as a newly started bot would open it: what the
    database holds."""
    other = await Store.open(tmp_path / "karak.sqlite3", clock=clock)
    yield other
    await other.close()


async def started(service: GameService) -> TableRecord:
    rec = await service.lobby.create(guild_id=9, channel_id=1, host_id=A, host_name="Ann")
    await service.lobby.join(rec.id, B, "Bob")
    await service.lobby.start(rec.id, A)
    return await service.tables.load(rec.id)


async def in_database(fresh: Store, table_id: int) -> TableRecord:
    fresh._records.clear()  # a fresh store's own kept records must not answer either
    found = await fresh.get(table_id)
    assert found is not None
    return found


async def test_a_table_read_twice_is_read_once(service: GameService, store: Store) -> None:
    rec = await started(service)
    assert await store.get(rec.id) is await store.get(rec.id)


async def test_every_write_shows_in_the_next_read(service: GameService, store: Store,
                                                  fresh: Store) -> None:
    rec = await started(service)
    user = rec.seats[rec.game.current].user
    assert user is not None
    await service.play.act(rec.id, user, rec.version, str(legal_actions(rec.game)[0]))
    moved = await store.get(rec.id)
    assert moved is not None and moved.version == rec.version + 1
    assert moved == await in_database(fresh, rec.id)
    await store.set_message(rec.id, message_id=77)
    assert (await store.get(rec.id)) == await in_database(fresh, rec.id)
    assert (await store.get(rec.id)).message_id == 77  # type: ignore[union-attr]
    await store.relocalise(rec.id, "fr")
    assert (await store.get(rec.id)).locale == "fr"  # type: ignore[union-attr]
    await store.raw_execute("UPDATE tables SET timer = 600")  # maintenance: any table
    assert (await store.get(rec.id)).timer == 600  # type: ignore[union-attr]
    assert (await store.get(rec.id)) == await in_database(fresh, rec.id)


async def test_a_failed_write_leaves_the_stored_table(service: GameService, store: Store,
                                                      fresh: Store) -> None:
    rec = await started(service)
    user = rec.seats[rec.game.current].user
    assert user is not None
    # a log row already at the next step makes the move's transaction fail
    await store.raw_execute("INSERT INTO actions (table_id, step, seat, action, at) "
                            "VALUES (?, ?, 0, 'x', 0)", (rec.id, rec.version + 1))
    kept = await store.get(rec.id)
    with pytest.raises(sqlite3.IntegrityError):
        await service.play.act(rec.id, user, rec.version, str(legal_actions(rec.game)[0]))
    after = await store.get(rec.id)
    assert after is not kept and after == await in_database(fresh, rec.id)
    assert after is not None and after.version == rec.version
    with pytest.raises(StaleVersion):  # a stale writer changes nothing either
        await store.update_seats(rec.id, rec.version + 5, rec.seats)
    assert await store.get(rec.id) == await in_database(fresh, rec.id)


async def test_a_read_overtaken_by_a_write_is_not_kept(service: GameService,
                                                       store: Store) -> None:
    rec = await started(service)
    for message in range(1, 4):
        await store.set_message(rec.id, message_id=100 + message)  # nothing kept now
        # the read starts while the write is under way and ends after it
        await asyncio.gather(store.set_message(rec.id, message_id=message), store.get(rec.id))
        assert (await store.get(rec.id)).message_id == message  # type: ignore[union-attr]


async def test_a_damaged_row_is_reported_even_when_the_table_was_kept(
        service: GameService, store: Store) -> None:
    rec = await started(service)
    assert await store.get(rec.id) is not None
    await store.raw_execute("UPDATE tables SET state = ? WHERE id = ?", ('{"format":1}', rec.id))
    with pytest.raises(CorruptTable):
        await store.get(rec.id)
    with pytest.raises(CorruptTable):  # a damaged row is never kept
        await store.get(rec.id)


async def test_what_is_kept_is_bounded(service: GameService, store: Store,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bot.storage.sqlite.RECORDS", 2)
    ids = []
    for channel in range(1, 5):
        ids.append((await service.lobby.create(guild_id=9, channel_id=channel, host_id=A,
                                         host_name="Ann")).id)
    for tid in ids:
        assert (await store.get(tid)) is not None
    assert list(store._records) == ids[-2:]
