"""engine.observe: an observation is a plain value, the same whoever builds it and however often."""

from __future__ import annotations

import pickle

import msgspec
import pytest
from msgspec import structs
from random_play import random_positions

from engine import GameConfig, GameState, Phase, SeatConfig, legal_actions, observe
from engine.actions import Fight
from engine.observe import Observation, unpacked
from engine.serialize import to_data

CONFIG = GameConfig((SeatConfig("horan", name="Ann"), SeatConfig("taia", ai=True),
                     SeatConfig("xanros")), abilities=True, seed=77)


def _positions(count: int = 150) -> list[GameState]:
    return random_positions(CONFIG, count)


def test_observations_compare_copy_and_pickle_as_values() -> None:
    phases = set()
    for state in _positions():
        phases.add(state.phase)
        for viewer in (*range(len(state.seats)), None):
            view = observe(state, viewer)
            again = observe(state, viewer)
            assert again == view and hash(again) == hash(view) and to_data(again) == to_data(view)
            assert structs.replace(view) == view
            assert pickle.loads(pickle.dumps(view)) == view
            assert unpacked(view.packed()) == view  # how a drawing worker gets it
            assert Observation(**{f.name: getattr(view, f.name)
                                  for f in structs.fields(view)}) == view
    assert {Phase.TURN, Phase.BATTLE} <= phases


def test_the_fields_describe_the_state() -> None:
    for state in _positions(80):
        view = observe(state, state.current)
        assert (view.step, view.round, view.phase, view.current) == (
            state.step, state.round, state.phase, state.current)
        assert view.hand == state.seat.hand
        assert list(view.legal) == (legal_actions(state) if state.phase is not Phase.OVER else [])
        for seat, seen in zip(state.seats, view.seats, strict=True):
            assert (seen.hero, seen.hp, seen.hand_count, seen.deck_count, seen.discard) == (
                seat.hero, seat.hp, len(seat.hand), len(seat.deck), seat.discard)
        for level, seen in zip(state.levels, view.levels, strict=True):
            assert seen.row == level.row and seen.deck_count == len(level.deck)
            assert seen.gate_top == (level.gates[0] if level.gates else None)
        assert (view.battle is None) == (state.battle is None or state.phase is Phase.OVER)
        for fight in view.legal:
            if isinstance(fight, Fight):
                assert view.target(fight) is not None
        spectator = observe(state, None)
        assert spectator.hand == () and spectator.legal == () and spectator.drawn == ()


def test_views_reused_from_the_last_observation_are_those_of_the_state() -> None:
    """Observing reuses the views of the seats and cavern levels a move left untouched: in any
    order of positions, every view shows its own state's seat or level, and the levels' views
    are the very same while the state keeps the same levels."""
    positions = _positions(400)
    for state in positions[::2] + positions[1::2][::-1]:
        view = observe(state, None)
        for seat, seen in zip(state.seats, view.seats, strict=True):
            assert (seen.hp, seen.hand_count, seen.deck_count, seen.discard, len(seen.keys)) == (
                seat.hp, len(seat.hand), len(seat.deck), seat.discard, len(seat.keys))
        for level, seen in zip(state.levels, view.levels, strict=True):
            assert (seen.row, seen.deck_count, seen.gate_count) == (
                level.row, len(level.deck), len(level.gates))
    kept = 0
    for before, after in zip(positions, positions[1:], strict=False):
        if after.levels is before.levels:
            kept += 1
            assert observe(after).levels is observe(before).levels
    assert kept > 50


def test_observations_are_frozen() -> None:
    view = observe(_positions(40)[-1], 0)
    with pytest.raises(AttributeError):
        view.seats = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        view.seats[0].hp = 1  # type: ignore[misc]
    with pytest.raises(AttributeError):
        view.nonsense  # type: ignore[attr-defined]  # noqa: B018 - reading is the test


def test_the_data_of_an_observation_is_its_fields() -> None:
    view = observe(_positions(30)[-1], 0)
    data = to_data(view)
    assert list(data) == [f.name for f in structs.fields(view)]
    assert data["seats"] == to_data(view.seats)
    assert msgspec.json.encode(view) == msgspec.json.encode(data)


def test_a_made_up_observation_is_a_copy_with_other_parts() -> None:
    view = observe(_positions(30)[-1], 0)
    moved = structs.replace(view.seats[1], hp=1)
    copy = structs.replace(view, seats=(view.seats[0], moved, *view.seats[2:]),
                           phase=Phase.OVER)
    assert copy.seats[1] is moved and view.seats[1] != moved
    assert copy.phase is Phase.OVER and copy.battle == view.battle and copy != view
    first = structs.replace(view.levels[0], row=("nobody",) * len(view.levels[0].row))
    made_up = structs.replace(view, levels=(first, *view.levels[1:]))
    assert made_up.target(Fight(1, 1)) == "nobody"
    assert unpacked(made_up.packed()) == made_up  # it travels like any other
    with pytest.raises(TypeError):  # unless it holds what MessagePack cannot carry
        structs.replace(view, hand=(object(),)).packed()  # type: ignore[arg-type]
