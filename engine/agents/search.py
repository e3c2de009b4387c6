"""The hard agent: information-set Monte Carlo tree search over its own decisions, from its
observation alone.

At each of its decisions with a real choice, the agent builds a tree of its own decisions from
there to the end of its turn (which monster to fight or the merchant or reviving, then which card
to play, which potion to drink, when to end the battle, whether to keep won equipment, what to
buy and how to pay). Every iteration deals a complete state consistent with what the seat has
seen (:class:`engine.sampling.Sampler`, a determinization), walks down the tree choosing
among the actions that deal allows by UCT, adds one node, then plays on with the heuristic agent
(every seat, chance from the deal's generator) until the playout's horizon and scores the
position (:mod:`engine.agents.evaluation`). Nodes are keyed by the seat's own actions only, so
one tree gathers the statistics of every deal (single-observer ISMCTS); a node's exploration
term counts the iterations in which it was available (availability counts).

The heuristic agent guides the tree: its choice is the first child tried at every node, other
children open one by one as the node gathers visits (progressive widening), and the turn
decision only considers a shortlist (the heuristic's choice, reviving, the merchant and the
fights the hand might win). The root's most visited action is played, unless the heuristic's
choice scores within a small margin of it (the search overrides the heuristic only on evidence).

Deals and playouts depend only on the agent's seed, the observation and what the agent remembers
from earlier observations, so with an iteration budget (no time limit) the same seed chooses the
same action whatever is hidden from it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from engine import rng
from engine.actions import (
    LORD_LEVEL,
    Action,
    CancelPurchase,
    Fight,
    Revive,
    SetStacking,
    VisitMerchant,
)
from engine.agents.evaluation import evaluate
from engine.agents.heuristic import HeuristicAgent
from engine.agents.offered import without_undo
from engine.catalog import tables
from engine.observe import Observation, observe
from engine.rules import apply, legal_actions
from engine.sampling import Sampler
from engine.state import GameState, Phase

#: Iterations per searched decision when no budget is given (benchmarks/ai_strength.py times them).
DEFAULT_ITERATIONS = 256
#: UCT's exploration constant (scores are chances to win: moves differ by a few hundredths).
EXPLORATION = 0.1
#: A node with ``n`` visits may have ``1 + WIDENING * sqrt(n)`` children.
WIDENING = 0.6
#: How much better (on the 0..1 score) the most visited action must do than the heuristic's.
MARGIN = 0.01
#: Fights shortlisted besides the heuristic's choice.
MAX_FIGHTS = 4


@dataclass
class Node:
    """The statistics of one sequence of the seat's own actions, over every deal it was tried
    on, and the actions tried after it."""

    visits: int = 0
    total: float = 0.0
    squares: float = 0.0  # the sum of the squared scores (for the estimate's margin)
    available: int = 0  # iterations in which this node's action was legal at its parent
    children: dict[Action, Node] = field(default_factory=dict)

    @property
    def mean(self) -> float:
        """The average score of the iterations through this node."""
        return self.total / self.visits if self.visits else 0.0

    @property
    def margin(self) -> float:
        """How far the true mean may lie from :attr:`mean` (about 95% of the time): twice the
        standard error of the scores; 1.0 (anything) with fewer than two visits."""
        if self.visits < 2:
            return 1.0
        spread = max(0.0, self.squares - self.visits * self.mean ** 2) / (self.visits - 1)
        return 2 * math.sqrt(spread / self.visits)


class HardAgent:
    """Searches its decisions with ISMCTS on sampled deals, guided by the heuristic agent."""

    def __init__(self, seed: int = 0, iterations: int = DEFAULT_ITERATIONS,
                 seconds: float | None = None, horizon: int = 0) -> None:
        """``iterations`` deals at most per searched decision; ``seconds``, if given, also stops
        the search on the clock (then choices depend on the machine's speed); ``horizon`` is how
        many of the seat's later turns a playout plays after the current one before it is
        scored."""
        self.seed = seed
        self.iterations = max(1, iterations)
        self.seconds = seconds
        self.horizon = horizon
        self._normal = HeuristicAgent(seed)
        self._holders: dict[str, int] = {}

    def choose(self, observation: Observation) -> Action:
        """Pick an action for the observing seat."""
        obs = without_undo(observation)
        self.remember(obs)
        default, candidates = self.options(obs)
        if not searched(obs, default, candidates):
            return default
        return pick(self.tree(obs, candidates), default)

    def options(self, obs: Observation) -> tuple[Action, list[Action]]:
        """The heuristic's choice and the actions the search weighs against it (the choice
        first)."""
        default = self._normal.choose(obs)
        if obs.phase is Phase.TURN:
            return default, self._shortlist(obs, default)
        # taking back a purchase is the heuristic's call alone: the search, weighing it against
        # paying, could buy and take back the same potion for ever
        return default, [default, *(a for a in obs.legal if a != default
                                    and not isinstance(a, SetStacking | CancelPurchase))]

    # ------------------------------------------------------------------ memory

    def remember(self, obs: Observation) -> None:
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

    def tree(self, obs: Observation, candidates: list[Action]) -> Node:
        """The ISMCTS tree from ``obs`` over the seat's decisions up to the end of its turn,
        its root's children among ``candidates`` (the first is tried first)."""
        root = Node()
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        base = rng.seed_state(self.seed * 1_000_003 + obs.step)
        deals = Sampler(obs, self._holders)
        for deal in range(self.iterations):
            if deadline is not None and deal > 0 and time.perf_counter() > deadline:
                break
            seed, _ = rng.next_u64(base + deal)
            self._iterate(deals.sample(seed), root, candidates, obs.current)
        return root

    def _iterate(self, state: GameState, root: Node, candidates: list[Action], me: int) -> None:
        """One deal: select and expand along the seat's decisions, play out, back up."""
        node = root
        path = [root]
        expanded = False
        first: list[Action] | None = candidates  # the choices of the first decision alone
        while not expanded and state.phase is not Phase.OVER and state.current == me:
            if first is not None:
                now = legal_actions(state)
                legal = [a for a in first if a in now]
                first = None
            else:
                legal = self._ordered(state, me)
            if len(legal) == 1:
                state, _ = apply(state, legal[0], check=False)
                continue
            allowed = legal[:1 + int(WIDENING * math.sqrt(node.visits))]
            action = next((a for a in allowed if a not in node.children), None)
            if action is not None:
                node.children[action] = Node()
                expanded = True
            for a in allowed:
                if a in node.children:
                    node.children[a].available += 1
            if action is None:
                action = max(allowed, key=lambda a: _uct(node.children[a]))
            node = node.children[action]
            path.append(node)
            state, _ = apply(state, action, check=False)
        score = self._playout(state, me)
        for visited in path:
            visited.visits += 1
            visited.total += score
            visited.squares += score * score

    def _ordered(self, state: GameState, me: int) -> list[Action]:
        """The seat's legal actions in ``state``, the heuristic's choice first."""
        view = without_undo(observe(state, me))
        first = self._normal.choose(view)
        return [first, *(a for a in view.legal if a != first and not isinstance(a, SetStacking))]

    def _playout(self, state: GameState, me: int) -> float:
        """The heuristic for every seat until the seat has finished its turn and ``horizon`` more
        (or the game ends); the score of where it got to."""
        mine = state.current == me
        turns = 0 if mine else 1  # a playout may start after the seat's turn ended in the tree
        agent = self._normal
        while state.phase is not Phase.OVER and turns <= self.horizon:
            if (state.current == me) != mine:
                mine = not mine
                if not mine:
                    turns += 1
                    continue
            action = agent.choose(observe(state, state.current))
            state, _ = apply(state, action, check=False)
        return evaluate(state, me)


