"""R7-R8 and R13: what a turn offers; potions only on your own turn."""

from __future__ import annotations

import pytest

from engine import NotYourTurn, Phase, apply, parse
from engine.position import SeatSetup, position

from .helpers import legal, plain, refused, run


def test_r7_turn_offers_fight_merchant_or_revive() -> None:
    state = position("horan", "taia")
    actions = legal(state)
    assert {"merchant", "revive"} <= actions
    assert any(a.startswith("fight:") for a in actions)
    assert actions <= {a for a in actions if a.split(":")[0] in
                       {"fight", "merchant", "revive", "stack"}}


def test_r7_exactly_one_choice_per_turn() -> None:
    state = position("horan", "taia")
    after = run(state, "revive")
    assert after.current == 1 and after.phase is Phase.TURN
    after = run(state, "merchant", "leave")
    assert after.current == 1
    after = run(state, "fight:1-1", "end")
    assert after.current == 1


def test_r7_zero_hp_must_revive() -> None:
    state = position(SeatSetup("horan", hp=0), "taia")
    assert legal(state) - {"stack:top", "stack:bottom"} == {"revive"}


def test_r7_stacking_preference_does_not_use_the_turn() -> None:
    state = run(position(SeatSetup("horan", hp=0), "taia"), "stack:top")
    assert state.current == 0 and state.phase is Phase.TURN
    assert state.seats[0].stacking == "top"
    refused(state, "stack:top", "stacking_same")


def test_r7_other_actions_wait_for_their_phase() -> None:
    state = position("horan", "taia")
    err = refused(state, "end", "not_now")
    assert "choosing what to do" in str(err)
    refused(state, "leave", "not_now")
    refused(state, "play:hor1", "not_now")
    refused(state, "reward:keep", "not_now")


def test_r8_potions_only_on_own_turn() -> None:
    state = position("horan", SeatSetup("taia", hp=2, potions=["healing"]))
    assert "heal" not in legal(state)  # seat 0 has no potion; seat 1 must wait
    with pytest.raises(NotYourTurn) as caught:
        apply(state, parse("heal"), seat=1)
    assert caught.value.code == "not_your_turn"
    assert "Horan" in str(caught.value)
    state = run(state, "revive")
    assert "heal" in legal(state)


def test_r8_no_action_of_another_seat() -> None:
    state = position("horan", "taia")
    refused(state, "revive", "not_your_turn", seat=1)


def test_r13_zero_hp_cannot_fight_or_shop() -> None:
    target = plain(1)
    state = position(SeatSetup("horan", hp=0), "taia", rows={1: [target, None, None, None, None]})
    refused(state, "fight:1-1", "no_hp", "revive")
    refused(state, "fight:1-gate", "no_hp")
    refused(state, "merchant", "no_hp")
