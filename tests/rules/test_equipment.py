"""R30-R32: equipment, keys, potions held; what counts as a reward card."""

from __future__ import annotations

from dataclasses import replace

import pytest
from msgspec.structs import replace as struct_replace

from engine import BadState, totals
from engine.battle import hand_size
from engine.position import PositionError, SeatSetup, position
from engine.state import Seat
from engine.validate import check_state

from .helpers import T, battle, gear, plain, refused, run


def test_r30_equipment_never_in_hand_or_deck() -> None:
    weapon = gear("weapon", lambda e: True, "any")
    state = position(SeatSetup("horan", weapon=weapon), "taia")
    seat = state.seats[0]
    assert weapon not in seat.hand + seat.deck + seat.discard
    bad = state.with_seat(0, struct_replace(seat, weapon=None, hand=seat.hand + (weapon,)))
    with pytest.raises(BadState, match="non-action card"):
        check_state(bad)
    with pytest.raises(PositionError, match="not an action card"):
        position(SeatSetup("horan", hand=[weapon]), "taia")


def test_r30_one_weapon_one_armour() -> None:
    weapon = gear("weapon", lambda e: True, "any")
    armour = gear("armour", lambda e: True, "any")
    state = position(SeatSetup("horan", weapon=weapon, armour=armour), "taia")
    with pytest.raises(BadState, match="is not a weapon"):
        swapped = struct_replace(state.seats[0], weapon=armour, armour=weapon)
        check_state(state.with_seat(0, swapped))
    with pytest.raises(PositionError, match="is not a armour"):
        position(SeatSetup("horan", armour=weapon), "taia")


def test_r30_one_key_per_level() -> None:
    state = position(SeatSetup("horan", keys=[1]), "taia")
    second = next(g for g in T.gatekeepers[1] if g not in state.seats[0].keys)
    with pytest.raises(PositionError, match="two keys of one level"):
        position(SeatSetup("horan", keys=[1, second]), "taia")
    doubled = struct_replace(state.seats[0], keys=state.seats[0].keys + (second,))
    levels = tuple(struct_replace(lv, gates=tuple(g for g in lv.gates if g != second))
                   for lv in state.levels)
    with pytest.raises(BadState, match="two keys of one level"):
        check_state(struct_replace(state.with_seat(0, doubled), levels=levels))


def test_r30_one_potion_of_each_kind() -> None:
    state = run(position(SeatSetup("horan", potions=["strength"], weapon=gear(
        "weapon", lambda e: True, "any")), "taia"), "merchant")
    refused(state, "buy:potion:strength", "potion_held", "potion of strength")
    with pytest.raises(PositionError, match="at most one"):
        position(SeatSetup("horan", potions=["healing", "healing"]), "taia")


def test_r31_weapon_attack_armour_defence() -> None:
    weapon = gear("weapon", lambda e: e.attack > 0, "attacking")
    armour = gear("armour", lambda e: e.defence > 0, "defending")
    target = plain(1, exclude=(weapon, armour))
    t = totals(battle(target, weapon=weapon, armour=armour))
    w, a = T.equipment[weapon], T.equipment[armour]
    assert t.attack_equipment == w.attack + a.attack
    assert t.defence_equipment == w.defence + a.defence


def test_r31_weapon_may_also_defend_or_heal() -> None:
    weapon = gear("weapon", lambda e: e.defence > 0 or e.heal > 0, "defending or healing")
    target = plain(1, exclude=(weapon,))
    t = totals(battle(target, weapon=weapon, hp=3))
    assert t.defence_equipment == T.equipment[weapon].defence
    assert t.heal_after == T.equipment[weapon].heal


def test_r31_hand_size_bonuses_add_up() -> None:
    armour = gear("armour", lambda e: e.hand > 0, "with a hand-size bonus")
    weapon = gear("weapon", lambda e: True, "any")
    seat = Seat(hero="horan", weapon=weapon, armour=armour)
    assert hand_size(seat) == 4 + T.equipment[armour].hand + T.equipment[weapon].hand
    # and with a weapon that also has one (patched: the catalogue may have none)
    import engine.battle

    patched = replace(T, equipment={**T.equipment, weapon: replace(T.equipment[weapon], hand=2)})
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(engine.battle, "tables", lambda: patched)
        assert hand_size(seat) == 4 + T.equipment[armour].hand + 2
    finally:
        mp.undo()


def test_r32_reward_cards_are_monster_backs() -> None:
    for hero, cards in T.hero_cards.items():
        assert not any(T.actions[c].reward for c in cards), hero
    rewards = {c for c, a in T.actions.items() if a.reward}
    assert rewards == {m.id for m in T.monsters.values() if m.reward == "action"}


def test_r32_only_reward_cards_pay() -> None:
    reward = next(c for c, a in T.actions.items() if a.reward)
    state = run(position(SeatSetup("horan", hand=["hor1", reward]), "taia"),
                "merchant", "buy:potion:healing")
    from .helpers import legal

    assert legal(state) == {f"pay:card:{reward}", "cancel", "undo"}
    refused(state, "pay:card:hor1", "starting_card_payment", "starting cards")
