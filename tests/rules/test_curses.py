"""R21-R23: colour, action-effect and equipment curses."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import Phase, totals
from engine.battle import hand_size

from .helpers import (
    T,
    battle,
    card,
    cursed,
    gear,
    info,
    legal,
    mon,
    name,
    refused,
    run,
)


@pytest.mark.parametrize("colour", ["green", "blue", "red", "yellow"])
def test_r21_colour_curse_forbids_that_colour(colour: str) -> None:
    target = cursed(colour)
    bad = card(lambda a: a.colour == colour, colour, exclude=(target,))
    first = card(lambda a: a.colour != colour and colour in a.next, f"allowing {colour}",
                 exclude=(target, bad))
    state = battle(target, bad, first)
    refused(state, f"play:{bad}", "colour_cursed", colour, name(target, monster=True))
    state = run(state, f"play:{first}")
    refused(state, f"play:{bad}", "colour_cursed", colour)


def test_r22_attack_curse_ignores_card_attack() -> None:
    target = cursed("attack")
    a = card(lambda x: x.attack > 0, "attacking", exclude=(target,))
    state = battle(target, a)
    assert f"play:{a}" in legal(state)  # still playable
    state = run(state, f"play:{a}")
    t = totals(state)
    assert t.attack_cards == 0 and t.attack == 0 and not t.win


def test_r22_cursed_effect_card_still_decides_next_colour() -> None:
    target = cursed("attack")
    a = card(lambda x: x.attack > 0 and len(x.next) < 4, "attacking", exclude=(target,))
    off = card(lambda x: x.colour not in info(a).next, "off chain", exclude=(target, a))
    state = run(battle(target, a, off), f"play:{a}")
    refused(state, f"play:{off}", "wrong_colour", name(a))


def test_r22_effect_curse_leaves_equipment_alone() -> None:
    target = cursed("attack")
    weapon = gear("weapon", lambda e: e.attack > 0, "attacking", exclude=(target,))
    a = card(lambda x: x.attack > 0, "attacking", exclude=(target, weapon))
    state = run(battle(target, a, weapon=weapon), f"play:{a}")
    t = totals(state)
    assert t.attack_cards == 0 and t.attack_equipment == T.equipment[weapon].attack


def test_r22_defence_curse_ignores_card_defence() -> None:
    target = cursed("defence")
    armour = gear("armour", lambda e: e.defence > 0, "defending", exclude=(target,))
    d = card(lambda x: x.defence > 0, "defending", exclude=(target, armour))
    state = run(battle(target, d, armour=armour), f"play:{d}")
    t = totals(state)
    assert t.defence_cards == 0 and t.defence_equipment == T.equipment[armour].defence
    assert t.damage == max(0, mon(target).attack - T.equipment[armour].defence)


def test_r22_draw_curse_ignores_card_draw() -> None:
    target = cursed("draw")
    d = card(lambda x: x.draw > 0, "drawing", exclude=(target,))
    state = run(battle(target, d), f"play:{d}")
    assert state.seats[0].hand == ()
    assert len(state.seats[0].deck) == 6


def test_r22_heal_curse_ignores_card_heal() -> None:
    target = cursed("heal")
    h = card(lambda x: x.heal > 0, "healing", exclude=(target,))
    state = run(battle(target, h, hp=2), f"play:{h}")
    assert state.seats[0].hp == 2


def test_r22_other_effects_of_the_card_still_apply() -> None:
    target = cursed("attack")
    both = card(lambda x: x.attack > 0 and x.draw > 0, "attacking and drawing",
                exclude=(target,))
    state = run(battle(target, both), f"play:{both}")
    assert len(state.seats[0].hand) == 1 and totals(state).attack_cards == 0


def test_r23_weapon_curse_ignores_the_weapon() -> None:
    target = cursed("weapon")
    weapon = gear("weapon", lambda e: e.attack > 0, "attacking", exclude=(target,))
    armour = gear("armour", lambda e: e.defence > 0, "defending", exclude=(target,))
    t = totals(battle(target, weapon=weapon, armour=armour))
    assert t.attack_equipment == 0
    assert t.defence_equipment == T.equipment[armour].defence


def test_r23_weapon_curse_ignores_every_weapon_effect() -> None:
    target = cursed("weapon")
    weapon = gear("weapon", lambda e: e.heal > 0 or e.defence > 0, "healing or defending",
                  exclude=(target,))
    t = totals(battle(target, weapon=weapon, hp=3))
    assert t.defence_equipment == 0 and t.heal_after == 0


def test_r23_armour_curse_ignores_the_armour() -> None:
    target = cursed("armour")
    armour = gear("armour", lambda e: e.defence > 0, "defending", exclude=(target,))
    weapon = gear("weapon", lambda e: e.attack > 0, "attacking", exclude=(target,))
    t = totals(battle(target, weapon=weapon, armour=armour))
    assert t.defence_equipment == 0
    assert t.attack_equipment == T.equipment[weapon].attack


def hand_armour(target: str) -> str:
    return gear("armour", lambda e: e.hand > 0, "with a hand-size bonus", exclude=(target,))


def test_r23_armour_curse_discard_down_first() -> None:
    target = cursed("armour")
    armour = hand_armour(target)
    hand = list(T.hero_cards["horan"][:4 + T.equipment[armour].hand])
    state = battle(target, *hand, armour=armour)
    assert state.phase is Phase.DISCARD
    assert {f"discard:{c}" for c in hand} <= legal(state)
    refused(state, f"play:{hand[0]}", "not_now", "discarding")
    refused(state, "end", "not_now")
    for extra in range(T.equipment[armour].hand):
        state = run(state, f"discard:{hand[extra]}")
    assert state.phase is Phase.BATTLE
    assert len(state.seats[0].hand) == 4
    assert state.seats[0].discard == tuple(hand[:T.equipment[armour].hand])


def test_r23_no_discard_when_hand_already_fits() -> None:
    target = cursed("armour")
    armour = hand_armour(target)
    state = battle(target, "hor1", "hor2", "hor3", "hor4", armour=armour)
    assert state.phase is Phase.BATTLE


def test_r23_no_discard_without_curse() -> None:
    armour = hand_armour("")
    target = monster_without("armour", armour)
    hand = list(T.hero_cards["horan"][:5])
    state = battle(target, *hand, armour=armour)
    assert state.phase is Phase.BATTLE


def monster_without(curse: str, *exclude: str) -> str:
    from .helpers import monster

    return monster(lambda m: curse not in m.curses and m.level == 1 and not m.gatekeeper,
                   f"not cursing {curse}", exclude=exclude)


def test_r23_weapon_hand_bonus_also_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    # The catalogue may have no weapon with a hand-size bonus; give one a +1 for this test.
    import engine.battle

    target = cursed("weapon")
    weapon = gear("weapon", lambda e: True, "any", exclude=(target,))
    patched = replace(T, equipment={**T.equipment,
                                    weapon: replace(T.equipment[weapon], hand=1)})
    monkeypatch.setattr(engine.battle, "tables", lambda: patched)
    hand = list(T.hero_cards["horan"][:5])
    state = battle(target, *hand, weapon=weapon)
    assert hand_size(state.seats[0]) == 5
    assert state.phase is Phase.DISCARD
    state = run(state, f"discard:{hand[0]}")
    assert state.phase is Phase.BATTLE


def test_r23_cursed_equipment_heal_after_ignored() -> None:
    target = cursed("armour")
    armour = gear("armour", lambda e: e.heal > 0, "healing after battle", exclude=(target,))
    t = totals(battle(target, armour=armour, hp=3))
    assert t.heal_after == 0


def test_r23_discard_choice_is_any_card() -> None:
    target = cursed("armour")
    armour = hand_armour(target)
    hand = list(T.hero_cards["horan"][:4 + T.equipment[armour].hand])
    state = battle(target, *hand, armour=armour)
    chosen = hand[4:]  # the last cards, not the first ones
    state = run(state, *(f"discard:{c}" for c in chosen))
    assert state.seats[0].discard == tuple(chosen)
    assert state.seats[0].hand == tuple(hand[:4])
    refused(state, f"discard:{hand[0]}", "not_now")


def test_r22_heal_curse_leaves_equipment_heal() -> None:
    target = cursed("heal")
    armour = gear("armour", lambda e: e.heal > 0, "healing after battle", exclude=(target,))
    t = totals(battle(target, armour=armour, hp=5))
    assert not t.knocked_out and t.heal_after == T.equipment[armour].heal


def test_r23_discard_down_to_what_uncursed_equipment_allows(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # an armour curse with a weapon that also gives +1 (patched): discard down to 5, not 4
    import engine.battle

    target = cursed("armour")
    armour = hand_armour(target)
    weapon = gear("weapon", lambda e: True, "any", exclude=(target,))
    patched = replace(T, equipment={**T.equipment,
                                    weapon: replace(T.equipment[weapon], hand=1)})
    monkeypatch.setattr(engine.battle, "tables", lambda: patched)
    hand = list(T.hero_cards["horan"])
    state = battle(target, *hand, armour=armour, weapon=weapon)
    assert state.phase is Phase.DISCARD
    state = run(state, f"discard:{hand[0]}")
    assert state.phase is Phase.BATTLE and len(state.seats[0].hand) == 5
