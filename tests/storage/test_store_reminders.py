"""Slow matches' reminders on every backend: one per person and turn (a second claim of the
same turn is refused, the next turn's is not), its state changed when a direct message is
refused, released when it was never sent; when each person last looked at a table (the
latest time kept); whose direct messages are closed (noted once)."""
from __future__ import annotations

from bot.storage.core.reminders import ACTIVE, CLOSED, SENT
from bot.storage.interface import Storage
from storage.helpers import ANN, BOB, Clock, played, started


async def test_one_reminder_per_turn_and_what_became_of_it(store: Storage, clock: Clock) -> None:
    table = (await started(store, played(1).states[0], channel=1)).id
    other = (await started(store, played(2).states[0], channel=2)).id
    assert await store.reminders_of([table]) == {}
    assert await store.claim_reminder(table, ANN, 1000, clock.now, SENT)
    assert not await store.claim_reminder(table, ANN, 1000, clock.now, SENT)  # never two
    assert await store.claim_reminder(table, ANN, 2000, clock.now, ACTIVE)  # the next turn
    assert await store.claim_reminder(table, BOB, 1000, clock.now, SENT)
    await store.set_reminder(table, BOB, 1000, CLOSED)
    assert await store.reminders_of([table, other]) == {
        (table, ANN, 1000): SENT, (table, ANN, 2000): ACTIVE, (table, BOB, 1000): CLOSED}
    assert await store.reminders_of([other]) == {}
    await store.release_reminder(table, ANN, 1000)  # recorded as sent, but never sent
    await store.release_reminder(table, BOB, 1000)  # closed: stays so
    assert await store.reminders_of([table]) == {
        (table, ANN, 2000): ACTIVE, (table, BOB, 1000): CLOSED}
    assert await store.claim_reminder(table, ANN, 1000, clock.now, SENT)  # claimed again


async def test_when_a_person_last_looked_and_closed_direct_messages(store: Storage,
                                                                     clock: Clock) -> None:
    table = (await started(store, played(1).states[0], channel=1)).id
    assert await store.seen_at([table]) == {}
    await store.seen(table, ANN, 100.0)
    await store.seen(table, ANN, 250.5)
    await store.seen(table, BOB, 120.0)
    assert await store.seen_at([table]) == {(table, ANN): 250.5, (table, BOB): 120.0}
    assert await store.dms_closed([ANN, BOB]) == set()
    await store.note_dms_closed(BOB, clock.now)
    await store.note_dms_closed(BOB, clock.now + 5)  # noted once
    assert await store.dms_closed([ANN, BOB]) == {BOB}
    assert await store.dms_closed([]) == set()
    await store.clear_dms_closed(BOB)  # asked for reminders again: tried once more
    assert await store.dms_closed([ANN, BOB]) == set()
