"""The reach agent: random among the legal actions of a sensible kind, preferring the monsters it
can beat, so its games end (the uniformly random agent's often do not).

It plays no plan. Among the actions of the kind it picks, its choice is uniform, and every kind
keeps a small chance, so random play still reaches every corner of the rules. What makes a kind
sensible:

- In battle it plays a card while it can (97%), rather than ending the battle early.
- It fights on 85% of its turns (it revives instead at 2 HP or less, 60%), and it picks among
  the monsters "within reach" when there are any. A monster is within reach when its HP is at
  most the attack the seat could count against it: the attack printed on the hand's cards of
  colours it does not curse (R21), none if it curses attack (R22), plus the equipment's unless
  cursed (R23). An optimistic bound, blind to the colour chain, abilities and potions.
- Holding the three keys, it fights the Lord as soon as the Lord is within reach.
- It keeps won equipment when it beats the item it replaces (90%).
- It mostly leaves the merchant without buying (80%): every purchase costs a reward card or
  equipment (R40), and seats that sold them all could no longer beat level III.

Without these preferences, most random 4-seat games would pass hundreds of rounds without a
winner (the regular decks empty, the seats back to their starting cards).
Its own seeded generator keeps simulations reproducible.
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
    TakeReward,
    VisitMerchant,
)
from engine.agents.heuristic import equip_value
from engine.agents.offered import choices
from engine.catalog import tables
from engine.observe import Observation
from engine.state import Phase

_END = EndBattle()


#: Phases read at every step, as module names: reaching an enum member (``Phase.BATTLE``) is a
#: descriptor call on Python 3.11, ten times slower than reaching a module name.
_TURN = Phase.TURN
_BATTLE = Phase.BATTLE
_REWARD = Phase.REWARD

class ReachAgent:
    """Chooses at random among legal actions, weighted by kind, preferring monsters within reach."""

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
        offered = choices(observation)
        phase = observation.phase  # fights are offered only on a turn, plays only in battle
        if phase is _BATTLE:  # a card while it can; else end it, or (30%) drink a potion
            plays = []
            for a in offered:  # loops, not comprehensions (each a call of its own): every step
                if type(a) is Play:
                    plays.append(a)
            if plays:
                return self._pick(plays if self._chance(97) else offered)
            others = [a for a in offered if type(a) is not EndBattle]
            if others and self._chance(30):
                return self._pick(others)
            return _END
        legal: list[Action] = []
        fights: list[Fight] = []
        for a in offered:
            if type(a) is not SetStacking:
                legal.append(a)
                if type(a) is Fight:  # offered only on a turn
                    fights.append(a)
        if not legal:
            return self._pick(list(offered))
        if phase is _TURN:
            if fights:
                return self._turn(observation, legal, fights)
        if phase is _REWARD and self._chance(90):
            return TakeReward(self._better(observation))
        if any(type(a) is LeaveMerchant for a in legal) and self._chance(80):
            return LeaveMerchant()
        return self._pick(legal)

    def _turn(self, obs: Observation, legal: list[Action], fights: list[Fight]) -> Action:
        """Revive when low, else fight, preferring monsters within reach."""
        if obs.seats[obs.current].hp <= 2 and self._chance(60):
            return Revive()
        monsters = tables().monsters
        attack = self._attack_by_source(obs)
        reach: dict[tuple[str, ...], int] = {}  # by the monster's curses
        near: list[Action] = []
        for fight in fights:
            monster = obs.target(fight)
            if monster is None:
                continue
            info = monsters[monster]
            within = reach.get(info.curses)
            if within is None:
                within = reach[info.curses] = self._reach(attack, info.curses)
            if info.hp <= within:
                if fight.level == LORD_LEVEL:  # holding all three keys, it goes for the win
                    return fight
                near.append(fight)
        if self._chance(85):
            return self._pick(near if near else fights)
        rest = [a for a in legal if type(a) is VisitMerchant or type(a) is Revive]
        return self._pick(rest or legal)

    @staticmethod
    def _attack_by_source(obs: Observation) -> dict[str, int]:
        """The attack printed on the hand by card colour, and on each piece of equipment."""
        t = tables()
        actions = t.actions
        out: dict[str, int] = {}
        for card in obs.hand:
            info = actions[card]
            out[info.colour] = out.get(info.colour, 0) + info.attack
        seat = obs.seats[obs.current]
        if seat.weapon:
            out["weapon"] = t.equipment[seat.weapon].attack
        if seat.armour:
            out["armour"] = t.equipment[seat.armour].attack
        return out

    @staticmethod
    def _reach(attack: dict[str, int], curses: tuple[str, ...]) -> int:
        """What of ``attack`` (see :meth:`_attack_by_source`) counts against a monster with
        ``curses``: an optimistic bound of a battle."""
        if "attack" in curses:  # R22: the cards' attack is lost, the equipment's is not
            reach = 0
            if "weapon" not in curses:
                reach += attack.get("weapon", 0)
            if "armour" not in curses:
                reach += attack.get("armour", 0)
            return reach
        reach = sum(attack.values())
        for curse in curses:  # a colour (R21) or a piece of equipment (R23)
            reach -= attack.get(curse, 0)
        return reach

    @staticmethod
    def _better(obs: Observation) -> bool:
        """Whether the won equipment beats the item of its kind the seat holds (R27)."""
        assert obs.pending is not None
        won = obs.pending
        held = getattr(obs.seats[obs.current], tables().equipment[won].kind)
        return held is None or equip_value(won) >= equip_value(held)
