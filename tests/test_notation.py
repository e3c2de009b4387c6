"""Action notation: every action reads back from its text, and any other text is refused clearly."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_play import all_notations

from engine import (
    BadNotation,
    BuyPawned,
    BuyPotion,
    CancelPurchase,
    Discard,
    DrinkCountercurse,
    DrinkHealing,
    DrinkStrength,
    EndBattle,
    EngineError,
    Fight,
    KeepDrawn,
    LeaveMerchant,
    Pay,
    Play,
    Revive,
    SetStacking,
    TakeReward,
    VisitMerchant,
    parse,
)
from engine.actions import LORD_LEVEL

EXAMPLES = {
    "fight:1-3": Fight(1, 3),
    "fight:2-gate": Fight(2, 0),
    "fight:lord": Fight(LORD_LEVEL, 0),
    "merchant": VisitMerchant(),
    "revive": Revive(),
    "play:arg3": Play("arg3"),
    "play:xan2:attack": Play("xan2", "attack"),
    "strength:attack": DrinkStrength("attack"),
    "counter:red": DrinkCountercurse("red"),
    "heal": DrinkHealing(),
    "end": EndBattle(),
    "discard:hor1": Discard("hor1"),
    "keep:tai4": KeepDrawn("tai4"),
    "reward:keep": TakeReward(True),
    "reward:pawn": TakeReward(False),
    "buy:potion:strength": BuyPotion("strength"),
    "buy:card:m1-03": BuyPawned("m1-03"),
    "pay:weapon": Pay("weapon"),
    "pay:armour": Pay("armour"),
    "pay:card:m1-03": Pay("m1-03"),
    "cancel": CancelPurchase(),
    "leave": LeaveMerchant(),
    "stack:top": SetStacking("top"),
    "stack:bottom": SetStacking("bottom"),
    "stack:shuffle": SetStacking("shuffle"),
}


@pytest.mark.parametrize(("text", "action"), EXAMPLES.items())
def test_examples_of_the_brief(text: str, action: Any) -> None:
    assert parse(text) == action
    assert str(action) == text


def test_every_notation_of_the_game_round_trips() -> None:
    texts = all_notations()
    assert len(texts) > 500
    for text in texts:
        action = parse(text)
        assert str(action) == text
        assert parse(str(action)) == action
        assert len(text) <= 60


@pytest.mark.parametrize("text", [
    "", "fight", "fight:", "fight:4-1", "fight:1-6", "fight:1-0", "fight:0-1", "fight:1-gates",
    "fight:lord:1", "play:", "play:ARG1", "play:a", "play:arg1:poison", "play:arg1:attack:x",
    "buy:potion:elixir", "buy:potion", "buy:card:", "buy:sword", "stack:sideways", "stack:",
    "reward:maybe", "reward", "counter:purple", "counter:", "merchant:now", "strength:draw",
    "strength:", "pay:card:", "pay:sword", "pay", " end", "end ", "END", "end\n", "heal:1",
    "discard:hor 1", "keep:tai4:tai5", "x" * 61, "play:" + "a" * 13, "fight:1-3\x00",
    "cancel:", ":", "::", "leave:merchant", "revive:now",
])
def test_bad_text_is_refused(text: str) -> None:
    with pytest.raises(BadNotation) as info:
        parse(text)
    assert str(info.value)


@pytest.mark.parametrize("value", [None, 3, b"end", ["end"]])
def test_non_text_is_refused(value: Any) -> None:
    with pytest.raises(BadNotation):
        parse(value)


def test_bad_notation_is_a_value_error_and_an_engine_error() -> None:
    with pytest.raises(ValueError):
        parse("nonsense")
    with pytest.raises(EngineError):
        parse("nonsense")


def _shapes() -> st.SearchStrategy[str]:
    word = st.from_regex(r"[a-z0-9-]{0,13}", fullmatch=True)
    return st.one_of(
        st.text(max_size=70),
        st.lists(word, min_size=1, max_size=4).map(":".join),
        st.sampled_from(all_notations()).flatmap(
            lambda t: st.integers(0, len(t)).map(lambda i: t[:i] + t[i + 1:])),
    )


@given(text=_shapes())
@settings(deadline=None, max_examples=400)
def test_any_text_parses_to_an_action_or_is_refused(text: str) -> None:
    try:
        action = parse(text)
    except BadNotation as exc:
        assert str(exc)
        return
    again = str(action)
    assert len(again) <= 60
    assert parse(again) == action
    # the notation is canonical, except that "pay:card:weapon" also names paying with the weapon
    assert again == text or text in ("pay:card:weapon", "pay:card:armour")
