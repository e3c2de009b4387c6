"""R61-R63, R65 and D4/D6: the hero abilities variant within a battle's chain of cards: Argentus
playing a blue card off the chain, Horan's bonus for two attack cards in a row, Xanros using a
cursed colour or effect once, Victorius's second card of any colour."""

from __future__ import annotations

from engine import apply, parse, totals

from .helpers import (
    attack_pair,
    battle,
    card,
    cards,
    cursed,
    gear,
    info,
    legal,
    name,
    plain,
    refused,
    run,
)

# ---------------------------------------------------------------- R61 Argentus


def argentus_case(target: str) -> tuple[str, str, str]:
    """A first card not allowing blue, then two blue cards."""
    first = card(lambda a: "blue" not in a.next and a.colour != "blue", "not allowing blue",
                 exclude=(target,))
    blues = cards(lambda a: a.colour == "blue", exclude=(target, first))
    return first, blues[0], blues[1]


def test_r61_argentus_plays_blue_off_the_chain_once() -> None:
    target = plain(1)
    first, blue, _ = argentus_case(target)
    state = run(battle(target, first, blue, hero="argentus", abilities=True), f"play:{first}")
    assert state.battle is not None and not state.battle.ability_used
    assert f"play:{blue}" in legal(state)
    state, events = apply(state, parse(f"play:{blue}"))
    assert state.battle is not None and state.battle.ability_used
    assert state.battle.chain == (first, blue)
    assert any(e.text.key == "event.ability" for e in events)


def test_r61_argentus_only_blue() -> None:
    target = plain(1)
    first = card(lambda a: len(a.next) < 4, "restricting", exclude=(target,))
    other = card(lambda a: a.colour != "blue" and a.colour not in info(first).next,
                 "off chain, not blue", exclude=(target, first))
    state = run(battle(target, first, other, hero="argentus", abilities=True), f"play:{first}")
    refused(state, f"play:{other}", "wrong_colour")


def test_r61_argentus_never_against_blue_curse() -> None:
    target = cursed("blue")
    first, blue, _ = argentus_case(target)
    state = run(battle(target, first, blue, hero="argentus", abilities=True), f"play:{first}")
    refused(state, f"play:{blue}", "colour_cursed", "blue")


def test_r61_argentus_without_the_variant() -> None:
    target = plain(1)
    first, blue, _ = argentus_case(target)
    state = run(battle(target, first, blue, hero="argentus"), f"play:{first}")
    refused(state, f"play:{blue}", "wrong_colour")


def test_r61_argentus_once_per_battle() -> None:
    target = plain(1)
    first = card(lambda a: "blue" not in a.next and a.colour != "blue", "not allowing blue",
                 exclude=(target,))
    blue = card(lambda a: a.colour == "blue" and bool(a.next - {"blue"}), "blue",
                exclude=(target, first))
    again = card(lambda a: a.colour in info(blue).next and "blue" not in a.next
                 and a.colour != "blue", "leading away from blue", exclude=(target, first, blue))
    blue2 = card(lambda a: a.colour == "blue", "blue", exclude=(target, first, blue, again))
    state = run(battle(target, first, blue, again, blue2, hero="argentus", abilities=True),
                f"play:{first}", f"play:{blue}", f"play:{again}")
    refused(state, f"play:{blue2}", "ability_used")


# ---------------------------------------------------------------- R62 Horan


def test_r62_horan_two_attack_cards_in_a_row() -> None:
    target = plain(1)
    a, b = attack_pair(target)
    state = run(battle(target, a, b, hero="horan", abilities=True), f"play:{a}")
    assert totals(state).attack_ability == 0
    state = run(state, f"play:{b}")
    t = totals(state)
    assert t.attack_ability == 1 and t.attack == info(a).attack + info(b).attack + 1


def test_r62_horan_once_per_battle() -> None:
    target = plain(1)
    a, b = attack_pair(target)
    c = card(lambda x: x.attack > 0 and x.colour in info(b).next, "third attack",
             exclude=(target, a, b))
    state = run(battle(target, a, b, c, hero="horan", abilities=True),
                f"play:{a}", f"play:{b}", f"play:{c}")
    assert totals(state).attack_ability == 1


def test_r62_horan_not_when_interrupted() -> None:
    target = plain(1)
    for a in cards(lambda x: x.attack > 0, exclude=(target,)):
        mids = cards(lambda x, a=a: x.attack == 0 and x.colour in info(a).next,
                     exclude=(target, a))
        for m in mids:
            ends = cards(lambda x, m=m: x.attack > 0 and x.colour in info(m).next,
                         exclude=(target, a, m))
            if ends:
                state = run(battle(target, a, m, ends[0], hero="horan", abilities=True),
                            f"play:{a}", f"play:{m}", f"play:{ends[0]}")
                assert totals(state).attack_ability == 0
                return
    raise AssertionError("no attack, non-attack, attack chain")


def test_r62_horan_without_the_variant() -> None:
    target = plain(1)
    a, b = attack_pair(target)
    state = run(battle(target, a, b, hero="horan"), f"play:{a}", f"play:{b}")
    assert totals(state).attack_ability == 0


def test_r62_d6_horan_bonus_survives_attack_curse() -> None:
    target = cursed("attack")
    a, b = attack_pair(target)
    state = run(battle(target, a, b, hero="horan", abilities=True), f"play:{a}", f"play:{b}")
    t = totals(state)
    assert t.attack_cards == 0 and t.attack_ability == 1 and t.attack == 1


# ---------------------------------------------------------------- R63 Xanros


