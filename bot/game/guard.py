"""The misclick guard: the moves a player is asked about once more before they are applied.

Three moves are easy to regret and cannot be taken back once made: ending a battle that the
hand's "if the battle ends now" preview (the engine's battle totals) shows as lost (the question
states the hits and, when equipment heals after the battle, R25, the HP it leaves), starting a
fight with 1 HP left against a monster whose attack gets past the seat's equipment that monster
does not curse (R23; the cards played in the battle may still hold it off, and so may a healing
potion the seat holds, drunk ahead of the hits, R35, or a countercurse potion that lifts the curse
on its equipment, R33, which the question then names; a slip knocks the hero out), and visiting
the merchant when nothing can be bought there (nothing to pay with, R40, or nothing for sale to
the seat, R41-R42): the rules allow that visit (R7, R43), but it only spends the turn. The
question is asked in the hand message; the answer's button carries the move (its custom id),
nothing is kept.
"""

from __future__ import annotations

from bot.game.facts import can_pay, for_sale
from engine import Action, EndBattle, Fight, Observation, VisitMerchant
from engine.catalog import tables
from engine.names import monster_name, word
from engine.state import MAX_HP
from i18n import Msg, msg

#: The HP at which a fight whose monster hits harder than the seat's equipment knocks it out.
LAST_HP = 1


def question(obs: Observation, action: Action) -> Msg | None:
    """What to ask the viewer of ``obs`` before ``action``, one of their legal moves (None: the
    move is applied at once)."""
    if isinstance(action, EndBattle):
        totals = obs.battle.totals if obs.battle is not None else None
        if totals is None or totals.win:
            return None
        if totals.knocked_out:
            return msg("bot.undo.end_knocked_out")
        if totals.damage > 0 and totals.heal_after > 0:  # R25: hit, then healed
            return msg("bot.undo.end_lost_healed", count=totals.damage, hp=totals.hp_after)
        if totals.damage > 0:
            return msg("bot.undo.end_lost", count=totals.damage)
        return msg("bot.undo.end_unhurt")
    if isinstance(action, Fight):
        me = obs.seats[obs.current]
        monster = obs.target(action)
        if me.hp != LAST_HP or monster is None:
            return None
        return _fight_question(me.weapon, me.armour, me.potions, monster)
    if isinstance(action, VisitMerchant):
        if not can_pay(obs):
            return msg("bot.undo.merchant_no_payment")
        if not for_sale(obs):
            return msg("bot.undo.merchant_nothing")
    return None


def _fight_question(weapon: str | None, armour: str | None, potions: tuple[str, ...],
                    monster: str) -> Msg | None:
    """The question before a fight at 1 HP against ``monster``, with the seat's equipment and
    potions: None when its equipment holds the attack off, otherwise the potions that spare the
    hero, when any do (R33 the countercurse that frees cursed equipment, R35 the healing)."""
    info = tables().monsters[monster]
    hits = _hits(info.attack, weapon, armour, info.curses)
    if hits <= 0:
        return None
    lifted, eased = None, hits  # R33: the one curse whose lifting frees the most defence
    if "countercurse" in potions:
        for curse in info.curses:
            left = _hits(info.attack, weapon, armour, tuple(c for c in info.curses if c != curse))
            if left < eased:
                lifted, eased = curse, left
    healed = "healing" in potions and hits < MAX_HP  # R35: back to 5 HP ahead of the hits
    args: dict[str, str | int | Msg] = {"monster": monster_name(monster), "attack": info.attack}
    if lifted is not None and eased <= 0:
        key = "bot.undo.fight_lethal_either" if healed else "bot.undo.fight_lethal_countercurse"
        return msg(key, curse=word("curse", lifted), **args)
    if healed:
        return msg("bot.undo.fight_lethal_potion", **args)
    if lifted is not None and "healing" in potions and eased < MAX_HP:
        return msg("bot.undo.fight_lethal_both", curse=word("curse", lifted), **args)
    return msg("bot.undo.fight_lethal", **args)


def _hits(attack: int, weapon: str | None, armour: str | None, curses: tuple[str, ...]) -> int:
    """The hits ``attack`` deals past the seat's equipment that ``curses`` leave it (R23-R24)."""
    held = tuple(item for kind, item in (("weapon", weapon), ("armour", armour))
                 if kind not in curses)  # R23: cursed equipment counts for nothing
    return attack - _equipment_defence(*held)


def _equipment_defence(*items: str | None) -> int:
    """The defence the seat's equipment brings to every battle."""
    known = tables().equipment
    return sum(known[item].defence for item in items
               if item is not None and item in known)


__all__ = ["LAST_HP", "question"]
