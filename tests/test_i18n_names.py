"""Names in sentences: French names carry their gender and take the right article, Czech names are
formed the Czech way, and players and heroes stand where their names need no declension."""

from __future__ import annotations

import re
import string

import pytest

from i18n import Param, catalog, msg, texts, translate
from i18n.grammar import Name, inflect, name_entry

#: Placeholders holding a card, monster or thing name (not a person) in the game's sentences.
THING_PARAMS = {"monster", "card", "cards", "first", "second", "other", "lord", "item", "paid"}
FR_NAMES = [k for k in catalog("fr") if re.match(r"(card|back)\.", k)]


def _fr(key: str, **params: Param) -> str:
    return translate(msg(key, **params), "fr")


def test_every_french_name_has_its_gender() -> None:
    assert len(FR_NAMES) > 180
    plain = [k for k in FR_NAMES if not isinstance(catalog("fr")[k], Name)]
    assert not plain, plain[:10]
    for kind in ("potion", "slot"):
        words = [v for k, v in catalog("fr").items() if k.startswith(kind + ".")]
        assert words and all(isinstance(v, Name) for v in words)


def test_french_names_starting_with_h_say_whether_they_elide() -> None:
    for key in FR_NAMES:
        name = catalog("fr")[key]
        assert isinstance(name, Name)
        if name.text[:1] in "hH":
            assert name.elision is not None, f"{key} {name.text!r}: silent or aspirated h?"


def _expected_the(name: Name) -> str:
    if name.plural:
        return "les " + name.text
    if name.elision is not None:
        elides = name.elision
    else:
        elides = name.text[:1].lower() in "aeiouyàâæéèêëîïôœùûü"
    if elides:
        return "l'" + name.text
    return ("la " if name.gender == "f" else "le ") + name.text


@pytest.mark.parametrize("key", FR_NAMES)
def test_every_french_name_takes_its_article(key: str) -> None:
    name = catalog("fr")[key]
    assert isinstance(name, Name)
    sentence = translate(msg("event.play", who="Ann", card=msg(key)), "fr")
    assert sentence == f"Ann joue {_expected_the(name)}."


@pytest.mark.parametrize(("key", "form", "expected"), [
    ("card.m1-05", "the", "l'Araignée"),
    ("card.g2-5", "the", "la Gargouille gardienne"),
    ("card.m3-01", "the", "le Troll des cavernes"),
    ("card.ade3", "the", "les Dagues jumelles"),
    ("card.m2-09", "the", "la Harpie"),          # h aspiré
    ("card.m3-12", "the", "l'Hydre"),            # h muet
    ("back.m2-01", "the", "la Hache de guerre"),
    ("card.m1-11", "the", "l'Homme-champignon"),
    ("back.m1-08", "of", "du Casque de cuir"),
    ("back.m1-10", "of", "de la Dague"),
    ("back.m1-16", "of", "de l'Épée courte"),
    ("card.ade3", "of", "des Dagues jumelles"),
    ("card.m3-01", "to", "au Troll des cavernes"),
    ("card.m2-09", "to", "à la Harpie"),
    ("card.m1-05", "to", "à l'Araignée"),
    ("card.ade3", "to", "aux Dagues jumelles"),
    ("card.m3-01", "a", "un Troll des cavernes"),
    ("card.m1-05", "a", "une Araignée"),
    ("card.m3-01", "The", "Le Troll des cavernes"),
    ("potion.strength", "the", "la potion de force"),
])
def test_french_forms(key: str, form: str, expected: str) -> None:
    name = catalog("fr")[key]
    assert isinstance(name, Name)
    assert inflect(name.text, name, form, "fr") == expected


def test_the_examples_players_reported_now_read_well() -> None:
    spider, gargoyle, bat = msg("card.m1-05"), msg("card.g2-5"), msg("card.m1-02")
    assert _fr("event.won", who="Horan", monster=spider, attack=3, hp=2).startswith(
        "Horan terrasse l'Araignée (")
    assert _fr("event.fight", who="Aderyn", monster=gargoyle, level="II") == (
        "Aderyn affronte la Gargouille gardienne (niveau\u00a0II).")
    assert _fr("event.lost", who="Eva", monster=bat, attack=1, hp=2).startswith(
        "La Chauve-souris géante tient bon\u00a0:")
    assert _fr("event.potion_counter", who="Eva", curse=msg("curse.yellow")) == (
        "Eva boit une potion de contre-malédiction et lève la malédiction "
        "«\u00a0cartes jaunes\u00a0».")
    assert _fr("event.bought", who="Eva", item=msg("back.m1-16"), paid=msg("back.m1-10")) == (
        "Eva achète l'Épée courte et paie avec la Dague.")
    assert _fr("event.bought", who="Eva", item=msg("potion.healing"), paid=msg("back.m1-08")) == (
        "Eva achète la potion de soin et paie avec le Casque de cuir.")
    assert _fr("event.equip", who="Eva", card=msg("back.m1-08")) == (
        "Eva s'équipe du Casque de cuir.")


