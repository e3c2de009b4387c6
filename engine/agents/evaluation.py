"""How good a position is for one seat, as a number in 0..1: the search's score of a cut-short
playout. A won game is 1, a lost one 0; otherwise the seat's progress against the other seats'.

Progress counts what brings the Lord within reach: keys most (each opens the next level, R11,
and the three open the Lord), then what wins fights (equipment, reward cards, potions) and HP.
"""

from __future__ import annotations

import math

from engine.agents.heuristic import card_value, equip_value
from engine.catalog import tables
from engine.state import GameState, Seat

KEY = 12.0  # one key: a level further down the caverns
ALL_KEYS = 8.0  # the three keys: the Lord may be fought
EQUIPMENT = 1.5  # per point of equip_value
REWARD_CARD = 1.0  # per point a reward card is worth above a starting card
STARTING_CARD = 2.3  # card_value of a typical starting card
POTION = 2.0
HP = 0.8
#: Progress difference worth a 0.88 score (tanh(1) mapped to 0..1).
SCALE = 10.0


def progress(seat: Seat) -> float:
    """What a seat has gathered towards beating the Lord."""
    t = tables().actions
    keys = len(seat.keys)
    score = KEY * keys + (ALL_KEYS if keys >= 3 else 0.0)
    score += EQUIPMENT * (equip_value(seat.weapon) + equip_value(seat.armour))
    for zone in (seat.hand, seat.deck, seat.discard):
        for card in zone:
            if t[card].reward:
                score += REWARD_CARD * max(0.0, card_value(card) - STARTING_CARD)
    return score + POTION * len(seat.potions) + HP * seat.hp


def evaluate(state: GameState, seat: int) -> float:
    """The position's worth to ``seat``: 1 won, 0 lost, else its progress against its rivals'
    (half the best rival's, half their average), squashed into 0..1."""
    if state.winner is not None:
        return 1.0 if state.winner == seat else 0.0
    scores = [progress(s) for s in state.seats]
    mine = scores[seat]
    rivals = scores[:seat] + scores[seat + 1:]
    if not rivals:
        return 0.5
    lead = mine - 0.5 * max(rivals) - 0.5 * sum(rivals) / len(rivals)
    return 0.5 + 0.5 * math.tanh(lead / SCALE)
