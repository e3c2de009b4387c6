"""Why an action is illegal: the reason a player reads when a move is refused."""

from __future__ import annotations

from engine.actions import (
    LORD_LEVEL,
    POTIONS,
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
    SetStacking,
    TakeReward,
    VisitMerchant,
)
from engine.battle import active_curses
from engine.catalog import tables
from engine.names import ROMAN, card_name, monster_name, word
from engine.rules import HEAL_PHASES
from engine.state import GameState, Phase
from i18n import Msg, msg

_PHASES: dict[type[Action], tuple[Phase, ...]] = {
    Fight: (Phase.TURN,), VisitMerchant: (Phase.TURN,),
    SetStacking: (Phase.TURN,), Discard: (Phase.DISCARD,), Play: (Phase.BATTLE,),
    DrinkStrength: (Phase.BATTLE,), EndBattle: (Phase.BATTLE,), KeepDrawn: (Phase.TAIA,),
    DrinkCountercurse: (Phase.BATTLE, Phase.DISCARD), DrinkHealing: HEAL_PHASES,
    TakeReward: (Phase.REWARD,), BuyPotion: (Phase.MERCHANT,), BuyPawned: (Phase.MERCHANT,),
    LeaveMerchant: (Phase.MERCHANT,), Pay: (Phase.PAY,), CancelPurchase: (Phase.PAY,),
}


def why_illegal(state: GameState, action: Action) -> Msg:
    """The most specific reason why ``action`` is not legal in ``state``."""
    if state.phase is Phase.OVER:
        return msg("error.game_over")
    if state.phase not in _PHASES.get(type(action), ()):
        return msg("error.not_now", pending=word("phase", state.phase.value))
    seat = state.seat
    t = tables()
    if isinstance(action, Fight):
        return _why_fight(state, action)
    if isinstance(action, VisitMerchant) and seat.hp <= 0:
        return msg("error.no_hp")
    if isinstance(action, Play | Discard) and action.card not in seat.hand:
        return msg("error.not_in_hand")
    if isinstance(action, Play):
        return _why_play(state, action)
    if isinstance(action, DrinkHealing | DrinkStrength | DrinkCountercurse):
        kind = {DrinkHealing: "healing", DrinkStrength: "strength",
                DrinkCountercurse: "countercurse"}[type(action)]
        if kind not in seat.potions:
            return msg("error.no_potion", potion=word("potion", kind))
        if isinstance(action, DrinkHealing):
            return msg("error.no_hp" if seat.hp <= 0 else "error.full_hp")
        battle = state.battle
        assert battle is not None
        if isinstance(action, DrinkCountercurse):
            if battle.countered:
                return msg("error.already_countered")
            return msg("error.no_such_curse", curse=word("curse", action.curse),
                       monster=monster_name(battle.monster))
        if not battle.chain:
            return msg("error.strength_needs_card")
        if any(i == len(battle.chain) - 1 for i, _ in battle.boosted):
            return msg("error.already_doubled")
        return msg("error.strength_no_effect", effect=word("effect", action.effect),
                   card=card_name(battle.chain[-1]))
    if isinstance(action, KeepDrawn):
        return msg("error.not_drawn")
    if isinstance(action, BuyPotion):
        if action.kind in seat.potions:
            return msg("error.potion_held", potion=word("potion", action.kind))
        if state.potions[POTIONS.index(action.kind)] <= 0:
            return msg("error.sold_out", potion=word("potion", action.kind))
        return msg("error.no_payment")
    if isinstance(action, BuyPawned):
        if state.bought_pawned:
            return msg("error.one_pawned")
        if action.card not in state.pawnshop:
            return msg("error.not_in_pawnshop")
        return msg("error.no_payment")
    if isinstance(action, Pay):
        if action.source in ("weapon", "armour"):
            return msg("error.no_equipment", slot=word("slot", action.source))
        if action.source in seat.keys:
            return msg("error.key_payment")
        if action.source in POTIONS:
            return msg("error.potion_payment")
        if action.source not in seat.hand:
            return msg("error.not_in_hand")
        if not t.actions[action.source].reward:
            return msg("error.starting_card_payment")
    if isinstance(action, SetStacking):
        return msg("error.stacking_same")
    return msg("error.not_allowed")


def _why_fight(state: GameState, action: Fight) -> Msg:
    seat = state.seat
    t = tables()
    if seat.hp <= 0:
        return msg("error.no_hp")
    levels = {t.monsters[k].level for k in seat.keys}
    need = range(1, 4) if action.level == LORD_LEVEL else range(1, action.level)
    for lv in need:
        if lv not in levels:
            if action.level == LORD_LEVEL:
                return msg("error.lord_needs_keys")
            return msg("error.key_required", level=ROMAN[lv])
    if action.level == LORD_LEVEL:
        return msg("error.not_allowed")
    if action.slot == 0:
        if action.level in levels:
            return msg("error.has_key", level=ROMAN[action.level])
        return msg("error.no_gatekeeper", level=ROMAN[action.level])
    return msg("error.empty_slot")


def _why_play(state: GameState, action: Play) -> Msg:
    battle = state.battle
    assert battle is not None
    t = tables().actions
    info = t[action.card]
    curses = active_curses(battle)
    hero = state.seat.hero if state.config.abilities else ""
    if info.colour in curses:
        return msg("error.colour_cursed", colour=word("colour", info.colour),
                   monster=monster_name(battle.monster))
    if battle.chain and not (hero == "victorius" and len(battle.chain) == 1):
        prev = t[battle.chain[-1]]
        if info.colour not in prev.next:
            if hero == "argentus" and info.colour == "blue" and battle.ability_used:
                return msg("error.ability_used")  # R61: the one blue card is spent
            return msg("error.wrong_colour", colour=word("colour", info.colour),
                       card=card_name(prev.id))
    if action.ability:
        if hero != "xanros":
            return msg("error.no_ability")
        if battle.ability_used:
            return msg("error.ability_used")
        if action.ability not in curses:
            return msg("error.effect_not_cursed", effect=word("effect", action.ability))
        if not info.effect(action.ability):
            return msg("error.no_effect", card=card_name(action.card),
                       effect=word("effect", action.ability))
    return msg("error.not_allowed")
