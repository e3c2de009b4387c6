"""A random agent: uniform among the legal actions of a sensible kind, so its games still end.

It prefers playing a card to ending a battle and fighting to shopping, and once it holds the
three keys it fights the Lord (without that, random games may wander for thousands of rounds);
any other choice among the actions of the chosen kind is uniform. Its own seeded generator keeps
simulations reproducible.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import rng
from engine.actions import (
    LORD_LEVEL,
    Action,
    EndBattle,
    Fight,
    LeaveMerchant,
    Play,
    Revive,
    SetStacking,
    VisitMerchant,
)
from engine.observe import Observation


class RandomAgent:
    """Chooses at random among legal actions, weighted by kind."""

    def __init__(self, seed: int = 0) -> None:
        self._rng = rng.seed_state(seed ^ 0x5EED)

    def _pick(self, options: Sequence[Action]) -> Action:
        i, self._rng = rng.below(self._rng, len(options))
        return options[i]

    def _chance(self, percent: int) -> bool:
        roll, self._rng = rng.below(self._rng, 100)
        return roll < percent

    def choose(self, observation: Observation) -> Action:
        """Pick a legal action at random, favouring progress."""
        legal = [a for a in observation.legal if not isinstance(a, SetStacking)]
        if not legal:
            return self._pick(list(observation.legal))
        fights = [a for a in legal if isinstance(a, Fight)]
        if fights:
            me = observation.seats[observation.current]
            if me.hp <= 2 and self._chance(60):
                return Revive()
            lord = [a for a in fights if a.level == LORD_LEVEL]
            if lord:  # holding all three keys, it goes for the win
                return lord[0]
            if self._chance(85):
                return self._pick(fights)
            rest = [a for a in legal if isinstance(a, VisitMerchant | Revive)]
            return self._pick(rest or legal)
        plays = [a for a in legal if isinstance(a, Play)]
        if plays and self._chance(90):
            return self._pick(plays)
        if any(isinstance(a, EndBattle) for a in legal) and not plays:
            others = [a for a in legal if not isinstance(a, EndBattle)]
            if others and self._chance(30):
                return self._pick(others)
            return EndBattle()
        if any(isinstance(a, LeaveMerchant) for a in legal) and self._chance(40):
            return LeaveMerchant()
        return self._pick(legal)
