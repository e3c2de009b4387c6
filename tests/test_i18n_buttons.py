"""Texts that tell a person to press a button name it the way it reads on the button, in italics
(*My hand*), in every language: the person looks for those very words."""

from __future__ import annotations

import re

import pytest

from i18n import LOCALES, catalog, texts

#: A text naming a button, by its key, and the keys of the labels of the buttons it names.
NAMES_BUTTONS: dict[str, tuple[str, ...]] = {
    "bot.rules.bot": ("bot.table.my_hand",),
    "bot.error.already_started": ("bot.table.my_hand",),
    "bot.error.not_your_hand": ("bot.table.my_hand",),
    "bot.hint.stale": ("bot.hint.button",),
    "bot.hint.taken_back": ("bot.hint.button",),
    "bot.hint.table_on": ("bot.hint.button",),
    "forget.partly": ("forget.confirm",),
    "rematch.offered_unposted": ("rematch.button",),
    "rematch.error.lapsed": ("rematch.button",),
    "rematch.error.no_offer": ("rematch.button",),
    "bot.tournament.signup.open": ("bot.tournament.signup.join",),
    "bot.tournament.signup.open_timed": ("bot.tournament.signup.join",),
    "playground.page.welcome": ("bot.lobby.ai", "bot.lobby.start"),
    "playground.page.welcome_dm": ("bot.lobby.ai", "bot.lobby.start"),
}

#: A piece in italics: one asterisk each side, not two (bold).
ITALICS = re.compile(r"(?<![*\w])\*(?![*\s])([^*]+?)(?<!\s)\*(?![*\w])")


def _text(locale: str, key: str) -> str:
    """Every form of ``key``'s text in ``locale``, joined."""
    return " / ".join(texts(catalog(locale)[key]))


@pytest.mark.parametrize("locale", LOCALES)
def test_a_text_names_its_buttons_by_their_labels_in_italics(locale: str) -> None:
    wrong = [(key, label) for key, labels in NAMES_BUTTONS.items() for label in labels
             if f"*{_text(locale, label)}*" not in _text(locale, key)]
    assert not wrong, wrong


@pytest.mark.parametrize("locale", LOCALES)
def test_every_piece_in_italics_is_a_button_s_label(locale: str) -> None:
    """A piece in italics names a button the text is listed with: a label that changed on its
    button, or a text naming a button no list knows, is caught."""
    wrong = []
    for key, value in catalog(locale).items():
        named = {_text(locale, label) for label in NAMES_BUTTONS.get(key, ())}
        wrong += [(key, piece) for text in texts(value) for piece in ITALICS.findall(text)
                  if piece not in named]
    assert not wrong, wrong


def test_italics_are_told_from_bold() -> None:
    assert ITALICS.findall("Press *My hand* on **the table**.") == ["My hand"]
    assert ITALICS.findall("**Rounds:** 3, 2 * 4 * 5") == []
