"""The translation layer and its three languages: complete, consistent and really translated."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from pathlib import Path

import pytest
from shared_files import require_file, rulebook

from i18n import (
    DEFAULT_LOCALE,
    LOCALES,
    PLURAL_FORMS,
    catalog,
    keys,
    msg,
    normalise_locale,
    placeholders,
    plural_form,
    texts,
    translate,
)

ROOT = Path(__file__).resolve().parents[1]
OTHERS = [lc for lc in LOCALES if lc != DEFAULT_LOCALE]
#: Plural categories each language uses for whole numbers (CLDR).
FORMS = {"en": {"one", "other"}, "fr": {"one", "other"}, "cs": {"one", "few", "other"}}
#: Texts that are rightly the same as in English: names, numbers and punctuation only, words
#: the other language shares, and each language's own name.
SAME_AS_ENGLISH = {
    "hero.argentus.name", "hero.horan.name", "hero.xanros.name", "hero.aderyn.name",
    "hero.victorius.name", "hero.taia.name",
    "card.m1-09", "card.m1-18", "card.m2-08", "card.m2-14", "card.m3-05", "card.m3-09",
    "card.m3-11", "card.m3-12", "card.m3-17", "card.m3-20", "card.vic2", "back.m3-24",
    "render.hand.deck", "bot.thread.name", "bot.cmd.name.group", "bot.cmd.lang.en",
    "bot.cmd.lang.fr", "bot.cmd.lang.cs", "bot.cmd.timer.t60", "bot.cmd.timer.t120",
    "bot.cmd.timer.t300",
    "bot.cmd.timer.t600", "bot.cmd.timer.t1800", "bot.lobby.minutes", "bot.lobby.seconds",
    "bot.table.ai", "bot.table.ai_played", "render.ai", "render.ai_played",
    "bot.level.normal", "bot.cmd.level.normal",
    "turns.span.hour", "turns.span.minute", "turns.list.ai",
    "playground.page.clock.hour", "playground.page.clock.hours",
}


def test_every_language_has_every_key() -> None:
    english = keys(DEFAULT_LOCALE)
    assert len(english) > 400
    for lc in OTHERS:
        mine = keys(lc)
        assert not english - mine, f"{lc} lacks {sorted(english - mine)[:20]}"
        assert not mine - english, f"{lc} has keys English lacks: {sorted(mine - english)[:20]}"


@pytest.mark.parametrize("locale", OTHERS)
def test_same_placeholders_as_english(locale: str) -> None:
    english = catalog(DEFAULT_LOCALE)
    bad = [k for k, entry in catalog(locale).items()
           if placeholders(entry) != placeholders(english[k])]
    assert not bad, [(k, sorted(placeholders(catalog(locale)[k])),
                      sorted(placeholders(english[k]))) for k in bad[:10]]
    # Each plural form uses only placeholders the English message has.
    for k, entry in catalog(locale).items():
        for text in texts(entry):
            assert placeholders(text) <= placeholders(english[k]), (k, text)


@pytest.mark.parametrize("locale", LOCALES)
def test_plural_tables_use_the_language_s_forms(locale: str) -> None:
    english = catalog(DEFAULT_LOCALE)
    for k, entry in catalog(locale).items():
        if not isinstance(entry, Mapping) or "by" in entry:
            continue
        assert "other" in entry and set(entry) <= FORMS[locale], (k, sorted(entry))
        assert "count" in placeholders(english[k]), f"{k} has plural forms but no {{count}}"


def test_plural_rules() -> None:
    assert [plural_form("en", n) for n in (0, 1, 2, 5)] == ["other", "one", "other", "other"]
    assert [plural_form("fr", n) for n in (0, 1, 2, 5)] == ["one", "one", "other", "other"]
    assert [plural_form("cs", n) for n in (0, 1, 2, 4, 5, 11)] == [
        "other", "one", "few", "few", "other", "other"]
    assert set(PLURAL_FORMS) >= {f for forms in FORMS.values() for f in forms}


def test_counts_choose_the_plural_form() -> None:
    hits = [translate(msg("event.hits", who="Eva", count=n), "cs") for n in (1, 3, 5)]
    assert hits == ["Eva ztrácí 1\u00a0život.", "Eva ztrácí 3\u00a0životy.",
                    "Eva ztrácí 5\u00a0životů."]
    assert translate(msg("event.draw", who="Ann", count=1), "en") == "Ann draws a card."
    assert translate(msg("event.draw", who="Ann", count=2), "en") == "Ann draws 2 cards."
    assert translate(msg("render.battle.hits", count=0), "fr") == "encaisse 0 coup"
    assert translate(msg("render.battle.hits", count=2), "fr") == "encaisse 2 coups"


def test_no_text_writes_a_plural_as_a_parenthesis() -> None:
    for lc in LOCALES:
        for k, entry in catalog(lc).items():
            for text in texts(entry):
                assert not re.search(r"\w\((s|y|e|es|i|ů)\)(?!:)", text), (lc, k, text)


def test_french_typography_and_elision() -> None:
    turn = translate(msg("event.turn", who="Aderyn", round=2), "fr")
    assert turn == "Manche 2\u00a0: au tour d'Aderyn."
    assert translate(msg("event.turn", who="Horan", round=2), "fr").endswith("de Horan.")
    assert translate(msg("render.hand.title", who="Ivan"), "fr") == "Main d'Ivan"
    champion = translate(msg("event.champion", who="Bob"), "fr")
    assert champion.endswith("Royaume\u00a0!") and " !" not in champion
    # Only French gets these rules.
    assert translate(msg("event.turn", who="Aderyn", round=2), "cs") == (
        "Runda 2: na tahu je Aderyn.")


def test_a_table_number_stays_on_the_line_of_its_n_or_c() -> None:
    """"n° 3" (French) and "č. 3" (Czech) keep their number on their line: a title at a phone's
    width must not end with "n°" and start the next line with "3"."""
    assert translate(msg("bot.lobby.title", table=3), "fr") == (
        "Karak: Goblin – nouvelle table n°\u00a03")
    assert translate(msg("bot.lobby.title", table=3), "cs") == "Karak: Goblin – nový stůl č.\u00a03"
    assert translate(msg("bot.done.abandon", table=12), "fr").startswith("La table n°\u00a012 ")
    for lc, sign in (("fr", "n° "), ("cs", "č. ")):
        for k, entry in catalog(lc).items():
            if k.startswith("render."):  # pictures draw their texts as they are
                continue
            for text in texts(entry):
                if sign in text:
                    rendered = translate(msg(k, **{p: 7 for p in placeholders(entry)}), lc)
                    assert not re.search(re.escape(sign) + r"\d", rendered), (lc, k, rendered)


#: Each language's words for hit points after a number ("5 HP", "5 PV", "5 životů").
HP_UNITS = {"en": r"HP\b", "fr": r"(?:PV|points? de vie)\b", "cs": r"život(?:y|ů)?\b"}


@pytest.mark.parametrize("locale", LOCALES)
def test_a_number_of_hp_stays_on_the_line_of_its_unit(locale: str) -> None:
    """"5 HP" ("5 PV", "5 životů") keeps its number and its unit on one line: a phone's width
    must not end a line with "5" and start the next with "HP", as the 1-HP fight question and
    the battle lesson did ("(back to 5 / HP)", "with 1 / HP left"); nor Czech's monster
    figures "životy" and its number ("útok 3, životy / 7")."""
    assert "(back to 5\u00a0HP)" in translate(
        msg("bot.undo.fight_lethal_potion", monster="Giant Bat", attack=3), "en")
    assert "retour à 5\u00a0PV" in translate(
        msg("bot.undo.fight_lethal_potion", monster="Chauve-souris", attack=3), "fr")
    assert "zpět na 5\u00a0životů" in translate(
        msg("bot.undo.fight_lethal_potion", monster="Netopýr", attack=3), "cs")
    assert "útok 3, životy\u00a07" in translate(
        msg("bot.move.monster_stats", attack=3, hp=7), "cs")
    split = re.compile(r"(?<!\w)\d+ " + HP_UNITS[locale] + r"|\bživoty \d")
    for k, entry in catalog(locale).items():
        if k.startswith("render."):  # pictures draw their texts as they are
            continue
        for count in (1, 3, 7):
            values = {p: count for p in placeholders(entry)}
            rendered = translate(msg(k, **values), locale)
            assert not split.search(rendered), (locale, k, rendered)


@pytest.mark.parametrize("locale", LOCALES)
def test_a_duration_keeps_its_numbers_with_their_units(locale: str) -> None:
    """"15 h 59 min" keeps each number on the line of its unit: a slow match's reminder on a
    phone ended a French line with "il reste 15" and began the next with "h 59 min"."""
    left = translate(msg("turns.left.hour_minute", count=15, minutes=59), locale)
    assert "15\u00a0h 59\u00a0min" in left, left
    split = re.compile(r"(?<!\w)\d+ (?:h|min)\b")
    for k, entry in catalog(locale).items():
        if k.startswith("render."):  # pictures draw their texts as they are
            continue
        for count in (1, 3, 7):
            rendered = translate(msg(k, **{p: count for p in placeholders(entry)}), locale)
            assert not split.search(rendered), (locale, k, rendered)

#: Each language's words for a level or a place, before its number.
NUMBERED = {"en": r"[Ll]evel|place", "fr": r"[Nn]iveau|place",
            "cs": r"[Pp]atr[oaue]|patře|pater|míst[oě]"}


@pytest.mark.parametrize("locale", LOCALES)
def test_a_level_and_a_place_keep_their_numbers(locale: str) -> None:
    """"level II, place 4" keeps each number on the line of its word: a fight's button and a
    hint's answer on a phone ended a line with "place" (Czech "patro") and began the next with
    "4" ("I")."""
    fight = translate(msg("bot.move.fight", monster="Ogre", level="II", slot=4), locale)
    assert re.search(r"\w\u00a0II, \w+\u00a04$", fight), fight
    split = re.compile(rf"(?<!\w)(?:{NUMBERED[locale]}) (?:\d|[IVX]+\b)")
    for k, entry in catalog(locale).items():
        if k.startswith("render."):  # pictures draw their texts as they are
            continue
        for value in (1, "II", 7):
            rendered = translate(msg(k, **{p: value for p in placeholders(entry)}), locale)
            assert not split.search(rendered), (locale, k, rendered)

@pytest.mark.parametrize("locale", LOCALES)
def test_a_past_match_s_figures_stay_with_their_labels(locale: str) -> None:
    """/goblin history's lines at a phone's width: a figure never starts a line away from its
    label ("HP:" / "5"), nor does a line start with the "·" between two figures."""
    seat = translate(msg("history.seat", place=2, who="Ann", hero="Taia", keys=1, hp=5), locale)
    entry = translate(msg("history.entry", table=3, date="<t:1:f>", rounds=37, moves=460),
                      locale)
    figures = entry.split("<t:1:f> · ", 1)[1]  # after the date, which stands on its own
    for text in (seat, figures):
        assert not re.search(r": \d| ·", text), text


@pytest.mark.parametrize(("given", "expected"), [
    ("fr", "fr"), ("cs", "cs"), ("en-US", "en"), ("en-GB", "en"), ("fr_FR", "fr"),
    ("de", "en"), ("pt-BR", "en"), ("", "en"), (None, "en"),
])
def test_discord_locales_map_onto_ours(given: str | None, expected: str) -> None:
    assert normalise_locale(given) == expected


def test_unknown_locales_fall_back_to_english() -> None:
    for lc in ("de", "ja", "es-ES"):
        assert translate("bot.table.my_hand", lc) == "My hand"
    assert translate("bot.table.my_hand", "cs") == "Moje ruka"
    assert translate("no.such.key", "fr") == "no.such.key"


def _same_as_english(locale: str) -> set[str]:
    """Keys whose text in ``locale`` is the English text, words and all."""
    english = catalog(DEFAULT_LOCALE)
    return {k for k, entry in catalog(locale).items()
            if texts(entry) == texts(english[k])
            and any(re.search(r"[^\W\d_]", re.sub(r"\{[^}]*\}", "", t)) for t in texts(entry))}


@pytest.mark.parametrize("locale", OTHERS)
def test_texts_are_really_translated(locale: str) -> None:
    """A text identical to the English one is a forgotten translation (names aside)."""
    same = sorted(_same_as_english(locale) - SAME_AS_ENGLISH)
    assert not same, f"{locale}: still English: {same[:20]}"


def test_the_same_as_english_list_is_exact() -> None:
    found = set().union(*(_same_as_english(lc) for lc in OTHERS))
    assert SAME_AS_ENGLISH <= found, sorted(SAME_AS_ENGLISH - found)


def test_the_rulebooks_vocabulary() -> None:
    """The game's own terms, as the printed French and Czech rulebooks name them."""
    fr = {k: " ".join(texts(v)) for k, v in catalog("fr").items()}
    cs = {k: " ".join(texts(v)) for k, v in catalog("cs").items()}
    assert fr["render.pawnshop"] == "Prêteur sur gages"
    assert "Seigneur de Tous les Monstres" in fr["bot.card.reward_none"]
    assert "gardien" in fr["bot.card.reward_key"]
    assert fr["potion.countercurse"] == "potion de contre-malédiction"
    assert fr["hero.aderyn.title"] == "la Voleuse" and fr["hero.taia.title"] == "la Prophétesse"
    assert cs["render.pawnshop"] == "Vetešnictví"
    assert "klíčník" in cs["bot.card.reward_key"]
    assert "vládce nestvůr" in cs["bot.card.reward_none"].lower()
    assert cs["potion.countercurse"] == "lektvar ochrany"
    assert cs["hero.aderyn.title"] == "lupička" and cs["hero.taia.title"] == "vědma"


