"""Fighting a monster: what each battle action does to the table (R14-R27, R33-R34, R60-R66).

Entering the battle (discarding down first under an equipment curse, R23), playing cards with
the heroes' abilities, Taia's draws, the strength and countercurse potions, the end of the
battle (hits, healing, the hit on the monster, R24-R27) and the keep-or-pawn choice of an
equipment reward. :data:`HANDLERS` maps each of these actions to its handler for
:func:`engine.rules.apply`.
"""

from __future__ import annotations

from msgspec.structs import replace

from engine import events
from engine.actions import (
    LORD_LEVEL,
    Action,
    Discard,
    DrinkCountercurse,
    DrinkStrength,
    EndBattle,
    Fight,
    KeepDrawn,
    Play,
    TakeReward,
)
from engine.battle import active_curses, hand_size, totals
from engine.catalog import tables
from engine.names import ROMAN, card_name, monster_name, word
from engine.state import MAX_HP, Battle, GameState, Phase
from engine.table import Handler, Table, without

#: Phases read at every step, as module names: reaching an enum member (``Phase.BATTLE``) is a
#: descriptor call on Python 3.11, ten times slower than reaching a module name.
_BATTLE = Phase.BATTLE
_DISCARD = Phase.DISCARD
_TAIA = Phase.TAIA
_OVER = Phase.OVER
_REWARD = Phase.REWARD


def monster_at(state: GameState, fight: Fight) -> str:
    """The monster ``fight`` faces in ``state``, where the fight is legal: the Lord, the top
    gatekeeper of the level or the monster in the row's slot."""
    if fight.level == LORD_LEVEL:
        return state.lord
    level = state.levels[fight.level - 1]
    card = level.gates[0] if fight.slot == 0 else level.row[fight.slot - 1]
    assert card is not None
    return card


def _fight(table: Table, a: Action) -> None:
    assert isinstance(a, Fight)
    monster = monster_at(table.state, a)
    table.battle = Battle(level=a.level, slot=a.slot, monster=monster)
    table.said.append(events.fight(table.who(), monster_name(monster), ROMAN[a.level]))
    _enter_battle(table)


def _enter_battle(table: Table) -> None:
    """R23: discard down first when an equipment curse takes away a hand-size bonus."""
    assert table.battle is not None
    curses = active_curses(table.battle)
    if ("weapon" not in curses and "armour" not in curses) \
            or not (table.seat.weapon or table.seat.armour):
        table.phase = _BATTLE  # no hand-size bonus is taken away
        return
    allowed = hand_size(table.seat, curses)
    if allowed < hand_size(table.seat) and len(table.seat.hand) > allowed:
        table.phase = _DISCARD
    else:
        table.phase = _BATTLE



def _discard(table: Table, a: Action) -> None:
    assert isinstance(a, Discard) and table.battle is not None
    table.set(hand=without(table.seat.hand, a.card), discard=table.seat.discard + (a.card,))
    table.said.append(events.discard(table.who(), card_name(a.card)))
    _enter_battle(table)


def _play(table: Table, a: Action) -> None:
    assert isinstance(a, Play) and table.battle is not None
    t = tables().actions
    battle, card, me = table.battle, a.card, table.me
    seat = table.seats[me]
    info = t[card]
    chain = battle.chain
    curses = active_curses(battle)
    hero = seat.hero if table.state.config.abilities else ""
    who = table.who()  # the seat playing, named in every event below
    prev = t[chain[-1]] if chain else None
    follows = prev is None or info.colour in prev.next or (hero == "victorius"
                                                            and len(chain) == 1)
    idx = len(chain)
    used = battle.ability_used
    unlocked = battle.unlocked
    if info.colour in curses or not follows:
        used = True  # R61 / R63: the once-per-battle ability made this card playable
        table.said.append(events.ability(who, word("hero", f"{seat.hero}.name")))
    if a.ability:
        used = True
        unlocked = unlocked + ((idx, a.ability),)
        table.said.append(events.ability(who, word("hero", f"{seat.hero}.name")))
    horan = battle.horan_bonus
    if hero == "horan" and not horan and prev is not None and prev.attack and info.attack:
        horan = True  # R62
        table.said.append(events.horan(who))
    table.seats[me] = seat = replace(seat, hand=without(seat.hand, card))
    table.battle = Battle(battle.level, battle.slot, battle.monster, chain + (card,),
                          battle.boosted, battle.countered, used, unlocked, horan, battle.drawn,
                          battle.draws_left, battle.hp_before)
    table.said.append(events.play(who, card_name(card)))
    if info.heal and ("heal" not in curses or (idx, "heal") in unlocked):  # R18
        gain = min(MAX_HP, seat.hp + info.heal) - seat.hp
        if gain:
            table.seats[me] = replace(seat, hp=seat.hp + gain)
            table.said.append(events.heal(who, gain))
    if info.draw and ("draw" not in curses or (idx, "draw") in unlocked):  # R17, R66
        if hero == "taia":
            _taia_draw(table, info.draw)
        else:
            table.draw(me, info.draw)


