"""How good a position is for one seat, as a number in 0..1: the search's score of a cut-short
playout. A won game is 1, a lost one 0; otherwise the chance that the seat wins, estimated from
what every seat has gathered.

Each seat's strength is a weighted sum of its features (keys, the three keys, equipment, reward
cards, potions, HP, its cards' attack, the attack it can bring to a fight, and how soon it plays
next); a seat's chance is its share of ``exp(strength)`` over the seats (a conditional logit).
The weights were fitted by maximum likelihood to positions of games between normal seats, at the
start of every turn, labelled with the game's winner: ``python scripts/fit_evaluation.py``
prints them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from engine.agents.heuristic import card_value, equip_value
from engine.battle import hand_size
from engine.catalog import tables
from engine.state import GameState

#: card_value of a typical starting card: a reward card counts what it is worth above one.
STARTING_CARD = 2.3

#: The features :func:`features` computes, in order.
FEATURES = ("keys", "all_keys", "equipment", "rewards", "potions", "hp", "attack_mean",
            "reach", "all_keys_reach", "next_1", "next_2", "next_3")

#: Fitted weights per feature (``scripts/fit_evaluation.py``: 3,000 games, seeds from 100,000).
WEIGHTS = {"keys": 0.5591, "all_keys": 1.5103, "equipment": 0.1163, "rewards": 0.0369,
           "potions": 0.2649, "hp": 0.1398, "attack_mean": 0.927, "reach": 0.139,
           "all_keys_reach": -0.0859, "next_1": -0.1228, "next_2": -0.2146, "next_3": -0.2277}


def features(state: GameState, index: int) -> tuple[float, ...]:
    """Seat ``index``'s features, in the order of :data:`FEATURES`."""
    t = tables()
    seat = state.seats[index]
    all_keys = 1.0 if len(seat.keys) >= 3 else 0.0
    rewards = 0.0
    attack = cards = 0
    for zone in (seat.hand, seat.deck, seat.discard):
        for card in zone:
            info = t.actions[card]
            attack += info.attack
            cards += 1
            if info.reward:
                rewards += max(0.0, card_value(card) - STARTING_CARD)
    mean = attack / cards if cards else 0.0
    worn = sum(t.equipment[item].attack for item in (seat.weapon, seat.armour) if item)
    reach = worn + hand_size(seat) * mean
    after = (state.order.index(index) - state.turn) % len(state.order)  # 0: its turn now
    return (float(len(seat.keys)), all_keys, equip_value(seat.weapon) + equip_value(seat.armour),
            rewards, float(len(seat.potions)), float(seat.hp), mean, reach, all_keys * reach,
            float(after == 1), float(after == 2), float(after == 3))


def strength(state: GameState, index: int) -> float:
    """Seat ``index``'s weighted sum of features (its log-odds up to a constant)."""
    values = features(state, index)
    return sum(WEIGHTS[name] * value for name, value in zip(FEATURES, values, strict=True))


def chances(strengths: Sequence[float]) -> list[float]:
    """Each seat's chance to win from the seats' strengths: its share of ``exp(strength)``."""
    top = max(strengths)
    exps = [math.exp(s - top) for s in strengths]
    total = sum(exps)
    return [e / total for e in exps]


def evaluate(state: GameState, seat: int) -> float:
    """The position's worth to ``seat``: 1 won, 0 lost, else its estimated chance to win."""
    if state.winner is not None:
        return 1.0 if state.winner == seat else 0.0
    return chances([strength(state, i) for i in range(len(state.seats))])[seat]
