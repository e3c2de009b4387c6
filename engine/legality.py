"""Whether an action is allowed now, decided once per kind of action.

:func:`refusal` answers for any action: None when the current seat may take it, else the key of
the reason (``error.colour_cursed``...). :func:`engine.rules.legal_actions` offers exactly the
actions these functions allow, :func:`engine.rules.apply` checks with :func:`refusal`, and
:func:`engine.explain.why_illegal` words its key as a sentence, so the three never disagree. The
card-play rule is :func:`play_refusal`, the fight rule :func:`fight_refusal` and the payment
rule :func:`payment_refusal`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from engine.actions import (
    LORD_LEVEL,
    POTIONS,
    STACK_MODES,
    Action,
    BuyPawned,
    BuyPotion,
    CancelPurchase,
    Discard,
    DrinkCountercurse,
    DrinkHealing,
    DrinkStrength,
    EndBattle,
    Fight,
    KeepDrawn,
    LeaveMerchant,
    Pay,
    Play,
    Revive,
    SetStacking,
    TakeReward,
    Undo,
    VisitMerchant,
)
from engine.battle import active_curses
from engine.catalog import tables
from engine.state import MAX_HP, Battle, GameState, Level, Phase, Seat

#: The phases in which a healing potion may be drunk (R35).
HEAL_PHASES = (Phase.TURN, Phase.DISCARD, Phase.BATTLE, Phase.MERCHANT, Phase.REWARD)
#: The effects Lord Xanros may count although the monster curses them (R63).
UNLOCKABLE = ("attack", "defence", "draw", "heal")
#: What a purchase may be paid with besides reward cards in hand (R40).
EQUIPMENT_SLOTS = ("weapon", "armour")
#: The phases in which each kind of action may be taken at all.
PHASES: dict[type[Action], tuple[Phase, ...]] = {
    Fight: (Phase.TURN,), VisitMerchant: (Phase.TURN,), Revive: (Phase.TURN,),
    SetStacking: (Phase.TURN,), Discard: (Phase.DISCARD,), Play: (Phase.BATTLE,),
    DrinkStrength: (Phase.BATTLE,), EndBattle: (Phase.BATTLE,), KeepDrawn: (Phase.TAIA,),
    DrinkCountercurse: (Phase.BATTLE, Phase.DISCARD), DrinkHealing: HEAL_PHASES,
    TakeReward: (Phase.REWARD,), BuyPotion: (Phase.MERCHANT,), BuyPawned: (Phase.MERCHANT,),
    LeaveMerchant: (Phase.MERCHANT,), Pay: (Phase.PAY,), CancelPurchase: (Phase.PAY,),
    Undo: tuple(p for p in Phase if p is not Phase.OVER),
}


#: Phases read at every step, as module names: reaching an enum member (``Phase.BATTLE``) is a
#: descriptor call on Python 3.11, ten times slower than reaching a module name.
_OVER = Phase.OVER


def refusal(state: GameState, action: Action) -> str | None:
    """Why the current seat may not take ``action`` now (a reason key), or None if it may."""
    if state.phase is _OVER:
        return "error.game_over"
    if state.phase not in PHASES.get(type(action), ()):
        return "error.not_now"
    return _RULES[type(action)](state, action)


def key_levels(seat: Seat) -> frozenset[int]:
    """The levels whose key (gatekeeper) the seat holds."""
    keys = seat.keys
    levels = _KEY_LEVELS.get(keys)
    if levels is None:  # a few dozen sets of keys at most
        monsters = tables().monsters
        levels = _KEY_LEVELS[keys] = frozenset([monsters[k].level for k in keys])
    return levels


#: The levels of each set of keys held so far: every turn asks for the current seat's.
_KEY_LEVELS: dict[tuple[str, ...], frozenset[int]] = {}


def fight_refusal(state: GameState, fight: Fight) -> str | None:
    """Why the current seat may not fight ``fight`` now, or None if it may (R10-R13, D1)."""
    seat = state.seat
    return refuse_fight(seat.hp, key_levels(seat), state.levels, fight)


def refuse_fight(hp: int, keys: Collection[int], levels: tuple[Level, ...],
                 fight: Fight) -> str | None:
    """:func:`fight_refusal` from its parts: the seat's HP, its key levels and the caverns."""
    if hp <= 0:
        return "error.no_hp"
    lord = fight.level == LORD_LEVEL
    if not lord and fight.level not in (1, 2, 3):
        return "error.not_allowed"
    for needed in range(1, 4 if lord else fight.level):  # level n opens with the keys above it
        if needed not in keys:
            return "error.lord_needs_keys" if lord else "error.key_required"
    if lord:
        return None if fight.slot == 0 else "error.not_allowed"
    level = levels[fight.level - 1]
    if fight.slot == 0:  # the gatekeeper deck, until the seat holds this level's key
        if fight.level in keys:
            return "error.has_key"
        return None if level.gates else "error.no_gatekeeper"
    if not 1 <= fight.slot <= len(level.row):
        return "error.not_allowed"
    return None if level.row[fight.slot - 1] is not None else "error.empty_slot"