def searched(obs: Observation, default: Action, candidates: list[Action]) -> bool:
    """Whether the hard agent searches this decision rather than play the heuristic's
    ``default``: there is a choice, it is not a stacking preference, and the battle plan is
    not already exact."""
    return len(candidates) > 1 and not isinstance(default, SetStacking) and not _planned(obs)


def pick(root: Node, default: Action) -> Action:
    """The searched move: the root's most visited action, unless the heuristic's ``default``
    scores within :data:`MARGIN` of it."""
    choice = root.children.get(default)
    best_action, best = max(root.children.items(), key=lambda c: (c[1].visits, c[1].mean))
    if choice is None or best.mean > choice.mean + MARGIN:
        return best_action
    return default


def _planned(obs: Observation) -> bool:
    """Whether the heuristic's battle plan is exact: no card in hand draws, so every card the
    battle can see is known and the planner has tried every sequence of them."""
    if obs.phase is not Phase.BATTLE or (obs.abilities and obs.seats[obs.current].hero
                                         == "taia"):
        return False
    actions = tables().actions
    return not any(actions[card].draw for card in obs.hand)


def _uct(child: Node) -> float:
    """The child's mean plus its exploration bonus (by availability count)."""
    return child.mean + EXPLORATION * math.sqrt(math.log(max(child.available, 1)) / child.visits)


def _reach(obs: Observation, curses: tuple[str, ...]) -> int:
    """An optimistic bound of the attack the seat could count against a monster with ``curses``:
    its hand's printed attack (none under an attack curse, R22; not of cursed colours, R21) plus
    its uncursed equipment's (R23)."""
    t = tables()
    me = obs.seats[obs.current]
    reach = 0
    if "attack" not in curses:
        reach += sum(t.actions[c].attack for c in obs.hand if t.actions[c].colour not in curses)
    for slot in ("weapon", "armour"):
        item = getattr(me, slot)
        if item and slot not in curses:
            reach += t.equipment[item].attack
    return reach
