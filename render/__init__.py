"""Pictures of the game drawn with Pillow from an :class:`engine.Observation`, as PNG bytes.

Three pictures, each drawn from the observation alone (never from a game state):

* :func:`table_image` - the public table (caverns, Lord, merchant, pawnshop, seats);
* :func:`battle_image` - the battle in progress with its running totals;
* :func:`hand_image` - the viewer's own hand, playable cards marked (seats only).

:func:`match_animation` makes a GIF of a whole match from its :class:`engine.replay.Replay`: the
table at each turn's start as a spectator saw it (see :mod:`render.animation`).

All text goes through :mod:`i18n` in the bundled DejaVu Sans font. Pictures are 600 px wide and
laid out for the width a phone shows them (about 400 px, where every number is at least 12 px
high and every word and icon at least 9 px); they are palette PNGs of some tens of kilobytes.

:func:`table_key`, :func:`battle_key` and :func:`hand_key` compute, from exactly what each
picture reads, a key that changes only when the picture would: draw again only when it changed.
"""

from __future__ import annotations

from engine.observe import Observation
from render.animation import match_animation
from render.bands import encode
from render.battle import draw_battle
from render.hand import draw_hand, playable_cards
from render.keys import battle_key, hand_key, table_key
from render.seats import Handed
from render.style import forget_drawings
from render.table import draw_table

__all__ = ["Handed", "battle_image", "battle_key", "forget_drawings", "hand_image", "hand_key",
           "match_animation", "playable_cards", "table_image", "table_key"]


def _check(obs: object) -> Observation:
    if not isinstance(obs, Observation):
        raise TypeError(f"the renderer draws an engine Observation, not {type(obs).__name__}")
    return obs


def table_image(obs: Observation, locale: str = "en", handed: Handed = ()) -> bytes:
    """PNG of the public table as seen in ``obs`` (identical for every viewer); ``handed``: the
    seats the AI plays now in place of the person who left them (see
    :data:`render.seats.Handed`), marked as the AI's."""
    return encode(draw_table(_check(obs), locale, handed))


def battle_image(obs: Observation, locale: str = "en") -> bytes:
    """PNG of the battle in progress; raises ValueError when ``obs.battle`` is None."""
    return encode(draw_battle(_check(obs), locale))


def hand_image(obs: Observation, locale: str = "en") -> bytes:
    """PNG of the viewer's hand; raises ValueError for a spectator's observation."""
    return encode(draw_hand(_check(obs), locale))