def play_refusal(state: GameState, play: Play) -> str | None:
    """Why the current seat may not play ``play`` in the battle now, or None if it may.

    R15 the card follows the colour of the last one; R21 no card of a cursed colour. With hero
    abilities: R61 Argentus may play one blue card off the chain, R63 Xanros one card of a cursed
    colour (if it follows) or count one cursed effect of a card, R65 Victorius's second card may
    be of any colour. Argentus's and Xanros's ability serves once per battle.
    """
    battle = state.battle
    seat = state.seat
    if battle is None:
        return "error.not_allowed"
    if play.card not in seat.hand:
        return "error.not_in_hand"
    return refuse_play(seat.hero if state.config.abilities else "", battle, active_curses(battle),
                       play)


def refuse_play(hero: str, battle: Battle, curses: tuple[str, ...], play: Play) -> str | None:
    """:func:`play_refusal` from its parts, for a card in the current seat's hand: the seat's hero
    when hero abilities are on (else ""), the battle and its active curses."""
    t = tables().actions
    info = t[play.card]
    chain = battle.chain
    spare = not battle.ability_used  # the once-per-battle ability is still there
    follows = (not chain or info.colour in t[chain[-1]].next
               or (hero == "victorius" and len(chain) == 1))
    if info.colour in curses and not (hero == "xanros" and spare and follows and not play.ability):
        return "error.colour_cursed"
    if not follows and not (hero == "argentus" and info.colour == "blue" and spare):
        return "error.ability_used" if hero == "argentus" and info.colour == "blue" \
            else "error.wrong_colour"
    if not play.ability:
        return None
    if hero != "xanros":
        return "error.no_ability"
    if not spare:
        return "error.ability_used"
    if play.ability not in curses:
        return "error.effect_not_cursed"
    if play.ability not in UNLOCKABLE or not info.effect(play.ability):
        return "error.no_effect"
    return None


def payment_refusal(seat: Seat, source: str) -> str | None:
    """Why ``seat`` may not pay a purchase with ``source``, or None if it may (R40): a weapon or
    armour it holds (``weapon``, ``armour``) or a reward card in its hand."""
    if source in EQUIPMENT_SLOTS:
        return "error.no_equipment" if getattr(seat, source) is None else None
    if source in seat.keys:
        return "error.key_payment"
    if source in POTIONS:
        return "error.potion_payment"
    if source not in seat.hand:
        return "error.not_in_hand"
    if not tables().actions[source].reward:
        return "error.starting_card_payment"
    return None


def payments(seat: Seat) -> list[str]:
    """Everything the seat may pay a purchase with now, equipment first, then hand order."""
    return [source for source in (*EQUIPMENT_SLOTS, *seat.hand)
            if payment_refusal(seat, source) is None]


def can_pay(seat: Seat) -> bool:
    """Whether ``seat`` has anything to pay a purchase with (R40): :func:`payments` not empty."""
    return any(payment_refusal(seat, source) is None
               for source in (*EQUIPMENT_SLOTS, *seat.hand))


