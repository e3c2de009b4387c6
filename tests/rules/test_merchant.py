"""R40-R43 and D2: visiting the merchant, paying, the pawnshop."""

from __future__ import annotations

from engine import GameState, Phase
from engine.position import SeatSetup, position

from .helpers import T, gear, legal, refused, run

REWARDS = [c for c, a in T.actions.items() if a.reward]
WEAPONS = [e.id for e in T.equipment.values() if e.kind == "weapon"]
ARMOURS = [e.id for e in T.equipment.values() if e.kind == "armour"]


def shop(*, pawnshop: tuple[str, ...] = (), piles: tuple[int, int, int] | None = None,
         **seat: object) -> GameState:
    spec = SeatSetup("horan", **seat)
    return run(position(spec, "taia", pawnshop=pawnshop, potion_piles=piles), "merchant")


def test_r40_pay_with_weapon() -> None:
    state = shop(weapon=WEAPONS[0])
    state = run(state, "buy:potion:strength")
    assert state.phase is Phase.PAY and state.pending == "potion:strength"
    assert legal(state) == {"pay:weapon", "cancel", "undo"}  # undo: N19
    state = run(state, "pay:weapon")
    assert state.seats[0].weapon is None and state.pawnshop == (WEAPONS[0],)
    assert state.seats[0].potions == ("strength",) and state.potions[0] == 3
    assert state.phase is Phase.MERCHANT


def test_r40_pay_with_armour() -> None:
    state = run(shop(armour=ARMOURS[0]), "buy:potion:healing", "pay:armour")
    assert state.seats[0].armour is None and state.pawnshop == (ARMOURS[0],)


def test_r40_pay_with_a_reward_card_from_hand() -> None:
    state = run(shop(hand=["hor1", REWARDS[0]]), "buy:potion:countercurse",
                f"pay:card:{REWARDS[0]}")
    assert state.seats[0].hand == ("hor1",) and state.pawnshop == (REWARDS[0],)


def test_r40_never_a_starting_card() -> None:
    state = run(shop(hand=["hor1", REWARDS[0]]), "buy:potion:strength")
    refused(state, "pay:card:hor1", "starting_card_payment", "starting cards")


def test_r40_never_a_key() -> None:
    state = run(shop(hand=[REWARDS[0]], keys=[1]), "buy:potion:strength")
    key = state.seats[0].keys[0]
    refused(state, f"pay:card:{key}", "key_payment", "key")


def test_r40_never_a_potion() -> None:
    state = run(shop(hand=[REWARDS[0]], potions=["healing"]),
                "buy:potion:strength")
    refused(state, "pay:card:healing", "potion_payment", "potion")


def test_r40_never_a_card_not_in_hand() -> None:
    state = run(shop(hand=["hor1"], discard=[REWARDS[0]], weapon=WEAPONS[0]),
                "buy:potion:strength")
    refused(state, f"pay:card:{REWARDS[0]}", "not_in_hand")
    refused(state, "pay:armour", "no_equipment", "armour")


def test_r40_nothing_to_pay_with() -> None:
    state = shop(hand=["hor1", "hor2"], pawnshop=(REWARDS[0],))
    assert legal(state) == {"leave", "undo"}  # the visit may be taken back (N19)
    refused(state, "buy:potion:strength", "no_payment", "nothing to pay")
    refused(state, f"buy:card:{REWARDS[0]}", "no_payment")


def test_r40_cancel_before_paying() -> None:
    state = shop(weapon=WEAPONS[0], pawnshop=(REWARDS[0],))
    paying = run(state, f"buy:card:{REWARDS[0]}")
    back = run(paying, "cancel")
    assert back.phase is Phase.MERCHANT and back.pending is None
    assert back.seats == state.seats and back.pawnshop == state.pawnshop
    assert f"buy:card:{REWARDS[0]}" in legal(back)


def test_r41_any_number_of_potions_one_of_each_kind() -> None:
    state = shop(weapon=WEAPONS[0], armour=ARMOURS[0], hand=[REWARDS[0]])
    state = run(state, "buy:potion:strength", "pay:weapon",
                "buy:potion:healing", "pay:armour",
                "buy:potion:countercurse", f"pay:card:{REWARDS[0]}")
    assert set(state.seats[0].potions) == {"strength", "healing", "countercurse"}
    assert state.potions == (3, 3, 3)
    refused(state, "buy:potion:healing", "potion_held", "healing potion")


def test_r41_last_potion_of_a_pile() -> None:
    # 4 potions of a kind and at most 4 seats holding one each: the pile can only run dry when
    # every seat holds one, so the buyer then holds one too.
    holders = [SeatSetup(h, potions=["strength"]) for h in ("taia", "aderyn", "xanros")]
    state = position(SeatSetup("horan", weapon=WEAPONS[0]), *holders)
    assert state.potions[0] == 1
    state = run(state, "merchant", "buy:potion:strength", "pay:weapon")
    assert state.potions[0] == 0


