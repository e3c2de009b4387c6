"""Properties of saving and replaying over random legal play (Hypothesis): the JSON round trip
gives the same state; the same seed and choices replay the same game, whatever the global
:mod:`random` does meanwhile; and a whole game played to its end by agents stays sound."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace
from property_play import (
    HEROES,
    MAX_STEPS,
    PROPS,
    all_notations,
    check_invariants,
    check_successor,
    configs,
    fast_forward,
    walk,
)

from engine import (
    Action,
    GameConfig,
    GameState,
    IllegalAction,
    Phase,
    SeatConfig,
    anchor_to_json,
    apply,
    legal_actions,
    new_game,
    observe,
    parse,
    replay,
    state_from_json,
    state_to_json,
)
from engine.agents import make_agent


@given(config=configs(), data=st.data())
@PROPS
def test_json_round_trip(config: GameConfig, data: st.DataObject) -> None:
    for state in walk(data, fast_forward(data, config), steps=120):
        text = state_to_json(state)
        again = state_from_json(text, anchor_to_json(state))
        assert again == state
        assert state_to_json(again) == text
        assert state_from_json(text) == replace(state, undo=None)  # without its anchor


def _disturb(i: int) -> None:
    random.seed(i * 7919)
    for _ in range(i % 5):
        random.random()
    random.shuffle(list(range(10)))


def _play(config: GameConfig, choices: list[int],
          between: Callable[[int], None] | None = None) -> tuple[list[GameState], list[Action]]:
    state = new_game(config)
    states, actions = [state], []
    for i, choice in enumerate(choices):
        legal = legal_actions(state)
        if not legal:
            break
        if between is not None:
            between(i)
        action = legal[choice % len(legal)]
        state, _ = apply(state, action)
        states.append(state)
        actions.append(action)
    return states, actions


@given(config=configs(),
       choices=st.lists(st.integers(0, 1000), min_size=100, max_size=MAX_STEPS))
@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
def test_same_seed_same_game(config: GameConfig, choices: list[int]) -> None:
    states, actions = _play(config, choices)
    random.seed(12345)
    again, again_actions = _play(config, choices, between=_disturb)
    assert again_actions == actions
    assert again == states
    assert replay(config, actions) == states[-1]
    assert replay(config, [str(a) for a in actions]) == states[-1]


# --------------------------------------------------------------------------- whole games


def _finished_game() -> tuple[GameConfig, list[Action], list[GameState]]:
    """The first reach-agent 4-seat game (by seed) that ends within the round cap."""
    for seed in range(40):
        config = GameConfig(tuple(SeatConfig(h) for h in HEROES[seed % 3: seed % 3 + 4]),
                            abilities=bool(seed % 2), seed=seed)
        state = new_game(config)
        agents = [make_agent("reach", seed * 8 + i) for i in range(4)]
        actions: list[Action] = []
        states = [state]
        while state.phase is not Phase.OVER and state.round <= 150:
            action = agents[state.current].choose(observe(state, state.current))
            state, _ = apply(state, action)
            actions.append(action)
            states.append(state)
        if state.phase is Phase.OVER:
            return config, actions, states
    raise AssertionError("no random game of 40 seeds ended within 150 rounds")


def test_a_whole_game_to_its_end() -> None:
    config, actions, states = _finished_game()
    for before, after in zip(states, states[1:], strict=False):
        check_invariants(before)
        check_successor(before, after, [])
    end = states[-1]
    check_invariants(end)
    assert end.winner is not None and len(end.seats[end.winner].keys) == 3
    assert legal_actions(end) == []
    for text in all_notations()[:50]:
        with pytest.raises(IllegalAction) as info:
            apply(end, parse(text))
        assert info.value.code == "game_over"
    for viewer in (*range(len(end.seats)), None):
        assert observe(end, viewer).legal == ()
        assert observe(end, viewer).winner == end.winner
    assert replay(config, actions) == end
    assert state_from_json(state_to_json(end)) == end
