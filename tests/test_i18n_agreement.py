"""Words that agree with a name: every monster's name carries its gender in French and Czech, and a
sentence that points back at a monster, a battle or an effect agrees with it in every language."""

from __future__ import annotations

import re
import string

import pytest

from bot.game.facts import monster_line
from engine.catalog import tables
from engine.names import card_name, monster_name, word
from i18n import LOCALES, Msg, catalog, msg, texts, translate
from i18n.grammar import GENDERS, Name, agree

MONSTERS = sorted(tables().monsters)
#: The pronoun that stands for a monster the hand cannot beat, by language and gender.
PRONOUN = {
    "fr": {"m": "ne peut le vaincre.", "f": "ne peut la vaincre."},
    "cs": {"m": "na něj nestačí.", "f": "na ni nestačí.", "n": "na ně nestačí."},
}


def _gender(locale: str, name: Msg) -> str:
    entry = catalog(locale)[name.key]
    assert isinstance(entry, Name), f"{locale} {name.key}: a name without its gender"
    return entry.gender


@pytest.mark.parametrize("locale", ["fr", "cs"])
def test_every_monster_name_has_its_gender(locale: str) -> None:
    for monster in MONSTERS:
        assert _gender(locale, monster_name(monster)) in GENDERS


@pytest.mark.parametrize("hopeless", [False, True])
@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("monster", MONSTERS)
def test_a_hopeless_fight_names_or_points_at_its_monster(monster: str, locale: str,
                                                         hopeless: bool) -> None:
    text = translate(monster_line(monster, hopeless), locale)
    name = monster_name(monster)
    assert "{" not in text and "=" not in text, text
    assert len(text) <= 100, text  # a menu option's description, whole
    if not hopeless:
        assert not re.search(r"vaincre|nestačí|cannot", text), text
    elif locale == "en":
        assert text.endswith(f"Your hand cannot beat the {translate(name, 'en')}."), text
    else:
        assert text.endswith(PRONOUN[locale][_gender(locale, name)]), text


def test_the_monsters_players_reported_take_their_pronoun() -> None:
    def hopeless(monster: str, locale: str) -> str:
        return translate(monster_line(monster, True), locale)

    assert hopeless("m1-02", "fr").endswith("ne peut la vaincre.")   # Chauve-souris géante
    assert hopeless("g1-4", "fr").endswith("ne peut la vaincre.")    # Reine araignée
    for beetle_crawler_slime in ("m1-20", "m1-14", "m1-08"):
        assert hopeless(beetle_crawler_slime, "cs").endswith("na něj nestačí.")


def test_giving_up_an_unhurt_battle_says_la_for_la_bataille() -> None:
    text = translate(msg("bot.undo.end_unhurt"), "fr")
    assert "Vous la perdrez" in text, text


@pytest.mark.parametrize("effect", ["attack", "defence", "draw", "heal"])
def test_the_potion_of_strength_names_the_effect_in_czech_in_the_accusative(effect: str) -> None:
    text = translate(msg("event.potion_strength", who="Eva", effect=word("effect", effect),
                         card=card_name("hor3")), "cs")
    accusative = {"attack": "útok", "defence": "obranu", "draw": "dobírání", "heal": "léčení"}
    assert text == f"Eva pije lektvar síly a zdvojnásobuje {accusative[effect]} karty Úder štítem."


def test_the_hints_used_read_well_for_one_person_in_czech() -> None:
    """The line counts the hints used; it also closes a hint asked again and a hint whose
    decision has passed, where "Toto je vaše 2. rada" named a hint not given just now."""
    texts_ = [translate(msg("bot.hint.used", count=count), "cs") for count in (1, 2, 5)]
    assert texts_ == ["V této hře jste použili 1 radu.", "V této hře jste použili 2 rady.",
                      "V této hře jste použili 5 rad."], texts_


def _selects(text: str) -> list[tuple[str, str]]:
    """(parameter, select) of each agreement select of ``text``."""
    return [(f, spec) for _, f, spec, _ in string.Formatter().parse(text)
            if f and spec and "=" in spec]


@pytest.mark.parametrize("locale", LOCALES)
def test_every_select_on_a_monster_covers_the_genders_of_its_monsters(locale: str) -> None:
    genders = {e.gender for k, e in catalog(locale).items()
               if isinstance(e, Name) and k.removeprefix("card.") in tables().monsters}
    seen = 0
    for key, entry in catalog(locale).items():
        for text in texts(entry):
            for field, spec in _selects(text):
                options = dict(o.split("=", 1) for o in spec.split("|"))
                assert set(options) <= {*GENDERS, "pl"}, (key, spec)
                if field == "monster":
                    seen += 1
                    assert genders <= set(options), (key, spec, genders)
    assert seen >= (2 if locale != "en" else 0)


def test_a_select_takes_the_option_of_the_gender_else_the_first() -> None:
    assert agree("m=le|f=la", Name("Araignée", "f")) == "la"
    assert agree("m=le|f=la", Name("Rat", "m")) == "le"
    assert agree("m=le|f=la", Name("Zjevení", "n")) == "le"
    assert agree("m=le|f=la|pl=les", Name("Dagues", "f", plural=True)) == "les"
    assert agree("m=něj|f=ni", None) == "něj"


@pytest.mark.parametrize("key", ["bot.error.missing_permissions", "bot.thread.no_permission",
                                 "replay.sharing.clicker_lacks", "replay.sharing.bot_lacks"])
def test_missing_permissions_agree_with_how_many_are_missing(key: str) -> None:
    """One missing permission is named in the singular, two or more in the plural: "cette
    permission" / "ces 2 permissions", "toto oprávnění" / "tato 2 oprávnění" / "těchto 5
    oprávnění"."""
    def said(locale: str, count: int) -> str:
        return translate(msg(key, missing="X", count=count), locale)

    assert "this permission here: X." in said("en", 1)
    assert "these 2 permissions here: X." in said("en", 2)
    assert "cette permission\u00a0: X." in said("fr", 1)
    assert "ces 2 permissions\u00a0: X." in said("fr", 2)
    assert "chybí toto oprávnění: X." in said("cs", 1)
    assert "chybí tato 2 oprávnění: X." in said("cs", 2)
    assert "chybí těchto 5 oprávnění: X." in said("cs", 5)
    # the admin is asked to grant "it", not "them"
    for locale, them in (("en", "grant them"), ("fr", "de les accorder"), ("cs", "ať je ")):
        assert them not in said(locale, 1)
