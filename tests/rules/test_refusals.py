"""Across random games: every refused action is refused with a specific reason, and only the
actions ``legal_actions`` lists are accepted (R7-R66 seen from the refusal side)."""

from __future__ import annotations

from engine import (
    Action,
    BuyPawned,
    BuyPotion,
    CancelPurchase,
    Discard,
    DrinkCountercurse,
    DrinkHealing,
    DrinkStrength,
    EndBattle,
    Fight,
    GameConfig,
    GameState,
    IllegalAction,
    KeepDrawn,
    LeaveMerchant,
    Pay,
    Phase,
    Play,
    Revive,
    SeatConfig,
    SetStacking,
    TakeReward,
    VisitMerchant,
    apply,
    legal_actions,
    new_game,
    observe,
)
from engine.agents import make_agent

from .helpers import HEROES


def probes(state: GameState) -> list[Action]:
    seat = state.seat
    out: list[Action] = [Fight(lv, s) for lv in (1, 2, 3) for s in range(6)] + [Fight(4, 0)]
    out += [Play(c) for c in seat.hand]
    out += [Play(c, e) for c in seat.hand for e in ("attack", "defence", "draw", "heal")]
    out += [DrinkStrength("attack"), DrinkStrength("defence"), DrinkHealing(), EndBattle(),
            Revive(), VisitMerchant(), LeaveMerchant(), CancelPurchase(), TakeReward(True),
            TakeReward(False), SetStacking("shuffle"), SetStacking("top")]
    out += [Pay("weapon"), Pay("armour")] + [Pay(c) for c in seat.hand + seat.keys]
    out += [BuyPotion(k) for k in ("strength", "healing", "countercurse")]
    out += [BuyPawned(c) for c in state.pawnshop] + [BuyPawned("m1-01")]
    out += [DrinkCountercurse(c) for c in ("red", "blue", "attack", "heal", "weapon", "armour")]
    out += [Discard(c) for c in seat.hand] + [KeepDrawn(c) for c in seat.deck[:2]]
    return out


def test_refusals_are_specific_and_legal_actions_are_exact() -> None:
    for seed, heroes in enumerate([HEROES[:2], HEROES[2:5], HEROES[1:5], HEROES[3:]]):
        config = GameConfig(seats=tuple(SeatConfig(h) for h in heroes),
                            abilities=seed % 2 == 1, seed=100 + seed)
        state = new_game(config)
        agents = [make_agent("reach", seed * 7 + i) for i in range(len(heroes))]
        for _ in range(250):
            if state.phase is Phase.OVER:
                break
            legal = set(legal_actions(state))
            for action in probes(state):
                if action in legal:
                    apply(state, action)  # accepted
                    continue
                try:
                    apply(state, action)
                except IllegalAction as err:
                    assert err.code != "not_allowed", f"{action} in {state.phase}: {err}"
                    assert str(err) and "{" not in str(err)
                else:
                    raise AssertionError(f"{action} accepted but not listed as legal")
            state, _ = apply(state, agents[state.current].choose(observe(state, state.current)))
