"""The position builder (engine.position) and the state checks it relies on (engine.validate)."""

from __future__ import annotations

import inspect

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from engine import BadState, Phase
from engine.position import PositionError, SeatSetup, locate, position
from engine.validate import check_state

from .helpers import T, cursed, gear, run


def test_defaults_pass_check_state() -> None:
    state = position("horan", "taia", "aderyn", "xanros")
    check_state(state)
    assert [len(s.hand) for s in state.seats] == [4, 4, 4, 4]
    assert all(len(s.deck) == 2 for s in state.seats)
    assert state.phase is Phase.TURN and state.current == 0 and state.potions == (4, 4, 4)


def test_explicit_zones_are_exact() -> None:
    reward = next(c for c, a in T.actions.items() if a.reward)
    state = position(SeatSetup("horan", hand=["hor2", reward], deck=["hor6", "hor1"],
                               discard=["hor3", "hor4", "hor5"], hp=2, potions=["healing"]), "taia",
                     current=1, order=[1, 0])
    seat = state.seats[0]
    assert seat.hand == ("hor2", reward) and seat.deck == ("hor6", "hor1")
    assert seat.discard == ("hor3", "hor4", "hor5")
    assert seat.hp == 2 and seat.potions == ("healing",)
    assert state.current == 1 and state.order == (1, 0) and state.potions == (4, 3, 4)
    assert all(reward not in lv.row + lv.deck for lv in state.levels)


def test_unplaced_starting_cards_go_to_the_deck_then_the_discard() -> None:
    state = position(SeatSetup("horan", hand=["hor1"], deck=[]), "taia")
    assert state.seats[0].deck == () and len(state.seats[0].discard) == 5
    with pytest.raises(PositionError, match="not placed"):
        position(SeatSetup("horan", hand=["hor1"], deck=[], discard=[]), "taia")


def test_rows_decks_gates_and_keys() -> None:
    row = [T.regular[2][3], None, None, T.regular[2][0], None]
    state = position(SeatSetup("horan", keys=[1]), "taia", rows={2: row},
                     decks={2: [T.regular[2][5]]}, gates={3: [T.gatekeepers[3][4]]})
    assert state.levels[1].row == tuple(row)
    assert state.levels[1].deck[0] == T.regular[2][5]
    assert len(state.levels[1].deck) == len(T.regular[2]) - 2
    assert state.levels[2].gates[0] == T.gatekeepers[3][4]
    assert len(state.seats[0].keys) == 1 and len(state.levels[0].gates) == 4


def test_exact_decks_send_the_rest_to_the_pawnshop() -> None:
    state = position("horan", "taia", rows={1: [T.regular[1][0]] + [None] * 4}, decks={1: []},
                     exact_decks=[1])
    assert state.levels[0].deck == () and len(state.pawnshop) == len(T.regular[1]) - 1


def test_fight_by_monster_id_or_target() -> None:
    target = cursed("red")
    keys = list(range(1, T.monsters[target].level))
    state = position(SeatSetup("horan", keys=keys), "taia", fight=target, abilities=True)
    assert state.phase is Phase.BATTLE and state.battle is not None
    assert state.battle.monster == target
    state = position("horan", "taia", fight="1-gate")
    assert state.battle is not None and state.battle.slot == 0
    assert locate(state, state.levels[0].row[2] or "").slot == 3
    with pytest.raises(PositionError, match="not face up"):
        locate(state, state.levels[0].deck[0])


def test_fight_must_be_legal() -> None:
    with pytest.raises(PositionError, match="level\u00a0I key"):
        position("horan", "taia", fight=T.regular[2][0])
    with pytest.raises(PositionError, match="three keys"):
        position("horan", "taia", fight="lord")


def test_fight_starts_through_the_rules() -> None:
    target = cursed("armour")
    armour = gear("armour", lambda e: e.hand > 0, "with a hand-size bonus", exclude=(target,))
    state = position(SeatSetup("horan", hand=list(T.hero_cards["horan"][:5]), armour=armour,
                               keys=[1, 2]), "taia", fight=target)
    assert state.phase is Phase.DISCARD


