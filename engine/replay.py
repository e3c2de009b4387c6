"""Rebuilding a game from its configuration and action list."""

from __future__ import annotations

from collections.abc import Iterable

from engine.actions import Action, parse
from engine.rules import apply
from engine.setup import new_game
from engine.state import GameConfig, GameState


def replay(config: GameConfig, actions: Iterable[Action | str]) -> GameState:
    """The state reached by applying ``actions`` (objects or notation, take-backs included) to a
    new game."""
    state = new_game(config)
    for action in actions:
        state, _ = apply(state, parse(action) if isinstance(action, str) else action)
    return state