def _taia_draw(table: Table, remaining: int) -> None:
    """R66: for each card to draw, Taia draws two, keeps one, the other goes under her deck."""
    assert table.battle is not None
    while remaining > 0:
        first = table.take(table.me)
        if first is None:
            break
        second = table.take(table.me)
        remaining -= 1
        if second is None:
            table.set(hand=table.seat.hand + (first,))
            table.said.append(events.draw(table.who(), 1))
            continue
        table.battle = replace(table.battle, drawn=(first, second), draws_left=remaining)
        table.phase = _TAIA
        table.said.append(events.taia_choice(card_name(first), card_name(second), to=table.me))
        return
    table.battle = replace(table.battle, drawn=(), draws_left=0)
    table.phase = _BATTLE


def _keep(table: Table, a: Action) -> None:
    assert isinstance(a, KeepDrawn) and table.battle is not None
    other = without(table.battle.drawn, a.card)[0]
    table.set(hand=table.seat.hand + (a.card,), deck=table.seat.deck + (other,))
    table.said.append(events.draw(table.who(), 1))
    table.said.append(events.taia_kept(card_name(a.card), card_name(other), to=table.me))
    _taia_draw(table, table.battle.draws_left)


def _strength(table: Table, a: Action) -> None:
    assert isinstance(a, DrinkStrength) and table.battle is not None
    b = table.battle
    table.battle = replace(b, boosted=b.boosted + ((len(b.chain) - 1, a.effect),))
    table.set(potions=tuple(p for p in table.seat.potions if p != "strength"))
    table.pile("strength", 1)
    table.said.append(events.potion_strength(table.who(), word("effect", a.effect),
                                             card_name(b.chain[-1])))


def _counter(table: Table, a: Action) -> None:
    assert isinstance(a, DrinkCountercurse) and table.battle is not None
    table.battle = replace(table.battle, countered=a.curse)
    table.set(potions=tuple(p for p in table.seat.potions if p != "countercurse"))
    table.pile("countercurse", 1)
    table.said.append(events.potion_counter(table.who(), word("curse", a.curse)))
    if table.phase is _DISCARD:
        _enter_battle(table)


def _end_battle(table: Table, a: Action) -> None:
    """R24-R27: take hits, heal from equipment, hit the monster, take the reward."""
    battle = table.battle
    assert battle is not None
    result = totals(table.state)
    monster = tables().monsters[battle.monster]
    hp_before = table.seat.hp
    who = table.who()  # the seat that fought, named in every event below
    table.set(hp=result.hp_after)
    if result.damage:
        table.said.append(events.hits(who, result.damage))
    if result.knocked_out:
        table.said.append(events.knocked_out(who))
    elif result.hp_after > hp_before - result.damage:  # R25, narrated as the HP it gave
        table.said.append(events.heal(who, result.hp_after - (hp_before - result.damage)))
    if not result.win:
        if not result.knocked_out:
            table.said.append(events.lost(who, monster_name(monster.id), result.attack,
                                          monster.hp))
        table.end_turn()
        return
    table.said.append(events.won(who, monster_name(monster.id), result.attack, monster.hp))
    if battle.level == LORD_LEVEL:  # R60: the game ends at once
        table.set(discard=table.seat.discard + battle.chain)  # the table is left tidy (no battle)
        table.battle = None
        table.winner = table.me
        table.phase = _OVER
        table.said.append(events.champion(who))
        return
    table.remove_monster(battle)
    if monster.reward == "key":
        table.set(keys=table.seat.keys + (monster.id,))
        table.said.append(events.key(who, ROMAN[monster.level]))
        table.end_turn()
    elif monster.reward == "action":
        table.set(discard=table.seat.discard + (monster.id,))
        table.said.append(events.reward_card(who, card_name(monster.id)))
        table.end_turn()
    else:  # the battle stays open for the keep-or-pawn choice, its outcome settled
        table.battle = replace(battle, hp_before=hp_before)
        table.pending = monster.id
        table.phase = _REWARD


def _reward(table: Table, a: Action) -> None:
    assert isinstance(a, TakeReward) and table.pending is not None
    card = table.pending
    kind = tables().equipment[card].kind
    if a.keep:
        old = getattr(table.seat, kind)
        if old:
            table.pawnshop += (old,)
            table.said.append(events.pawned(table.who(), card_name(old)))
        table.set(**{kind: card})
        table.said.append(events.equip(table.who(), card_name(card)))
    else:
        table.pawnshop += (card,)
        table.said.append(events.pawned(table.who(), card_name(card)))
    table.end_turn()


HANDLERS: dict[type[Action], Handler] = {
    Fight: _fight, Discard: _discard, Play: _play, KeepDrawn: _keep, DrinkStrength: _strength,
    DrinkCountercurse: _counter, EndBattle: _end_battle, TakeReward: _reward,
}
