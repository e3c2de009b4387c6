"""R14-R20: playing action cards in a battle."""

from __future__ import annotations

from engine import Phase, apply, parse, totals
from engine.state import MAX_HP

from .helpers import (
    COLOURS,
    T,
    battle,
    card,
    cards,
    cursed,
    info,
    legal,
    mon,
    name,
    plain,
    refused,
    run,
)


def one_of_each_colour(exclude: tuple[str, ...] = ()) -> list[str]:
    return [card(lambda a, c=c: a.colour == c, f"{c}", exclude=exclude) for c in COLOURS]


def test_r14_first_card_any_uncursed_colour() -> None:
    target = plain(1)
    hand = one_of_each_colour((target,))
    state = battle(target, *hand)
    assert {f"play:{c}" for c in hand} <= legal(state)


def test_r14_first_card_not_of_a_cursed_colour() -> None:
    target = cursed("red")
    hand = one_of_each_colour((target,))
    state = battle(target, *hand)
    red = hand[COLOURS.index("red")]
    refused(state, f"play:{red}", "colour_cursed", "red", name(target, monster=True))
    assert {f"play:{c}" for c in hand if c != red} <= legal(state)


def test_r14_any_number_of_cards_including_none() -> None:
    target = plain(1)
    state = battle(target, *one_of_each_colour((target,)))
    assert "end" in legal(state)
    after = run(state, "end")
    assert after.phase is Phase.TURN and after.current == 1


def test_r15_next_card_must_follow_the_chain() -> None:
    target = plain(1)
    first = card(lambda a: len(a.next) < 4, "with a restricted chain", exclude=(target,))
    nope = card(lambda a: a.colour not in info(first).next, "off the chain",
                exclude=(target, first))
    good = card(lambda a: a.colour in info(first).next, "on the chain", exclude=(target, first))
    state = run(battle(target, first, nope, good), f"play:{first}")
    refused(state, f"play:{nope}", "wrong_colour", name(first), info(nope).colour)
    assert f"play:{good}" in legal(state)


def test_r15_follows_the_card_played_immediately_before() -> None:
    target = plain(1)
    # a, then b allowed by a; c allowed by a but not by b
    for a in cards(lambda x: True, exclude=(target,)):
        na = info(a).next
        for b in cards(lambda x, na=na: x.colour in na, exclude=(target, a)):
            nb = info(b).next
            cs = cards(lambda x, na=na, nb=nb: x.colour in na and x.colour not in nb,
                       exclude=(target, a, b))
            if cs:
                c = cs[0]
                state = run(battle(target, a, b, c), f"play:{a}", f"play:{b}")
                refused(state, f"play:{c}", "wrong_colour", name(b))
                return
    raise AssertionError("no three cards to show R15")


def test_r15_next_colour_still_refused_when_cursed() -> None:
    monster = cursed("blue")
    first = card(lambda a: "blue" in a.next and a.colour != "blue", "allowing blue",
                 exclude=(monster,))
    blue = card(lambda a: a.colour == "blue", "blue", exclude=(monster, first))
    state = run(battle(monster, first, blue), f"play:{first}")
    refused(state, f"play:{blue}", "colour_cursed", "blue")


def test_r16_draw_resolves_when_played() -> None:
    target = plain(1)
    drawer = card(lambda a: a.draw == 1, "drawing one", exclude=(target,))
    state = battle(target, drawer, hero="horan")
    top = state.seats[0].deck[0]
    state = run(state, f"play:{drawer}")
    assert state.seats[0].hand == (top,)
    assert state.battle is not None and state.battle.chain == (drawer,)


def test_r16_heal_resolves_when_played() -> None:
    target = plain(1)
    healer = card(lambda a: a.heal >= 1, "healing", exclude=(target,))
    state = run(battle(target, healer, hp=2), f"play:{healer}")
    assert state.seats[0].hp == min(MAX_HP, 2 + info(healer).heal)


def test_r16_attack_and_defence_summed_at_the_end() -> None:
    target = plain(1)
    a = card(lambda x: x.attack > 0, "attacking", exclude=(target,))
    b = card(lambda x: x.colour in info(a).next and (x.attack or x.defence), "following",
             exclude=(target, a))
    state = run(battle(target, a, b, hp=5), f"play:{a}", f"play:{b}")
    assert state.seats[0].hp == 5  # no hits until the battle ends
    t = totals(state)
    assert t.attack_cards == info(a).attack + info(b).attack
    assert t.defence_cards == info(a).defence + info(b).defence


def test_r17_draw_takes_the_top_of_the_deck() -> None:
    target = plain(1)
    drawer = card(lambda a: a.draw == 1, "drawing one", exclude=(target,))
    deck = ["hor3", "hor1", "hor2"]
    state = run(battle(target, drawer, deck=deck), f"play:{drawer}")
    assert state.seats[0].hand == ("hor3",)
    assert state.seats[0].deck[:2] == ("hor1", "hor2")


def test_r17_empty_deck_shuffles_the_discard_first() -> None:
    target = plain(1)
    drawer = card(lambda a: a.draw == 1, "drawing one", exclude=(target,))
    discard = ["hor1", "hor2", "hor3", "hor4", "hor5", "hor6"]
    state = run(battle(target, drawer, deck=[], discard=discard), f"play:{drawer}")
    seat = state.seats[0]
    assert seat.discard == ()
    assert len(seat.hand) == 1 and len(seat.deck) == 5
    assert sorted(seat.hand + seat.deck) == sorted(discard)


