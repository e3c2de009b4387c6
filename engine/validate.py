"""Consistency checks of a state: every card in exactly one place, values in range.

Used when a saved state is read (a corrupt row is refused with a clear reason) and by the tests.
"""

from __future__ import annotations

from collections import Counter

from engine.actions import POTIONS
from engine.catalog import tables
from engine.errors import BadState
from engine.setup import ConfigError, check_config
from engine.state import MAX_HP, GameState, Phase


def card_places(state: GameState) -> Counter[str]:
    """How many times each card id appears across every zone of the state."""
    seen: Counter[str] = Counter()
    for seat in state.seats:
        seen.update(seat.hand)
        seen.update(seat.deck)
        seen.update(seat.discard)
        seen.update(seat.keys)
        seen.update(c for c in (seat.weapon, seat.armour) if c)
    if state.battle is not None:
        seen.update(state.battle.chain)
        seen.update(state.battle.drawn)
    for level in state.levels:
        seen.update(c for c in level.row if c)
        seen.update(level.deck)
        seen.update(level.gates)
    seen.update(state.pawnshop)
    seen[state.lord] += 1
    if state.phase is Phase.REWARD and state.pending:
        seen[state.pending] += 1
    return seen


def expected_cards(state: GameState) -> Counter[str]:
    """Every physical card a game with these seats has in play."""
    t = tables()
    want: Counter[str] = Counter()
    for seat in state.seats:
        want.update(t.hero_cards[seat.hero])
    for level in (1, 2, 3):
        want.update(t.regular[level])
        want.update(t.gatekeepers[level])
    want[state.lord] += 1
    return want


def check_state(state: GameState) -> None:
    """Raise :class:`BadState` if the state breaks an invariant of the game."""
    try:
        check_config(state.config)
    except ConfigError as exc:
        raise BadState(str(exc)) from exc
    n = len(state.config.seats)
    if len(state.seats) != n or sorted(state.order) != list(range(n)):
        raise BadState("seats and turn order do not match the table")
    if not 0 <= state.turn < n:
        raise BadState("turn points at no seat")
    if state.lord not in tables().lords:
        raise BadState(f"unknown lord {state.lord!r}")
    places = card_places(state)
    want = expected_cards(state)
    if places != want:
        extra = sorted((places - want).elements())[:3]
        missing = sorted((want - places).elements())[:3]
        raise BadState(f"cards out of place: extra {extra}, missing {missing}")
    t = tables()
    for seat in state.seats:
        if not 0 <= seat.hp <= MAX_HP:
            raise BadState(f"HP {seat.hp} out of range")
        for slot in ("weapon", "armour"):
            item = getattr(seat, slot)
            info = t.equipment.get(item) if item else None
            if item and (info is None or info.kind != slot):
                raise BadState(f"{item!r} is not a {slot}")
        if len(set(seat.potions)) != len(seat.potions) or set(seat.potions) - set(POTIONS):
            raise BadState("bad potions")
        if len({t.monsters[k].level for k in seat.keys}) != len(seat.keys):
            raise BadState("two keys of one level")
        for zone in (seat.hand, seat.deck, seat.discard):
            if any(c not in t.actions for c in zone):
                raise BadState("a non-action card in hand, deck or discard")
    for i, kind in enumerate(POTIONS):
        held = sum(kind in s.potions for s in state.seats)
        if state.potions[i] < 0 or state.potions[i] + held != t.potions_per_kind:
            raise BadState(f"{kind} potions do not add up")
    if (state.phase in (Phase.BATTLE, Phase.DISCARD, Phase.TAIA)) != (state.battle is not None) \
            and state.phase is not Phase.REWARD:
        raise BadState("battle and phase disagree")
    if (state.phase is Phase.OVER) != (state.winner is not None):
        raise BadState("winner and phase disagree")
