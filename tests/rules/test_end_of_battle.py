"""R24-R28 and R60: hits, heal after battle, hitting the monster, rewards, end of turn."""

from __future__ import annotations

from engine import GameState, Phase, observe, state_from_json, state_to_json, totals
from engine.position import SeatSetup, position
from engine.state import MAX_HP
from engine.validate import check_state

from .helpers import (
    T,
    battle,
    card,
    chain,
    gear,
    info,
    legal,
    mon,
    monster,
    plain,
    refused,
    regular,
    run,
)


def play(state: GameState, *cards: str) -> GameState:
    return run(state, *(f"play:{c}" for c in cards))


def test_r24_damage_is_attack_minus_defence() -> None:
    target = plain(1, lambda m: m.attack >= 2)
    d = card(lambda a: 0 < a.defence < mon(target).attack, "defending a little",
             exclude=(target,))
    state = run(battle(target, d, hp=5), f"play:{d}", "end")
    assert state.seats[0].hp == 5 - (mon(target).attack - info(d).defence)


def test_r24_no_hits_when_defence_covers_the_attack() -> None:
    target = plain(1)
    cards = chain(target, defence=mon(target).attack)
    state = run(play(battle(target, *cards, hp=2), *cards), "end")
    assert state.seats[0].hp == 2


def test_r24_equipment_defence_counts() -> None:
    target = plain(1, lambda m: m.attack >= 2)
    armour = gear("armour", lambda e: 0 < e.defence and e.heal == 0, "defending",
                  exclude=(target,))
    state = run(battle(target, armour=armour, hp=5), "end")
    assert state.seats[0].hp == 5 - max(0, mon(target).attack - T.equipment[armour].defence)


def test_r24_last_hp_is_a_defeat_even_with_enough_attack() -> None:
    target = plain(1, lambda m: m.attack >= 1)
    cards = chain(target, attack=mon(target).hp)
    hp = mon(target).attack - sum(info(c).defence for c in cards)
    assert hp >= 1, "pick a chain without defence"
    state = play(battle(target, *cards, hp=hp), *cards)
    t = totals(state)
    assert t.knocked_out and not t.win and t.attack >= mon(target).hp
    before = state.levels[0]
    state = run(state, "end")
    seat = state.seats[0]
    assert seat.hp == 0
    assert state.levels[0] == before  # the monster stays, no reward
    assert target not in seat.discard and state.phase is Phase.TURN and state.current == 1


def test_r24_last_hp_skips_heal_after_battle() -> None:
    armour = gear("armour", lambda e: e.heal > 0, "healing after battle")
    target = plain(1, lambda m: m.attack > T.equipment[armour].defence, exclude=(armour,))
    hp = mon(target).attack - T.equipment[armour].defence
    state = battle(target, armour=armour, hp=hp)
    t = totals(state)
    assert t.knocked_out and t.heal_after == 0 and t.hp_after == 0
    assert run(state, "end").seats[0].hp == 0


def test_r25_heal_after_battle_after_hits_up_to_five() -> None:
    armour = gear("armour", lambda e: e.heal > 0, "healing after battle")
    eq = T.equipment[armour]
    target = plain(1, lambda m: m.attack > eq.defence, exclude=(armour,))
    damage = mon(target).attack - eq.defence
    state = run(battle(target, armour=armour, hp=5), "end")
    assert state.seats[0].hp == min(MAX_HP, 5 - damage + eq.heal)
    state = run(battle(target, armour=armour, hp=damage + 1), "end")
    assert state.seats[0].hp == min(MAX_HP, 1 + eq.heal)


def test_r25_heal_after_battle_also_on_a_win() -> None:
    weapon = gear("weapon", lambda e: e.heal > 0, "healing after battle")
    eq = T.equipment[weapon]
    target = plain(1, exclude=(weapon,))
    cards = chain(target, attack=max(0, mon(target).hp - eq.attack), exclude=(weapon,))
    defence = sum(info(c).defence for c in cards) + eq.defence
    hp = max(0, mon(target).attack - defence) + 1
    state = play(battle(target, *cards, weapon=weapon, hp=hp), *cards)
    t = totals(state)
    assert t.win and t.heal_after == eq.heal
    state = run(state, "end")
    assert state.seats[0].hp == min(MAX_HP, 1 + eq.heal)


