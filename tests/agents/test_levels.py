"""The AI levels: easy, normal and hard play whole games legally, and the hard agent's choice
depends on what its seat has seen, never on what is hidden from it."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any, get_args

import pytest

from engine import (
    DrinkCountercurse,
    DrinkHealing,
    DrinkStrength,
    Fight,
    GameConfig,
    GameState,
    Phase,
    SeatConfig,
    apply,
    new_game,
    observe,
)
from engine.agents import DEFAULT_LEVEL, LEVELS, AiLevel, make_agent
from engine.agents.search import HardAgent
from engine.sampling import sample_state

ROOT = Path(__file__).resolve().parent.parent.parent
HEROES = ("taia", "horan", "xanros", "aderyn")


def table(seed: int) -> GameState:
    return new_game(GameConfig(seats=tuple(SeatConfig(h) for h in HEROES), abilities=True,
                               seed=seed))


def test_every_level_has_an_agent() -> None:
    assert LEVELS == get_args(AiLevel) and DEFAULT_LEVEL in LEVELS
    for level in LEVELS:
        assert callable(make_agent(level, 1).choose)


def test_hard_plays_a_whole_game_against_itself() -> None:
    state = table(11)
    agents = [HardAgent(seed=i, iterations=4) for i in range(4)]
    while state.phase is not Phase.OVER:
        assert state.round <= 150
        state, _ = apply(state, agents[state.current].choose(observe(state, state.current)))
    assert state.winner is not None


def test_easy_plays_whole_games_and_forgets_its_potions() -> None:
    for seed in (1, 2):
        state = table(seed)
        agents = [make_agent("easy", seed * 8 + i) for i in range(4)]
        while state.phase is not Phase.OVER:
            assert state.round <= 150
            action = agents[state.current].choose(observe(state, state.current))
            assert not isinstance(action, DrinkStrength | DrinkCountercurse | DrinkHealing)
            state, _ = apply(state, action)  # an illegal choice raises


def searched_turns(seed: int, count: int) -> list[GameState]:
    """Turn positions of a heuristic game where the hard agent has a real choice to make."""
    state = table(seed)
    agents = [make_agent("normal", i) for i in range(4)]
    out: list[GameState] = []
    while state.phase is not Phase.OVER and len(out) < count:
        view = observe(state, state.current)
        if state.phase is Phase.TURN and state.round > 2 and \
                sum(isinstance(a, Fight) for a in view.legal) > 2:
            out.append(state)
        state, _ = apply(state, agents[state.current].choose(view))
    return out


def test_hard_chooses_the_same_whatever_is_hidden_from_it() -> None:
    """Two states that differ only where the seat cannot see (other hands and decks, its deck
    order, the caverns' decks, the generator) get the same choice from the same seed."""
    for state in searched_turns(seed=21, count=3):
        seat = state.current
        view = observe(state, seat)
        other = sample_state(view, seed=999)
        assert other != state
        assert other.rng != state.rng and other.seats[(seat + 1) % 4] != state.seats[(seat + 1) % 4]
        twin = observe(other, seat)
        assert twin == view
        first = HardAgent(seed=5, iterations=10).choose(view)
        second = HardAgent(seed=5, iterations=10).choose(twin)
        assert first == second


def test_hard_search_looks_at_more_than_one_move() -> None:
    """The search is no copy of the heuristic: over a few seeds some choice differs (else the
    test of identical choices above could pass with a search that does nothing)."""
    differ = 0
    for state in searched_turns(seed=22, count=12):
        view = observe(state, state.current)
        if HardAgent(seed=1, iterations=24).choose(view) != make_agent("normal").choose(view):
            differ += 1
    assert differ > 0


def test_hard_tree_reaches_the_decisions_after_the_first() -> None:
    """The tree is more than one ply: below a fight it holds the seat's battle decisions (which
    card to play, ending the battle), and every iteration is counted at the root."""
    deeper = 0
    for state in searched_turns(seed=22, count=6):
        view = observe(state, state.current)
        agent = HardAgent(seed=3, iterations=48)
        root = agent.tree(view, agent._shortlist(view, make_agent("normal").choose(view)))
        assert root.visits == 48 == sum(child.visits for child in root.children.values())
        deeper += any(child.children for child in root.children.values())
    assert deeper > 0


def strength_benchmark(monkeypatch: pytest.MonkeyPatch) -> Any:
    """benchmarks/ai_strength.py, imported."""
    spec = importlib.util.spec_from_file_location("bench_ai", ROOT / "benchmarks/ai_strength.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, bench)
    spec.loader.exec_module(bench)
    return bench


def test_hard_never_takes_back_a_purchase_for_ever(monkeypatch: pytest.MonkeyPatch) -> None:
    """Game 161 of the strength benchmark: the hard seat at the merchant once bought a potion
    and took the purchase back, again and again, and the game never ended."""
    game = strength_benchmark(monkeypatch).play("hard", 161)
    assert game.error is None and game.times


def test_strength_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    bench = strength_benchmark(monkeypatch)
    assert bench.main(["--games", "2", "--levels", "easy,hard", "--iterations", "2",
                       "--workers", "1", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert set(figures) == {"games", "levels", "decision_ms", "errors"}
    assert figures["games"] == 2 and figures["errors"] == 0
    assert set(figures["levels"]) == {"easy", "hard"}
    for level in ("easy", "hard"):
        lo, hi = figures["levels"][level]["ci95"]
        assert 0.0 <= lo <= figures["levels"][level]["share"] <= hi <= 1.0
        assert set(figures["decision_ms"][level]) == {"p50", "p99"}
    assert bench.wilson(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-3)


def test_a_regenerated_balance_report_keeps_the_levels_section() -> None:
    from engine.balance import keep_section

    old = "# Balance\n\n## Hero abilities on\nold\n## AI levels\n\nhard 40%\n\n## Raw figures\n{}\n"
    new = "# Balance\n\n## Hero abilities on\nnew\n\n## Raw figures\n{1}\n"
    kept = keep_section(old, new)
    assert kept == "# Balance\n\n## Hero abilities on\nnew\n\n## AI levels\n\nhard 40%\n" \
                   "\n## Raw figures\n{1}\n"
    assert keep_section(new, new) == new