def test_r41_empty_pile_cannot_be_bought() -> None:
    from msgspec.structs import replace

    state = shop(weapon=WEAPONS[0])
    dry = replace(state, potions=(0, 4, 4))
    assert "buy:potion:strength" not in legal(dry)
    refused(dry, "buy:potion:strength", "sold_out", "no potion of strength")


def test_r42_one_pawnshop_card_per_visit() -> None:
    state = shop(weapon=WEAPONS[0], armour=ARMOURS[0], pawnshop=(REWARDS[0], REWARDS[1]))
    state = run(state, f"buy:card:{REWARDS[0]}", "pay:weapon")
    assert state.bought_pawned
    refused(state, f"buy:card:{REWARDS[1]}", "one_pawned", "one card")
    assert "buy:potion:strength" in legal(state)  # potions are still for sale


def test_r42_next_visit_may_buy_again() -> None:
    state = shop(weapon=WEAPONS[0], armour=ARMOURS[0], pawnshop=(REWARDS[0], REWARDS[1]))
    state = run(state, f"buy:card:{REWARDS[0]}", "pay:weapon", "leave",
                "revive", "merchant")
    assert f"buy:card:{REWARDS[1]}" in legal(state)


def test_r42_bought_weapon_replaces_yours() -> None:
    old, new = WEAPONS[0], WEAPONS[1]
    state = shop(weapon=old, hand=[REWARDS[0]], pawnshop=(new,))
    state = run(state, f"buy:card:{new}", f"pay:card:{REWARDS[0]}")
    assert state.seats[0].weapon == new
    assert sorted(state.pawnshop) == sorted([old, REWARDS[0]])


def test_r42_bought_weapon_paid_with_the_old_weapon() -> None:
    old, new = WEAPONS[0], WEAPONS[1]
    state = run(shop(weapon=old, pawnshop=(new,)), f"buy:card:{new}", "pay:weapon")
    assert state.seats[0].weapon == new and state.pawnshop == (old,)


def test_r42_bought_armour_replaces_yours() -> None:
    old, new = ARMOURS[0], ARMOURS[1]
    state = run(shop(armour=old, weapon=WEAPONS[0], pawnshop=(new,)),
                f"buy:card:{new}", "pay:weapon")
    assert state.seats[0].armour == new and sorted(state.pawnshop) == sorted([old, WEAPONS[0]])


def test_r42_not_in_pawnshop() -> None:
    state = shop(weapon=WEAPONS[0], pawnshop=(REWARDS[0],))
    refused(state, f"buy:card:{REWARDS[1]}", "not_in_pawnshop")


def test_d2_bought_action_card_on_top_of_deck() -> None:
    state = shop(weapon=WEAPONS[0], deck=["hor5", "hor6"], pawnshop=(REWARDS[0],))
    state = run(state, f"buy:card:{REWARDS[0]}", "pay:weapon")
    assert state.seats[0].deck[0] == REWARDS[0]
    assert REWARDS[0] not in state.seats[0].hand


def test_r43_leave_having_bought_nothing() -> None:
    state = shop(hand=["hor1", "hor2", "hor3", "hor4"], weapon=WEAPONS[0])
    state = run(state, "leave")
    assert state.current == 1 and state.phase is Phase.TURN
    assert state.seats[0].hand == ("hor1", "hor2", "hor3", "hor4") and state.pawnshop == ()


def test_r43_draw_up_to_full_hand_after_leaving() -> None:
    state = shop(hand=["hor1", "hor2", REWARDS[0]], deck=["hor3", "hor4", "hor5", "hor6"])
    state = run(state, "buy:potion:strength", f"pay:card:{REWARDS[0]}", "leave")
    assert state.seats[0].hand == ("hor1", "hor2", "hor3", "hor4")


def test_r43_bought_card_drawn_at_once_when_the_hand_is_short() -> None:
    state = shop(hand=["hor1", "hor2", "hor3", REWARDS[0]], deck=["hor4"],
                 pawnshop=(REWARDS[1],))
    state = run(state, f"buy:card:{REWARDS[1]}", f"pay:card:{REWARDS[0]}", "leave")
    assert state.seats[0].hand == ("hor1", "hor2", "hor3", REWARDS[1])
    assert state.seats[0].deck == ("hor4",)


def test_r40_merchant_refuses_battle_actions() -> None:
    state = shop(weapon=gear("weapon", lambda e: True, "any"))
    refused(state, "end", "not_now", "shopping")
    refused(state, "revive", "not_now")


def test_r42_buy_back_what_was_just_paid() -> None:
    state = shop(weapon=WEAPONS[0], hand=[REWARDS[0]])
    state = run(state, "buy:potion:strength", "pay:weapon", f"buy:card:{WEAPONS[0]}")
    assert legal(state) == {f"pay:card:{REWARDS[0]}", "cancel", "undo"}  # never the card itself
    state = run(state, f"pay:card:{REWARDS[0]}")
    assert state.seats[0].weapon == WEAPONS[0] and state.pawnshop == (REWARDS[0],)
