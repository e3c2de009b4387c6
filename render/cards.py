"""Cards drawn from the catalogue: action cards, monsters, equipment and card backs.

Every sprite is cached (bounded) by value: what the card shows (its catalogue entry, its name in
the picture's language) and its size, so a reloaded catalogue or another language draws anew. The
drawing follows the printed cards in spirit only: a frame in the card's colour with that colour's
symbol, big effect numbers beside icons, and the allowed next colours as triangles at the bottom.
"""

from __future__ import annotations

from collections.abc import Callable

from PIL import Image, ImageDraw

from engine.catalog import ActionInfo, MonsterInfo, tables
from engine.names import card_name, monster_name
from i18n import translate
from render.icons import colour_badge, curse_icon, icon
from render.style import (
    BACK_FRAME,
    CARD_DARK,
    CARD_INK,
    CARD_INNER,
    COLOURS,
    DARK,
    INK,
    IVORY,
    LEVEL_FRAME,
    MIN_ICON,
    MIN_TEXT,
    NEXT_BAND,
    ON_COLOUR,
    PANEL,
    RGB,
    SLOT_LINE,
    draw_text,
    fit,
    remembered,
    text_width,
)

RATIO = 1.4  # card height / width
EFFECTS = ("attack", "defence", "draw", "heal")


def card_height(width: int) -> int:
    """The height of a card ``width`` pixels wide."""
    return round(width * RATIO)


