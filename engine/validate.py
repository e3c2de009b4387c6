"""Consistency checks of a state: every card in exactly one place, values in range.

Used when a saved state is read (a corrupt row is refused with a clear reason) and by the tests.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache

from cards.models import EFFECT_CURSES
from engine.actions import LORD_LEVEL, POTIONS, STACK_MODES, parse
from engine.catalog import tables
from engine.errors import BadNotation, BadState
from engine.setup import ConfigError, check_config
from engine.state import MAX_HP, Battle, GameState, Phase

#: Bound of the step and round counters: far beyond any game, and a 64-bit integer still.
MAX_COUNT = 1 << 62


@dataclass(frozen=True)
class _Zones:
    """The cards each zone of the catalogue may hold, as sets, and the most cards one action
    card draws: worked out once, as every read of a saved state checks them."""

    regular: dict[int, frozenset[str]]  # by level
    gatekeepers: dict[int, frozenset[str]]  # by level
    starting: frozenset[str]  # every hero's starting cards
    hero_cards: dict[str, frozenset[str]]  # by hero
    most_draws: int


@cache
def _zones() -> _Zones:
    """The catalogue's :class:`_Zones` (the catalogue is read once per process)."""
    t = tables()
    return _Zones(
        regular={level: frozenset(cards) for level, cards in t.regular.items()},
        gatekeepers={level: frozenset(cards) for level, cards in t.gatekeepers.items()},
        starting=frozenset(c for cards in t.hero_cards.values() for c in cards),
        hero_cards={hero: frozenset(cards) for hero, cards in t.hero_cards.items()},
        most_draws=max(info.draw for info in t.actions.values()))


def _cards_in_play(state: GameState) -> list[str]:
    """Every card id in every zone of the state, once per place it is found."""
    cards: list[str] = []
    for seat in state.seats:
        cards += seat.hand
        cards += seat.deck
        cards += seat.discard
        cards += seat.keys
        cards += [c for c in (seat.weapon, seat.armour) if c]
    if state.battle is not None:
        cards += state.battle.chain
        cards += state.battle.drawn
    for level in state.levels:
        cards += [c for c in level.row if c]
        cards += level.deck
        cards += level.gates
    cards += state.pawnshop
    cards.append(state.lord)
    if state.phase is Phase.REWARD and state.pending:
        cards.append(state.pending)
    return cards


def _cards_expected(state: GameState) -> list[str]:
    """Every physical card a game with these seats has, once each."""
    t = tables()
    cards: list[str] = []
    for seat in state.seats:
        cards += t.hero_cards.get(seat.hero, ())
    for level in (1, 2, 3):
        cards += t.regular[level]
        cards += t.gatekeepers[level]
    cards.append(state.lord)
    return cards


def card_places(state: GameState) -> Counter[str]:
    """How many times each card id appears across every zone of the state."""
    return Counter(_cards_in_play(state))


def expected_cards(state: GameState) -> Counter[str]:
    """Every physical card a game with these seats has in play."""
    return Counter(_cards_expected(state))


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
    if not 0 <= state.rng < 1 << 64:
        raise BadState("the generator's state is not a 64-bit number")
    if not 1 <= state.round < MAX_COUNT or not 0 <= state.step < MAX_COUNT:
        raise BadState(f"round {state.round} or step {state.step} out of range")
    for i, (seat, seated) in enumerate(zip(state.seats, state.config.seats, strict=True)):
        if seat.hero != seated.hero:
            raise BadState(f"seat {i} plays {seat.hero!r}, but the table seated {seated.hero!r}")
    if state.lord not in tables().lords:
        raise BadState(f"unknown lord {state.lord!r}")
    if sorted(_cards_in_play(state)) != sorted(_cards_expected(state)):
        places, want = card_places(state), expected_cards(state)
        extra = sorted((places - want).elements())[:3]
        missing = sorted((want - places).elements())[:3]
        raise BadState(f"cards out of place: extra {extra}, missing {missing}")
    t = tables()
    for i, seat in enumerate(state.seats):
        if not 0 <= seat.hp <= MAX_HP:
            raise BadState(f"HP {seat.hp} out of range")
        for slot in ("weapon", "armour"):
            item = getattr(seat, slot)
            info = t.equipment.get(item) if item else None
            if item and (info is None or info.kind != slot):
                raise BadState(f"{item!r} is not a {slot}")
        if len(set(seat.potions)) != len(seat.potions) or set(seat.potions) - set(POTIONS):
            raise BadState("bad potions")
        if seat.stacking not in STACK_MODES:
            raise BadState(f"seat {i}: unknown stacking preference {seat.stacking!r}")
        if any(k not in t.monsters or not t.monsters[k].gatekeeper for k in seat.keys):
            raise BadState(f"seat {i} holds a key that is not a gatekeeper")
        if len({t.monsters[k].level for k in seat.keys}) != len(seat.keys):
            raise BadState("two keys of one level")
        if not t.actions.keys() >= {*seat.hand, *seat.deck, *seat.discard}:
            raise BadState("a non-action card in hand, deck or discard")
    if state.battle is not None and not t.actions.keys() >= {*state.battle.chain,
                                                             *state.battle.drawn}:
        raise BadState("a non-action card played or drawn in the battle")
    for i, kind in enumerate(POTIONS):
        held = sum(kind in s.potions for s in state.seats)
        if state.potions[i] < 0 or state.potions[i] + held != t.potions_per_kind:
            raise BadState(f"{kind} potions do not add up")
    if (state.phase in (Phase.BATTLE, Phase.DISCARD, Phase.TAIA)) != (state.battle is not None) \
            and state.phase is not Phase.REWARD:
        raise BadState("battle and phase disagree")
    if (state.phase is Phase.OVER) != (state.winner is not None):
        raise BadState("winner and phase disagree")
    if state.winner is not None and not 0 <= state.winner < n:
        raise BadState("the winner is no seat")
    _check_places(state)
    _check_pending(state)
    _check_take_back(state)


