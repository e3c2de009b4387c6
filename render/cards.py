"""Cards drawn from the catalogue: action cards, monsters, equipment and card backs.

A card never changes during a process, so every sprite is cached by (card, width, locale). The
drawing follows the printed cards in spirit only: a frame in the card's colour with that colour's
symbol, big effect numbers beside icons, and the allowed next colours as triangles at the bottom.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from PIL import Image, ImageDraw

from engine.catalog import tables
from engine.names import card_name, monster_name
from i18n import translate
from render.icons import colour_badge, curse_icon, icon
from render.style import (
    BACK_FRAME,
    CARD_DARK,
    CARD_INK,
    CARD_INNER,
    CHIP_BG,
    CHIP_FRAME,
    COLOURS,
    DARK,
    GOLD,
    INK,
    IVORY,
    LEVEL_FRAME,
    MIN_TEXT,
    NEXT_BAND,
    ON_COLOUR,
    PANEL,
    RGB,
    SLOT_LINE,
    draw_text,
    fit,
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
    while num > 12 and size + 6 + max(text_width(t, num) for t in texts) > x1 - x0:
        num -= 2
        size = min(size, num)
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


def join_lines(lines: tuple[str, ...]) -> str:
    """The name whose lines are ``lines`` (a line ending with a hyphen was cut after it)."""
    out = ""
    for line in lines:
        out += line if (not out or out.endswith("-")) else " " + line
    return out


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


def _name_band(d: ImageDraw.ImageDraw, name: str, x0: int, x1: int, y0: int, y1: int,
               size: int, ink: RGB, floor: int = MIN_TEXT) -> None:
    """The card's name centred in the band (x0, y0)-(x1, y1): one line or two."""
    lines, s = name_layout(name, x1 - x0, y1 - y0, size, floor)
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    pitch = round(s * LINE_SPACING)
    first = cy - pitch * (len(lines) - 1) / 2
    for i, line in enumerate(lines):
        draw_text(d, (cx, first + i * pitch), line, s, fill=ink, anchor="mm", condensed=True)


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


@cache
def icon_symbol(colour: str, size: int) -> Image.Image:
    """A colour's symbol in the ink that reads on that colour."""
    from render.icons import colour_symbol

    return colour_symbol(colour, size, on_colour=True)


