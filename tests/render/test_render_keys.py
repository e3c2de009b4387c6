"""The pictures' keys change exactly when their pictures do: a card played in battle changes the
battle picture and the mover's hand, never the table picture."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

import render
from engine import GameState, Observation, Phase, Play, apply, legal_actions, observe
from render.positions import demo_config, scene
from tests.random_play import random_positions

Draw = Callable[[Observation, str], bytes]
KEYED: dict[str, tuple[Callable[[Observation, str], str], Draw]] = {
    "table": (render.table_key, render.table_image),
    "battle": (render.battle_key, render.battle_image),
    "hand": (render.hand_key, render.hand_image),
}


def _games() -> Iterator[list[GameState]]:
    for seed in (3, 8):
        yield random_positions(demo_config(seed, seats=2 + seed % 3), 400)


def _plays() -> Iterator[tuple[GameState, GameState]]:
    """(before, after) of every card played in the sample games."""
    for states in _games():
        for before in states:
            if before.phase is not Phase.BATTLE:
                continue
            plays = [a for a in legal_actions(before) if isinstance(a, Play)]
            for play in plays[:2]:
                yield before, apply(before, play)[0]


def test_a_played_card_changes_battle_and_hand_not_table() -> None:
    count = 0
    for before, after in _plays():
        mover = before.current
        for locale in ("en", "cs"):
            for viewer in (None, mover):
                a, b = observe(before, viewer), observe(after, viewer)
                assert render.table_key(a, locale) == render.table_key(b, locale)
                assert render.table_image(a, locale) == render.table_image(b, locale)
                assert render.battle_key(a, locale) != render.battle_key(b, locale)
            a, b = observe(before, mover), observe(after, mover)
            assert render.hand_key(a, locale) != render.hand_key(b, locale)
        count += 1
    assert count >= 10


@pytest.mark.parametrize("kind", sorted(KEYED))
def test_the_same_key_draws_the_same_picture(kind: str) -> None:
    """Over positions of whole games, seen by a spectator and by each seat: two observations
    with one key have one picture (so a caller may skip drawing it)."""
    key, draw = KEYED[kind]
    kept = changed = 0
    for states in _games():
        seen: dict[str, bytes] = {}
        for state in states[::3]:
            for viewer in (None, *range(len(state.seats))):
                obs = observe(state, viewer)
                if (kind == "battle" and obs.battle is None) or (kind == "hand" and viewer is None):
                    continue
                k = key(obs, "fr")
                png = draw(obs, "fr")
                if k in seen:
                    assert seen[k] == png, f"{kind} key {k} for two pictures"
                    kept += 1
                else:
                    changed += 1
                seen[k] = png
    assert kept > 10 and changed > 10


def test_keys_depend_on_the_language_and_the_position() -> None:
    obs = scene("midgame").observation()
    for key, _ in KEYED.values():
        assert key(obs, "en") == key(obs, "en")
        assert key(obs, "en") != key(obs, "cs")
    other = scene("lord").observation()
    assert render.table_key(obs) != render.table_key(other)
    assert render.battle_key(obs) != render.battle_key(other)
