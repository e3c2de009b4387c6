"""Players the engine can seat itself: a uniformly random agent, a random agent that prefers the
monsters it can beat (``reach``), a heuristic one and the three levels an AI seat may play at
(``easy``, ``normal`` which is the heuristic agent, and ``hard`` which searches).

An agent sees only its seat's :class:`~engine.observe.Observation` (no hidden cards) and picks one
of ``observation.legal``, never taking a move back (``undo``, N19, is for a person's misclick):
every agent first reads its observation through :func:`engine.agents.offered.without_undo` (or
takes its actions through :func:`engine.agents.offered.choices`).
"""

from __future__ import annotations

from typing import Literal, Protocol

from engine.actions import Action
from engine.observe import Observation


class Agent(Protocol):
    """Anything that chooses an action from a seat's observation."""

    def choose(self, observation: Observation) -> Action:
        """Return one of ``observation.legal``."""
        ...


#: The name of a level an AI seat may play at (each the name of its agent in :func:`make_agent`).
AiLevel = Literal["easy", "normal", "hard"]
#: The levels an AI seat may play at, weakest first.
LEVELS: tuple[AiLevel, ...] = ("easy", "normal", "hard")
#: The level of an AI seat nobody chose (and of a person's seat the AI takes over): the
#: heuristic agent, the one the other levels are measured against.
DEFAULT_LEVEL: AiLevel = "normal"


def make_agent(kind: str, seed: int = 0, seconds: float | None = None) -> Agent:
    """An agent by name: ``random``, ``reach``, ``heuristic``, or a level (``easy``, ``normal``,
    ``hard``). ``seconds`` bounds the time the hard agent searches per decision (None: its
    default budget); the other agents decide at once and ignore it."""
    if kind == "random":
        from engine.agents.random_agent import RandomAgent

        return RandomAgent(seed)
    if kind == "reach":
        from engine.agents.reach import ReachAgent

        return ReachAgent(seed)
    if kind in ("heuristic", "normal"):
        from engine.agents.heuristic import HeuristicAgent

        return HeuristicAgent(seed)
    if kind == "easy":
        from engine.agents.easy import EasyAgent

        return EasyAgent(seed)
    if kind == "hard":
        from engine.agents.search import HardAgent

        return HardAgent(seed, seconds=seconds)
    raise ValueError(f"unknown agent {kind!r} (random, reach, heuristic, easy, normal or hard)")