@cache
def action_card(card: str, width: int, locale: str = "en") -> Image.Image:
    """An action card (starting card or a reward's back) as an RGBA sprite."""
    info = tables().actions[card]
    h = card_height(width)
    frame = COLOURS[info.colour]
    img, d = _base(width, h, frame, CARD_INNER, 0.2, 0.74)
    badge = round(width * 0.26)
    img.alpha_composite(colour_badge(info.colour, badge), (max(3, width // 30),
                                                           max(3, width // 30)))
    name = translate(card_name(card), locale)
    _name_band(d, name, badge + width // 16, width - width // 20, 2, round(h * 0.2) - 1,
               max(10, width // 8), ON_COLOUR[info.colour])
    values = [(e, info.effect(e)) for e in EFFECTS if info.effect(e)]
    _effect_rows(img, d, values, (width // 12, round(h * 0.21), width - width // 12,
                                  round(h * 0.73)), CARD_INK)
    m = max(4, width // 22)
    d.rounded_rectangle((m, round(h * 0.77), width - 1 - m, h - 1 - m), radius=max(4, width // 24),
                        fill=NEXT_BAND)
    order = [c for c in COLOURS if c in info.next]
    _next_triangles(img, d, order, width, round(h * 0.785), h - m - max(3, width // 40))
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


def monster_band(width: int, name_px: int | None = None) -> tuple[int, int, int]:
    """(width, height, size) of the name band of a monster card ``width`` wide: proportional to
    the card, or sized for three lines at ``name_px`` (the table's narrow cards)."""
    if name_px is None:
        m = max(4, width // 22)
        return width - 2 * m - 4, round(card_height(width) * 0.2) - 3, max(10, width // 9)
    return width - 10, name_band_height(name_px, 3) - 3, name_px


def monster_height(width: int, name_px: int | None = None, height: int | None = None) -> int:
    """The height of :func:`monster_card` drawn with these arguments."""
    if height is not None:
        return height
    base = card_height(width)
    if name_px is None:
        return base
    return base - round(base * 0.2) + name_band_height(name_px, 3)


@cache
def monster_card(card: str, width: int, locale: str = "en", name_px: int | None = None,
                 height: int | None = None) -> Image.Image:
    """A monster's (or the Lord's) front: its name across the top band; below it a strip with
    the level marks (the Lord's crown) and a gatekeeper's key; then attack, hit points, curses.

    By default the card keeps the printed proportions and its name grows with it; ``name_px``
    gives the name the lines it needs at that size whatever the width (the table's cards, read
    on a phone: the table's captions then carry level, crown and key, so the strip is left
    out), and ``height`` sets the card's height (the body shares what is left).
    """
    info = tables().monsters[card]
    h = monster_height(width, name_px, height)
    base = card_height(width)
    frame = LEVEL_FRAME[info.level]
    band_w, band_h, size = monster_band(width, name_px)
    name = translate(monster_name(card), locale)
    if name_px is not None:  # the band takes the lines this name needs (two at least)
        lines, _ = name_layout(name, band_w, band_h, size, min(size, MIN_TEXT))
        band_h = name_band_height(name_px, max(2, len(lines))) - 3
    band = band_h + 3
    img, d = _base(width, h, frame, CARD_DARK, band / h, 0.97)
    x0 = (width - band_w) // 2
    _name_band(d, name, x0, x0 + band_w, 2, band - 1, size, IVORY, floor=min(size, MIN_TEXT))
    m = max(4, width // 22)
    strip = max(9, width // 11)
    sy = band + max(3, width // 30)
    if name_px is not None:  # the table writes level, crown and key in its captions instead
        strip, sy = 0, band + 2
    elif info.level == 4:
        img.alpha_composite(icon("crown", strip + 4), (m + 4, sy - 2))
    else:
        level_pips(d, info.level, m + 5, sy, strip, fill=IVORY)
    if info.gatekeeper and name_px is None:
        img.alpha_composite(icon("key", strip + 6), (width - m - strip - 10, sy - 3))
    curses = info.curses
    body = h - band  # the printed card's body is 80% of its height
    scale = body / (base * 0.8)
    stats_bottom = h - round(base * scale * (0.28 if curses else 0.05))
    _effect_rows(img, d, [("attack", info.attack), ("heart", info.hp)],
                 (width // 12, sy + strip + 2, width - width // 12, stats_bottom), INK)
    if curses:
        cs = min(round(width * 0.36), (width - 12) // len(curses),
                 round(base * scale * 0.26))
        x = (width - cs * len(curses)) // 2
        for c in curses:
            img.alpha_composite(curse_icon(c, cs), (x, h - round(base * scale * 0.04) - cs))
            x += cs
    return img


@cache
def card_back(width: int, level: int = 0) -> Image.Image:
    """A face-down card (a deck), framed in the level's colour when ``level`` is given."""
    h = card_height(width)
    frame = LEVEL_FRAME.get(level, BACK_FRAME)
    img, d = _base(width, h, frame, PANEL, 0.06, 0.94)
    m = width // 5
    d.line((m, m, width - m, h - m), fill=frame, width=max(2, width // 25))
    d.line((width - m, m, m, h - m), fill=frame, width=max(2, width // 25))
    return img


@cache
def empty_slot(width: int) -> Image.Image:
    """An empty row slot: a dashed outline."""
    h = card_height(width)
    img = Image.new("RGBA", (width, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((2, 2, width - 3, h - 3), radius=max(6, width // 12),
                        outline=SLOT_LINE, width=max(2, width // 45))
    return img


def chip_key(card: str) -> tuple[str, tuple[tuple[str, int], ...]]:
    """What :func:`card_chip` shows of ``card`` (colour or equipment kind, and its effects):
    cards with the same key look the same as chips, so a list may count them together."""
    t = tables()
    if card in t.actions:
        info = t.actions[card]
        return info.colour, tuple((e, info.effect(e)) for e in EFFECTS if info.effect(e))
    eq = t.equipment[card]
    return eq.kind, tuple((e, v) for e, v in (("attack", eq.attack), ("defence", eq.defence),
                                              ("heal", eq.heal), ("hand", eq.hand)) if v)


@cache
def card_chip(card: str, height: int, count: int = 1) -> Image.Image:
    """A compact token of a held card: colour badge (or equipment icon) and its effects, then
    ``×count`` when it stands for several identical cards.

    Used where whole cards do not fit, such as a long pawnshop.
    """
    t = tables()
    values: list[tuple[str, int]]
    if card in t.actions:
        info = t.actions[card]
        lead = colour_badge(info.colour, height - 6)
        values = [(e, info.effect(e)) for e in EFFECTS if info.effect(e)]
        frame = COLOURS[info.colour]
    else:
        eq = t.equipment[card]
        lead = icon(eq.kind, height - 6)
        values = [(e, v) for e, v in (("attack", eq.attack), ("defence", eq.defence),
                                      ("heal", eq.heal), ("hand", eq.hand)) if v]
        frame = CHIP_FRAME
    small = round(height * 0.55)
    num = round(height * 0.6)
    times = f"×{count}" if count > 1 else ""
    width = height + sum(small + 4 + text_width(str(v), num) + 8 for _, v in values) + 6
    if times:
        width += text_width(times, num) + 8
    img = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((0, 0, width - 1, height - 1), radius=height // 4, fill=CHIP_BG,
                        outline=frame, width=max(2, height // 14))
    img.alpha_composite(lead, (3, 3))
    x = height + 2
    for name, value in values:
        img.alpha_composite(icon(name, small), (x, (height - small) // 2))
        x += small + 4
        x += draw_text(d, (x, height // 2), str(value), num, fill=INK, anchor="lm") + 8
    if times:
        d.line((x - 2, 6, x - 2, height - 7), fill=frame, width=2)
        draw_text(d, (x + 4, height // 2), times, num, fill=GOLD, anchor="lm")
    return img
