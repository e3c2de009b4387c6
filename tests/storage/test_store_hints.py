"""The hints a store keeps: whether a table allows them, the first hint given per person and
decision (a second one for the same decision gets the first back), and the hints each seat
used."""

from __future__ import annotations

import asyncio

from bot.game.places import Place
from bot.storage.interface import Storage
from storage.backends import Backend
from storage.helpers import ANN, BOB, GUILD, SEATS, Clock, played, started
from storage.old_bots import old_rows


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


async def test_a_table_keeps_the_host_s_hints_choice_apart_from_its_match_s(
        store: Storage) -> None:
    """The hints the host chose (None: the default) stay as chosen once the start decided the
    match's own."""
    for chosen, decided in ((None, True), (None, False), (False, False), (True, True)):
        lobby = await store.create_table(
            guild_id=GUILD, place_key=Place.of(GUILD, ANN).key, channel_id=1, host_id=ANN,
            seats=SEATS, abilities=False, timer=0, seed=1, hints=chosen)
        assert lobby.hints is chosen and lobby.hints_choice is chosen
        await store.start_game(lobby.id, SEATS, played(1).states[0], None,
                               hints=decided if chosen is None else None)
        now = await store.get(lobby.id)
        assert now is not None and now.hints is decided and now.hints_choice is chosen
        await store.set_status(lobby.id, "finished")


async def test_the_upgrade_keeps_each_table_s_hints_as_the_host_s_choice(
        backend: Backend, clock: Clock) -> None:
    """Tables stored before the host's choice of hints was kept apart keep the hints they had
    as that choice (a rematch of theirs keeps them, as it did); a lobby that left them to the
    default still does."""
    await backend.build(23)
    game = played(1)
    rows = [*old_rows(23, 1, "finished", game, len(game.moves)),
            *old_rows(23, 2, "running", game, 3), *old_rows(23, 3, "lobby", None, 0)]
    rows[0][1]["hints"], rows[1 + len(game.moves)][1]["hints"] = 0, 1
    await backend.insert_rows(rows)
    await backend.build(24)
    store = await backend.open(clock)
    try:
        kept = [await store.get(tid) for tid in (1, 2, 3)]
        assert [(r.hints, r.hints_choice) for r in kept if r is not None] == [
            (False, False), (True, True), (None, None)]
    finally:
        await store.close()