def test_r26_attack_at_least_hp_wins() -> None:
    target = plain(1, lambda m: m.attack <= 4)
    cards = chain(target, attack=mon(target).hp)
    state = play(battle(target, *cards, hp=5), *cards)
    t = totals(state)
    assert t.attack >= mon(target).hp and t.win


def test_r26_attack_below_hp_loses_and_monster_stays() -> None:
    target = plain(1, lambda m: m.attack <= 4 and m.hp >= 3)
    weak = card(lambda a: 0 < a.attack < mon(target).hp, "attacking weakly", exclude=(target,))
    state = battle(target, weak, hp=5)
    row = state.levels[0].row
    state = run(state, f"play:{weak}", "end")
    assert state.levels[0].row == row
    assert target not in state.seats[0].discard
    assert state.seats[0].discard == (weak,)


def test_r26_exact_threshold_decides() -> None:
    # a single card whose attack equals some plain monster's hit points, and one a point short
    for target in [m for m in T.regular[1] if not mon(m).curses and mon(m).attack <= 4]:
        hp = mon(target).hp
        exact = [c for c in T.actions if T.actions[c].reward and T.actions[c].attack == hp
                 and c != target]
        short = [c for c in T.actions if T.actions[c].reward and T.actions[c].attack == hp - 1
                 and c != target]
        if exact and short:
            won = run(battle(target, exact[0], hp=5), f"play:{exact[0]}")
            lost = run(battle(target, short[0], hp=5), f"play:{short[0]}")
            assert totals(won).win and not totals(lost).win
            return
    raise AssertionError("no card pair shows the exact threshold")


def test_r26_gatekeeper_goes_back_on_top_after_a_loss() -> None:
    state = battle(T.gatekeepers[1][2])
    gates = state.levels[0].gates
    state = run(state, "end")
    assert state.levels[0].gates == gates and gates[0] == T.gatekeepers[1][2]


def win(target: str, hp: int = 5, **seat: object) -> GameState:
    cards = chain(target, attack=mon(target).hp)
    state = play(battle(target, *cards, hp=hp, **seat), *cards)
    assert totals(state).win
    return run(state, "end")


def easy(kind: str) -> str:
    return regular(1, lambda m: m.reward == kind and not m.curses and m.attack <= 3,
                   f"an easy {kind} reward")


def test_r27_action_reward_goes_to_discard() -> None:
    target = easy("action")
    state = win(target)
    assert target in state.seats[0].discard
    assert state.phase is Phase.TURN and state.current == 1


def test_r27_row_refilled_from_the_deck_top() -> None:
    target = easy("action")
    top = battle(target).levels[0].deck[0]
    lv = win(target).levels[0]
    assert lv.row[0] == top and lv.deck[0] != top and target not in lv.row


def test_r27_empty_deck_leaves_the_slot_empty() -> None:
    target = easy("action")
    cards = chain(target, attack=mon(target).hp)
    state = position(SeatSetup("horan", hand=cards), "taia", rows={1: [target] + [None] * 4},
                     decks={1: []}, exact_decks=[1], fight=target)
    state = run(play(state, *cards), "end")
    assert state.levels[0].row == (None,) * 5 and state.levels[0].deck == ()
    assert "fight:1-1" not in legal(state)


def test_r27_weapon_keep_replaces_old_into_pawnshop() -> None:
    target = regular(1, lambda m: m.reward == "weapon" and m.attack <= 3)
    old = gear("weapon", lambda e: True, "any", exclude=(target,))
    state = win(target, weapon=old)
    assert state.phase is Phase.REWARD and state.pending == target
    assert legal(state) >= {"reward:keep", "reward:pawn"}
    kept = run(state, "reward:keep")
    assert kept.seats[0].weapon == target and kept.pawnshop == (old,)
    assert kept.phase is Phase.TURN and kept.current == 1