#: The words of the vocabulary test above, as each printed rulebook writes them.
RULEBOOK_WORDS = {
    "fr": ("Prêteur sur gages", "Seigneur de Tous les Monstres", "gardien",
           "potion de contre-malédiction", "la Voleuse", "la Prophétesse"),
    "cs": ("Vetešnictví", "klíčník", "vládce nestvůr", "lektvar ochrany", "lupička", "vědma"),
}


@pytest.mark.parametrize("lc", sorted(RULEBOOK_WORDS))
def test_the_rulebooks_use_those_words(lc: str) -> None:
    book = require_file(rulebook(lc), f"that the printed {lc} rulebook uses the catalogue's words")
    text = book.read_text(encoding="utf-8").casefold()
    assert [w for w in RULEBOOK_WORDS[lc] if w.casefold() not in text] == []


def test_commands_named_in_texts_are_the_language_s_command_names() -> None:
    """``/goblin new`` in English is ``/goblin créer`` for a French user, ``/goblin založit``
    for a Czech one: texts must name the commands as Discord shows them to that reader (and
    the tournament group's, ``/goblin tournoi retrait``, its subcommand too)."""
    for lc in LOCALES:
        names = {v for k, v in catalog(lc).items() if k.startswith("bot.cmd.name.")}
        group = catalog(lc)["bot.tournament.cmd.name.group"]
        subs = {v for k, v in catalog(lc).items()
                if k.startswith("bot.tournament.cmd.name.") and not k.endswith(".group")}
        for k, entry in catalog(lc).items():
            for text in texts(entry):
                for used, sub in re.findall(r"/goblin ([^\s.,;:!?)]+)(?: ([^\s.,;:!?)]+))?",
                                            text):
                    if used == group:
                        assert sub in subs, f"{lc} {k}: /goblin {used} {sub} is not a command"
                        continue
                    assert used in names, f"{lc} {k}: /goblin {used} is not a command in {lc}"