def test_r17_no_reshuffle_while_the_deck_has_cards() -> None:
    target = plain(1)
    drawer = card(lambda a: a.draw == 1, "drawing one", exclude=(target,))
    state = run(battle(target, drawer, "hor4", "hor5", "hor6", deck=["hor1"],
                       discard=["hor2", "hor3"]), f"play:{drawer}")
    assert state.seats[0].hand == ("hor4", "hor5", "hor6", "hor1")
    assert state.seats[0].discard == ("hor2", "hor3") and state.seats[0].deck == ()


def test_r17_cards_in_play_are_not_shuffled_in() -> None:
    target = plain(1)
    first = card(lambda a: a.draw == 0, "not drawing", hero="horan", exclude=(target,))
    drawer = card(lambda a: a.draw >= 1 and a.colour in info(first).next, "drawing next",
                  exclude=(target, first))
    hand = [first, drawer]
    rest = [c for c in T.hero_cards["horan"] if c not in hand]
    state = run(battle(target, *hand, *rest[2:], deck=[], discard=rest[:2]),
                f"play:{first}", f"play:{drawer}")
    seat = state.seats[0]
    assert state.battle is not None and state.battle.chain == (first, drawer)
    assert first not in seat.deck + seat.hand and drawer not in seat.deck + seat.hand


def test_r17_both_empty_draw_is_skipped() -> None:
    target = plain(1)
    drawer = card(lambda a: a.draw >= 1, "drawing", exclude=(target,))
    hand = [drawer, *T.hero_cards["horan"]]
    state = run(battle(target, *hand, deck=[], discard=[]), f"play:{drawer}")
    seat = state.seats[0]
    assert len(seat.hand) == 6 and seat.deck == () and seat.discard == ()
    assert state.phase is Phase.BATTLE


def test_r17_drawn_cards_can_be_played_this_battle() -> None:
    target = plain(1)
    drawer = card(lambda a: a.draw >= 1, "drawing", exclude=(target,))
    follow = card(lambda a: a.colour in info(drawer).next, "following the drawer",
                  exclude=(target, drawer))
    state = run(battle(target, drawer, deck=[follow]), f"play:{drawer}")
    assert f"play:{follow}" in legal(state)
    state = run(state, f"play:{follow}")
    assert state.battle is not None and state.battle.chain == (drawer, follow)


def test_r17_draw_two_reshuffles_midway() -> None:
    target = plain(1)
    drawer = card(lambda a: a.draw >= 2, "drawing two", exclude=(target,))
    state = run(battle(target, drawer, *T.hero_cards["horan"][3:], deck=["hor1"],
                       discard=["hor2", "hor3"]), f"play:{drawer}")
    seat = state.seats[0]
    assert seat.hand[3] == "hor1" and seat.hand[4] in ("hor2", "hor3")
    assert len(seat.deck) == 1 and seat.discard == ()


def test_r18_heal_up_to_five_excess_lost() -> None:
    target = plain(1)
    healer = card(lambda a: a.heal >= 2, "healing two", exclude=(target,))
    state = run(battle(target, healer, hp=4), f"play:{healer}")
    assert state.seats[0].hp == MAX_HP
    assert totals(state).defence_cards == info(healer).defence  # excess not stored as defence


def test_r18_no_healing_told_at_full_hp() -> None:
    target = plain(1)
    healer = card(lambda a: a.heal >= 1, "healing", exclude=(target,))
    _, events = apply(battle(target, healer, hp=MAX_HP), parse(f"play:{healer}"))
    assert "event.play" in [e.text.key for e in events]
    assert "event.heal" not in [e.text.key for e in events]  # no "heals 0 HP"


def test_r19_stop_whenever() -> None:
    target = plain(1)
    a = card(lambda x: x.attack > 0, "attacking", exclude=(target,))
    state = run(battle(target, a, hp=5), f"play:{a}")
    assert "end" in legal(state)


def test_r19_stop_when_nothing_can_be_played() -> None:
    target = cursed("green")
    greens = cards(lambda a: a.colour == "green", exclude=(target,))[:2]
    state = battle(target, *greens)
    assert legal(state) == {"end"}


def test_r20_all_effects_of_one_card_apply() -> None:
    target = plain(1)
    both = card(lambda a: a.attack > 0 and a.draw > 0, "attacking and drawing",
                exclude=(target,))
    state = run(battle(target, both, deck=["hor1", "hor2"]), f"play:{both}")
    assert state.seats[0].hand == ("hor1",)
    assert totals(state).attack_cards == info(both).attack


def test_r20_heal_and_defence_of_one_card() -> None:
    target = plain(1, lambda m: m.attack >= 1)
    both = card(lambda a: a.heal > 0 and a.defence > 0, "healing and defending",
                hero="argentus", exclude=(target,))
    state = run(battle(target, both, hero="argentus", hp=3), f"play:{both}")
    assert state.seats[0].hp == 3 + info(both).heal
    t = totals(state)
    assert t.defence_cards == info(both).defence
    assert t.damage == max(0, mon(target).attack - info(both).defence)