@pytest.mark.parametrize("kwargs, match", [
    ({"rows": {1: ["m9-99", None, None, None, None]}}, "not a level 1"),
    ({"rows": {1: [None] * 4}}, "5 slots"),
    ({"gates": {1: [T.regular[1][0]]}}, "gatekeeper"),
    ({"pawnshop": ["hor1"]}, "pawnshop"),
    ({"lord": "lord-9"}, "not a Lord"),
    ({"order": [0, 0]}, "order"),
    ({"current": 3}, "not at the table"),
    ({"rows": {4: [None] * 5}}, "no level"),
])
def test_bad_positions_are_refused(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(PositionError, match=match):
        position("horan", "taia", **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("seat, match", [
    (SeatSetup("horan", hand=["tai1"]), "not a starting card of horan"),
    (SeatSetup("horan", hand=["hor1", "hor1"]), "placed twice"),
    (SeatSetup("horan", hp=6), "HP"),
    (SeatSetup("horan", keys=[4]), "no level 4 key"),
    (SeatSetup("horan", stacking="sideways"), "stacking"),
    (SeatSetup("horan", potions=["elixir"]), "potions"),
])
def test_bad_seats_are_refused(seat: SeatSetup, match: str) -> None:
    with pytest.raises(PositionError, match=match):
        position(seat, "aderyn")


def test_check_state_refuses_cards_out_of_their_zones() -> None:
    state = position("horan", "taia")
    lv1, lv2 = state.levels[0], state.levels[1]
    swapped = (replace(lv1, row=(lv2.row[0],) + lv1.row[1:]),
               replace(lv2, row=(lv1.row[0],) + lv2.row[1:]), state.levels[2])
    with pytest.raises(BadState, match="regular monster of level 1"):
        check_state(replace(state, levels=swapped))
    short = (replace(lv1, row=lv1.row[:4], deck=lv1.deck + (lv1.row[4] or "",)),
             *state.levels[1:])
    with pytest.raises(BadState, match="slots"):
        check_state(replace(state, levels=short))


def test_check_state_refuses_another_heros_starting_card() -> None:
    state = position(SeatSetup("horan", hand=["hor1"]), SeatSetup("taia", hand=["tai1"]))
    a, b = state.seats
    mixed = (replace(a, hand=("tai1",)), replace(b, hand=("hor1",)))
    with pytest.raises(BadState, match="another hero"):
        check_state(replace(state, seats=mixed))


def test_check_state_refuses_a_stray_pending() -> None:
    state = position("horan", "taia")
    with pytest.raises(BadState, match="pending"):
        check_state(replace(state, pending="potion:strength"))
    shop = run(position(SeatSetup("horan", weapon=gear("weapon", lambda e: True, "any")),
                        "taia"), "merchant", "buy:potion:strength")
    check_state(shop)
    with pytest.raises(BadState, match="pending purchase"):
        check_state(replace(shop, pending="m1-01"))


def test_check_state_refuses_a_battle_in_the_wrong_place() -> None:
    state = position("horan", "taia", fight="1-2")
    assert state.battle is not None
    with pytest.raises(BadState, match="not where the battle is"):
        check_state(replace(state, battle=replace(state.battle, slot=3)))


def test_docstring_example_runs() -> None:
    """The module docstring's example is this test's code, and it works."""
    import engine.position as module
    from engine.position import SeatSetup, advance, position

    state = position(
        SeatSetup("horan", hand=["hor1", "hor2"], hp=3, weapon="m1-10", keys=[1]),
        SeatSetup("taia"),
        rows={2: ["m2-04", None, "m2-05", None, None]},
        fight="m2-04",  # start a battle against it (row II slot 1)
    )
    state = advance(state, "play:hor1")  # then any actions, checked by the rules
    assert state.battle is not None and state.battle.chain == ("hor1",)
    check_state(state)
    source = inspect.getsource(test_docstring_example_runs).split('"""', 2)[2]
    code = [line.strip() for line in source.split("    assert state.battle")[0].splitlines()
            if line.strip() and "import engine.position" not in line]
    doc = (module.__doc__ or "").split("Example::", 1)[1].split("\nCards are", 1)[0]
    assert code == [line.strip() for line in doc.splitlines() if line.strip()]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_built_position_is_consistent(data: st.DataObject) -> None:
    from engine import legal_actions, observe, state_from_json, state_to_json

    heroes = data.draw(st.lists(st.sampled_from(sorted(T.hero_cards)), min_size=2, max_size=4,
                                unique=True))
    weapons = data.draw(st.permutations([e.id for e in T.equipment.values()
                                         if e.kind == "weapon"]))
    armours = data.draw(st.permutations([e.id for e in T.equipment.values()
                                         if e.kind == "armour"]))
    rewards = data.draw(st.permutations([c for c, a in T.actions.items() if a.reward]))
    specs = []
    for i, hero in enumerate(heroes):
        own = list(data.draw(st.permutations(T.hero_cards[hero])))
        extra = list(rewards[i * 2:i * 2 + data.draw(st.integers(0, 2))])
        cards = own + extra
        a, b = sorted(data.draw(st.lists(st.integers(0, len(cards)), min_size=2, max_size=2)))
        specs.append(SeatSetup(
            hero, hand=cards[:a], deck=cards[a:b], discard=cards[b:],
            hp=data.draw(st.integers(0, 5)),
            weapon=weapons[i] if data.draw(st.booleans()) else None,
            armour=armours[i] if data.draw(st.booleans()) else None,
            keys=data.draw(st.lists(st.sampled_from([1, 2, 3]), unique=True)),
            potions=data.draw(st.lists(st.sampled_from(["strength", "healing", "countercurse"]),
                                       unique=True)),
            stacking=data.draw(st.sampled_from(["shuffle", "top", "bottom"])),
        ))
    state = position(*specs, current=data.draw(st.integers(0, len(heroes) - 1)),
                     abilities=data.draw(st.booleans()), seed=data.draw(st.integers(0, 99)))
    check_state(state)
    assert state_from_json(state_to_json(state)) == state
    assert legal_actions(state)
    for viewer in [None, *range(len(heroes))]:
        observe(state, viewer)
