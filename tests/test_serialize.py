"""Saved games: JSON round trips, and corrupt or foreign data refused with a clear BadState."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from random_play import random_positions

from engine import (
    BadState,
    GameConfig,
    GameState,
    Phase,
    SeatConfig,
    anchor_to_json,
    new_game,
    state_from_json,
    state_to_json,
)
from engine.serialize import from_data, to_data
from engine.state import STATE_FORMAT, Event
from i18n import Msg, msg

CONFIG = GameConfig((SeatConfig("horan", name="Ann"), SeatConfig("taia", ai=True, stacking="top"),
                     SeatConfig("xanros")), abilities=True, seed=2024)


def _positions(count: int = 400) -> list[GameState]:
    return random_positions(CONFIG, count)


def test_round_trip_along_a_game() -> None:
    phases = set()
    for state in _positions():
        text, anchor = state_to_json(state), anchor_to_json(state)
        assert state_from_json(text, anchor) == state
        assert state_from_json(text.encode(), anchor and anchor.encode()) == state
        phases.add(state.phase)
    assert {Phase.TURN, Phase.BATTLE} <= phases


def test_the_json_is_versioned_plain_data() -> None:
    doc = json.loads(state_to_json(new_game(CONFIG)))
    assert doc["format"] == STATE_FORMAT
    assert doc["state"]["config"]["seed"] == 2024
    assert doc["state"]["phase"] == "turn"


def test_nested_messages_round_trip() -> None:
    event = Event(msg("event.bought", who="Ann", item=msg("back.m1-03"), paid=msg("card.g1-1")), 2)
    assert from_data(Event, json.loads(json.dumps(to_data(event)))) == event


def _corrupt(change: Callable[[dict[str, Any]], None]) -> str:
    doc = json.loads(state_to_json(_positions(60)[-1]))
    change(doc)
    return json.dumps(doc)


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        node: Any = doc
        keys = [int(k) if k.isdigit() else k for k in path.split("/")]
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value
    return change


def _drop(path: str) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        node: Any = doc
        keys = path.split("/")
        for key in keys[:-1]:
            node = node[int(key) if key.isdigit() else key]
        del node[keys[-1]]
    return change


def _hand_card(doc: dict[str, Any]) -> str:
    return str(doc["state"]["seats"][0]["hand"][0])


@pytest.mark.parametrize(("change", "words"), [
    (_set("format", STATE_FORMAT + 1), f"format {STATE_FORMAT + 1}"),
    (_set("format", "1"), "not a saved game"),
    (_drop("state"), "not a saved game"),
    (_set("state/phase", "napping"), "napping"),
    (_set("state/seats/0/hp", "5"), "Expected `int`, got `str` - at `$.seats[0].hp`"),
    (_set("state/seats/0/hp", True), "Expected `int`, got `bool`"),
    (_set("state/seats/0/hp", 9), "HP 9"),
    (_set("state/seats/1/hp", -1), "HP -1"),
    (_drop("state/seats/0/hero"), "missing required field `hero`"),
    (_set("state/lord", "lord-9"), "lord-9"),
    (_set("state/potions", [4, 4]), "length 3"),
    (_set("state/potions", [9, 4, 4]), "potions"),
    (_set("state/seats/0/potions", ["elixir"]), "potions"),
    (_set("state/seats/0/hand", ["m1-01", "m1-01"]), "cards out of place"),
    (_set("state/levels/2/deck", []), "missing"),
    (_set("state/seats/0/weapon", "m1-01"), ""),
    (_set("state/turn", 7), "turn"),
    (_set("state/order", [0, 0, 1]), "order"),
    (_set("state/config/seats/1/hero", "gandalf"), "gandalf"),
    (_set("state/config/seats", []), "seats"),
    (_set("state/config/seats/2/hero", "aderyn"), "plays 'xanros', but the table seated 'aderyn'"),
    (_set("state/config/seats/0/stacking", "sideways"), "sideways"),
    (_set("state/winner", 1), "winner"),
    (_set("state/log/0/text", {"params": []}), "missing required field `key`"),
    (_set("state/log/0/text/params", [["who", [1]]]), "params"),
    (_set("state/log/0/text/params", {"who": "Ann"}), "params"),  # format 1's shape in format 2
    (_set("state/seats", {"0": {}}), "Expected `array`, got `object` - at `$.seats`"),
])
def test_corrupt_state_is_refused(change: Callable[[dict[str, Any]], None], words: str) -> None:
    with pytest.raises(BadState) as info:
        state_from_json(_corrupt(change))
    assert words in str(info.value), str(info.value)


def test_fields_the_engine_does_not_know_are_ignored() -> None:
    state = _positions(60)[-1]
    for change in (_set("state/sparkle", 1), _set("state/seats/0/sparkle", 1)):
        doc = json.loads(state_to_json(state))
        change(doc)
        assert state_from_json(json.dumps(doc), anchor_to_json(state)) == state


def test_a_card_in_two_places_is_refused() -> None:
    def twice(doc: dict[str, Any]) -> None:
        seat = doc["state"]["seats"][0]
        seat["discard"] = [*seat["discard"], _hand_card(doc)]
    with pytest.raises(BadState, match="cards out of place"):
        state_from_json(_corrupt(twice))


@pytest.mark.parametrize("text", ["", "{", "[]", "null", "42", '{"format": 2}', b"\xff\xfe",
                                  '{"format": 1, "state": {"seats": 3}}'])
def test_not_a_saved_game(text: str | bytes) -> None:
    with pytest.raises(BadState):
        state_from_json(text)


def test_messages_read_back_as_messages() -> None:
    state = _positions(30)[-1]
    again = state_from_json(state_to_json(state))
    for event in again.log:
        assert isinstance(event.text, Msg)
        for _, value in event.text.params:
            assert isinstance(value, str | int | Msg)


@pytest.mark.parametrize("value", [None, 42, ["a"]])
def test_what_is_no_text_is_no_saved_game(value: Any) -> None:
    with pytest.raises(BadState, match="not a saved game"):
        state_from_json(value)
