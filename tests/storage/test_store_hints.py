"""The hints a store keeps: whether a table allows them, the first hint given per person and
decision (a second one for the same decision gets the first back), and the hints each seat
used."""

from __future__ import annotations

import asyncio

from bot.storage.interface import Storage
from storage.helpers import ANN, BOB, played, started


async def test_the_first_hint_of_a_decision_is_kept(store: Storage, fresh: Storage) -> None:
    state = played(1).states[0]
    assert (await started(store, state, channel=2)).hints is None  # not decided yet
    rec = await started(store, state, hints=True)  # its start allowed them
    assert rec.hints is True
    assert await store.stored_hint(rec.id, 0, ANN) is None
    # two processes give Ann a hint for the same decision at once: one is kept, for both
    kept = await asyncio.gather(store.record_hint(rec.id, 0, ANN, 0, b"first", 1.0),
                                fresh.record_hint(rec.id, 0, ANN, 0, b"second", 2.0))
    assert kept[0] == kept[1] and kept[0] in (b"first", b"second")
    assert await fresh.stored_hint(rec.id, 0, ANN) == kept[0]
    assert await store.record_hint(rec.id, 3, ANN, 0, b"\x00\xff", 3.0) == b"\x00\xff"
    assert await store.record_hint(rec.id, 4, BOB, 1, b"bob", 4.0) == b"bob"
    assert await fresh.hints_used(rec.id) == {0: 2, 1: 1}
    assert (await fresh.get(rec.id)).hints is True  # type: ignore[union-attr]
    refused = await started(store, state, channel=3, hints=False)  # its start did not
    assert (await fresh.get(refused.id)).hints is False  # type: ignore[union-attr]
