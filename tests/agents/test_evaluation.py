"""The hard level's evaluation: a chance to win per seat, fitted to games between normal seats."""

from __future__ import annotations

import importlib.util
import math
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from engine import GameConfig, GameState, SeatConfig, new_game
from engine.agents.evaluation import FEATURES, WEIGHTS, evaluate, features

ROOT = Path(__file__).resolve().parent.parent.parent


def table(seed: int = 3) -> GameState:
    return new_game(GameConfig(seats=tuple(SeatConfig(h) for h in
                                           ("taia", "horan", "xanros", "aderyn")),
                               abilities=True, seed=seed))


def fitter(monkeypatch: pytest.MonkeyPatch) -> Any:
    """scripts/fit_evaluation.py, imported."""
    spec = importlib.util.spec_from_file_location("fit_evaluation",
                                                  ROOT / "scripts/fit_evaluation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module


def test_the_seats_chances_add_up_to_one() -> None:
    state = table()
    chances = [evaluate(state, i) for i in range(4)]
    assert math.isclose(sum(chances), 1.0)
    assert max(chances) - min(chances) < 0.15  # a fresh table is about even


def test_a_key_raises_a_seats_chance_and_lowers_the_others() -> None:
    state = table()
    before = [evaluate(state, i) for i in range(4)]
    keyed = state.with_seat(2, replace(state.seats[2], keys=("gate-1",)))
    after = [evaluate(keyed, i) for i in range(4)]
    assert after[2] > before[2]
    assert all(after[i] < before[i] for i in (0, 1, 3))


def test_a_won_game_scores_one_and_a_lost_one_zero() -> None:
    over = replace(table(), winner=1)
    assert [evaluate(over, i) for i in range(4)] == [0.0, 1.0, 0.0, 0.0]


def test_every_feature_has_a_weight() -> None:
    assert set(WEIGHTS) == set(FEATURES)
    assert len(features(table(), 0)) == len(FEATURES)


def test_the_fit_finds_the_weights_that_dealt_the_winners(
        monkeypatch: pytest.MonkeyPatch) -> None:
    fit = fitter(monkeypatch)
    chosen = [0.8 * (-1) ** j * (1 + j % 3) / 3 for j in range(len(FEATURES))]
    dice = random.Random(5)
    data = []
    for _ in range(4000):
        snap = [tuple(dice.gauss(0.0, 1.0) for _ in FEATURES) for _ in range(4)]
        shares = fit._shares(chosen, snap)
        data.append((snap, dice.choices(range(4), weights=shares)[0]))
    found = fit.fit(data, ridge=0.01)
    assert max(abs(a - b) for a, b in zip(found, chosen, strict=True)) < 0.15
    loglik, _ = fit.score(data, found)
    assert loglik > fit.score(data, [0.0] * len(FEATURES))[0]
