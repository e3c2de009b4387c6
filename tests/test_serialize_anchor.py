"""Saved states and taking back (N19): a saved state holds its take-back record as the moves only,
about as long as a state without one; its anchor is saved apart and rebuilds the record, which
then takes back exactly as before; without its anchor (or with another) a state reads with no
take-back open; states saved with the whole anchor inside still read with their take-back; a
finished game's final state reads back like any other."""

from __future__ import annotations

from functools import cache

import msgspec
import pytest
from msgspec.structs import replace

from engine import (
    BadState,
    GameConfig,
    GameState,
    Phase,
    SeatConfig,
    Undo,
    anchor_to_json,
    apply,
    legal_actions,
    new_game,
    observe,
    state_from_json,
    state_to_json,
)
from engine.agents import make_agent
from engine.state import STATE_FORMAT
from engine.validate import check_state

HEROES = ("horan", "taia", "argentus", "xanros")


@cache
def game(seed: int) -> tuple[GameState, ...]:
    """Every position of a 4-seat game the reach agents play to its end."""
    config = GameConfig(tuple(SeatConfig(h) for h in HEROES), abilities=bool(seed % 2),
                        seed=seed)
    state = new_game(config)
    agents = [make_agent("reach", seed * 8 + i) for i in range(len(HEROES))]
    states = [state]
    while state.phase is not Phase.OVER:
        state, _ = apply(state, agents[state.current].choose(observe(state, state.current)))
        states.append(state)
    return tuple(states)


def open_windows(seed: int = 3) -> list[GameState]:
    """The positions of :func:`game` where a take-back is open."""
    return [s for s in game(seed) if s.undo is not None]


def old_json(state: GameState) -> str:
    """``state`` as saved before its anchor was kept apart: the whole record inside."""
    return msgspec.json.encode({"format": STATE_FORMAT, "state": state}).decode()


def test_an_open_take_back_adds_only_its_moves_to_the_saved_state() -> None:
    windows = open_windows()
    assert len(windows) > 20 and any(len(s.undo.moves) > 1 for s in windows if s.undo)
    for state in windows:
        assert state.undo is not None
        text, bare = state_to_json(state), state_to_json(replace(state, undo=None))
        assert "base" not in text
        assert len(text) - len(bare) < 30 + 20 * len(state.undo.moves)
        assert len(old_json(state)) > 1.8 * len(text)  # what the record weighed before


def test_with_its_anchor_a_state_reads_back_and_takes_back_exactly() -> None:
    for state in open_windows():
        loaded = state_from_json(state_to_json(state), anchor_to_json(state))
        assert loaded == state
        assert apply(loaded, Undo()) == apply(state, Undo())
        back, _ = apply(loaded, Undo())
        check_state(back)


def test_the_anchor_changes_only_when_a_take_back_window_opens_or_closes() -> None:
    states = game(3)
    for before, after in zip(states, states[1:], strict=False):
        if after.undo is None:
            assert anchor_to_json(after) is None
        elif len(after.undo.moves) == 1:
            assert anchor_to_json(after) == state_to_json(before)
        else:
            assert anchor_to_json(after) == anchor_to_json(before)


def test_without_its_anchor_a_state_reads_with_no_take_back() -> None:
    for state in open_windows():
        loaded = state_from_json(state_to_json(state))
        assert loaded == replace(state, undo=None)
        check_state(loaded)
        assert Undo() not in legal_actions(loaded)


def test_with_another_anchor_or_a_damaged_one_a_state_reads_with_no_take_back() -> None:
    windows = open_windows()
    anchors = [anchor_to_json(s) for s in windows]
    for state, anchor in zip(windows, anchors, strict=True):
        assert anchor is not None
        text = state_to_json(state)
        others = [a for a in anchors if a != anchor][:3]
        for wrong in (*others, anchor[:-5], '{"format": 2}', "[]", state_to_json(state)):
            assert state_from_json(text, wrong) == replace(state, undo=None)


def test_a_damaged_record_is_still_refused() -> None:
    state = open_windows()[0]
    assert state.undo is not None
    bad = replace(state, undo=replace(state.undo, moves=("fly",)))
    with pytest.raises(BadState, match="take-back record"):
        state_from_json(state_to_json(bad), anchor_to_json(state))


def test_a_state_saved_with_its_anchor_inside_reads_with_its_take_back() -> None:
    for state in open_windows():
        loaded = state_from_json(old_json(state))
        assert loaded == state
        assert apply(loaded, Undo()) == apply(state, Undo())
        assert state_to_json(loaded) == state_to_json(state)  # saved again: the moves only
        assert anchor_to_json(loaded) == anchor_to_json(state)


@pytest.mark.parametrize("seed", range(6))
def test_a_finished_game_reads_back_like_any_other(seed: int) -> None:
    final = game(seed)[-1]
    assert final.phase is Phase.OVER and final.battle is None
    check_state(final)
    assert state_from_json(state_to_json(final)) == final


def test_a_game_saved_with_the_won_battle_against_the_lord_open_reads_tidy() -> None:
    states = game(0)
    before, final = states[-2], states[-1]
    assert final.winner is not None and before.battle is not None
    champion = before.seats[final.winner]
    old = replace(final, battle=before.battle,
                  seats=final.with_seat(final.winner, replace(
                      final.seats[final.winner], discard=champion.discard)).seats)
    with pytest.raises(BadState):
        check_state(old)
    assert state_from_json(old_json(old)) == final