def _key_literals() -> list[tuple[str, int, str, bool]]:
    """(file, line, key or key prefix, is_prefix) of every literal key the code names."""
    out: list[tuple[str, int, str, bool]] = []
    for folder in ("engine", "bot", "render", "cards"):
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call) or not node.args:
                    continue
                func = node.func
                name = func.id if isinstance(func, ast.Name) else (
                    func.attr if isinstance(func, ast.Attribute) else "")
                first = node.args[0]
                rel = path.relative_to(ROOT).as_posix()
                if name in ("msg", "Msg", "translate", "_t", "has_key"):
                    if isinstance(first, ast.Constant) and isinstance(first.value, str):
                        out.append((rel, node.lineno, first.value, False))
                    elif isinstance(first, ast.JoinedStr) and isinstance(
                            first.values[0], ast.Constant):
                        out.append((rel, node.lineno, str(first.values[0].value), True))
                elif name == "say" and isinstance(first, ast.Constant):
                    out.append((rel, node.lineno, str(first.value), False))
                elif name == "word" and isinstance(first, ast.Constant):
                    out.append((rel, node.lineno, f"{first.value!s}.", True))
    return out


def test_every_key_the_code_names_exists() -> None:
    found = _key_literals()
    assert len(found) > 150
    english = keys(DEFAULT_LOCALE)
    missing = [(f, line, k) for f, line, k, prefix in found
               if not (any(e.startswith(k) for e in english) if prefix else k in english)]
    assert not missing, missing


