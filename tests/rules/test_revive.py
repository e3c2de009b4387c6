"""R50-R51: reviving."""

from __future__ import annotations

import pytest

from engine import Phase
from engine.position import SeatSetup, position

from .helpers import legal, run


@pytest.mark.parametrize("hp", [0, 1, 4, 5])
def test_r50_revive_at_any_hp_back_to_five(hp: int) -> None:
    state = position(SeatSetup("horan", hp=hp), "taia")
    assert "revive" in legal(state)
    state = run(state, "revive")
    assert state.seats[0].hp == 5


def test_r50_revive_takes_the_whole_turn() -> None:
    state = run(position(SeatSetup("horan", hp=2), "taia"), "revive")
    assert state.current == 1 and state.phase is Phase.TURN


def test_r50_compulsory_at_zero_hp() -> None:
    state = position(SeatSetup("horan", hp=0), "taia")
    assert {a for a in legal(state) if not a.startswith("stack:")} == {"revive"}


def test_r51_hand_unchanged_then_draw_up_to_full() -> None:
    state = position(SeatSetup("horan", hp=0, hand=["hor6", "hor2"],
                               deck=["hor1", "hor3", "hor4", "hor5"]), "taia")
    state = run(state, "revive")
    assert state.seats[0].hand == ("hor6", "hor2", "hor1", "hor3")


def test_r51_full_hand_kept_as_is() -> None:
    hand = ["hor1", "hor2", "hor3", "hor4", "hor5"]
    state = run(position(SeatSetup("horan", hand=hand), "taia"), "revive")
    assert state.seats[0].hand == tuple(hand) and state.seats[0].deck == ("hor6",)
