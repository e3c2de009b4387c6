"""engine.observe: the parts an observation defers read, compare and copy like plain fields."""

from __future__ import annotations

import dataclasses
import pickle
import sys

import pytest
from random_play import random_positions

from engine import GameConfig, GameState, Phase, SeatConfig, new_game, observe
from engine.observe import Observation
from engine.serialize import to_data

CONFIG = GameConfig((SeatConfig("horan", name="Ann"), SeatConfig("taia", ai=True),
                     SeatConfig("xanros")), abilities=True, seed=77)
OBSERVE = sys.modules["engine.observe"]
DEFERRED = ("seats", "levels", "potion_piles", "battle", "events")


def _positions(count: int = 150) -> list[GameState]:
    return random_positions(CONFIG, count)


def _fresh(state: GameState, viewer: int | None) -> Observation:
    """An observation built now, not one a memo kept (whose parts may already be filled)."""
    OBSERVE._observations.clear()
    return observe(state, viewer)


def _eager(view: Observation) -> Observation:
    """The same observation with every field worked out and stored by the dataclass itself."""
    return Observation(**{f.name: getattr(view, f.name) for f in dataclasses.fields(view)})


def test_every_field_is_filled_or_deferred() -> None:
    names = {f.name for f in dataclasses.fields(Observation)}
    assert set(OBSERVE._DEFERRED) == set(DEFERRED) <= names
    view = _fresh(new_game(CONFIG), 0)
    for name in sorted(names):  # the filled ones are in their slots; the deferred ones not yet
        slot = Observation.__dict__[name]
        if name in DEFERRED:
            with pytest.raises(AttributeError):
                slot.__get__(view)
        else:
            slot.__get__(view)
    for name in DEFERRED:
        getattr(view, name)
        Observation.__dict__[name].__get__(view)  # kept once read


def test_deferred_parts_match_whatever_order_they_are_read_in() -> None:
    phases = set()
    for state in _positions():
        phases.add(state.phase)
        for viewer in (*range(len(state.seats)), None):
            first = _eager(_fresh(state, viewer))
            backwards = _fresh(state, viewer)
            for name in reversed(DEFERRED):
                getattr(backwards, name)
            assert _eager(backwards) == first
            assert _fresh(state, viewer) == first  # comparing works each part out too
            assert to_data(_fresh(state, viewer)) == to_data(first)
            assert dataclasses.replace(_fresh(state, viewer)) == first
            assert hash(_fresh(state, viewer)) == hash(first)
            assert pickle.loads(pickle.dumps(_fresh(state, viewer))) == first
            one_by_one = _fresh(state, viewer)
            for i, seat in enumerate(first.seats):
                assert one_by_one.seat_view(i) == seat  # before seats is worked out
            assert one_by_one.seats == first.seats
            assert [one_by_one.seat_view(i) for i in range(len(first.seats))] == list(first.seats)
    assert {Phase.TURN, Phase.BATTLE} <= phases


def test_a_part_read_twice_is_the_same_object_and_stays_frozen() -> None:
    state = _positions(40)[-1]
    view = _fresh(state, state.current)
    assert view.seats is view.seats and view.legal is view.legal
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.seats = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        view.nonsense  # type: ignore[attr-defined]  # noqa: B018 - reading is the test
    assert not hasattr(view, "nonsense")


def test_the_state_it_reads_from_is_no_field() -> None:
    """Serialising or walking the fields never reaches the hidden state kept for the deferred
    parts (the property test ``test_observation_shows_only_what_the_viewer_may_know`` checks
    what the fields hold)."""
    view = _fresh(_positions(10)[-1], 1)
    assert "_state" not in {f.name for f in dataclasses.fields(view)}
    assert "_state" not in to_data(view)
    assert "_state" not in repr(view)


def test_seat_view_of_a_copy_reads_the_copys_seats() -> None:
    state = _positions(30)[-1]
    view = _fresh(state, 0)
    moved = dataclasses.replace(view.seats[1], hp=1)
    copy = dataclasses.replace(view, seats=(view.seats[0], moved, *view.seats[2:]))
    assert copy.seat_view(1) is moved and view.seat_view(1) == view.seats[1] != moved
