"""Each language uses one word for each game term: the glossaries in ``docs/glossary/`` name it,
no catalogue text uses a variant they forbid, and the texts that name a move or the Lord name it
with the glossary's word."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from shared_files import require_file, rulebook

from i18n import LOCALES, catalog, texts

ROOT = Path(__file__).resolve().parents[1]
GLOSSARIES = ROOT / "docs" / "glossary"
#: Keys holding proper names (cards, monsters, heroes): the glossary does not judge them.
NAMES = re.compile(r"^(card|back)\.|^hero\.\w+\.name$")


@dataclass(frozen=True)
class Term:
    """One row of a glossary: the notion, the word(s) used, the variants never used."""

    notion: str
    words: tuple[str, ...]
    never: tuple[str, ...]
    source: str


def glossary(locale: str) -> list[Term]:
    """The rows of ``docs/glossary/<locale>.md``'s table."""
    rows = []
    for line in (GLOSSARIES / f"{locale}.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not line.startswith("|") or set(cells[0]) <= {"-"}:
            continue
        words, never = (tuple(re.findall(r"`([^`]+)`", c)) for c in cells[1:3])
        if words:
            rows.append(Term(cells[0], words, never, cells[3]))
    return rows


def sentences(locale: str) -> dict[str, str]:
    """Every text of ``locale`` but the proper names, by key (plural forms joined)."""
    return {k: " / ".join(texts(v)) for k, v in catalog(locale).items() if not NAMES.match(k)}


def _uses(text: str, variant: str) -> bool:
    """True when ``text`` uses ``variant``: a piece with a placeholder anywhere in the template, a
    regular expression (``re:`` before it) anywhere in the text, a word at the start of a word of
    the text (placeholders left out of both; a regular expression sees each written ``{}``)."""
    words = re.sub(r"\{[^}]*\}", "{}", text)
    if variant.startswith("re:"):
        return re.search(variant[3:], words, re.IGNORECASE) is not None
    if "{" in variant:
        return variant.lower() in text.lower()
    return re.search(r"(?<!\w)" + re.escape(variant), words, re.IGNORECASE) is not None


@pytest.mark.parametrize("locale", LOCALES)
def test_every_language_has_a_glossary(locale: str) -> None:
    terms = glossary(locale)
    assert len(terms) >= 15, f"{locale}: {len(terms)} terms"
    assert {t.source for t in terms} <= {"rulebook", "project"}
    assert sum(bool(t.never) for t in terms) >= 10


@pytest.mark.parametrize("locale", LOCALES)
def test_no_text_uses_a_forbidden_variant(locale: str) -> None:
    found = [(term.notion, variant, key, text)
             for term in glossary(locale) for variant in term.never
             for key, text in sentences(locale).items() if _uses(text, variant)]
    assert not found, found[:10]


@pytest.mark.parametrize("locale", LOCALES)
def test_the_chosen_words_are_the_ones_players_read(locale: str) -> None:
    everything = " ".join(sentences(locale).values()).lower()
    missing = [(t.notion, w) for t in glossary(locale) for w in t.words
               if w.lower() not in everything]
    assert not missing, missing


@pytest.mark.parametrize("locale", LOCALES)
def test_the_rulebook_words_are_the_printed_rulebook_s(locale: str) -> None:
    path = require_file(rulebook(locale),
                        f"the glossary's words against the printed {locale} rulebook")
    book = " ".join(path.read_text(encoding="utf-8").split()).lower()
    absent = [(t.notion, t.words) for t in glossary(locale) if t.source == "rulebook"
              and not any(w.lower().replace("{", "") in book for w in t.words)]
    assert not absent, absent


def test_a_forbidden_variant_is_caught() -> None:
    """The check itself: a text using a forbidden variant is found."""
    assert _uses("Líznuté karty", "lízn")
    assert not _uses("olíznout", "lízn")  # at a word's start only
    assert not _uses("vybavení", "výbav")
    assert not _uses("životy {hp}", "HP")  # placeholders are not words
    assert _uses("Kolo {round} – tah {step}", "tah {step}")


#: Texts that name one thing, by the glossary notion whose word they must use: the move of
#: reviving (also when it only ends a turn at full HP), and the Lord whatever its card's name.
NAMED = {
    "bot.move.revive": "revive", "bot.move.rest": "revive", "move.revive": "revive",
    "event.revive": "revive", "event.start": "the Lord", "bot.move.fight_lord": "the Lord",
    "replay.bookmark.lord": "the Lord", "replay.bookmark.champion": "the Lord",
    "event.champion": "the Lord", "bot.rules.lord": "the Lord",
}


@pytest.mark.parametrize("locale", LOCALES)
def test_one_thing_has_one_name(locale: str) -> None:
    terms = {t.notion: t for t in glossary(locale)}
    found = sentences(locale)
    unnamed = [(key, found.get(key)) for key, notion in NAMED.items()
               if not any(_uses(found.get(key, ""), w) for w in terms[notion].words)]
    assert not unnamed, unnamed


#: English texts naming a match's round (every seat once). Every other English text with the word
#: "round" names a tournament's round (all its tables once).
MATCH_ROUND = {
    "bot.table.footer", "event.turn", "replay.bookmark.turn", "history.entry", "replay.where",
    "render.round", "render.chart.summary_title", "render.chart.rounds",
}


def _notion(locale: str, notion: str) -> Term:
    """The row of ``locale``'s glossary for ``notion`` (its first cell, before any parenthesis)."""
    return next(t for t in glossary(locale) if t.notion.split(" (")[0] == notion)


@pytest.mark.parametrize("locale", LOCALES)
def test_a_match_s_round_and_a_tournament_s_round_are_told_apart(locale: str) -> None:
    """A tournament's history lists a round's matches with how many rounds each lasted: each text
    uses its own word, and a language with two words never uses the other one."""
    match, tournament = _notion(locale, "round"), _notion(locale, "tournament round")
    apart = not set(match.words) & set(tournament.words)
    found = sentences(locale)
    wrong = []
    for key, english in sentences("en").items():
        if not re.search(r"\bround", english, re.IGNORECASE):
            continue
        own, other = (match, tournament) if key in MATCH_ROUND else (tournament, match)
        said = found[key].replace("_", " ")  # an option's name: délka_kola
        if (not any(_uses(said, w) for w in own.words)
                or apart and any(_uses(said, w) for w in other.words)):
            wrong.append((key, said))
    assert not wrong, wrong
    assert locale == "en" or apart


def test_a_forbidden_pattern_is_caught() -> None:
    """A ``re:`` variant: the Lord named short, or by its card's name alone."""
    short = "re:Lord\\b(?! of All Monsters)"
    assert _uses("With all three keys you may face the Lord.", short)
    assert not _uses("You may face the Lord of All Monsters.", short)
    assert _uses("Na vládce se můžete utkat.", "re:vládc\\w*\\b(?! nestvůr)")
    assert not _uses("Utkat se s vládcem nestvůr", "re:vládc\\w*\\b(?! nestvůr)")
    number_after_kolo = "re:\\bkol\\w*:?\\s\\{\\}"
    assert _uses("Kolo {round}: na tahu je {who}.", number_after_kolo)
    assert _uses("kola:\u00a0{rounds}", number_after_kolo)
    assert not _uses("{round}. kolo turnaje {name} skončilo", number_after_kolo)


#: Card, monster and hero names that use a word a glossary forbids in sentences, each on
#: purpose: a proper name (a Lord's card, a hero's title word), never the game's term for the
#: thing. Any other name using a forbidden variant fails.
PROPER_NAMES = {
    "en": {"card.m3-16": "Wight Lord", "hero.xanros.name": "Lord Xanros",
           "card.lord-1": "Goblin King", "card.xan2": "Hex Guard"},
    "fr": {"card.g2-4": "Portier troll", "card.g3-3": "Démon portier",
           "card.lord-1": "Roi gobelin"},
    "cs": {"card.lord-1": "Gobliní král"},
}


@pytest.mark.parametrize("locale", LOCALES)
def test_card_names_use_no_forbidden_variant_but_the_listed_proper_names(locale: str) -> None:
    names = {k: " / ".join(texts(v)) for k, v in catalog(locale).items() if NAMES.match(k)}
    assert len(names) > 100
    found = {key: text for term in glossary(locale) for variant in term.never
             for key, text in names.items() if _uses(text, variant)}
    assert found == PROPER_NAMES[locale]