def test_r27_reward_choice_shows_the_settled_battle() -> None:
    """While the keep-or-pawn choice is open, everyone sees the battle as it ended: the hits
    are not taken a second time from the HP they already left."""
    target = regular(1, lambda m: m.reward == "weapon" and 2 <= m.attack <= 3 and not m.curses,
                     "a weapon reward that hits")
    cards = chain(target, attack=mon(target).hp, exclude=(target,))
    fought = play(battle(target, *cards, hp=4), *cards)
    settled = totals(fought)
    assert settled.win and settled.damage > 0
    state = run(fought, "end")
    assert state.phase is Phase.REWARD
    assert state.seats[0].hp == settled.hp_after
    assert totals(state) == settled
    for viewer in (0, 1, None):
        view = observe(state, viewer).battle
        assert view is not None and view.totals == settled
    check_state(state)
    assert state_from_json(state_to_json(state)) == state


def test_r25_heal_after_battle_is_narrated_as_the_hp_it_gave() -> None:
    armour = gear("armour", lambda e: e.heal > 0, "healing after battle")
    eq = T.equipment[armour]
    target = plain(1, lambda m: m.attack <= eq.defence, exclude=(armour,))
    full = run(battle(target, armour=armour, hp=5), "end")
    assert full.seats[0].hp == 5
    assert not [e for e in full.log if e.text.key == "event.heal"]
    hurt = run(battle(target, armour=armour, hp=4), "end")
    heals = [dict(e.text.params)["count"] for e in hurt.log if e.text.key == "event.heal"]
    assert heals == [1] and hurt.seats[0].hp == 5


def test_r27_weapon_pawn_keeps_old() -> None:
    target = regular(1, lambda m: m.reward == "weapon" and m.attack <= 3)
    old = gear("weapon", lambda e: True, "any", exclude=(target,))
    pawned = run(win(target, weapon=old), "reward:pawn")
    assert pawned.seats[0].weapon == old and pawned.pawnshop == (target,)


def test_r27_armour_reward_into_empty_slot() -> None:
    target = monster(lambda m: m.reward == "armour" and not m.gatekeeper and m.attack <= 3,
                     "an armour reward", level=1)
    kept = run(win(target), "reward:keep")
    assert kept.seats[0].armour == target and kept.pawnshop == ()


def test_r27_key_kept() -> None:
    gate = min(T.gatekeepers[1], key=lambda g: (mon(g).hp, len(mon(g).curses)))
    state = win(gate)
    assert state.seats[0].keys == (gate,)
    assert gate not in state.levels[0].gates and len(state.levels[0].gates) == 4


def test_r27_keys_never_lost() -> None:
    target = plain(1, lambda m: m.attack >= 1)
    state = position(SeatSetup("horan", hand=[], hp=1, keys=[1, 2]), "taia", fight=target)
    state = run(state, "end")
    assert state.seats[0].hp == 0 and len(state.seats[0].keys) == 2
    state = run(state, "revive", "revive")
    assert len(state.seats[0].keys) == 2


def test_r28_played_cards_to_discard_then_draw_up_to_four() -> None:
    target = plain(1)
    cards = chain(target, attack=mon(target).hp, hero="horan")
    state = run(play(battle(target, *cards, hp=5), *cards), "end")
    seat = state.seats[0]
    assert set(cards) <= set(seat.discard)
    assert len(seat.hand) == 4


def test_r28_after_a_loss_too() -> None:
    target = plain(1, lambda m: m.attack <= 4 and m.hp >= 3)
    weak = card(lambda a: 0 < a.attack < mon(target).hp, "attacking weakly", exclude=(target,))
    state = run(battle(target, weak, hp=5), f"play:{weak}", "end")
    assert state.seats[0].discard == (weak,) and len(state.seats[0].hand) == 4


def test_r28_hand_size_bonus_draws_more() -> None:
    armour = gear("armour", lambda e: e.hand > 0, "with a hand-size bonus")
    target = plain(1, exclude=(armour,))
    state = run(battle(target, armour=armour), "end")
    assert len(state.seats[0].hand) == 4 + T.equipment[armour].hand


