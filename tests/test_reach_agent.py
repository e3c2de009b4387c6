"""The reach agent: its games end, and its preferences (reach, rewards, merchant) hold."""

from __future__ import annotations

from collections.abc import Iterator

from engine import Phase, apply, new_game, observe
from engine.actions import Fight, LeaveMerchant, TakeReward
from engine.agents import make_agent
from engine.agents.heuristic import equip_value
from engine.agents.reach import ReachAgent
from engine.catalog import tables
from engine.observe import Observation
from engine.simulate import play_game
from engine.state import GameConfig, SeatConfig

SEEDS = range(40)  # fresh agents asked about the same observation


def _observations(phase: Phase, games: int = 4) -> Iterator[Observation]:
    """Observations of the seat to move in ``phase``, from seeded random 4-seat games."""
    heroes = ("horan", "taia", "argentus", "aderyn")
    for seed in range(games):
        state = new_game(GameConfig(seats=tuple(SeatConfig(h, ai=True) for h in heroes),
                                    abilities=bool(seed % 2), seed=seed))
        agents = [make_agent("reach", seed * 8 + i) for i in range(4)]
        while state.phase is not Phase.OVER and state.round <= 400:
            view = observe(state, state.current)
            if state.phase is phase:
                yield view
            state, _ = apply(state, agents[state.current].choose(view))


def test_its_games_end_within_a_few_hundred_rounds() -> None:
    results = [play_game(seed, 4, "reach", abilities=bool(seed % 2), cap=400)
               for seed in range(1, 11)]
    assert all(r.error is None for r in results)
    assert [r.seed for r in results if r.winner is None] == []


def _near(view: Observation, fights: list[Fight]) -> list[Fight]:
    """The fights whose monster is within reach, worked out here from the rules (R21-R23)."""
    t = tables()
    seat = view.seats[view.current]
    near = []
    for fight in fights:
        monster = t.monsters[view.target(fight) or ""]
        reach = sum(t.equipment[item].attack for slot, item in
                    (("weapon", seat.weapon), ("armour", seat.armour))
                    if item and slot not in monster.curses)
        if "attack" not in monster.curses:
            reach += sum(t.actions[c].attack for c in view.hand
                         if t.actions[c].colour not in monster.curses)
        if monster.hp <= reach:
            near.append(fight)
    return near


def test_it_fights_only_monsters_within_reach_when_there_are_some() -> None:
    asked = 0
    for view in _observations(Phase.TURN):
        fights = [a for a in view.legal if isinstance(a, Fight)]
        near = _near(view, fights)
        if not near or len(near) == len(fights):
            continue
        asked += 1
        for seed in SEEDS:
            choice = ReachAgent(seed).choose(view)
            if isinstance(choice, Fight):
                assert choice in near, str(choice)
        if asked >= 25:
            break
    assert asked >= 10  # the games held enough positions with a choice to make


def test_reach_leaves_out_what_the_monster_curses() -> None:
    attack = {"red": 3, "blue": 2, "weapon": 2, "armour": 1}
    assert ReachAgent._reach(attack, ()) == 8
    assert ReachAgent._reach(attack, ("red",)) == 5  # R21: red cards cannot be played
    assert ReachAgent._reach(attack, ("attack",)) == 3  # R22: only equipment attack counts
    assert ReachAgent._reach(attack, ("weapon", "blue")) == 4  # R23 and R21


def test_it_mostly_keeps_the_better_equipment() -> None:
    equipment = tables().equipment
    asked = matched = 0
    for view in _observations(Phase.REWARD, games=8):
        assert view.pending is not None
        held = getattr(view.seats[view.current], equipment[view.pending].kind)
        better = held is None or equip_value(view.pending) >= equip_value(held)
        for seed in SEEDS:
            choice = ReachAgent(seed).choose(view)
            if not isinstance(choice, TakeReward):  # a healing potion, drunk first (R35)
                continue
            asked += 1
            matched += choice.keep == better
    assert asked >= 200
    assert matched / asked >= 0.85  # 90% by preference, half of the other 10% by chance


def test_it_mostly_leaves_the_merchant_without_buying() -> None:
    asked = left = 0
    for view in _observations(Phase.MERCHANT, games=8):
        if len(view.legal) < 2:
            continue
        for seed in SEEDS:
            asked += 1
            left += isinstance(ReachAgent(seed).choose(view), LeaveMerchant)
    assert asked >= 200
    assert left / asked >= 0.75