def test_a_list_of_names_gives_the_form_to_each() -> None:
    cards = msg("list.last", head=msg("list.more", head=msg("card.ade3"), tail=msg("card.vic1")),
                tail=msg("card.hor5"))
    assert _fr("event.draw_private", cards=cards) == (
        "Vous piochez les Dagues jumelles, l'Estocade et le Cri de guerre.")
    assert translate(msg("event.draw_private", cards=cards), "en") == (
        "You drew Twin Daggers, Thrust and Battle Cry.")


def test_people_take_no_article() -> None:
    assert inflect("Aderyn", None, "of", "fr") == "d'Aderyn"
    assert inflect("Bob", None, "of", "fr") == "de Bob"
    assert inflect("Bob", None, "the", "fr") == "Bob"
    assert inflect("Bob", None, "to", "fr") == "à Bob"
    assert inflect("Araignée", Name("Araignée", "f"), "whatever", "fr") == "Araignée"
    assert inflect("Pavouk", Name("Pavouk"), "the", "cs") == "Pavouk"
    assert inflect("Orc", Name("Orc"), "a", "en") == "an Orc"


def test_a_name_entry_is_checked() -> None:
    assert name_entry("k", {"text": "Dague", "gender": "f"}) == Name("Dague", "f")
    for bad in ({"text": "Dague", "gender": "x"}, {"gender": "f"},
                {"text": "Dague", "number": "dual"}, {"text": "Dague", "colour": "red"},
                {"text": "Hache", "elision": "no"}):
        with pytest.raises(ValueError):
            name_entry("k", bad)


def _fields(text: str) -> list[tuple[str, str, str]]:
    """(literal before, field name, format spec) of each placeholder of ``text``."""
    return [(lit, f, spec or "") for lit, f, spec, _ in string.Formatter().parse(text) if f]


def test_french_sentences_ask_names_with_their_article() -> None:
    """In a French event or refusal, a thing's name never stands bare after a verb, and never
    after a preposition that should have merged with its article (de + le = du)."""
    bare = []
    for key, entry in catalog("fr").items():
        for text in texts(entry):
            for lit, field, spec in _fields(text):
                if re.search(r"(?<!\w)(de|à) $", lit) and spec.lower() in ("the", "of", "to"):
                    bare.append((key, f"{lit[-3:]}{{{field}:{spec}}}"))
                if (key.startswith(("event.", "error.")) and field in THING_PARAMS
                        and not spec):
                    bare.append((key, field))
    assert not bare, bare


def test_czech_names_are_formed_the_czech_way() -> None:
    names = {k: texts(e)[0] for k, e in catalog("cs").items() if re.match(r"(card|back)\.", k)}
    calques = [t for t in names.values()
               if re.match(r"(Goblin|Troll|Zlobr|Drak|Lich|Obr|Chrlič|Démon|Ork) \w{3,}", t)]
    assert not calques, calques
    assert names["card.m1-03"] == "Gobliní zvěd"
    assert names["card.m2-15"] == "Trollí mládě" and names["card.m3-01"] == "Jeskynní troll"
    assert not [t for t in names.values() if "Trolí" in t]


def test_czech_names_people_in_the_nominative() -> None:
    who = "Kateřina"
    for key in ("bot.table.timeout", "bot.table.timeout_final"):
        text = translate(msg(key, who=who), "cs")
        assert text.startswith("Kateřina: čas na tah vypršel"), text
    assert translate(msg("bot.error.hero_taken", hero=msg("hero.aderyn.name")), "cs") == (
        "Postavu Aderyn už má někdo jiný.")
    assert translate(msg("event.ability", who="Eva", hero=msg("hero.taia.name")), "cs") == (
        "Eva používá schopnost postavy Taia.")


@pytest.mark.parametrize("lord", ["lord-1", "lord-2", "lord-3"])
def test_czech_sentences_decline_the_lord_s_name_after_vladce_nestvur(lord: str) -> None:
    """Czech puts the Lord's name beside "vládce nestvůr" in the same case (an apposition),
    never a nominative name after an instrumental or accusative."""
    entry = catalog("cs")[f"card.{lord}"]
    assert isinstance(entry, Name)
    cases = dict(entry.cases)
    assert {"acc", "ins"} <= set(cases), lord
    name = msg(f"card.{lord}")
    said = {key: translate(msg(key, who="Eva", monster=name, level="X"), "cs")
            for key in ("event.fight", "bot.move.fight_lord", "replay.bookmark.lord",
                        "replay.bookmark.champion")}
    assert said["event.fight"] == f"Eva bojuje s vládcem nestvůr, {cases['ins']}."
    assert said["bot.move.fight_lord"].endswith(f"s vládcem nestvůr, {cases['ins']}")
    assert said["replay.bookmark.lord"].endswith(f"vládce nestvůr, {cases['acc']}")
    assert f"vládce nestvůr, {cases['acc']}, a" in said["replay.bookmark.champion"]
