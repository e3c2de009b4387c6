"""Positions to draw: a mid-game battle reached by simulated play, rebuilt deterministically.

The demo, the golden images and the benchmark all draw the same kind of position: a game played
by seeded random agents until a battle is under way with cards played and equipment on the table.
"""

from __future__ import annotations

from engine import GameConfig, GameState, Phase, SeatConfig, apply, legal_actions, observe
from engine.agents import make_agent
from engine.state import Event

HEROES = ("horan", "taia", "argentus", "aderyn")
MAX_STEPS = 4000


class NoPosition(RuntimeError):
    """The simulated game ended before reaching the wanted position."""


def demo_config(seed: int, seats: int = 3, abilities: bool = True) -> GameConfig:
    """The table the demo position is played on."""
    return GameConfig(seats=tuple(SeatConfig(h) for h in HEROES[:seats]), abilities=abilities,
                      seed=seed)


def _interesting(state: GameState, min_chain: int) -> bool:
    b = state.battle
    if state.phase is not Phase.BATTLE or b is None or len(b.chain) < min_chain:
        return False
    seat = state.seats[state.current]
    equipped = any(s.weapon or s.armour for s in state.seats)
    return equipped and state.round >= 3 and seat.hand != () and b.level <= 3


def battle_position(seed: int, seats: int = 3, min_chain: int = 2,
                    abilities: bool = True) -> tuple[GameState, list[str]]:
    """Play seeded random agents until a battle with ``min_chain`` cards played and equipment.

    Returns the state and the actions (notation) that reach it from ``demo_config(seed)``.
    """
    state = _new(seed, seats, abilities)
    agents = [make_agent("random", seed * 31 + i) for i in range(seats)]
    actions: list[str] = []
    for _ in range(MAX_STEPS):
        if state.phase is Phase.OVER:
            break
        if _interesting(state, min_chain) and legal_actions(state):
            return state, actions
        action = agents[state.current].choose(observe(state, state.current))
        state, _events = apply(state, action)
        actions.append(str(action))
    raise NoPosition(f"seed {seed}: no battle with {min_chain} cards and equipment reached")


def _new(seed: int, seats: int, abilities: bool) -> GameState:
    from engine import new_game

    return new_game(demo_config(seed, seats, abilities))


def public_events(events: tuple[Event, ...]) -> tuple[Event, ...]:
    """The events every seat sees."""
    return tuple(e for e in events if e.to is None)
