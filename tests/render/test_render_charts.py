"""The charts: a player's rating over their games and a finished match round by round, drawn at
the pictures' width, read on a phone (every number and word big enough at 400 px), whole in every
language, in the heroes' colours."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from PIL import Image

from engine.names import hero_name
from i18n import LOCALES, translate
from render.charts import (
    RatingPoint,
    SeatSeries,
    _round_labels,
    rating_chart,
    summary_chart,
)
from render.icons import record_icons
from render.style import GOLD, HERO_COLOUR, MUTED, WIDTH, Drawn, forget_drawings, record_text
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
    image.load()  # decodes every row
    return image.convert("RGB")


def has_colour(image: Image.Image, colour: tuple[int, int, int], at_least: int = 20) -> bool:
    """True when ``image`` has ``at_least`` pixels of ``colour`` (as the shared palette keeps
    it: within a few levels)."""
    near = sum(n for n, c in image.getcolors(image.width * image.height) or []
               if max(abs(a - b) for a, b in zip(c, colour, strict=True)) <= 4)
    return near >= at_least


def history(count: int, provisional: int = 8) -> list[RatingPoint]:
    return [RatingPoint(1500 + (i * 37) % 300 + 4 * i, provisional=i < provisional,
                        label=f"{1 + i % 28}.{3 + i // 28}.") for i in range(count)]


def match(rounds: int = 18) -> list[SeatSeries]:
    heroes = ("argentus", "horan", "taia", "aderyn")
    names = (WHOLE_NAMES[0], hero_name("horan"), "François-Xavier Dupont-Aignan", "Bob")
    return [SeatSeries(hero, name, keys=tuple(min(3, (r + i) // 6) for r in range(rounds)),
                       hp=tuple((r * (i + 2)) % 6 for r in range(rounds)), won=i == 3)
            for i, (hero, name) in enumerate(zip(heroes, names, strict=True))]


@pytest.mark.parametrize("locale", LOCALES)
def test_the_rating_chart(locale: str, drawn: Recorded) -> None:
    texts, icons = drawn
    for points in (history(30), history(5, provisional=5), history(300, provisional=40),
                   history(1), []):
        image = picture(rating_chart(points, WHOLE_NAMES[1], locale))
        assert image.width == WIDTH and 150 < image.height < 600
        if points:  # the line: gold where settled, grey where provisional
            plot = image.crop((100, 80, WIDTH - 10, 300))  # clear of the title and the legend
            assert has_colour(plot, GOLD) == any(not p.provisional for p in points)
            assert has_colour(plot, MUTED) == any(p.provisional for p in points)
    shown = {d.text for d in texts}
    # the last value at the top right, with a question mark while provisional
    assert {str(history(30)[-1].value), f"{history(5, provisional=5)[-1].value}?"} <= shown
    assert not too_small(texts), too_small(texts)[:10]
    assert not small_icons(icons), small_icons(icons)[:10]
    assert not _cut(texts), _cut(texts)
    # under the axis: the first and the last game's labels
    assert {history(30)[0].label, history(30)[-1].label} <= shown


def test_the_rating_chart_is_taller_with_points_than_without() -> None:
    empty, some = picture(rating_chart([], "Bob")), picture(rating_chart(history(3), "Bob"))
    assert empty.height < some.height


@pytest.mark.parametrize("locale", LOCALES)
def test_the_summary_chart(locale: str, drawn: Recorded) -> None:
    texts, icons = drawn
    for rounds in (18, 1, 60):
        image = picture(summary_chart(match(rounds), locale))
        assert image.width == WIDTH and 500 < image.height < 1000
        assert all(has_colour(image, HERO_COLOUR[h]) for h in ("argentus", "horan", "taia",
                                                               "aderyn"))
    assert not too_small(texts), too_small(texts)[:10]
    assert not small_icons(icons), small_icons(icons)[:10]
    assert not _cut(texts), _cut(texts)
    assert any(d.cut() for d in texts)  # the long player name was shortened, and only it


def test_a_seat_s_height_does_not_depend_on_its_series() -> None:
    """Two seats, then four: the picture grows by two seats' rows, whatever the rounds."""
    two, four = (picture(summary_chart(match(12)[:n])).height for n in (2, 4))
    longer = picture(summary_chart(match(40)[:2])).height
    assert four > two == longer


def test_round_numbers_under_the_plots_never_touch() -> None:
    for rounds in (1, 2, 9, 18, 36, 99, 150):
        cell = (WIDTH - 62) / rounds
        labels = _round_labels(rounds, cell)
        assert labels[0] in (1, 2) and labels == sorted(set(labels)) and labels[-1] <= rounds
        assert all((b - a) * cell >= 32 for a, b in zip(labels, labels[1:], strict=False))
    assert _round_labels(18, 538 / 18) == list(range(2, 19, 2))
    assert _round_labels(60, 538 / 60) == [1, *range(10, 61, 10)]
    assert _round_labels(1, 538) == [1]


def test_the_best_rating_counts_only_settled_ones_or_the_start(drawn: Recorded) -> None:
    texts, _ = drawn
    lost = [RatingPoint(1329, provisional=True)]  # a newcomer's first match, lost
    rating_chart(lost, "Bob", start=1500)
    assert "best 1500" in {d.text for d in texts} and "best 1329" not in {d.text for d in texts}
    texts.clear()
    settled = [RatingPoint(1700, provisional=True), RatingPoint(1650), RatingPoint(1600)]
    rating_chart(settled, "Bob", start=1500)
    assert "best 1650" in {d.text for d in texts}, {d.text for d in texts}


@pytest.mark.parametrize("rounds", [9, 10, 40, 45, 60, 99, 100, 150])
def test_the_round_numbers_stay_inside_the_summary_chart(rounds: int) -> None:
    """The last round's number, centred under its round, is not cut by the picture's edge in a
    long match: the margins at both sides stay empty."""
    from render.layout import MARGIN
    from render.style import BG

    image = picture(summary_chart(match(rounds)))
    ground = image.getpixel((0, 0))  # the background as the shared palette keeps it
    assert max(abs(a - b) for a, b in zip(ground, BG, strict=True)) <= 4
    for x in (*range(MARGIN // 2), *range(WIDTH - MARGIN // 2, WIDTH)):
        column = {image.getpixel((x, y)) for y in range(image.height)}
        assert column == {ground}, f"{rounds} rounds: ink at x={x}"


@pytest.mark.parametrize("locale", LOCALES)
def test_a_seat_the_ai_played_at_the_end_is_marked_beside_its_name(locale: str,
                                                                   drawn: Recorded) -> None:
    """The winner's seat, a person's the AI took over, and another's whose name is long: each
    name is followed by the AI's mark in the reader's language, whole, the trophy still drawn
    after the winner's; the long name is shortened to leave it room."""
    texts, icons = drawn
    seats = [SeatSeries(s.hero, s.name, s.keys, s.hp, s.won, ai=i in (2, 3))
             for i, s in enumerate(match())]
    plain, marked = picture(summary_chart(match(), locale)), picture(summary_chart(seats, locale))
    assert plain.size == marked.size and plain != marked
    mark = translate("render.ai", locale)
    assert [d.text for d in texts if d.wanted == mark] == [mark, mark]
    assert [name for name, _ in icons].count("trophy") == 2  # once in either picture
    assert not _cut(texts), _cut(texts)
