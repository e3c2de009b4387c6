"""Charts, in the pictures' style and laid out for a phone like them: a player's rating over their
rated matches, and a finished match's keys and hit points per seat round by round.

Both are :data:`~render.style.WIDTH` pixels wide, their smallest text at
:data:`~render.style.MIN_TEXT`, and take their words through :mod:`i18n` (a player's name and the
dates under the rating chart come already written in the reader's language). Lines are drawn at
twice the size and shrunk, so slopes are smooth.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine.state import MAX_HP
from i18n import Msg, msg, translate
from render.bands import Band, band, encode
from render.icons import icon, paste
from render.layout import MARGIN, drawable, may_shorten, name_text, shortenable, title_band
from render.style import (
    BG,
    GOLD,
    HERO_COLOUR,
    INK,
    LINE,
    MIN_TEXT,
    MUTED,
    PANEL,
    RGB,
    WIDTH,
    draw_text,
    new_canvas,
    text_width,
)

SS = 2  # supersampling of the plotted lines
NAME_PX = 30
ICON = 28
LEGEND_H = 46
LEGEND_GAP = 28  # between two entries of a legend


@dataclass(frozen=True)
class RatingPoint:
    """A player's shown rating after one rated match, whether it was still provisional, and the
    label under the axis (a date already written in the reader's language; empty: the match's
    number)."""

    value: int
    provisional: bool = False
    label: str = ""


@dataclass(frozen=True)
class SeatSeries:
    """One seat over a finished match: its hero (the colour), its name (a player's name, or a
    message such as the hero's name), the keys it held and its hit points at the end of each
    round, whether it won, and whether the AI played it at the end (its own seat, or a
    person's it took over: the name is then marked as the table picture marks an AI seat)."""

    hero: str
    name: str | Msg
    keys: tuple[int, ...]
    hp: tuple[int, ...]
    won: bool = False
    ai: bool = False


def _mix(colour: RGB, ground: RGB, share: float) -> RGB:
    """``share`` of ``colour`` over ``ground``."""
    r, g, b = (round(c * share + o * (1 - share)) for c, o in zip(colour, ground, strict=True))
    return r, g, b


def _spread(count: int, room: int, widest: int) -> list[int]:
    """Indices of ``count`` evenly spaced slots to label when each label needs ``widest`` px of
    ``room``: the first and the last always, evenly spaced ones between."""
    if count <= 1:
        return [0] * count
    fits = max(2, min(count, room // max(1, widest + 24)))
    return sorted({round(i * (count - 1) / (fits - 1)) for i in range(fits)})


def _nice_step(low: int, high: int) -> int:
    """A round gap between grid lines: three or four gaps over ``low``..``high`` (or 100)."""
    span = max(100, high - low)
    return next((step for step in (25, 50, 100, 200, 250, 500, 1000) if span / step <= 4), 2000)


def _legend_band(items: Sequence[tuple[Image.Image | None, str]]) -> Band:
    """One or more centred lines of words, each after its sprite if it has one."""
    widths = [(sprite.width + 8 if sprite else 0) + text_width(word, MIN_TEXT)
              for sprite, word in items]
    lines: list[list[int]] = [[]]
    for i, w in enumerate(widths):
        used = sum(widths[j] + LEGEND_GAP for j in lines[-1])
        if lines[-1] and used + w > WIDTH - 2 * MARGIN:
            lines.append([])
        lines[-1].append(i)
    img, d = new_canvas(WIDTH, LEGEND_H * len(lines), BG)
    for row, line in enumerate(lines):
        x = (WIDTH - sum(widths[i] + LEGEND_GAP for i in line) + LEGEND_GAP) // 2
        cy = row * LEGEND_H + LEGEND_H // 2
        for i in line:
            sprite, word = items[i]
            if sprite is not None:
                paste(img, sprite, (x, cy - sprite.height // 2))
            draw_text(d, (x + widths[i], cy), word, MIN_TEXT, fill=MUTED, anchor="rm")
            x += widths[i] + LEGEND_GAP
    return band(img)


def _provisional_mark() -> Image.Image:
    """The legend's mark of a provisional rating: a grey line through a hollow dot."""
    big = Image.new("RGBA", (ICON * 2 * SS, ICON * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(big)
    d.line((0, ICON * SS // 2, ICON * 2 * SS, ICON * SS // 2), fill=MUTED, width=3 * SS)
    r = 6 * SS
    c = (ICON * SS, ICON * SS // 2)
    d.ellipse((c[0] - r, c[1] - r, c[0] + r, c[1] + r), fill=BG, outline=MUTED, width=3 * SS)
    return big.resize((ICON * 2, ICON), Image.Resampling.LANCZOS)


# ---------------------------------------------------------------- rating over time

RATING_H = 318
EMPTY_H = 110  # the line saying there is no rated game yet
PLOT_TOP = 24
PLOT_BOTTOM = 252  # the axis; the labels under it


def _rating_plot(points: Sequence[RatingPoint], locale: str) -> Band:
    """The plotted ratings with their grid and the labels under the axis."""
    if not points:
        img, d = new_canvas(WIDTH, EMPTY_H, BG)
        draw_text(d, (WIDTH // 2, EMPTY_H // 2), translate("render.chart.no_matches", locale),
                  MIN_TEXT, fill=MUTED, anchor="mm", max_width=WIDTH - 2 * MARGIN)
        return band(img)
    img, d = new_canvas(WIDTH, RATING_H, BG)
    values = [p.value for p in points]
    step = _nice_step(min(values), max(values))
    low = ((2 * min(values) - step) // (2 * step)) * step  # half a step at least below
    high = -((-2 * max(values) - step) // (2 * step)) * step  # and above
    ticks = list(range(low, high + 1, step))
    left = MARGIN + max(text_width(str(t), MIN_TEXT) for t in ticks) + 12
    right = WIDTH - MARGIN - 10

    def xy(i: int, value: int) -> tuple[float, float]:
        x = (left + right) / 2 if len(points) == 1 else \
            left + i * (right - left) / (len(points) - 1)
        return x, PLOT_BOTTOM - (value - low) * (PLOT_BOTTOM - PLOT_TOP) / (high - low)

    big = Image.new("RGB", (WIDTH * SS, RATING_H * SS), BG)
    bd = ImageDraw.Draw(big)
    for t in ticks:
        y = xy(0, t)[1] * SS
        bd.line((left * SS, y, right * SS, y), fill=LINE if t == low else PANEL, width=2 * SS)
    where = [xy(i, p.value) for i, p in enumerate(points)]
    for i in range(1, len(points)):
        settled = not points[i].provisional
        (x0, y0), (x1, y1) = where[i - 1], where[i]
        bd.line((x0 * SS, y0 * SS, x1 * SS, y1 * SS), fill=GOLD if settled else MUTED,
                width=(5 if settled else 3) * SS, joint="curve")
    dots = len(points) <= 40
    for i, ((x, y), p) in enumerate(zip(where, points, strict=True)):
        if not dots and i != len(points) - 1:
            continue
        r = (9 if i == len(points) - 1 else 6) * SS
        box = (x * SS - r, y * SS - r, x * SS + r, y * SS + r)
        if p.provisional:
            bd.ellipse(box, fill=BG, outline=MUTED, width=3 * SS)
        else:
            bd.ellipse(box, fill=GOLD, outline=BG, width=2 * SS)
    img.paste(big.resize((WIDTH, RATING_H), Image.Resampling.LANCZOS))
    for t in ticks:
        draw_text(d, (left - 12, xy(0, t)[1]), str(t), MIN_TEXT, fill=MUTED, anchor="rm")
    labels = [p.label or str(i + 1) for i, p in enumerate(points)]
    widest = max(text_width(label, MIN_TEXT) for label in labels)
    for i in _spread(len(points), right - left, widest):
        w = text_width(labels[i], MIN_TEXT)
        x = min(max(where[i][0], MARGIN + w / 2), WIDTH - MARGIN - w / 2)
        draw_text(d, (x, PLOT_BOTTOM + 26), labels[i], MIN_TEXT, fill=MUTED, anchor="mt")
    return band(img)


def rating_chart(points: Sequence[RatingPoint], name: str, locale: str = "en",
                 start: int | None = None) -> bytes:
    """PNG of a player's shown rating after each of their rated matches, oldest first: the
    current one (a question mark while provisional) at the top right, the best and the count of
    matches under the chart. The best is the highest settled (not provisional) rating; before
    any, the rating everyone starts at (``start``; None: no best is shown then)."""
    title = translate(msg("render.chart.rating_title", who=drawable(name)), locale)
    now = f"{points[-1].value}?" if points and points[-1].provisional else \
        (str(points[-1].value) if points else "")
    bands = [title_band("trophy", title, now, shorten=shortenable(name)),
             _rating_plot(points, locale)]
    if points:
        items: list[tuple[Image.Image | None, str]] = [
            (None, translate(msg("render.chart.matches", count=len(points)), locale))]
        best = max((p.value for p in points if not p.provisional), default=start)
        if best is not None:
            items.append((icon("trophy", ICON),
                          translate(msg("render.chart.best", value=best), locale)))
        if any(p.provisional for p in points):
            items.append((_provisional_mark(),
                          translate("render.chart.provisional", locale)))
        bands.append(_legend_band(items))
    return encode(bands)


# ---------------------------------------------------------------- a match, round by round

HEADER_H = 46  # the name row
KEYS_H = 32  # the row of keys taken, above the plot
AREA_H = 80
SEAT_H = HEADER_H + KEYS_H + AREA_H + 14
GUTTER = 52  # left of the plots: their 0 and MAX_HP marks
AXIS_H = 44


def _plot_x(rounds: int) -> tuple[int, float]:
    """The left of the plots and the width of one round."""
    return GUTTER, (WIDTH - MARGIN - GUTTER) / max(1, rounds)


def _name_row(img: Image.Image, d: ImageDraw.ImageDraw, seat: SeatSeries, locale: str) -> None:
    """The hero's colour, the seat's name (after it the AI's mark when the AI played it at the
    end, then a trophy for the winner), its final keys and HP."""
    cy = 8 + NAME_PX // 2
    d.rounded_rectangle((MARGIN, 8, MARGIN + 8, 8 + NAME_PX), radius=3,
                        fill=HERO_COLOUR.get(seat.hero, INK))
    right = WIDTH - MARGIN
    final = ((seat.hp[-1] if seat.hp else MAX_HP), (seat.keys[-1] if seat.keys else 0))
    for mark, count in zip(("heart", "key"), final, strict=True):
        right -= draw_text(d, (right, cy), str(count), NAME_PX, anchor="rm") + 4 + ICON
        paste(img, icon(mark, ICON), (right, cy - ICON // 2))
        right -= 18
    x = MARGIN + 18
    mark = translate("render.ai", locale) if seat.ai else ""
    mark_w = text_width(mark, MIN_TEXT) + 16 if mark else 0
    room = right - x - (ICON + 8 if seat.won else 0) - (mark_w + 8 if mark else 0)
    x += draw_text(d, (x, cy), name_text(seat.name, locale), NAME_PX, anchor="lm",
                   max_width=room, may_shorten=may_shorten(seat.name))
    if mark:  # a pill, as the table picture's: the AI played this seat at the end
        d.rounded_rectangle((x + 8, cy - 16, x + 8 + mark_w, cy + 16), radius=16, fill=LINE)
        draw_text(d, (x + 8 + mark_w // 2, cy), mark, MIN_TEXT, anchor="mm", max_width=mark_w)
        x += 8 + mark_w
    if seat.won:
        paste(img, icon("trophy", ICON), (x + 8, cy - ICON // 2))


def _hp_area(seat: SeatSeries, rounds: int, gained: list[int]) -> Image.Image:
    """The plot under the keys row: hit points round by round as an area in the hero's colour,
    a gold line down from each key taken (drawn at SS times the size, then shrunk)."""
    left, cell = _plot_x(rounds)
    height = KEYS_H + AREA_H
    big = Image.new("RGB", (WIDTH * SS, height * SS), BG)
    bd = ImageDraw.Draw(big)
    colour = HERO_COLOUR.get(seat.hero, INK)
    bd.rounded_rectangle((left * SS, KEYS_H * SS, (WIDTH - MARGIN) * SS, height * SS),
                         radius=6 * SS, fill=PANEL)
    for level in range(1, MAX_HP):
        y = (height - level * AREA_H / MAX_HP) * SS
        bd.line((left * SS, y, (WIDTH - MARGIN) * SS, y), fill=BG, width=SS)
    outline: list[tuple[float, float]] = []
    for r, value in enumerate(seat.hp):
        y = (height - max(0, min(MAX_HP, value)) * AREA_H / MAX_HP) * SS
        outline += [((left + r * cell) * SS, y), ((left + (r + 1) * cell) * SS, y)]
    if outline:
        bd.polygon([(outline[0][0], height * SS), *outline, (outline[-1][0], height * SS)],
                   fill=_mix(colour, PANEL, 0.45))
        bd.line(outline, fill=colour, width=4 * SS)
    for r in gained:
        x = (left + (r + 0.5) * cell) * SS
        bd.line((x, (ICON - 2) * SS, x, height * SS), fill=GOLD, width=2 * SS)
    return big.resize((WIDTH, height), Image.Resampling.LANCZOS)


def _seat_band(seat: SeatSeries, rounds: int, locale: str) -> Band:
    """One seat: its name row, then its hit points round by round with a key above each round
    in which it took one."""
    img, d = new_canvas(WIDTH, SEAT_H, BG)
    gained = [r for r, k in enumerate(seat.keys) if k > (seat.keys[r - 1] if r else 0)]
    img.paste(_hp_area(seat, rounds, gained), (0, HEADER_H))
    _name_row(img, d, seat, locale)
    left, cell = _plot_x(rounds)
    for r in gained:
        paste(img, icon("key", ICON), (round(left + (r + 0.5) * cell) - ICON // 2, HEADER_H))
    top, bottom = HEADER_H + KEYS_H, HEADER_H + KEYS_H + AREA_H
    draw_text(d, (left - 10, top), str(MAX_HP), MIN_TEXT, fill=MUTED, anchor="rt")
    draw_text(d, (left - 10, bottom), str(0), MIN_TEXT, fill=MUTED, anchor="rb")
    return band(img)


def _round_labels(rounds: int, cell: float) -> list[int]:
    """The rounds numbered under the plots: every 1, 2, 5, 10... rounds, as often as their
    numbers fit, and the first round too from every 5 on."""
    room = text_width(str(rounds), MIN_TEXT) + 16
    step = next((k for k in (1, 2, 5, 10, 20, 50) if k * cell >= room), 100)
    out = [1] if step >= 5 or rounds < 2 else []
    for r in range(step, rounds + 1, step):
        if not out or (r - out[-1]) * cell >= room:
            out.append(r)
    return out


def _axis_band(rounds: int) -> Band:
    """The round numbers under the plots, each under its round but inside the margins (the
    last round's column is narrower than its number in a long match)."""
    img, d = new_canvas(WIDTH, AXIS_H, BG)
    left, cell = _plot_x(rounds)
    for r in _round_labels(rounds, cell):
        half = text_width(str(r), MIN_TEXT) / 2
        x = min(left + (r - 0.5) * cell, WIDTH - MARGIN - half)
        draw_text(d, (x, 6), str(r), MIN_TEXT, fill=MUTED, anchor="mt")
    return band(img)


def summary_chart(seats: Sequence[SeatSeries], locale: str = "en") -> bytes:
    """PNG of a finished match round by round: for each seat, in the order given, its hit
    points at the end of each round and the rounds in which it took a key."""
    rounds = max((max(len(s.keys), len(s.hp)) for s in seats), default=0)
    title = translate("render.chart.summary_title", locale)
    count = translate(msg("render.chart.rounds", count=rounds), locale)
    bands = [title_band("key", title, count)]
    bands += [_seat_band(s, rounds, locale) for s in seats]
    bands.append(_axis_band(rounds))
    bands.append(_legend_band([(icon("heart", ICON), translate("render.chart.hp", locale)),
                               (icon("key", ICON), translate("render.chart.key_taken",
                                                             locale))]))
    return encode(bands)
