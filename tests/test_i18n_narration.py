"""The narration of whole seeded games, read in French and Czech: the sentences players really get
use names with their articles, the chosen words and the right plural forms."""

from __future__ import annotations

import importlib.util
import re
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

from i18n import catalog, msg, translate
from i18n.grammar import czech_preposition

ROOT = Path(__file__).resolve().parents[1]


@cache
def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("narrate_script", ROOT / "scripts" / "narrate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def narration(locale: str) -> str:
    """Two seeded four-seat games (one heuristic, one random), narrated in ``locale``."""
    lines = _script().narrate(2, 4, "heuristic", locale) + _script().narrate(5, 4, "random", locale)
    return "\n".join(lines)


def test_the_games_are_long_enough_to_read() -> None:
    for locale in ("fr", "cs"):
        assert narration(locale).count("\n") > 300


def test_french_narration_uses_articles() -> None:
    text = narration("fr")
    assert re.search(r" affronte (l'|la |le |les )\w", text)
    assert re.search(r" terrasse (l'|la |le |les )\w", text)
    assert re.search(r"\n(L'|La |Le |Les )\w[^\n]* tient bon", text)
    assert re.search(r" joue (l'|la |le |les )\w", text)
    for wrong in (" de le ", " de les ", " à le ", " à les ", "monstre de niveau", " achète :",
                  "contre cette malédiction", "hors jeu", " d'l'", " de l'l"):
        assert wrong not in text, wrong
    assert not re.search(r"(joue|défausse|affronte|terrasse|gagne) [A-ZÉÈ]", text)


def test_czech_narration_reads_like_czech() -> None:
    text = narration("cs")
    assert "bojuje s nestvůrou" in text and "získává zpět" in text
    for wrong in ("lízn", "Lízn", "si léčí", "výbav", "Goblin ", "počet zásahů", "šampion",
                  "dobíracího balíčku o", "tazích"):
        assert wrong not in text, wrong
    # Plurals after numbers: 2-4 take the "few" form, 5 and more the "other" one.
    assert not re.search(r"\b[2-4]\s(životů|karet)\b", text)
    assert not re.search(r"\b([5-9]|\d\d)\s(životy|karty)\b", text)


@pytest.mark.parametrize(("low", "high"), [(1, 3), (2, 4), (1, 25)])
def test_czech_menus_count_their_options_in_any_number(low: int, high: int) -> None:
    text = translate(msg("playground.page.refusal.value_count", low=low, high=high), "cs")
    assert text == f"Počet vybraných možností v této nabídce musí být od {low} do {high}."


@pytest.mark.parametrize(("count", "cs", "fr"), [
    (1, "Eva získává zpět 1\u00a0život.", "Eva récupère 1\u00a0PV."),
    (3, "Eva získává zpět 3\u00a0životy.", "Eva récupère 3\u00a0PV."),
    (5, "Eva získává zpět 5\u00a0životů.", "Eva récupère 5\u00a0PV."),
])
def test_healing_plurals(count: int, cs: str, fr: str) -> None:
    assert translate(msg("event.heal", who="Eva", count=count), "cs") == cs
    assert translate(msg("event.heal", who="Eva", count=count), "fr") == fr


@pytest.mark.parametrize(("count", "expected"), [
    (1, "(1 karta)"), (4, "(4 karty)"), (7, "(7 karet)")])
def test_czech_reshuffle_counts_cards(count: int, expected: str) -> None:
    assert translate(msg("event.reshuffle", who="Eva", count=count), "cs").endswith(
        f"nový dobírací balíček {expected}.")


def test_count_sentences_have_plural_forms() -> None:
    """A text putting a word after ``{count}`` is a table of plural forms in every language
    whose plural differs (French and Czech), so no number meets the wrong form."""
    for locale in ("fr", "cs"):
        for key, entry in catalog(locale).items():
            if isinstance(entry, str) and re.search(r"\{count\} (?!PV)[^\W\d_]", entry):
                pytest.fail(f"{locale} {key}: {entry!r} needs plural forms")


@pytest.mark.parametrize(("locale", "lord"), [
    ("en", "fights the Lord of All Monsters, the Goblin King."),
    ("fr", "affronte le Seigneur de Tous les Monstres, le Roi gobelin."),
    ("cs", "bojuje s vládcem nestvůr, Gobliním králem."),
])
def test_a_fight_against_the_lord_names_the_lord(locale: str, lord: str) -> None:
    """The Lord's fight event carries level X (its chamber): the sentence names the Lord of All
    Monsters instead of a level, while a gatekeeper's or monster's fight keeps its level."""
    said = _script().narrate(2, 4, "heuristic", locale) + _script().narrate(5, 4, "random", locale)
    fights = [line for line in said if re.search(r"\b(fights|affronte|bojuje s)\b", line)]
    assert any(line.endswith(lord) for line in fights), fights[-3:]
    assert not [line for line in fights if re.search(r"\bX\)", line)]
    assert any(re.search(r"\((level|niveau|patro)\u00a0II\)\.$", line) for line in fights)


@pytest.mark.parametrize(("hp", "preposition"), [
    (1, "z"), (2, "ze"), (3, "ze"), (4, "ze"), (5, "z"), (6, "ze"), (7, "ze"), (8, "z"),
    (10, "z"), (12, "ze"), (15, "z"), (17, "ze"), (20, "ze"), (50, "z"), (100, "ze")])
def test_czech_z_before_a_number_is_vocalised_as_the_number_is_read(hp: int,
                                                                     preposition: str) -> None:
    """"ze 3" (ze tří), "ze 7" (ze sedmi), but "z 5" (z pěti): the lost fight's hits."""
    text = translate(msg("event.lost", who="Eva", attack=1, hp=hp, monster=msg("card.m3-20")),
                     "cs")
    assert f" jen 1 {preposition} {hp} potřebných zásahů: nestvůra Nága odolává." in text


@pytest.mark.parametrize(("preposition", "number", "expected"), [
    ("k", 2, "ke"), ("k", 7, "k"), ("v", 3, "ve"), ("v", 6, "v"), ("s", 6, "se"), ("S", 4, "Se"),
    ("s", 1, "s"), ("z", 1000, "z"), ("z", 2000, "ze"), ("z", 600, "ze"), ("k", 5, "k")])
def test_czech_prepositions_before_numbers(preposition: str, number: int, expected: str) -> None:
    assert czech_preposition(preposition, number) == expected


@pytest.mark.parametrize(("pages", "text"), [(3, "Strana 1 ze 3"), (5, "Strana 1 z 5"),
                                             (7, "Strana 1 ze 7")])
def test_czech_pages_say_ze_where_the_number_needs_it(pages: int, text: str) -> None:
    assert translate(msg("ratings.board.page", page=1, pages=pages), "cs") == text
    assert translate(msg("ratings.board.page", page=1, pages=pages), "en").startswith("Page 1")