def _base(width: int, height: int, frame: RGB, inner: RGB,
          top: float, bottom: float) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    r = max(6, width // 12)
    d.rounded_rectangle((0, 0, width - 1, height - 1), radius=r, fill=frame, outline=DARK,
                        width=max(2, width // 50))
    m = max(4, width // 22)
    d.rounded_rectangle((m, round(height * top), width - 1 - m, round(height * bottom)),
                        radius=max(4, r // 2), fill=inner)
    return img, d


def _effect_rows(img: Image.Image, d: ImageDraw.ImageDraw, values: list[tuple[str, int]],
                 box: tuple[int, int, int, int], ink: RGB, plus: bool = False) -> None:
    """Icons with big numbers, stacked in ``box`` (x0, y0, x1, y1), centred as one block."""
    x0, y0, x1, y1 = box
    if not values:
        return
    n = len(values)
    row_h = (y1 - y0) // n
    size = min(row_h - 4, round((x1 - x0) * 0.42))
    num = min(round(size * 1.05), round(row_h * 0.9))
    texts = [f"+{v}" if plus else str(v) for _, v in values]
    while num > MIN_TEXT and size + 6 + max(text_width(t, num) for t in texts) > x1 - x0:
        num -= 2
        size = min(size, num)
    num = max(num, MIN_TEXT)
    block = size + 6 + max(text_width(t, num) for t in texts)
    left = (x0 + x1 - block) // 2
    for i, ((name, _value), text) in enumerate(zip(values, texts, strict=True)):
        cy = y0 + row_h * i + row_h // 2
        img.alpha_composite(icon(name, size), (left, cy - size // 2))
        draw_text(d, (left + size + 6, cy), text, num, fill=ink, anchor="lm")


#: Smallest name size on a card, as a share of the size the card would like (one line, then two);
#: never below :data:`render.style.MIN_TEXT` (the floor of every text).
ONE_LINE_SHRINK = 0.8
TWO_LINE_SHRINK = 0.7
#: Line pitch of a two-line card name, in font sizes.
LINE_SPACING = 1.08


def _two_lines(name: str, size: int) -> tuple[str, str] | None:
    """``name`` split at the space (or after the hyphen) that makes its widest line narrowest,
    or None when it is one unbreakable word."""
    splits = [(name[:i], name[i + 1:]) for i, ch in enumerate(name) if ch == " "]
    splits += [(name[:i + 1], name[i + 1:]) for i, ch in enumerate(name)
               if ch == "-" and 0 < i < len(name) - 1]
    if not splits:
        return None
    return min(splits, key=lambda p: max(text_width(p[0], size, condensed=True),
                                         text_width(p[1], size, condensed=True)))


def _three_lines(name: str, size: int) -> tuple[str, str, str] | None:
    """``name`` in three lines (cut at spaces or after hyphens) whose widest is narrowest."""
    cuts = [(i, i + 1) for i, ch in enumerate(name) if ch == " "]
    cuts += [(i + 1, i + 1) for i, ch in enumerate(name) if ch == "-" and 0 < i < len(name) - 1]
    cuts.sort()
    best: tuple[str, str, str] | None = None
    best_w = 0
    for a in range(len(cuts)):
        for b in range(a + 1, len(cuts)):
            if cuts[b][0] <= cuts[a][1]:
                continue
            parts = (name[:cuts[a][0]], name[cuts[a][1]:cuts[b][0]], name[cuts[b][1]:])
            w = max(text_width(p, size, condensed=True) for p in parts)
            if best is None or w < best_w:
                best, best_w = parts, w
    return best


def name_band_height(size: int, lines: int = 2) -> int:
    """The height of a name band that holds ``lines`` lines at ``size`` px."""
    return round(lines * size * LINE_SPACING) + 8


def name_layout(name: str, width: int, height: int, size: int,
                floor: int = MIN_TEXT) -> tuple[tuple[str, ...], int]:
    """How a card name fits a ``width`` x ``height`` band: its lines and their size.

    One line at ``size`` (shrinking a little if needed), else two lines, else three when the band
    is tall enough, shrinking as far as the band allows but never below ``floor``; only a name
    that fits no way is shortened with an ellipsis.
    """
    smallest = min(size, max(floor, round(size * ONE_LINE_SHRINK)))
    for s in range(size, smallest - 1, -1):
        if text_width(name, s, condensed=True) <= width:
            return (name,), s
    smallest = min(size, max(floor, round(size * TWO_LINE_SHRINK)))
    splits: tuple[tuple[int, Callable[[str, int], tuple[str, ...] | None]], ...] = (
        (2, _two_lines), (3, _three_lines))
    for count, split in splits:
        for s in range(size, smallest - 1, -1):
            parts = split(name, s)
            if parts is None or round(count * s * LINE_SPACING) > height:
                continue
            if max(text_width(p, s, condensed=True) for p in parts) <= width:
                return parts, s
    low = min(size, floor)
    text, s = fit(name, width, size, low, condensed=True)
    return (text,), s


def _next_triangles(img: Image.Image, d: ImageDraw.ImageDraw, nexts: list[str], width: int,
                    y0: int, y1: int) -> None:
    """The allowed next colours: downward triangles, each with its colour's symbol."""
    n = max(1, len(nexts))
    tri_w = min(round(width * 0.3), (width - 16) // n)
    gap = max(2, width // 40)
    total = n * tri_w + (n - 1) * gap
    x = (width - total) // 2
    for c in nexts:
        d.polygon([(x, y0), (x + tri_w, y0), (x + tri_w // 2, y1)], fill=COLOURS[c],
                  outline=DARK, width=max(2, width // 70))
        s = round(tri_w * 0.42)
        sym = icon_symbol(c, s)
        img.alpha_composite(sym, (x + (tri_w - s) // 2, y0 + max(2, (y1 - y0) // 10)))
        x += tri_w + gap


def icon_symbol(colour: str, size: int) -> Image.Image:
    """A colour's symbol in the ink that reads on that colour."""
    from render.icons import colour_symbol

    return colour_symbol(colour, size, on_colour=True)


#: Card sprites kept per process (RGBA, up to some 230 KB each: every card of a language fits).
CARDS = 256
#: Card names are written at this size (condensed bold), in as many lines as they need.
NAME_PX = MIN_TEXT + 2


def name_lines(name: str, width: int, size: int = NAME_PX) -> tuple[tuple[str, ...], int]:
    """``name`` in the fewest lines (up to three) no wider than ``width`` at ``size`` (or at
    MIN_TEXT when a long word needs it), and that size."""
    lines, _ = name_layout(name, width, round(3 * size * LINE_SPACING), size, size)
    if lines[-1].endswith("…"):  # a long word: the smallest size may hold it
        return name_layout(name, width, round(3 * size * LINE_SPACING), MIN_TEXT, MIN_TEXT)
    return lines, size


def _draw_name(d: ImageDraw.ImageDraw, lines: tuple[str, ...], size: int, cx: float,
               band: int, ink: RGB) -> None:
    """A card name's lines centred on ``cx`` in a band ``band`` high at the card's top."""
    pitch = round(size * LINE_SPACING)
    first = band / 2 - pitch * (len(lines) - 1) / 2
    for i, line in enumerate(lines):
        draw_text(d, (cx, first + i * pitch), line, size, fill=ink, anchor="mm", condensed=True)


def _action_layout(width: int, name: str) -> tuple[int, int, tuple[tuple[str, ...], int]]:
    """(badge size, name band height, name lines) of an action card ``width`` wide: the name
    spans the card's width, the colour badge leads the body."""
    badge = round(width * 0.22)
    lines = name_lines(name, width - 14)
    return badge, name_band_height(NAME_PX, max(2, len(lines[0]))), lines


def action_height(card: str, width: int, locale: str) -> int:
    """The height of :func:`action_card` of ``card``: its body, and a band its name fits in."""
    _, band, _ = _action_layout(width, translate(card_name(card), locale))
    return band + round(width * 1.12)


def action_card(card: str, width: int, locale: str = "en") -> Image.Image:
    """An action card (starting card or a reward's back) as an RGBA sprite: its name, colour
    badge and big effect numbers, the allowed next colours as triangles."""
    return _action_card(tables().actions[card], translate(card_name(card), locale), width)


@remembered(CARDS)
def _action_card(info: ActionInfo, name: str, width: int) -> Image.Image:
    badge, band, lines = _action_layout(width, name)
    h = band + round(width * 1.12)
    frame = COLOURS[info.colour]
    img, d = _base(width, h, frame, CARD_INNER, band / h, (band + width * 0.8) / h)
    _draw_name(d, *lines, width / 2, band, ON_COLOUR[info.colour])
    m = max(4, width // 22)
    img.alpha_composite(colour_badge(info.colour, badge), (m + 3, band + 4))
    values = [(e, info.effect(e)) for e in EFFECTS if info.effect(e)]
    _effect_rows(img, d, values, (m + badge + 4, band + 4, width - m - 4,
                                  band + round(width * 0.8) - 4), CARD_INK)
    top = band + round(width * 0.84)
    d.rounded_rectangle((m, top, width - 1 - m, h - 1 - m), radius=max(4, width // 24),
                        fill=NEXT_BAND)
    order = [c for c in COLOURS if c in info.next]
    _next_triangles(img, d, order, width, top + 6, h - m - max(3, width // 40))
    return img


def level_pips(d: ImageDraw.ImageDraw, level: int, x: int, y: int, size: int,
               fill: RGB = INK) -> None:
    """Level marks: one diamond per level, from (x, y) rightwards."""
    for i in range(level):
        cx = x + i * (size + size // 3) + size // 2
        cy = y + size // 2
        half = size // 2
        d.polygon([(cx, cy - half), (cx + half, cy), (cx, cy + half), (cx - half, cy)],
                  fill=fill, outline=DARK)


#: A monster card's body (below its name), as a share of its width: a little squatter than the
#: printed card, so the battle picture stays short.
MONSTER_BODY = 0.95


def _monster_layout(width: int, name: str) -> tuple[int, tuple[tuple[str, ...], int]]:
    """(name band height, (name lines, size)) of a monster card ``width`` wide."""
    lines = name_lines(name, width - 10)
    return name_band_height(NAME_PX, len(lines[0])), lines


def monster_height(card: str, width: int, locale: str) -> int:
    """The height of :func:`monster_card` of ``card``."""
    band, _ = _monster_layout(width, translate(monster_name(card), locale))
    return band + round(width * MONSTER_BODY)


def monster_card(card: str, width: int, locale: str = "en") -> Image.Image:
    """A monster's (or the Lord's) front: its name across the top band (in the lines it needs);
    below it a strip with the level marks (the Lord's crown) and a gatekeeper's key; then
    attack, hit points and curses."""
    return _monster_card(tables().monsters[card], translate(monster_name(card), locale), width)


@remembered(CARDS)
def _monster_card(info: MonsterInfo, name: str, width: int) -> Image.Image:
    band, lines = _monster_layout(width, name)
    body = round(width * MONSTER_BODY)
    h = band + body
    img, d = _base(width, h, LEVEL_FRAME[info.level], CARD_DARK, band / h, 0.97)
    _draw_name(d, *lines, width / 2, band, IVORY)
    m = max(4, width // 22)
    strip = max(MIN_ICON, width // 11)
    sy = band + max(3, width // 30)
    if info.level == 4:
        img.alpha_composite(icon("crown", strip + 4), (m + 4, sy - 2))
    else:
        level_pips(d, info.level, m + 5, sy, strip, fill=IVORY)
    if info.gatekeeper:
        img.alpha_composite(icon("key", strip + 6), (width - m - strip - 10, sy - 3))
    curses = info.curses
    stats_bottom = h - round(body * (0.34 if curses else 0.06))
    _effect_rows(img, d, [("attack", info.attack), ("heart", info.hp)],
                 (width // 12, sy + strip + 2, width - width // 12, stats_bottom), INK)
    if curses:
        cs = min(round(width * 0.36), (width - 12) // len(curses), round(body * 0.3))
        x = (width - cs * len(curses)) // 2
        for c in curses:
            img.alpha_composite(curse_icon(c, cs), (x, h - round(body * 0.04) - cs))
            x += cs
    return img


def monster_tile(card: str, width: int, height: int) -> Image.Image:
    """A monster as the table shows it on a phone: no name (its battle picture and the card
    command give it), big attack and hit points, its curses' marks, and a key for a
    gatekeeper; framed in its level's colour."""
    return _monster_tile(tables().monsters[card], width, height)


#: Number size on a table tile, and the size of its icons.
TILE_NUM = 28
TILE_ICON = 24


@remembered(CARDS)
def _monster_tile(info: MonsterInfo, width: int, height: int) -> Image.Image:
    img, d = _base(width, height, LEVEL_FRAME[info.level], CARD_DARK, 0.05, 0.95)
    row = TILE_NUM + 2
    for i, (name, value) in enumerate((("attack", info.attack), ("heart", info.hp))):
        cy = 6 + row * i + row // 2
        img.alpha_composite(icon(name, TILE_ICON), (8, cy - TILE_ICON // 2))
        draw_text(d, (12 + TILE_ICON, cy), str(value), TILE_NUM, fill=INK, anchor="lm")
    n = len(info.curses) + info.gatekeeper
    size = min(28, (width - 8) // max(1, n))
    marks: list[Image.Image] = [curse_icon(c, size) for c in info.curses]
    if info.gatekeeper:
        marks.append(icon("key", size))
    x = (width - size * len(marks)) // 2
    for mark in marks:
        img.alpha_composite(mark, (x, height - 5 - size))
        x += size
    return img


@remembered(64)
def card_back(width: int, level: int = 0, height: int | None = None) -> Image.Image:
    """A face-down card (a deck), framed in the level's colour when ``level`` is given."""
    h = height or card_height(width)
    frame = LEVEL_FRAME.get(level, BACK_FRAME)
    img, d = _base(width, h, frame, PANEL, 0.06, 0.94)
    m = width // 5
    d.line((m, m, width - m, h - m), fill=frame, width=max(2, width // 25))
    d.line((width - m, m, m, h - m), fill=frame, width=max(2, width // 25))
    return img


@remembered(64)
def empty_slot(width: int, height: int | None = None) -> Image.Image:
    """An empty row slot: a dashed outline."""
    h = height or card_height(width)
    img = Image.new("RGBA", (width, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((2, 2, width - 3, h - 3), radius=max(6, width // 12),
                        outline=SLOT_LINE, width=max(2, width // 45))
    return img
