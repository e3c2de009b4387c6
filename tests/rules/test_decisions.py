"""D1-D8: how the rulebooks' gaps and disagreements are resolved (D1 and D2 also live beside
their rules in test_access.py and test_merchant.py)."""

from __future__ import annotations

from collections import Counter

from engine import Fight, GameConfig, Phase, SeatConfig, legal_actions, new_game, observe
from engine.agents import make_agent
from engine.position import SeatSetup, position
from engine.validate import check_state

from .helpers import (
    HEROES,
    T,
    aderyn_case,
    attack_pair,
    battle,
    card,
    cursed,
    info,
    legal,
    plain,
    run,
)


def test_d1_only_row_and_top_gatekeeper_are_targets() -> None:
    state = position("horan", "taia")
    fights = [a for a in legal_actions(state) if isinstance(a, Fight)]
    assert sorted(str(a) for a in fights) == sorted(
        [f"fight:1-{i}" for i in range(1, 6)] + ["fight:1-gate"])
    view = observe(state, 0).levels[0]
    assert view.deck_top is not None  # visible but never a target


def test_d2_pawnshop_action_card_goes_on_top_of_the_deck() -> None:
    reward = next(c for c, a in T.actions.items() if a.reward)
    weapon = next(e.id for e in T.equipment.values() if e.kind == "weapon")
    state = position(SeatSetup("horan", weapon=weapon, deck=["hor6"]), "taia", pawnshop=[reward])
    state = run(state, "merchant", f"buy:card:{reward}", "pay:weapon")
    assert state.seats[0].deck == (reward, "hor6")


def test_d3_four_potions_of_each_kind() -> None:
    assert T.potions_per_kind == 4
    state = new_game(GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia"))))
    assert state.potions == (4, 4, 4) and sum(state.potions) == 12


def test_d4_abilities_chosen_when_the_table_is_created() -> None:
    seats = (SeatConfig("horan"), SeatConfig("taia"))
    off = new_game(GameConfig(seats=seats))
    on = new_game(GameConfig(seats=seats, abilities=True))
    assert not off.config.abilities and on.config.abilities
    assert observe(on, None).abilities and not observe(off, 1).abilities


def test_d4_abilities_off_means_no_ability() -> None:
    target = cursed("attack")
    a, b = attack_pair(target)
    state = run(battle(target, a, b, hero="horan"), f"play:{a}", f"play:{b}")
    assert state.battle is not None and not state.battle.horan_bonus


def stacking_state(mode: str, seed: int) -> tuple[str, ...]:
    rewards = [c for c, a in T.actions.items() if a.reward][:2]
    spec = SeatSetup("horan", hand=[], deck=[], discard=[*rewards, *T.hero_cards["horan"]],
                     stacking=mode)
    state = run(position(spec, "taia", seed=seed), "revive")  # end of turn: draw 4
    seat = state.seats[0]
    return seat.hand + seat.deck


def test_d5_reward_cards_on_top() -> None:
    rewards = set(c for c, a in T.actions.items() if a.reward)
    orders = set()
    for seed in range(8):
        deck = stacking_state("top", seed)
        assert set(deck[:2]) <= rewards and not set(deck[2:]) & rewards
        orders.add(deck[2:])
    assert len(orders) > 1  # starting cards still shuffled among themselves


def test_d5_reward_cards_at_the_bottom() -> None:
    rewards = set(c for c, a in T.actions.items() if a.reward)
    for seed in range(8):
        deck = stacking_state("bottom", seed)
        assert set(deck[-2:]) <= rewards and not set(deck[:-2]) & rewards


def test_d5_shuffle_everything_by_default() -> None:
    rewards = set(c for c, a in T.actions.items() if a.reward)
    assert SeatSetup("horan").stacking == "shuffle"
    places = Counter()
    for seed in range(40):
        deck = stacking_state("shuffle", seed)
        places.update(i for i, c in enumerate(deck) if c in rewards)
    assert len(places) >= 6  # reward cards land all over the deck


def test_d5_preference_applies_at_every_rebuild_and_can_change() -> None:
    state = run(position("horan", "taia"), "stack:bottom")
    assert state.seats[0].stacking == "bottom"
    assert observe(state, 1).seats[0].stacking == "bottom"
    assert state.current == 0 and "stack:bottom" not in legal(state)


def test_d6_horan_bonus_survives_an_attack_curse() -> None:
    target = cursed("attack")
    a, b = attack_pair(target)
    state = run(battle(target, a, b, hero="horan", abilities=True), f"play:{a}", f"play:{b}")
    from engine import totals

    assert totals(state).attack == 1


def test_d6_aderyn_cannot_win_against_the_lord() -> None:
    from engine import totals

    _, state = aderyn_case(True, lord=True)
    assert totals(state).knocked_out and not totals(state).win
    _, state = aderyn_case(True)
    assert totals(state).knocked_out and totals(state).win


def test_d7_a_passed_turn_never_blocks() -> None:
    # revive if it must, otherwise visit the merchant buying nothing: always possible
    state = position(SeatSetup("horan", hp=0), SeatSetup("taia", hp=3))
    state = run(state, "revive")
    assert state.current == 1
    state = run(state, "merchant", "leave")
    assert state.current == 0 and state.phase is Phase.TURN


def test_d7_every_position_of_a_game_offers_an_action() -> None:
    # the AI can always take over: in random games every decision has a legal action
    for seed, heroes in enumerate([HEROES[:2], HEROES[2:5], HEROES[1:5], HEROES[4:]]):
        config = GameConfig(seats=tuple(SeatConfig(h) for h in heroes), abilities=seed % 2 == 0,
                            seed=seed)
        state = new_game(config)
        agents = [make_agent("reach", seed * 10 + i) for i in range(len(heroes))]
        for _ in range(400):
            if state.phase is Phase.OVER:
                assert legal_actions(state) == []
                break
            acts = legal_actions(state)
            assert acts, f"no legal action in {state.phase}"
            view = observe(state, state.current)
            action = agents[state.current].choose(view)
            state = run(state, action)
        check_state(state)


def test_d8_single_card_effects_all_resolve() -> None:
    target = plain(1)
    both = card(lambda a: a.heal > 0 and a.draw > 0, "healing and drawing", hero="xanros",
                exclude=(target,))
    state = run(battle(target, both, hero="xanros", hp=3, deck=["xan1", "xan2"]),
                f"play:{both}")
    assert state.seats[0].hp == 3 + info(both).heal and state.seats[0].hand == ("xan1",)