def counter_refusal(battle: Battle | None, seat: Seat, curse: str) -> str | None:
    """Why the seat may not drink a countercurse potion against ``curse`` now (R33)."""
    if "countercurse" not in seat.potions:
        return "error.no_potion"
    if battle is None:
        return "error.not_allowed"
    if battle.countered:
        return "error.already_countered"
    if curse not in tables().monsters[battle.monster].curses:
        return "error.no_such_curse"
    return None


def strength_refusal(battle: Battle | None, seat: Seat, effect: str) -> str | None:
    """Why the seat may not drink a strength potion to double ``effect`` of the last card (R34)."""
    if "strength" not in seat.potions:
        return "error.no_potion"
    if battle is None:
        return "error.not_allowed"
    if not battle.chain:
        return "error.strength_needs_card"
    last = len(battle.chain) - 1
    if any(i == last for i, _ in battle.boosted):
        return "error.already_doubled"
    if effect not in ("attack", "defence") or not tables().actions[battle.chain[-1]].effect(effect):
        return "error.strength_no_effect"
    return None


def healing_refusal(seat: Seat, phase: Phase = Phase.TURN) -> str | None:
    """Why the seat may not drink a healing potion now, in ``phase`` (R35): at 0 HP it must
    revive, this turn at its start, or next turn when Aderyn's knocked-out win (R64) leaves
    her keeping or pawning its reward."""
    if "healing" not in seat.potions:
        return "error.no_potion"
    if seat.hp <= 0:
        return "error.no_hp" if phase is Phase.TURN else "error.no_hp_next_turn"
    return "error.full_hp" if seat.hp >= MAX_HP else None


def potion_refusal(state: GameState, kind: str) -> str | None:
    """Why the current seat may not buy a potion of ``kind`` from the merchant (R41)."""
    seat = state.seat
    if kind not in POTIONS:
        return "error.not_allowed"
    if kind in seat.potions:
        return "error.potion_held"
    if state.potions[POTIONS.index(kind)] <= 0:
        return "error.sold_out"
    return None if can_pay(seat) else "error.no_payment"


def pawned_refusal(state: GameState, card: str) -> str | None:
    """Why the current seat may not buy ``card`` from the pawnshop (R42)."""
    if state.bought_pawned:
        return "error.one_pawned"
    if card not in state.pawnshop:
        return "error.not_in_pawnshop"
    return None if can_pay(state.seat) else "error.no_payment"


def visit_refusal(seat: Seat) -> str | None:
    """Why the seat may not visit the merchant on its turn: not with 0 HP (R13)."""
    return "error.no_hp" if seat.hp <= 0 else None


def stacking_refusal(seat: Seat, mode: str) -> str | None:
    """Why the seat may not set how its discard pile becomes its deck to ``mode`` (D5)."""
    return None if mode in STACK_MODES and mode != seat.stacking else "error.stacking_same"


def _allowed(state: GameState, action: Any) -> str | None:
    return None


_RULES: dict[type[Action], Callable[[GameState, Any], str | None]] = {
    Fight: fight_refusal,
    VisitMerchant: lambda state, a: visit_refusal(state.seat),
    Revive: _allowed,
    SetStacking: lambda state, a: stacking_refusal(state.seat, a.mode),
    DrinkHealing: lambda state, a: healing_refusal(state.seat, state.phase),
    Discard: lambda state, a: None if a.card in state.seat.hand else "error.not_in_hand",
    Play: play_refusal,
    DrinkStrength: lambda state, a: strength_refusal(state.battle, state.seat, a.effect),
    DrinkCountercurse: lambda state, a: counter_refusal(state.battle, state.seat, a.curse),
    EndBattle: _allowed,
    KeepDrawn: lambda state, a: None if state.battle is not None and a.card in state.battle.drawn
    else "error.not_drawn",
    TakeReward: _allowed,
    BuyPotion: lambda state, a: potion_refusal(state, a.kind),
    BuyPawned: lambda state, a: pawned_refusal(state, a.card),
    LeaveMerchant: _allowed,
    Pay: lambda state, a: payment_refusal(state.seat, a.source),
    CancelPurchase: _allowed,
    Undo: lambda state, a: None if state.undo is not None else "error.nothing_to_undo",
}
