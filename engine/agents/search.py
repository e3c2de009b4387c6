"""The hard agent: information-set search over its turn decisions, from its observation alone.

At each turn decision that is not forced (fight which monster, visit the merchant or revive), it
deals complete states consistent with what it has seen (:func:`engine.sampling.sample_state`),
tries each shortlisted action on them and plays on with the heuristic agent for every seat until
the end of its own next turn, then scores the position (:mod:`engine.agents.evaluation`). Every
candidate is tried on the same deals (common random numbers: a deal that favours one candidate
favours its rivals alike), and sequential halving spends the budget: each round keeps the better
half of the candidates and gives the survivors more deals. The choice is the best mean over all
deals, and the heuristic's own choice wins ties within a small margin (the search overrides it
only on evidence). The other decisions (battles, rewards, the merchant's stock, payments) are the
heuristic agent's.

Deals and playouts depend only on the agent's seed, the observation and what the agent remembers
from earlier observations, so with an iteration budget (no time limit) the same seed chooses the
same action whatever is hidden from it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from engine import rng
from engine.actions import LORD_LEVEL, Action, Fight, Revive, SetStacking, VisitMerchant
from engine.agents.evaluation import evaluate
from engine.agents.heuristic import HeuristicAgent
from engine.catalog import tables
from engine.observe import Observation, observe
from engine.rules import apply
from engine.sampling import sample_state
from engine.state import GameState, Phase

#: Playouts per searched decision when no budget is given (benchmarks/ai_strength.py times them).
DEFAULT_ITERATIONS = 48
#: How much better (on the 0..1 score) a candidate must do than the heuristic's choice.
MARGIN = 0.01
#: Fights shortlisted besides the heuristic's choice.
MAX_FIGHTS = 4


@dataclass
class _Arm:
    """One candidate action and the scores of its playouts."""

    action: Action
    scores: list[float] = field(default_factory=list)

    @property
    def mean(self) -> float:
        return sum(self.scores) / len(self.scores) if self.scores else 0.0


class HardAgent:
    """Searches its turn decisions on sampled deals; plays the rest like the heuristic agent."""

    def __init__(self, seed: int = 0, iterations: int = DEFAULT_ITERATIONS,
                 seconds: float | None = None, horizon: int = 1) -> None:
        """``iterations`` playouts at most per searched decision; ``seconds``, if given, also
        stops the search on the clock (then choices depend on the machine's speed);
        ``horizon`` is how many of its own later turns a playout plays before it is scored."""
        self.seed = seed
        self.iterations = max(1, iterations)
        self.seconds = seconds
        self.horizon = horizon
        self._normal = HeuristicAgent(seed)
        self._holders: dict[str, int] = {}

    def choose(self, observation: Observation) -> Action:
        """Pick an action for the observing seat."""
        obs = observation
        self._remember(obs)
        default = self._normal.choose(obs)
        if obs.phase is not Phase.TURN or len(obs.legal) == 1 or isinstance(default, SetStacking):
            return default
        arms = [_Arm(a) for a in self._shortlist(obs, default)]
        if len(arms) == 1:
            return default
        return self._halving(obs, arms)

    # ------------------------------------------------------------------ memory

    def _remember(self, obs: Observation) -> None:
        """Note which seat holds each reward card seen in a discard, a hand or a battle: it stays
        with that seat (in its hand, deck or discard) until paid into the pawnshop (R40)."""
        actions = tables().actions
        held = self._holders
        for view in obs.seats:
            for card in view.discard:
                if actions[card].reward:
                    held[card] = view.index
        if obs.viewer is not None:
            for card in obs.hand:
                if actions[card].reward:
                    held[card] = obs.viewer
        if obs.battle is not None:
            for card in obs.battle.chain:
                if actions[card].reward:
                    held[card] = obs.current
        for card in obs.pawnshop:
            held.pop(card, None)

    # ------------------------------------------------------------------ search

    def _shortlist(self, obs: Observation, default: Action) -> list[Action]:
        """The heuristic's choice first, then reviving, the merchant and the fights the hand
        might win (printed attack of uncursed cards and equipment against the monster's HP)."""
        out: list[Action] = [default]
        for other in (Revive(), VisitMerchant()):
            if other in obs.legal and other != default:
                out.append(other)
        monsters = tables().monsters
        fights: list[tuple[int, Fight]] = []
        for action in obs.legal:
            if not isinstance(action, Fight) or action == default:
                continue
            card = obs.target(action)
            if card is None:
                continue
            info = monsters[card]
            if _reach(obs, info.curses) >= info.hp:
                level = 5 if action.level == LORD_LEVEL else info.level
                fights.append((level * 100 + info.hp, action))
        fights.sort(key=lambda f: -f[0])
        out.extend(f for _, f in fights[:MAX_FIGHTS])
        return out

    def _halving(self, obs: Observation, arms: list[_Arm]) -> Action:
        """Sequential halving over ``arms`` on shared deals, within the playout budget."""
        rounds = max(1, (len(arms) - 1).bit_length())
        budget = self.iterations
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        base = rng.seed_state(self.seed * 1_000_003 + obs.step)
        deal = 0
        live = list(arms)
        for r in range(rounds):
            per_arm = max(1, budget // (len(live) * (rounds - r)))
            for _ in range(per_arm):
                if budget < len(live) or (deadline is not None and time.perf_counter() > deadline):
                    break
                seed, _ = rng.next_u64(base + deal)
                deal += 1
                sample = sample_state(obs, seed, self._holders)
                for arm in live:
                    arm.scores.append(self._playout(sample, arm.action, obs))
                budget -= len(live)
            if len(live) <= 2 and r < rounds - 1:
                continue
            live.sort(key=lambda a: -a.mean)
            live = live[:max(2, (len(live) + 1) // 2)] if r < rounds - 1 else live
        default = arms[0]
        best = max(arms, key=lambda a: a.mean if a.scores else -1.0)
        if not default.scores or best.mean > default.mean + MARGIN:
            return best.action
        return default.action

    def _playout(self, sample: GameState, first: Action, obs: Observation) -> float:
        """Play ``first`` on the sample, then the heuristic for everyone until the seat has
        played ``horizon`` more turns (or the game ends); the score of where it got to."""
        me = obs.current
        state, _ = apply(sample, first, check=False)
        start = (obs.round, obs.order.index(me))
        turns = 0
        where = start
        agent = self._normal
        while state.phase is not Phase.OVER:
            if state.current == me and state.phase is Phase.TURN:
                now = (state.round, state.turn)
                if now != where and now != start:
                    where = now
                    turns += 1
                    if turns > self.horizon:
                        break
            action = agent.choose(observe(state, state.current))
            state, _ = apply(state, action, check=False)
        return evaluate(state, me)


def _reach(obs: Observation, curses: tuple[str, ...]) -> int:
    """An optimistic bound of the attack the seat could count against a monster with ``curses``:
    its hand's printed attack (none under an attack curse, R22; not of cursed colours, R21) plus
    its uncursed equipment's (R23)."""
    t = tables()
    me = obs.seat_view(obs.current)
    reach = 0
    if "attack" not in curses:
        reach += sum(t.actions[c].attack for c in obs.hand if t.actions[c].colour not in curses)
    for slot in ("weapon", "armour"):
        item = getattr(me, slot)
        if item and slot not in curses:
            reach += t.equipment[item].attack
    return reach
