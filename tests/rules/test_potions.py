"""R33-R35 (and R8): countercurse, strength and healing potions."""

from __future__ import annotations

from engine import Phase, totals
from engine.position import SeatSetup, position

from .helpers import (
    T,
    battle,
    card,
    cursed,
    gear,
    info,
    legal,
    mon,
    monster,
    name,
    plain,
    refused,
    run,
)


def test_r33_countercurse_lifts_a_colour_curse() -> None:
    target = cursed("red")
    red = card(lambda a: a.colour == "red", "red", exclude=(target,))
    state = battle(target, red, potions=["countercurse"])
    assert "counter:red" in legal(state)
    state = run(state, "counter:red")
    assert f"play:{red}" in legal(state)
    assert state.seats[0].potions == () and state.potions[2] == 4  # back to the merchant


def test_r33_countercurse_lifts_an_effect_curse_midway() -> None:
    target = cursed("attack")
    a = card(lambda x: x.attack > 0, "attacking", exclude=(target,))
    state = run(battle(target, a, potions=["countercurse"]), f"play:{a}")
    assert totals(state).attack_cards == 0
    state = run(state, "counter:attack")
    assert totals(state).attack_cards == info(a).attack


def test_r33_countercurse_before_first_card_avoids_the_discard() -> None:
    target = cursed("armour")
    armour = gear("armour", lambda e: e.hand > 0, "with a hand-size bonus", exclude=(target,))
    hand = list(T.hero_cards["horan"][:4 + T.equipment[armour].hand])
    state = battle(target, *hand, armour=armour, potions=["countercurse"])
    assert state.phase is Phase.DISCARD and "counter:armour" in legal(state)
    state = run(state, "counter:armour")
    assert state.phase is Phase.BATTLE and state.seats[0].hand == tuple(hand)


def test_r33_choice_of_one_curse_when_several() -> None:
    target = monster(lambda m: len(m.curses) >= 2, "with two curses")
    state = battle(target, potions=["countercurse"])
    curses = mon(target).curses
    assert {f"counter:{c}" for c in curses} <= legal(state)
    state = run(state, f"counter:{curses[0]}")
    assert state.battle is not None and state.battle.countered == curses[0]
    assert not any(a.startswith("counter:") for a in legal(state))
    refused(state, f"counter:{curses[1]}", "no_potion", "countercurse")


def test_r33_only_a_curse_the_monster_has() -> None:
    target = cursed("red")
    state = battle(target, potions=["countercurse"])
    refused(state, "counter:blue", "no_such_curse", "blue", name(target, monster=True))


def test_r33_countercurse_only_in_battle() -> None:
    state = position(SeatSetup("horan", potions=["countercurse"]), "taia")
    refused(state, "counter:red", "not_now")
    target = cursed("red")
    refused(battle(target), "counter:red", "no_potion", "countercurse potion")


def test_r34_strength_doubles_attack_of_last_card() -> None:
    target = plain(1)
    a = card(lambda x: x.attack > 0 and x.defence == 0, "only attacking", exclude=(target,))
    state = run(battle(target, a, potions=["strength"]), f"play:{a}")
    assert "strength:attack" in legal(state) and "strength:defence" not in legal(state)
    state = run(state, "strength:attack")
    assert totals(state).attack_cards == 2 * info(a).attack
    assert state.seats[0].potions == () and state.potions[0] == 4


def test_r34_choice_when_the_card_has_both() -> None:
    target = plain(1)
    both = card(lambda x: x.attack > 0 and x.defence > 0, "attacking and defending",
                exclude=(target,))
    state = run(battle(target, both, potions=["strength"]), f"play:{both}")
    assert {"strength:attack", "strength:defence"} <= legal(state)
    doubled = totals(run(state, "strength:defence"))
    assert doubled.defence_cards == 2 * info(both).defence
    assert doubled.attack_cards == info(both).attack


def test_r34_needs_a_card_played_first() -> None:
    target = plain(1)
    state = battle(target, "hor1", potions=["strength"])
    refused(state, "strength:attack", "strength_needs_card", "right after")