def _check_take_back(state: GameState) -> None:
    """The take-back record (N19) starts from a sound state of this table, in this turn, and
    lists one readable move for each step since. A record without the state it starts from is
    no game's: reading a saved state drops it when its anchor is not given
    (:func:`engine.serialize.state_from_json`)."""
    history = state.undo
    if history is None:
        return
    base = history.base
    if base is None:
        raise BadState("the take-back record lacks the state it starts from")
    if base.undo is not None or base.config != state.config or base.turn != state.turn \
            or base.round != state.round:
        raise BadState("the take-back record starts from another turn or table")
    if not history.moves or base.step + len(history.moves) != state.step:
        raise BadState(f"the take-back record lists {len(history.moves)} moves "
                       f"from step {base.step} to step {state.step}")
    for move in history.moves:
        try:
            parse(move)
        except BadNotation as exc:
            raise BadState(f"the take-back record: {exc}") from exc
    check_state(base)


def _check_places(state: GameState) -> None:
    """Cards sit in zones that can hold them (R3, R27, R30, R40)."""
    t, zones = tables(), _zones()
    for level, lv in enumerate(state.levels, start=1):
        if len(lv.row) != 5:
            raise BadState(f"row {level} has {len(lv.row)} slots, not 5")
        regular = zones.regular[level]
        for card in (*(c for c in lv.row if c), *lv.deck):
            if card not in regular:
                raise BadState(f"{card!r} is not a regular monster of level {level}")
        gatekeepers = zones.gatekeepers[level]
        for card in lv.gates:
            if card not in gatekeepers:
                raise BadState(f"{card!r} is not a gatekeeper of level {level}")
    for card in state.pawnshop:
        if card not in t.equipment and not (card in t.actions and t.actions[card].reward):
            raise BadState(f"{card!r} cannot be in the pawnshop")
    starting = zones.starting
    for i, seat in enumerate(state.seats):
        held = {*seat.hand, *seat.deck, *seat.discard}
        if state.battle is not None and state.current == i:
            held.update(state.battle.chain, state.battle.drawn)
        if not held & starting <= zones.hero_cards[seat.hero]:
            raise BadState(f"seat {i} holds another hero's starting card")


def _check_pending(state: GameState) -> None:
    """The pending purchase or reward matches the phase; the battle matches the table."""
    t = tables()
    pending, phase, battle = state.pending, state.phase, state.battle
    if phase is Phase.REWARD:
        if pending not in t.equipment or battle is None:
            raise BadState("a reward decision without won equipment")
    elif phase is Phase.PAY:
        if pending is None:
            raise BadState("a payment without a purchase")
        if pending.startswith("potion:"):
            kind = pending.split(":", 1)[1]
            if kind not in POTIONS or kind in state.seat.potions \
                    or state.potions[POTIONS.index(kind)] <= 0:
                raise BadState(f"bad pending purchase {pending!r}")
        elif pending not in state.pawnshop:
            raise BadState(f"pending purchase {pending!r} is not in the pawnshop")
    elif pending is not None:
        raise BadState(f"pending {pending!r} outside a reward or payment")
    if battle is not None and battle.hp_before is not None and phase is not Phase.REWARD:
        raise BadState("a settled battle outside its reward decision")
    if battle is None:
        return
    _check_battle(state, battle)
    if (phase is Phase.TAIA) != bool(battle.drawn) or len(battle.drawn) not in (0, 2):
        raise BadState("Taia's drawn cards and the phase disagree")
    if phase not in (Phase.BATTLE, Phase.DISCARD, Phase.TAIA):
        return
    if battle.level == LORD_LEVEL:  # level and slot are in range (_check_battle)
        where: str | None = state.lord
    elif battle.slot == 0:
        gates = state.levels[battle.level - 1].gates
        where = gates[0] if gates else None
    else:
        where = state.levels[battle.level - 1].row[battle.slot - 1]
    if where != battle.monster:
        raise BadState(f"the battle's monster {battle.monster!r} is not where the battle is")


def _check_battle(state: GameState, battle: Battle) -> None:
    """The battle's monster, place and counters are in range; doubled, unlocked and countered
    effects belong to cards played and curses the monster has (R20-R27, R34, R63, R66)."""
    t = tables()
    if battle.monster not in t.monsters:
        raise BadState(f"the battle's monster {battle.monster!r} is no monster")
    if not 1 <= battle.level <= LORD_LEVEL or not 0 <= battle.slot <= 5:
        raise BadState(f"a battle on level {battle.level}, slot {battle.slot}")
    if battle.hp_before is not None and not 0 <= battle.hp_before <= MAX_HP:
        raise BadState(f"HP before the battle {battle.hp_before} out of range")
    most = _zones().most_draws
    if not 0 <= battle.draws_left < max(most, 1) \
            or (battle.draws_left and state.phase is not Phase.TAIA):
        raise BadState(f"{battle.draws_left} cards left to draw")
    for index, effect in (*battle.boosted, *battle.unlocked):
        if not 0 <= index < len(battle.chain) or effect not in EFFECT_CURSES:
            raise BadState(f"effect {effect!r} of card {index}, which was not played")
    if battle.countered is not None \
            and battle.countered not in t.monsters[battle.monster].curses:
        raise BadState(f"countered curse {battle.countered!r} is not the monster's")
