"""A card looked up on its own (the bot's /goblin card): drawn as the table draws it, a starting
card, or a monster's front with the reward on its back beside it when that is an action card.
Potions and heroes have no card of their own: no picture. Drawn once per card and language."""

from __future__ import annotations

import io
from functools import lru_cache

from PIL import Image

from engine.catalog import tables
from render.cards import action_card, monster_card

#: Width of one card in the picture, in pixels.
CARD_WIDTH = 240
GAP = 16


@lru_cache(maxsize=256)
def card_png(card: str, locale: str) -> bytes | None:
    """The PNG of ``card`` in ``locale`` (None for what has no card: a potion, a hero)."""
    t = tables()
    sides: list[Image.Image] = []
    if card in t.monsters:
        sides.append(monster_card(card, CARD_WIDTH, locale))
    if card in t.actions:
        sides.append(action_card(card, CARD_WIDTH, locale))
    if not sides:
        return None
    width = sum(s.width for s in sides) + GAP * (len(sides) - 1)
    canvas = Image.new("RGBA", (width, max(s.height for s in sides)), (0, 0, 0, 0))
    x = 0
    for side in sides:
        canvas.alpha_composite(side.convert("RGBA"), (x, 0))
        x += side.width + GAP
    out = io.BytesIO()
    canvas.save(out, "PNG", optimize=True)
    return out.getvalue()


__all__ = ["CARD_WIDTH", "card_png"]
