"""A hint for a player: the move the hard AI would make in the seat's place, the estimated chance
to win of the best three moves, and one sentence saying why.

::

    advice = hint(observation)               # the hard level's iteration budget
    advice.best, advice.moves, advice.reason  # an action, ((action, chance), ...), an i18n Msg

The hint is worked out from the seat's observation alone, by the hard agent's own search
(:mod:`engine.agents.search`) on a fresh agent that remembers nothing but this observation. Its
seed is a digest of the observation's public parts (mixed with ``seed``), so with an iteration
budget the same observation always gets the same hint, whatever is hidden from the seat.

Undo-like actions are never hinted: taking back a purchase (``cancel``), an ``undo``, or a deck
stacking preference (``stack``, which is a setting, not a move); the search weighs the other
legal actions.

**What a chance means.** The search deals the hidden cards at random many times
(:func:`engine.sampling.sample_state`); on each deal it tries a move, plays the rest of the seat's
turn with the heuristic agent and scores where that gets to with
:func:`engine.agents.evaluation.evaluate`: 1 if the seat has won, otherwise its chance to win
estimated from every seat's keys, equipment, cards, potions, HP and place in the turn order (a
model fitted to games between normal AI seats). A move's chance is the average of those scores
over the deals it was tried on, between 0 and 1; with four seats a fair chance is about 0.25.
Each chance comes with its margin: twice the standard error of the scores it averages, so the
true chance lies within it about 95 times in 100 (a move tried once has no margin: 1.0).

**Which moves, in which order.** The hint weighs the search's move (the most tried, as the hard
agent plays) and the next most tried root moves, up to three, and lists them by chance, highest
first. When another of them scores higher than the search's move by more than the two margins
together, that move is suggested instead: the suggested move is then the one the chances rank
first. Otherwise the search's move stays suggested even when its chance is a little lower: the
two are within the estimate's margin of each other, and the answer says so.
"""

from __future__ import annotations

import hashlib
import math

import msgspec
from msgspec import Struct

from engine.actions import Action
from engine.agents.hint_reasons import REASON_DEALS, reason
from engine.agents.search import DEFAULT_ITERATIONS, HardAgent, Node, pick, searched
from engine.observe import Observation
from engine.rng import next_u64, seed_state
from engine.sampling import sample_state
from i18n import Msg

#: The verbs of actions a hint never suggests: taking something back, or a standing setting.
UNHINTED = frozenset({"undo", "cancel", "stack"})
#: How many moves a hint gives chances for.
TOP = 3


class Hint(Struct, frozen=True):
    """What the hard AI would play in the seat's place, and why.

    ``moves`` holds up to three (action, chance to win) pairs, ``best`` among them, highest
    chance first; a chance is a number in 0..1 (see the module's docstring) and ``margins``
    holds each one's margin, in the same order (empty for a hint kept before margins were
    given). ``reason`` is one whole sentence, translated by :mod:`i18n`.
    """

    best: Action
    moves: tuple[tuple[Action, float], ...]
    reason: Msg
    margins: tuple[float, ...] = ()

    def close(self) -> bool:
        """True when the suggested move is not the one the chances rank first: their
        difference is then within the estimate's margin."""
        return bool(self.moves) and self.moves[0][0] != self.best


def hint(observation: Observation, *, iterations: int = DEFAULT_ITERATIONS,
         seconds: float | None = None, seed: int = 0) -> Hint:
    """The hint for the seat whose decision ``observation`` shows.

    ``iterations`` bounds the search as it bounds the hard level's (deals searched); ``seconds``,
    if given, also stops it on the clock, as the bot's hard seats are stopped (the hint then
    depends on the machine's speed). ``seed`` varies the deals; the hint is otherwise a function
    of the observation's public parts. Raises ValueError when the observation shows no decision
    of its viewer.
    """
    obs = observation
    if obs.viewer is None or obs.viewer != obs.current or not obs.legal:
        raise ValueError("a hint needs the observation of the seat that must decide")
    view = hintable(obs)
    mixed = public_seed(obs) ^ (seed & 0xFFFF_FFFF_FFFF_FFFF)
    agent = HardAgent(mixed, iterations=iterations, seconds=seconds)
    agent.remember(view)
    default, candidates = agent.options(view)
    root = agent.tree(view, candidates)
    best = pick(root, default) if searched(view, default, candidates) else default
    rows = ranked(root, best) if len(candidates) > 1 else ((best, root.mean, root.margin),)
    best = clearly_best(rows, best)
    deals = [sample_state(view, next_u64(seed_state(mixed) + k)[0]) for k in range(REASON_DEALS)]
    return Hint(best, tuple((a, chance) for a, chance, _ in rows), reason(view, best, deals),
                tuple(margin for _, _, margin in rows))


def hintable(obs: Observation) -> Observation:
    """``obs`` with the actions a hint never suggests taken out of its legal actions (``obs``
    itself when there are none, or when nothing else is legal)."""
    kept = tuple(a for a in obs.legal if a.verb not in UNHINTED)
    if not kept or len(kept) == len(obs.legal):
        return obs
    return msgspec.structs.replace(obs, legal=kept)


def ranked(root: Node, best: Action) -> tuple[tuple[Action, float, float], ...]:
    """Up to :data:`TOP` of the root's moves, each with its mean score and margin: ``best`` and
    the most visited others (the better scoring on a tie), highest mean first (``best`` first
    on a tie)."""
    others = sorted(((a, n) for a, n in root.children.items() if a != best and n.visits),
                    key=lambda c: (-c[1].visits, -c[1].mean))
    first = root.children.get(best)
    rows = [(best, first.mean, first.margin) if first is not None else (best, 0.0, 1.0)]
    rows.extend((a, n.mean, n.margin) for a, n in others[:TOP - 1])
    return tuple(sorted(rows, key=lambda row: -row[1]))


def clearly_best(rows: tuple[tuple[Action, float, float], ...], best: Action) -> Action:
    """The move ranked first when its chance beats ``best``'s by more than the two margins
    together (the difference is then no accident of the deals tried); else ``best``."""
    top, chance, margin = rows[0]
    mine = next((c, m) for a, c, m in rows if a == best)
    if top != best and chance - mine[0] > math.hypot(margin, mine[1]):
        return top
    return best


def public_seed(obs: Observation) -> int:
    """A 64-bit digest of the observation (which holds only what its seat may see): the same
    for every state the seat cannot tell apart, different (all but surely) for anything it can
    see."""
    data = _ENCODER.encode(obs)
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")


_ENCODER = msgspec.msgpack.Encoder()
