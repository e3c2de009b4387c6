"""Localised command and option names: Discord takes them (its rule for names, as the stand-in
checks it), and they are spelt as the language spells the word, accents kept (``numéro``,
``přehrát``), never folded to ASCII."""

from __future__ import annotations

import re
import unicodedata

import pytest

from i18n import LOCALES, catalog, texts
from loopback.slash import name_ok

NAME_KEYS = ("bot.cmd.name.", "bot.cmd.option.")


def _names(locale: str) -> dict[str, str]:
    return {k: v for k, v in catalog(locale).items()
            if k.startswith(NAME_KEYS) and isinstance(v, str)}


def _ascii(word: str) -> str:
    return unicodedata.normalize("NFD", word).encode("ascii", "ignore").decode()


@pytest.mark.parametrize("locale", LOCALES)
def test_every_command_and_option_name_is_one_discord_takes(locale: str) -> None:
    names = _names(locale)
    assert len(names) > 20
    assert [(k, v) for k, v in names.items() if not name_ok(v)] == []


@pytest.mark.parametrize("locale", ["fr", "cs"])
def test_names_keep_their_accents(locale: str) -> None:
    """A word of a name written without the accents the language's texts give it is folded."""
    words = {w for k, e in catalog(locale).items() if not k.startswith(NAME_KEYS)
             for t in texts(e) for w in re.findall(r"\w+", t.lower())}
    accented = {_ascii(w): w for w in words if _ascii(w) != w}
    folded = [(k, part, accented[part]) for k, name in _names(locale).items()
              for part in name.split("_") if part in accented and part not in words]
    assert folded == []


def test_the_reported_names_are_spelt_in_full() -> None:
    assert catalog("fr")["bot.cmd.option.id"] == "numéro"
    assert catalog("cs")["bot.cmd.name.replay"] == "přehrát"
    assert catalog("cs")["bot.cmd.option.id"] == "číslo"
    assert catalog("cs")["bot.cmd.option.undo"] == "vzít_zpět"
