"""Colours, bundled fonts, text helpers and the caches shared by every picture.

Every picture is :data:`WIDTH` pixels wide and laid out for the width a phone shows it (about
400 px): its smallest text and icon are sized so that, scaled to 400 px, a number is at least
12 px high and a word or an icon at least 9 px. Fonts per size and measured texts are cached
(bounded, keyed by value).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, TypeVar, cast

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path(__file__).parent / "fonts"
RGB = tuple[int, int, int]

# Background and ink: strong contrast on a dark table.
BG: RGB = (24, 26, 31)
PANEL: RGB = (40, 43, 52)
PANEL_HI: RGB = (58, 62, 75)
LINE: RGB = (88, 94, 110)
INK: RGB = (245, 245, 240)
MUTED: RGB = (170, 176, 190)
GOLD: RGB = (245, 196, 60)
GOOD: RGB = (70, 200, 100)
BAD: RGB = (235, 70, 60)
HEART: RGB = (230, 55, 70)
CARD_INNER: RGB = (250, 246, 236)
CARD_INK: RGB = (30, 30, 34)

# Flat colours of cards, chips and icons.
CARD_DARK: RGB = (36, 32, 40)
NEXT_BAND: RGB = (45, 45, 52)
EQUIP_FRAME: RGB = (120, 126, 140)
EQUIP_INNER: RGB = (36, 38, 46)
CHIP_BG: RGB = (28, 30, 36)
CHIP_FRAME: RGB = (150, 156, 170)
SLOT_LINE: RGB = (80, 84, 96)
IVORY: RGB = (255, 250, 235)
KEY_OFF: RGB = (62, 64, 72)
DISCARD: RGB = (240, 140, 40)
BACK_FRAME: RGB = (110, 80, 150)
WHITE: RGB = (255, 255, 255)
DARK: RGB = (25, 25, 30)
STEEL: RGB = (215, 220, 230)
WOOD: RGB = (150, 100, 55)
HANDLE: RGB = (200, 150, 90)
SHIELD: RGB = (90, 140, 220)
BONE: RGB = (235, 235, 225)
HEAL: RGB = (60, 200, 90)
CARD_BACK: RGB = (120, 90, 160)
FLATS: tuple[RGB, ...] = (CARD_DARK, NEXT_BAND, EQUIP_FRAME, EQUIP_INNER, CHIP_BG, CHIP_FRAME,
                          SLOT_LINE, IVORY, KEY_OFF, DISCARD, BACK_FRAME, WHITE, DARK, STEEL,
                          WOOD, HANDLE, SHIELD, BONE, HEAL, CARD_BACK)

# The four card colours; each also has a distinct symbol (see render.icons.SYMBOL).
COLOURS: dict[str, RGB] = {
    "green": (40, 160, 70),
    "blue": (45, 110, 220),
    "red": (215, 55, 45),
    "yellow": (235, 185, 25),
}
# Ink that reads on each colour.
ON_COLOUR: dict[str, RGB] = {
    "green": (255, 255, 255),
    "blue": (255, 255, 255),
    "red": (255, 255, 255),
    "yellow": (30, 30, 34),
}
# Monster frames per level (1-3, 4 = the Lord).
LEVEL_FRAME: dict[int, RGB] = {
    1: (150, 110, 70),
    2: (140, 150, 165),
    3: (200, 160, 50),
    4: (120, 40, 120),
}
POTION_COLOUR: dict[str, RGB] = {
    "strength": (235, 120, 30),
    "healing": (220, 50, 80),
    "countercurse": (150, 80, 220),
}
# Hero accents for seat markers.
HERO_COLOUR: dict[str, RGB] = {
    "argentus": (90, 150, 255),
    "horan": (230, 90, 60),
    "xanros": (170, 90, 230),
    "aderyn": (80, 200, 120),
    "victorius": (240, 200, 70),
    "taia": (70, 210, 220),
}


#: Width of every picture; a phone shows it about 400 px wide (two thirds of its size).
WIDTH = 600
#: The width the sizes below are chosen for: a phone's picture width.
PHONE_WIDTH = 400
#: The smallest text (px) drawn: scaled to PHONE_WIDTH its digits (0.75 of the size in DejaVu
#: Sans) are 13 px high and its lower-case letters (0.55) 9.5 px. Every text obeys it.
MIN_TEXT = 26
#: The smallest icon (px): 9.3 px at PHONE_WIDTH.
MIN_ICON = 14

_F = TypeVar("_F", bound=Callable[..., Any])
_FORGET: list[Callable[[], None]] = []


def remembered(maxsize: int) -> Callable[[_F], _F]:
    """Keep the last ``maxsize`` results of a drawing function, by the values of its arguments
    (never by object identity); :func:`forget_drawings` empties every such cache."""
    def wrap(function: _F) -> _F:
        cached = lru_cache(maxsize=maxsize)(function)
        _FORGET.append(cached.cache_clear)
        return cast("_F", cached)
    return wrap


def forget_drawings() -> None:
    """Empty every cache of drawn parts (cards, icons, bands), so the next pictures are drawn
    from scratch (for the tests that record what is drawn)."""
    for forget in _FORGET:
        forget()


# FreeType faces must not be used by two threads at once (the bot draws in worker threads);
# every use of a font below holds this lock. Cached results need no font, hence no lock.
_FONT_LOCK = threading.Lock()


@cache
def font(size: int, bold: bool = True, condensed: bool = False) -> ImageFont.FreeTypeFont:
    """The bundled DejaVu Sans at ``size`` px (bold by default; condensed for tight spots)."""
    if condensed:
        name = "DejaVuSansCondensed-Bold.ttf"
    else:
        name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    with _FONT_LOCK:
        return ImageFont.truetype(str(FONT_DIR / name), size)


@lru_cache(maxsize=8192)
def text_width(text: str, size: int, bold: bool = True, condensed: bool = False) -> int:
    """Width in pixels of ``text`` in the given font."""
    f = font(size, bold, condensed)
    with _FONT_LOCK:
        return int(f.getlength(text))


def fit(text: str, max_width: int, size: int, min_size: int = MIN_TEXT, bold: bool = True,
        condensed: bool = False) -> tuple[str, int]:
    """The largest size (down to ``min_size``, never below MIN_TEXT) at which ``text`` fits,
    shortening it with an ellipsis if needed."""
    min_size = max(min_size, MIN_TEXT)
    size = max(size, min_size)
    s = size
    while s > min_size and text_width(text, s, bold, condensed) > max_width:
        s -= 2
    s = max(s, min_size)
    if text_width(text, s, bold, condensed) <= max_width:
        return text, s
    cut = text
    while cut and text_width(cut + "…", s, bold, condensed) > max_width:
        cut = cut[:-1]
    return (cut.rstrip() + "…") if cut else "", s


@lru_cache(maxsize=2048)
def text_mask(text: str, size: int, bold: bool, condensed: bool,
              anchor: str) -> tuple[Image.Image, int, int]:
    """The anti-aliased coverage of ``text`` and its offset from the anchor point (cached:
    rasterising glyphs is the costliest part of a picture, and most texts repeat)."""
    f = font(size, bold, condensed)
    with _FONT_LOCK:
        x0, y0, x1, y1 = (int(v) for v in f.getbbox(text, anchor=anchor))
        mask = Image.new("L", (max(1, x1 - x0), max(1, y1 - y0)), 0)
        ImageDraw.Draw(mask).text((-x0, -y0), text, font=f, fill=255, anchor=anchor)
    return mask, x0, y0


@dataclass(frozen=True)
class Drawn:
    """One text as drawn: what was asked for, what was drawn (shortened or not), its font."""

    wanted: str
    text: str
    size: int
    bold: bool
    condensed: bool
    may_shorten: bool  # a player name beyond PLAYER_NAME_WHOLE characters

    def cut(self) -> bool:
        """True when the text drawn is not all of the text asked for."""
        return self.text != self.wanted


_RECORDERS: list[list[Drawn]] = []


@contextmanager
def record_text() -> Iterator[list[Drawn]]:
    """Collect every text drawn inside the ``with`` block (for the tests that hold every picture
    to :data:`MIN_TEXT` and to whole labels; cached sprites must be cleared to be seen)."""
    seen: list[Drawn] = []
    _RECORDERS.append(seen)
    try:
        yield seen
    finally:
        _RECORDERS.remove(seen)


def draw_text(d: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int,
              fill: RGB = INK, anchor: str = "la", bold: bool = True, condensed: bool = False,
              max_width: int | None = None, min_size: int = MIN_TEXT,
              outline: RGB | None = None, may_shorten: bool = False) -> int:
    """Draw ``text`` (shrunk or shortened to ``max_width``); returns the width drawn.

    ``may_shorten`` says the text is a player name beyond PLAYER_NAME_WHOLE characters, the
    one kind of text a layout may end with an ellipsis.
    """
    wanted = text
    if max_width is not None:
        text, size = fit(text, max_width, size, min_size, bold, condensed)
    if not text:
        return 0
    for seen in _RECORDERS:
        seen.append(Drawn(wanted, text, size, bold, condensed, may_shorten))
    if outline is not None:
        f = font(size, bold, condensed)
        with _FONT_LOCK:
            d.text(xy, text, font=f, fill=fill, anchor=anchor, stroke_width=max(2, size // 12),
                   stroke_fill=outline)
    else:
        mask, dx, dy = text_mask(text, size, bold, condensed, anchor)
        d.bitmap((round(xy[0]) + dx, round(xy[1]) + dy), mask, fill=fill)
    return text_width(text, size, bold, condensed)


#: The spaces a line may break at: every space but the no-break ones (French writes one before
#: ``! ? : ;``, which must not start a line).
_BREAKABLE = re.compile(r"[^\S\u00a0\u202f\u2007]+")


def words_of(text: str) -> list[str]:
    """The words of ``text`` a line may break between (a no-break space holds its neighbours
    in one word)."""
    return [w for w in _BREAKABLE.split(text) if w]


def wrap(text: str, max_width: int, size: int, bold: bool = True,
         max_lines: int = 2, condensed: bool = False) -> list[str]:
    """Break ``text`` into at most ``max_lines`` lines no wider than ``max_width`` (the last
    line ends with an ellipsis when it all does not fit); never at a no-break space."""
    words = words_of(text)
    whole = " ".join(words)
    if text_width(whole, size, bold, condensed) <= max_width:  # the usual case: one line
        return [whole] if whole else []
    lines: list[str] = []
    line = ""
    for w in words:
        cand = f"{line} {w}" if line else w
        if text_width(cand, size, bold, condensed) <= max_width or not line:
            line = cand
        else:
            lines.append(line)
            line = w
    if line:
        lines.append(line)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        last, _ = fit(lines[-1] + " …", max_width, size, size, bold, condensed)
        lines[-1] = last
    return [fit(ln, max_width, size, size, bold, condensed)[0] for ln in lines]


def new_canvas(width: int, height: int, colour: RGB = BG) -> tuple[Image.Image,
                                                                    ImageDraw.ImageDraw]:
    """A fresh RGB canvas and its drawing context."""
    img = Image.new("RGB", (width, height), colour)
    return img, ImageDraw.Draw(img)


def panel(d: ImageDraw.ImageDraw, box: tuple[int, int, int, int], fill: RGB = PANEL,
          outline: RGB | None = None, width: int = 3, radius: int = 14) -> None:
    """A rounded panel."""
    d.rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=width)


def _key_colours() -> list[RGB]:
    """The flat colours of the style, kept exact in every palette."""
    out: list[RGB] = [BG, PANEL, PANEL_HI, LINE, INK, MUTED, GOLD, GOOD, BAD, HEART, CARD_INNER,
                      CARD_INK, *FLATS]
    for table in (COLOURS, ON_COLOUR, LEVEL_FRAME, POTION_COLOUR, HERO_COLOUR):
        out.extend(table.values())
    return list(dict.fromkeys(out))


KEY_COLOURS = _key_colours()