def test_r28_full_hand_neither_draws_nor_discards() -> None:
    target = plain(1)
    hand = list(T.hero_cards["horan"][:5])
    state = run(battle(target, *hand), "end")
    assert state.seats[0].hand == tuple(hand) and len(state.seats[0].deck) == 1


def test_r28_end_of_turn_draw_may_reshuffle_played_cards() -> None:
    target = plain(1)
    first = card(lambda a: True, "any", hero="horan", exclude=(target,))
    rest = [c for c in T.hero_cards["horan"] if c != first]
    state = battle(target, first, deck=[], discard=rest)
    state = run(state, f"play:{first}", "end")
    seat = state.seats[0]
    assert len(seat.hand) == 4 and seat.discard == ()
    assert sorted(seat.hand + seat.deck) == sorted(T.hero_cards["horan"])


def lord_win_state(lord: str) -> GameState:
    info_lord = mon(lord)
    weapon = max((e for e in T.equipment.values() if e.kind == "weapon"),
                 key=lambda e: e.attack)
    armour = max((e for e in T.equipment.values() if e.kind == "armour"),
                 key=lambda e: e.defence)
    w_att = 0 if "weapon" in info_lord.curses else weapon.attack
    a_def = 0 if "armour" in info_lord.curses else armour.defence
    cards = chain(lord, attack=info_lord.hp - w_att,
                  defence=max(0, info_lord.attack - a_def - 4),
                  exclude=(weapon.id, armour.id), max_len=6)
    state = position(SeatSetup("horan", hand=cards, keys=[1, 2, 3], weapon=weapon.id,
                               armour=armour.id), "taia", lord=lord, fight="lord")
    return play(state, *cards)


def test_r60_defeating_the_lord_wins_at_once() -> None:
    for lord in T.lords:
        state = lord_win_state(lord)
        t = totals(state)
        assert t.win and t.hp_after >= 1
        over = run(state, "end")
        assert over.phase is Phase.OVER and over.winner == 0
        check_state(over)
        refused(over, "revive", "game_over")
        assert legal(over) == set()


def test_r60_lord_needs_one_hp_left() -> None:
    lord = T.lords[0]
    weapon = max((e for e in T.equipment.values() if e.kind == "weapon"), key=lambda e: e.attack)
    w_att = 0 if "weapon" in mon(lord).curses else weapon.attack
    cards = chain(lord, attack=mon(lord).hp - w_att, exclude=(weapon.id,))
    defence = sum(info(c).defence for c in cards) * ("defence" not in mon(lord).curses)
    armours = [None] + [e.id for e in T.equipment.values() if e.kind == "armour"
                        and e.heal == 0 and e.id not in cards]
    for armour in armours:
        a_def = T.equipment[armour].defence if armour else 0
        hp = mon(lord).attack - defence - a_def
        if 1 <= hp <= 5:
            break
    else:
        raise AssertionError("no armour leaves the Lord's hits within 1-5")
    state = position(SeatSetup("horan", hand=cards, keys=[1, 2, 3], weapon=weapon.id,
                               armour=armour, hp=hp), "taia", lord=lord, fight="lord")
    state = play(state, *cards)
    t = totals(state)
    assert t.knocked_out and not t.win and t.attack >= mon(lord).hp
    state = run(state, "end")
    assert state.phase is Phase.TURN and state.winner is None


def test_r28_kept_armour_hand_bonus_counts_at_once() -> None:
    target = monster(lambda m: m.reward == "armour" and not m.gatekeeper
                     and T.equipment[m.id].hand > 0, "an armour with a hand-size bonus")
    cards = chain(target, attack=mon(target).hp)
    defence = sum(info(c).defence for c in cards)
    hp = min(5, max(0, mon(target).attack - defence) + 1)
    state = play(battle(target, *cards, hp=hp, deck=list(T.hero_cards["horan"])), *cards)
    state = run(state, "end", "reward:keep")
    assert len(state.seats[0].hand) == 4 + T.equipment[target].hand
