"""The easy agent: the heuristic agent's moves, with a newcomer's misjudgements.

Every move it makes is legal and looks sensible, but it often misreads the table:

- It forgets its potions: it never drinks one (unless nothing else is legal) and never buys one.
- On many turns it judges its reach as a newcomer does, adding up the attack printed on its hand
  and equipment while ignoring the monster's curses (R21-R23) and the colour chain (R15), and
  then fights the strongest monster that sum seems to beat (a level further down when it can),
  or one a point above it.
- It keeps won equipment whenever its slot is empty or the new item has more attack.

It sees only its observation; its own seeded generator keeps games reproducible.
"""

from __future__ import annotations

from msgspec.structs import replace

from engine import rng
from engine.actions import (
    Action,
    BuyPotion,
    DrinkCountercurse,
    DrinkHealing,
    DrinkStrength,
    Fight,
    TakeReward,
)
from engine.agents.heuristic import HeuristicAgent
from engine.agents.offered import without_undo
from engine.catalog import tables
from engine.observe import Observation
from engine.state import Phase

#: Percent of turns on which it picks its fight by the newcomer's sum.
MISJUDGE = 50
_POTIONS = (DrinkStrength, DrinkCountercurse, DrinkHealing, BuyPotion)


class EasyAgent:
    """Plays like the heuristic agent, but forgets potions and misjudges which fights it wins."""

    def __init__(self, seed: int = 0) -> None:
        self._normal = HeuristicAgent(seed)
        self._rng = rng.seed_state(seed ^ 0xEA5E)

    def _chance(self, percent: int) -> bool:
        roll, self._rng = rng.below(self._rng, 100)
        return roll < percent

    def choose(self, observation: Observation) -> Action:
        """Pick a legal action, as a newcomer would."""
        obs = without_undo(observation)
        legal = [a for a in obs.legal if not isinstance(a, _POTIONS)]
        if not legal:
            return obs.legal[0]
        if obs.phase is Phase.REWARD:
            return TakeReward(self._wants(obs))
        if obs.phase is Phase.TURN and self._chance(MISJUDGE):
            fight = self._naive_fight(obs, legal)
            if fight is not None:
                return fight
        if len(legal) < len(obs.legal):
            obs = replace(obs, legal=tuple(legal))
        return self._normal.choose(obs)

    def _naive_fight(self, obs: Observation, legal: list[Action]) -> Action | None:
        """The strongest monster the printed attack seems to beat, curses and chain ignored."""
        t = tables()
        me = obs.seats[obs.current]
        total = sum(t.actions[c].attack for c in obs.hand)
        total += sum(t.equipment[i].attack for i in (me.weapon, me.armour) if i)
        best: tuple[int, int, Fight] | None = None
        for action in legal:
            if not isinstance(action, Fight):
                continue
            card = obs.target(action)
            if card is None:
                continue
            info = t.monsters[card]
            if info.hp <= total + 1:
                rank = (action.level, info.hp)
                if best is None or rank > best[:2]:
                    best = (rank[0], rank[1], action)
        return best[2] if best else None

    @staticmethod
    def _wants(obs: Observation) -> bool:
        """Keep won equipment when its slot is empty or it has more attack than the old item."""
        assert obs.pending is not None
        eq = tables().equipment
        won = eq[obs.pending]
        held = getattr(obs.seats[obs.current], won.kind)
        return held is None or won.attack > eq[held].attack
