"""The engine's values behave as values: built by keyword, equal and hashed by content, frozen,
copied with changes by msgspec.structs.replace, pickled and read back from JSON unchanged."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from msgspec import structs

from engine import GameConfig, SeatConfig, new_game
from engine.actions import Fight, Play
from engine.battle import Totals
from engine.serialize import from_data, to_data
from engine.state import Battle, Event, GameState, Level, Seat
from i18n import msg

STATE = new_game(GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia")), seed=4))
VALUES: list[Any] = [
    STATE, STATE.seats[0], STATE.levels[0], STATE.config, STATE.config.seats[0],
    Battle(level=1, slot=2, monster="m1-01", chain=("hor1",), boosted=((0, "attack"),)),
    Event(msg("event.play", who="Ann", card=msg("card.hor1")), to=1),
    Fight(level=2, slot=0), Play(card="hor1", ability="attack"),
    Totals(1, 2, 0, 3, 0, 4, 5, 1, 4, False, False, 0),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_values_compare_hash_copy_and_pickle_by_content(value: Any) -> None:
    fields = {f.name: getattr(value, f.name) for f in structs.fields(value)}
    twin = type(value)(**fields)
    assert twin == value and hash(twin) == hash(value) and twin is not value
    assert structs.replace(value) == value
    assert pickle.loads(pickle.dumps(value)) == value
    assert from_data(type(value), to_data(value)) == value
    name = next(iter(fields))
    with pytest.raises(AttributeError):
        setattr(value, name, fields[name])
    assert not hasattr(value, "__dict__")  # slotted: no stray attribute can be added


def test_keyword_construction_fills_the_defaults() -> None:
    seat = Seat(hero="horan")
    assert (seat.hp, seat.hand, seat.weapon, seat.stacking) == (5, (), None, "shuffle")
    battle = Battle(level=1, slot=0, monster="g1-1")
    assert (battle.chain, battle.ability_used, battle.hp_before) == ((), False, None)
    assert Level(row=(None,) * 5, deck=(), gates=()).row == (None,) * 5
    with pytest.raises(TypeError):
        Seat()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Seat(hero="horan", colour="red")  # type: ignore[call-arg]


def test_replace_changes_only_what_it_names() -> None:
    seat = STATE.seats[0]
    hurt = structs.replace(seat, hp=2, keys=("g1-1",))
    assert (hurt.hp, hurt.keys) == (2, ("g1-1",)) and hurt.hand is seat.hand
    assert seat.hp == 5 and seat.keys == ()
    later = structs.replace(STATE, step=7, round=3)
    assert isinstance(later, GameState) and later.seats is STATE.seats and later != STATE
    assert STATE.with_seat(0, hurt).seats == (hurt, STATE.seats[1])
    with pytest.raises(TypeError):
        structs.replace(seat, colour="red")
