"""Pictures of the game drawn with Pillow from an :class:`engine.Observation`, as PNG bytes.

Three pictures, each drawn from the observation alone (never from a game state):

* :func:`table_image` - the public table (caverns, Lord, merchant, pawnshop, seats, events);
* :func:`battle_image` - the battle in progress with its running totals;
* :func:`hand_image` - the viewer's own hand, playable cards marked (seats only).

All text goes through :mod:`i18n` in the bundled DejaVu Sans font; images are at most 1200 px
wide and a few hundred kilobytes, sized to be read on a phone.
"""

from __future__ import annotations

from engine.observe import Observation
from render.battle import draw_battle
from render.hand import draw_hand, playable_cards
from render.style import encode
from render.table import draw_table

__all__ = ["battle_image", "hand_image", "playable_cards", "table_image"]


def _check(obs: object) -> Observation:
    if not isinstance(obs, Observation):
        raise TypeError(f"the renderer draws an engine Observation, not {type(obs).__name__}")
    return obs


def table_image(obs: Observation, locale: str = "en") -> bytes:
    """PNG of the public table as seen in ``obs`` (identical for every viewer)."""
    return encode(draw_table(_check(obs), locale))


def battle_image(obs: Observation, locale: str = "en") -> bytes:
    """PNG of the battle in progress; raises ValueError when ``obs.battle`` is None."""
    return encode(draw_battle(_check(obs), locale))


def hand_image(obs: Observation, locale: str = "en") -> bytes:
    """PNG of the viewer's hand; raises ValueError for a spectator's observation."""
    return encode(draw_hand(_check(obs), locale))
