"""R10-R13 and D1: which monsters a seat may fight."""

from __future__ import annotations

from engine import Fight, GameState, legal_actions
from engine.position import SeatSetup, position

from .helpers import T, refused, run


def targets(state: GameState) -> set[str]:
    return {str(a) for a in legal_actions(state) if isinstance(a, Fight)}


def test_r10_row_monsters_and_top_gatekeeper() -> None:
    row = list(T.regular[1][:3]) + [None, None]
    state = position("horan", "taia", rows={1: row})
    assert targets(state) == {"fight:1-1", "fight:1-2", "fight:1-3", "fight:1-gate"}


def test_r10_fight_takes_the_top_gatekeeper() -> None:
    gates = list(reversed(T.gatekeepers[1]))
    state = run(position("horan", "taia", gates={1: gates}), "fight:1-gate")
    assert state.battle is not None and state.battle.monster == gates[0]
    assert state.battle.slot == 0


def test_r10_fight_takes_the_row_slot() -> None:
    row = [None, None, T.regular[1][4], None, None]
    state = run(position("horan", "taia", rows={1: row}), "fight:1-3")
    assert state.battle is not None and state.battle.monster == row[2]


def test_r10_empty_slot_refused() -> None:
    state = position("horan", "taia", rows={1: [T.regular[1][0], None, None, None, None]})
    refused(state, "fight:1-2", "empty_slot")


def test_d1_top_of_regular_deck_cannot_be_fought() -> None:
    state = position("horan", "taia")
    deck_top = state.levels[0].deck[0]
    fightable = {a for a in legal_actions(state) if isinstance(a, Fight)}
    monsters = set()
    for a in fightable:
        s = run(state, a)
        assert s.battle is not None
        monsters.add(s.battle.monster)
    assert deck_top not in monsters
    assert monsters == set(state.levels[0].row) | {state.levels[0].gates[0]}


def test_r11_level_one_always_open() -> None:
    assert {"fight:1-1", "fight:1-gate"} <= targets(position("horan", "taia"))


def test_r11_level_two_needs_level_one_key() -> None:
    state = position("horan", "taia")
    assert not any(t.startswith("fight:2") for t in targets(state))
    refused(state, "fight:2-1", "key_required", "level\u00a0I key")
    refused(state, "fight:2-gate", "key_required", "level\u00a0I key")
    state = position(SeatSetup("horan", keys=[1]), "taia")
    assert {"fight:2-1", "fight:2-5", "fight:2-gate"} <= targets(state)


def test_r11_level_three_needs_keys_one_and_two() -> None:
    state = position(SeatSetup("horan", keys=[1]), "taia")
    refused(state, "fight:3-1", "key_required", "level\u00a0II key")
    state = position(SeatSetup("horan", keys=[2]), "taia")
    refused(state, "fight:3-1", "key_required", "level\u00a0I key")
    state = position(SeatSetup("horan", keys=[1, 2]), "taia")
    assert {"fight:3-1", "fight:3-gate"} <= targets(state)


def test_r11_lord_needs_all_three_keys() -> None:
    for keys in ([], [1], [1, 2], [2, 3]):
        state = position(SeatSetup("horan", keys=keys), "taia")
        refused(state, "fight:lord", "lord_needs_keys", "three keys")
    state = position(SeatSetup("horan", keys=[1, 2, 3]), "taia")
    assert "fight:lord" in targets(state)
    state = run(state, "fight:lord")
    assert state.battle is not None and state.battle.monster == state.lord


def test_r12_key_holder_may_not_fight_that_gatekeeper() -> None:
    state = position(SeatSetup("horan", keys=[1, 2]), "taia")
    refused(state, "fight:1-gate", "has_key", "level\u00a0I key")
    refused(state, "fight:2-gate", "has_key", "level\u00a0II key")
    assert "fight:3-gate" in targets(state)


def test_r12_key_holder_still_fights_regular_monsters() -> None:
    state = position(SeatSetup("horan", keys=[1]), "taia")
    assert {f"fight:1-{i}" for i in range(1, 6)} <= targets(state)


def test_r13_zero_hp_no_targets() -> None:
    state = position(SeatSetup("horan", hp=0, keys=[1, 2, 3]), "taia")
    assert targets(state) == set()
    refused(state, "fight:lord", "no_hp")
