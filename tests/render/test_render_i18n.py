"""Pictures in French and Czech: every word drawn is in the picture's language, diacritics and
all, and the longer names still fit on their cards (golden images: test_render_goldens)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from msgspec import structs

import render
from engine import Phase
from engine.names import monster_name
from i18n import LOCALES, catalog, texts, translate
from render.cards import LINE_SPACING, TWO_LINE_SHRINK, name_layout
from render.demo import main as demo_main
from render.positions import SCENARIOS, scene
from render.style import MIN_TEXT, Drawn, forget_drawings, record_text

DIACRITICS = {"fr": set("éèêàâçôûùîïœÉ"), "cs": set("ěščřžýáíéůúťďňĚŠČŘŽÝÁÍÉŮÚ")}


@pytest.fixture
def drawn() -> Iterator[list[Drawn]]:
    """Every text the renderer draws from now on (cached parts forgotten, so drawn again)."""
    forget_drawings()
    with record_text() as seen:
        yield seen
    forget_drawings()


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
    assert _patterns("cs").fullmatch("Runda 7")


@pytest.mark.parametrize("locale", ["fr", "cs"])
def test_every_word_drawn_is_in_the_picture_s_language(drawn: list[Drawn],
                                                       locale: str) -> None:
    _pictures(locale)
    words = [d.text for d in drawn if re.search(r"[^\W\d_]", d.text)]
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


def join_lines(lines: tuple[str, ...]) -> str:
    """The name whose lines are ``lines`` (a line ending with a hyphen was cut after it)."""
    out = ""
    for line in lines:
        out += line if (not out or out.endswith("-")) else " " + line
    return out


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


def test_every_text_drawn_is_at_least_the_floor(drawn: list[Drawn]) -> None:
    """No text under MIN_TEXT px, in any picture of any scenario, in any language (the glyphs
    themselves are measured at phone width in test_render_phone)."""
    for locale in LOCALES:
        _pictures(locale)
    assert len(drawn) > 500
    small = sorted({(d.size, d.text) for d in drawn if d.size < MIN_TEXT})
    assert not small, f"texts under {MIN_TEXT} px: {small[:10]}"


def test_the_floor_check_sees_small_text(drawn: list[Drawn]) -> None:
    """The recorder behind the floor test catches a small text, and texts drawn inside cached
    sprites (the fixture forgets them, so they are drawn again)."""
    from PIL import Image, ImageDraw

    render.style.draw_text(ImageDraw.Draw(Image.new("RGB", (10, 10))), (0, 0), "tiny", 14)
    render.battle_image(scene("lord").observation())
    assert "tiny" in {d.text for d in drawn if d.size < MIN_TEXT}
    assert translate(monster_name(scene("lord").observation().lord), "en").split()[0] in {
        w for d in drawn for w in d.text.split()}


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


def test_french_no_break_spaces_hold_in_wrapped_lines(drawn: list[Drawn]) -> None:
    """French puts a no-break space before ``! ? : ;``: a wrapped title never starts a line
    with the mark alone (``Jean-Baptiste de la gagne`` then ``!``), and the space stays
    unbreakable as drawn."""
    base = scene("midgame").observation()
    long_name = "Jean-Baptiste de la Fontaine"
    for end in range(8, len(long_name) + 1):
        name = long_name[:end]
        over = structs.replace(base, phase=Phase.OVER, winner=0, seats=tuple(
            structs.replace(s, name=name) for s in base.seats))
        render.table_image(over, "fr")
    titles = [d.text for d in drawn if "gagne" in d.text or d.text.startswith("!")]
    assert len(titles) > 10
    assert not [t for t in titles if t.lstrip()[:1] in set("!?:;»")], titles
    assert all("gagne\u00a0!" in t for t in titles if "gagne" in t), titles


def test_a_battle_lost_to_the_last_hp_is_not_drawn_as_attack_not_enough() -> None:
    """R24: at 1 HP with attack enough for the monster, ending the battle loses it because the
    hits knock the hero out; the picture's verdict says so, not that the attack is short."""
    from engine import observe
    from engine.catalog import tables
    from engine.position import SeatSetup, position

    known = tables()
    weapon = max(known.equipment, key=lambda e: known.equipment[e].attack)
    monster = next(m.id for m in known.monsters.values()
                   if m.level == 1 and not m.curses and not m.gatekeeper and m.attack >= 2
                   and m.hp <= known.equipment[weapon].attack)
    obs = observe(position(SeatSetup("horan", name="Ann", hp=1, weapon=weapon), "taia",
                           fight=monster), 0)
    assert obs.battle is not None
    totals = obs.battle.totals
    assert totals.attack >= totals.monster_hp and totals.knocked_out and not totals.win
    for locale in LOCALES:
        forget_drawings()
        with record_text() as seen:
            render.battle_image(obs, locale)
        forget_drawings()
        words = {d.wanted for d in seen}
        assert translate("render.battle.lose", locale) not in words, locale
        assert translate("render.battle.knocked", locale) in words, locale
