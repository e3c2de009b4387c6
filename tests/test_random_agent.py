"""The uniformly random agent: only legal actions, every one of them as likely, reproducibly."""

from __future__ import annotations

from collections import Counter

from engine import GameConfig, Phase, SeatConfig, apply, legal_actions, new_game, observe
from engine.agents import make_agent
from engine.agents.random_agent import RandomAgent

CONFIG = GameConfig((SeatConfig("horan"), SeatConfig("taia"), SeatConfig("xanros")),
                    abilities=True, seed=5)


def test_it_chooses_every_legal_action_about_equally_often() -> None:
    state = new_game(CONFIG)
    view = observe(state, state.current)
    agent = RandomAgent(3)
    counts = Counter(agent.choose(view) for _ in range(3000))
    assert set(counts) == set(view.legal)
    expected = 3000 / len(view.legal)
    assert all(abs(n - expected) < expected * 0.3 for n in counts.values()), counts


def test_the_same_seed_plays_the_same_game() -> None:
    def game(seed: int) -> list[str]:
        agents = [make_agent("random", seed + i) for i in range(3)]
        state, out = new_game(CONFIG), []
        while state.phase is not Phase.OVER and len(out) < 300:
            action = agents[state.current].choose(observe(state, state.current))
            assert action in legal_actions(state)
            out.append(str(action))
            state, _ = apply(state, action)
        return out

    assert game(1) == game(1)
    assert game(1) != game(2)