def test_r63_xanros_plays_one_card_of_a_cursed_colour() -> None:
    target = cursed("red")
    reds = cards(lambda a: a.colour == "red" and "red" in a.next, exclude=(target,))
    first = reds[0]
    second = card(lambda a: a.colour == "red", "red", exclude=(target, first))
    state = battle(target, first, second, hero="xanros", abilities=True)
    assert f"play:{first}" in legal(state)
    state = run(state, f"play:{first}")
    assert state.battle is not None and state.battle.ability_used
    refused(state, f"play:{second}", "colour_cursed", "red")


def test_r63_xanros_cursed_colour_must_still_follow() -> None:
    target = cursed("red")
    first = card(lambda a: "red" not in a.next and a.colour != "red", "not allowing red",
                 exclude=(target,))
    red = card(lambda a: a.colour == "red", "red", exclude=(target, first))
    state = run(battle(target, first, red, hero="xanros", abilities=True), f"play:{first}")
    assert f"play:{red}" not in legal(state)


def test_r63_xanros_counts_one_cursed_effect() -> None:
    target = cursed("attack")
    a, b = attack_pair(target)
    state = battle(target, a, b, hero="xanros", abilities=True)
    assert f"play:{a}:attack" in legal(state) and f"play:{a}" in legal(state)
    state = run(state, f"play:{a}:attack")
    assert totals(state).attack_cards == info(a).attack
    assert f"play:{b}:attack" not in legal(state)
    refused(state, f"play:{b}:attack", "ability_used")
    state = run(state, f"play:{b}")
    assert totals(state).attack_cards == info(a).attack  # b's attack stays cursed


def test_r63_xanros_counts_a_cursed_draw() -> None:
    target = cursed("draw")
    d = card(lambda a: a.draw > 0, "drawing", exclude=(target,))
    state = run(battle(target, d, hero="xanros", abilities=True), f"play:{d}:draw")
    assert len(state.seats[0].hand) == info(d).draw


def test_r63_xanros_only_a_cursed_effect() -> None:
    target = cursed("attack")
    d = card(lambda a: a.defence > 0, "defending", exclude=(target,))
    state = battle(target, d, hero="xanros", abilities=True)
    refused(state, f"play:{d}:defence", "effect_not_cursed", "defence")


def test_r63_xanros_never_against_equipment_curses() -> None:
    target = cursed("weapon")
    weapon = gear("weapon", lambda e: e.attack > 0, "attacking", exclude=(target,))
    a = card(lambda x: x.attack > 0, "attacking", exclude=(target, weapon))
    state = battle(target, a, hero="xanros", abilities=True, weapon=weapon)
    assert not any(x.count(":") == 2 for x in legal(state))
    state = run(state, f"play:{a}")
    assert totals(state).attack_equipment == 0


def test_r63_xanros_without_the_variant() -> None:
    target = cursed("attack")
    a, _ = attack_pair(target)
    state = battle(target, a, hero="xanros")
    refused(state, f"play:{a}:attack", "no_ability")
    red_target = cursed("red")
    red = card(lambda x: x.colour == "red", "red", exclude=(red_target,))
    refused(battle(red_target, red, hero="xanros"), f"play:{red}", "colour_cursed")


def test_r63_xanros_effect_must_be_on_the_card() -> None:
    target = cursed("attack")
    d = card(lambda a: a.attack == 0, "without attack", exclude=(target,))
    state = battle(target, d, hero="xanros", abilities=True)
    refused(state, f"play:{d}:attack", "no_effect", name(d), "attack")


def test_r63_xanros_ability_card_must_follow_the_chain() -> None:
    target = cursed("attack")
    first = card(lambda a: len(a.next) < 4, "restricting", exclude=(target,))
    off = card(lambda a: a.attack > 0 and a.colour not in info(first).next, "off chain",
               exclude=(target, first))
    state = run(battle(target, first, off, hero="xanros", abilities=True), f"play:{first}")
    refused(state, f"play:{off}:attack", "wrong_colour", name(first))


# ---------------------------------------------------------------- R65 Victorius


def test_r65_victorius_second_card_any_colour() -> None:
    target = plain(1)
    first = card(lambda a: len(a.next) < 4, "restricting", exclude=(target,))
    off = card(lambda a: a.colour not in info(first).next, "off chain", exclude=(target, first))
    state = run(battle(target, first, off, hero="victorius", abilities=True), f"play:{first}")
    assert f"play:{off}" in legal(state)
    run(state, f"play:{off}")


def test_r65_victorius_third_card_follows_again() -> None:
    target = plain(1)
    first = card(lambda a: len(a.next) < 4, "restricting", exclude=(target,))
    second = card(lambda a: a.colour not in info(first).next and len(a.next) < 4, "off chain",
                  exclude=(target, first))
    third = card(lambda a: a.colour not in info(second).next, "off the second",
                 exclude=(target, first, second))
    state = run(battle(target, first, second, third, hero="victorius", abilities=True),
                f"play:{first}", f"play:{second}")
    refused(state, f"play:{third}", "wrong_colour", name(second))


def test_r65_victorius_second_card_not_cursed() -> None:
    target = cursed("red")
    first = card(lambda a: a.colour != "red", "not red", exclude=(target,))
    red = card(lambda a: a.colour == "red", "red", exclude=(target, first))
    state = run(battle(target, first, red, hero="victorius", abilities=True), f"play:{first}")
    refused(state, f"play:{red}", "colour_cursed", "red")


def test_r65_victorius_without_the_variant() -> None:
    target = plain(1)
    first = card(lambda a: len(a.next) < 4, "restricting", exclude=(target,))
    off = card(lambda a: a.colour not in info(first).next, "off chain", exclude=(target, first))
    state = run(battle(target, first, off, hero="victorius"), f"play:{first}")
    refused(state, f"play:{off}", "wrong_colour")
