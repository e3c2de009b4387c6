"""Chips: compact tokens of held cards (a colour badge or an equipment icon, and the effects),
where whole cards do not fit, such as the pawnshop."""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine.catalog import tables
from render.cards import CARDS, EFFECTS
from render.icons import colour_badge, icon
from render.style import (
    CHIP_BG,
    CHIP_FRAME,
    COLOURS,
    GOLD,
    INK,
    MIN_ICON,
    MIN_TEXT,
    draw_text,
    remembered,
    text_width,
)

ChipKey = tuple[str, tuple[tuple[str, int], ...]]


def chip_key(card: str) -> ChipKey:
    """What :func:`card_chip` shows of ``card`` (colour or equipment kind, and its effects):
    cards with the same key look the same as chips, so a list may count them together."""
    t = tables()
    if card in t.actions:
        info = t.actions[card]
        return info.colour, tuple((e, info.effect(e)) for e in EFFECTS if info.effect(e))
    eq = t.equipment[card]
    return eq.kind, tuple((e, v) for e, v in (("attack", eq.attack), ("defence", eq.defence),
                                              ("heal", eq.heal), ("hand", eq.hand)) if v)


def card_chip(card: str, height: int, count: int = 1) -> Image.Image:
    """A compact token of a held card: colour badge (or equipment icon) and its effects, then
    ``×count`` when it stands for several identical cards.

    Used where whole cards do not fit, such as a long pawnshop.
    """
    return _chip(chip_key(card), height, count)


@remembered(CARDS)
def _chip(key: ChipKey, height: int, count: int) -> Image.Image:
    lead_name, values = key
    if lead_name in COLOURS:
        lead = colour_badge(lead_name, height - 6)
        frame = COLOURS[lead_name]
    else:
        lead = icon(lead_name, height - 6)
        frame = CHIP_FRAME
    small = max(MIN_ICON, round(height * 0.5))
    num = max(MIN_TEXT, round(height * 0.6))
    times = f"×{count}" if count > 1 else ""
    width = height + sum(small + 2 + text_width(str(v), num) + 6 for _, v in values) + 4
    if times:
        width += text_width(times, num) + 8
    img = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((0, 0, width - 1, height - 1), radius=height // 4, fill=CHIP_BG,
                        outline=frame, width=max(2, height // 14))
    img.alpha_composite(lead, (3, 3))
    x = height
    for name, value in values:
        img.alpha_composite(icon(name, small), (x, (height - small) // 2))
        x += small + 2
        x += draw_text(d, (x, height // 2), str(value), num, fill=INK, anchor="lm") + 6
    if times:
        d.line((x - 2, 6, x - 2, height - 7), fill=frame, width=2)
        draw_text(d, (x + 4, height // 2), times, num, fill=GOLD, anchor="lm")
    return img
