"""The painters of the icons: each draws one picture with Pillow primitives (no copied artwork).

A painter draws on a 100x100 grid scaled by ``k`` (the sprite's side over 100) in the fill it is
given; :data:`PAINTERS` names them and :data:`DEFAULT_FILL` gives the fill of those drawn in a
colour of their own. :mod:`render.icons` turns them into cached sprites.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from PIL import ImageDraw

from render.style import (
    BAD,
    BONE,
    CARD_BACK,
    DARK,
    GOLD,
    HANDLE,
    HEAL,
    HEART,
    INK,
    POTION_COLOUR,
    RGB,
    SHIELD,
    STEEL,
    WHITE,
    WOOD,
)

Pt = tuple[float, float]
Painter = Callable[[ImageDraw.ImageDraw, float, RGB], None]


def _p(points: Sequence[Pt], k: float) -> list[Pt]:
    return [(x * k, y * k) for x, y in points]


def _box(x0: float, y0: float, x1: float, y1: float, k: float) -> tuple[float, float, float,
                                                                          float]:
    return (x0 * k, y0 * k, x1 * k, y1 * k)


def _outline(k: float) -> int:
    return max(1, round(5 * k))


def sword(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """Attack: a broad sword pointing up-right."""
    blade = [(90, 4), (96, 10), (92, 22), (42, 72), (28, 58), (78, 8)]
    d.polygon(_p(blade, k), fill=STEEL, outline=DARK, width=_outline(k))
    d.line(_p([(88, 12), (36, 64)], k), fill=(150, 156, 170), width=max(1, round(3 * k)))
    guard = [(14, 56), (24, 46), (54, 76), (44, 86)]
    d.polygon(_p(guard, k), fill=GOLD, outline=DARK, width=_outline(k))
    grip = [(28, 68), (36, 76), (18, 94), (10, 86)]
    d.polygon(_p(grip, k), fill=WOOD, outline=DARK, width=_outline(k))
    d.ellipse(_box(2, 84, 18, 100, k), fill=GOLD, outline=DARK, width=_outline(k))


def shield(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """Defence: a heater shield."""
    pts = [(14, 10), (86, 10), (86, 45), (78, 70), (50, 94), (22, 70), (14, 45)]
    d.polygon(_p(pts, k), fill=SHIELD, outline=DARK, width=_outline(k))
    inner = [(50, 18), (78, 18), (78, 45), (72, 64), (50, 84)]
    d.polygon(_p(inner, k), fill=STEEL)
    d.line(_p([(50, 14), (50, 90)], k), fill=DARK, width=_outline(k))


def _card_shape(d: ImageDraw.ImageDraw, k: float, box: tuple[float, float, float, float],
                fill: RGB) -> None:
    d.rounded_rectangle(_box(*box, k), radius=6 * k, fill=fill, outline=DARK, width=_outline(k))


def draw(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """Draw cards: two cards and a plus."""
    _card_shape(d, k, (8, 22, 52, 86), STEEL)
    _card_shape(d, k, (26, 8, 70, 72), WHITE)
    d.rectangle(_box(74, 54, 84, 96, k), fill=GOLD, outline=DARK, width=_outline(k) // 2)
    d.rectangle(_box(58, 70, 100, 80, k), fill=GOLD, outline=DARK, width=_outline(k) // 2)
    d.rectangle(_box(75, 55, 83, 95, k), fill=GOLD)


def heal(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """Heal: a green cross."""
    d.rounded_rectangle(_box(36, 8, 64, 92, k), radius=5 * k, fill=HEAL, outline=DARK,
                        width=_outline(k))
    d.rounded_rectangle(_box(8, 36, 92, 64, k), radius=5 * k, fill=HEAL, outline=DARK,
                        width=_outline(k))
    d.rectangle(_box(39, 39, 61, 61, k), fill=HEAL)


def heart(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """Hit points: a heart."""
    pts: list[Pt] = []
    for i in range(64):
        t = 2 * math.pi * i / 64
        x = 16 * math.sin(t) ** 3
        y = 13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)
        pts.append((50 + x * 2.8, 46 - y * 2.8))
    d.polygon(_p(pts, k), fill=c, outline=DARK, width=_outline(k))


def skull(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """A lost hit point: a skull."""
    d.ellipse(_box(14, 6, 86, 72, k), fill=BONE, outline=DARK, width=_outline(k))
    d.rounded_rectangle(_box(30, 56, 70, 92, k), radius=6 * k, fill=BONE, outline=DARK,
                        width=_outline(k))
    d.rectangle(_box(33, 56, 67, 66, k), fill=BONE)
    d.ellipse(_box(26, 32, 46, 52, k), fill=DARK)
    d.ellipse(_box(54, 32, 74, 52, k), fill=DARK)
    d.polygon(_p([(50, 54), (44, 64), (56, 64)], k), fill=DARK)
    for x in (40, 50, 60):
        d.line(_p([(x, 80), (x, 92)], k), fill=DARK, width=_outline(k) // 2 + 1)


def key(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """A key (gatekeepers, keys held): ring, shaft and two broad teeth."""
    w = max(1, round(3 * k))
    d.polygon(_p([(40, 38), (96, 38), (96, 54), (90, 54), (90, 74), (76, 74), (76, 54),
                  (68, 54), (68, 68), (56, 68), (56, 54), (40, 54)], k), fill=c, outline=DARK,
              width=w)
    d.ellipse(_box(4, 22, 52, 70, k), fill=c, outline=DARK, width=w)
    d.ellipse(_box(17, 35, 39, 57, k), fill=(0, 0, 0, 0), outline=DARK, width=w)


def axe(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """A weapon: a battle axe."""
    handle = HANDLE
    d.polygon(_p([(60, 4), (72, 8), (32, 98), (20, 94)], k), fill=handle, outline=DARK,
              width=max(1, round(3 * k)))
    blade = [(56, 14), (74, 20), (96, 8), (98, 52), (76, 42), (50, 36)]
    d.polygon(_p(blade, k), fill=STEEL, outline=DARK, width=max(1, round(3 * k)))
    d.polygon(_p([(56, 14), (50, 36), (36, 40), (28, 22)], k), fill=STEEL, outline=DARK,
              width=max(1, round(3 * k)))


def armour(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """Armour: a breastplate."""
    pts = [(30, 8), (42, 16), (58, 16), (70, 8), (92, 22), (82, 44), (80, 92), (20, 92),
           (18, 44), (8, 22)]
    d.polygon(_p(pts, k), fill=STEEL, outline=DARK, width=_outline(k))
    d.line(_p([(50, 24), (50, 86)], k), fill=DARK, width=_outline(k))
    d.arc(_box(28, 30, 72, 62, k), 20, 160, fill=DARK, width=_outline(k))


def flask(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """A potion flask in colour ``c``."""
    d.rectangle(_box(40, 4, 60, 14, k), fill=WOOD, outline=DARK, width=_outline(k))
    d.rectangle(_box(42, 12, 58, 36, k), fill=STEEL, outline=DARK, width=_outline(k))
    d.ellipse(_box(14, 30, 86, 98, k), fill=c, outline=DARK, width=_outline(k))
    d.rectangle(_box(45, 14, 55, 40, k), fill=STEEL)
    d.ellipse(_box(26, 44, 40, 58, k), fill=WHITE)


def potion_strength(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """Potion of strength: orange flask with an up arrow."""
    flask(d, k, POTION_COLOUR["strength"])
    d.polygon(_p([(50, 44), (68, 66), (57, 66), (57, 86), (43, 86), (43, 66), (32, 66)], k),
              fill=WHITE, outline=DARK, width=_outline(k) // 2)


def potion_healing(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """Healing potion: red flask with a cross."""
    flask(d, k, POTION_COLOUR["healing"])
    d.rectangle(_box(44, 48, 56, 88, k), fill=WHITE)
    d.rectangle(_box(30, 62, 70, 74, k), fill=WHITE)


def potion_countercurse(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """Countercurse potion: purple flask with a broken ring."""
    flask(d, k, POTION_COLOUR["countercurse"])
    d.ellipse(_box(32, 48, 68, 84, k), outline=WHITE, width=round(7 * k))
    d.line(_p([(38, 54), (62, 78)], k), fill=WHITE, width=round(7 * k))


def leaf(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """Green's symbol: a slim leaf with a short cut-out vein and a stem."""
    pts: list[Pt] = []
    bulge = 24
    for i in range(25):  # one edge from the stem end to the tip, then the other edge back
        t = i / 24
        b = bulge * math.sin(math.pi * t)
        pts.append((18 + 74 * t - b, 82 - 74 * t - b))
    for i in range(25):
        t = 1 - i / 24
        b = bulge * math.sin(math.pi * t)
        pts.append((18 + 74 * t + b, 82 - 74 * t + b))
    d.polygon(_p(pts, k), fill=c)
    d.line(_p([(4, 96), (22, 78)], k), fill=c, width=round(9 * k))
    d.line(_p([(34, 66), (70, 30)], k), fill=(0, 0, 0, 0), width=round(5 * k))


