"""A finished game's final state is stored and read like any other: checked before it is saved
and read back with every invariant checked (the engine closes the won battle against the Lord);
a final state stored by an earlier bot with that battle left open reads as the engine leaves it
now."""

from __future__ import annotations

import msgspec
import pytest
from msgspec.structs import replace

from bot.storage.interface import Storage
from bot.storage.records import load_state, storable
from engine import BadState, state_to_json
from engine.state import STATE_FORMAT
from storage.backends import Backend
from storage.helpers import finished, played


def test_a_final_state_is_checked_before_it_is_saved() -> None:
    final = played(1).final
    assert load_state(storable(final)) == final
    broken = replace(final, seats=final.with_seat(0, replace(final.seats[0], hp=9)).seats)
    with pytest.raises(BadState, match="HP 9"):
        storable(broken)
    with pytest.raises(BadState, match="HP 9"):
        load_state(state_to_json(broken))


async def test_a_final_state_left_with_the_lord_battle_open_reads_tidy(
        backend: Backend, store: Storage, fresh: Storage) -> None:
    game = played(1)
    before, final = game.states[-2], game.final
    assert final.winner is not None and before.battle is not None and final.battle is None
    champion = replace(final.seats[final.winner], discard=before.seats[final.winner].discard)
    old = replace(final, battle=before.battle,
                  seats=final.with_seat(final.winner, champion).seats)
    tid = await finished(store, 1, channel=7)
    await backend.damage_table(store, tid, state=msgspec.json.encode(
        {"format": STATE_FORMAT, "state": old}).decode())
    rec = await fresh.get(tid)
    assert rec is not None and rec.status == "finished" and rec.game == final