def test_msg_keeps_its_parameters_in_name_order() -> None:
    made = msg("event.won", who="Ann", monster=msg("card.m1-05"), attack=3, hp=2)
    assert [k for k, _ in made.params] == ["attack", "hp", "monster", "who"]
    assert made == msg("event.won", hp=2, attack=3, who="Ann", monster=msg("card.m1-05"))
    assert msg("event.turn", who="A", round=1).params == (("round", 1), ("who", "A"))
    assert msg("list.0").params == ()
    assert made.get("hp") == 2 and made.get("nothing") is None


@pytest.mark.parametrize("locale", LOCALES)
def test_selects_choose_by_a_parameter_english_has(locale: str) -> None:
    """A select table (``by`` naming a parameter) lists the same options as English, chosen by a
    parameter of the English text."""
    english = catalog(DEFAULT_LOCALE)
    selects = {k: e for k, e in catalog(locale).items() if isinstance(e, Mapping) and "by" in e}
    assert "event.fight" in selects
    for k, entry in selects.items():
        reference = english[k]
        assert isinstance(reference, Mapping), k
        assert set(entry) == set(reference) and entry["by"] == reference["by"], k
        assert entry["by"] in placeholders(reference), k


def test_a_select_picks_the_text_of_its_parameter_s_value() -> None:
    lord = msg("event.fight", who="Ann", monster=msg("card.lord-1"), level="X")
    rat = msg("event.fight", who="Ann", monster=msg("card.m1-01"), level="I")
    assert translate(lord) == "Ann fights the Lord of All Monsters, the Goblin King."
    assert translate(rat) == "Ann fights the Cave Rat (level\u00a0I)."


@pytest.mark.parametrize("locale", LOCALES)
def test_the_hint_answer_s_heading_stays_short(locale: str) -> None:
    """The line above a hint's chances says what they are in at most two lines of a phone
    (100 characters): the margin is explained once, by the chances' own ± figures."""
    heading = translate(msg("bot.hint.answer.chances"), locale)
    assert len(heading) <= 100, (locale, len(heading), heading)
