"""Games saved by an earlier engine still load and play on identically.

``fixtures/saved_games.json`` holds four games written by the engine before the state format
moved to msgspec (format 1, commit 5c204b8): each table's configuration, every action played to
the end and states saved along the way (every phase, the finished game last). Each saved state
must load, equal the state the current engine reaches by replaying the actions so far, and the
game must play on from it to the recorded end. Those games were saved before moves could be taken
back (N19): they load without a take-back record, so they equal the replayed state without its own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from engine import BadState, Phase, apply, parse, replay, state_from_json, state_to_json
from engine.serialize import from_data
from engine.state import GameConfig, GameState

SAVED = json.loads((Path(__file__).parent / "fixtures" / "saved_games.json").read_text())
GAMES: list[dict[str, Any]] = SAVED["games"]


def _load(text: str) -> GameState:
    """A saved state; a finished game's last state may break the invariants a running game keeps
    (the engine leaves the final battle), so it is read as the bot reads finished games."""
    try:
        return state_from_json(text)
    except BadState:
        state = from_data(GameState, json.loads(text)["state"])
        assert state.phase is Phase.OVER
        return state


def test_the_fixtures_are_format_one_and_cover_every_phase() -> None:
    phases = set()
    for game in GAMES:
        for saved in game["states"]:
            doc = json.loads(saved["json"])
            assert doc["format"] == 1
            phases.add(doc["state"]["phase"])
    assert phases == {p.value for p in Phase}


@pytest.mark.parametrize("game", GAMES, ids=lambda g: str(g["config"]["seed"]))
def test_saved_states_load_and_replay_identically(game: dict[str, Any]) -> None:
    config = from_data(GameConfig, game["config"], "config")
    actions = [parse(a) for a in game["actions"]]
    end = replay(config, actions)
    assert end.phase is Phase.OVER
    for saved in game["states"]:
        state = _load(saved["json"])
        assert state.step == saved["step"]
        assert state.undo is None
        assert state == replace(replay(config, actions[:saved["step"]]), undo=None)
        for action in actions[saved["step"]:]:
            state, _ = apply(state, action)
        assert state == end
        assert _load(state_to_json(state)) == end  # and saved again in today's format
