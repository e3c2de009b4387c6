"""A tournament's pictures: the standings after a round and the champion, drawn at the pictures'
width, read on a phone (every number and word big enough at 400 px), whole in every language,
long and non-Latin names drawn as the other pictures draw them, emoji left out."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from PIL import Image

from i18n import LOCALES, msg, translate
from render.icons import record_icons
from render.style import GOLD, WIDTH, Drawn, forget_drawings, record_text
from render.tournament import (
    StandingLine,
    champion_image,
    drawable,
    lot_groups,
    lot_note,
    standings_image,
)
from tests.render.test_render_phone import WHOLE_NAMES, _cut, small_icons, too_small

Recorded = tuple[list[Drawn], list[tuple[str, Image.Image]]]


@pytest.fixture
def drawn() -> Iterator[Recorded]:
    """Every text and icon drawn from now on (cached parts forgotten, so drawn again)."""
    forget_drawings()
    with record_text() as texts, record_icons() as icons:
        yield texts, icons
    forget_drawings()


def picture(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.convert("RGB")


def has_colour(image: Image.Image, colour: tuple[int, int, int], at_least: int = 20) -> bool:
    """True when ``image`` has ``at_least`` pixels within a few levels of ``colour``."""
    near = sum(n for n, c in image.getcolors(image.width * image.height) or []
               if isinstance(c, tuple) and max(abs(a - b) for a, b in zip(c, colour,
                                                                        strict=True)) <= 4)
    return near >= at_least


def field(count: int) -> list[StandingLine]:
    """``count`` lines of standings: whole-length names, a long one, a dropped player, a bye, two
    places decided by lot."""
    names = [*WHOLE_NAMES, "Přemysl Otakar Druhý z Domu Přemyslovců", "Zoë 🎲"]
    level = [3 if i == 4 else i for i in range(count)]  # the 4th and 5th level on everything
    return [StandingLine(place=i + 1, name=names[i % len(names)], points=5 * count - 3 * j,
                         opponents=100 + j, wins=count - j, dropped=i == 2, bye=i == count - 1,
                         by_lot=i in (3, 4))
            for i, j in zip(range(count), level, strict=True)]


def test_the_places_the_lot_decided_are_named_in_runs() -> None:
    def line(place: int, points: int, by_lot: bool) -> StandingLine:
        return StandingLine(place=place, name="P", points=points, opponents=0, wins=0,
                            by_lot=by_lot)

    lines = [line(1, 9, False), line(2, 7, True), line(3, 7, True), line(4, 5, True),
             line(5, 5, True), line(6, 5, True), line(7, 1, False)]
    assert lot_groups(lines) == [(2, 3), (4, 6)]
    assert lot_note(lines, "en") == ["Places 2–3, 4–6 were decided by lot."]
    assert lot_note(lines[:1], "en") == []


def test_names_lose_what_the_font_cannot_draw() -> None:
    assert drawable("Kateřina Nováková") == "Kateřina Nováková"
    assert drawable("Bob 🎲 the  Bold") == "Bob the Bold"
    assert drawable("🏆🏆") == "?"
    assert drawable("Eva \u2764\ufe0f\u200d\U0001f525 Nová") == "Eva \u2764 Nová"
    assert drawable("Ödön Szőllős – Žofie") == "Ödön Szőllős – Žofie"


@pytest.mark.parametrize("locale", LOCALES)
def test_the_standings_picture(locale: str, drawn: Recorded) -> None:
    texts, icons = drawn
    heights = []
    for count in (1, 4, 12, 40):
        image = picture(standings_image(field(count), "Winter Cup", 2, 5, locale))
        assert image.width == WIDTH
        heights.append(image.height)
        assert has_colour(image, GOLD)  # the first place
    assert heights == sorted(heights) and heights[-1] - heights[-2] == 28 * 50
    shown = {d.text for d in texts}
    assert translate(msg("render.tournament.round_of", round=2, rounds=5), locale) in shown
    assert translate("render.tournament.dropped", locale) in shown
    assert translate("render.tournament.bye", locale) in shown
    lot = translate(msg("render.tournament.lot.places", places="4–5"), locale)
    assert any(lot.startswith(d.text) for d in texts)  # the places the lot decided
    assert {"Zoë", *WHOLE_NAMES} <= shown  # whole names drawn whole, the emoji left out
    assert not too_small(texts), too_small(texts)[:10]
    assert not small_icons(icons), small_icons(icons)[:10]
    assert not _cut(texts), _cut(texts)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_final_standings_say_so(locale: str, drawn: Recorded) -> None:
    texts, _ = drawn
    standings_image(field(5), "Winter Cup", 5, 5, locale, final=True)
    shown = {d.text for d in texts}
    assert translate("render.tournament.final", locale) in shown
    assert not any(d.wanted == translate(msg("render.tournament.round_of", round=5, rounds=5),
                                         locale) for d in texts)
    assert translate("render.tournament.dropped", locale) in shown


def test_no_dropped_mark_explained_when_nobody_dropped(drawn: Recorded) -> None:
    texts, _ = drawn
    lines = [StandingLine(1, "Ann", 10, 5, 2), StandingLine(2, "Bob", 5, 10, 1)]
    standings_image(lines, "Cup", 2, 3)
    assert translate("render.tournament.dropped", "en") not in {d.text for d in texts}


@pytest.mark.parametrize("locale", LOCALES)
def test_the_champion_picture(locale: str, drawn: Recorded) -> None:
    texts, icons = drawn
    for lines in (field(12), field(1), [StandingLine(1, "Kateřina Novotná-Dvořáková", 17, 40, 3),
                                        StandingLine(2, "李小龍", 15, 38, 2)]):
        image = picture(champion_image(lines, "Zimní pohár", 4, 13, locale))
        assert image.width == WIDTH and 300 < image.height < 800
        assert has_colour(image, GOLD, at_least=500)  # the cup and the champion's name
    shown = {d.text for d in texts}
    assert translate("render.tournament.wins_title", locale) in shown
    assert translate(msg("render.tournament.players", count=13), locale) in shown
    summary = " · ".join((translate(msg("render.tournament.with_points", count=17), locale),
                          translate(msg("render.tournament.after_rounds", count=4), locale)))
    assert summary in shown
    assert "Kateřina Novotná-Dvořáková" in shown  # the champion's name drawn whole
    assert not too_small(texts), too_small(texts)[:10]
    assert not small_icons(icons), small_icons(icons)[:10]
    assert not _cut(texts), _cut(texts)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_champion_picture_explains_the_marks_its_podium_shows(locale: str,
                                                                  drawn: Recorded) -> None:
    """Cleo had the last round's bye and Bob dropped out, both on the podium: their marks are
    explained under it, as under the standings; Dan's mark, below the podium, is not drawn."""
    texts, _ = drawn
    lines = [StandingLine(1, "Ann", 15, 54, 3), StandingLine(2, "Cleo", 11, 46, 0, bye=True),
             StandingLine(3, "Bob", 9, 48, 0, dropped=True), StandingLine(4, "Dan", 7, 40, 0)]
    champion_image(lines, "Cup", 3, 4, locale)
    shown = {d.text for d in texts}
    assert translate("render.tournament.bye", locale) in shown
    assert translate("render.tournament.dropped", locale) in shown
    texts.clear()
    forget_drawings()
    champion_image([lines[0], lines[3], *lines[1:3]], "Cup", 3, 4, locale, podium=2)
    shown = {d.text for d in texts}
    assert translate("render.tournament.bye", locale) not in shown
    assert translate("render.tournament.dropped", locale) not in shown