def test_r34_card_without_that_effect() -> None:
    target = plain(1)
    d = card(lambda x: x.attack == 0 and x.defence > 0, "only defending", exclude=(target,))
    state = run(battle(target, d, potions=["strength"]), f"play:{d}")
    refused(state, "strength:attack", "strength_no_effect", name(d), "attack")


def test_r34_only_the_last_card() -> None:
    target = plain(1)
    a = card(lambda x: x.attack > 0, "attacking", exclude=(target,))
    b = card(lambda x: x.colour in info(a).next and x.attack > 0, "next attacking",
             exclude=(target, a))
    state = run(battle(target, a, b, potions=["strength"]), f"play:{a}", f"play:{b}",
                "strength:attack")
    assert totals(state).attack_cards == info(a).attack + 2 * info(b).attack


def test_r34_never_doubles_equipment() -> None:
    target = plain(1)
    weapon = gear("weapon", lambda e: e.attack > 0, "attacking", exclude=(target,))
    a = card(lambda x: x.attack > 0, "attacking", exclude=(target, weapon))
    state = run(battle(target, a, weapon=weapon, potions=["strength"]), f"play:{a}",
                "strength:attack")
    assert totals(state).attack_equipment == T.equipment[weapon].attack


def test_r34_cursed_effect_stays_ignored() -> None:
    target = cursed("attack")
    a = card(lambda x: x.attack > 0, "attacking", exclude=(target,))
    state = run(battle(target, a, potions=["strength"]), f"play:{a}", "strength:attack")
    assert totals(state).attack_cards == 0


def test_r35_healing_restores_five_on_own_turn() -> None:
    state = position(SeatSetup("horan", hp=1, potions=["healing"]), "taia")
    state = run(state, "heal")
    assert state.seats[0].hp == 5 and state.phase is Phase.TURN and state.current == 0
    assert state.potions[1] == 4


def test_r35_healing_in_battle_before_the_hits() -> None:
    target = plain(1)
    state = run(battle(target, hp=2, potions=["healing"]), "heal")
    assert state.seats[0].hp == 5 and state.phase is Phase.BATTLE


def test_r35_healing_after_the_hits() -> None:
    target = monster(lambda m: m.reward == "weapon" and not m.gatekeeper and m.attack <= 4,
                     "a weapon reward", level=1)
    from .helpers import chain

    cards = chain(target, attack=mon(target).hp)
    damage = max(0, mon(target).attack - sum(info(c).defence for c in cards))
    assert damage <= 4
    state = run(battle(target, *cards, hp=damage + 1, potions=["healing"]),
                *(f"play:{c}" for c in cards), "end")
    assert state.phase is Phase.REWARD and state.seats[0].hp == 1
    state = run(state, "heal")
    assert state.seats[0].hp == 5 and state.phase is Phase.REWARD


def test_r35_healing_at_the_merchant() -> None:
    state = run(position(SeatSetup("horan", hp=3, potions=["healing"]), "taia"), "merchant")
    assert "heal" in legal(state)


def test_r35_never_after_losing_the_last_hp() -> None:
    state = position(SeatSetup("horan", hp=0, potions=["healing"]), "taia")
    refused(state, "heal", "no_hp", "revive")


def test_r35_not_at_full_hp() -> None:
    state = position(SeatSetup("horan", hp=5, potions=["healing"]), "taia")
    refused(state, "heal", "full_hp")


def test_r35_not_without_the_potion() -> None:
    refused(position(SeatSetup("horan", hp=2), "taia"), "heal", "no_potion", "healing potion")


def test_r35_not_while_paying() -> None:
    weapon = gear("weapon", lambda e: True, "any")
    state = run(position(SeatSetup("horan", hp=2, weapon=weapon, potions=["healing"]), "taia"),
                "merchant", "buy:potion:strength")
    assert state.phase is Phase.PAY
    refused(state, "heal", "not_now", "pay")
