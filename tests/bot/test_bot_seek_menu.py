"""The replay's seek menu fits Discord's 100 characters per option without cutting a word: a step's
bookmarks that fit stay whole in the label, the others go to the description, and a text too
long even so ends at a word with an ellipsis. Players' names as long as Discord allows (32)."""

from __future__ import annotations

import re

import pytest

from bot.discord_side.ui.parts import cut
from bot.discord_side.ui.past import OPTION_TEXT, SEPARATOR, bookmark_options
from engine import new_game
from engine.replay import Replay
from engine.simulate import moves, seated
from engine.state import GameConfig, SeatConfig
from i18n import LOCALES, translate

NAMES = ("Bartholomew Fitzgerald-Underhill", "Anastasia Konstantinovna Ivanova",
         "Maximilian Alexander von Habsburg")


@pytest.fixture(scope="module")
def match() -> Replay:
    drawn = seated(7, 3, abilities=True)
    config = GameConfig(seats=tuple(SeatConfig(s.hero, name, ai=True)
                                    for s, name in zip(drawn.seats, NAMES, strict=True)),
                        abilities=True, seed=drawn.seed)
    return Replay(config, [action for _, action, _, _ in moves(new_game(config), "reach")])


def _whole(shown: str, full: str) -> bool:
    """True when ``shown`` is ``full``, or its start ending at a word with an ellipsis."""
    if shown == full:
        return True
    head = shown.removesuffix("…")
    return shown.endswith("…") and full.startswith(head) and not full[len(head)].isalnum()


@pytest.mark.parametrize("locale", LOCALES)
def test_every_option_fits_and_ends_at_a_word(match: Replay, locale: str) -> None:
    marks: dict[int, list[str]] = {}
    for mark in match.bookmarks:
        marks.setdefault(mark.step, []).append(translate(mark.label, locale))
    crowded = 0
    for step in range(0, match.last + 1, 20):
        for label, value, description in bookmark_options(match, step, locale):
            assert description is not None
            assert len(label) <= OPTION_TEXT and len(description) <= OPTION_TEXT
            everything = marks[int(value)]
            shown = label.split(SEPARATOR) + description.split(SEPARATOR)[1:]
            for text, full in zip(shown, everything, strict=False):
                assert _whole(text, full), (text, full)
            if len(SEPARATOR.join(everything)) > OPTION_TEXT:
                crowded += 1
                assert len(shown) == len(everything), (label, description)
    assert crowded > 0, "no step had more bookmarks than one label holds"


def test_a_cut_ends_at_a_word() -> None:
    text = "Kolo 12: na tahu je Anastasia Konstantinovna Ivanova " * 3
    shown = cut(text, OPTION_TEXT)
    assert len(shown) <= OPTION_TEXT and shown.endswith("…")
    assert re.search(r"\w…$", shown) and text.startswith(shown[:-1])
    assert text[len(shown) - 1] == " "
    assert cut("x" * 150, 100) == "x" * 99 + "…"
    assert cut("short", 100) == "short"


def test_a_cut_never_parts_what_a_no_break_space_joins() -> None:
    """A no-break space joins a number to its unit ("5 HP") or "n°" to its number: a cut
    falling on it goes back to the word before, never leaving "5…" without its HP."""
    text = "Wyvern: 5 attack, back to 5\u00a0HP and more"
    limit = text.index("\u00a0") + 1  # the cut's last kept character would be the no-break space
    assert cut(text, limit) == "Wyvern: 5 attack, back to…"
    assert cut("La table n°\u00a012 a commencé", 12) == "La table…"
