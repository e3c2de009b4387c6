"""Battle arithmetic (R16, R21-R26, R34, R62-R64): what the played cards add up to, and what
happens if the battle ends now. Used by the rules, the agents and the renderer alike."""

from __future__ import annotations

from msgspec import Struct

from engine.catalog import Tables, tables
from engine.state import BASE_HAND, MAX_HP, Battle, GameState, Seat


class Totals(Struct, frozen=True, gc=False):
    """Attack and defence split by source, and the outcome if the battle ended now."""

    attack_cards: int
    attack_equipment: int
    attack_ability: int
    defence_cards: int
    defence_equipment: int
    monster_attack: int
    monster_hp: int
    damage: int
    hp_after: int
    knocked_out: bool
    win: bool
    heal_after: int

    @property
    def attack(self) -> int:
        """Total attack."""
        return self.attack_cards + self.attack_equipment + self.attack_ability

    @property
    def defence(self) -> int:
        """Total defence."""
        return self.defence_cards + self.defence_equipment


def active_curses(battle: Battle) -> tuple[str, ...]:
    """The monster's curses that apply: all but the one a countercurse potion removed."""
    curses = tables().monsters[battle.monster].curses
    if battle.countered is None:
        return curses
    return tuple(c for c in curses if c != battle.countered)


def hand_size(seat: Seat, curses: tuple[str, ...] = ()) -> int:
    """A full hand: 4 plus the hand-size bonuses of equipment not cursed (R23, R31)."""
    eq = tables().equipment
    size = BASE_HAND
    if seat.weapon and "weapon" not in curses:
        size += eq[seat.weapon].hand
    if seat.armour and "armour" not in curses:
        size += eq[seat.armour].hand
    return size


def aderyn_applies(state: GameState, battle: Battle) -> bool:
    """Aderyn's ability (R64, D6): she may still win after losing her last HP, never the Lord."""
    return state.config.abilities and state.seat.hero == "aderyn" and battle.level != 4


def totals(state: GameState, curses: tuple[str, ...] | None = None) -> Totals:
    """The battle's running totals and the outcome if the current seat ended it now (``curses``:
    the battle's :func:`active_curses`, when the caller has them already)."""
    last = _LAST_TOTALS.get(None)
    if last is not None and last[0] is state:
        return last[1]
    battle = state.battle
    assert battle is not None, "no battle in progress"
    if curses is None:
        curses = active_curses(battle)
    result = _totals(state, battle, state.seat, tables(), curses)
    _LAST_TOTALS[None] = (state, result)
    return result


#: The totals last worked out, with their state: ending a battle works out the totals of the
#: state its seat was just shown (the observation's battle view), and gets them again here (an
#: identity check; the memo holds the state it compares, so an id is never reused).
_LAST_TOTALS: dict[None, tuple[GameState, Totals]] = {}


def _totals(state: GameState, battle: Battle, seat: Seat, t: Tables,
            curses: tuple[str, ...]) -> Totals:
    unlocked, boosted = battle.unlocked, battle.boosted
    attack_cursed, defence_cursed = "attack" in curses, "defence" in curses
    card_attack = card_defence = 0
    for idx, cid in enumerate(battle.chain):  # R22 cursed effects, R63 unlocked, R34 doubled
        info = t.actions[cid]
        value = info.attack
        if value and (not attack_cursed or (idx, "attack") in unlocked):
            card_attack += value * 2 if boosted and (idx, "attack") in boosted else value
        value = info.defence
        if value and (not defence_cursed or (idx, "defence") in unlocked):
            card_defence += value * 2 if boosted and (idx, "defence") in boosted else value
    eq_att = eq_def = heal = 0
    weapon, armour = seat.weapon, seat.armour  # R23: each counts unless cursed
    if weapon and "weapon" not in curses:
        info_e = t.equipment[weapon]
        eq_att, eq_def, heal = info_e.attack, info_e.defence, info_e.heal
    if armour and "armour" not in curses:
        info_e = t.equipment[armour]
        eq_att += info_e.attack
        eq_def += info_e.defence
        heal += info_e.heal
    ability = 1 if battle.horan_bonus else 0
    monster = t.monsters[battle.monster]
    damage = monster.attack - card_defence - eq_def  # conditions, not max and min: quicker
    if damage < 0:
        damage = 0
    hp = seat.hp if battle.hp_before is None else battle.hp_before
    hp_after = hp - damage if hp > damage else 0
    knocked = damage > 0 and hp_after == 0
    attack = card_attack + eq_att + ability
    win = attack >= monster.hp and (not knocked or aderyn_applies(state, battle))
    if not knocked:
        hp_after = hp_after + heal if hp_after + heal < MAX_HP else MAX_HP
    return Totals(card_attack, eq_att, ability, card_defence, eq_def, monster.attack,
                  monster.hp, damage, hp_after, knocked, win, 0 if knocked else heal)
