"""A helper of the engine tests: the positions of a game the random agent plays."""

from __future__ import annotations

from engine import GameConfig, GameState, Phase, apply, new_game, observe
from engine.agents import make_agent


def random_positions(config: GameConfig, count: int) -> list[GameState]:
    """The first ``count`` + 1 positions of ``config`` played by random agents (fewer if it
    ends)."""
    state = new_game(config)
    agents = [make_agent("reach", i) for i in range(len(config.seats))]
    out = [state]
    for _ in range(count):
        if state.phase is Phase.OVER:
            break
        state, _ = apply(state, agents[state.current].choose(observe(state, state.current)))
        out.append(state)
    return out
