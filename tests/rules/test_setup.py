"""R1-R6 and D3: components and setup of a new game."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import GameConfig, Phase, SeatConfig, new_game, observe
from engine.setup import ConfigError
from engine.state import BASE_HAND, MAX_HP
from engine.validate import check_state

from .helpers import HEROES, T, run


def game(*heroes: str, seed: int = 1, abilities: bool = False) -> GameConfig:
    return GameConfig(seats=tuple(SeatConfig(h) for h in heroes), abilities=abilities, seed=seed)


@pytest.mark.parametrize("count", [2, 3, 4])
def test_r1_two_to_four_seats(count: int) -> None:
    state = new_game(game(*HEROES[:count]))
    assert len(state.seats) == count
    check_state(state)


@pytest.mark.parametrize("count", [0, 1, 5, 6])
def test_r1_other_seat_counts_refused(count: int) -> None:
    with pytest.raises(ConfigError, match="2 to 4 seats"):
        new_game(game(*HEROES[:count]))


def test_r1_six_heroes() -> None:
    assert set(T.hero_cards) == set(HEROES)


def test_r1_each_hero_at_most_one_seat() -> None:
    with pytest.raises(ConfigError, match="one seat only"):
        new_game(game("horan", "taia", "horan"))


def test_r1_unknown_hero_refused() -> None:
    with pytest.raises(ConfigError, match="unknown hero"):
        new_game(game("horan", "gandalf"))


def test_r1_ai_and_human_seats() -> None:
    config = GameConfig(seats=(SeatConfig("horan", ai=True), SeatConfig("taia", name="Ann")))
    view = observe(new_game(config), 1)
    assert [s.ai for s in view.seats] == [True, False]


@pytest.mark.parametrize("hero", HEROES)
def test_r2_six_starting_cards_four_in_hand(hero: str) -> None:
    state = new_game(game(hero, "horan" if hero != "horan" else "taia"))
    seat = state.seats[0]
    assert len(T.hero_cards[hero]) == 6
    assert len(seat.hand) == BASE_HAND and len(seat.deck) == 6 - BASE_HAND
    assert sorted(seat.hand + seat.deck) == sorted(T.hero_cards[hero])
    assert seat.discard == () and seat.weapon is None and seat.armour is None
    assert seat.keys == () and seat.potions == ()


def test_r2_five_hp_maximum_five() -> None:
    state = new_game(game("aderyn", "taia"))
    assert all(s.hp == MAX_HP == 5 for s in state.seats)


def test_r2_starting_deck_is_shuffled() -> None:
    orders = {new_game(game("argentus", "taia", seed=s)).seats[0].hand for s in range(30)}
    assert len(orders) > 5


def test_r3_levels_rows_and_decks() -> None:
    state = new_game(game("horan", "taia", seed=3))
    assert len(state.levels) == 3
    for level, lv in enumerate(state.levels, start=1):
        assert len(lv.row) == 5 and None not in lv.row
        assert sorted(lv.gates) == sorted(T.gatekeepers[level]) and len(lv.gates) == 5
        regular = [c for c in lv.row if c] + list(lv.deck)
        assert sorted(regular) == sorted(T.regular[level])
        assert all(not T.monsters[c].gatekeeper for c in regular)


def test_r3_piles_are_shuffled() -> None:
    rows = {new_game(game("horan", "taia", seed=s)).levels[0].row for s in range(20)}
    gates = {new_game(game("horan", "taia", seed=s)).levels[2].gates for s in range(20)}
    assert len(rows) > 5 and len(gates) > 5


def test_r3_deck_top_and_gatekeeper_top_are_visible() -> None:
    state = new_game(game("horan", "taia", seed=3))
    view = observe(state, None)
    for lv, shown in zip(state.levels, view.levels, strict=True):
        assert shown.deck_top == lv.deck[0] and shown.gate_top == lv.gates[0]
        assert shown.deck_count == len(lv.deck) and shown.gate_count == 5


def test_r4_one_random_lord() -> None:
    lords = Counter(new_game(game("horan", "taia", seed=s)).lord for s in range(60))
    assert set(lords) == set(T.lords) and len(T.lords) == 3


def test_r4_other_lords_out_of_game() -> None:
    state = new_game(game("horan", "taia", seed=4))
    others = set(T.lords) - {state.lord}
    view = repr(observe(state, 0))
    for lord in others:
        assert f"'{lord}'" not in view
    places = repr(state.levels) + repr(state.seats) + repr(state.pawnshop)
    assert not any(lord in places for lord in T.lords)


def test_r5_potion_piles_and_empty_pawnshop() -> None:
    state = new_game(game("horan", "taia"))
    assert state.potions == (4, 4, 4)
    assert state.pawnshop == ()
    assert observe(state, 0).potion_piles == (("strength", 4), ("healing", 4),
                                             ("countercurse", 4))


def test_r6_seat_order_is_random() -> None:
    orders = {new_game(game("horan", "taia", "aderyn", seed=s)).order for s in range(40)}
    assert len(orders) >= 4
    assert all(sorted(o) == [0, 1, 2] for o in orders)


def test_r6_play_goes_round_in_order() -> None:
    state = new_game(game("horan", "taia", "aderyn", seed=5))
    seen = []
    for _ in range(6):
        seen.append(state.current)
        state = run(state, "revive")
    assert seen == list(state.order) * 2
    assert state.round == 3 and state.phase is Phase.TURN


def test_setup_is_seeded() -> None:
    assert new_game(game("horan", "taia", seed=9)) == new_game(game("horan", "taia", seed=9))
    assert new_game(game("horan", "taia", seed=9)) != new_game(game("horan", "taia", seed=10))
