"""Properties of the engine over random legal play (Hypothesis), checked at every step of a
drawn walk (see :mod:`property_play`):

* every card is in exactly one place (``engine.validate``), HP stays in 0..5, keys are never lost;
* the legal actions are non-empty and duplicate-free until the game ends, and empty after;
* every legal action applies, and its notation reads back (``parse(str(a)) == a``, <= 60 chars);
* a public event names no card hidden before and after it;
* any other action (from every notation the game knows) is refused with :class:`IllegalAction`,
  with the specific reason where one applies.

The JSON round trip and replays are in ``test_properties_replay.py``, what an observation may
show in ``test_properties_observation.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_play import (
    PROPS,
    all_notations,
    check_invariants,
    check_successor,
    configs,
    fast_forward,
    hidden_from,
    strings,
    walk,
)

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
    NotYourTurn,
    Pay,
    Phase,
    Play,
    Revive,
    SetStacking,
    TakeReward,
    VisitMerchant,
    apply,
    legal_actions,
    parse,
)
from engine.actions import LORD_LEVEL
from engine.catalog import tables
from engine.legality import HEAL_PHASES
from engine.serialize import to_data
from engine.validate import check_state
from i18n import has_key

# --------------------------------------------------------------------------- oracle of reasons


PHASES: dict[type[Action], tuple[Phase, ...]] = {
    Fight: (Phase.TURN,), VisitMerchant: (Phase.TURN,), Revive: (Phase.TURN,),
    SetStacking: (Phase.TURN,), Discard: (Phase.DISCARD,), Play: (Phase.BATTLE,),
    DrinkStrength: (Phase.BATTLE,), EndBattle: (Phase.BATTLE,), KeepDrawn: (Phase.TAIA,),
    DrinkCountercurse: (Phase.BATTLE, Phase.DISCARD), DrinkHealing: HEAL_PHASES,
    TakeReward: (Phase.REWARD,), BuyPotion: (Phase.MERCHANT,), BuyPawned: (Phase.MERCHANT,),
    LeaveMerchant: (Phase.MERCHANT,), Pay: (Phase.PAY,), CancelPurchase: (Phase.PAY,),
}
POTION_OF = {DrinkHealing: "healing", DrinkStrength: "strength",
             DrinkCountercurse: "countercurse"}


def expected_reasons(state: GameState, action: Action) -> set[str] | None:
    """The reason codes the rules call for when ``action`` is illegal, or None if not obvious."""
    seat = state.seat
    t = tables()
    if state.phase is Phase.OVER:
        return {"game_over"}
    if state.phase not in PHASES[type(action)]:
        return {"not_now"}
    if isinstance(action, Play | Discard) and action.card not in seat.hand:
        return {"not_in_hand"}
    if type(action) in POTION_OF and POTION_OF[type(action)] not in seat.potions:
        return {"no_potion"}
    if isinstance(action, DrinkHealing):
        return {"no_hp", "no_hp_next_turn", "full_hp"}
    if isinstance(action, KeepDrawn):
        return {"not_drawn"}
    if isinstance(action, SetStacking):
        return {"stacking_same"}
    if isinstance(action, Fight):
        if seat.hp <= 0:
            return {"no_hp"}
        have = {t.monsters[k].level for k in seat.keys}
        if action.level == LORD_LEVEL:
            return {"lord_needs_keys"}
        if any(lv not in have for lv in range(1, action.level)):
            return {"key_required"}
        if action.slot == 0:
            return {"has_key"} if action.level in have else {"no_gatekeeper"}
        return {"empty_slot"}
    if isinstance(action, BuyPawned):
        if state.bought_pawned:
            return {"one_pawned"}
        if action.card not in state.pawnshop:
            return {"not_in_pawnshop"}
        return {"no_payment"}
    if isinstance(action, BuyPotion):
        return {"potion_held", "sold_out", "no_payment"}
    if isinstance(action, Pay):
        if action.source in ("weapon", "armour"):
            return {"no_equipment"}
        if action.source in seat.keys:
            return {"key_payment"}
        if action.source in ("strength", "healing", "countercurse"):
            return {"potion_payment"}
        if action.source not in seat.hand:
            return {"not_in_hand"}
        return {"starting_card_payment"}
    if isinstance(action, DrinkCountercurse):
        return {"already_countered", "no_such_curse"}
    if isinstance(action, DrinkStrength):
        return {"strength_needs_card", "already_doubled", "strength_no_effect"}
    return None


def check_refused(state: GameState, action: Action) -> None:
    """``action`` (not legal in ``state``) is refused with a specific, translated reason."""
    with pytest.raises(IllegalAction) as info:
        apply(state, action)
    error = info.value
    assert has_key(error.reason.key), error.reason.key
    text = error.message("en")
    assert text and "{" not in text, text
    assert error.code == error.reason.key.rsplit(".", 1)[-1]
    want = expected_reasons(state, action)
    if want is not None:
        assert error.code in want, f"{action}: got {error.code!r}, expected one of {want}"
    else:
        assert error.code != "not_allowed", f"{action}: generic reason in phase {state.phase}"


# --------------------------------------------------------------------------- per-step checks


def check_public_events(before: GameState, after: GameState, events: list[Any]) -> None:
    """A public event names no card that is hidden from a spectator both before and after it
    (a card may be named as it goes from a hand to the pawnshop, or from the pawnshop onto a
    deck, but never while it stays in a hand, a deck or Taia's pair)."""
    hidden = hidden_from(before, None) & hidden_from(after, None)
    for event in events:
        if event.to is None:
            leaked = set(strings(to_data(event.text))) & hidden
            assert not leaked, f"public event {event.text.key} names hidden {sorted(leaked)}"


@given(config=configs(), data=st.data())
@settings(PROPS, max_examples=20)
def test_invariants_and_every_legal_action_applies(config: GameConfig, data: st.DataObject) -> None:
    notations = all_notations()
    for state in walk(data, fast_forward(data, config)):
        check_invariants(state)
        legal = legal_actions(state)
        for action in legal:
            text = str(action)
            assert len(text) <= 60 and parse(text) == action, text
            after, events = apply(state, action)
            check_state(after)
            check_successor(state, after, events)
            check_public_events(state, after, events)
            assert apply(state, action, check=False) == (after, events)
        if legal:
            other = (state.current + 1) % len(state.seats)
            with pytest.raises(NotYourTurn):
                apply(state, legal[0], seat=other)
        for text in data.draw(st.lists(st.sampled_from(notations), max_size=3), label="probes"):
            action = parse(text)
            assert str(action) == text
            if action not in legal:
                check_refused(state, action)
