"""The uniformly random agent: every legal action equally likely, as OpenSpiel's random bots play.

It knows nothing of the game, so tuning the other agents never changes its games: the golden
playthroughs (``tests/golden``) are recorded with it. Its own seeded generator keeps its choices
reproducible.
"""

from __future__ import annotations

from engine import rng
from engine.actions import Action
from engine.agents.offered import choices
from engine.observe import Observation


class RandomAgent:
    """Chooses uniformly among the legal actions."""

    def __init__(self, seed: int = 0) -> None:
        self._rng = rng.seed_state(seed ^ 0x5EED)

    def choose(self, observation: Observation) -> Action:
        """Any one of ``observation.legal`` but ``undo``, each as likely."""
        legal = choices(observation)
        i, self._rng = rng.below(self._rng, len(legal))
        return legal[i]
