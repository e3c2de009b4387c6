"""R64, R66 and D4/D6: the hero abilities variant beyond the chain of cards: Aderyn winning a
battle that takes her last HP, Taia drawing two cards to keep one."""

from __future__ import annotations

from engine import Phase, totals
from i18n import msg, translate

from .helpers import (
    aderyn_case,
    battle,
    card,
    cursed,
    legal,
    plain,
    refused,
    run,
)

# ---------------------------------------------------------------- R64 Aderyn


def test_r64_aderyn_wins_despite_losing_her_last_hp() -> None:
    target, state = aderyn_case(True)
    t = totals(state)
    assert t.knocked_out and t.win
    after = run(state, "end")
    assert after.seats[0].hp == 0
    assert target in after.seats[0].discard or after.phase is Phase.REWARD
    assert all(target not in lv.row for lv in after.levels)


def test_r64_aderyn_must_revive_next_turn() -> None:
    _, state = aderyn_case(True)
    state = run(state, "end")
    if state.phase is Phase.REWARD:
        state = run(state, "reward:pawn")
    state = run(state, "revive")  # seat 1
    assert state.current == 0
    assert {a for a in legal(state) if not a.startswith("stack:")} == {"revive"}


def test_r64_r35_aderyn_keeping_her_reward_is_told_she_revives_next_turn() -> None:
    """At 0 HP choosing whether to keep the equipment she won, a healing potion is refused
    (R35: she lost her last HP this turn) with what comes next: she revives next turn, not
    this one, whose only decision left is the reward's."""
    _, state = aderyn_case(True, equipment=True, potions=["healing"])
    state = run(state, "end")
    assert state.phase is Phase.REWARD and state.seats[0].hp == 0
    err = refused(state, "heal", "no_hp_next_turn", "next turn")
    assert "this turn" not in str(err)
    for locale in ("fr", "cs"):
        assert translate(msg("error.no_hp_next_turn"), locale) \
            != translate(msg("error.no_hp"), locale)


def test_r64_aderyn_no_heal_after_battle() -> None:
    _, state = aderyn_case(True, healing_armour=True)
    t = totals(state)
    assert t.knocked_out and t.win and t.heal_after == 0 and t.hp_after == 0


def test_r64_aderyn_without_the_variant() -> None:
    _, state = aderyn_case(False)
    t = totals(state)
    assert t.knocked_out and not t.win


def test_r64_d6_aderyn_never_against_the_lord() -> None:
    _, state = aderyn_case(True, lord=True)
    t = totals(state)
    assert t.knocked_out and not t.win
    after = run(state, "end")
    assert after.winner is None and after.phase is Phase.TURN


# ---------------------------------------------------------------- R66 Taia


def drawer(target: str, n: int = 1) -> str:
    return card(lambda a: a.draw == n, f"drawing {n}", exclude=(target,))


def test_r66_taia_draws_two_keeps_one() -> None:
    target = plain(1)
    d = drawer(target)
    state = battle(target, d, hero="taia", abilities=True,
                   deck=["tai1", "tai2", "tai3", "tai4", "tai5", "tai6"])
    state = run(state, f"play:{d}")
    assert state.phase is Phase.TAIA and state.battle is not None
    assert state.battle.drawn == ("tai1", "tai2")
    assert legal(state) == {"keep:tai1", "keep:tai2"}
    refused(state, "keep:tai3", "not_drawn")
    refused(state, "end", "not_now", "keep")
    state = run(state, "keep:tai2")
    seat = state.seats[0]
    assert seat.hand == ("tai2",) and seat.deck == ("tai3", "tai4", "tai5", "tai6", "tai1")
    assert state.phase is Phase.BATTLE


def test_r66_taia_two_draws_two_choices() -> None:
    target = plain(1)
    d = drawer(target, 2)
    state = battle(target, d, hero="taia", abilities=True,
                   deck=["tai1", "tai2", "tai3", "tai4", "tai5", "tai6"])
    state = run(state, f"play:{d}", "keep:tai1")
    assert state.phase is Phase.TAIA and state.battle is not None
    assert state.battle.drawn == ("tai3", "tai4")
    state = run(state, "keep:tai4")
    assert state.seats[0].hand == ("tai1", "tai4")
    assert state.seats[0].deck == ("tai5", "tai6", "tai2", "tai3")


def test_r66_taia_reshuffles_when_the_deck_has_one() -> None:
    target = plain(1)
    d = drawer(target)
    state = battle(target, d, "tai4", "tai5", "tai6", hero="taia", abilities=True,
                   deck=["tai1"], discard=["tai2", "tai3"])
    state = run(state, f"play:{d}")
    assert state.battle is not None and state.battle.drawn[0] == "tai1"
    assert state.battle.drawn[1] in ("tai2", "tai3") and state.seats[0].discard == ()
    state = run(state, "keep:tai1")
    assert state.seats[0].deck[-1] in ("tai2", "tai3") and len(state.seats[0].deck) == 2


def test_r66_taia_only_one_card_left_keeps_it() -> None:
    target = plain(1)
    d = drawer(target)
    state = battle(target, d, "tai2", "tai3", "tai4", "tai5", "tai6", hero="taia",
                   abilities=True, deck=["tai1"], discard=[])
    state = run(state, f"play:{d}")
    assert state.phase is Phase.BATTLE
    assert state.seats[0].hand[-1] == "tai1" and state.seats[0].deck == ()


def test_r66_taia_not_for_the_end_of_turn_draw() -> None:
    target = plain(1)
    state = battle(target, hero="taia", abilities=True,
                   deck=["tai1", "tai2", "tai3", "tai4", "tai5", "tai6"])
    state = run(state, "end")
    assert state.seats[0].hand == ("tai1", "tai2", "tai3", "tai4")


def test_r66_taia_without_the_variant() -> None:
    target = plain(1)
    d = drawer(target)
    state = run(battle(target, d, hero="taia", deck=["tai1", "tai2", "tai3", "tai4", "tai5",
                                                     "tai6"]), f"play:{d}")
    assert state.phase is Phase.BATTLE and state.seats[0].hand == ("tai1",)


def test_r66_taia_draw_curse_draws_nothing() -> None:
    target = cursed("draw")
    d = drawer(target)
    state = run(battle(target, d, hero="taia", abilities=True), f"play:{d}")
    assert state.phase is Phase.BATTLE and state.seats[0].hand == ()
