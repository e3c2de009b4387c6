"""Parts every picture shares: the title bar, player names and wrapped labels.

Player names follow one policy: a name of up to :data:`PLAYER_NAME_WHOLE` characters is always
drawn whole (the layouts leave it the room); a longer one may end with an ellipsis where its line
is full. Game names (cards, monsters, heroes, labels) are never shortened: they take another line.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from PIL import Image, ImageDraw

from i18n import Msg, Param, translate
from render.bands import Band, band
from render.icons import icon, paste
from render.style import (
    BG,
    INK,
    MIN_TEXT,
    MUTED,
    RGB,
    WIDTH,
    draw_text,
    new_canvas,
    remembered,
    text_mask,
    text_width,
    words_of,
    wrap,
)

#: Player names up to this many characters are drawn whole everywhere.
PLAYER_NAME_WHOLE = 12
MARGIN = 10
TITLE_PX = 30
LINE_H = 34  # pitch of a line of text at TITLE_PX or less


@lru_cache(maxsize=4096)
def _has_glyph(ch: str) -> bool:
    """True when the bundled font draws ``ch`` (not its box for a missing character)."""
    missing, _, _ = text_mask("\U0010fffd", TITLE_PX, True, False, "la")
    mask, _, _ = text_mask(ch, TITLE_PX, True, False, "la")
    return mask.size != missing.size or mask.tobytes() != missing.tobytes()


def drawable(name: str) -> str:
    """``name`` without the characters the bundled font cannot draw (most emoji) and the
    invisible ones that join or vary emoji, its spaces tidied; a question mark when nothing is
    left."""
    kept = "".join(ch for ch in name if ch.isspace() or (
        unicodedata.category(ch) != "Cf" and not 0xFE00 <= ord(ch) <= 0xFE0F
        and _has_glyph(ch)))
    return " ".join(kept.split()) or "?"


def name_text(name: Param, locale: str) -> str:
    """A seat's display name as drawn: a hero name message in ``locale``, or the player's name
    without what the font cannot draw (:func:`drawable`)."""
    if isinstance(name, Msg):
        return translate(name, locale)
    return drawable(str(name))


def may_shorten(name: Param) -> bool:
    """True when ``name`` is a player's name beyond the length always drawn whole."""
    return not isinstance(name, Msg) and len(drawable(str(name))) > PLAYER_NAME_WHOLE


def shortenable(name: Param) -> str:
    """The player's name as drawn when a title may cut it (see :func:`may_shorten`), else
    nothing."""
    return drawable(str(name)) if may_shorten(name) else ""


def lines_of(text: str, width: int, size: int = MIN_TEXT, max_lines: int = 3,
             condensed: bool = False) -> list[str]:
    """``text`` broken into lines no wider than ``width`` at ``size`` (up to ``max_lines``)."""
    return wrap(text, width, size, max_lines=max_lines, condensed=condensed)


def draw_lines(d: ImageDraw.ImageDraw, x: int, y: int, lines: list[str], size: int = MIN_TEXT,
               fill: RGB = MUTED, anchor: str = "lm", condensed: bool = False,
               pitch: int = LINE_H, shorten: bool = False) -> int:
    """Draw ``lines`` from (x, y) (the first line's anchor) downwards; returns the y below."""
    for line in lines:
        draw_text(d, (x, y), line, size, fill=fill, anchor=anchor, condensed=condensed,
                  may_shorten=shorten)
        y += pitch
    return y


def _two_lines(title: str, room: int) -> list[str] | None:
    """``title`` in at most two lines of ``room`` px at MIN_TEXT, or None when it needs more
    (or a word wider than a line)."""
    lines = wrap(title, room, MIN_TEXT, max_lines=2)
    return lines if " ".join(lines) == " ".join(words_of(title)) else None


def shortened_name(title: str, name: str, room: int) -> str:
    """``title`` with the ``name`` in it cut as little as two lines of ``room`` px need, ending
    with an ellipsis, so the words around the name (a turn's phase, a win, the monster fought)
    stay whole; ``title`` itself when it fits, or when no shorter name would make it fit."""
    if not name or name not in title or _two_lines(title, room) is not None:
        return title
    for keep in range(len(name) - 1, 0, -1):
        candidate = title.replace(name, name[:keep].rstrip() + "…", 1)
        if _two_lines(candidate, room) is not None:
            return candidate
    return title


def title_bar(img: Image.Image, d: ImageDraw.ImageDraw, mark: Image.Image | str, title: str,
              right: str, right_fill: RGB = MUTED, shorten: str = "",
              right_mark: Image.Image | None = None) -> int:
    """The picture's first lines: a mark (icon name or sprite), the title (in two lines when one
    does not hold it), and a short text at the right (with an optional sprite before it);
    returns the height used. ``shorten`` is a name in the title that may be cut (a player's
    beyond PLAYER_NAME_WHOLE characters, a tournament's): when the title needs more than two
    lines, that name ends with an ellipsis rather than the words after it."""
    sprite = icon(mark, 34) if isinstance(mark, str) else mark
    paste(img, sprite, (MARGIN, 8))
    rw = text_width(right, MIN_TEXT) if right else 0
    if right_mark is not None:
        rw += right_mark.width + 8
    x = MARGIN + sprite.width + 8
    room = WIDTH - MARGIN - x - (rw + 14 if rw else 0)
    if title == " ".join(words_of(title)) and text_width(title, TITLE_PX) <= room:
        lines, size = [title], TITLE_PX
    else:  # smaller, on two lines
        lines = wrap(shortened_name(title, shorten, room), room, MIN_TEXT, max_lines=2)
        size = MIN_TEXT
    cy = 25
    y = draw_lines(d, x, cy, lines, size, fill=INK, shorten=bool(shorten))
    if right:
        draw_text(d, (WIDTH - MARGIN, cy), right, MIN_TEXT, fill=right_fill, anchor="rm")
    if right_mark is not None:
        paste(img, right_mark, (WIDTH - MARGIN - rw, cy - right_mark.height // 2))
    return y - cy + 18


#: Bands kept per kind of band (each holds only its compressed bytes, a few to some twenty
#: kilobytes, 6 on average; some 30 MiB in all when every kind is full): the parts of the recent
#: pictures of a few hundred tables and their people, in their languages, are not drawn again
#: while they do not change (at 200 tables, 256 a kind left a third more of the drawing).
BANDS = 1024


@remembered(BANDS)
def title_band(mark: str, title: str, right: str, shorten: str = "") -> Band:
    """The title bar (see :func:`title_bar`) as a band of its own."""
    img, d = new_canvas(WIDTH, 120, BG)
    h = title_bar(img, d, mark, title, right, shorten=shorten)
    return band(img.crop((0, 0, WIDTH, h)))
