"""Icons as sprites: each painter of :mod:`render.painters` supersampled, shrunk and cached.

Each icon is drawn on a 100x100 grid at 4x resolution and shrunk with a good filter, so shapes
are smooth. :func:`icon` returns an RGBA image to paste with itself as the mask; the card colours'
symbols, badges and curse marks are built from the same painters.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PIL import Image, ImageDraw

from render.painters import DEFAULT_FILL, PAINTERS
from render.style import COLOURS, DARK, INK, ON_COLOUR, RGB, remembered

SS = 4  # supersampling factor

# The symbol of each card colour: colour is never the only cue.
SYMBOL = {"green": "leaf", "blue": "drop", "red": "flame", "yellow": "sun"}


#: Sprites kept per process: every icon, badge and curse mark at each size in use (a few hundred).
SPRITES = 1024
_RECORDERS: list[list[tuple[str, Image.Image]]] = []


@contextmanager
def record_icons() -> Iterator[list[tuple[str, Image.Image]]]:
    """Collect ``(name, sprite)`` of every icon asked for inside the ``with`` block (the tests
    measure their ink at phone width; card sprites must be cleared to be seen)."""
    seen: list[tuple[str, Image.Image]] = []
    _RECORDERS.append(seen)
    try:
        yield seen
    finally:
        _RECORDERS.remove(seen)


def _seen(name: str, sprite: Image.Image) -> Image.Image:
    for seen in _RECORDERS:
        seen.append((name, sprite))
    return sprite


@remembered(SPRITES)
def _painted(name: str, size: int, colour: RGB | None) -> Image.Image:
    painter = PAINTERS[name]
    big = Image.new("RGBA", (size * SS, size * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(big)
    fill = colour or DEFAULT_FILL.get(name, INK)
    painter(d, size * SS / 100, fill)
    return big.resize((size, size), Image.Resampling.LANCZOS)


def icon(name: str, size: int, colour: RGB | None = None) -> Image.Image:
    """The icon ``name`` as an RGBA sprite of ``size`` x ``size`` pixels (cached)."""
    return _seen(name, _painted(name, size, colour))


def _symbol(colour: str, size: int, on_colour: bool) -> Image.Image:
    fill = ON_COLOUR[colour] if on_colour else COLOURS[colour]
    return _painted(SYMBOL[colour], size, fill)


def colour_symbol(colour: str, size: int, on_colour: bool = False) -> Image.Image:
    """The symbol of a card colour, in that colour (or in the ink that reads on it)."""
    return _seen(SYMBOL[colour], _symbol(colour, size, on_colour))


@remembered(SPRITES)
def _badge(colour: str, size: int) -> Image.Image:
    big = Image.new("RGBA", (size * SS, size * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(big)
    d.ellipse((0, 0, size * SS - 1, size * SS - 1), fill=COLOURS[colour], outline=DARK,
              width=max(2, size * SS // 16))
    img = big.resize((size, size), Image.Resampling.LANCZOS)
    inner = round(size * 0.62)
    sym = _symbol(colour, inner, True)
    off = (size - inner) // 2
    img.alpha_composite(sym, (off, off))
    return img


def colour_badge(colour: str, size: int) -> Image.Image:
    """A disc of the card colour with its symbol inside, outlined dark: reads on any background."""
    return _seen(f"badge.{colour}", _badge(colour, size))


@remembered(SPRITES)
def _curse(curse: str, size: int) -> Image.Image:
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    inner = round(size * 0.7)
    off = (size - inner) // 2
    if curse in COLOURS:
        img.alpha_composite(_badge(curse, inner), (off, off))
    else:
        img.alpha_composite(_painted(curse, inner, None), (off, off))
    img.alpha_composite(_painted("ban", size, None))
    return img


def curse_icon(curse: str, size: int) -> Image.Image:
    """A curse: the cursed thing (colour symbol, effect or equipment) under a red ban mark."""
    return _seen(f"curse.{curse}", _curse(curse, size))


def paste(canvas: Image.Image, sprite: Image.Image, xy: tuple[int, int]) -> None:
    """Paste an RGBA sprite onto an RGB canvas at ``xy`` (its top-left corner)."""
    canvas.paste(sprite, xy, sprite)
