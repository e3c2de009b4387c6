"""Sentences, not glued fragments: every message renders in every language with sample values,
counts go through the plural rules, and a translated fragment (a game word, a level, a phase)
put inside other sentences is either a noun phrase that fits any sentence, or used in one
sentence only (the translator wrote that sentence around it).

The check reads the code: each ``msg("outer", name=word("kind", ...))`` or
``msg("outer", name=msg("family.x"))`` (and each event maker given a ``word``) is one use of the
fragment family ``kind.`` / ``family.`` inside the sentence ``outer``.
"""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from bot.game.seats import MAX_SEATS, MIN_SEATS
from bot.game.tournaments import MAX_ENTRANTS, MAX_ROUNDS
from engine.catalog import tables
from i18n import LOCALES, Msg, catalog, placeholders, translate

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("bot", "engine", "render", "playground")
#: Fragment families a sentence may take as a parameter wherever it likes: each entry is a noun
#: phrase (or a name) in every language, so any sentence can be written around it.
NOUN_PHRASES = {
    "card.": "card names",
    "back.": "the names of the rewards on monsters' backs",
    "hero.": "hero names and titles",
    "curse.": "what a curse forbids: 'red cards', 'card attack'",
    "potion.": "potion names",
    "slot.": "'weapon', 'armour'",
    "effect.": "'attack', 'defence', 'draw', 'heal'",
    "colour.": "colour names, written to stand alone and before 'card'",
    "bot.level.": "AI level names, written to stand alone",
    "bot.lobby.": "'on', 'off', timer lengths: short values after a label",
    "bot.language.": "language names",
    "bot.table.": "'(AI)', the mark after a seat's name",
    "bot.facts.": "whole facts set after a label",
    "list.": "'nothing', a list of noun phrases",
    "bot.move.": "'the reward', a noun phrase",
    "render.": "labels of the pictures",
    "replay.": "labels of a replay's bookmarks",
}
#: Fragment families put into several sentences whose translations were written around them
#: in every language (the family, and the only sentences it may go into).
WRITTEN_AROUND = {
    "stacking.": ({"event.stacking", "move.stack"},
                  "a manner phrase both sentences end with: 'rebuilds the deck / the switch to "
                  "reward cards on top', 'reconstitue son deck / reconstituer son deck en "
                  "mélangeant tout'"),
}
#: Sample values by placeholder name (anything else gets a short word).
SAMPLES: dict[str, object] = {"count": 2, "n": 3, "table": 12, "hp": 5, "attack": 4,
                              "defence": 2, "draw": 1, "heal": 0, "hand": 4, "level": "II",
                              "round": 3, "step": 40, "min": 2, "slot": 2}


def _names(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else (
        func.attr if isinstance(func, ast.Attribute) else "")


def _key(node: ast.expr) -> str | None:
    """The key a msg/word call names (an f-string's constant start, ending at its last dot)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0],
                                                                      ast.Constant):
        start = str(node.values[0].value)
        return start[:start.rfind(".") + 1] if "." in start else start
    return None


def _family(node: ast.expr) -> str | None:
    """The fragment family a parameter value comes from, when it is a msg/word call."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    name, key = _names(node), _key(node.args[0])
    if key is None:
        return None
    if name == "word":
        return key + "."
    if name in ("msg", "Msg"):
        return key[:key.rfind(".") + 1] if "." in key else key
    return None


def fragment_uses() -> dict[str, set[str]]:
    """Each fragment family and the sentences (keys) it is put into."""
    uses: dict[str, set[str]] = {}
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                name = _names(node)
                func = node.func
                if name in ("msg", "Msg") and node.args:
                    outer = _key(node.args[0])
                    values = [k.value for k in node.keywords]
                elif (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                      and func.value.id == "events"):
                    outer, values = f"event.{func.attr}", list(node.args)
                else:
                    continue
                for value in values:
                    family = _family(value)
                    if outer is not None and family is not None:
                        uses.setdefault(family, set()).add(outer)
    return uses


def test_the_scan_sees_the_fragments_it_checks() -> None:
    uses = fragment_uses()
    assert {"curse.", "potion.", "bot.level.", "stacking."} <= set(uses), sorted(uses)


def test_a_fragment_in_several_sentences_is_a_noun_phrase() -> None:
    glued = {family: sorted(outers) for family, outers in fragment_uses().items()
             if len(outers) > 1 and not any(family.startswith(f) for f in NOUN_PHRASES)
             and not outers <= WRITTEN_AROUND.get(family, (set(), ""))[0]}
    assert glued == {}, glued


@pytest.mark.parametrize("locale", LOCALES)
def test_every_message_renders_with_sample_values(locale: str) -> None:
    for key, entry in catalog(locale).items():
        params = {name.split(":")[0].split(".")[0]: SAMPLES.get(name.split(":")[0], "Ann")
                  for name in placeholders(entry)}
        text = translate(Msg(key, tuple(sorted(params.items()))), locale)  # type: ignore[arg-type]
        left = [f for _, f, _, _ in string.Formatter().parse(text) if f]
        assert not left and "{" not in text, (key, text)


#: Texts with a number before a plural noun whose number is never 1.
NEVER_ONE = {
    "bot.error.too_few": "a game's fewest seats (MIN_SEATS) is 2",
    "rematch.error.too_few": "a game's fewest seats (MIN_SEATS) is 2",
    "event.won": "a win's attack is at least the monster's HP, never below 2",
    "event.lost": "'of the {hp} hits': a monster's HP is never below 2",
    "bot.error.table_full": "a table's most seats (MAX_SEATS) is 4",
    "bot.table.game_over": "no game is won in one move (the Lord needs three keys first)",
    "bot.tournament.error.bad_rounds": "a tournament's most rounds (MAX_ROUNDS) is 10",
    "bot.tournament.error.full": "a tournament's most entrants (MAX_ENTRANTS) is 64",
}


def test_a_number_before_a_plural_noun_takes_plural_forms() -> None:
    """An English text with a number before a plural noun ("{hand} cards") would read
    "1 cards": such a text is a table of plural forms chosen by ``count``."""
    assert MIN_SEATS == 2 and MAX_SEATS == 4 and min(m.hp for m in tables().monsters.values()) >= 2
    assert (MAX_ROUNDS, MAX_ENTRANTS) == (10, 64)  # the Czech forms, too, are those of 5 and more
    counted = re.compile(r"\{(?:count|n|hand|min|max|steps|attack|defence|hp|heal|draw)\} "
                         r"(?:card|hit|seat|key|turn|round|player|potion|move|point|minute"
                         r"|second|step|table|life|live)s\b")
    glued = [key for key, entry in catalog("en").items()
             if isinstance(entry, str) and counted.search(entry) and key not in NEVER_ONE]
    assert glued == [], glued
