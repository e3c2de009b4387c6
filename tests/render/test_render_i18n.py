"""Pictures in French and Czech: every word drawn is in the picture's language, diacritics and
all, and the longer names still fit on their cards (golden images: test_render_goldens)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import render
from engine.catalog import tables
from engine.names import card_name, monster_name
from i18n import LOCALES, catalog, texts, translate
from render import battle, hand, table
from render.cards import (
    LINE_SPACING,
    TWO_LINE_SHRINK,
    action_card,
    card_chip,
    card_height,
    join_lines,
    monster_band,
    monster_card,
    name_layout,
)
from render.demo import main as demo_main
from render.positions import SCENARIOS, scene
from render.style import MIN_TEXT, fit, record_text

DIACRITICS = {"fr": set("éèêàâçôûùîïœÉ"), "cs": set("ěščřžýáíéůúťďňĚŠČŘŽÝÁÍÉŮÚ")}


SPRITES = (action_card, monster_card, card_chip)


@pytest.fixture
def drawn() -> Iterator[list[tuple[str, int]]]:
    """Every text the renderer draws from now on, with its size (card sprites redrawn, not
    taken from cache)."""
    for cached in SPRITES:
        cached.cache_clear()
    with record_text() as seen:
        yield seen
    for cached in SPRITES:
        cached.cache_clear()


def _pictures(locale: str) -> None:
    for name in SCENARIOS:
        obs = scene(name).observation()
        render.table_image(obs, locale)
        if obs.battle is not None:
            render.battle_image(obs, locale)
        if obs.viewer is not None:
            render.hand_image(obs, locale)


def _patterns(locale: str) -> re.Pattern[str]:
    """One regex matching any text of ``locale`` with words in it, whatever its parameters."""
    out = []
    for entry in catalog(locale).values():
        for text in texts(entry):
            literal = re.sub(r"\{[^}]*\}", "", text)
            if re.search(r"[^\W\d_]", literal):
                parts = re.split(r"\{[^}]*\}", text)
                out.append(".+".join(re.escape(p) for p in parts))
    return re.compile("|".join(f"(?:{p})" for p in out))


def test_the_leak_patterns_see_composed_texts() -> None:
    english = _patterns("en")
    assert english.fullmatch("Round 7") and english.fullmatch("Kateřina's turn · in battle")
    assert not _patterns("cs").fullmatch("Round 7")
    assert _patterns("cs").fullmatch("Kolo 7")


@pytest.mark.parametrize("locale", ["fr", "cs"])
def test_every_word_drawn_is_in_the_picture_s_language(drawn: list[tuple[str, int]],
                                                       locale: str) -> None:
    _pictures(locale)
    words = [t for t, _ in drawn if re.search(r"[^\W\d_]", t)]
    assert len(words) > 200
    english, mine = _patterns("en"), _patterns(locale)
    leaks = sorted({t for t in words if english.fullmatch(t.replace("\u00a0", " "))
                    and not mine.fullmatch(t.replace("\u00a0", " "))})
    assert not leaks, f"English drawn in a {locale} picture: {leaks[:10]}"
    # The language's own letters are drawn (the font has them: test_font_covers_...).
    letters = set("".join(words))
    assert letters & DIACRITICS[locale], f"no {locale} diacritics drawn"
    assert translate("render.pawnshop", locale) in words


def test_a_czech_picture_differs_from_the_english_one() -> None:
    obs = scene("midgame").observation()
    pictures = {lc: render.table_image(obs, lc) for lc in LOCALES}
    assert len(set(pictures.values())) == len(LOCALES)


#: The name bands the pictures draw: (kind, band width, band height, preferred size) - the
#: table's narrow cards with two lines at table.NAME_PX, the battle's big monster, the hand's
#: cards (always hand.CARD_W wide).
def _bands() -> list[tuple[str, int, int, int]]:
    out = []
    for args in ((table.CARD_W, table.NAME_PX), (battle.MONSTER_W, None)):
        out.append(("monster", *monster_band(*args)))
    w = hand.CARD_W
    h = card_height(w)
    out.append(("action", w - w // 20 - (round(w * 0.26) + w // 16), round(h * 0.2) - 3,
                max(10, w // 8)))
    return out


@pytest.mark.parametrize("locale", LOCALES)
def test_every_card_name_fits_its_card(locale: str) -> None:
    """At the sizes the pictures use, every name is whole and at least MIN_TEXT px."""
    t = tables()
    ids = {"monster": (list(t.monsters), monster_name), "action": (list(t.actions), card_name)}
    problems = []
    for kind, width, height, size in _bands():
        cards_of_kind, name_of = ids[kind]
        for card in cards_of_kind:
            name = translate(name_of(card), locale)
            lines, s = name_layout(name, width, height, size)
            if lines[-1].endswith("…") or s < MIN_TEXT or join_lines(lines) != name:
                problems.append((kind, width, name, lines, s))
    # Equipment names are written on the hand's equipment strips, cursed (shortest) or not.
    for item in t.equipment:
        name = translate(card_name(item), locale)
        text, s = fit(name, hand.strip_name_width(item, True), hand.STRIP_NAME, MIN_TEXT,
                      condensed=True)
        if text != name:
            problems.append(("equipment", 0, name, (text,), s))
    assert not problems, problems[:10]


def test_name_layout_goes_to_two_lines_then_shortens() -> None:
    assert name_layout("Orc", 100, 40, 20, floor=10) == (("Orc",), 20)
    lines, size = name_layout("Chevalier de la mort", 90, 40, 16, floor=10)
    assert len(lines) == 2 and join_lines(lines) == "Chevalier de la mort"
    assert size >= round(16 * TWO_LINE_SHRINK) and 2 * size * LINE_SPACING <= 40
    lines, _ = name_layout("Supercalifragilisticexpialidocious", 60, 40, 16, floor=10)
    assert lines[0].endswith("…")
    # A hyphenated word may break after its hyphen; the floor is never crossed.
    lines, size = name_layout("Homme-champignon", 160, 60, 24)
    assert lines == ("Homme-", "champignon") and size == 24
    assert join_lines(lines) == "Homme-champignon"
    assert name_layout("Supercalifragilistic", 100, 60, 30)[1] >= MIN_TEXT


def test_every_text_drawn_is_at_least_the_floor(drawn: list[tuple[str, int]]) -> None:
    """A 1200-px picture is read ~400 px wide on a phone: no text under MIN_TEXT px, in any
    picture of any scenario, in any language."""
    for locale in LOCALES:
        _pictures(locale)
    assert len(drawn) > 500
    small = sorted({(size, text) for text, size in drawn if size < MIN_TEXT})
    assert not small, f"texts under {MIN_TEXT} px: {small[:10]}"


def test_the_floor_check_sees_small_text(drawn: list[tuple[str, int]]) -> None:
    """The recorder behind the floor test catches a small text, including one drawn inside a
    card sprite (whose cache the fixture clears)."""
    from PIL import Image, ImageDraw

    render.style.draw_text(ImageDraw.Draw(Image.new("RGB", (10, 10))), (0, 0), "tiny", 14)
    monster_card("lord-1", 60)  # a card too small for its name: the name shrinks under the floor
    small = {text for text, size in drawn if size < MIN_TEXT}
    assert "tiny" in small
    assert any(text.startswith(translate(monster_name("lord-1"), "en")[:3]) for text in small)


def test_demo_writes_the_pictures_of_a_language(tmp_path: Path) -> None:
    assert demo_main(["--seed", "1", "--out", str(tmp_path), "--locale", "cs",
                      "--suffix=-cs"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "battle-cs.png", "hand-cs.png", "table-cs.png"]


def test_demo_writes_every_language_at_once(tmp_path: Path) -> None:
    """One command rewrites all the README's screenshots (no --suffix needed)."""
    assert demo_main(["--out", str(tmp_path), "--all-locales"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{kind}{'' if loc == 'en' else '-' + loc}.png"
        for kind in ("table", "battle", "hand") for loc in LOCALES)
