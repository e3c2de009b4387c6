"""Pictures in French and Czech: every word drawn is in the picture's language, diacritics and
all, and the longer names still fit on their cards (golden images: test_render_goldens)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import render
from engine.catalog import tables
from engine.names import card_name, monster_name
from i18n import LOCALES, catalog, texts, translate
from render import battle, cards, hand, table
from render.cards import (
    LINE_SPACING,
    TWO_LINE_SHRINK,
    action_card,
    card_height,
    equipment_card,
    monster_card,
    name_layout,
)
from render.demo import main as demo_main
from render.positions import SCENARIOS, scene

DIACRITICS = {"fr": set("éèêàâçôûùîïœÉ"), "cs": set("ěščřžýáíéůúťďňĚŠČŘŽÝÁÍÉŮÚ")}


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every text the renderer draws from now on (card sprites redrawn, not taken from cache)."""
    seen: list[str] = []
    original = render.style.draw_text

    def recording(d: Any, xy: Any, text: str, *args: Any, **kwargs: Any) -> int:
        seen.append(text)
        return original(d, xy, text, *args, **kwargs)

    for module in (table, battle, hand, cards):
        monkeypatch.setattr(module, "draw_text", recording)
    for cached in (action_card, monster_card, equipment_card):
        cached.cache_clear()
    yield seen
    for cached in (action_card, monster_card, equipment_card):
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
def test_every_word_drawn_is_in_the_picture_s_language(drawn: list[str], locale: str) -> None:
    _pictures(locale)
    words = [t for t in drawn if re.search(r"[^\W\d_]", t)]
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


#: Card widths the pictures use: table rows and piles, battle monster, hand (one card to
#: seven), battle chain (one row of six to two rows of seven), Taia's pair, kit equipment.
WIDTHS = {
    "monster": (132, 140, 300),
    "action": (116, 131, 148, 170, 180, 218, 250),
    "equipment": (120,),
}
#: The smallest name size that still reads on a phone.
MIN_NAME_SIZE = 10


def _bands(kind: str, w: int) -> tuple[int, int, int]:
    """(width, height, size) of the name band of a card ``w`` wide (as render.cards draws)."""
    h = card_height(w)
    band_h = round(h * 0.2) - 3
    if kind == "monster":
        m = max(4, w // 22)
        return w - 2 * m - 4, band_h, max(10, w // 9)
    if kind == "action":
        return w - w // 20 - (round(w * 0.26) + w // 16), band_h, max(10, w // 8)
    return w - w // 20 - (round(w * 0.22) + w // 10), band_h, max(10, w // 9)


@pytest.mark.parametrize("locale", LOCALES)
def test_every_card_name_fits_its_card(locale: str) -> None:
    t = tables()
    ids = {"monster": (list(t.monsters), monster_name),
           "action": (list(t.actions), card_name),
           "equipment": (list(t.equipment), card_name)}
    problems = []
    for kind, (cards_of_kind, name_of) in ids.items():
        for w in WIDTHS[kind]:
            width, height, size = _bands(kind, w)
            for card in cards_of_kind:
                name = translate(name_of(card), locale)
                lines, s = name_layout(name, width, height, size)
                if lines[-1].endswith("…") or s < MIN_NAME_SIZE or " ".join(lines) != name:
                    problems.append((kind, w, name, lines, s))
    assert not problems, problems[:10]


def test_name_layout_goes_to_two_lines_then_shortens() -> None:
    assert name_layout("Orc", 100, 40, 20) == (("Orc",), 20)
    lines, size = name_layout("Chevalier de la mort", 90, 40, 16)
    assert len(lines) == 2 and " ".join(lines) == "Chevalier de la mort"
    assert size >= round(16 * TWO_LINE_SHRINK) and 2 * size * LINE_SPACING <= 40
    lines, _ = name_layout("Supercalifragilisticexpialidocious", 60, 40, 16)
    assert lines[0].endswith("…")


def test_demo_writes_the_pictures_of_a_language(tmp_path: Path) -> None:
    assert demo_main(["--seed", "1", "--out", str(tmp_path), "--locale", "cs",
                      "--suffix=-cs"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "battle-cs.png", "hand-cs.png", "table-cs.png"]