def drop(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """Blue's symbol: a water drop."""
    d.ellipse(_box(20, 38, 80, 96, k), fill=c)
    d.polygon(_p([(50, 2), (78, 56), (22, 56)], k), fill=c)


def flame(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """Red's symbol: a flame."""
    d.ellipse(_box(18, 42, 82, 98, k), fill=c)
    d.polygon(_p([(50, 2), (80, 60), (20, 60)], k), fill=c)
    d.polygon(_p([(22, 20), (40, 58), (20, 64)], k), fill=c)
    d.polygon(_p([(80, 24), (82, 64), (60, 56)], k), fill=c)


def sun(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """Yellow's symbol: a sun with rays."""
    for i in range(8):
        a = i * math.pi / 4
        tip = (50 + 48 * math.cos(a), 50 + 48 * math.sin(a))
        l1 = (50 + 26 * math.cos(a + 0.35), 50 + 26 * math.sin(a + 0.35))
        l2 = (50 + 26 * math.cos(a - 0.35), 50 + 26 * math.sin(a - 0.35))
        d.polygon(_p([tip, l1, l2], k), fill=c)
    d.ellipse(_box(24, 24, 76, 76, k), fill=c)


def spark(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """A hero's ability: a four-pointed star."""
    pts: list[Pt] = []
    for i in range(8):
        a = i * math.pi / 4 - math.pi / 2
        r = 48 if i % 2 == 0 else 16
        pts.append((50 + r * math.cos(a), 50 + r * math.sin(a)))
    d.polygon(_p(pts, k), fill=c, outline=DARK, width=_outline(k))


def crown(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """The Lord: a crown."""
    pts = [(6, 30), (28, 55), (50, 14), (72, 55), (94, 30), (86, 84), (14, 84)]
    d.polygon(_p(pts, k), fill=GOLD, outline=DARK, width=_outline(k))
    for x, y in ((6, 30), (50, 14), (94, 30)):
        d.ellipse(_box(x - 7, y - 7, x + 7, y + 7, k), fill=GOLD, outline=DARK,
                  width=_outline(k) // 2)


def deck(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """A face-down deck: a stack of cards."""
    for i, off in enumerate((16, 8, 0)):
        _card_shape(d, k, (14 + off, 4 + off, 70 + off, 80 + off), CARD_BACK if i == 2 else STEEL)


def discard(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """A discard pile: fanned face-up cards."""
    _card_shape(d, k, (6, 22, 58, 92), STEEL)
    _card_shape(d, k, (24, 14, 76, 84), WHITE)
    _card_shape(d, k, (42, 6, 94, 76), BONE)
    d.line(_p([(52, 20), (84, 62)], k), fill=BAD, width=round(6 * k))
    d.line(_p([(84, 20), (52, 62)], k), fill=BAD, width=round(6 * k))


def hand(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """A hand of cards: three cards fanned."""
    for box, fill in (((4, 26, 50, 92), STEEL), ((26, 16, 72, 84), WHITE),
                      ((50, 8, 96, 76), GOLD)):
        _card_shape(d, k, box, fill)


def check(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """Playable now: a check mark in a disc."""
    d.ellipse(_box(2, 2, 98, 98, k), fill=c, outline=DARK, width=_outline(k))
    d.line(_p([(24, 52), (42, 72), (78, 30)], k), fill=WHITE, width=round(13 * k),
           joint="curve")


def cross(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """Not enough: a cross in a disc (the check mark's opposite, told apart by shape)."""
    d.ellipse(_box(2, 2, 98, 98, k), fill=c, outline=DARK, width=_outline(k))
    d.line(_p([(30, 30), (70, 70)], k), fill=WHITE, width=round(13 * k))
    d.line(_p([(70, 30), (30, 70)], k), fill=WHITE, width=round(13 * k))


def ban(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """The curse mark: a red ring with a slash."""
    d.ellipse(_box(4, 4, 96, 96, k), outline=c, width=round(11 * k))
    d.line(_p([(20, 20), (80, 80)], k), fill=c, width=round(11 * k))


def arrow(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """Whose turn: an arrow pointing right."""
    d.polygon(_p([(6, 34), (52, 34), (52, 10), (96, 50), (52, 90), (52, 66), (6, 66)], k),
              fill=c, outline=DARK, width=_outline(k))


def chevron(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """A chain link between played cards: a chevron."""
    d.polygon(_p([(14, 10), (48, 10), (88, 50), (48, 90), (14, 90), (54, 50)], k), fill=c)


def trophy(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """A win: a cup."""
    d.pieslice(_box(18, -30, 82, 62, k), 0, 180, fill=GOLD, outline=DARK, width=_outline(k))
    d.rectangle(_box(44, 60, 56, 80, k), fill=GOLD, outline=DARK, width=_outline(k))
    d.rectangle(_box(28, 80, 72, 94, k), fill=GOLD, outline=DARK, width=_outline(k))
    d.arc(_box(4, 6, 30, 36, k), 90, 270, fill=GOLD, width=round(6 * k))
    d.arc(_box(70, 6, 96, 36, k), 270, 90, fill=GOLD, width=round(6 * k))


def coin(d: ImageDraw.ImageDraw, k: float, c: RGB) -> None:
    """A reward card, which can pay the merchant: a gold coin with a rim and a struck crown."""
    d.ellipse(_box(2, 2, 98, 98, k), fill=c, outline=DARK, width=_outline(k))
    d.ellipse(_box(16, 16, 84, 84, k), outline=DARK, width=round(4 * k))
    d.polygon(_p([(30, 64), (30, 36), (41, 50), (50, 32), (59, 50), (70, 36), (70, 64)], k),
              fill=DARK)


#: Each icon's name -> its painter.
PAINTERS: dict[str, Painter] = {
    "attack": sword, "defence": shield, "draw": draw, "heal": heal, "heart": heart,
    "skull": skull, "key": key, "weapon": axe, "armour": armour, "flask": flask,
    "potion.strength": potion_strength, "potion.healing": potion_healing,
    "potion.countercurse": potion_countercurse, "leaf": leaf, "drop": drop, "flame": flame,
    "sun": sun, "crown": crown, "deck": deck, "discard": discard, "hand": hand,
    "check": check, "cross": cross, "ban": ban, "spark": spark, "arrow": arrow, "chevron": chevron,
    "trophy": trophy, "coin": coin,
}
#: The fill a painter gets when the caller asks for none: this, else :data:`~render.style.INK`.
DEFAULT_FILL: dict[str, RGB] = {"heart": HEART, "key": GOLD, "check": (40, 170, 80), "cross": BAD,
                                "ban": BAD, "arrow": GOLD, "chevron": INK, "spark": GOLD,
                                "coin": GOLD}
